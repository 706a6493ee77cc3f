//! SwarmSys scaling: wall time and model calls per item for a swarm
//! of A agents against a latency-bound endpoint (`colony bench swarmsys` runs it against
//! `serve-mock --latency-ms 100`).
//!
//! In mode A every global round is one event round: the explorer, then all workers at once,
//! then the validator — three sequential model latencies whatever A is, since the workers run
//! in parallel (docs/design/swarmsys.md §2.8, §2.11). So wall time per item should follow the
//! rounds run (`rounds × 3 × latency`, [`ScalingRow::latency_floor_s`]), not A, while calls
//! per item grow with the workers. Items run one at a time so an item's wall time is its own.

use std::sync::Arc;

use colony_qa::Item;
use serde::Serialize;

use crate::eval::solve_item;
use colony_llm::embed::Embedder;
use colony_llm::SharedModel;
use colony_policy::reasoning::{Member, PolicyError, ReasoningContext, Roster, MASLAB_SAMPLING};
use colony_policy::registry::Registry;
use colony_runtime::RoleCard;

/// One team size's figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScalingRow {
    /// Agents A.
    pub agents: usize,
    /// The policy spec run.
    pub policy: String,
    /// Items solved.
    pub items: usize,
    /// Items that ended in an error.
    pub errors: usize,
    /// Correct items.
    pub correct: usize,
    /// Mean model calls per item.
    pub calls_per_item: f64,
    /// Mean global rounds per item (trace `rounds_run`).
    pub rounds_per_item: f64,
    /// Mean wall time per item, seconds.
    pub wall_s_per_item: f64,
    /// Wall time per global round, seconds (total wall / total rounds).
    pub wall_s_per_round: f64,
    /// Mean of `rounds × 3 × latency` per item: the time the model's latency alone takes when
    /// each round's three phases are sequential and everything inside a phase is parallel.
    pub latency_floor_s: f64,
}

/// Solves `items` one at a time with `swarmsys:agents=<agents>` (plus `options`, a
/// comma-separated option list, may be empty), every agent played by `model`; `latency_s` is
/// the endpoint's latency per call, for [`ScalingRow::latency_floor_s`].
pub async fn run_size(
    registry: &Registry,
    agents: usize,
    options: &str,
    items: &[Item],
    (model, embedder): (SharedModel, Arc<dyn Embedder>),
    seed: u64,
    latency_s: f64,
) -> Result<ScalingRow, PolicyError> {
    let spec = if options.trim().is_empty() {
        format!("swarmsys:agents={agents}")
    } else {
        format!("swarmsys:agents={agents},{options}")
    };
    let policy = registry.reasoning(&spec, &ReasoningContext::new(embedder))?;
    let dataset = crate::study::amplification::study_dataset();
    let roster = Roster {
        members: vec![Member::new(
            Arc::new(RoleCard::new("agent", "You are a helpful assistant.")),
            model,
        )],
        sampling: MASLAB_SAMPLING,
    };
    let (mut calls, mut rounds, mut wall, mut errors, mut correct) = (0u64, 0u64, 0.0, 0, 0);
    for item in items {
        let r = solve_item(policy.as_ref(), item, &roster, seed, &dataset).await;
        calls += r.calls;
        rounds += r.trace["rounds_run"].as_u64().unwrap_or(0);
        wall += r.wall_ms / 1000.0;
        errors += usize::from(r.error.is_some());
        correct += usize::from(r.correct);
    }
    let n = items.len().max(1) as f64;
    Ok(ScalingRow {
        agents,
        policy: spec,
        items: items.len(),
        errors,
        correct,
        calls_per_item: calls as f64 / n,
        rounds_per_item: rounds as f64 / n,
        wall_s_per_item: wall / n,
        wall_s_per_round: wall / rounds.max(1) as f64,
        latency_floor_s: rounds as f64 * 3.0 * latency_s / n,
    })
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[ScalingRow], latency_ms: u64) -> String {
    let mut out = format!(
        "| A | calls/item | rounds/item | wall s/item | wall s/round | floor s/item (rounds × 3 × \
         {latency_ms} ms) | errors |\n|---|---|---|---|---|---|---|\n"
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {:.1} | {:.2} | {:.2} | {:.3} | {:.2} | {} |\n",
            r.agents,
            r.calls_per_item,
            r.rounds_per_item,
            r.wall_s_per_item,
            r.wall_s_per_round,
            r.latency_floor_s,
            r.errors
        ));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::study::amplification::simulated_items;
    use colony_llm::embed::HashingEmbedder;
    use colony_llm::{AnswerKey, SimulatedConfig, SimulatedModel};

    #[tokio::test]
    async fn calls_grow_with_workers_and_rounds_are_counted() {
        let items = simulated_items(2, 1);
        let mut key = AnswerKey::new();
        for i in &items {
            key.insert(&i.question, i.gold.clone());
        }
        let registry = Registry::builtin();
        let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig {
            accuracy: 1.0,
            answer_key: key,
            responders: registry.responders(),
            ..SimulatedConfig::default()
        }));
        let embedder: Arc<dyn Embedder> = Arc::new(HashingEmbedder::new(64));
        let small = run_size(
            &registry,
            4,
            "",
            &items,
            (model.clone(), embedder.clone()),
            0,
            0.1,
        )
        .await
        .unwrap();
        let large = run_size(&registry, 8, "rounds=4", &items, (model, embedder), 0, 0.1)
            .await
            .unwrap();
        assert_eq!((small.errors, small.correct), (0, 2));
        // All agents right: one event round each; explorer + workers + validator.
        assert_eq!(small.rounds_per_item, 1.0);
        assert_eq!(small.calls_per_item, 4.0);
        assert_eq!(large.calls_per_item, 8.0);
        assert!((small.latency_floor_s - 0.3).abs() < 1e-12);
        assert!(markdown(&[small, large], 100).contains("| 8 | 8.0 | 1.00 |"));
    }
}
