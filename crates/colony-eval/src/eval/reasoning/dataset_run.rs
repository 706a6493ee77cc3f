//! One reasoning dataset × several policies into one output directory: the library body of
//! `colony eval`, which suites ([`crate::suite`]) run for each of their datasets too, so the
//! two commands share one path and one output format.
//!
//! Output directory (the file names are a contract): `<policy>.jsonl` per policy (one
//! [`ItemResult`] per finished item), `calls/<policy>.jsonl.zst` (every model call and message of
//! each finished item, for the viewer and `colony logs cat --item`; compressed by default,
//! `calls/<policy>.jsonl` with `--log-calls full`, none with `none`,
//! [`crate::eval::call_log::ItemCallLog`]), `settings.json`, and the report files of
//! [`super::report`]. The summary is always rebuilt from the JSONL files, so a directory that
//! `colony merge` assembled from shards reports exactly what one unsharded run would.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use colony_qa::Item;
use serde::Serialize;
use thiserror::Error;

use super::report::{
    rebuild_summary, rebuild_summary_with, record_settings, write_eval_report, BaselineSpec,
    ReportError,
};
use super::runner::{run_policy, EvalConfig, LabelledPolicy};
use super::summary::{PolicySummary, RunSettings, Summary};
use crate::eval::results::{ItemResult, ResultsError};
use colony_policy::reasoning::Roster;
use colony_policy::PolicySpec;
use colony_runtime::TranscriptEntry;

/// What to run: every policy over the same items with the same roster.
pub struct DatasetRun {
    /// The dataset, resolved at the door (its name is recorded on every result; its grader
    /// decides correctness).
    pub dataset: colony_policy::registry::DatasetEntry,
    /// The selected items, in order.
    pub items: Vec<Item>,
    /// Policies with their labels, run one after the other.
    pub policies: Vec<LabelledPolicy>,
    /// The agents.
    pub roster: Roster,
    /// Items solved at once.
    pub items_in_flight: usize,
    /// Run seed.
    pub run_seed: u64,
    /// Output directory.
    pub out: PathBuf,
    /// Per policy label, the only item ids this process solves (a shard's share); a policy
    /// missing from the map runs every item. `None`: every item of every policy.
    pub only: Option<BTreeMap<String, BTreeSet<String>>>,
    /// Resume a label even when `settings.json` recorded other options for it (`--force`).
    pub force: bool,
    /// Compare every other policy with this one in the report (`--baseline`).
    pub baseline: Option<BaselineSpec>,
    /// How much of each item's calls `calls/` keeps (`--log-calls`; compact by default).
    pub log_calls: crate::eval::call_log::LogCalls,
    /// The run's token cap (`--max-tokens-total`; a suite's is shared by its units).
    pub budget: std::sync::Arc<crate::eval::budget::RunBudget>,
    /// Completions per item (`--samples`; 1: one).
    pub samples: u32,
    /// The judge grading every answered item (`--judge`, `--grade`; `None`: rules only).
    pub judge: Option<std::sync::Arc<crate::eval::judge::Judge>>,
    /// The training split of policies that learn (`--train`; empty: none), never among
    /// `items` ([`super::learning`]).
    pub train: std::sync::Arc<[Item]>,
}

/// Progress callbacks of [`run_dataset`] (a progress bar, or nothing).
pub trait DatasetProgress: Sync {
    /// A policy starts with `pending` items to solve.
    fn policy_started(&self, policy: &str, pending: usize) {
        let _ = (policy, pending);
    }
    /// An item finished.
    fn item_done(&self, result: &ItemResult) {
        let _ = result;
    }
    /// A policy finished.
    fn policy_finished(&self, policy: &str) {
        let _ = policy;
    }
    /// Something the user should read (earlier runs with other settings).
    fn note(&self, message: &str) {
        tracing::warn!("{message}");
    }
}

/// Progress that shows nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl DatasetProgress for NoProgress {}

