//! Built-in non-LLM policies for `colony env run swarmbench` (besides `random` and `noop`),
//! in the spirit of the paper's rule-based baselines (appendix L.1: BFS, potential fields,
//! role assignment) and human strategies (Table S.3).
//!
//! They read the whole state (centralised, like a human player looking at the map), so they
//! show what a correct strategy reaches rather than what local perception allows:
//! - `pursuit`: role assignment of the agents nearest (BFS) to the prey's four sides; the others
//!   close in on the prey.
//! - `sync`: every agent whose light differs from the next unanimous state switches (the
//!   outcome of the human "gather and vote" strategy, without the gathering).
//! - `forage`: BFS potential fields to the food, then to the nest.
//! - `flock`: the optimal translation and assignment of the Flocking distance, each agent
//!   walking to its assigned cell, re-assigned every round.
//! - `transport`: plans the box's path out by BFS over box positions, fills the push slots
//!   behind it (two-deep lines), pushes when five agents are in place, then walks out.
//! - `heuristic`: the policy of the configured task.
//!
//! Layout: this file holds the policy and the rules of four tasks; `transport.rs` the
//! Transport rules; `field.rs` the BFS distance fields and the assignment both use, so the
//! task files depend on it and not on each other.

use std::collections::{BTreeMap, BTreeSet};

use colony_env_api::rng::splitmix64;
use colony_env_api::{typed_policy, AgentId, DynPolicy, Policy};

use crate::config::Task;
use crate::env::{SwarmEnv, TaskState};
use crate::physics::Dir;
use crate::reply::{Move, Reply};
use crate::world::{Cell, World};

use field::{assign, at, field, walkable};

mod field;
mod transport;

/// Names of the crate's own policies.
pub const NAMES: &[&str] = &[
    "heuristic",
    "pursuit",
    "sync",
    "forage",
    "flock",
    "transport",
];

/// Builds policy `name`.
pub fn make(name: &str, seed: u64) -> Option<Box<dyn DynPolicy>> {
    let task = match name {
        "heuristic" => None,
        "pursuit" => Some(Task::Pursuit),
        "sync" => Some(Task::Synchronization),
        "forage" => Some(Task::Foraging),
        "flock" => Some(Task::Flocking),
        "transport" => Some(Task::Transport),
        _ => return None,
    };
    Some(typed_policy(Heuristic {
        task,
        rng: seed ^ 0x6865_7572,
        roles: Vec::new(),
    }))
}

/// The rule-based policy of one task (or of the configured task when `task` is `None`).
#[derive(Debug, Clone)]
pub struct Heuristic {
    /// Task the rules are written for; `None` = the environment's task.
    pub task: Option<Task>,
    /// SplitMix64 state for tie-breaking.
    pub rng: u64,
    /// Transport: last round's (push slot, agent) roles.
    pub roles: Vec<(Cell, usize)>,
}

impl Heuristic {
    fn draw(&mut self) -> u64 {
        splitmix64(&mut self.rng)
    }

    /// A downhill step on `d` from `pos` (random tie-break), or None.
    fn downhill(&mut self, world: &World, d: &[i32], pos: Cell) -> Option<Dir> {
        let here = at(world, d, pos);
        let mut best: Vec<(i32, Dir)> = Dir::PASSES
            .iter()
            .map(|&dir| {
                let (di, dj) = dir.delta();
                (at(world, d, (pos.0 + di, pos.1 + dj)), dir)
            })
            .filter(|&(v, _)| v < here)
            .collect();
        best.sort_by_key(|&(v, _)| v);
        let low = best.first()?.0;
        best.retain(|&(v, _)| v == low);
        let pick = (self.draw() % best.len() as u64) as usize;
        Some(best[pick].1)
    }

    fn go(dir: Option<Dir>) -> Reply {
        Reply {
            action: Some(dir.map_or(Move::Stay, Move::Go)),
            message: String::new(),
        }
    }

    fn pursuit(&mut self, env: &SwarmEnv) -> Vec<Reply> {
        let world = env.world();
        let n = env.num_agents();
        let Some(prey) = env.special_mesh().filter(|&k| world.meshes[k].present) else {
            return vec![Self::go(None); n];
        };
        let p = world.meshes[prey].pos;
        let sides: Vec<Cell> = [(-1, 0), (1, 0), (0, -1), (0, 1)]
            .iter()
            .map(|&(a, b)| (p.0 + a, p.1 + b))
            .filter(|&c| world.on_map(c) && world.symbol(c) != 'W')
            .collect();
        let fields: Vec<Vec<i32>> = sides
            .iter()
            .map(|&s| field(world, &[s], walkable(world)))
            .collect();
        let near = field(world, &sides, walkable(world));
        let mut role: Vec<Option<usize>> = vec![None; n];
        let mut taken = BTreeSet::new();
        for (s, f) in fields.iter().enumerate() {
            let best = (0..n)
                .filter(|i| !taken.contains(i))
                .min_by_key(|&i| (at(world, f, env.agent_pos(i)), i));
            if let Some(i) = best {
                taken.insert(i);
                role[i] = Some(s);
            }
        }
        (0..n)
            .map(|i| {
                let pos = env.agent_pos(i);
                let f = role[i].map_or(&near, |s| &fields[s]);
                let dir = self.downhill(world, f, pos);
                Self::go(dir)
            })
            .collect()
    }

