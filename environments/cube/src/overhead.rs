//! Per-call cost of each symbolic action (the paper's Fig. 4, docs/design/cube.md §13): every agent
//! runs one action through the executor and the step time is split per agent call. Timing only; the
//! dynamics stay deterministic.

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::config::CubeConfig;
use crate::env::CubeEnv;
use crate::symbolic::SymbolicCall;
use crate::CubeError;

/// Measured cost of one symbolic action.
#[derive(Debug, Clone, Serialize)]
pub struct ActionCost {
    /// Action name.
    pub action: String,
    /// The call every agent ran.
    pub call: String,
    /// Mean wall time of the first executor + physics step after every agent was given the
    /// action.
    pub ms_per_step: f64,
    /// `ms_per_step` divided by the number of agents: the cost of one call's step.
    pub us_per_call: f64,
    /// Same for a primitive-only step (the physics share of the above).
    pub physics_ms_per_step: f64,
}

/// The calls measured, for a grid of side `k` and the heaviest block 0.
fn calls(k: i64) -> Vec<SymbolicCall> {
    let b = || Value::from(0);
    vec![
        SymbolicCall::new(
            "move",
            [("direction", "right".into()), ("steps", 1000.into())],
        ),
        SymbolicCall::new(
            "move_to_block",
            [
                ("block", b()),
                ("face", "left".into()),
                ("timeout", 1000.into()),
            ],
        ),
        SymbolicCall::new(
            "rendezvous",
            [
                ("block", b()),
                ("face", "left".into()),
                ("count", Value::from(k * k)),
                ("timeout", 1000.into()),
            ],
        ),
        SymbolicCall::new("push_block", [("block", b()), ("steps", 1000.into())]),
        SymbolicCall::new("yield_block", [("block", b()), ("steps", 1000.into())]),
        SymbolicCall::new("idle", [("steps", 1000.into())]),
        SymbolicCall::new(
            "wait_agents",
            [("count", Value::from(k * k)), ("timeout", 1000.into())],
        ),
    ]
}

/// Measures every symbolic action over `steps` steps of the `n` episode of `seed`.
pub fn symbolic_overhead(n: u32, seed: u64, steps: u32) -> Result<Vec<ActionCost>, CubeError> {
    let base = CubeEnv::with_seed(CubeConfig::new(n), seed)?;
    let agents = base.world().agents.len();
    let k = i64::from(base.world().k);
    let steps = steps.max(1);
    let mut physics = base.clone();
    let stay = vec![crate::geometry::Prim::Stay; agents];
    let t0 = Instant::now();
    for _ in 0..steps {
        physics.step_primitives(&stay)?;
    }
    let physics_ms = t0.elapsed().as_secs_f64() * 1e3 / f64::from(steps);
    let mut out = Vec::new();
    for call in calls(k) {
        // Every repetition times the first step of a fresh submission: the step that
        // validates, runs the action's checks (alignment, BFS, barriers) and emits.
        let mut total = 0.0;
        for _ in 0..steps {
            let mut env = base.clone();
            for i in 0..agents {
                env.submit_plan(i, vec![call.clone()])?;
            }
            let t0 = Instant::now();
            env.step_plans()?;
            total += t0.elapsed().as_secs_f64();
        }
        let ms = total * 1e3 / f64::from(steps);
        out.push(ActionCost {
            action: call.action.clone(),
            call: call.to_string(),
            ms_per_step: ms,
            us_per_call: ms * 1e3 / agents as f64,
            physics_ms_per_step: physics_ms,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_action_is_measured() {
        let r = super::symbolic_overhead(4, 0, 3).unwrap();
        assert_eq!(r.len(), 7);
        assert!(r.iter().all(|c| c.ms_per_step >= 0.0));
    }
}
