//! Seed-compatible initial layouts of the five tasks (docs/design/swarmbench.md §7, §9): the wall
//! frame, the task objects and the agent spread, drawing from the task RNG in the reference's
//! order.

use std::collections::BTreeSet;

use crate::config::{Config, Task};
use crate::rng::TaskRng;
use crate::world::{Cell, Mesh, MeshKind, World};

/// Mass of the Transport box (fixed, Q30).
pub const BOX_MASS: i64 = 5;

/// The task-specific state a layout starts with.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The map with every object.
    pub world: World,
    /// Mesh index of each agent, in agent index order.
    pub agents: Vec<usize>,
    /// Mesh index of the prey (Pursuit) or the box (Transport).
    pub special: Option<usize>,
    /// Initial lights (Synchronization).
    pub lights: Vec<bool>,
}

/// The agent name `Agent_i`.
pub fn agent_name(i: usize) -> String {
    format!("Agent_{i}")
}

fn frame_cells(h: i32, w: i32) -> BTreeSet<Cell> {
    let mut s = BTreeSet::new();
    for j in 0..w {
        s.insert((0, j));
        s.insert((h - 1, j));
    }
    for i in 0..h {
        s.insert((i, 0));
        s.insert((i, w - 1));
    }
    s
}

fn wall_mesh(cells: &BTreeSet<Cell>, nest: &[Cell]) -> Mesh {
    let mut m = Mesh::from_rows("wall", MeshKind::Wall, (0, 0), &[], true);
    m.cells = cells
        .iter()
        .map(|&(i, j)| (i, j, if nest.contains(&(i, j)) { 'N' } else { 'W' }))
        .collect();
    m
}

/// Places the agents one by one (design §7 Spread): column, then row, redrawn until empty.
fn spread(
    world: &mut World,
    rng: &mut TaskRng,
    n: usize,
    cols: (i32, i32),
    rows: (i32, i32),
    symbol: char,
) -> Vec<usize> {
    (0..n)
        .map(|i| {
            let cell = loop {
                let col = rng.randint(cols.0, cols.1);
                let row = rng.randint(rows.0, rows.1);
                if world.is_empty((row, col)) {
                    break (row, col);
                }
            };
            world.add(Mesh::single(
                &agent_name(i),
                MeshKind::Agent,
                cell,
                symbol,
                false,
            ))
        })
        .collect()
}

/// Transport box variants: rows, anchor, gap cells (design §9.5 table).
fn box_variant(v: usize, h: i32, w: i32) -> (&'static [&'static str], Cell, Vec<Cell>) {
    let row_gap = |i: i32, j0: i32| (j0..j0 + 4).map(|j| (i, j)).collect::<Vec<_>>();
    let col_gap = |i0: i32, j: i32| (i0..i0 + 4).map(|i| (i, j)).collect::<Vec<_>>();
    match v {
        0 => (
            &["BBB..", "BBB..", "BBB..", ".BBBB"],
            (h - 4, w - 5),
            row_gap(h - 1, w - 4),
        ),
        1 => (
            &["..BBB", "..BBB", "..BBB", "BBBB."],
            (h - 4, 0),
            row_gap(h - 1, 0),
        ),
        2 => (
            &["...B", "...B", "BBBB", "BBBB", "BBB."],
            (0, w - 4),
            col_gap(0, w - 1),
        ),
        3 => (
            &["BBB.", "BBBB", "BBBB", "...B", "...B"],
            (h - 5, w - 4),
            col_gap(h - 4, w - 1),
        ),
        4 => (
            &["B...", "B...", "BBBB", "BBBB", ".BBB"],
            (0, 0),
            col_gap(0, 0),
        ),
        5 => (
            &[".BBB", "BBBB", "BBBB", "B...", "B..."],
            (h - 5, 0),
            col_gap(h - 4, 0),
        ),
        6 => (&["BBBB.", "..BBB", "..BBB", "..BBB"], (0, 0), row_gap(0, 0)),
        _ => (
            &[".BBBB", "BBB..", "BBB..", "BBB.."],
            (0, w - 5),
            row_gap(0, w - 4),
        ),
    }
}