    fn sync(env: &SwarmEnv) -> Vec<Reply> {
        let TaskState::Synchronization { lights, prev } = env.task_state() else {
            return vec![Self::go(None); env.num_agents()];
        };
        let on = lights.iter().filter(|&&l| l).count();
        let want_on = match *prev {
            0 => true,
            p if p > 0 => false,
            _ => on * 2 >= lights.len(),
        };
        lights
            .iter()
            .map(|&l| Reply {
                action: Some(if l == want_on {
                    Move::Stay
                } else {
                    Move::Switch
                }),
                message: String::new(),
            })
            .collect()
    }

    fn forage(&mut self, env: &SwarmEnv) -> Vec<Reply> {
        let world = env.world();
        let TaskState::Foraging { carrying } = env.task_state() else {
            return vec![Self::go(None); env.num_agents()];
        };
        let next_to = |sym: char| -> Vec<Cell> {
            let mut v = Vec::new();
            for i in 0..world.height {
                for j in 0..world.width {
                    if world.symbol((i, j)) == sym {
                        for dir in Dir::PASSES {
                            let (a, b) = dir.delta();
                            v.push((i + a, j + b));
                        }
                    }
                }
            }
            v.retain(|&c| walkable(world)(c));
            v
        };
        let food = field(world, &next_to('F'), walkable(world));
        let nest = field(world, &next_to('N'), walkable(world));
        (0..env.num_agents())
            .map(|i| {
                let f = if carrying[i] { &nest } else { &food };
                let dir = self.downhill(world, f, env.agent_pos(i));
                Self::go(dir)
            })
            .collect()
    }

    fn flock(&mut self, env: &SwarmEnv) -> Vec<Reply> {
        let world = env.world();
        let n = env.num_agents();
        let target = env.flocking_target();
        let agents: Vec<Cell> = (0..n).map(|i| env.agent_pos(i)).collect();
        if target.is_empty() {
            return vec![Self::go(None); n];
        }
        let (_, shift) = crate::flocking::distance(&agents, target);
        let k = target.iter().map(|t| t.0.max(t.1)).max().unwrap_or(0);
        // Keep the shape inside the walls so it can actually be formed.
        let shift = (
            shift.0.clamp(1, (world.height - 2 - k).max(1)),
            shift.1.clamp(1, (world.width - 2 - k).max(1)),
        );
        let cells: Vec<Cell> = target
            .iter()
            .map(|t| (t.0 + shift.0, t.1 + shift.1))
            .collect();
        let m = cells.len();
        let cost: Vec<i64> = cells
            .iter()
            .flat_map(|c| {
                agents
                    .iter()
                    .map(move |p| i64::from((p.0 - c.0).abs() + (p.1 - c.1).abs()))
            })
            .collect();
        let assignment = assign(&cost, m, n);
        (0..n)
            .map(|i| match assignment[i] {
                Some(t) => {
                    let f = field(world, &[cells[t]], walkable(world));
                    let dir = self.downhill(world, &f, agents[i]);
                    Self::go(dir)
                }
                None => Self::go(None),
            })
            .collect()
    }
}

impl Policy<SwarmEnv> for Heuristic {
    fn act(&mut self, env: &SwarmEnv) -> BTreeMap<AgentId, Reply> {
        let task = self.task.unwrap_or(env.config().task);
        if task != env.config().task {
            return BTreeMap::new();
        }
        let replies = match task {
            Task::Pursuit => self.pursuit(env),
            Task::Synchronization => Self::sync(env),
            Task::Foraging => self.forage(env),
            Task::Flocking => self.flock(env),
            Task::Transport => transport::act(self, env),
        };
        replies
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !env.is_escaped(*i))
            .map(|(i, r)| (format!("Agent_{i}"), r))
            .collect()
    }
}

impl Heuristic {
    /// Downhill step on a field (for the Transport rules).
    pub(crate) fn step_on(&mut self, world: &World, d: &[i32], pos: Cell) -> Reply {
        let dir = self.downhill(world, d, pos);
        Self::go(dir)
    }

    /// A reply moving `dir` (or staying).
    pub(crate) fn reply(dir: Option<Dir>) -> Reply {
        Self::go(dir)
    }
}
