//! `colony compare`: coordination policies on one embodied task, same seeds, side by side.
//! Parses flags, calls [`crate::eval::run_compare`], shows progress, prints the table.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::env::parse_compare_seeds;
use crate::eval::call_log::LogCalls;
use crate::eval::{run_compare, CallRouting, CompareConfig, CompareModels, Progress};
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::model_args::ModelArgs;
use crate::policy::embodied::EmbodiedFactory;
use crate::registry::Registry;

/// Arguments of `colony compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Environment id (`swarmbench`, `cube`, `wildfire`, or with its version).
    #[arg(long)]
    pub env: String,
    /// Policies, comma-separated: `independent`, `scripted:<built-in>` (`scripted:heuristic`,
    /// `scripted:noop`, `scripted:random`, …).
    #[arg(long, value_name = "P[,P2,…]")]
    pub policies: String,
    /// An environment parameter, `key=value` (repeatable; see `colony env list`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Send OpenTelemetry traces of the run (run → item or episode → step → model call, with
    /// the GenAI semantic conventions) to the OTLP/HTTP collector at URL, its base
    /// (`http://127.0.0.1:4318`; `/v1/traces` is added). Default: $OTEL_EXPORTER_OTLP_ENDPOINT.
    /// A collector that is down slows and fails nothing; unsent spans are counted and warned.
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened type's own docs (clap help)
    pub tools: super::tool_args::ToolArgs,
    /// Where the `python` tool runs model-written code: `bubblewrap` (isolated; the default)
    /// or `none` (this machine, unisolated).
    #[arg(long, default_value = "bubblewrap", value_name = "NAME")]
    pub sandbox: String,
    /// Compare every other policy with this one over the seeds both scored: mean paired
    /// difference, paired bootstrap 95% interval and sign-flip p-value (`vs_baseline` in
    /// `summary.json`, a column in the table).
    #[arg(long, value_name = "POLICY")]
    pub baseline: Option<String>,
    /// Stop starting new work once the run's items or episodes (earlier runs into the same
    /// directory included) have used this many tokens (prompt + completion); work in flight
    /// finishes, the summary is marked partial, and a rerun with a higher cap resumes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens_total: Option<u64>,
    /// Print the planned episodes with estimated calls, tokens and (with prices) cost, from
    /// pilot episodes on the offline simulated model, and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Stop starting new work once the run (earlier runs into the same directory included)
    /// has cost this many US dollars at the models' prices (`price.*` in models.toml; refused
    /// for models without one); work in flight finishes, the summary is marked partial, and a
    /// rerun with a higher cap resumes.
    #[arg(long, value_name = "USD", value_parser = crate::eval::budget::parse_max_cost)]
    pub max_cost: Option<f64>,
    /// Seed of the report's bootstrap and permutation draws.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seeds, `A..B` (B exclusive), `A..=B`, one number or a list; or `level`: each Wildfire
    /// level plays its own evaluation seeds (CREW-Wildfire Table 9; with `--grid level=…`
    /// the paper's protocol and its cross-level BCS).
    #[arg(long, default_value = "0..5")]
    pub seeds: String,
    /// A parameter grid, `key=values` (`level=all`, `level=1..=17`, `n=1,2,4,8`; repeatable,
    /// axes multiply): every configuration × policy × seed runs; on Wildfire's `level` the
    /// report adds the normalized score per configuration and the Behavior Competency Score.
    #[arg(long = "grid", value_name = "KEY=VALUES")]
    pub grid: Vec<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub model: ModelArgs,
    /// One model per agent, round-robin, names from models.toml (heterogeneous teams).
    #[arg(long, value_name = "A,B,…", conflicts_with = "model")]
    pub models: Option<String>,
    /// Accuracy p of the offline simulated model (the chance its agents take the expert's
    /// action); overrides models.toml.
    #[arg(long, value_name = "P")]
    pub sim_accuracy: Option<f64>,
    /// How much of each model call the episodes keep: `compact` (every call whole, zstd
    /// compressed: `calls.jsonl.zst`), `full` (plain `calls.jsonl`) or `none` (usage, latency,
    /// errors and actions only). `colony logs cat` prints any of them as JSON lines.
    #[arg(long, value_enum, default_value_t = LogCalls::Compact)]
    pub log_calls: LogCalls,
    /// Model calls in flight per endpoint (overrides `max_concurrency` of models.toml).
    #[arg(long, default_value_t = 16, value_parser = crate::cli::model_args::parse_in_flight)]
    pub concurrency: usize,
    /// Episodes run at once.
    #[arg(long, default_value_t = 4, value_parser = crate::cli::model_args::parse_in_flight)]
    pub episodes_in_flight: usize,
    /// Safety cap on steps per episode (environments end their episodes first).
    #[arg(long, default_value_t = 10_000)]
    pub max_steps: usize,
    /// Output directory (resumable: a rerun skips finished episodes).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The run's model specs (the `--models` list, or the one model the flags name) and, for a
