//! One primitive step of the world: push phase with agent lines and block chains, delivery,
//! movement phase with the occupancy snapshot and cell races (docs/design/cube.md §5–7).

use serde::{Deserialize, Serialize};

use crate::geometry::{add, sub, Cell, Prim};
use crate::world::{Block, DeliveredBlock, Occupant, World};

/// Why a push failed (design §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PushFailure {
    /// Force below the block's own weight.
    InsufficientForce,
    /// A destination cell of the chain is out of bounds or holds an agent.
    BlockedDestination,
    /// Force enough for the block but not for the whole chain.
    InsufficientForceForChain,
}

/// Why an agent's own move failed in the movement phase (design §5.2 step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveFailure {
    /// The target is outside the grid.
    Wall,
    /// The target is a block cell.
    Block,
    /// The target held an agent at the snapshot.
    Occupied,
    /// Another agent with a smaller index won the race for the cell.
    LostRace,
}

/// Something that happened in a step (design §5.3); informational only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CubeEvent {
    /// A chain of blocks advanced.
    Push {
        /// Root block.
        block: u32,
        /// Push direction.
        direction: Prim,
        /// Agents of the lines, front first per line.
        agents: Vec<usize>,
        /// Force at the root's contact face.
        force: u32,
        /// Total chain weight.
        required: u32,
        /// Block ids of the chain (ascending).
        chain: Vec<u32>,
    },
    /// A push with some force failed.
    PushFailed {
        /// Root block.
        block: u32,
        /// Push direction.
        direction: Prim,
        /// Agents of the lines.
        agents: Vec<usize>,
        /// Force.
        force: u32,
        /// Weight needed (the block's own, or the chain's).
        required: u32,
        /// Why.
        reason: PushFailure,
    },
    /// A block reached the goal column.
    Delivered {
        /// Block id.
        block: u32,
        /// Weight.
        weight: u32,
        /// `r_d · w`.
        value: f64,
        /// Step.
        step: u32,
    },
    /// An agent's move did not happen.
    MoveFailed {
        /// Agent.
        agent: usize,
        /// Cell it tried to enter.
        target: Cell,
        /// Why.
        reason: MoveFailure,
    },
    /// Several agents targeted the same free cell; the smallest index won.
    CellRace {
        /// Contested cell.
        cell: Cell,
        /// Contenders, ascending.
        contenders: Vec<usize>,
        /// Winner.
        winner: usize,
    },
}

impl CubeEvent {
    /// The stable snake_case kind (the failure reason for failed pushes, as the issue names).
    pub fn kind(&self) -> &'static str {
        match self {
            CubeEvent::Push { .. } => "push",
            CubeEvent::PushFailed { reason, .. } => match reason {
                PushFailure::InsufficientForce => "insufficient_force",
                PushFailure::BlockedDestination => "blocked_destination",
                PushFailure::InsufficientForceForChain => "insufficient_force_for_chain",
            },
            CubeEvent::Delivered { .. } => "delivered",
            CubeEvent::MoveFailed { reason, .. } => match reason {
                MoveFailure::Wall => "move_into_wall",
                MoveFailure::Block => "move_into_block",
                MoveFailure::Occupied => "move_into_agent",
                MoveFailure::LostRace => "lost_cell_race",
            },
            CubeEvent::CellRace { .. } => "cell_race",
        }
    }
}

/// Per-step reward parameters (design §6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewardParams {
    /// `r_s`.
    pub step_cost: f64,
    /// `r_d`.
    pub deliver_reward: f64,
}

/// Result of [`World::apply`].
#[derive(Debug, Clone, PartialEq)]
pub struct PhysicsOutcome {
    /// Delivery value `D` of the step.
    pub delivered_value: f64,
    /// The shared reward `−r_s + D/|A|`.
    pub reward: f64,
    /// No block remains.
    pub terminated: bool,
}

/// Scratch buffers reused across steps (not part of the state).
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    claim: Vec<u32>,
    touched: Vec<usize>,
    moved: Vec<bool>,
}

impl World {
    /// Cells just outside the incoming face of `b` for push direction `d`, in bounds, ordered
    /// by row (horizontal) or column (vertical) (design §5.1).
    pub fn contact_cells(&self, b: &Block, d: Prim) -> Vec<Cell> {
        let w = b.side();
        let (r, c) = (b.row, b.col);
        let delta = d.delta();
        (0..w)
            .map(|k| match d {
                Prim::Right => (r + k, c),
                Prim::Left => (r + k, c + w - 1),
                Prim::Down => (r, c + k),
                _ => (r + w - 1, c + k),
            })
            .map(|x| sub(x, delta))
            .filter(|&x| self.in_bounds(x))
            .collect()
    }

