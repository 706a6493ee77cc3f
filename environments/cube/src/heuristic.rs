//! The greedy heuristic baseline (docs/design/cube.md §12.1): every agent works on the remaining
//! block closest to the goal with `[move_to_block(B, left), rendezvous(B, left, w, 2K),
//! push_block(B, d)]`.

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
                let compact = target.and_then(|b| {
                    compaction_step(env, i, b).or_else(|| clear_path_step(env, i, b))
                });
                let fresh = a.is_exhausted() || stalled_push(env, i);
                let action = match (&plan, fresh, compact) {
                    (Some(p), _, Some(step)) => {
                        let mut p = p.clone();
                        p.insert(0, step);
                        CubeAction::Plan(p)
                    }
                    (Some(p), true, None) => CubeAction::Plan(p.clone()),
                    _ => CubeAction::Continue,
                };
                (i.to_string(), action)
            })
            .collect()
    }
}

/// Whether the agent is in a `push_block` whose block has not moved since it started pushing
/// (a documented addition to design §12.1): the push lacked force, so the agent goes back to
/// the rendezvous instead of pushing alone until the push times out. Without it, agents whose
/// rendezvous timed out push out of phase with those still waiting and the quorum never
/// meets again.
fn stalled_push(env: &CubeEnv, agent: usize) -> bool {
    let Some(cur) = env
        .executor()
        .agents
        .get(agent)
        .and_then(|a| a.current.as_ref())
    else {
        return false;
    };
    if cur.call.action != "push_block" || cur.ticks == 0 {
        return false;
    }
    let Some(id) = cur.call.args.get("block").and_then(Value::as_u64) else {
        return false;
    };
    let block = u32::try_from(id).ok().and_then(|id| env.world().block(id));
    matches!((block, cur.start), (Some(b), Some(start)) if (b.row, b.col) == start)
}

/// Path clearing (a documented addition to design §12.1): once the quorum is aligned on the
/// target's left face, a surplus agent standing right in front of the block (where
/// `move_to_block` finds no free face or queue cell and so stays) steps out of the block's
/// rows; otherwise it blocks the push for good (`blocked_destination`).
fn clear_path_step(env: &CubeEnv, agent: usize, block: u32) -> Option<SymbolicCall> {
    let plan = env.executor().agents.get(agent)?;
    if plan
        .current
        .as_ref()
        .is_some_and(|c| c.call.action == "move")
    {
        return None;
    }
    let world = env.world();
    let b = *world.block(block)?;
    let pos = world.agents[agent];
    let w = b.side();
    if pos.1 != b.col + w || pos.0 < b.row || pos.0 >= b.row + w {
        return None;
    }
    if world
        .count_aligned_agents(block, crate::geometry::Face::Left)
        .ok()?
        < w as usize
    {
        return None;
    }
    let up = pos.0 - b.row + 1;
    let down = b.row + w - pos.0;
    let (dir, steps) = if (up <= down && b.row >= 1) || b.row + w >= world.k {
        ("up", up)
    } else {
        ("down", down)
    };
    Some(SymbolicCall::new(
        "move",
        [
            ("direction", Value::from(dir)),
            ("steps", Value::from(steps)),
        ],
    ))
}

/// Face compaction (a documented addition to design §12.1): an agent waiting in the rendezvous
/// on a face cell of the target's left face steps one cell toward the middle of the face when
/// that cell is free. Without it, agents that reach the corner face cells first can seal the
/// only access to the free face cells (a block next to the wall leaves a one-cell corridor)
/// and the quorum is never reached.
fn compaction_step(env: &CubeEnv, agent: usize, block: u32) -> Option<SymbolicCall> {
    let plan = env.executor().agents.get(agent)?;
    let waiting = plan.current.as_ref()?;
    if waiting.call.action != "rendezvous" || waiting.ticks == 0 {
        return None;
    }
    let world = env.world();
    let b = world.block(block)?;
    let pos = world.agents[agent];
    if pos.1 != b.col - 1 || pos.0 < b.row || pos.0 >= b.row + b.side() {
        return None;
    }
    let j = pos.0 - b.row;
    let centre = (b.side() - 1) / 2;
    let (dir, next) = if j < centre {
        ("down", (pos.0 + 1, pos.1))
    } else if j > centre {
        ("up", (pos.0 - 1, pos.1))
    } else {
        return None;
    };
    if !world.in_bounds(next) || world.at(next) != crate::world::Occupant::Empty {
        return None;
    }
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
