//! `colony run --dry-run`: the expanded matrix with item and episode counts and an estimate
//! of the model calls, made without touching any endpoint.
//!
//! Decision: calls and tokens are *measured* on the offline simulated model rather than
//! guessed from a formula per policy (policies change; formulas rot): each reasoning policy
//! solves up to [`SAMPLE_ITEMS`] of the unit's items; each embodied policy plays pilot
//! episodes on up to [`PILOT_SEEDS`] seeds of *every* configuration (a
//! grid's configurations differ by orders of magnitude, CUBE's n = 8 makes far more calls
//! than n = 1, so one configuration's pilot cannot stand for the others). The mean per item,
//! or per episode of each configuration, times the count is the estimate. Prompt tokens are
//! the real prompts' (estimated at 4 characters per token); completion tokens are the
//! simulated replies', and a real model's replies change rounds and early exits, so it is an
//! estimate, and the output says what it rests on.

use std::sync::Arc;

use serde::Serialize;

use super::plan::{PlannedUnit, UnitWork};
use super::run::SuiteRunError;
use super::shard::Shard;
use super::spec::Suite;
use crate::eval::embodied::episode::{run_episode, EpisodeConfig, NullSink};
use crate::eval::models::reasoning_roster;
use crate::eval::reasoning::runner::solve_item;
use crate::eval::CallRouting;
use colony_llm::ModelsConfig;
use colony_policy::embodied::{CallerConfig, EmbodiedFactory, PolicyContext, EMBODIED_SAMPLING};
use colony_policy::reasoning::{ReasoningContext, ReasoningPolicy};
use colony_policy::registry::Registry;

/// Items per reasoning policy solved to measure calls per item.
pub const SAMPLE_ITEMS: usize = 4;

/// Seeds per configuration played as pilot episodes of an embodied policy.
pub const PILOT_SEEDS: usize = 2;

/// One row of the dry-run matrix.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixRow {
    /// The unit's directory (`model/label`).
    pub unit: String,
    /// Policy spec.
    pub policy: String,
    /// Items or episodes of this policy in the unit.
    pub work: usize,
    /// Of those, this shard's (all without a shard).
    pub mine: usize,
    /// Estimated model calls for this shard's share.
    pub calls: u64,
    /// Estimated prompt tokens for this shard's share.
    pub prompt_tokens: u64,
    /// Estimated completion tokens for this shard's share.
    pub completion_tokens: u64,
    /// The model the unit runs (for its price).
    pub model: String,
}

/// Calls and tokens of measured work, summed.
#[derive(Debug, Clone, Copy, Default)]
struct Measured {
    calls: u64,
    prompt: u64,
    completion: u64,
}

impl Measured {
    fn add(&mut self, calls: u64, prompt: u64, completion: u64) {
        self.calls += calls;
        self.prompt += prompt;
        self.completion += completion;
    }

    /// This measurement over `sampled` units of work, scaled to `count` of them.
    fn scaled(&self, sampled: usize, count: usize) -> Measured {
        Measured {
            calls: per_share(self.calls, sampled, count),
            prompt: per_share(self.prompt, sampled, count),
            completion: per_share(self.completion, sampled, count),
        }
    }
}

