//! The symbolic concepts of the paper's Table 2 and their helpers (docs/design/cube.md §10): pure,
//! read-only queries on the world that users combine into feedback, and that the symbolic actions
//! use.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::geometry::{add, Cell, Face, Prim};
use crate::world::{Block, Occupant, World};

/// Invalid arguments of a concept query (design §10).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConceptError {
    /// No agent with that index.
    #[error("unknown agent {0}")]
    UnknownAgent(usize),
    /// No block with that id was ever in the episode.
    #[error("unknown block {0}")]
    UnknownBlock(u32),
    /// The block was delivered; only `delivered` and `block_progress` answer.
    #[error("block_gone: block {0} was delivered")]
    BlockGone(u32),
    /// A cell outside the grid.
    #[error("cell {0:?} is outside the grid")]
    CellOutside(Cell),
}

/// Something `get_distance` measures between (design §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Entity {
    /// An agent by index.
    Agent(usize),
    /// A block by id.
    Block(u32),
    /// A cell.
    Cell(Cell),
}

impl World {
    fn live_block(&self, id: u32) -> Result<Block, ConceptError> {
        if let Some(b) = self.block(id) {
            return Ok(*b);
        }
        if self.delivered.iter().any(|d| d.id == id) {
            Err(ConceptError::BlockGone(id))
        } else {
            Err(ConceptError::UnknownBlock(id))
        }
    }

    fn agent_pos(&self, agent: usize) -> Result<Cell, ConceptError> {
        self.agents
            .get(agent)
            .copied()
            .ok_or(ConceptError::UnknownAgent(agent))
    }

