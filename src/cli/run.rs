//! `colony run`: a suite (datasets and environments × policies × models × seeds), resumable,
//! optionally one shard of it; `--dry-run` prints the expanded matrix.

use crate::registry::Registry;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::eval::{CallRouting, Progress};
use crate::llm::{ModelSpec, ModelsConfig};
use crate::suite::estimate::matrix;
use crate::suite::run::run_dir;
use crate::suite::{expand, run_suite, Shard, Suite, SuiteHooks, SuiteRunOptions};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::eval::EvalBars;
use super::model_args::ModelArgs;

/// Arguments of `colony run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The suite file (`evals/<suite>.toml`).
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Run against this model instead of the suite's `models` (with the other model flags).
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened type's own docs (clap help)
    pub code: super::sandbox_args::SandboxArgs,
    /// Output directory (default: `runs/<suite name>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the expanded matrix with item/episode counts and the call estimate; run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Run only shard `i` of `N` (0-based), into `OUT/shard-<i>-of-<N>/`. Without it, the
    /// shard comes from `SLURM_ARRAY_TASK_ID`/`SLURM_ARRAY_TASK_COUNT` or Kubernetes'
    /// `JOB_COMPLETION_INDEX` (with --shards).
    #[arg(long, value_name = "i/N")]
    pub shard: Option<Shard>,
    /// The shard count for `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job's completions).
    #[arg(long, value_name = "N")]
    pub shards: Option<u32>,
    /// Ignore job-array variables in the environment (run everything in one process).
    #[arg(long, conflicts_with = "shard")]
    pub no_shard: bool,
    /// Model calls in flight per endpoint (overrides `max_concurrency` of models.toml).
    #[arg(long, value_parser = crate::cli::model_args::parse_in_flight)]
    pub concurrency: Option<usize>,
    /// Resume into a directory whose manifest records a different run (rewrites it).
    #[arg(long)]
    pub force: bool,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Stop starting new work once the suite's items and episodes (earlier runs into the same
    /// directory included) have used this many tokens (prompt + completion); beats the
    /// suite's `max_tokens_total`. Work in flight finishes, the summaries are marked partial,
    /// and a rerun with a higher cap resumes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens_total: Option<u64>,
    /// Stop starting new work once the run (earlier runs into the same directory included)
    /// has cost this many US dollars at the models' prices (`price.*` in models.toml; refused
    /// for models without one); work in flight finishes, the summary is marked partial, and a
    /// rerun with a higher cap resumes.
    #[arg(long, value_name = "USD", value_parser = crate::eval::budget::parse_max_cost)]
    pub max_cost: Option<f64>,
}

/// The models of the run: the flags' model when `--model` or `--base-url` is given, else
/// the suite's names resolved in models.toml (with the other flags on top).
fn models(a: &RunArgs, suite: &Suite, config: Option<&Path>) -> anyhow::Result<Vec<ModelSpec>> {
    let mut specs = if a.model.model.is_some() || a.model.base_url.is_some() {
        vec![a.model.spec(config)?]
    } else {
        let cfg = ModelsConfig::discover(config)?;
        let overrides = a.model.overrides()?;
        suite
            .models
            .iter()
            .map(|name| {
                cfg.resolve(Some(name), &overrides)
                    .map_err(|e| anyhow::anyhow!("{}: models: {e}", a.suite.display()))
            })
            .collect::<anyhow::Result<_>>()?
    };
    if let Some(c) = a.concurrency {
        anyhow::ensure!(c > 0, "--concurrency must be at least 1");
        for s in &mut specs {
            s.max_concurrency = Some(c);
        }
    }
    Ok(specs)
}