/// The dry-run matrix of `units` (for `shard`'s share, when given).
pub async fn matrix(
    registry: &Registry,
    suite: &Suite,
    units: &[PlannedUnit],
    shard: Option<Shard>,
) -> Result<Vec<MatrixRow>, SuiteRunError> {
    let embedder = suite
        .embedder
        .parse::<colony_llm::embed::EmbedderSpec>()?
        .build(None)
        .await
        .unwrap_or_else(|_| Arc::new(colony_llm::embed::default_embedder()));
    let mut rows = Vec::new();
    for unit in units {
        let rel = unit.rel_dir().display().to_string();
        match &unit.work {
            UnitWork::Datasets { entries, .. } => {
                for (d, items) in entries {
                    let owned = shard.map(|s| unit.owned_items((d, items), s));
                    let dataset =
                        registry
                            .find_dataset(&d.dataset)
                            .map_err(|x| SuiteRunError::Io {
                                path: d.label.clone().into(),
                                message: x.to_string(),
                            })?;
                    let unit_rows = dataset_estimate(DatasetEstimate {
                        registry,
                        dataset,
                        items,
                        policies: &d.policies,
                        roles: suite.roles.as_deref(),
                        agents: suite.agents,
                        seed: suite.seed,
                        embedder: embedder.clone(),
                        owned: owned.as_ref(),
                        model: &unit.model,
                    })
                    .await?;
                    rows.extend(unit_rows.into_iter().map(|mut r| {
                        r.unit = format!("{rel} ({})", d.dataset);
                        r
                    }));
                }
            }
            UnitWork::Env { unit: e, configs } => {
                let owned = shard.map(|s| unit.owned_episodes(s));
                let unit_rows = env_estimate(
                    registry,
                    e,
                    configs,
                    owned.as_ref(),
                    suite.sim_accuracy,
                    &unit.model,
                )
                .await?;
                rows.extend(unit_rows.into_iter().map(|mut r| {
                    r.unit = rel.clone();
                    r
                }));
            }
        }
    }
    Ok(rows)
}

/// What [`dataset_estimate`] estimates: one dataset's items under its policies.
pub struct DatasetEstimate<'a> {
    /// The registry the policies resolve in (it teaches the simulated model).
    pub registry: &'a Registry,
    /// The dataset.
    pub dataset: &'a colony_policy::registry::DatasetEntry,
    /// Its items (a sample of them is solved).
    pub items: &'a [colony_qa::Item],
    /// The policies, with their labels.
    pub policies: &'a [colony_policy::PolicySpec],
    /// Role-card folder of the roster (`None`: the compiled-in cards).
    pub roles: Option<&'a std::path::Path>,
    /// Agents in the roster.
    pub agents: usize,
    /// Run seed.
    pub seed: u64,
    /// SelfOrg's embedder.
    pub embedder: Arc<dyn colony_llm::embed::Embedder>,
    /// A shard's items per label (all without one).
    pub owned: Option<&'a std::collections::BTreeMap<String, std::collections::BTreeSet<String>>>,
    /// The model the run uses (for its price).
    pub model: &'a str,
}

/// The estimate of one dataset: each policy solves up to [`SAMPLE_ITEMS`] items on the
/// simulated model, scaled to its count. `colony eval --dry-run` calls it for its dataset.
pub async fn dataset_estimate(d: DatasetEstimate<'_>) -> Result<Vec<MatrixRow>, SuiteRunError> {
    let sim =
        ModelsConfig::default().resolve(Some(colony_llm::SIMULATED_NAME), &Default::default())?;
    let sample = &d.items[..d.items.len().min(SAMPLE_ITEMS)];
    let roster = reasoning_roster(
        d.registry,
        std::slice::from_ref(&sim),
        d.roles,
        d.agents,
        sample,
        CallRouting::Live,
    )?;
    let mut rows = Vec::new();
    let ctx = ReasoningContext::new(d.embedder.clone());
    for p in d.policies {
        let policy: Arc<dyn ReasoningPolicy> = Arc::from(d.registry.reasoning(&p.spec, &ctx)?);
        policy.prepare(d.items, d.seed);
        let mut measured = Measured::default();
        for item in sample {
            let r = solve_item(policy.as_ref(), item, &roster, d.seed, d.dataset).await;
            measured.add(
                r.calls + r.failed_calls,
                r.prompt_tokens,
                r.completion_tokens,
            );
        }
        let mine = d
            .owned
            .and_then(|o| o.get(&p.label))
            .map_or(d.items.len(), |ids| ids.len());
        let est = measured.scaled(sample.len(), mine);
        rows.push(MatrixRow {
            unit: d.dataset.name.clone(),
            policy: p.label.clone(),
            work: d.items.len(),
            mine,
            calls: est.calls,
            prompt_tokens: est.prompt,
            completion_tokens: est.completion,
            model: d.model.to_string(),
        });
    }
    Ok(rows)
}

