//! The greedy heuristic baseline (spec §12.1): every agent works on the remaining block closest
//! to the goal with `[move_to_block(B, left), rendezvous(B, left, w, 2K), push_block(B, d)]`.

use std::collections::BTreeMap;

use colony_env_api::{AgentId, Policy};
use serde_json::Value;

use crate::env::{CubeAction, CubeEnv};
use crate::symbolic::SymbolicCall;
use crate::world::World;

/// The target block: smallest `distance_to_goal`, then smaller weight, then smaller id.
pub fn target_block(world: &World) -> Option<u32> {
    world
        .blocks
        .iter()
        .min_by_key(|b| (world.distance_to_goal(b), b.weight, b.id))
        .map(|b| b.id)
}

/// The heuristic plan for the current state, or `None` when no block remains.
pub fn heuristic_plan(world: &World) -> Option<Vec<SymbolicCall>> {
    let id = target_block(world)?;
    let b = *world.block(id)?;
    let block = Value::from(id);
    Some(vec![
        SymbolicCall::new(
            "move_to_block",
            [("block", block.clone()), ("face", Value::from("left"))],
        ),
        SymbolicCall::new(
            "rendezvous",
            [
                ("block", block.clone()),
                ("face", Value::from("left")),
                ("count", Value::from(b.weight)),
                ("timeout", Value::from(2 * world.k)),
            ],
        ),
        SymbolicCall::new(
            "push_block",
            [
                ("block", block),
                ("steps", Value::from(world.distance_to_goal(&b))),
            ],
        ),
    ])
}

/// The greedy heuristic as a built-in policy: new plans for agents whose plan is exhausted,
/// `continue` for the others.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicPolicy;

impl Policy<CubeEnv> for HeuristicPolicy {
    fn act(&mut self, env: &CubeEnv) -> BTreeMap<AgentId, CubeAction> {
        let plan = heuristic_plan(env.world());
        let target = target_block(env.world());
        env.executor()
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let action = match (&plan, a.is_exhausted()) {
                    (Some(p), true) => {
                        let mut p = p.clone();
                        if let Some(step) = target.and_then(|b| unjam_step(env, i, b)) {
                            p.insert(0, step);
                        }
                        CubeAction::Plan(p)
                    }
                    _ => CubeAction::Continue,
                };
                (i.to_string(), action)
            })
            .collect()
    }
}

/// Deadlock breaker (a documented deviation from spec §12.1): an agent whose last rendezvous
/// timed out while it stood on a face cell of the target's left face, next to a free face
/// cell, first steps onto that cell. Without it, agents on the face cells beside a wall can
/// seal the only access to a free face cell and the quorum is never reached.
fn unjam_step(env: &CubeEnv, agent: usize, block: u32) -> Option<SymbolicCall> {
    let last_rendezvous = env
        .executor()
        .history
        .iter()
        .rev()
        .find(|h| h.agent == agent && h.action == "rendezvous" && h.status == "end")?;
    if last_rendezvous.outcome.as_deref() != Some("failed:timeout")
        || last_rendezvous.args.get("block") != Some(&Value::from(block))
    {
        return None;
    }
    let world = env.world();
    let pos = world.agents[agent];
    let faces = world.face_cells(block, crate::geometry::Face::Left).ok()?;
    if !faces.contains(&pos) {
        return None;
    }
    let (dir, cell) = [("up", (pos.0 - 1, pos.1)), ("down", (pos.0 + 1, pos.1))]
        .into_iter()
        .find(|(_, c)| faces.contains(c) && !world.is_agent(*c))?;
    let _ = cell;
    Some(SymbolicCall::new(
        "move",
        [("direction", Value::from(dir)), ("steps", Value::from(1))],
    ))
}

/// Runs the heuristic on a fresh episode until it ends or `cap` steps; returns
/// `(steps, delivered blocks, terminated)`.
pub fn run_heuristic(env: &mut CubeEnv, cap: u32) -> (u32, usize, bool) {
    let mut policy = HeuristicPolicy;
    while env.world().t < cap && !env.is_done() {
        let actions = policy.act(env);
        for (agent, action) in actions {
            if let (Ok(i), CubeAction::Plan(p)) = (agent.parse::<usize>(), action) {
                let _ = env.submit_plan(i, p);
            }
        }
        if env.step_plans().is_err() {
            break;
        }
    }
    (
        env.world().t,
        env.world().delivered.len(),
        env.world().blocks.is_empty(),
    )
}
