//! `colony compare`: every policy × seed episode of one environment, in parallel (bounded),
//! resumable, with per-episode trajectories and call logs, then the report
//! ([`super::compare_report`]).
//!
//! Output directory (the file and key names are a contract):
//! - `episodes/<policy>/<seed>/steps.jsonl` and the call log (`calls.jsonl.zst`, or
//!   `calls.jsonl` with `--log-calls full|none`, [`crate::eval::call_log`]); the initial state
//!   once per seed, `episodes/initial-<seed>.json.zst` ([`super::initial_state`]);
//! - `episodes.jsonl`: one [`EpisodeResult`] per finished episode, appended as episodes end;
//! - `compare.json`: the run's settings; a rerun with another environment, settings, step cap,
//!   model or sampling (`--temperature`, `--top-p`, `--max-tokens`, `models.toml` keys) into
//!   the same directory is refused (results would mix);
//! - `summary.json`, `results.md`, `results.csv`, `score.svg`, `score_vs_tokens.svg`;
//! - with `--grid`: episodes under `episodes/<configuration>/<policy>/<seed>/`, each
//!   configuration's report under `configurations/<configuration>/`, and the top-level
//!   `summary.json`/`results.md`/`results.csv` for the whole grid ([`GridSummary`]).
//!
//! Resume: episodes already in `episodes.jsonl` without an error are skipped; errored ones
//! run again and their new line supersedes the old. One process writes a directory at a time
//! ([`crate::eval::lock::DirLock`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::StreamExt;
use serde::{Deserialize, Serialize};

use super::compare_config::{
    check_episode_count, CompareConfig, CompareError, EpisodeResult, Progress,
};
use super::compare_report::{write_report, CompareSummary};
use super::episode::{run_episode, EpisodeConfig, EpisodeOutcome, EpisodeSink, StepRecord};
use super::grid::{configurations, GridAxis};
use super::grid_report::GridSummary;
use super::trajectory::TrajectoryWriter;
use crate::eval::results::write_atomic;
use crate::eval::results::JsonlFile;
use colony_env_api::EnvEntry;
use colony_llm::Sampling;
use colony_policy::embodied::{CallLog, EmbodiedError, EmbodiedFactory, PolicyContext};

fn io(path: &Path) -> impl Fn(std::io::Error) -> CompareError + '_ {
    move |source| CompareError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The settings that must match for results to be comparable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Settings {
    env: String,
    set: Vec<String>,
    max_steps: usize,
    model: String,
    #[serde(default)]
    grid: Vec<GridAxis>,
    /// What each model's calls ask for (absent in directories written before it was
    /// recorded; then not compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sampling: Option<Vec<Sampling>>,
    /// The model is the offline simulation: the viewer labels a run still going by it
    /// (its summary, which says so too, is written at the end). Not compared: `model` is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    simulated: bool,
}

/// Writes `compare.json` or checks it against this run.
fn claim(dir: &Path, s: &Settings) -> Result<(), CompareError> {
    let path = dir.join("compare.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let old: Settings = serde_json::from_str(&text).map_err(|e| CompareError::Mismatch {
            path: path.clone(),
            differences: format!("unreadable: {e}"),
        })?;
        let mut diff = Vec::new();
        if old.env != s.env {
            diff.push(format!("env {} vs {}", old.env, s.env));
        }
        if old.set != s.set {
            diff.push(format!("--set {:?} vs {:?}", old.set, s.set));
        }
        if old.max_steps != s.max_steps {
            diff.push(format!("--max-steps {} vs {}", old.max_steps, s.max_steps));
        }
        if old.model != s.model {
            diff.push(format!("model {} vs {}", old.model, s.model));
        }
        if old.grid != s.grid {
            diff.push("--grid differs".to_string());
        }
        if let (Some(a), Some(b)) = (&old.sampling, &s.sampling) {
            if a != b {
                let show = |x: &Vec<Sampling>| serde_json::to_string(x).unwrap_or_default();
                diff.push(format!("sampling {} vs {}", show(a), show(b)));
            }
        }
        if !diff.is_empty() {
            return Err(CompareError::Mismatch {
                path,
                differences: diff.join("; "),
            });
        }
    } else {
        let text = serde_json::to_string_pretty(s).unwrap_or_default();
        write_atomic(&path, text.as_bytes()).map_err(io(&path))?;
    }
    Ok(())
}