/// Builds the initial layout of `cfg` from the task RNG (design §9). The config must be valid.
pub fn generate(cfg: &Config, rng: &mut TaskRng) -> Layout {
    let (h, w, n) = (cfg.height, cfg.width, cfg.agents);
    let mut world = World::new(h, w);
    let mut special = None;
    let mut lights = Vec::new();
    let agents = match cfg.task {
        Task::Pursuit => {
            world.add(wall_mesh(&frame_cells(h, w), &[]));
            let pi = rng.randint(h / 2 + 1, h - 2);
            let pj = rng.randint(w / 2 + 1, w - 2);
            special = Some(world.add(Mesh::single("prey", MeshKind::Prey, (pi, pj), 'P', false)));
            // Column bound from the height, row bound from the width (Q7).
            spread(
                &mut world,
                rng,
                n,
                (1, (h / 2).max(5)),
                (1, (w / 2).max(5)),
                'A',
            )
        }
        Task::Synchronization => {
            world.add(wall_mesh(&frame_cells(h, w), &[]));
            lights = (0..n).map(|_| rng.randint(0, 1) == 1).collect();
            let agents = spread(&mut world, rng, n, (1, w - 2), (1, h - 2), 'A');
            for (k, &on) in agents.iter().zip(&lights) {
                world.set_symbol(*k, if on { 'A' } else { 'a' });
            }
            agents
        }
        Task::Foraging => {
            let food_i = rng.choice(&[1, h - 3]);
            let food_j = rng.choice(&[1, w - 3]);
            let mut nest_i = if food_i == 1 { h - 3 } else { 1 };
            let mut nest_j = if food_j == 1 { w - 3 } else { 1 };
            let mut cells = frame_cells(h, w);
            let (mut food_i, mut food_j) = (food_i, food_j);
            if rng.randint(0, 1) == 0 {
                let rows: Vec<i32> = (1..).map(|k| 4 * k).take_while(|&r| r < h - 4).collect();
                if rows.len() % 2 == 1 {
                    nest_j = 1;
                    food_j = 1;
                }
                for (k, &r) in rows.iter().enumerate() {
                    let (a, b) = if k % 2 == 0 {
                        (0, w - (w + 2) / 3)
                    } else {
                        (w / 3, w - 1)
                    };
                    cells.extend((a..=b).map(|j| (r, j)));
                }
            } else {
                let cols: Vec<i32> = (1..).map(|k| 4 * k).take_while(|&c| c < w - 4).collect();
                if cols.len() % 2 == 1 {
                    nest_i = 1;
                    food_i = 1;
                }
                for (k, &c) in cols.iter().enumerate() {
                    let (a, b) = if k % 2 == 0 {
                        (0, h - (h + 2) / 3)
                    } else {
                        (h / 3, h - 1)
                    };
                    cells.extend((a..=b).map(|i| (i, c)));
                }
            }
            let nest: Vec<Cell> = [(0, 0), (0, 1), (1, 0), (1, 1)]
                .iter()
                .map(|&(a, b)| (nest_i + a, nest_j + b))
                .collect();
            cells.extend(nest.iter().copied());
            world.add(wall_mesh(&cells, &nest));
            let mut food = Mesh::from_rows(
                "food",
                MeshKind::Food,
                (food_i, food_j),
                &["FF", "FF"],
                true,
            );
            food.mass = 2;
            world.add(food);
            spread(&mut world, rng, n, (1, w - 2), (1, h - 2), 'a')
        }
        Task::Flocking => {
            world.add(wall_mesh(&frame_cells(h, w), &[]));
            // The reference's Flocking RNG is always seeded 42 (Q1); the caller passes it.
            spread(&mut world, rng, n, (1, w - 2), (1, h - 2), 'A')
        }
        Task::Transport => {
            let v = rng.below(8) as usize;
            let (rows, anchor, gap) = box_variant(v, h, w);
            let mut cells = frame_cells(h, w);
            for g in &gap {
                cells.remove(g);
            }
            world.add(wall_mesh(&cells, &[]));
            let mut b = Mesh::from_rows("box", MeshKind::Block, anchor, rows, false);
            b.mass = BOX_MASS;
            special = Some(world.add(b));
            spread(&mut world, rng, n, (1, w - 2), (1, h - 2), 'A')
        }
    };
    Layout {
        world,
        agents,
        special,
        lights,
    }
}

/// The Flocking target: a `k × k` outline with `k = N/4 + 1` (solid for k ≤ 2), as cells
/// relative to its top-left corner (design §9.4).
pub fn flocking_target(n: usize) -> (i32, Vec<Cell>) {
    let k = (n / 4 + 1) as i32;
    let mut cells = Vec::new();
    for r in 0..k {
        for c in 0..k {
            if r == 0 || c == 0 || r == k - 1 || c == k - 1 {
                cells.push((r, c));
            }
        }
    }
    (k, cells)
}
