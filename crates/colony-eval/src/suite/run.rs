//! `colony run`: a suite's units one after the other, each through the very library path of
//! `colony eval` ([`crate::eval::reasoning::dataset_run`]) or `colony compare`
//! ([`crate::eval::run_compare`]), so results, resume and reports are theirs.
//!
//! Sharded (`--shard i/N` or a job array's variables), a process writes
//! `OUT/shard-<i>-of-<N>/` and runs only the work items its shard owns
//! ([`super::shard`]); `colony merge` joins the shard directories.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use thiserror::Error;

use super::manifest::{Manifest, ManifestError};
use super::plan::{expand, PlanError, PlanFile, PlannedUnit, UnitWork};
use super::shard::Shard;
use super::spec::Suite;
use crate::eval::embodied::compare::run_compare;
use crate::eval::embodied::compare_config::{CompareConfig, CompareError, Progress};
use crate::eval::embodied::grid::parse_axes;
use crate::eval::models::{reasoning_roster, RosterError};
use crate::eval::reasoning::dataset_run::{
    run_dataset, DatasetProgress, DatasetRun, DatasetRunError,
};
use crate::eval::results::write_atomic;
use crate::eval::LabelledPolicy;
use crate::eval::{CallRouting, CompareModels};
use colony_llm::embed::{EmbedError, EmbedderSpec};
use colony_llm::{ApiKey, ModelError, ModelSpec};
use colony_policy::reasoning::{PolicyError, ReasoningContext};
use colony_policy::registry::Registry;

/// How to run a suite.
pub struct SuiteRunOptions<'a> {
    /// The registry every name of the suite resolves in (the suite runner is a door).
    pub registry: &'a Registry,
    /// The suite file (recorded in the manifest).
    pub suite_file: PathBuf,
    /// The run's directory (a shard writes `OUT/shard-<i>-of-<N>/` inside it).
    pub out: PathBuf,
    /// The models, resolved, in the suite's order (or the one the flags name).
    pub models: Vec<ModelSpec>,
    /// Record/replay of model calls.
    pub calls: CallRouting<'a>,
    /// This process's shard, if sharded.
    pub shard: Option<Shard>,
    /// Resume into a directory whose manifest differs.
    pub force: bool,
    /// Key of a remote embedder.
    pub api_key: Option<ApiKey>,
    /// The run's token cap, shared by its units in order (`max_tokens_total`,
    /// `--max-tokens-total`).
    pub budget: Arc<crate::eval::budget::RunBudget>,
    /// The judge of code items (`colony run --sandbox`, docs/design/sandbox.md §3); `None`: a
    /// code item's answer is an error of that item ("no sandbox was configured"), never wrong.
    pub code_judge: Option<Arc<colony_policy::registry::CodeJudge>>,
    /// The tools every agent of every unit is offered (the suite's `tools`, built by the
    /// door with [`crate::eval::tools::RunTools::build`]); `None`: no tools.
    pub tools: Option<crate::eval::tools::RunTools>,
    /// The judge of the dataset units (the suite's `judge`, resolved by the door); `None`:
    /// rules only.
    pub judge: Option<crate::eval::judge::JudgeSpec>,
}

/// Live progress of a suite run.
pub struct SuiteHooks<'a> {
    /// A unit starts: its directory relative to the run's.
    pub unit_started: &'a (dyn Fn(&Path) + Sync),
    /// Item progress of dataset units.
    pub dataset: &'a dyn DatasetProgress,
    /// Episode counters of environment units (reset by the caller as it likes).
    pub episodes: Arc<Progress>,
}

