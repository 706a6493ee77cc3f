//! `colony merge OUT SHARD_DIR…`: joins the shard directories of one suite into one results
//! directory whose summaries, tables and plots are those of an unsharded run.
//!
//! Checks, each a clear error: every directory holds a manifest of the same run (same
//! identity, same shard count, distinct shards); no work item finished in two shards
//! (overlap); every shard is present and every work item it owned (its `plan.json`) finished
//! (missing). `--allow-partial` turns the last check into a report of the gaps.
//!
//! Results are concatenated line by line (each shard's lines in shard order, so the latest
//! line per item still wins as in a single run); episode trajectories and call logs are
//! copied; then every unit's report is rebuilt by the same functions an unsharded run ends
//! with ([`crate::eval::reasoning::report`], [`crate::eval::embodied::compare::write_compare_reports`]).

use colony_policy::registry::Registry;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::manifest::{differences, Manifest, ManifestError, ModelRecord};
use super::plan::PlanFile;
use super::run::{compare_config, unit_dir, unit_report, write_suite_report, UnitReport};
use super::spec::Suite;
use crate::eval::embodied::compare::write_compare_reports;
use crate::eval::embodied::compare_config::{CompareError, EpisodeResult};
use crate::eval::reasoning::report::{rebuild_summary_with, write_eval_report, ReportError};
use crate::eval::results::ItemResult;
use crate::eval::CallRouting;
use colony_llm::{ModelKind, ModelSpec};

/// Largest results or plan file read whole, in bytes (within the 2 GiB budget with
/// its parsed records; README states it).
const MAX_READ_BYTES: u64 = 256 << 20;

/// Why shards could not be merged.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no shard directories given")]
    NoShards,
    /// A directory is not a suite run.
    #[error("{0}: not a colony run directory (no manifest.json)")]
    NotARun(PathBuf),
    /// A manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Two directories are shards of different runs.
    #[error("{a} and {b} are not shards of the same run: {differences}")]
    Mismatch {
        /// First directory.
        a: PathBuf,
        /// The other.
        b: PathBuf,
        /// What differs.
        differences: String,
    },
    /// A directory is not a shard, or two are the same shard.
    #[error("{path}: {message}")]
    Shard {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The output directory already holds results.
    #[error("{0} already exists and is not empty; merge into a new directory")]
    OutNotEmpty(PathBuf),
    /// A work item finished in two shards.
    #[error("{key} finished in both {a} and {b}: the shards overlap (were they run with different shard counts?)")]
    Overlap {
        /// The work item.
        key: String,
        /// One shard directory.
        a: PathBuf,
        /// The other.
        b: PathBuf,
    },
    /// Shards or work items are missing.
    #[error("{0}; rerun the missing shards (they resume), or pass --allow-partial to merge what is there")]
    Missing(String),
    /// A file could not be read or written, or does not parse.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A unit's report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// An environment unit's report could not be written.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// The suite report could not be written.
    #[error(transparent)]
    Suite(#[from] super::run::SuiteRunError),
}

/// What a merge produced.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// Per unit, in plan order.
    pub units: Vec<UnitReport>,
    /// The combined report.
    pub markdown: String,
    /// What is missing (empty for a complete merge).
    pub gaps: Vec<String>,
}

fn io(path: &Path) -> impl Fn(String) -> MergeError + '_ {
    move |message| MergeError::Io {
        path: path.to_path_buf(),
        message,
    }
}

/// Shard files must be the run's own: a symbolic link (to anything outside) is an error.
fn refuse_link(path: &Path) -> Result<(), MergeError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(io(path)(
            "is a symbolic link; a shard's files are read only as the run wrote them".into(),
        )),
        _ => Ok(()),
    }
}

fn read_bounded(path: &Path) -> Result<Option<String>, MergeError> {
    refuse_link(path)?;
    colony_env_api::bounded::read_string_if_exists(path, MAX_READ_BYTES)
        .map_err(|e| io(path)(e.to_string()))
}

/// The model spec a recorded model stands for, enough to label reports.
fn spec_of(r: &ModelRecord) -> ModelSpec {
    ModelSpec {
        name: r.name.clone(),
        kind: if r.simulated() {
            ModelKind::Simulated
        } else {
            ModelKind::Openai
        },
        model: Some(r.model.clone()),
        accuracy: r.accuracy,
        ..ModelSpec::default()
    }
}