/// What [`run_dataset`] produced.
#[derive(Debug, Clone)]
pub struct DatasetOutcome {
    /// The directory's summary (every dataset and policy in it).
    pub summary: Summary,
    /// The Markdown of `results.md`.
    pub markdown: String,
    /// `(policy, why)` when a failure no retry can fix stopped the run.
    pub stopped: Option<(String, String)>,
    /// Policies whose every item of this run ended with an error.
    pub all_errored: Vec<String>,
}

/// Errors of [`run_dataset`] (an item's own failure is recorded, not raised).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DatasetRunError {
    /// The output directory could not be created.
    #[error("creating {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Another process writes this directory.
    #[error(transparent)]
    Locked(#[from] crate::eval::lock::LockError),
    /// Results could not be read or written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// `--baseline` names no policy of this run or of the directory.
    #[error("--baseline {label}: no such policy label in this run or {dir} (known: {known})")]
    UnknownBaseline {
        /// The label given.
        label: String,
        /// The output directory.
        dir: PathBuf,
        /// The labels there are.
        known: String,
    },
    /// A label's results were produced with other options (rerun with `--force` to mix).
    #[error(transparent)]
    SpecChanged(Box<SpecChange>),
    /// `--judge-grader pairwise:LABEL` names no policy of this run, or there is no calls log
    /// to read the reference responses from.
    #[error("--judge-grader pairwise:{label}: {why}")]
    Pairwise {
        /// The reference label given.
        label: String,
        /// What is wrong.
        why: String,
    },
}

/// A label recorded in `settings.json` with other options than this run's.
#[derive(Debug, Error)]
#[error(
    "{dir}: policy label `{label}` ran before as `{recorded}` (dataset {dataset}), now `{now}`: \
     its results would mix two configurations; give the new spec its own `label=`, use \
     another --out, or pass --force to resume anyway"
)]
pub struct SpecChange {
    /// The output directory.
    pub dir: PathBuf,
    /// The label.
    pub label: String,
    /// The dataset the earlier run was recorded for.
    pub dataset: String,
    /// The spec recorded earlier.
    pub recorded: String,
    /// The spec of this run.
    pub now: String,
}

/// One line of the calls log of a policy: the transcript of one finished item.
#[derive(Debug, Serialize)]
struct ItemCalls<'a> {
    dataset: &'a str,
    id: &'a str,
    policy: &'a str,
    entries: &'a [TranscriptEntry],
    /// The policy's final response (what a judge reads; a pairwise judge reads the
    /// reference policy's from here).
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a str>,
    /// The judge's calls for the item (absent without a judge): apart from the method's.
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<&'a [TranscriptEntry]>,
}

/// The responses of `label` on `dataset` in the calls log of `out` (item id → final text), for
/// a pairwise judge.
fn reference_responses(
    out: &std::path::Path,
    label: &str,
    dataset: &str,
    mode: crate::eval::call_log::LogCalls,
) -> Result<Vec<(String, String)>, ResultsError> {
    let Some(path) = crate::eval::call_log::item_log_path(&out.join("calls"), label, mode) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    crate::eval::call_log::read_log_file(&path, |line| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        if v["dataset"] == dataset {
            if let (Some(id), Some(text)) = (v["id"].as_str(), v["response"].as_str()) {
                found.push((id.to_string(), text.to_string()));
            }
        }
        true
    })
    .map_err(|cause| ResultsError::Io {
        path: path.display().to_string(),
        cause,
    })?;
    Ok(found)
}

