//! Observations (docs/design/cube.md §8): the symbolic observation with its text rendering for
//! prompts, and the 5-channel grid as a flat `Vec<f32>` and as an `ndarray` array.

use ndarray::Array3;
use serde::{Deserialize, Serialize};

use crate::executor::{AgentMode, Executor, HistoryEntry};
use crate::geometry::Cell;
use crate::world::{DeliveredBlock, World};

/// One agent in the symbolic observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Index.
    pub id: usize,
    /// `[row, col]`.
    pub pos: Cell,
    /// Barrier state.
    pub state: AgentMode,
}

/// One remaining block in the symbolic observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockInfo {
    /// Id.
    pub id: u32,
    /// Weight.
    pub weight: u32,
    /// Top-left `[row, col]`.
    pub pos: Cell,
    /// Side (= weight).
    pub size: u32,
    /// `RIGHT` pushes before delivery.
    pub distance_to_goal: i32,
}

/// The symbolic observation of one agent (design §8.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolicObservation {
    /// Steps taken.
    pub step: u32,
    /// Horizon.
    pub max_steps: u32,
    /// `K`.
    pub grid_size: i32,
    /// `K − 1`.
    pub goal_column: i32,
    /// `|A|`.
    pub num_agents: usize,
    /// The observing agent.
    pub self_id: usize,
    /// All agents.
    pub agents: Vec<AgentInfo>,
    /// Remaining blocks, ascending id.
    pub blocks: Vec<BlockInfo>,
    /// Delivered blocks.
    pub delivered: Vec<DeliveredBlock>,
    /// Team score.
    pub team_score: f64,
    /// History entries (all agents, or a filtered window for prompts).
    pub history: Vec<HistoryEntry>,
}

/// Which history entries an observation carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryWindow {
    /// Every entry of every agent (design §8.1).
    All,
    /// The observing agent's own entries of the last `steps` steps (the LLM prompt, §12.2).
    OwnRecent(u32),
}

/// Builds the symbolic observation of `self_id`.
pub fn symbolic_observation(
    world: &World,
    exec: &Executor,
    max_steps: u32,
    self_id: usize,
    window: HistoryWindow,
) -> SymbolicObservation {
    let history = match window {
        HistoryWindow::All => exec.history.clone(),
        HistoryWindow::OwnRecent(n) => exec
            .history
            .iter()
            .filter(|h| h.agent == self_id && h.step + n > world.t)
            .cloned()
            .collect(),
    };
    SymbolicObservation {
        step: world.t,
        max_steps,
        grid_size: world.k,
        goal_column: world.k - 1,
        num_agents: world.agents.len(),
        self_id,
        agents: world
            .agents
            .iter()
            .enumerate()
            .map(|(id, &pos)| AgentInfo {
                id,
                pos,
                state: exec.agents.get(id).map(|a| a.mode).unwrap_or_default(),
            })
            .collect(),
        blocks: world
            .blocks
            .iter()
            .map(|b| BlockInfo {
                id: b.id,
                weight: b.weight,
                pos: (b.row, b.col),
                size: b.weight,
                distance_to_goal: world.distance_to_goal(b),
            })
            .collect(),
        delivered: world.delivered.clone(),
        team_score: world.score,
        history,
    }
}

impl SymbolicObservation {
    /// The compact line format for prompts (design §8.1), with an optional ASCII map.
    pub fn to_text(&self, map: Option<&str>) -> String {
        let mut s = format!(
            "step {}/{}; grid {}x{}; goal zone = column {}; {} agents; you are agent_{}; team score {}\n",
            self.step,
            self.max_steps,
            self.grid_size,
            self.grid_size,
            self.goal_column,
            self.num_agents,
            self.self_id,
            self.team_score
        );
        s.push_str("agents:\n");
        for a in &self.agents {
            let state = match a.state {
                AgentMode::Normal => "normal",
                AgentMode::Rendezvous => "rendezvous",
                AgentMode::Wait => "wait",
            };
            s.push_str(&format!(
                "  agent_{} at ({},{}) [{}]\n",
                a.id, a.pos.0, a.pos.1, state
            ));
        }
        s.push_str("blocks:\n");
        for b in &self.blocks {
            s.push_str(&format!(
                "  block {}: weight {}, top-left ({},{}), cells rows {}-{} cols {}-{}, distance to goal {}\n",
                b.id,
                b.weight,
                b.pos.0,
                b.pos.1,
                b.pos.0,
                b.pos.0 + b.size as i32 - 1,
                b.pos.1,
                b.pos.1 + b.size as i32 - 1,
                b.distance_to_goal
            ));
        }
        if self.blocks.is_empty() {
            s.push_str("  (none left)\n");
        }
        if !self.delivered.is_empty() {
            s.push_str("delivered:\n");
            for d in &self.delivered {
                s.push_str(&format!(
                    "  block {} (weight {}) at step {}\n",
                    d.id, d.weight, d.step
                ));
            }
        }
        if !self.history.is_empty() {
            s.push_str("history:\n");
            for h in &self.history {
                let args: Vec<String> = h.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
                s.push_str(&format!(
                    "  step {} agent_{} #{} {}({}) {} primitive={} outcome={}\n",
                    h.step,
                    h.agent,
                    h.plan_index,
                    h.action,
                    args.join(", "),
                    h.status,
                    h.primitive.map_or("null", |p| p.name()),
                    h.outcome.as_deref().unwrap_or("null")
                ));
            }
        }
        if let Some(map) = map {
            s.push_str("map:\n");
            s.push_str(map);
        }
        s
    }
}

/// Number of channels of the grid observation.
pub const CHANNELS: usize = 5;

/// The `K × K × 5` grid observation, row-major `(row, col, channel)` (design §8.2).
pub fn grid_observation(world: &World) -> Vec<f32> {
    let k = world.k as usize;
    let mut v = vec![0.0f32; k * k * CHANNELS];
    grid_into(world, &mut v);
    v
}

/// Writes [`grid_observation`] into `v` (of length `K·K·5`), for callers that reuse a buffer
/// (the numeric spaces).
pub fn grid_into(world: &World, v: &mut [f32]) {
    let k = world.k as usize;
    v.fill(0.0);
    let at = |r: i32, c: i32, ch: usize| (r as usize * k + c as usize) * CHANNELS + ch;
    for r in 0..world.k {
        v[at(r, world.k - 1, 2)] = 1.0;
    }
    for (i, &(r, c)) in world.agents.iter().enumerate() {
        v[at(r, c, 0)] = 1.0;
        v[at(r, c, 3)] = i as f32 + 1.0;
    }
    for b in &world.blocks {
        for (r, c) in b.cells() {
            v[at(r, c, 1)] = b.weight as f32;
            v[at(r, c, 4)] = b.id as f32 + 1.0;
        }
    }
}

/// [`grid_observation`] as an `ndarray` of shape `(K, K, 5)`.
pub fn grid_array(world: &World) -> Array3<f32> {
    let k = world.k as usize;
    Array3::from_shape_vec((k, k, CHANNELS), grid_observation(world))
        .unwrap_or_else(|_| Array3::zeros((k, k, CHANNELS)))
}

/// Upper bound of the grid observation space: `max(10, w_max + 1, |A|, #blocks)` (design §8.2).
pub fn grid_bound(w_max: u32, agents: usize, blocks_at_reset: usize) -> f32 {
    [
        10.0,
        w_max as f32 + 1.0,
        agents as f32,
        blocks_at_reset as f32,
    ]
    .into_iter()
    .fold(0.0, f32::max)
}