/// Errors that stop a suite (an item's or episode's own failure is recorded, not raised).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SuiteRunError {
    /// A dataset or grid could not be expanded.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A unit's model is priced otherwise than its directory's earlier costs.
    #[error(transparent)]
    Prices(#[from] crate::eval::prices::PricesError),
    /// Another colony process runs into the same suite directory.
    #[error(transparent)]
    Lock(#[from] crate::eval::lock::LockError),
    /// The manifest could not be written or does not match.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A model could not be built.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The roster could not be built.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// The embedder could not be built.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// A reasoning policy could not be built.
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// A dataset unit failed.
    #[error("{unit}: {source}")]
    Dataset {
        /// The unit's directory.
        unit: String,
        /// The cause.
        source: DatasetRunError,
    },
    /// An environment unit failed.
    #[error("{unit}: {source}")]
    Compare {
        /// The unit's directory.
        unit: String,
        /// The cause.
        source: CompareError,
    },
    /// A file could not be written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A failure no retry can fix, or the token budget, stopped the run (finished work is
    /// kept).
    #[error("{unit}: run stopped early: {why} (finished work is kept; rerun the same command to resume)")]
    Stopped {
        /// The unit's directory.
        unit: String,
        /// Why.
        why: String,
    },
}

/// What one unit reported.
#[derive(Debug, Clone, Serialize)]
pub struct UnitReport {
    /// Model name.
    pub model: String,
    /// The unit's label.
    pub unit: String,
    /// `dataset` or `environment`.
    pub kind: String,
    /// The unit's directory relative to the run's.
    pub dir: String,
    /// Its Markdown table.
    pub markdown: String,
    /// Work items that ended with an error (not scored; run again on the next run).
    pub errors: usize,
    /// Its `summary.json`.
    pub summary: serde_json::Value,
}

/// What a suite run produced.
#[derive(Debug, Clone)]
pub struct SuiteOutcome {
    /// The directory written (the shard's when sharded).
    pub dir: PathBuf,
    /// Per unit, in plan order.
    pub units: Vec<UnitReport>,
    /// The combined Markdown report (`results.md`).
    pub markdown: String,
    /// Notes for the user (skipped rows, earlier settings).
    pub notes: Vec<String>,
}

/// A unit's directory relative to the run's: `<model>/<label>`.
pub fn unit_dir(model: &str, label: &str) -> PathBuf {
    PathBuf::from(super::spec::file_component(model)).join(super::spec::file_component(label))
}

/// The directory a run (or its shard) writes.
pub fn run_dir(out: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        Some(s) => out.join(s.dir_name()),
        None => out.to_path_buf(),
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> SuiteRunError + '_ {
    move |e| SuiteRunError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Runs (or resumes) a suite.
pub async fn run_suite(
    suite: &Suite,
    opts: SuiteRunOptions<'_>,
    hooks: SuiteHooks<'_>,
) -> Result<SuiteOutcome, SuiteRunError> {
    let mut notes = Vec::new();
    let names: Vec<String> = opts.models.iter().map(|m| m.name.clone()).collect();
    let units = expand(opts.registry, suite, &names, &mut notes)?;
    let dir = run_dir(&opts.out, opts.shard);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    // One process per suite directory, taken before the manifest or plan is touched;
    // units still lock their own directories for eval and compare.
    let _lock = crate::eval::lock::DirLock::acquire(&dir)?;
    Manifest::new(
        opts.registry,
        &opts.suite_file,
        suite,
        &opts.models,
        opts.shard,
    )
    .claim(&dir, opts.force)?;
    let plan = PlanFile {
        shard: opts.shard,
        keys: units
            .iter()
            .flat_map(PlannedUnit::keys)
            .filter(|k| opts.shard.is_none_or(|s| s.owns(k)))
            .collect(),
    };
    let plan_path = dir.join("plan.json");
    let text = serde_json::to_vec(&plan).unwrap_or_default();
    write_atomic(&plan_path, &text).map_err(io_err(&plan_path))?;
    let embedder = suite
        .embedder
        .parse::<EmbedderSpec>()?
        .build(opts.api_key.clone())
        .await?;
    let mut reports = Vec::new();
    for unit in &units {
        let spec = opts
            .models
            .iter()
            .find(|m| m.name == unit.model)
            .cloned()
            .unwrap_or_default();
        let rel = unit.rel_dir();
        (hooks.unit_started)(&rel);
        let out = dir.join(&rel);
        crate::eval::prices::claim(&out, std::slice::from_ref(&spec))?;
        let report = match &unit.work {
            UnitWork::Datasets { entries, .. } => {
                let mut last = None;
                for (d, items) in entries {
                    let outcome = run_dataset_entry(
                        suite,
                        &opts,
                        &spec,
                        &embedder,
                        unit,
                        (d, items),
                        &out,
                        hooks.dataset,
                    )
                    .await?;
                    if let Some((_, why)) = outcome.stopped {
                        return Err(SuiteRunError::Stopped {
                            unit: rel.display().to_string(),
                            why,
                        });
                    }
                    last = Some(outcome);
                }
                // The last entry's report covers every dataset of the directory.
                let (markdown, errors) = last.map_or((String::new(), 0), |o| {
                    (
                        o.markdown,
                        o.summary.policies.values().map(|p| p.errors).sum(),
                    )
                });
                unit_report(
                    (&unit.model, unit.label()),
                    &out,
                    "datasets",
                    markdown,
                    errors,
                )
            }
            UnitWork::Env { unit: e, .. } => {
                let config =
                    compare_config(opts.registry, suite, e, &spec, &out, opts.calls, true)?;
                let mut config = CompareConfig {
                    only: opts.shard.map(|s| unit.owned_episodes(s)),
                    budget: opts.budget.clone(),
                    ..config
                };
                if let Some(tools) = &opts.tools {
                    config.caller.models = config
                        .caller
                        .models
                        .into_iter()
                        .map(|m| tools.wrap(m))
                        .collect();
                }
                let outcome = run_compare(config, hooks.episodes.clone()).await;
                let outcome = match outcome {
                    Err(CompareError::Stopped(why)) => {
                        return Err(SuiteRunError::Stopped {
                            unit: rel.display().to_string(),
                            why,
                        })
                    }
                    other => other.map_err(|source| SuiteRunError::Compare {
                        unit: rel.display().to_string(),
                        source,
                    })?,
                };
                let errors = outcome.errors();
                unit_report(
                    (&unit.model, unit.label()),
                    &out,
                    "environment",
                    outcome.markdown(),
                    errors,
                )
            }
        };
        reports.push(report);
    }
    let markdown = write_suite_report(&dir, suite, &reports)?;
    Ok(SuiteOutcome {
        dir,
        units: reports,
        markdown,
        notes,
    })
}

/// Runs one dataset entry of a unit into the unit's directory (its shard's share).
#[allow(clippy::too_many_arguments)]
async fn run_dataset_entry(
    suite: &Suite,
    opts: &SuiteRunOptions<'_>,
    spec: &ModelSpec,
    embedder: &Arc<dyn colony_llm::embed::Embedder>,
    unit: &PlannedUnit,
    (d, items): (&super::spec::DatasetUnit, &Vec<colony_qa::Item>),
    out: &Path,
    progress: &dyn DatasetProgress,
) -> Result<crate::eval::reasoning::dataset_run::DatasetOutcome, SuiteRunError> {
    let train = match suite.train {
        Some(n) if n > 0 => {
            let mut notes = Vec::new();
            let all = super::plan::load_all(opts.registry, d, &mut notes)?;
            crate::eval::reasoning::learning::train_split(&all, items, n, suite.seed).map_err(
                |e| {
                    SuiteRunError::Plan(PlanError::Dataset {
                        label: d.label.clone(),
                        path: d.data.clone(),
                        message: e.to_string(),
                    })
                },
            )?
        }
        _ => Vec::new(),
    };
    // The simulated model knows the training items too (they are asked during training).
    let known: Vec<colony_qa::Item> = items.iter().chain(&train).cloned().collect();
    let roster = reasoning_roster(
        opts.registry,
        std::slice::from_ref(spec),
        suite.roles.as_deref(),
        suite.agents,
        &known,
        opts.calls,
    )?;
    let roster = match &opts.tools {
        Some(tools) => tools.roster(roster),
        None => roster,
    };
    let ctx = ReasoningContext::new(embedder.clone());
    let policies = LabelledPolicy::build_all(&d.policies, |p| opts.registry.reasoning(p, &ctx))?;
    let dataset = opts
        .registry
        .find_dataset(&d.dataset)
        .map_err(|e| {
            SuiteRunError::Plan(PlanError::Dataset {
                label: d.label.clone(),
                path: d.data.clone(),
                message: e.to_string(),
            })
        })?
        .clone();
    let has_code = items
        .iter()
        .any(|i| matches!(i.answer_type, colony_qa::AnswerType::Code { .. }));
    let dataset = match (&opts.code_judge, has_code) {
        (Some(judge), true) => dataset.with_code_judge(judge.clone()),
        _ => dataset,
    };
    let judge = match &opts.judge {
        Some(j) => Some(Arc::new(j.build(
            items,
            &dataset,
            opts.calls,
            &opts.registry.responders(),
        )?)),
        None => None,
    };
    run_dataset(
        DatasetRun {
            dataset,
            items: items.clone(),
            policies,
            roster,
            items_in_flight: suite.items_in_flight,
            run_seed: suite.seed,
            out: out.to_path_buf(),
            only: opts.shard.map(|s| unit.owned_items((d, items), s)),
            force: opts.force,
            baseline: dataset_baseline(suite, d),
            budget: opts.budget.clone(),
            log_calls: suite.log_calls,
            samples: 1,
            judge,
            train: train.into(),
        },
        progress,
    )
    .await
    .map_err(|source| SuiteRunError::Dataset {
        unit: unit.rel_dir().display().to_string(),
        source,
    })
}

/// The `colony compare` settings of an environment unit for one model, its names resolved in
/// `registry`. `build_models`: build the models (a run); without it the caller has none
/// (reports only, `colony merge`).
pub fn compare_config(
    registry: &Registry,
    suite: &Suite,
    e: &super::spec::EnvUnit,
    spec: &ModelSpec,
    out: &Path,
    calls: CallRouting<'_>,
    build_models: bool,
) -> Result<CompareConfig, SuiteRunError> {
    let plan = |message: String| {
        SuiteRunError::Plan(PlanError::Grid {
            label: e.label.clone(),
            message,
        })
    };
    let env = registry
        .environment_entry(&e.env)
        .map_err(|x| plan(x.to_string()))?;
    let policies = e
        .policies
        .iter()
        .map(|p| registry.embodied_factory(p, env))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|x| plan(x.to_string()))?;
    let responders = registry.responders();
    let side = CompareModels::models(
        &policies,
        vec![spec.clone()],
        None,
        suite.sim_accuracy,
        calls,
        build_models.then_some(&responders),
    )?;
    Ok(CompareConfig {
        env,
        set: e.set.clone(),
        policies,
        seeds: e.seeds.clone(),
        level_seeds: e.level_seeds,
        max_steps: e.max_steps,
        episodes_in_flight: suite.episodes_in_flight,
        out: out.to_path_buf(),
        caller: side.caller,
        model: side.model,
        simulated: side.simulated,
        grid: parse_axes(env, &e.grid).map_err(|g| plan(g.to_string()))?,
        label: String::new(),
        only: None,
        baseline: suite.baseline.clone().filter(|b| e.policies.contains(b)),
        stats_seed: suite.seed,
        log_calls: suite.log_calls,
        budget: crate::eval::budget::RunBudget::unlimited(),
    })
}

/// The suite's `baseline` for a dataset entry that runs it (seeded with the suite's seed).
pub fn dataset_baseline(
    suite: &Suite,
    d: &super::spec::DatasetUnit,
) -> Option<crate::eval::reasoning::report::BaselineSpec> {
    let label = suite.baseline.as_ref()?;
    d.policies.iter().any(|p| &p.label == label).then(|| {
        crate::eval::reasoning::report::BaselineSpec {
            label: label.clone(),
            seed: suite.seed,
            draws: crate::eval::stats::DEFAULT_DRAWS,
        }
    })
}

/// A unit's report, read back from its `summary.json`.
pub fn unit_report(
    (model, label): (&str, &str),
    out: &Path,
    kind: &str,
    markdown: String,
    errors: usize,
) -> UnitReport {
    let summary = std::fs::read_to_string(out.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    UnitReport {
        model: model.to_string(),
        unit: label.to_string(),
        kind: kind.to_string(),
        dir: unit_dir(model, label).display().to_string(),
        markdown,
        errors,
        summary,
    }
}

/// Writes the run's `summary.json` (every unit's summary) and `results.md` (every unit's
/// table under a heading) atomically; returns the Markdown.
pub fn write_suite_report(
    dir: &Path,
    suite: &Suite,
    units: &[UnitReport],
) -> Result<String, SuiteRunError> {
    let mut md = format!("# {}\n\n", suite.name);
    if !suite.description.is_empty() {
        md.push_str(&suite.description);
        md.push_str("\n\n");
    }
    for u in units {
        md.push_str(&format!("## {} · {} ({})\n\n", u.model, u.unit, u.kind));
        md.push_str(u.markdown.trim_end());
        md.push_str("\n\n");
        if u.errors > 0 {
            md.push_str(&format!(
                "{} work item(s) ended with an error: not scored; they run again on the next run.\n\n",
                u.errors
            ));
        }
    }
    #[derive(Serialize)]
    struct SuiteSummary<'a> {
        suite: &'a str,
        units: &'a [UnitReport],
    }
    let json = serde_json::to_string_pretty(&SuiteSummary {
        suite: &suite.name,
        units,
    })
    .unwrap_or_default();
    for (name, bytes) in [
        ("summary.json", json.as_bytes()),
        ("results.md", md.as_bytes()),
    ] {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(io_err(&path))?;
    }
    Ok(md)
}