/// The estimate of one environment unit `e` over its `configs` (for the `owned` episodes
/// of a shard, all without one), with the simulated model at `sim_accuracy`: one row per
/// policy. `colony compare --dry-run` calls it for its one unit.
pub async fn env_estimate(
    registry: &Registry,
    e: &super::spec::EnvUnit,
    configs: &[(String, Vec<u64>)],
    owned: Option<&std::collections::BTreeSet<crate::eval::embodied::compare_config::EpisodeKey>>,
    sim_accuracy: Option<f64>,
    model: &str,
) -> Result<Vec<MatrixRow>, SuiteRunError> {
    let mut sim =
        ModelsConfig::default().resolve(Some(colony_llm::SIMULATED_NAME), &Default::default())?;
    sim.accuracy = sim_accuracy.or(sim.accuracy);
    let err = |message: String| SuiteRunError::Io {
        path: e.label.clone().into(),
        message,
    };
    let entry = registry
        .environment_entry(&e.env)
        .map_err(|x| err(x.to_string()))?;
    let settings = config_settings(entry, e)?;
    let responders = registry.responders();
    let per_policy = configs.iter().map(|(_, seeds)| seeds.len()).sum();
    let mut rows = Vec::new();
    for spec in &e.policies {
        let factory = registry
            .embodied_factory(spec, entry)
            .map_err(|x| err(x.to_string()))?;
        let p = spec;
        let mut est = Measured::default();
        let mut mine_total = 0;
        for (label, seeds) in configs {
            let mine = owned.map_or(seeds.len(), |o| {
                o.iter().filter(|(c, q, _)| c == label && q == p).count()
            });
            mine_total += mine;
            if mine == 0 || !factory.uses_models() {
                continue;
            }
            let set = settings.get(label).unwrap_or(&e.set);
            let pilots = &seeds[..seeds.len().min(PILOT_SEEDS)];
            let mut measured = Measured::default();
            for &seed in pilots {
                let (calls, prompt, completion) =
                    episode_usage(e, entry, &factory, (&sim, &responders), set, seed).await?;
                measured.add(calls, prompt, completion);
            }
            let share = measured.scaled(pilots.len(), mine);
            est.add(share.calls, share.prompt, share.completion);
        }
        rows.push(MatrixRow {
            unit: e.label.clone(),
            policy: p.clone(),
            work: per_policy,
            mine: mine_total,
            calls: est.calls,
            prompt_tokens: est.prompt,
            completion_tokens: est.completion,
            model: model.to_string(),
        });
    }
    Ok(rows)
}