/// Whole lines of a JSONL file (a torn last line of a killed shard is left out).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n')
        .enumerate()
        .filter(|(_, l)| l.ends_with('\n') && !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// Output being assembled: file → bytes, written at the end.
#[derive(Default)]
struct Assembly {
    files: BTreeMap<PathBuf, Vec<u8>>,
    /// Finished key → shard directory that finished it.
    finished: BTreeMap<String, PathBuf>,
    /// (source dir, destination dir) trees to copy.
    trees: Vec<(PathBuf, PathBuf)>,
    /// (source file, destination file) JSONL files whose whole lines are appended, in order.
    appends: Vec<(PathBuf, PathBuf)>,
}

impl Assembly {
    /// Appends a shard's results file (`path`, whole lines) to `dest` and records the work
    /// items it finished (`finished` gives a line's key when it is not an error).
    fn append_results<T: serde::de::DeserializeOwned>(
        &mut self,
        path: &Path,
        dest: PathBuf,
        shard: &Path,
        finished: impl Fn(&T) -> Option<String>,
    ) -> Result<(), MergeError> {
        let text = read_bounded(path)?.unwrap_or_default();
        let mut keys = Vec::new();
        let out = self.files.entry(dest).or_default();
        for (n, line) in lines(&text) {
            let r: T =
                serde_json::from_str(line).map_err(|e| io(path)(format!("line {n}: {e}")))?;
            out.extend_from_slice(line.as_bytes());
            keys.extend(finished(&r));
        }
        for k in keys {
            self.finish(k, shard)?;
        }
        Ok(())
    }

    fn finish(&mut self, key: String, shard: &Path) -> Result<(), MergeError> {
        if let Some(a) = self.finished.get(&key) {
            if a != shard {
                return Err(MergeError::Overlap {
                    key,
                    a: a.clone(),
                    b: shard.to_path_buf(),
                });
            }
        }
        self.finished.insert(key, shard.to_path_buf());
        Ok(())
    }
}

/// Merges `shards` into `out` (see the module docs).
pub async fn merge_shards(
    registry: &Registry,
    out: &Path,
    shards: &[PathBuf],
    allow_partial: bool,
) -> Result<MergeOutcome, MergeError> {
    let first = shards.first().ok_or(MergeError::NoShards)?;
    let mut manifests = Vec::new();
    for dir in shards {
        let m = Manifest::read(dir)?.ok_or_else(|| MergeError::NotARun(dir.clone()))?;
        manifests.push(m);
    }
    let base = manifests[0].clone();
    let mut by_index: BTreeMap<u32, PathBuf> = BTreeMap::new();
    let count = base.shard.map_or(1, |s| s.count);
    for (dir, m) in shards.iter().zip(&manifests) {
        let d = differences(&base.identity(), &m.identity());
        if !d.is_empty() {
            return Err(MergeError::Mismatch {
                a: first.clone(),
                b: dir.clone(),
                differences: d.join("; "),
            });
        }
        let shard = m.shard.ok_or_else(|| MergeError::Shard {
            path: dir.clone(),
            message: "is an unsharded run; only shard directories are merged".into(),
        })?;
        if shard.count != count {
            return Err(MergeError::Shard {
                path: dir.clone(),
                message: format!(
                    "is shard {shard} but {} is of {count} shards",
                    first.display()
                ),
            });
        }
        if let Some(other) = by_index.insert(shard.index, dir.clone()) {
            return Err(MergeError::Shard {
                path: dir.clone(),
                message: format!("is shard {shard}, like {}", other.display()),
            });
        }
    }
    let mut gaps = Vec::new();
    let missing_shards: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing_shards.is_empty() {
        gaps.push(format!("shard(s) {} not given", missing_shards.join(", ")));
    }
    let mut assigned: Vec<String> = Vec::new();
    for dir in by_index.values() {
        let path = dir.join("plan.json");
        let text = read_bounded(&path)?.ok_or_else(|| io(&path)("missing".into()))?;
        let plan: PlanFile = serde_json::from_str(&text).map_err(|e| io(&path)(e.to_string()))?;
        assigned.extend(plan.keys);
    }
    let suite = base.suite.clone();
    let mut asm = Assembly::default();
    for model in &base.models {
        for label in dataset_groups(&suite) {
            for dir in by_index.values() {
                scan_dataset_unit(&mut asm, dir, &model.name, &label)?;
            }
        }
        for e in &suite.environments {
            for dir in by_index.values() {
                scan_env_unit(&mut asm, dir, &model.name, &e.label)?;
            }
        }
    }
    let missing: Vec<&String> = assigned
        .iter()
        .filter(|k| !asm.finished.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(5).map(|s| s.as_str()).collect();
        gaps.push(format!(
            "{} work item(s) not finished (e.g. {})",
            missing.len(),
            shown.join(", ")
        ));
    }
    if !gaps.is_empty() && !allow_partial {
        return Err(MergeError::Missing(gaps.join("; ")));
    }
    // Everything is written into a staging directory next to OUT and renamed into place at
    // the end: a merge killed at any moment leaves OUT as it was
    // (absent or empty), and of two merges racing into one OUT only the first rename wins.
    check_out_empty(out)?;
    let staging = staging_dir(out);
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(|e| io(&staging)(e.to_string()))?;
    }
    let result = build_merged(registry, &staging, &asm, &base, &suite, &gaps).await;
    let (units, markdown) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    if let Err(e) = publish(&staging, out) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    Ok(MergeOutcome {
        units,
        markdown,
        gaps,
    })
}

