//! Helpers shared by the scenario tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_cube::layout::parse_ascii;
use colony_cube::{Block, CubeConfig, CubeEnv, Layout};

/// An environment from the ASCII notation.
pub fn ascii(text: &str) -> CubeEnv {
    let mut c = CubeConfig::from_layout(parse_ascii(text).unwrap());
    c.max_steps = 10_000;
    CubeEnv::new(c).unwrap()
}

/// An environment from `(id, weight, row, col)` blocks and agent cells.
pub fn layout(k: u32, blocks: &[(u32, u32, i32, i32)], agents: &[(i32, i32)]) -> CubeEnv {
    let mut c = CubeConfig::from_layout(Layout {
        grid_size: k,
        blocks: blocks
            .iter()
            .map(|&(id, weight, row, col)| Block {
                id,
                weight,
                row,
                col,
            })
            .collect(),
        agents: agents.to_vec(),
    });
    c.max_steps = 10_000;
    CubeEnv::new(c).unwrap()
}

/// Top-left of block `id`, or `None` once delivered.
pub fn block_at(env: &CubeEnv, id: u32) -> Option<(i32, i32)> {
    env.world().block(id).map(|b| (b.row, b.col))
}

/// Event kinds of the last step.
pub fn kinds(env: &CubeEnv) -> Vec<&'static str> {
    env.last_events().iter().map(|e| e.kind()).collect()
}
