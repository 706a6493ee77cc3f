//! `colony run --dry-run`: the expanded matrix with item and episode counts and an estimate
//! of the model calls, made without touching any endpoint.
//!
//! Decision: calls are *measured* on the offline simulated model rather than guessed from a
//! formula per policy (policies change; formulas rot): each reasoning policy solves up to
//! [`SAMPLE_ITEMS`] of the unit's items, each embodied policy plays the unit's first
//! configuration and seed; the mean calls per item or episode times the unit's count is the
//! estimate. A real model's replies change rounds and early exits, so it is an estimate.

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
use crate::llm::ModelsConfig;
use crate::policy::embodied::{
    embodied_policy, uses_models, CallerConfig, PolicyContext, EMBODIED_SAMPLING,
};
use crate::policy::reasoning::{policy_with_embedder, ReasoningPolicy};

/// Items per reasoning policy solved to measure calls per item.
pub const SAMPLE_ITEMS: usize = 2;

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
}

/// The dry-run matrix of `units` (for `shard`'s share, when given).
pub async fn matrix(
    suite: &Suite,
    units: &[PlannedUnit],
    shard: Option<Shard>,
) -> Result<Vec<MatrixRow>, SuiteRunError> {
    let sim =
        ModelsConfig::default().resolve(Some(crate::llm::SIMULATED_NAME), &Default::default())?;
    let embedder = suite
        .embedder
        .parse::<crate::embed::EmbedderSpec>()?
        .build(None)
        .await
        .unwrap_or_else(|_| Arc::new(crate::embed::default_embedder()));
    let mut rows = Vec::new();
    for unit in units {
        let rel = unit.rel_dir().display().to_string();
        match &unit.work {
            UnitWork::Datasets { entries, .. } => {
                for (d, items) in entries {
                    let sample = &items[..items.len().min(SAMPLE_ITEMS)];
                    let roster = reasoning_roster(
                        std::slice::from_ref(&sim),
                        suite.roles.as_deref(),
                        suite.agents,
                        sample,
                        CallRouting::Live,
                    )?;
                    let owned = shard.map(|s| unit.owned_items((d, items), s));
                    for p in &d.policies {
                        let policy: Arc<dyn ReasoningPolicy> =
                            Arc::from(policy_with_embedder(&p.spec, embedder.clone())?);
                        policy.prepare(items, suite.seed);
                        let mut calls = 0u64;
                        for item in sample {
                            let r =
                                solve_item(policy.as_ref(), item, &roster, suite.seed, &d.dataset)
                                    .await;
                            calls += r.calls + r.failed_calls;
                        }
                        let mine = owned
                            .as_ref()
                            .and_then(|o| o.get(&p.label))
                            .map_or(items.len(), |ids| ids.len());
                        rows.push(MatrixRow {
                            unit: format!("{rel} ({})", d.dataset),
                            policy: p.label.clone(),
                            work: items.len(),
                            mine,
                            calls: per_share(calls, sample.len(), mine),
                        });
                    }
                }
            }
            UnitWork::Env { unit: e, configs } => {
                let owned = shard.map(|s| unit.owned_episodes(s));
                let per_policy = configs.iter().map(|(_, seeds)| seeds.len()).sum();
                for p in &e.policies {
                    let calls = if uses_models(p) {
                        // The first configuration's first seed, as the run plays it.
                        let seed = configs.first().and_then(|(_, s)| s.first()).copied();
                        episode_calls(suite, e, p, &sim, seed.unwrap_or(0)).await?
                    } else {
                        0
                    };
                    let mine = owned
                        .as_ref()
                        .map_or(per_policy, |o| o.iter().filter(|(_, q, _)| q == p).count());
                    rows.push(MatrixRow {
                        unit: rel.clone(),
                        policy: p.clone(),
                        work: per_policy,
                        mine,
                        calls: calls * mine as u64,
                    });
                }
            }
        }
    }
    Ok(rows)
}

fn per_share(calls: u64, sampled: usize, mine: usize) -> u64 {
    if sampled == 0 {
        return 0;
    }
    (calls as f64 / sampled as f64 * mine as f64).round() as u64
}

/// Calls of one simulated episode of `policy` on the unit's first configuration, with `seed`.
async fn episode_calls(
    suite: &Suite,
    e: &super::spec::EnvUnit,
    policy: &str,
    sim: &crate::llm::ModelSpec,
    seed: u64,
) -> Result<u64, SuiteRunError> {
    let mut set = e.set.clone();
    // The first value of every axis, as the first configuration has it.
    for g in &e.grid {
        if let Ok(axis) = crate::eval::embodied::grid::parse_axes(&e.env, std::slice::from_ref(g)) {
            let axis = &axis[0];
            if let Some(v) = axis.values.first() {
                set.push(format!("{}={v}", axis.key));
            }
        }
    }
    let err = |message: String| SuiteRunError::Io {
        path: e.label.clone().into(),
        message,
    };
    let (entry, mut env) = crate::env::build(&e.env, &set).map_err(|x| err(x.to_string()))?;
    env.reset(seed);
    let mut spec = sim.clone();
    spec.accuracy = suite.sim_accuracy.or(spec.accuracy);
    let ctx = PolicyContext {
        entry,
        seed,
        caller: CallerConfig {
            models: vec![spec.build()?],
            model_sampling: vec![spec.sampling.clone()],
            sampling: EMBODIED_SAMPLING,
            ..CallerConfig::default()
        },
    };
    let mut p = embodied_policy(policy, &ctx).map_err(|x| err(x.to_string()))?;
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
    Ok(out.calls + out.failed_calls)
}
