//! `colony eval`: run reasoning policies over a dataset, resumably, and print the table.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use colony::eval::{build_models, run_policy, CallRouting, EvalConfig, PolicySummary};
use colony::llm::{ModelSpec, ModelsConfig, Sampling, SharedModel};
use colony::policy::reasoning::{policy_with_embedder, Member, Roster, MASLAB_SAMPLING};
use colony::runtime::RoleCard;
use colony_qa::Item;
use indicatif::{ProgressBar, ProgressStyle};

use super::dataset_args::DatasetArgs;
use super::model_args::ModelArgs;

/// Arguments of `colony eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    pub data: DatasetArgs,
    /// Policies, comma-separated, each `name` or `name:key=value,…` (quote the list when
    /// options contain commas: separate policies with `;` then).
    #[arg(long, value_name = "P[,P2,…]")]
    pub policy: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// One model per agent, comma-separated names from models.toml (heterogeneous teams).
    #[arg(long, value_name = "A,B,…", conflicts_with = "model")]
    pub models: Option<String>,
    /// Agents in the roster (role cards taken in order from --roles).
    #[arg(long, default_value_t = 4)]
    pub agents: usize,
    /// Rounds for policies that have rounds (added as `rounds=T` unless given in the spec).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Directory of role cards (`*.toml`, used in file-name order).
    #[arg(long, default_value = "roles/selforg", value_name = "DIR")]
    pub roles: PathBuf,
    /// Embedder of SelfOrg: hash (default), minilm:DIR, remote:URL#MODEL, … (see `colony embed`).
    #[arg(long, default_value = "hash", value_name = "SPEC")]
    pub embedder: String,
    /// Model calls in flight per endpoint (overrides `max_concurrency` of models.toml).
    #[arg(long, default_value_t = 16)]
    pub concurrency: usize,
    /// Items solved at once (default: 4 × --concurrency). More items than calls keep the
    /// endpoint busy while multi-round policies wait on their DAG parents; results do not
    /// depend on it (every draw is seeded per item).
    #[arg(long, value_name = "N")]
    pub items_in_flight: Option<usize>,
    /// Output directory: `<policy>.jsonl` per policy, `summary.json`, `results.md`, `results.csv`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Role cards in file-name order, or a single generic assistant when the folder is missing.
