//! The report files of `colony eval`: `summary.json`, `results.md`, `results.csv` and
//! `accuracy_vs_tokens.svg` with its PNG, all written atomically (temporary file, then rename). The summary
//! is rebuilt from the per-item JSONL files on every run, so a damaged or stale
//! `summary.json` can never drop other policies' or datasets' rows. What each run asked for
//! (seed, agents, models, effective sampling) is kept in `settings.json`, per dataset and
//! policy, and copied into `summary.json` under `settings`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::summary::{PolicySummary, RunSettings, Summary, VsBaseline};
use crate::eval::plot::{bubble_chart, Bubble, Caption, PlotError};
use crate::eval::results::write_atomic;
use crate::eval::results::ItemResult;

/// Errors of the eval report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReportError {
    /// `summary.json` exists but is not a colony summary (it is left untouched).
    #[error(
        "{path} is not a colony summary ({message}); fix or remove it (the JSONL results are kept)"
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A file could not be written.
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// Rebuilds the summary of `dir` from its append-only per-item files (`<policy>.jsonl`, the
/// source of truth; the old `summary.json` is never trusted), the latest line per (dataset,
/// item) counting. Lines without a dataset (files older than datasets) are skipped.
pub fn rebuild_summary(dir: &Path) -> Result<Summary, ReportError> {
    rebuild_summary_with(dir, None)
}

/// A paired comparison against one policy label (`--baseline`), seeded with `seed`.
#[derive(Debug, Clone)]
pub struct BaselineSpec {
    /// The baseline's label.
    pub label: String,
    /// Seed of the bootstrap resampling.
    pub seed: u64,
    /// Bootstrap resamples.
    pub draws: usize,
}

/// [`rebuild_summary`], plus every other policy's comparison with `baseline` when given (per
/// dataset, and over all datasets' pairs for the policy's totals).
pub fn rebuild_summary_with(
    dir: &Path,
    baseline: Option<&BaselineSpec>,
) -> Result<Summary, ReportError> {
    let per = latest_results(dir)?;
    let mut summary = Summary {
        settings: load_settings(dir),
        ..Summary::default()
    };
    // Percentiles do not add up across datasets: the totals' come from every call's latency.
    let mut latencies: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for ((dataset, policy), items) in &per {
        let results: Vec<ItemResult> = items.values().cloned().collect();
        summary.record(dataset, policy, PolicySummary::of(&results));
        latencies.entry(policy).or_default().extend(
            results
                .iter()
                .flat_map(|r| r.call_latency_ms.iter().copied()),
        );
    }
    for (policy, all) in latencies {
        if let Some(total) = summary.policies.get_mut(policy) {
            total.call_latency_ms = super::latency::percentiles(all);
        }
    }
    if let Some(b) = baseline {
        add_baseline(&mut summary, &per, b);
    }
    Ok(summary)
}

/// The latest result of every (dataset, policy label, item) in the per-item files of `dir`
/// (`<label>.jsonl`; torn last lines skipped, lines without a dataset skipped): what the
/// summary and every export are built from.
pub fn latest_results(dir: &Path) -> Result<PerItem, ReportError> {
    let mut per: PerItem = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(_) => return Ok(per),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|source| ReportError::Io {
            path: path.clone(),
            source,
        })?;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if !line.ends_with('\n') || line.trim().is_empty() {
                // A torn last line of a killed run; the next run cuts it.
                continue;
            }
            let r: ItemResult = serde_json::from_str(line).map_err(|e| ReportError::Damaged {
                path: path.clone(),
                message: format!("line {}: {e}", i + 1),
            })?;
            if r.dataset.is_empty() {
                continue;
            }
            per.entry((r.dataset.clone(), r.policy.clone()))
                .or_default()
                .insert(r.id.clone(), r);
        }
    }
    Ok(per)
}

/// Latest results per (dataset, policy), by item id.
pub type PerItem = BTreeMap<(String, String), BTreeMap<String, ItemResult>>;

/// Fills `vs_baseline` of every policy but the baseline: pairs are the items of a dataset
/// that both answered (no error), per dataset and pooled over datasets for the totals.
fn add_baseline(summary: &mut Summary, per: &PerItem, b: &BaselineSpec) {
    let mut pooled: BTreeMap<String, Vec<(bool, bool)>> = BTreeMap::new();
    for ((dataset, policy), items) in per {
        if *policy == b.label {
            continue;
        }
        let Some(base) = per.get(&(dataset.clone(), b.label.clone())) else {
            continue;
        };
        let pairs: Vec<(bool, bool)> = items
            .iter()
            .filter(|(_, r)| r.error.is_none())
            .filter_map(|(id, r)| {
                let o = base.get(id).filter(|o| o.error.is_none())?;
                Some((r.correct, o.correct))
            })
            .collect();
        if let Some(s) = summary
            .datasets
            .get_mut(dataset)
            .and_then(|d| d.get_mut(policy))
        {
            s.vs_baseline = Some(VsBaseline::of(&b.label, &pairs, b.draws, b.seed));
        }
        pooled.entry(policy.clone()).or_default().extend(pairs);
    }
    for (policy, pairs) in pooled {
        if let Some(s) = summary.policies.get_mut(&policy) {
            s.vs_baseline = Some(VsBaseline::of(&b.label, &pairs, b.draws, b.seed));
        }
    }
}