    /// The agent line at contact cell `x` for direction `d` (design §5.1), front first.
    pub fn line_at(&self, x: Cell, d: Prim, actions: &[Prim], out: &mut Vec<usize>) {
        let delta = d.delta();
        let mut cell = x;
        while self.in_bounds(cell) {
            match self.at(cell) {
                Occupant::Agent(j) if actions.get(j).copied() == Some(d) => out.push(j),
                _ => break,
            }
            cell = sub(cell, delta);
        }
    }

    /// The block chain of `root` pushed in `d` (design §5.1), ascending ids, and whether it can
    /// move (every destination cell in bounds and free of agents).
    pub fn chain(&self, root: u32, d: Prim) -> (Vec<u32>, bool) {
        let delta = d.delta();
        let mut chain = vec![root];
        let mut i = 0;
        let mut can_move = true;
        while i < chain.len() {
            let Some(b) = self.block(chain[i]).copied() else {
                i += 1;
                continue;
            };
            i += 1;
            for cell in b.cells() {
                let dest = add(cell, delta);
                if !self.in_bounds(dest) {
                    can_move = false;
                    continue;
                }
                match self.at(dest) {
                    Occupant::Agent(_) => can_move = false,
                    Occupant::Block(y) if !chain.contains(&y) => chain.push(y),
                    _ => {}
                }
            }
        }
        chain.sort_unstable();
        (chain, can_move)
    }

    /// Total weight of a set of blocks.
    pub fn chain_weight(&self, chain: &[u32]) -> u32 {
        chain
            .iter()
            .filter_map(|&id| self.block(id))
            .map(|b| b.weight)
            .sum()
    }

    /// Applies one step of primitives (already padded to one per agent), appending events.
    pub fn apply(
        &mut self,
        actions: &[Prim],
        rewards: RewardParams,
        scratch: &mut Scratch,
        events: &mut Vec<CubeEvent>,
    ) -> PhysicsOutcome {
        self.t += 1;
        let n = self.agents.len();
        scratch.moved.clear();
        scratch.moved.resize(n, false);
        let mut value = 0.0;
        if actions.iter().any(|&a| a != Prim::Stay) {
            for d in Prim::MOVES {
                if actions.contains(&d) {
                    value += self.push_pass(d, actions, rewards, scratch, events);
                }
            }
            self.movement_phase(actions, scratch, events);
        }
        PhysicsOutcome {
            delivered_value: value,
            reward: -rewards.step_cost + value / n as f64,
            terminated: self.blocks.is_empty(),
        }
    }