/// list, its label.
fn model_specs(
    a: &CompareArgs,
    config: Option<&Path>,
) -> anyhow::Result<(Vec<crate::llm::ModelSpec>, Option<String>)> {
    Ok((
        a.model.specs(a.models.as_deref(), config)?,
        a.models.clone(),
    ))
}

/// `colony compare --dry-run`: the comparison as one suite unit, estimated as a suite's.
async fn dry_run(
    registry: &Registry,
    a: &CompareArgs,
    config: Option<&Path>,
    (seeds, level_seeds): (Vec<u64>, bool),
    policies: &[EmbodiedFactory],
) -> anyhow::Result<()> {
    let uses = policies.iter().any(EmbodiedFactory::uses_models);
    let specs = if uses {
        model_specs(a, config)?.0
    } else {
        Vec::new()
    };
    let unit = crate::suite::spec::EnvUnit {
        label: "compare".into(),
        env: a.env.clone(),
        set: a.set.clone(),
        seeds,
        level_seeds,
        max_steps: a.max_steps,
        grid: a.grid.clone(),
        policies: policies.iter().map(|p| p.spec().to_string()).collect(),
    };
    let configs = crate::suite::plan::env_configs(registry, &unit)?;
    let model = specs.first().map_or(String::new(), |s| s.name.clone());
    let rows = crate::suite::estimate::env_estimate(
        registry,
        &unit,
        &configs,
        None,
        a.sim_accuracy,
        &model,
    )
    .await?;
    println!("colony compare → {}\n", a.out.display());
    print!(
        "{}",
        crate::suite::estimate::matrix_markdown(&rows, &specs, 1)
    );
    Ok(())
}