/// Runs every policy over the items (resuming what `out` holds), then rewrites the report
/// from the directory's JSONL files.
pub async fn run_dataset(
    run: DatasetRun,
    progress: &dyn DatasetProgress,
) -> Result<DatasetOutcome, DatasetRunError> {
    std::fs::create_dir_all(&run.out).map_err(|source| DatasetRunError::Io {
        path: run.out.clone(),
        source,
    })?;
    let _lock = crate::eval::lock::DirLock::acquire(&run.out)?;
    let mut summary = rebuild_summary(&run.out)?;
    if let Some(b) = &run.baseline {
        let mut known: Vec<&str> = run.policies.iter().map(|p| p.spec.label.as_str()).collect();
        known.extend(summary.policies.keys().map(String::as_str));
        known.sort_unstable();
        known.dedup();
        if !known.contains(&b.label.as_str()) {
            return Err(DatasetRunError::UnknownBaseline {
                label: colony_env_api::clip(&b.label),
                dir: run.out.clone(),
                known: known.join(", "),
            });
        }
    }
    // A pairwise judge compares with the reference label's responses: it runs first.
    let pairwise = run
        .judge
        .as_ref()
        .and_then(|j| j.grader.pairwise().cloned());
    let mut order: Vec<&LabelledPolicy> = run.policies.iter().collect();
    if let Some(p) = &pairwise {
        let bad = |why: String| DatasetRunError::Pairwise {
            label: colony_env_api::clip(&p.against),
            why,
        };
        if run.log_calls == crate::eval::call_log::LogCalls::None {
            return Err(bad(
                "the reference responses are read from the calls log: use --log-calls compact \
                 or full"
                    .into(),
            ));
        }
        let Some(at) = order.iter().position(|l| l.spec.label == p.against) else {
            let known: Vec<&str> = order.iter().map(|l| l.spec.label.as_str()).collect();
            return Err(bad(format!(
                "no policy of this run has that label (they are: {})",
                known.join(", ")
            )));
        };
        let reference = order.remove(at);
        order.insert(0, reference);
    }
    let mut stopped = None;
    let mut all_errored = Vec::new();
    let grade = run.judge.as_ref().map(|j| j.settings());
    let eval = EvalConfig {
        concurrency: run.items_in_flight.max(1),
        run_seed: run.run_seed,
        dataset: run.dataset.clone(),
        budget: run.budget.clone(),
        samples: run.samples.max(1),
        judge: run.judge.clone(),
        train: run.train.clone(),
    };
    for policy in order {
        let name = policy.spec.label.clone();
        if !run.force {
            check_spec(
                &run.out,
                &summary,
                &policy.spec,
                run.samples.max(1),
                grade.as_deref(),
            )?;
        }
        let only = run.only.as_ref().and_then(|m| m.get(&name));
        let settings = RunSettings {
            spec: Some(policy.spec.spec.clone()),
            samples: run.samples.max(1),
            grade: grade.clone(),
            ..RunSettings::of(&run.roster, run.run_seed)
        };
        let earlier = record_settings(&run.out, &mut summary, &run.dataset.name, &name, settings)?;
        if earlier.is_some() {
            progress.note(&format!(
                "note: {name} on {} in {} ran before with other settings (see settings.json); \
                 items already there keep theirs",
                run.dataset.name,
                run.out.display()
            ));
        }
        let path = run.out.join(format!("{name}.jsonl"));
        let calls =
            crate::eval::call_log::ItemCallLog::open(&run.out.join("calls"), &name, run.log_calls)
                .map_err(|cause| ResultsError::Io {
                    path: run.out.join("calls").display().to_string(),
                    cause,
                })?;
        let calls_error = std::sync::Mutex::new(None);
        let on_done = |r: &ItemResult| {
            if let Some(t) = &r.transcript {
                let line = ItemCalls {
                    dataset: &r.dataset,
                    id: &r.id,
                    policy: &r.policy,
                    entries: t.entries(),
                    response: r.response.as_deref(),
                    judge: r.judge_transcript.as_ref().map(|j| j.entries()),
                };
                if let Err(e) = calls.append(&line) {
                    calls_error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                }
            }
            progress.item_done(r);
        };
        progress.policy_started(&name, pending_count(&run.items, only));
        let run_one = run_policy(
            policy,
            &run.items,
            &run.roster,
            &eval,
            &path,
            only,
            &on_done,
        )
        .await?;
        progress.policy_finished(&name);
        let calls_io = |cause| ResultsError::Io {
            path: run.out.join("calls").display().to_string(),
            cause,
        };
        if let Some(e) = calls_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(calls_io(e).into());
        }
        calls.finish().map_err(calls_io)?;
        if let Some(p) = pairwise.as_ref().filter(|p| p.against == name) {
            p.add_responses(reference_responses(
                &run.out,
                &name,
                &run.dataset.name,
                run.log_calls,
            )?);
        }
        let totals = PolicySummary::of(&run_one.results);
        if totals.n > 0 && totals.errors == totals.n {
            all_errored.push(name.clone());
        }
        if let Some(why) = run_one.stopped {
            stopped = Some((name, why));
            break;
        }
    }
    // The report always comes from the files: the same bytes whether one process or several
    // shards (joined by `colony merge`) produced them.
    let mut summary = rebuild_summary_with(&run.out, run.baseline.as_ref())?;
    summary.stopped = stopped
        .as_ref()
        .map(|(policy, why)| format!("at policy {policy}: {why}"));
    let markdown = write_eval_report(&run.out, &summary)?;
    Ok(DatasetOutcome {
        summary,
        markdown,
        stopped,
        all_errored,
    })
}