    fn push_pass(
        &mut self,
        d: Prim,
        actions: &[Prim],
        rewards: RewardParams,
        scratch: &mut Scratch,
        events: &mut Vec<CubeEvent>,
    ) -> f64 {
        // Only blocks with a `d`-pusher right in front of them can have force: an agent whose
        // next cell is a block cell stands at that block's contact face. Pushes in this pass
        // cannot give force to another block (line agents step into cells of the block they
        // pushed), so scanning these candidates in ascending id order equals scanning all.
        let mut ids: Vec<u32> = Vec::new();
        for (i, &pos) in self.agents.iter().enumerate() {
            if actions.get(i) == Some(&d) {
                if let Occupant::Block(id) = self.at(add(pos, d.delta())) {
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut moved_d: Vec<u32> = Vec::new();
        let mut value = 0.0;
        let mut lines: Vec<Vec<usize>> = Vec::new();
        for id in ids {
            if moved_d.contains(&id) {
                continue;
            }
            let Some(b) = self.block(id).copied() else {
                continue;
            };
            lines.clear();
            for x in self.contact_cells(&b, d) {
                let mut line = Vec::new();
                self.line_at(x, d, actions, &mut line);
                if !line.is_empty() {
                    lines.push(line);
                }
            }
            let force: u32 = lines.iter().map(|l| l.len() as u32).sum();
            if force == 0 {
                continue;
            }
            let pushers = || lines.iter().flatten().copied().collect::<Vec<usize>>();
            if force < b.weight {
                events.push(CubeEvent::PushFailed {
                    block: id,
                    direction: d,
                    agents: pushers(),
                    force,
                    required: b.weight,
                    reason: PushFailure::InsufficientForce,
                });
                continue;
            }
            let (chain, can_move) = self.chain(id, d);
            let required = self.chain_weight(&chain);
            if !can_move || force < required {
                let reason = if can_move {
                    PushFailure::InsufficientForceForChain
                } else {
                    PushFailure::BlockedDestination
                };
                events.push(CubeEvent::PushFailed {
                    block: id,
                    direction: d,
                    agents: pushers(),
                    force,
                    required,
                    reason,
                });
                continue;
            }
            self.shift_blocks(&chain, d);
            moved_d.extend_from_slice(&chain);
            let delta = d.delta();
            for line in &lines {
                for &j in line {
                    let to = add(self.agents[j], delta);
                    self.move_agent(j, to);
                    scratch.moved[j] = true;
                }
            }
            events.push(CubeEvent::Push {
                block: id,
                direction: d,
                agents: pushers(),
                force,
                required,
                chain: chain.clone(),
            });
            value += self.deliver(&chain, rewards, events);
        }
        value
    }

    fn shift_blocks(&mut self, chain: &[u32], d: Prim) {
        let delta = d.delta();
        for &id in chain {
            if let Some(b) = self.block(id).copied() {
                for cell in b.cells() {
                    self.set(cell, Occupant::Empty);
                }
            }
        }
        for &id in chain {
            if let Ok(i) = self.blocks.binary_search_by_key(&id, |b| b.id) {
                let b = &mut self.blocks[i];
                b.row += delta.0;
                b.col += delta.1;
                let b = *b;
                for cell in b.cells() {
                    self.set(cell, Occupant::Block(id));
                }
            }
        }
    }

    fn deliver(
        &mut self,
        chain: &[u32],
        rewards: RewardParams,
        events: &mut Vec<CubeEvent>,
    ) -> f64 {
        let mut value = 0.0;
        for &id in chain {
            let Ok(i) = self.blocks.binary_search_by_key(&id, |b| b.id) else {
                continue;
            };
            let b = self.blocks[i];
            if b.col + b.side() - 1 < self.k - 1 {
                continue;
            }
            for cell in b.cells() {
                self.set(cell, Occupant::Empty);
            }
            self.blocks.remove(i);
            let v = rewards.deliver_reward * f64::from(b.weight);
            value += v;
            self.score += v;
            self.delivered.push(DeliveredBlock {
                id,
                weight: b.weight,
                step: self.t,
            });
            events.push(CubeEvent::Delivered {
                block: id,
                weight: b.weight,
                value: v,
                step: self.t,
            });
        }
        value
    }

    fn movement_phase(
        &mut self,
        actions: &[Prim],
        scratch: &mut Scratch,
        events: &mut Vec<CubeEvent>,
    ) {
        let cells = (self.k as usize) * (self.k as usize);
        if scratch.claim.len() != cells {
            scratch.claim = vec![u32::MAX; cells];
        }
        scratch.touched.clear();
        let mut losers: Vec<(usize, usize)> = Vec::new();
        for i in 0..self.agents.len() {
            let a = actions.get(i).copied().unwrap_or(Prim::Stay);
            if a == Prim::Stay || scratch.moved[i] {
                continue;
            }
            let target = add(self.agents[i], a.delta());
            let reason = if !self.in_bounds(target) {
                Some(MoveFailure::Wall)
            } else {
                match self.at(target) {
                    Occupant::Block(_) => Some(MoveFailure::Block),
                    Occupant::Agent(_) => Some(MoveFailure::Occupied),
                    Occupant::Empty => None,
                }
            };
            if let Some(reason) = reason {
                events.push(CubeEvent::MoveFailed {
                    agent: i,
                    target,
                    reason,
                });
                continue;
            }
            let idx = (target.0 as usize) * (self.k as usize) + target.1 as usize;
            if scratch.claim[idx] == u32::MAX {
                scratch.claim[idx] = i as u32;
                scratch.touched.push(idx);
            } else {
                losers.push((idx, i));
            }
        }
        // Every claimed cell was empty at the snapshot and claims are distinct, so applying
        // the winners one by one equals applying them simultaneously.
        for &idx in &scratch.touched {
            let i = scratch.claim[idx] as usize;
            let target = (
                (idx / self.k as usize) as i32,
                (idx % self.k as usize) as i32,
            );
            self.move_agent(i, target);
        }
        for (idx, i) in &losers {
            let target = (
                (idx / self.k as usize) as i32,
                (idx % self.k as usize) as i32,
            );
            events.push(CubeEvent::MoveFailed {
                agent: *i,
                target,
                reason: MoveFailure::LostRace,
            });
        }
        if !losers.is_empty() {
            let mut cells: Vec<usize> = losers.iter().map(|l| l.0).collect();
            cells.sort_unstable();
            cells.dedup();
            for idx in cells {
                let winner = scratch.claim[idx] as usize;
                let mut contenders: Vec<usize> =
                    losers.iter().filter(|l| l.0 == idx).map(|l| l.1).collect();
                contenders.push(winner);
                contenders.sort_unstable();
                events.push(CubeEvent::CellRace {
                    cell: (
                        (idx / self.k as usize) as i32,
                        (idx % self.k as usize) as i32,
                    ),
                    contenders,
                    winner,
                });
            }
        }
        for &idx in &scratch.touched {
            scratch.claim[idx] = u32::MAX;
        }
    }
}