    /// All cells just outside `face`, in bounds or not, in face order (left/right by row,
    /// top/bottom by column).
    fn raw_face_cells(b: &Block, face: Face) -> impl Iterator<Item = Cell> + '_ {
        let (r, c, w) = (b.row, b.col, b.side());
        (0..w).map(move |k| match face {
            Face::Left => (r + k, c - 1),
            Face::Right => (r + k, c + w),
            Face::Top => (r - 1, c + k),
            Face::Bottom => (r + w, c + k),
        })
    }

    /// `face_cells(block, face)`: cells just outside the face, in bounds and not block cells
    /// (agents may stand on them).
    pub fn face_cells(&self, block: u32, face: Face) -> Result<Vec<Cell>, ConceptError> {
        let b = self.live_block(block)?;
        Ok(Self::raw_face_cells(&b, face)
            .filter(|&x| self.in_bounds(x) && !self.is_block(x))
            .collect())
    }

    /// Whether position `p` is aligned with `face` of `b`: on a face cell, or on its outward
    /// line behind an unbroken line of agents starting at the face cell.
    pub(crate) fn pos_aligned(&self, p: Cell, b: &Block, face: Face) -> bool {
        let n = face.outward_normal().delta();
        for x in Self::raw_face_cells(b, face) {
            if !self.in_bounds(x) || self.is_block(x) {
                continue;
            }
            // p = x + m·n with m ≥ 0?
            let (dr, dc) = (p.0 - x.0, p.1 - x.1);
            let m = if n.0 != 0 {
                if dc != 0 || dr * n.0 < 0 {
                    continue;
                }
                dr * n.0
            } else {
                if dr != 0 || dc * n.1 < 0 {
                    continue;
                }
                dc * n.1
            };
            if m == 0 {
                return true;
            }
            return (0..m).all(|j| self.is_agent((x.0 + j * n.0, x.1 + j * n.1)));
        }
        false
    }

    /// `is_aligned_with_block(agent, block, face)` (design §10; no line-length cap).
    pub fn is_aligned_with_block(
        &self,
        agent: usize,
        block: u32,
        face: Face,
    ) -> Result<bool, ConceptError> {
        let p = self.agent_pos(agent)?;
        let b = self.live_block(block)?;
        Ok(self.pos_aligned(p, &b, face))
    }

    /// `count_aligned_agents(block, face)`.
    pub fn count_aligned_agents(&self, block: u32, face: Face) -> Result<usize, ConceptError> {
        let b = self.live_block(block)?;
        Ok(self
            .agents
            .iter()
            .filter(|&&p| self.pos_aligned(p, &b, face))
            .count())
    }

    /// `all_aligned_positions(block, face)`: face cells and their outward lines up to the first
    /// block cell or wall, sorted by Manhattan distance to the block's centre cell, row, column.
    pub fn all_aligned_positions(&self, block: u32, face: Face) -> Result<Vec<Cell>, ConceptError> {
        let b = self.live_block(block)?;
        let n = face.outward_normal().delta();
        let mut out = Vec::new();
        for x in self.face_cells(block, face)? {
            let mut cell = x;
            while self.in_bounds(cell) && !self.is_block(cell) {
                out.push(cell);
                cell = add(cell, n);
            }
        }
        let centre = (b.row + b.side() / 2, b.col + b.side() / 2);
        out.sort_by_key(|&(r, c)| ((r - centre.0).abs() + (c - centre.1).abs(), r, c));
        Ok(out)
    }

    /// `block_progress(block)`: distance to the goal; 0 for a delivered block.
    pub fn block_progress(&self, block: u32) -> Result<i32, ConceptError> {
        match self.live_block(block) {
            Ok(b) => Ok(self.distance_to_goal(&b)),
            Err(ConceptError::BlockGone(_)) => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// `delivered(block)`.
    pub fn is_delivered(&self, block: u32) -> Result<bool, ConceptError> {
        match self.live_block(block) {
            Ok(_) => Ok(false),
            Err(ConceptError::BlockGone(_)) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// `quorum_status(block, face)`: enough aligned agents to push the block alone.
    pub fn quorum_status(&self, block: u32, face: Face) -> Result<bool, ConceptError> {
        Ok(self.quorum_deficit(block, face)? == 0)
    }

    /// `quorum_deficit(block, face)`: `max(0, w − aligned)`.
    pub fn quorum_deficit(&self, block: u32, face: Face) -> Result<usize, ConceptError> {
        let w = self.live_block(block)?.weight as usize;
        Ok(w.saturating_sub(self.count_aligned_agents(block, face)?))
    }

    /// `blocked(block, face)`: every cell just outside the face is a wall, a block or an agent.
    pub fn blocked(&self, block: u32, face: Face) -> Result<bool, ConceptError> {
        let b = self.live_block(block)?;
        let blocked = Self::raw_face_cells(&b, face)
            .all(|x| !self.in_bounds(x) || self.at(x) != Occupant::Empty);
        Ok(blocked)
    }

    /// `get_distance(e1, e2)`: Manhattan distance between footprints, 0 if they overlap.
    pub fn get_distance(&self, e1: Entity, e2: Entity) -> Result<i32, ConceptError> {
        let (a, b) = (self.footprint(e1)?, self.footprint(e2)?);
        let dr = 0.max(b.0 - a.1).max(a.0 - b.1);
        let dc = 0.max(b.2 - a.3).max(a.2 - b.3);
        Ok(dr + dc)
    }

    /// `[r0, r1, c0, c1]` of an entity.
    fn footprint(&self, e: Entity) -> Result<(i32, i32, i32, i32), ConceptError> {
        match e {
            Entity::Agent(i) => {
                let p = self.agent_pos(i)?;
                Ok((p.0, p.0, p.1, p.1))
            }
            Entity::Block(id) => {
                let b = self.live_block(id)?;
                Ok((b.row, b.row + b.side() - 1, b.col, b.col + b.side() - 1))
            }
            Entity::Cell(c) if self.in_bounds(c) => Ok((c.0, c.0, c.1, c.1)),
            Entity::Cell(c) => Err(ConceptError::CellOutside(c)),
        }
    }

    /// `infer_push_direction(agent, block)`: push direction of the first aligned face.
    pub fn infer_push_direction(
        &self,
        agent: usize,
        block: u32,
    ) -> Result<Option<Prim>, ConceptError> {
        let p = self.agent_pos(agent)?;
        let b = self.live_block(block)?;
        Ok(Face::ALL
            .into_iter()
            .find(|&f| self.pos_aligned(p, &b, f))
            .map(Face::push_direction))
    }

    /// `chain_of(block, direction)`: the §5.1 closure (ascending ids).
    pub fn chain_of(&self, block: u32, direction: Prim) -> Result<Vec<u32>, ConceptError> {
        self.live_block(block)?;
        Ok(self.chain(block, direction).0)
    }

    /// `required_force(block, direction)`: total weight of the chain.
    pub fn required_force(&self, block: u32, direction: Prim) -> Result<u32, ConceptError> {
        let chain = self.chain_of(block, direction)?;
        Ok(self.chain_weight(&chain))
    }

    /// `shortest_path(from, goals, agents_block)`: deterministic BFS (design §9.2) over in-bounds
    /// non-block cells, neighbours UP, DOWN, LEFT, RIGHT; other agents are obstacles when
    /// `agents_block`. Returns the cells after `from` up to a goal (empty if `from` is one).
    pub fn shortest_path(
        &self,
        from: Cell,
        goals: &[Cell],
        agents_block: bool,
    ) -> Option<Vec<Cell>> {
        if !self.in_bounds(from) || goals.is_empty() {
            return None;
        }
        let k = self.k as usize;
        let idx = |c: Cell| c.0 as usize * k + c.1 as usize;
        let mut goal = vec![false; k * k];
        for &g in goals {
            if self.in_bounds(g) {
                goal[idx(g)] = true;
            }
        }
        let mut parent = vec![u32::MAX; k * k];
        let start = idx(from);
        parent[start] = start as u32;
        let mut queue = VecDeque::from([from]);
        while let Some(cell) = queue.pop_front() {
            if goal[idx(cell)] {
                let mut path = Vec::new();
                let mut cur = idx(cell);
                while cur != start {
                    path.push(((cur / k) as i32, (cur % k) as i32));
                    cur = parent[cur] as usize;
                }
                path.reverse();
                return Some(path);
            }
            for d in Prim::MOVES {
                let next = add(cell, d.delta());
                if !self.in_bounds(next) || parent[idx(next)] != u32::MAX {
                    continue;
                }
                let passable = match self.at(next) {
                    Occupant::Empty => true,
                    Occupant::Block(_) => false,
                    Occupant::Agent(_) => !agents_block,
                };
                if passable {
                    parent[idx(next)] = idx(cell) as u32;
                    queue.push_back(next);
                }
            }
        }
        None
    }
}
