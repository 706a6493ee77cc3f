//! `colony eval`: run reasoning policies over a dataset, resumably, and print the table.

use std::path::{Path, PathBuf};

use crate::eval::models::reasoning_roster;
use crate::eval::reasoning::dataset_run::{run_dataset, DatasetProgress, DatasetRun};
use crate::eval::reasoning::report::BaselineSpec;
use crate::eval::{CallRouting, LabelledPolicy};
use crate::llm::ModelSpec;
use crate::policy::reasoning::{ReasoningContext, Roster};
use crate::registry::Registry;
use clap::Args;
use colony_qa::Item;
use indicatif::{ProgressBar, ProgressStyle};

use super::dataset_args::DatasetArgs;
use super::model_args::ModelArgs;

/// Arguments of `colony eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub data: DatasetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened type's own docs (clap help)
    pub code: super::sandbox_args::SandboxArgs,
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
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened type's own docs (clap help)
    pub judge: super::judge_args::JudgeArgs,
    /// Policies, comma-separated, each `name` or `name:key=value,…` (quote the list when
    /// options contain commas: separate policies with `;` then).
    #[arg(long, value_name = "P[,P2,…]")]
    pub policy: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub model: ModelArgs,
    /// One model per agent, comma-separated names from models.toml (heterogeneous teams).
    #[arg(long, value_name = "A,B,…", conflicts_with = "model")]
    pub models: Option<String>,
    /// Accuracy p of the offline simulated model (the chance an agent answers with the gold
    /// answer); overrides models.toml. As on `colony compare`.
    #[arg(long, value_name = "P")]
    pub sim_accuracy: Option<f64>,
    /// Agents in the roster (role cards taken in order from --roles).
    #[arg(long, default_value_t = 4, value_parser = parse_agents)]
    pub agents: usize,
    /// Rounds for policies that have rounds (added as `rounds=T` unless given in the spec).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Directory of role cards (`*.toml`, used in file-name order) replacing the SelfOrg pool
    /// compiled into colony (`roles/selforg/` of its source).
    #[arg(long, value_name = "DIR")]
    pub roles: Option<PathBuf>,
    /// Embedder of SelfOrg: hash (default), minilm:DIR, remote:URL#MODEL, … (see `colony embed`).
    #[arg(long, default_value = "hash", value_name = "SPEC")]
    pub embedder: String,
    /// Model calls in flight per endpoint (overrides `max_concurrency` of models.toml).
    #[arg(long, default_value_t = 16, value_parser = crate::cli::model_args::parse_in_flight)]
    pub concurrency: usize,
    /// Items solved at once (default: 4 × --concurrency). More items than calls keep the
    /// endpoint busy while multi-round policies wait on their DAG parents; results do not
    /// depend on it (every draw is seeded per item).
    #[arg(long, value_name = "N", value_parser = crate::cli::model_args::parse_in_flight)]
    pub items_in_flight: Option<usize>,
    /// Output directory: `<policy>.jsonl` per policy, `summary.json`, `results.md`, `results.csv`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Completions drawn per item, each with its own seed, for pass@k (the HumanEval paper's
    /// unbiased estimator, in `summary.json` and `results.md`); answers and accuracy are the
    /// first sample's.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(crate::eval::reasoning::samples::MAX_SAMPLES)))]
    pub samples: u32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Resume a policy label even though `--out` recorded it with other options (its rows
    /// then mix both configurations).
    #[arg(long)]
    pub force: bool,
    /// Compare every other policy with this policy label on the items both answered: Δ
    /// accuracy, a paired bootstrap 95% interval (seeded with --seed) and the exact McNemar
    /// p-value, in `summary.json` (`vs_baseline`) and `results.md`.
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// Stop starting new work once the run's items or episodes (earlier runs into the same
    /// directory included) have used this many tokens (prompt + completion); work in flight
    /// finishes, the summary is marked partial, and a rerun with a higher cap resumes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens_total: Option<u64>,
    /// Print the items and policies with estimated calls, tokens and (with prices) cost,
    /// measured on the offline simulated model, and run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Stop starting new work once the run (earlier runs into the same directory included)
    /// has cost this many US dollars at the models' prices (`price.*` in models.toml; refused
    /// for models without one); work in flight finishes, the summary is marked partial, and a
    /// rerun with a higher cap resumes.
    #[arg(long, value_name = "USD", value_parser = crate::eval::budget::parse_max_cost)]
    pub max_cost: Option<f64>,
    /// How much of each item's model calls `calls/` keeps: `compact` (every call whole, zstd
    /// compressed: `calls/<policy>.jsonl.zst`), `full` (plain `calls/<policy>.jsonl`) or
    /// `none` (no calls log; the results keep usage and errors). `colony logs cat --item ID`
    /// prints any of them.
    #[arg(long, value_enum, default_value_t = crate::eval::call_log::LogCalls::Compact)]
    pub log_calls: crate::eval::call_log::LogCalls,
    /// Training items for policies that learn (`gptswarm`): N items of --data that are not
    /// evaluated, a seeded sample (--seed). The policy trains once per label before it
    /// solves anything and saves what it learnt as `<label>.<dataset>.learnt.json` (reused on resume).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub train: Option<u64>,
}

