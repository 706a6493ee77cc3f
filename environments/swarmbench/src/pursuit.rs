//! Pursuit prey rules: danger, capture with respawn, and the two-step escape
//! (docs/design/swarmbench.md §9.1, quirks Q2–Q6, Q26, Q27).

use crate::rng::TaskRng;
use crate::world::{Cell, World};

/// Danger of a cell: agents plus 0.9 × walls in the asymmetric window rows/cols −4…+3,
/// clipped at the map (Q3), computed exactly as the reference's float `a + w*0.9` (Q5).
pub fn danger(world: &World, (i, j): Cell) -> f64 {
    let (mut a, mut w) = (0u32, 0u32);
    for r in (i - 4).max(0)..=(i + 3).min(world.height - 1) {
        for c in (j - 4).max(0)..=(j + 3).min(world.width - 1) {
            match world.symbol((r, c)) {
                'A' => a += 1,
                'W' => w += 1,
                _ => {}
            }
        }
    }
    f64::from(a) + f64::from(w) * 0.9
}

/// The escape order of both steps: RIGHT, LEFT, DOWN, UP.
const STEPS: [Cell; 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

/// What the prey did this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreyOutcome {
    /// Surrounded on four sides: captured; respawned at the cell (None if no free cell).
    Caught(Option<Cell>),
    /// Moved from one cell to another.
    Moved(Cell, Cell),
    /// Stayed.
    Stayed,
}

/// Runs the prey update for the prey object `prey` (design §9.1 task update).
pub fn update(world: &mut World, rng: &mut TaskRng, prey: usize) -> PreyOutcome {
    if !world.meshes[prey].present {
        return PreyOutcome::Stayed;
    }
    let (i, j) = world.meshes[prey].pos;
    let blocked = STEPS
        .iter()
        .filter(|(di, dj)| {
            let c = (i + di, j + dj);
            world.on_map(c) && world.symbol(c) != '.'
        })
        .count();
    if blocked == 4 {
        world.remove(prey);
        let spot = respawn_cell(world, rng);
        if let Some(cell) = spot {
            world.meshes[prey].is_static = true; // respawned prey are static (Q4)
            world.meshes[prey].pos = cell;
            world.draw(prey);
        }
        return PreyOutcome::Caught(spot);
    }
    // Baseline danger is taken left of the prey (the reference's leaked loop variable, Q2).
    let mut best = danger(world, (i, j - 1));
    let mut chosen = None;
    for s1 in STEPS {
        for s2 in STEPS {
            let a = (i + s1.0, j + s1.1);
            let b = (i + s2.0, j + s2.1); // from the original cell (Q6)
            let c = (i + s1.0 + s2.0, j + s1.1 + s2.1);
            if world.is_empty(a) && world.is_empty(b) && world.is_empty(c) {
                let d = danger(world, c);
                if d < best {
                    best = d;
                    chosen = Some(c);
                }
            }
        }
    }
    match chosen {
        Some(c) => {
            world.move_to(prey, c);
            PreyOutcome::Moved((i, j), c)
        }
        None => PreyOutcome::Stayed,
    }
}

/// Samples `H·W` accepted empty interior cells and keeps the first of least danger (Q26);
/// `None` when the interior has no empty cell (the reference would loop forever).
fn respawn_cell(world: &World, rng: &mut TaskRng) -> Option<Cell> {
    let (h, w) = (world.height, world.width);
    let any_free = (1..h - 1).any(|i| (1..w - 1).any(|j| world.is_empty((i, j))));
    if !any_free {
        return None;
    }
    let mut best = 1e6;
    let mut spot = None;
    let mut accepted = 0;
    while accepted < h * w {
        let i = rng.randint(1, h - 2);
        let j = rng.randint(1, w - 2);
        if !world.is_empty((i, j)) {
            continue;
        }
        accepted += 1;
        let d = danger(world, (i, j));
        if d < best {
            best = d;
            spot = Some((i, j));
        }
    }
    spot
}