/// Runs `colony run`.
pub async fn run(a: RunArgs, config: Option<&Path>, registry: &Registry) -> anyhow::Result<()> {
    let suite = Suite::load(&a.suite, registry)?;
    let specs = models(&a, &suite, config)?;
    let shard = match (a.shard, a.no_shard) {
        (Some(s), _) => Some(s),
        (None, true) => None,
        (None, false) => Shard::from_env(|k| std::env::var(k).ok(), a.shards)?,
    };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("runs").join(crate::suite::spec::file_component(&suite.name))
    });
    let budget = crate::eval::budget::RunBudget::with_cost(
        a.max_tokens_total.or(suite.max_tokens_total),
        a.max_cost.or(suite.max_cost),
    );
    budget.check_priced(specs.iter().map(|s| (s.name.as_str(), s.price.is_some())))?;
    if a.dry_run {
        return dry_run(registry, &suite, &specs, shard, &out).await;
    }
    if let Some(s) = shard {
        eprintln!("shard {s}: writing {}", run_dir(&out, Some(s)).display());
    }
    let bars = EvalBars::new(a.quiet);
    let episodes = Arc::new(Progress::default());
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{prefix:>16} {bar:30} {pos}/{len} {msg} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let lines = Arc::new(super::progress_lines::ProgressLines::new(
        "episodes", "episodes", a.quiet,
    ));
    let ticker = {
        let (bar, p, lines) = (bar.clone(), episodes.clone(), lines.clone());
        tokio::spawn(async move {
            loop {
                let total = p.episodes_total.load(Ordering::Relaxed);
                if total > 0 {
                    lines.update(
                        p.episodes_done.load(Ordering::Relaxed),
                        total,
                        p.calls.load(Ordering::Relaxed),
                        &format!("errors {}", p.errors.load(Ordering::Relaxed)),
                    );
                    bar.set_prefix("episodes");
                    bar.set_length(total);
                    bar.set_position(p.episodes_done.load(Ordering::Relaxed));
                    bar.set_message(format!(
                        "calls {} tokens {} retries {}{} errors {}",
                        p.calls.load(Ordering::Relaxed),
                        p.tokens.load(Ordering::Relaxed),
                        p.retries.load(Ordering::Relaxed),
                        super::conc_field(),
                        p.errors.load(Ordering::Relaxed),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let quiet = a.quiet;
    let episodes_for_units = episodes.clone();
    let finish_unit = {
        let (lines, p) = (lines.clone(), episodes.clone());
        move || {
            lines.update(
                p.episodes_done.load(Ordering::Relaxed),
                p.episodes_total.load(Ordering::Relaxed),
                p.calls.load(Ordering::Relaxed),
                &format!("errors {}", p.errors.load(Ordering::Relaxed)),
            );
        }
    };
    let finish_previous = finish_unit.clone();
    let unit_started = move |rel: &Path| {
        // The ticker may not have seen the previous unit's last episode.
        finish_previous();
        lines.restart(&rel.display().to_string());
        for c in [
            &episodes_for_units.episodes_total,
            &episodes_for_units.episodes_done,
        ] {
            c.store(0, Ordering::Relaxed);
        }
        if !quiet {
            eprintln!("== {}", rel.display());
        }
    };
    let calls = CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
    let tools = suite_tools(registry, &suite, &a.code.sandbox, calls).await?;
    let result = run_suite(
        &suite,
        SuiteRunOptions {
            registry,
            suite_file: a.suite.clone(),
            out,
            models: specs,
            calls,
            shard,
            force: a.force,
            api_key: a.model.api_key()?,
            budget,
            code_judge: code_judge(&a, &suite)?,
            tools,
            judge: super::judge_args::judge_spec(
                suite.judge.as_deref(),
                (suite.grade != crate::eval::judge::GradeMode::Rules).then_some(suite.grade),
                suite.judge_grader.as_deref().unwrap_or("equivalence"),
                suite.judge_agreement,
                &a.model,
                config,
            )?,
        },
        SuiteHooks {
            unit_started: &unit_started,
            dataset: &bars,
            episodes,
        },
    )
    .await;
    ticker.abort();
    finish_unit();
    bar.finish_and_clear();
    let outcome = result?;
    for n in &outcome.notes {
        eprintln!("{n}");
    }
    println!("{}", outcome.markdown);
    eprintln!("results in {}", outcome.dir.display());
    let errors: usize = outcome.units.iter().map(|u| u.errors).sum();
    anyhow::ensure!(
        errors == 0,
        "{errors} work item(s) ended with an error (see the units' results); they are not scored \
         and run again when the same command is repeated"
    );
    Ok(())
}

/// Prints the expanded matrix and the call estimate.
async fn dry_run(
    registry: &Registry,
    suite: &Suite,
    specs: &[ModelSpec],
    shard: Option<Shard>,
    out: &Path,
) -> anyhow::Result<()> {
    let names: Vec<String> = specs.iter().map(|m| m.name.clone()).collect();
    let mut notes = Vec::new();
    let units = expand(registry, suite, &names, &mut notes)?;
    for n in &notes {
        eprintln!("{n}");
    }
    let rows = matrix(registry, suite, &units, shard).await?;
    println!("suite {} → {}", suite.name, run_dir(out, shard).display());
    if let Some(s) = shard {
        println!("shard {s}");
    }
    println!();
    print!(
        "{}",
        crate::suite::estimate::matrix_markdown(&rows, specs, units.len())
    );
    Ok(())
}

/// The judge of the suite's code datasets, made only when it has one (a suite without code
/// needs no sandbox): a published dataset whose answers are code (`humaneval`). A plugin's code
/// dataset runs without a judge, so its items are errors, never wrong answers.
fn code_judge(
    a: &RunArgs,
    suite: &crate::suite::Suite,
) -> anyhow::Result<Option<std::sync::Arc<crate::registry::CodeJudge>>> {
    let has_code = suite.datasets.iter().any(|d| {
        d.dataset
            .parse::<crate::qa::Dataset>()
            .is_ok_and(|ds| ds.answer_family() == crate::qa::AnswerFamily::Code)
    });
    if !has_code {
        return Ok(None);
    }
    Ok(Some(std::sync::Arc::new(a.code.judge()?)))
}

/// The suite's tools (`tools`, `[mcp.NAME]`), built once for every unit; python runs in
/// `--sandbox`.
async fn suite_tools(
    registry: &crate::registry::Registry,
    suite: &crate::suite::Suite,
    sandbox: &str,
    calls: CallRouting<'_>,
) -> anyhow::Result<Option<crate::eval::tools::RunTools>> {
    if suite.tools.is_empty() {
        return Ok(None);
    }
    let mcp = crate::tools::McpServerConfig::from_tables(suite.mcp.clone(), "suite")?;
    let spec = crate::eval::tools::ToolsSpec::new(
        suite.tools.clone(),
        mcp,
        sandbox,
        crate::runtime::ToolLimits::default(),
    );
    Ok(crate::eval::tools::RunTools::build(registry, &spec, calls).await?)
}
