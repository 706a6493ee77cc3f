//! Distance fields the rule-based policies share (docs/design/swarmbench.md appendix L.1: BFS,
//! potential fields, role assignment): multi-source BFS over a passability test, lookups, and
//! the optimal assignment of agents to cells.

use std::collections::VecDeque;

use crate::lap::Lap;
use crate::physics::Dir;
use crate::world::{Cell, MeshKind, World};

pub(super) const FAR: i32 = i32::MAX;

/// Multi-source BFS distances over cells accepted by `passable`.
pub(super) fn field(world: &World, goals: &[Cell], passable: impl Fn(Cell) -> bool) -> Vec<i32> {
    let (h, w) = (world.height, world.width);
    let mut d = vec![FAR; (h * w) as usize];
    let mut q = VecDeque::new();
    for &g in goals {
        if world.on_map(g) && d[(g.0 * w + g.1) as usize] == FAR {
            d[(g.0 * w + g.1) as usize] = 0;
            q.push_back(g);
        }
    }
    while let Some(c) = q.pop_front() {
        let dc = d[(c.0 * w + c.1) as usize];
        for dir in Dir::PASSES {
            let (di, dj) = dir.delta();
            let n = (c.0 + di, c.1 + dj);
            if world.on_map(n) && passable(n) && d[(n.0 * w + n.1) as usize] == FAR {
                d[(n.0 * w + n.1) as usize] = dc + 1;
                q.push_back(n);
            }
        }
    }
    d
}

pub(super) fn at(world: &World, d: &[i32], c: Cell) -> i32 {
    if world.on_map(c) {
        d[(c.0 * world.width + c.1) as usize]
    } else {
        FAR
    }
}

/// Cells agents may walk through: empty or holding an agent.
pub(super) fn walkable(world: &World) -> impl Fn(Cell) -> bool + '_ {
    move |c| {
        world.symbol(c) == '.'
            || world
                .occupant(c)
                .is_some_and(|k| world.meshes[k].kind == MeshKind::Agent)
    }
}

/// Optimal assignment rows → columns; returns, per column, its row (if any).
pub(super) fn assign(cost: &[i64], rows: usize, cols: usize) -> Vec<Option<usize>> {
    let mut lap = Lap::default();
    let mut out = vec![None; cols];
    if rows == 0 || rows > cols || lap.solve(cost, rows, cols, i64::MAX).is_none() {
        return out;
    }
    for (j, r) in lap.row_of_column().iter().enumerate() {
        out[j] = *r;
    }
    out
}

/// BFS distances (for the Transport rules).
pub(super) fn bfs_field(world: &World, goals: &[Cell]) -> Vec<i32> {
    field(world, goals, walkable(world))
}

/// BFS distances through empty cells only (walking around other agents).
pub(super) fn bfs_field_strict(world: &World, goals: &[Cell]) -> Vec<i32> {
    field(world, goals, |c| world.symbol(c) == '.')
}

/// Distance lookup (for the Transport rules).
pub(super) fn field_at(world: &World, d: &[i32], c: Cell) -> i32 {
    at(world, d, c)
}