/// Refuses to resume `spec`'s label when `settings.json` recorded it, for any dataset, with
/// other options (order and spacing aside); labels recorded before specs were kept pass.
fn check_spec(
    out: &Path,
    summary: &Summary,
    spec: &PolicySpec,
    samples: u32,
    grade: Option<&str>,
) -> Result<(), DatasetRunError> {
    let want = spec.options();
    for (dataset, per) in &summary.settings {
        // A label resumed under another grader would mix verdicts of both.
        if let Some(recorded) = per.get(&spec.label) {
            if recorded.grade.as_deref() != grade {
                let show = |g: Option<&str>| g.unwrap_or("rules").to_string();
                return Err(DatasetRunError::SpecChanged(Box::new(SpecChange {
                    dir: out.to_path_buf(),
                    label: spec.label.clone(),
                    dataset: dataset.clone(),
                    recorded: format!(
                        "{} graded by {}",
                        spec.spec,
                        show(recorded.grade.as_deref())
                    ),
                    now: format!("{} graded by {}", spec.spec, show(grade)),
                })));
            }
        }
        // A label resumed with another `--samples` would mix items of both.
        if let Some(recorded) = per.get(&spec.label).map(|s| s.samples.max(1)) {
            if recorded != samples {
                return Err(DatasetRunError::SpecChanged(Box::new(SpecChange {
                    dir: out.to_path_buf(),
                    label: spec.label.clone(),
                    dataset: dataset.clone(),
                    recorded: format!("{} with --samples {recorded}", spec.spec),
                    now: format!("{} with --samples {samples}", spec.spec),
                })));
            }
        }
        let Some(recorded) = per.get(&spec.label).and_then(|s| s.spec.as_deref()) else {
            continue;
        };
        let old = PolicySpec {
            label: spec.label.clone(),
            spec: recorded.to_string(),
        };
        if old.name() != spec.name() || old.options() != want {
            return Err(DatasetRunError::SpecChanged(Box::new(SpecChange {
                dir: out.to_path_buf(),
                label: spec.label.clone(),
                dataset: dataset.clone(),
                recorded: recorded.to_string(),
                now: spec.spec.clone(),
            })));
        }
    }
    Ok(())
}

/// Items of this process (all, or the shard's share) for the progress bar's length.
fn pending_count(items: &[Item], only: Option<&BTreeSet<String>>) -> usize {
    match only {
        Some(ids) => items.iter().filter(|i| ids.contains(&i.id)).count(),
        None => items.len(),
    }
}