/// The model specs of the roster: `--models` in order, else the one `--model`.
fn model_specs(a: &EvalArgs, config: Option<&Path>) -> anyhow::Result<Vec<ModelSpec>> {
    let mut specs = base_model_specs(a, config)?;
    if let Some(p) = a.sim_accuracy {
        anyhow::ensure!(
            (0.0..=1.0).contains(&p),
            "--sim-accuracy must be in [0, 1], got {p}"
        );
        for s in &mut specs {
            s.accuracy = Some(p);
        }
    }
    Ok(specs)
}

/// [`model_specs`] before `--sim-accuracy`.
fn base_model_specs(a: &EvalArgs, config: Option<&Path>) -> anyhow::Result<Vec<ModelSpec>> {
    a.model.specs(a.models.as_deref(), config)
}

fn roster(
    registry: &Registry,
    a: &EvalArgs,
    config: Option<&Path>,
    items: &[Item],
) -> anyhow::Result<Roster> {
    // Record/replay wraps the very model a plain run uses (the keyed simulated model too).
    let calls = CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
    Ok(reasoning_roster(
        registry,
        &model_specs(a, config)?,
        a.roles.as_deref(),
        a.agents,
        items,
        calls,
    )?)
}

/// The specs of a `--policy` list with `--rounds` applied (test helper).
/// Parses `--agents`: 1 to [`colony::eval::models::MAX_ROSTER_AGENTS`].
fn parse_agents(s: &str) -> Result<usize, String> {
    super::model_args::parse_count(s, crate::eval::models::MAX_ROSTER_AGENTS)
}

#[cfg(test)]
fn policy_specs(list: &str, rounds: Option<u32>) -> Vec<String> {
    crate::policy::PolicySpec::list(list, rounds)
        .map(|v| v.into_iter().map(|p| p.spec).collect())
        .unwrap_or_default()
}