/// A sink writing an episode's files and counting live progress.
struct CompareSink {
    writer: TrajectoryWriter,
    progress: Arc<Progress>,
}

impl EpisodeSink for CompareSink {
    fn on_step(&mut self, record: &StepRecord) -> std::io::Result<()> {
        self.progress.steps.fetch_add(1, Ordering::Relaxed);
        self.writer.on_step(record)
    }
    fn on_calls(&mut self, calls: &[CallLog]) -> std::io::Result<()> {
        self.progress
            .calls
            .fetch_add(calls.len() as u64, Ordering::Relaxed);
        let tokens: u64 = calls
            .iter()
            .map(|c| c.usage.prompt_tokens + c.usage.completion_tokens)
            .sum();
        self.progress.tokens.fetch_add(tokens, Ordering::Relaxed);
        let retries: u64 = calls.iter().map(|c| u64::from(c.retries)).sum();
        self.progress.retries.fetch_add(retries, Ordering::Relaxed);
        self.writer.on_calls(calls)
    }
}

/// The directory of one episode's files: `episodes/<policy>/<seed>`, under
/// `episodes/<configuration>/` in a grid.
pub fn episode_dir(out: &Path, label: &str, policy: &str, seed: u64) -> PathBuf {
    configuration_dir(out, label)
        .join(colony_policy::file_component(policy))
        .join(seed.to_string())
}

/// The directory of one configuration's episodes: `OUT/episodes/` without a grid, else
/// `OUT/episodes/<configuration>/`.
pub fn configuration_dir(out: &Path, label: &str) -> PathBuf {
    if label.is_empty() {
        out.join("episodes")
    } else {
        out.join("episodes")
            .join(colony_policy::file_component(label))
    }
}