/// The dry-run matrix as Markdown: one row per unit and policy with its counts and
/// estimated calls and tokens (and cost, when a model of `specs` has a price), the total, and
/// what the estimate rests on.
pub fn matrix_markdown(
    rows: &[MatrixRow],
    specs: &[colony_llm::ModelSpec],
    units: usize,
) -> String {
    use std::fmt::Write as _;
    let price = |model: &str| specs.iter().find(|m| m.name == model).and_then(|m| m.price);
    let priced = rows.iter().any(|r| price(&r.model).is_some());
    let cost = |r: &MatrixRow| {
        price(&r.model).map(|p| {
            colony_llm::usd(p.cost_nusd(&colony_llm::Usage {
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
                ..Default::default()
            }))
        })
    };
    let usd = crate::eval::reasoning::table::usd_cell;
    let mut out = String::from(
        "| unit | policy | items/episodes | this shard | est. calls | est. prompt tokens | est. completion tokens |",
    );
    out.push_str(if priced { " est. cost (USD) |\n" } else { "\n" });
    out.push_str("|---|---|---:|---:|---:|---:|---:|");
    out.push_str(if priced { "---:|\n" } else { "\n" });
    for r in rows {
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.unit, r.policy, r.work, r.mine, r.calls, r.prompt_tokens, r.completion_tokens
        );
        if priced {
            let _ = write!(out, " {} |", usd(cost(r)));
        }
        out.push('\n');
    }
    let work: usize = rows.iter().map(|r| r.work).sum();
    let mine: usize = rows.iter().map(|r| r.mine).sum();
    let calls: u64 = rows.iter().map(|r| r.calls).sum();
    let prompt: u64 = rows.iter().map(|r| r.prompt_tokens).sum();
    let completion: u64 = rows.iter().map(|r| r.completion_tokens).sum();
    let _ = write!(
        out,
        "| **total** | {units} units | {work} | {mine} | {calls} | {prompt} | {completion} |"
    );
    if priced {
        let total: f64 = rows.iter().filter_map(cost).sum();
        let _ = write!(out, " {} |", usd(Some(total)));
    }
    let _ = write!(
        out,
        "\n\nEstimated on the offline simulated model: calls and tokens of {SAMPLE_ITEMS} items \
         per reasoning policy, and of pilot episodes on up to {PILOT_SEEDS} seeds of every \
         configuration per embodied policy, scaled to the counts. Prompt tokens are the real \
         prompts' (at 4 characters per token); completions are the simulated replies', and a \
         real model's replies change rounds and early exits.{}\n",
        if priced {
            " Cost: the tokens at each model's price."
        } else {
            ""
        }
    );
    out
}

fn per_share(calls: u64, sampled: usize, mine: usize) -> u64 {
    if sampled == 0 {
        return 0;
    }
    (calls as f64 / sampled as f64 * mine as f64).round() as u64
}

/// The settings of each configuration of `e` by label (one empty label without a grid).
fn config_settings(
    entry: &'static dyn colony_env_api::EnvEntry,
    e: &super::spec::EnvUnit,
) -> Result<std::collections::BTreeMap<String, Vec<String>>, SuiteRunError> {
    let err = |message: String| SuiteRunError::Io {
        path: e.label.clone().into(),
        message,
    };
    let axes =
        crate::eval::embodied::grid::parse_axes(entry, &e.grid).map_err(|x| err(x.to_string()))?;
    if axes.is_empty() {
        return Ok([(String::new(), e.set.clone())].into());
    }
    Ok(crate::eval::embodied::grid::configurations(&e.set, &axes)
        .map_err(|x| err(x.to_string()))?
        .into_iter()
        .collect())
}

/// Calls, prompt tokens and completion tokens of one simulated episode of `policy` on the
/// configuration `set`, with `seed`.
async fn episode_usage(
    e: &super::spec::EnvUnit,
    entry: &'static dyn colony_env_api::EnvEntry,
    policy: &EmbodiedFactory,
    (sim, responders): (&colony_llm::ModelSpec, &colony_llm::Responders),
    set: &[String],
    seed: u64,
) -> Result<(u64, u64, u64), SuiteRunError> {
    let err = |message: String| SuiteRunError::Io {
        path: e.label.clone().into(),
        message,
    };
    let mut env = colony_policy::env::build(entry, set).map_err(|x| err(x.to_string()))?;
    env.reset(seed);
    let spec = sim;
    let ctx = PolicyContext {
        entry,
        seed,
        caller: CallerConfig {
            models: vec![spec.build(responders)?],
            model_sampling: vec![spec.sampling.clone()],
            sampling: EMBODIED_SAMPLING,
            ..CallerConfig::default()
        },
    };
    let mut p = policy.build(&ctx).map_err(|x| err(x.to_string()))?;
    let out = run_episode(
        env.as_mut(),
        p.as_mut(),
        EpisodeConfig {
            seed,
            max_steps: e.max_steps,
        },
        &mut NullSink,
    )
    .await
    .map_err(|x| err(x.0.to_string()))?;
    Ok((
        out.calls + out.failed_calls,
        out.prompt_tokens,
        out.completion_tokens,
    ))
}