/// Runs `colony eval`.
pub async fn run(
    mut a: EvalArgs,
    config: Option<&Path>,
    registry: &Registry,
) -> anyhow::Result<()> {
    anyhow::ensure!(a.concurrency > 0, "--concurrency must be at least 1");
    anyhow::ensure!(
        !crate::policy::split_policy_list(&a.policy).is_empty(),
        "--policy is empty: name at least one policy (e.g. --policy single)"
    );
    a.model.max_concurrency = Some(a.concurrency);
    let dataset = a.data.dataset(registry)?;
    let items = a.data.load_selected(registry)?;
    anyhow::ensure!(
        !items.is_empty(),
        "no items selected from {}",
        a.data.data.display()
    );
    let train = match a.train {
        Some(n) => crate::eval::reasoning::learning::train_split(
            &a.data.load_all(registry)?,
            &items,
            usize::try_from(n).unwrap_or(usize::MAX),
            a.data.seed,
        )?,
        None => Vec::new(),
    };
    // The simulated model knows the training items too (they are asked during training).
    let known: Vec<Item> = items.iter().chain(&train).cloned().collect();
    let roster = roster(registry, &a, config, &known)?;
    let calls = CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
    let tools = crate::eval::tools::RunTools::build(
        registry,
        &a.tools.spec(config, &a.code.sandbox)?,
        calls,
    )
    .await?;
    let roster = match &tools {
        Some(t) => t.roster(roster),
        None => roster,
    };
    let specs = crate::policy::PolicySpec::list(&a.policy, a.rounds)?;
    let embedder = a
        .embedder
        .parse::<crate::embed::EmbedderSpec>()?
        .build(a.model.api_key()?)
        .await?;
    if a.dry_run {
        let models = model_specs(&a, config)?;
        let rows =
            crate::suite::estimate::dataset_estimate(crate::suite::estimate::DatasetEstimate {
                registry,
                dataset,
                items: &items,
                policies: &specs,
                roles: a.roles.as_deref(),
                agents: a.agents,
                seed: a.data.seed,
                embedder,
                owned: None,
                model: models.first().map_or("", |m| m.name.as_str()),
            })
            .await?;
        println!("colony eval → {}\n", a.out.display());
        print!(
            "{}",
            crate::suite::estimate::matrix_markdown(&rows, &models, 1)
        );
        return Ok(());
    }
    let ctx = ReasoningContext::new(embedder.clone());
    let policies = LabelledPolicy::build_all(&specs, |s| registry.reasoning(s, &ctx))?;
    let dataset = with_code_judge(&a, dataset, &items)?;
    let judge = match super::judge_args::judge_spec(
        a.judge.judge.as_deref(),
        a.judge.grade,
        &a.judge.judge_grader,
        a.judge.judge_agreement,
        &a.model,
        config,
    )? {
        Some(spec) => Some(std::sync::Arc::new(spec.build(
            &items,
            &dataset,
            calls,
            &registry.responders(),
        )?)),
        None => None,
    };
    let budget = crate::eval::budget::RunBudget::with_cost(a.max_tokens_total, a.max_cost);
    let specs = model_specs(&a, config)?;
    budget.check_priced(specs.iter().map(|s| (s.name.as_str(), s.price.is_some())))?;
    crate::eval::prices::claim(&a.out, &specs)?;
    let tracing = crate::eval::otlp::Tracing::from_flag(
        a.otlp.as_deref(),
        "colony eval",
        &[
            ("colony.dataset", dataset.name.clone()),
            ("colony.out", a.out.display().to_string()),
        ],
    )?;
    let mut roster = roster;
    if tracing.is_some() {
        for m in &mut roster.members {
            m.model = crate::eval::otlp::traced(m.model.clone());
        }
    }
    let progress = EvalBars::new(a.quiet);
    let run = run_dataset(
        DatasetRun {
            dataset,
            items,
            policies,
            roster,
            items_in_flight: a.items_in_flight.unwrap_or(4 * a.concurrency),
            run_seed: a.data.seed,
            out: a.out.clone(),
            only: None,
            force: a.force,
            baseline: a.baseline.clone().map(|label| BaselineSpec {
                label,
                seed: a.data.seed,
                draws: crate::eval::stats::DEFAULT_DRAWS,
            }),
            budget,
            log_calls: a.log_calls,
            samples: a.samples,
            judge,
            train: train.into(),
        },
        &progress,
    );
    let outcome = match &tracing {
        Some(t) => t.run(run).await,
        None => run.await,
    };
    if let Some(t) = tracing {
        let error = outcome.as_ref().err().map(ToString::to_string);
        if let Some(warning) = t.finish(error.as_deref()) {
            eprintln!("{warning}");
        }
    }
    let outcome = outcome?;
    // Decision: a stopped run prints no table before its error (as compare does): a partial
    // table on stdout reads like a result; results.md keeps it, under its partial banner.
    if let Some((name, why)) = outcome.stopped {
        anyhow::bail!(
            "run stopped early at policy {name}: {why} (finished \
             items are kept; errored ones run again next time)"
        );
    }
    println!("{}", outcome.markdown);
    anyhow::ensure!(
        outcome.all_errored.is_empty(),
        "every item of {} ended with an error (see the `error` field in the results); nothing was scored",
        outcome.all_errored.join(", ")
    );
    Ok(())
}