/// Writes the merged run (files, manifest, reports) into `dir`; returns the unit reports and
/// the suite's Markdown.
async fn build_merged(
    registry: &Registry,
    dir: &Path,
    asm: &Assembly,
    base: &Manifest,
    suite: &Suite,
    gaps: &[String],
) -> Result<(Vec<UnitReport>, String), MergeError> {
    write_assembly(dir, asm)?;
    let mut manifest = base.clone();
    manifest.shard = None;
    manifest.write(dir)?;
    let units = rebuild_reports(registry, dir, suite, &base.models).await?;
    let mut markdown = write_suite_report(dir, suite, &units)?;
    if !gaps.is_empty() {
        let note = format!("**Partial merge:** {}.\n", gaps.join("; "));
        markdown.push_str(&note);
        let path = dir.join("results.md");
        crate::eval::results::write_atomic(&path, markdown.as_bytes())
            .map_err(|e| io(&path)(e.to_string()))?;
    }
    Ok((units, markdown))
}

/// OUT must be absent or an empty directory.
fn check_out_empty(out: &Path) -> Result<(), MergeError> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(MergeError::OutNotEmpty(out.to_path_buf()));
        }
    }
    Ok(())
}

/// The staging directory of a merge into `out`: a hidden sibling named after it and this
/// process, so a rename publishes it on the same file system.
fn staging_dir(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or("merged".into(), |n| n.to_string_lossy().into_owned());
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    let staged = format!(".{name}.merging-{}", std::process::id());
    parent.map_or_else(|| PathBuf::from(&staged), |p| p.join(&staged))
}

/// Renames the finished `staging` directory to `out` (replacing an empty `out`); fails
/// without touching `out` when another merge got there first.
fn publish(staging: &Path, out: &Path) -> Result<(), MergeError> {
    if out.exists() {
        check_out_empty(out)?;
        std::fs::remove_dir(out).map_err(|_| MergeError::OutNotEmpty(out.to_path_buf()))?;
    }
    std::fs::rename(staging, out).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::DirectoryNotEmpty => {
            MergeError::OutNotEmpty(out.to_path_buf())
        }
        _ => io(out)(e.to_string()),
    })
}