/// Runs one episode and appends its result.
async fn one_episode(
    config: Arc<CompareConfig>,
    factory: EmbodiedFactory,
    seed: u64,
    results: Arc<JsonlFile<EpisodeResult>>,
    progress: Arc<Progress>,
    stop: Arc<std::sync::Mutex<Option<String>>>,
) -> Result<(), CompareError> {
    if stop.lock().unwrap_or_else(|p| p.into_inner()).is_some() || !config.budget.may_start() {
        // A fatal failure stopped the run, or its token budget is spent: episodes not yet
        // started are left for next time.
        return Ok(());
    }
    let (entry, mut env) = config.environment()?;
    env.reset(seed);
    let ctx = PolicyContext {
        entry,
        seed,
        caller: config.caller.clone(),
    };
    let mut p = factory.build(&ctx)?;
    let policy = factory.spec();
    let dir = episode_dir(&config.out, &config.label, policy, seed);
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let initial = super::initial_state::initial_state_path(&config.out, &config.label, seed);
    super::initial_state::write_initial_state(&config.out, &config.label, seed, &env.state_json())
        .map_err(io(&initial))?;
    let writer = TrajectoryWriter::create(
        &dir.join("steps.jsonl"),
        Some((&dir, config.log_calls)),
        None,
    )
    .map_err(io(&dir))?;
    let mut sink = CompareSink {
        writer,
        progress: progress.clone(),
    };
    let cfg = EpisodeConfig {
        seed,
        max_steps: config.max_steps,
    };
    let outcome = run_episode(env.as_mut(), p.as_mut(), cfg, &mut sink)
        .await
        .map_err(|e| io(&dir)(e.0))?;
    sink.writer.finish().map_err(io(&dir))?;
    let metrics = env.paper().map(|p| p.paper_metrics()).unwrap_or_default();
    if outcome.fatal {
        let mut s = stop.lock().unwrap_or_else(|p| p.into_inner());
        if s.is_none() {
            *s = outcome
                .error
                .as_ref()
                .map(|e| format!("a failure no retry can fix: {e}"));
        }
    }
    let r = result_of(&config.label, policy, seed, outcome, metrics);
    config
        .budget
        .spend(r.prompt_tokens.saturating_add(r.completion_tokens));
    config.budget.spend_cost(r.cost_usd);
    results.append(&r)?;
    progress.episodes_done.fetch_add(1, Ordering::Relaxed);
    if r.error.is_some() {
        progress.errors.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

fn result_of(
    label: &str,
    policy: &str,
    seed: u64,
    o: EpisodeOutcome,
    metrics: BTreeMap<String, f64>,
) -> EpisodeResult {
    EpisodeResult {
        policy: policy.to_string(),
        seed,
        score: o.score,
        steps: o.steps,
        terminated: o.terminated,
        truncated: o.truncated,
        calls: o.calls,
        prompt_tokens: o.prompt_tokens,
        completion_tokens: o.completion_tokens,
        fallbacks: o.fallbacks,
        error: o.error,
        wall_s: o.wall_s,
        failed_calls: o.failed_calls,
        call_latency_hist: o.call_latency,
        cost_usd: o.cost_nusd.map(colony_llm::usd),
        metrics,
        config: label.to_string(),
        tool_calls: o.tool_calls,
        tool_errors: o.tool_errors,
        tool_ms: (o.tool_time_us as f64 / 100.0).round() / 10.0,
    }
}

/// What a comparison produced: one summary per configuration (one, labelled "", without a
/// grid) and the grid summary when there is a grid.
#[derive(Debug, Clone)]
pub struct CompareOutcome {
    /// `(configuration label, summary)`, in grid order.
    pub summaries: Vec<(String, CompareSummary)>,
    /// The grid's summary (NS and BCS on Wildfire levels), when `--grid` was given.
    pub grid: Option<GridSummary>,
}

impl CompareOutcome {
    /// Episodes that ended with an error, over every configuration and policy (not scored;
    /// a rerun plays them again).
    pub fn errors(&self) -> usize {
        self.summaries
            .iter()
            .flat_map(|(_, s)| s.policies.values())
            .map(|p| p.errors)
            .sum()
    }

    /// The Markdown report printed at the end.
    pub fn markdown(&self) -> String {
        match (&self.grid, self.summaries.first()) {
            (Some(g), _) => g.markdown(),
            (None, Some((_, s))) => s.markdown(),
            (None, None) => String::new(),
        }
    }
}

/// Runs a comparison (resuming what `config.out` already holds) and writes the report.
pub async fn run_compare(
    config: CompareConfig,
    progress: Arc<Progress>,
) -> Result<CompareOutcome, CompareError> {
    let entry = config.env;
    // Every configuration and policy is checked before anything runs.
    let subs = sub_configs(&config)?;
    for sub in &subs {
        sub.environment()?;
    }
    check_unique_policies(&config.policies)?;
    for policy in &config.policies {
        if policy.uses_models() && config.caller.models.is_empty() && config.caller.script.is_none()
        {
            return Err(CompareError::Policy(EmbodiedError::Config {
                policy: policy.spec().to_string(),
                message: "needs a model (--model, --base-url or --model script:FILE)".into(),
            }));
        }
    }
    std::fs::create_dir_all(&config.out).map_err(io(&config.out))?;
    let _lock = crate::eval::lock::DirLock::acquire(&config.out)?;
    claim(
        &config.out,
        &Settings {
            env: entry.info().id,
            set: config.set.clone(),
            max_steps: config.max_steps,
            model: config.model.clone(),
            grid: config.grid.clone(),
            sampling: Some(config.caller.sampling_per_model()),
            simulated: config.simulated,
        },
    )?;
    let (results, earlier) = JsonlFile::<EpisodeResult>::open(&config.out.join("episodes.jsonl"))?;
    // Every recorded episode was paid for (budgets count the whole run).
    for r in &earlier {
        config
            .budget
            .spend(r.prompt_tokens.saturating_add(r.completion_tokens));
        config.budget.spend_cost(r.cost_usd);
    }
    let done: BTreeSet<(String, String, u64)> = earlier
        .iter()
        .filter(|r| r.error.is_none())
        .map(|r| (r.config.clone(), r.policy.clone(), r.seed))
        .collect();
    let subs: Vec<Arc<CompareConfig>> = subs.into_iter().map(Arc::new).collect();
    let mut jobs = Vec::new();
    for sub in &subs {
        for policy in &config.policies {
            for &seed in &sub.seeds {
                let key = (sub.label.clone(), policy.spec().to_string(), seed);
                let mine = config.only.as_ref().is_none_or(|o| o.contains(&key));
                if mine && !done.contains(&key) {
                    jobs.push((sub.clone(), policy.clone(), seed));
                }
            }
        }
    }
    progress
        .episodes_total
        .store(jobs.len() as u64, Ordering::Relaxed);
    let results = Arc::new(results);
    let stop = Arc::new(std::sync::Mutex::new(None));
    // Spawned episodes do not inherit the trace context: each is put under the run's.
    let trace_parent = crate::eval::otlp::current();
    let mut stream = futures::stream::iter(jobs)
        .map(|(sub, policy, seed)| {
            let name = format!("episode {}/{seed}", policy.spec());
            let attributes = vec![
                opentelemetry::KeyValue::new("colony.policy", policy.spec().to_string()),
                opentelemetry::KeyValue::new("colony.seed", seed as i64),
                opentelemetry::KeyValue::new("colony.config", sub.label.clone()),
            ];
            let task = crate::eval::otlp::under(
                trace_parent.clone(),
                crate::eval::otlp::in_span(
                    name,
                    attributes,
                    one_episode(
                        sub,
                        policy,
                        seed,
                        results.clone(),
                        progress.clone(),
                        stop.clone(),
                    ),
                ),
            );
            async move {
                match tokio::spawn(task).await {
                    Ok(r) => r,
                    Err(e) => Err(CompareError::Io {
                        path: config_path_hint(),
                        source: std::io::Error::other(format!("an episode task failed: {e}")),
                    }),
                }
            }
        })
        .buffer_unordered(config.episodes_in_flight.max(1));
    let mut first_error = None;
    while let Some(r) = stream.next().await {
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    }
    drop(stream);
    if let Some(e) = first_error {
        return Err(e);
    }
    let stopped = stop
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .or_else(|| config.budget.stopped());
    let outcome = write_compare_reports(&config, stopped.as_deref()).await?;
    match stopped {
        Some(why) => Err(CompareError::Stopped(why)),
        None => Ok(outcome),
    }
}

/// The configurations of a comparison: itself without a grid, else one per grid point.
fn sub_configs(config: &CompareConfig) -> Result<Vec<CompareConfig>, CompareError> {
    let points = if config.grid.is_empty() {
        Vec::new()
    } else {
        configurations(&config.set, &config.grid)?
    };
    // `level` seeds are a level's own few; otherwise every configuration plays `seeds`.
    let seeds = if config.level_seeds {
        1
    } else {
        config.seeds.len()
    };
    check_episode_count(points.len().max(1), config.policies.len(), seeds)?;
    let mut subs = if config.grid.is_empty() {
        vec![config.clone()]
    } else {
        points
            .into_iter()
            .map(|(label, set)| CompareConfig {
                label,
                set,
                ..config.clone()
            })
            .collect()
    };
    for sub in &mut subs {
        sub.seeds = configuration_seeds(sub.env, &sub.set, &config.seeds, config.level_seeds)?;
    }
    Ok(subs)
}

/// The seeds the configuration `set` of `env` plays: `seeds`, or with `level_seeds` its
/// Wildfire level's own evaluation seeds (see [`CompareConfig::level_seeds`]). Suites plan
/// their shards with it, so a shard owns exactly the episodes the run will play.
pub fn configuration_seeds(
    env: &'static dyn EnvEntry,
    set: &[String],
    seeds: &[u64],
    level_seeds: bool,
) -> Result<Vec<u64>, CompareError> {
    if !level_seeds {
        return Ok(seeds.to_vec());
    }
    colony_policy::env::build(env, set)
        .ok()
        .and_then(|e| e.paper().and_then(|p| p.evaluation_seeds()))
        .ok_or_else(|| CompareError::NoLevelSeeds {
            env: env.info().id,
            config: set.join(","),
        })
}

/// Writes the report of `config.out` from its `episodes.jsonl` (every finished episode,
/// whichever process or shard produced it): per configuration, then the grid's. `colony
/// merge` calls this on the joined shards, so the merged report is the unsharded one.
pub async fn write_compare_reports(
    config: &CompareConfig,
    stopped: Option<&str>,
) -> Result<CompareOutcome, CompareError> {
    let entry = config.env;
    let (_, mut all) = JsonlFile::<EpisodeResult>::open(&config.out.join("episodes.jsonl"))?;
    // Reports must not depend on the order episodes finished in (concurrency, shards): a
    // stable sort by key keeps a rerun's line after the errored one it supersedes.
    all.sort_by(|a, b| (&a.config, &a.policy, a.seed).cmp(&(&b.config, &b.policy, b.seed)));
    let mut summaries = Vec::new();
    for sub in sub_configs(config)? {
        let rows: Vec<EpisodeResult> = all
            .iter()
            .filter(|r| r.config == sub.label)
            .cloned()
            .collect();
        let do_nothing = super::compare_report::do_nothing_scores(&sub, &rows).await?;
        let mut summary = CompareSummary::of(&sub, entry.info().id, &rows, do_nothing);
        summary.stopped = stopped.map(str::to_string);
        let dir = if config.grid.is_empty() {
            config.out.clone()
        } else {
            let dir = config
                .out
                .join("configurations")
                .join(colony_policy::file_component(&sub.label));
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
            dir
        };
        write_report(&dir, &summary, &rows)?;
        super::score_curves::write_score_curves(&config.out, &sub.label, &summary, &dir)?;
        summaries.push((sub.label.clone(), summary));
    }
    let grid = if config.grid.is_empty() {
        None
    } else {
        let g = GridSummary::new(entry, config.grid.clone(), summaries.clone());
        super::grid_report::write_grid_report(&config.out, &g, &summaries)?;
        Some(g)
    };
    Ok(CompareOutcome { summaries, grid })
}

/// Two policies with the same spec would write the same episode files at once and be one row
/// of the table: refused, as `colony eval` refuses them (`camon` and `camon:` are one spec).
fn check_unique_policies(policies: &[EmbodiedFactory]) -> Result<(), CompareError> {
    let canonical = |s: &str| s.trim().trim_end_matches(':').trim().to_string();
    let mut seen = std::collections::BTreeMap::new();
    for p in policies {
        if let Some(first) = seen.insert(canonical(p.spec()), p.spec()) {
            return Err(CompareError::Policy(EmbodiedError::Config {
                policy: p.spec().to_string(),
                message: format!(
                    "`{first}` and `{}` are one policy, named twice in the policy list; each \
                     policy runs once",
                    p.spec()
                ),
            }));
        }
    }
    Ok(())
}

fn config_path_hint() -> PathBuf {
    PathBuf::from("<episode task>")
}
