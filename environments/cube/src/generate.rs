//! Procedural generation from `(n, seed)` (docs/design/cube.md §4): block placement heaviest first
//! with edge bias, centre avoidance, a one-cell moat and whole-placement retries; agents on column
//! 0.

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::config::CubeConfig;
use crate::geometry::Cell;
use crate::world::{Block, World};
use crate::CubeError;

/// Whole-placement attempts before giving up (design §4.3, retries).
pub const MAX_ATTEMPTS: usize = 64;

/// Fisher–Yates from the last index down (design §4.1).
fn shuffle<T>(items: &mut [T], rng: &mut ChaCha8Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

/// Generates the world of `config` for `seed` (design §4), or builds its explicit layout.
pub fn generate(config: &CubeConfig, seed: u64) -> Result<World, CubeError> {
    config.validate()?;
    if let Some(layout) = &config.layout {
        return World::new(
            layout.grid_size as i32,
            layout.agents.clone(),
            layout.blocks.clone(),
        );
    }
    let k = config.grid_size() as i32;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut weights = Vec::new();
    for (w, count) in config.block_specs() {
        for _ in 0..count {
            weights.push(w as i32);
        }
    }
    // Heaviest first; ties keep the spec order.
    weights.sort_by(|a, b| b.cmp(a));
    if let Some(&w) = weights.iter().find(|&&w| w > k - 3) {
        return Err(CubeError::invalid(
            "block_specs",
            &format!("a block of weight {w} has no valid position on a {k}×{k} grid"),
        ));
    }
    let mut blocks = None;
    for _ in 0..MAX_ATTEMPTS {
        if let Some(b) = place_blocks(k, &weights, &mut rng) {
            blocks = Some(b);
            break;
        }
    }
    let blocks = blocks.ok_or_else(|| {
        CubeError::invalid(
            "seed",
            &format!("block placement failed {MAX_ATTEMPTS} times (docs/design/cube.md §4.3)"),
        )
    })?;
    let mut rows: Vec<i32> = (0..k).collect();
    shuffle(&mut rows, &mut rng);
    let agents: Vec<Cell> = (0..config.num_agents() as usize)
        .map(|i| (rows[i], 0))
        .collect();
    World::new(k, agents, blocks)
}

/// One placement attempt (design §4.3); `None` when some block has no fitting candidate.
fn place_blocks(k: i32, weights: &[i32], rng: &mut ChaCha8Rng) -> Option<Vec<Block>> {
    let mut occupied = vec![false; (k * k) as usize];
    let idx = |r: i32, c: i32| (r * k + c) as usize;
    let rc = f64::max(1.0, f64::from(k / 6));
    let mid = f64::from(k - 1) / 2.0;
    let mut blocks = Vec::with_capacity(weights.len());
    for (id, &w) in weights.iter().enumerate() {
        let hi = k - w - 2;
        // Candidates grouped by score 1, 0, −1 (row-major inside each group).
        let mut groups: [Vec<Cell>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for r in 1..=hi {
            for c in 1..=hi {
                let min_edge = (r - 1).min(c - 1).min(k - w - 1 - r).min(k - w - 1 - c);
                let edge = i32::from(min_edge <= 2);
                let half = f64::from(w - 1) / 2.0;
                let centre = w >= 3
                    && (f64::from(r) + half - mid).abs() <= rc
                    && (f64::from(c) + half - mid).abs() <= rc;
                let score = edge - i32::from(centre);
                groups[(1 - score) as usize].push((r, c));
            }
        }
        let mut chosen = None;
        for group in groups.iter_mut() {
            shuffle(group, rng);
        }
        'search: for group in &groups {
            for &(r, c) in group {
                let r0 = (r - 1).max(0);
                let c0 = (c - 1).max(0);
                let r1 = (r + w).min(k - 1);
                let c1 = (c + w).min(k - 1);
                let clear = (r0..=r1).all(|rr| (c0..=c1).all(|cc| !occupied[idx(rr, cc)]));
                if clear {
                    chosen = Some((r, c));
                    break 'search;
                }
            }
        }
        let (r, c) = chosen?;
        for rr in r..r + w {
            for cc in c..c + w {
                occupied[idx(rr, cc)] = true;
            }
        }
        blocks.push(Block {
            id: id as u32,
            weight: w as u32,
            row: r,
            col: c,
        });
    }
    Some(blocks)
}