/// Runs `colony compare`.
pub async fn run(
    mut a: CompareArgs,
    config: Option<&Path>,
    registry: &Registry,
) -> anyhow::Result<()> {
    anyhow::ensure!(a.concurrency > 0, "--concurrency must be at least 1");
    anyhow::ensure!(
        a.episodes_in_flight > 0,
        "--episodes-in-flight must be at least 1"
    );
    anyhow::ensure!(a.max_steps > 0, "--max-steps must be at least 1");
    if let Some(p) = a.sim_accuracy {
        anyhow::ensure!(
            (0.0..=1.0).contains(&p),
            "--sim-accuracy must be in [0, 1], got {p}"
        );
    }
    a.model.max_concurrency = Some(a.concurrency);
    // Checks the sampling flags even when no model is built (scripted policies, script:FILE).
    a.model.overrides()?;
    let (seeds, level_seeds) = parse_compare_seeds(&a.seeds)?;
    let names = crate::policy::split_policy_list(&a.policies);
    anyhow::ensure!(!names.is_empty(), "--policies is empty");
    // The door: the environment and every policy are resolved once, here.
    let env = registry.environment_entry(&a.env)?;
    let policies = names
        .iter()
        .map(|p| registry.embodied_factory(p, env))
        .collect::<Result<Vec<_>, _>>()?;
    let grid = crate::eval::embodied::grid::parse_axes(env, &a.grid)?;
    if a.dry_run {
        return dry_run(registry, &a, config, (seeds, level_seeds), &policies).await;
    }
    let budget = crate::eval::budget::RunBudget::with_cost(a.max_tokens_total, a.max_cost);
    let side = match a
        .model
        .model
        .as_deref()
        .and_then(|m| m.strip_prefix("script:"))
    {
        Some(file) => {
            budget.check_priced([("script:FILE", false)])?;
            CompareModels::script(Path::new(file))?
        }
        None => {
            let uses = policies.iter().any(EmbodiedFactory::uses_models);
            let (specs, label) = if uses {
                model_specs(&a, config)?
            } else {
                (Vec::new(), None)
            };
            budget.check_priced(specs.iter().map(|s| (s.name.as_str(), s.price.is_some())))?;
            crate::eval::prices::claim(&a.out, &specs)?;
            // Every model, of a `--models` list too, is recorded or replayed as the flags say.
            let calls =
                CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
            let responders = registry.responders();
            CompareModels::models(
                &policies,
                specs,
                label,
                a.sim_accuracy,
                calls,
                Some(&responders),
            )?
        }
    };
    let mut side = side;
    let calls = CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
    if let Some(tools) =
        crate::eval::tools::RunTools::build(registry, &a.tools.spec(config, &a.sandbox)?, calls)
            .await?
    {
        anyhow::ensure!(
            side.caller.script.is_none(),
            "--tools needs a model: a reply script (--model script:FILE) calls no tools"
        );
        side.caller.models = side
            .caller
            .models
            .into_iter()
            .map(|m| tools.wrap(m))
            .collect();
    }
    let tracing = crate::eval::otlp::Tracing::from_flag(
        a.otlp.as_deref(),
        "colony compare",
        &[
            ("colony.env", env.info().id.to_string()),
            ("colony.policies", a.policies.clone()),
            ("colony.out", a.out.display().to_string()),
        ],
    )?;
    if tracing.is_some() {
        side.caller.models = side
            .caller
            .models
            .into_iter()
            .map(crate::eval::otlp::traced)
            .collect();
    }
    let run_config = CompareConfig {
        env,
        set: a.set.clone(),
        policies,
        seeds,
        level_seeds,
        max_steps: a.max_steps,
        episodes_in_flight: a.episodes_in_flight,
        out: a.out.clone(),
        caller: side.caller,
        model: side.model,
        simulated: side.simulated,
        grid,
        label: String::new(),
        only: None,
        baseline: a.baseline.clone(),
        stats_seed: a.seed,
        log_calls: a.log_calls,
        budget,
    };
    if let Some(b) = &run_config.baseline {
        anyhow::ensure!(
            names.contains(b),
            "--baseline {b}: not one of --policies ({})",
            names.join(", ")
        );
    }
    let progress = Arc::new(Progress::default());
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("episodes {bar:30} {pos}/{len} {msg} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let lines = Arc::new(super::progress_lines::ProgressLines::new(
        "episodes", "episodes", a.quiet,
    ));
    let report = {
        let (lines, progress) = (lines.clone(), progress.clone());
        move || {
            let (done, total) = (
                progress.episodes_done.load(Ordering::Relaxed),
                progress.episodes_total.load(Ordering::Relaxed),
            );
            lines.update(
                done,
                total,
                progress.calls.load(Ordering::Relaxed),
                &format!(
                    "steps {} tokens {} errors {}",
                    progress.steps.load(Ordering::Relaxed),
                    progress.tokens.load(Ordering::Relaxed),
                    progress.errors.load(Ordering::Relaxed)
                ),
            );
            (done, total)
        }
    };
    let ticker = {
        let (bar, progress, report) = (bar.clone(), progress.clone(), report.clone());
        tokio::spawn(async move {
            loop {
                let (done, total) = report();
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(format!(
                    "steps {} calls {} tokens {} retries {}{} errors {}",
                    progress.steps.load(Ordering::Relaxed),
                    progress.calls.load(Ordering::Relaxed),
                    progress.tokens.load(Ordering::Relaxed),
                    progress.retries.load(Ordering::Relaxed),
                    super::conc_field(),
                    progress.errors.load(Ordering::Relaxed),
                ));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let result = match &tracing {
        Some(t) => t.run(run_compare(run_config, progress.clone())).await,
        None => run_compare(run_config, progress.clone()).await,
    };
    if let Some(t) = tracing {
        let error = result.as_ref().err().map(ToString::to_string);
        if let Some(warning) = t.finish(error.as_deref()) {
            eprintln!("{warning}");
        }
    }
    ticker.abort();
    // The ticker may stop before it saw the last episode: the closing line comes from here.
    report();
    bar.finish_and_clear();
    let outcome = result.with_context(|| format!("colony compare into {}", a.out.display()))?;
    println!("{}", outcome.markdown());
    let errors = outcome.errors();
    if errors > 0 {
        eprintln!(
            "{errors} episode(s) ended with an error (see episodes.jsonl); they are not scored \
             and run again when the same command is repeated"
        );
    }
    let mut failed: Vec<String> = Vec::new();
    for (label, s) in &outcome.summaries {
        for p in &s.order {
            if s.policies
                .get(p)
                .is_some_and(|x| x.episodes == 0 && x.errors > 0)
            {
                failed.push(if label.is_empty() {
                    p.clone()
                } else {
                    format!("{p} ({label})")
                });
            }
        }
    }
    anyhow::ensure!(
        failed.is_empty(),
        "every episode of {} ended with an error; nothing was scored",
        failed.join(", ")
    );
    Ok(())
}