pub(crate) fn role_cards(dir: &Path) -> anyhow::Result<Vec<Arc<RoleCard>>> {
    if !dir.is_dir() {
        tracing::warn!(dir = %dir.display(), "no role-card folder; using a generic assistant");
        return Ok(vec![Arc::new(RoleCard::new(
            "assistant",
            "You are a helpful assistant.",
        ))]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| Ok(Arc::new(RoleCard::load(&p)?)))
        .collect()
}

/// The model specs of the roster: `--models` in order, else the one `--model`.
fn model_specs(a: &EvalArgs, config: Option<&Path>) -> anyhow::Result<Vec<ModelSpec>> {
    match &a.models {
        Some(list) => {
            let cfg = ModelsConfig::discover(config)?;
            let overrides = a.model.overrides()?;
            list.split(',')
                .map(|name| Ok(cfg.resolve(Some(name.trim()), &overrides)?))
                .collect()
        }
        None => Ok(vec![a.model.spec(config)?]),
    }
}

/// The sampling of each model (the flags over its models.toml keys), in `--models` order.
fn model_sampling(a: &EvalArgs, config: Option<&Path>) -> anyhow::Result<Vec<Sampling>> {
    match &a.models {
        Some(list) => {
            let cfg = ModelsConfig::discover(config)?;
            list.split(',')
                .map(|name| {
                    Ok(cfg
                        .resolve(Some(name.trim()), &a.model.overrides()?)?
                        .sampling())
                })
                .collect()
        }
        None => Ok(vec![a.model.spec(config)?.sampling()]),
    }
}

fn roster(a: &EvalArgs, config: Option<&Path>, items: &[Item]) -> anyhow::Result<Roster> {
    let roles = role_cards(&a.roles)?;
    let sampling = model_sampling(a, config)?;
    // Record/replay wraps the very model a plain run uses (the keyed simulated model too).
    let calls = CallRouting::from_dirs(a.model.record.as_deref(), a.model.replay.as_deref());
    let models: Vec<SharedModel> = build_models(&model_specs(a, config)?, items, calls)?;
    let n = a.agents.max(1);
    let members = (0..n)
        .map(|i| Member {
            role: roles[i % roles.len()].clone(),
            model: models[i % models.len()].clone(),
            sampling: sampling[i % sampling.len()].clone(),
        })
        .collect();
    Ok(Roster {
        members,
        sampling: MASLAB_SAMPLING,
    })
}

/// Splits the policy list: `;` if present, else commas that start a new policy name.
fn policy_specs(list: &str, rounds: Option<u32>) -> Vec<String> {
    let raw = colony::policy::split_policy_list(list);
    raw.into_iter()
        .map(|s| match rounds {
            Some(t)
                if (s.starts_with("debate") || s.starts_with("selforg"))
                    && !s.contains("rounds=") =>
            {
                if s.contains(':') {
                    format!("{s},rounds={t}")
                } else {
                    format!("{s}:rounds={t}")
                }
            }
            _ => s,
        })
        .collect()
}

/// Runs `colony eval`.
pub async fn run(mut a: EvalArgs, config: Option<&Path>) -> anyhow::Result<()> {
    anyhow::ensure!(a.concurrency > 0, "--concurrency must be at least 1");
    anyhow::ensure!(
        !colony::policy::split_policy_list(&a.policy).is_empty(),
        "--policy is empty: name at least one policy (e.g. --policy single)"
    );
    a.model.max_concurrency = Some(a.concurrency);
    let dataset = a.data.dataset()?;
    let items = a.data.load_selected()?;
    anyhow::ensure!(
        !items.is_empty(),
        "no items selected from {}",
        a.data.data.display()
    );
    let roster = roster(&a, config, &items)?;
    let specs = policy_specs(&a.policy, a.rounds);
    let embedder = a
        .embedder
        .parse::<colony::embed::EmbedderSpec>()?
        .build(a.model.api_key()?)
        .await?;
    let policies: Vec<Arc<dyn colony::policy::reasoning::ReasoningPolicy>> = specs
        .iter()
        .map(|s| policy_with_embedder(s, embedder.clone()).map(Arc::from))
        .collect::<Result<Vec<_>, _>>()?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let _lock = colony::eval::lock::DirLock::acquire(&a.out)?;
    let mut summary = colony::eval::report::rebuild_summary(&a.out)?;
    let mut stopped = None;
    let mut all_errored = Vec::new();
    let eval = EvalConfig {
        concurrency: a.items_in_flight.unwrap_or(4 * a.concurrency).max(1),
        run_seed: a.data.seed,
        dataset: dataset.name().to_string(),
    };
    for policy in policies {
        let name = policy.name().to_string();
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(items.len() as u64)
        };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>16} {bar:30} {pos}/{len} {msg} ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(name.clone());
        let stats = std::sync::Mutex::new((0usize, 0usize, 0u64, 0usize));
        let on_done = |r: &colony::eval::ItemResult| {
            let mut s = stats.lock().unwrap_or_else(|p| p.into_inner());
            s.0 += 1;
            s.1 += usize::from(r.correct);
            s.2 += r.prompt_tokens + r.completion_tokens;
            s.3 += usize::from(r.error.is_some());
            bar.inc(1);
            let answered = (s.0 - s.3).max(1);
            bar.set_message(format!(
                "acc {:.3} tokens {} errors {}",
                s.1 as f64 / answered as f64,
                s.2,
                s.3
            ));
        };
        let settings = colony::eval::RunSettings::of(&roster, a.data.seed);
        let earlier = colony::eval::report::record_settings(
            &a.out,
            &mut summary,
            dataset.name(),
            &name,
            settings,
        )?;
        if earlier.is_some() {
            eprintln!(
                "note: {name} on {} in {} ran before with other settings (see settings.json); \
                 items already there keep theirs",
                dataset.name(),
                a.out.display()
            );
        }
        let path = a.out.join(format!("{name}.jsonl"));
        let run = run_policy(policy, &items, &roster, &eval, &path, &on_done).await?;
        bar.finish_and_clear();
        let totals = PolicySummary::of(&run.results);
        if totals.n > 0 && totals.errors == totals.n {
            all_errored.push(name.clone());
        }
        summary.record(dataset.name(), &name, totals);
        if let Some(why) = run.stopped {
            stopped = Some((name, why));
            break;
        }
    }
    let md = colony::eval::report::write_eval_report(&a.out, &summary)?;
    println!("{md}");
    if let Some((name, why)) = stopped {
        anyhow::bail!(
            "run stopped early at policy {name}: a failure no retry can fix: {why} (finished \
             items are kept; errored ones run again next time)"
        );
    }
    anyhow::ensure!(
        all_errored.is_empty(),
        "every item of {} ended with an error (see the `error` field in the results); nothing was scored",
        all_errored.join(", ")
    );
    Ok(())
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