/// One progress bar per policy: items done, accuracy so far, tokens and errors.
pub(crate) struct EvalBars {
    quiet: bool,
    bar: std::sync::Mutex<ProgressBar>,
    /// (done, correct, tokens, errors, retries) of the current policy.
    stats: std::sync::Mutex<(usize, usize, u64, usize, u64)>,
    /// (items pending, calls made) of the current policy, for the progress lines.
    work: std::sync::Mutex<(u64, u64)>,
    /// Progress as lines when stderr is not a terminal.
    lines: super::progress_lines::ProgressLines,
}

impl EvalBars {
    pub(crate) fn new(quiet: bool) -> Self {
        Self {
            quiet,
            bar: std::sync::Mutex::new(ProgressBar::hidden()),
            stats: std::sync::Mutex::new((0, 0, 0, 0, 0)),
            work: std::sync::Mutex::new((0, 0)),
            lines: super::progress_lines::ProgressLines::new("items", "items", quiet),
        }
    }
}

impl DatasetProgress for EvalBars {
    fn policy_started(&self, policy: &str, pending: usize) {
        let bar = if self.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(pending as u64)
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>16} {bar:30} {pos}/{len} {msg} ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(policy.to_string());
        *self.bar.lock().unwrap_or_else(|p| p.into_inner()) = bar;
        *self.stats.lock().unwrap_or_else(|p| p.into_inner()) = (0, 0, 0, 0, 0);
        *self.work.lock().unwrap_or_else(|p| p.into_inner()) = (pending as u64, 0);
        self.lines.restart(policy);
    }

    fn item_done(&self, r: &crate::eval::ItemResult) {
        let mut s = self.stats.lock().unwrap_or_else(|p| p.into_inner());
        s.0 += 1;
        s.1 += usize::from(r.correct);
        s.2 += r.prompt_tokens + r.completion_tokens;
        s.3 += usize::from(r.error.is_some());
        s.4 += r.retries;
        let answered = (s.0 - s.3).max(1);
        let accuracy = s.1 as f64 / answered as f64;
        let bar = self.bar.lock().unwrap_or_else(|p| p.into_inner());
        bar.inc(1);
        bar.set_message(format!(
            "acc {accuracy:.3} tokens {} retries {}{} errors {}",
            s.2,
            s.4,
            super::conc_field(),
            s.3
        ));
        let (pending, calls) = {
            let mut w = self.work.lock().unwrap_or_else(|p| p.into_inner());
            w.1 += r.calls;
            *w
        };
        self.lines.update(
            s.0 as u64,
            pending,
            calls,
            &format!("acc {accuracy:.3} tokens {} errors {}", s.2, s.3),
        );
    }

    fn policy_finished(&self, _policy: &str) {
        self.bar
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .finish_and_clear();
    }

    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
}

/// The dataset with the sandbox's judge when any selected item is graded by running code
/// (a dataset without code items needs no sandbox, so none is looked for).
fn with_code_judge(
    a: &EvalArgs,
    dataset: &crate::registry::DatasetEntry,
    items: &[crate::qa::Item],
) -> anyhow::Result<crate::registry::DatasetEntry> {
    let has_code = items
        .iter()
        .any(|i| matches!(i.answer_type, crate::qa::AnswerType::Code { .. }));
    if !has_code {
        return Ok(dataset.clone());
    }
    let judge = a.code.judge()?;
    Ok(dataset.clone().with_code_judge(std::sync::Arc::new(judge)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_lists_split_on_policy_names() {
        assert_eq!(
            policy_specs(
                "single,cot,self_consistency:k=5,debate:agents=3,rounds=2",
                None
            ),
            [
                "single",
                "cot",
                "self_consistency:k=5",
                "debate:agents=3,rounds=2"
            ]
        );
        assert_eq!(
            policy_specs("self_consistency:k=3,debate:agents=3,rounds=2,single", None),
            ["self_consistency:k=3", "debate:agents=3,rounds=2", "single"]
        );
        assert_eq!(
            policy_specs("debate,selforg:k=2", Some(3)),
            ["debate:rounds=3", "selforg:k=2,rounds=3"]
        );
        assert_eq!(policy_specs("a:x=1;b", None), ["a:x=1", "b"]);
    }
}