/// Reads a dataset unit of one shard: result lines (per policy file), calls logs, settings.
fn scan_dataset_unit(
    asm: &mut Assembly,
    shard: &Path,
    model: &str,
    label: &str,
) -> Result<(), MergeError> {
    let rel = unit_dir(model, label);
    let src = shard.join(&rel);
    let Ok(entries) = std::fs::read_dir(&src) else {
        return Ok(());
    };
    let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    files.sort();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".jsonl") {
            asm.append_results(&path, rel.join(&name), shard, |r: &ItemResult| {
                r.error
                    .is_none()
                    .then(|| format!("{model}/{label}/{}/{}/{}", r.dataset, r.policy, r.id))
            })?;
        } else if name == "settings.json" {
            merge_settings(asm, &rel.join(&name), &path)?;
        } else if name == "calls" && path.is_dir() {
            let calls: Vec<PathBuf> = std::fs::read_dir(&path)
                .map_err(|e| io(&path)(e.to_string()))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    let n = p.to_string_lossy();
                    n.ends_with(".jsonl") || n.ends_with(".jsonl.zst")
                })
                .collect();
            for c in calls {
                let file = c
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // Call logs are the largest files: streamed at write time, not held here.
                asm.appends.push((c.clone(), rel.join("calls").join(file)));
            }
        }
    }
    Ok(())
}

/// `settings.json` of the shards: per dataset and policy; shards of one run agree, and a
/// policy only one shard ran keeps that shard's entry.
fn merge_settings(asm: &mut Assembly, dest: &Path, path: &Path) -> Result<(), MergeError> {
    type Map = BTreeMap<String, BTreeMap<String, serde_json::Value>>;
    let text = read_bounded(path)?.unwrap_or_default();
    let new: Map = serde_json::from_str(&text).map_err(|e| io(path)(e.to_string()))?;
    let mut have: Map = asm
        .files
        .get(dest)
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or_default();
    for (dataset, policies) in new {
        let slot = have.entry(dataset).or_default();
        for (policy, settings) in policies {
            slot.entry(policy).or_insert(settings);
        }
    }
    asm.files.insert(
        dest.to_path_buf(),
        serde_json::to_vec_pretty(&have).unwrap_or_default(),
    );
    Ok(())
}

/// Reads an environment unit of one shard: episode lines, settings, trajectories.
fn scan_env_unit(
    asm: &mut Assembly,
    shard: &Path,
    model: &str,
    label: &str,
) -> Result<(), MergeError> {
    let rel = unit_dir(model, label);
    let src = shard.join(&rel);
    let settings = src.join("compare.json");
    let Some(text) = read_bounded(&settings)? else {
        return Ok(());
    };
    let dest_settings = rel.join("compare.json");
    match asm.files.get(&dest_settings) {
        Some(have) if have.as_slice() != text.as_bytes() => {
            return Err(MergeError::Mismatch {
                a: dest_settings,
                b: settings,
                differences: "the comparison settings differ".into(),
            })
        }
        _ => {
            asm.files.insert(dest_settings, text.into_bytes());
        }
    }
    asm.append_results(
        &src.join("episodes.jsonl"),
        rel.join("episodes.jsonl"),
        shard,
        |r: &EpisodeResult| {
            r.error
                .is_none()
                .then(|| format!("{model}/{label}/{}/{}/{}", r.config, r.policy, r.seed))
        },
    )?;
    if src.join("episodes").is_dir() {
        asm.trees.push((src.join("episodes"), rel.join("episodes")));
    }
    Ok(())
}

/// Writes the assembled files and copies the trajectory trees into `out`.
fn write_assembly(out: &Path, asm: &Assembly) -> Result<(), MergeError> {
    for (rel, bytes) in &asm.files {
        let path = out.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent)(e.to_string()))?;
        }
        let mut f = std::fs::File::create(&path).map_err(|e| io(&path)(e.to_string()))?;
        f.write_all(bytes).map_err(|e| io(&path)(e.to_string()))?;
    }
    for (src, rel) in &asm.appends {
        if src.to_string_lossy().ends_with(".jsonl.zst") {
            append_compact(src, &out.join(rel))?;
        } else {
            append_lines(src, &out.join(rel))?;
        }
    }
    for (src, rel) in &asm.trees {
        copy_tree(src, &out.join(rel))?;
    }
    std::fs::create_dir_all(out).map_err(|e| io(out)(e.to_string()))?;
    Ok(())
}

