//! The physical world: grid side, agents, blocks, deliveries and the occupancy grid
//! (docs/design/cube.md §3).
//!
//! The occupancy grid is derived data (rebuilt on load) that makes every cell query O(1),
//! which is what keeps a step at n = 256 in the microsecond range.

use serde::{Deserialize, Serialize};

use crate::geometry::Cell;
use crate::CubeError;

/// Largest grid side `K` (configurations, layouts and states).
// Decision: the largest side whose LLM episodes stay within 2 GB. The
// simulation alone handles 2000, but every agent's prompt carries the K x K grid: n = 500 with
// `independent` peaked at 0.5 GB, n = 1000 at 3.5 GB.
pub const MAX_GRID_SIZE: u32 = 500;

/// A block not yet delivered: a `weight × weight` square with top-left `(row, col)` (design §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Id (block 0 is the heaviest of a generated layout).
    pub id: u32,
    /// Weight = side length.
    pub weight: u32,
    /// Top row.
    pub row: i32,
    /// Left column.
    pub col: i32,
}

impl Block {
    /// Side length as a signed cell count.
    pub fn side(&self) -> i32 {
        self.weight as i32
    }
    /// Whether `cell` is one of the block's cells.
    pub fn contains(&self, cell: Cell) -> bool {
        let w = self.side();
        cell.0 >= self.row && cell.0 < self.row + w && cell.1 >= self.col && cell.1 < self.col + w
    }
    /// All cells, row-major.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        let w = self.side();
        (0..w).flat_map(move |dr| (0..w).map(move |dc| (self.row + dr, self.col + dc)))
    }
}

/// A delivered block (design §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveredBlock {
    /// Block id.
    pub id: u32,
    /// Its weight.
    pub weight: u32,
    /// Step at which it reached the goal column.
    pub step: u32,
}

/// What a cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// Floor.
    Empty,
    /// Agent index.
    Agent(usize),
    /// Block id.
    Block(u32),
}

const EMPTY: u32 = u32::MAX;
const BLOCK_FLAG: u32 = 1 << 31;

/// The physical state of one episode (design §3) with an occupancy index.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// Grid side `K`.
    pub k: i32,
    /// Steps taken.
    pub t: u32,
    /// Agent positions, by index.
    pub agents: Vec<Cell>,
    /// Blocks not yet delivered, sorted by id.
    pub blocks: Vec<Block>,
    /// Delivered blocks, in delivery order.
    pub delivered: Vec<DeliveredBlock>,
    /// Team score `Σ r_d · w` over delivered blocks.
    pub score: f64,
    grid: Vec<u32>,
}

impl World {
    /// Builds a world and validates it (design §2.1: in bounds, no overlaps, no block cell in the
    /// goal column, distinct agent cells and block ids, weights ≥ 1, at least one agent).
    pub fn new(k: i32, agents: Vec<Cell>, mut blocks: Vec<Block>) -> Result<World, CubeError> {
        if k < 1 {
            return Err(CubeError::invalid("grid_size", "must be at least 1"));
        }
        if k > MAX_GRID_SIZE as i32 {
            return Err(CubeError::invalid(
                "grid_size",
                &format!("{k} is above the maximum {}", MAX_GRID_SIZE),
            ));
        }
        if agents.is_empty() {
            return Err(CubeError::invalid(
                "agents",
                "at least one agent is required",
            ));
        }
        if agents.len() as i64 >= i64::from(BLOCK_FLAG) {
            return Err(CubeError::invalid("agents", "too many agents"));
        }
        blocks.sort_by_key(|b| b.id);
        let mut w = World {
            k,
            t: 0,
            agents,
            blocks,
            delivered: Vec::new(),
            score: 0.0,
            grid: vec![EMPTY; (k as usize) * (k as usize)],
        };
        w.rebuild()?;
        Ok(w)
    }