/// The settings file of an output directory.
fn settings_path(dir: &Path) -> PathBuf {
    dir.join("settings.json")
}

/// Settings per dataset, per policy.
pub type SettingsMap = BTreeMap<String, BTreeMap<String, RunSettings>>;

/// Reads `settings.json` of `dir`: none yet is empty, and so is a damaged one (with a warning:
/// it is a record of earlier runs, not a reason to refuse this one; it is rewritten whole).
pub fn load_settings(dir: &Path) -> SettingsMap {
    let path = settings_path(dir);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return BTreeMap::new();
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        tracing::warn!(path = %path.display(), error = %e, "damaged run settings; starting afresh");
        BTreeMap::new()
    })
}

/// Records what a run of `policy` on `dataset` asks for, in `summary` and in `dir`'s
/// `settings.json` (atomically), before it runs; returns the settings recorded earlier when
/// they differ (items resumed from that run were produced with those).
pub fn record_settings(
    dir: &Path,
    summary: &mut Summary,
    dataset: &str,
    policy: &str,
    settings: RunSettings,
) -> Result<Option<RunSettings>, ReportError> {
    let previous = summary
        .settings
        .entry(dataset.to_string())
        .or_default()
        .insert(policy.to_string(), settings.clone())
        .filter(|old| *old != settings);
    let path = settings_path(dir);
    let json = serde_json::to_string_pretty(&summary.settings).unwrap_or_default();
    write_atomic(&path, json.as_bytes()).map_err(|source| ReportError::Io { path, source })?;
    Ok(previous)
}

/// Writes `summary.json` (atomically), `results.md` (the results table, then the policy
/// metrics table when a policy reports metrics, the judge table when a judge graded, then the sweep tables when a method ran with
/// one option varied), `results.csv` and the bubble plot into
/// `dir`; returns the Markdown of `results.md`.
pub fn write_eval_report(dir: &Path, summary: &Summary) -> Result<String, ReportError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|source| ReportError::Io { path, source })
    };
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    write("summary.json", json.as_bytes())?;
    let mut md = summary.markdown();
    if let Some(metrics) = super::table::metrics_markdown(summary) {
        md.push('\n');
        md.push_str(&metrics);
    }
    if let Some(judge) = super::judge_table::judge_markdown(summary) {
        md.push('\n');
        md.push_str(&judge);
    }
    if let Some(sweeps) = super::sweep::sweep_markdown(summary) {
        md.push('\n');
        md.push_str(&sweeps);
    }
    write("results.md", md.as_bytes())?;
    // Latency varies run to run, so it has a file of its own: results.md stays the same
    // bytes for the same work (shards merged, resumed, replayed).
    if let Some(latency) = super::table::latency_markdown(summary) {
        write("latency.md", latency.as_bytes())?;
    }
    write("results.csv", summary.csv().as_bytes())?;
    accuracy_vs_tokens(summary, &dir.join("accuracy_vs_tokens.svg"))?;
    Ok(md)
}

/// The accuracy-vs-tokens bubble plot of a run (the SelfOrg paper's efficiency figure): x =
/// mean tokens per query (prompt + completion), y = AVG accuracy (%), bubble area ∝ calls per
/// query.
pub fn accuracy_vs_tokens(summary: &Summary, path: &Path) -> Result<(), PlotError> {
    let bubbles: Vec<Bubble> = summary
        .rows()
        .into_iter()
        .filter(|r| r.totals.n > 0)
        .filter_map(|r| {
            // An all-error method has no accuracy to plot.
            let y = r.avg?;
            let n = r.totals.n as f64;
            let tokens = (r.totals.prompt_tokens + r.totals.completion_tokens) as f64 / n;
            let calls = r.totals.calls as f64 / n;
            // With one dataset AVG is its accuracy, and its Wilson interval is drawn.
            let interval = match r.ci95.as_slice() {
                [Some(ci)] => Some(*ci),
                _ => None,
            };
            Some(Bubble {
                label: format!("{} ({calls:.1} calls)", r.method),
                x: tokens,
                y,
                radius: (6.0 + 6.0 * calls.max(0.0).sqrt()).round() as u32,
                interval,
            })
        })
        .collect();
    let datasets = summary.dataset_names().join(", ");
    bubble_chart(
        path,
        &Caption::new(
            format!("Accuracy vs tokens ({datasets})"),
            summary.simulated(),
        ),
        "tokens per query (prompt + completion)",
        "AVG accuracy (%)",
        Some((0.0, 100.0)),
        &bubbles,
    )
}