/// Appends the whole lines of `src` to `dest` (a torn last line of a killed shard is left
/// out), one line in memory at a time.
fn append_lines(src: &Path, dest: &Path) -> Result<(), MergeError> {
    use std::io::BufRead;
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io(parent)(e.to_string()))?;
    }
    refuse_link(src)?;
    let input = std::fs::File::open(src).map_err(|e| io(src)(e.to_string()))?;
    let mut input = std::io::BufReader::new(input);
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dest)
        .map_err(|e| io(dest)(e.to_string()))?;
    let mut out = std::io::BufWriter::new(out);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| io(src)(e.to_string()))?;
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        out.write_all(&line).map_err(|e| io(dest)(e.to_string()))?;
    }
    out.flush().map_err(|e| io(dest)(e.to_string()))
}

/// Appends the complete lines of the compact call log `src` to the compact log `dest` (a
/// frame of its own; a log cut short by a killed shard gives its complete lines).
fn append_compact(src: &Path, dest: &Path) -> Result<(), MergeError> {
    use crate::eval::call_log::{read_log_file, ItemCallLog, LogCalls};
    refuse_link(src)?;
    let (Some(dir), Some(label)) = (
        dest.parent(),
        dest.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".jsonl.zst")),
    ) else {
        return Err(io(dest)("not a compact call log".into()));
    };
    let log =
        ItemCallLog::open(dir, label, LogCalls::Compact).map_err(|e| io(dest)(e.to_string()))?;
    let mut failed = None;
    read_log_file(src, |line| match log.append_raw(line) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    })
    .map_err(|e| io(src)(e.to_string()))?;
    if let Some(e) = failed {
        return Err(io(dest)(e.to_string()));
    }
    log.finish().map_err(|e| io(dest)(e.to_string()))
}

fn copy_tree(src: &Path, dest: &Path) -> Result<(), MergeError> {
    std::fs::create_dir_all(dest).map_err(|e| io(dest)(e.to_string()))?;
    for entry in std::fs::read_dir(src).map_err(|e| io(src)(e.to_string()))? {
        let entry = entry.map_err(|e| io(src)(e.to_string()))?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| io(&from)(e.to_string()))?;
        if kind.is_symlink() {
            // A link in a shard tree could copy files from anywhere, or loop:
            // runs never write links, so one is skipped.
            tracing::warn!(path = %from.display(), "merge: skipping a symbolic link");
            continue;
        }
        if kind.is_dir() {
            copy_tree(&from, &to)?;
        } else {
            std::fs::copy(&from, &to).map_err(|e| io(&from)(e.to_string()))?;
        }
    }
    Ok(())
}

/// The dataset directories' labels, in order of first appearance (as the plan groups them).
fn dataset_groups(suite: &Suite) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in &suite.datasets {
        if !out.contains(&d.label) {
            out.push(d.label.clone());
        }
    }
    out
}

/// Rebuilds every unit's report in the merged directory.
async fn rebuild_reports(
    registry: &Registry,
    out: &Path,
    suite: &Suite,
    models: &[ModelRecord],
) -> Result<Vec<UnitReport>, MergeError> {
    let mut units = Vec::new();
    for model in models {
        for label in dataset_groups(suite) {
            let dir = out.join(unit_dir(&model.name, &label));
            std::fs::create_dir_all(&dir).map_err(|e| io(&dir)(e.to_string()))?;
            // The group's baseline, when one of its dataset entries runs it.
            let baseline = suite
                .datasets
                .iter()
                .filter(|d| d.label == label)
                .find_map(|d| super::run::dataset_baseline(suite, d));
            let summary = rebuild_summary_with(&dir, baseline.as_ref())?;
            let md = write_eval_report(&dir, &summary)?;
            let errors = summary.policies.values().map(|p| p.errors).sum();
            units.push(unit_report(
                (&model.name, &label),
                &dir,
                "datasets",
                md,
                errors,
            ));
        }
        for e in &suite.environments {
            let dir = out.join(unit_dir(&model.name, &e.label));
            std::fs::create_dir_all(&dir).map_err(|e| io(&dir)(e.to_string()))?;
            let config = compare_config(
                registry,
                suite,
                e,
                &spec_of(model),
                &dir,
                CallRouting::Live,
                false,
            )?;
            // Merged shards are reported as they are: a shard that stopped says so itself.
            let outcome = write_compare_reports(&config, None).await?;
            let errors = outcome.errors();
            units.push(unit_report(
                (&model.name, &e.label),
                &dir,
                "environment",
                outcome.markdown(),
                errors,
            ));
        }
    }
    Ok(units)
}