    /// Recomputes the occupancy grid from agents and blocks, validating them.
    pub fn rebuild(&mut self) -> Result<(), CubeError> {
        let k = self.k;
        self.grid = vec![EMPTY; (k as usize) * (k as usize)];
        for (i, b) in self.blocks.iter().enumerate() {
            let field = format!("blocks[{i}] (id {})", b.id);
            if b.weight < 1 {
                return Err(CubeError::invalid(&field, "weight must be at least 1"));
            }
            if i > 0 && self.blocks[i - 1].id == b.id {
                return Err(CubeError::invalid(&field, "duplicate block id"));
            }
            if b.id >= BLOCK_FLAG {
                return Err(CubeError::invalid(&field, "id too large"));
            }
            // Weight and corner are checked before any arithmetic on them (no overflow).
            if b.weight > k as u32 || b.row < 0 || b.col < 0 || b.row >= k || b.col >= k {
                return Err(CubeError::invalid(&field, "outside the grid"));
            }
            let w = b.side();
            if b.row + w > k || b.col + w > k {
                return Err(CubeError::invalid(&field, "outside the grid"));
            }
            if b.col + w > k - 1 {
                return Err(CubeError::invalid(&field, "touches the goal column"));
            }
            for cell in b.cells() {
                let idx = self.index(cell);
                if self.grid[idx] != EMPTY {
                    return Err(CubeError::invalid(
                        &field,
                        &format!("overlaps another block at {cell:?}"),
                    ));
                }
                self.grid[idx] = BLOCK_FLAG | b.id;
            }
        }
        for (i, &a) in self.agents.iter().enumerate() {
            let field = format!("agents[{i}]");
            if !self.in_bounds(a) {
                return Err(CubeError::invalid(&field, "outside the grid"));
            }
            let idx = self.index(a);
            match self.decode(self.grid[idx]) {
                Occupant::Empty => self.grid[idx] = i as u32,
                Occupant::Agent(j) => {
                    return Err(CubeError::invalid(
                        &field,
                        &format!("same cell as agent {j}"),
                    ))
                }
                Occupant::Block(b) => {
                    return Err(CubeError::invalid(&field, &format!("inside block {b}")))
                }
            }
        }
        Ok(())
    }

    fn decode(&self, v: u32) -> Occupant {
        if v == EMPTY {
            Occupant::Empty
        } else if v & BLOCK_FLAG != 0 {
            Occupant::Block(v & !BLOCK_FLAG)
        } else {
            Occupant::Agent(v as usize)
        }
    }

    fn index(&self, c: Cell) -> usize {
        (c.0 as usize) * (self.k as usize) + c.1 as usize
    }

    /// Whether `c` lies on the grid.
    pub fn in_bounds(&self, c: Cell) -> bool {
        c.0 >= 0 && c.1 >= 0 && c.0 < self.k && c.1 < self.k
    }

    /// What `c` holds (out-of-bounds cells read as empty; check [`World::in_bounds`] first).
    pub fn at(&self, c: Cell) -> Occupant {
        if !self.in_bounds(c) {
            return Occupant::Empty;
        }
        self.decode(self.grid[self.index(c)])
    }

    /// Whether `c` is a block cell.
    pub fn is_block(&self, c: Cell) -> bool {
        matches!(self.at(c), Occupant::Block(_))
    }

    /// Whether `c` holds an agent.
    pub fn is_agent(&self, c: Cell) -> bool {
        matches!(self.at(c), Occupant::Agent(_))
    }

    /// The goal column `K − 1`.
    pub fn goal_column(&self) -> i32 {
        self.k - 1
    }

    /// The remaining block with this id.
    pub fn block(&self, id: u32) -> Option<&Block> {
        self.blocks
            .binary_search_by_key(&id, |b| b.id)
            .ok()
            .map(|i| &self.blocks[i])
    }

    /// `(K−1) − (c + w − 1)`: the number of `RIGHT` pushes before delivery (design §8.1).
    pub fn distance_to_goal(&self, b: &Block) -> i32 {
        (self.k - 1) - (b.col + b.side() - 1)
    }

    pub(crate) fn set(&mut self, c: Cell, o: Occupant) {
        let idx = self.index(c);
        self.grid[idx] = match o {
            Occupant::Empty => EMPTY,
            Occupant::Agent(i) => i as u32,
            Occupant::Block(b) => BLOCK_FLAG | b,
        };
    }

    /// Moves agent `i` to `to` (which the caller checked is free).
    pub(crate) fn move_agent(&mut self, i: usize, to: Cell) {
        let from = self.agents[i];
        if self.at(from) == Occupant::Agent(i) {
            self.set(from, Occupant::Empty);
        }
        self.agents[i] = to;
        self.set(to, Occupant::Agent(i));
    }
}
