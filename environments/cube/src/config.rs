//! Configuration from the curriculum parameter `n`, overrides and explicit layouts
//! (docs/design/cube.md §2), and the block distribution of design §4.2.

use serde::{Deserialize, Serialize};

use colony_env_api::clip;

use crate::geometry::Cell;
use crate::world::Block;
// The bound belongs to the world (its occupancy index); configurations check against it.
pub use crate::world::MAX_GRID_SIZE;
use crate::CubeError;

/// Most blocks of a configuration (the sum of the tier counts). `n = 500` gives 28.
pub const MAX_BLOCKS: u64 = 256;

/// Largest `max_steps` (keeps the step counter far from overflow).
pub const MAX_STEPS: u32 = 1_000_000_000;

/// A fully explicit scenario (design §2.1): grid side, blocks and agent positions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// Grid side `K`.
    pub grid_size: u32,
    /// Blocks with ids, weights and top-left cells.
    pub blocks: Vec<Block>,
    /// Agent positions, by index.
    pub agents: Vec<Cell>,
}

/// Environment configuration (design §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CubeConfig {
    /// The curriculum parameter.
    pub n: u32,
    /// Grid side override (default `max(20, n)`).
    #[serde(default)]
    pub grid_size: Option<u32>,
    /// Agent count override (default `n`).
    #[serde(default)]
    pub num_agents: Option<u32>,
    /// Block specification override: `(weight, count)` tiers.
    #[serde(default)]
    pub block_specs: Option<Vec<(u32, u32)>>,
    /// Truncation horizon.
    pub max_steps: u32,
    /// Per-step cost `r_s`.
    pub step_cost: f64,
    /// Reward per unit of delivered weight `r_d`.
    pub deliver_reward: f64,
    /// Explicit scenario bypassing generation.
    #[serde(default)]
    pub layout: Option<Layout>,
}

impl CubeConfig {
    /// The configuration for curriculum parameter `n` with the spec's defaults.
    pub fn new(n: u32) -> CubeConfig {
        CubeConfig {
            n,
            grid_size: None,
            num_agents: None,
            block_specs: None,
            max_steps: 500,
            step_cost: 0.01,
            deliver_reward: 1.0,
            layout: None,
        }
    }

    /// A configuration that always uses `layout`.
    pub fn from_layout(layout: Layout) -> CubeConfig {
        CubeConfig {
            n: layout.agents.len() as u32,
            layout: Some(layout),
            ..CubeConfig::new(1)
        }
    }

    /// Grid side `K`.
    pub fn grid_size(&self) -> u32 {
        match &self.layout {
            Some(l) => l.grid_size,
            None => self.grid_size.unwrap_or(self.n.max(20)),
        }
    }

    /// Number of agents `|A|`.
    pub fn num_agents(&self) -> u32 {
        match &self.layout {
            Some(l) => l.agents.len() as u32,
            None => self.num_agents.unwrap_or(self.n),
        }
    }

    /// The `(weight, count)` tiers, heaviest first.
    pub fn block_specs(&self) -> Vec<(u32, u32)> {
        self.block_specs
            .clone()
            .unwrap_or_else(|| block_specs_for(self.n))
    }

    /// Rejects invalid configurations (design §2: `n = 0`, `num_agents = 0`, weight < 1,
    /// `num_agents > K`) and those past the documented bounds: `K ≤` [`MAX_GRID_SIZE`] (so
    /// `n ≤ 500` too), at most [`MAX_BLOCKS`] blocks whose weights leave room on the grid,
    /// `max_steps ≤` [`MAX_STEPS`], finite rewards. Checked before anything is allocated;
    /// explicit layouts are checked when the world is built.
    pub fn validate(&self) -> Result<(), CubeError> {
        if self.max_steps > MAX_STEPS {
            return Err(CubeError::invalid(
                "max_steps",
                &format!("{} is above the maximum {MAX_STEPS}", self.max_steps),
            ));
        }
        if !self.step_cost.is_finite() {
            return Err(CubeError::invalid("step_cost", "must be a finite number"));
        }
        if !self.deliver_reward.is_finite() {
            return Err(CubeError::invalid(
                "deliver_reward",
                "must be a finite number",
            ));
        }
        if self.layout.is_some() {
            return Ok(());
        }
        if self.n == 0 {
            return Err(CubeError::invalid("n", "must be at least 1"));
        }
        if self.n > MAX_GRID_SIZE {
            return Err(CubeError::invalid(
                "n",
                &format!(
                    "{} is above the maximum {MAX_GRID_SIZE} (n agents on an n-side grid)",
                    self.n
                ),
            ));
        }
        let k = self.grid_size();
        if k == 0 {
            return Err(CubeError::invalid("grid_size", "must be at least 1"));
        }
        if k > MAX_GRID_SIZE {
            return Err(CubeError::invalid(
                "grid_size",
                &format!("{k} is above the maximum {MAX_GRID_SIZE}"),
            ));
        }
        let a = self.num_agents();
        if a == 0 {
            return Err(CubeError::invalid("num_agents", "must be at least 1"));
        }
        if a > k {
            return Err(CubeError::invalid(
                "num_agents",
                &format!("{a} agents do not fit on column 0 of a {k}×{k} grid"),
            ));
        }
        let specs = self.block_specs();
        if let Some((w, _)) = specs.iter().find(|(w, _)| *w < 1) {
            return Err(CubeError::invalid(
                "block_specs",
                &format!("weight {w} must be at least 1"),
            ));
        }
        let blocks: u64 = specs.iter().map(|&(_, c)| u64::from(c)).sum();
        if blocks > MAX_BLOCKS {
            return Err(CubeError::invalid(
                "block_specs",
                &format!("{blocks} blocks; the maximum is {MAX_BLOCKS}"),
            ));
        }
        if let Some((w, _)) = specs.iter().find(|(w, _)| u64::from(*w) + 3 > u64::from(k)) {
            return Err(CubeError::invalid(
                "block_specs",
                &format!("a block of weight {w} has no valid position on a {k}×{k} grid"),
            ));
        }
        // Each block needs its square plus a one-cell moat inside the border (design §4.3).
        let area: u64 = specs
            .iter()
            .map(|&(w, c)| (u64::from(w) + 1).pow(2) * u64::from(c))
            .sum();
        if area > (u64::from(k) - 1).pow(2) {
            return Err(CubeError::invalid(
                "block_specs",
                &format!("the blocks and their moats ({area} cells) do not fit on a {k}×{k} grid"),
            ));
        }
        Ok(())
    }
}

/// The block tiers for `n` (design §4.2): `v = ⌊n/2⌋ + 1`, `k = 1`; while `v ≥ 1` emit `k`
/// blocks of weight `⌊v⌋`, then `k += 1`, `v /= 2`.
pub fn block_specs_for(n: u32) -> Vec<(u32, u32)> {
    let mut v = f64::from(n / 2 + 1);
    let mut k = 1;
    let mut out = Vec::new();
    while v >= 1.0 {
        out.push((v.floor() as u32, k));
        k += 1;
        v /= 2.0;
    }
    out
}

/// Parses `block_specs` text: `5x1,2x2,1x3` (weight × count).
pub fn parse_block_specs(text: &str) -> Result<Vec<(u32, u32)>, CubeError> {
    let tiers = text.split(',').count() as u64;
    if tiers > MAX_BLOCKS {
        return Err(CubeError::invalid(
            "block_specs",
            &format!("{tiers} tiers; the maximum is {MAX_BLOCKS} blocks"),
        ));
    }
    text.split(',')
        .map(|item| {
            let (w, c) = item.trim().split_once(['x', 'X', '*']).ok_or_else(|| {
                CubeError::invalid("block_specs", &format!("{:?} is not WxC", clip(item)))
            })?;
            let num = |s: &str| {
                s.trim().parse::<u32>().map_err(|e| {
                    CubeError::invalid(
                        "block_specs",
                        &format!("{:?}: {:?}: {e}", clip(item), clip(s)),
                    )
                })
            };
            Ok((num(w)?, num(c)?))
        })
        .collect()
}

/// Formats tiers back as `5x1,2x2`.
pub fn format_block_specs(specs: &[(u32, u32)]) -> String {
    specs
        .iter()
        .map(|(w, c)| format!("{w}x{c}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_distribution_matches_the_spec_table() {
        assert_eq!(block_specs_for(1), vec![(1, 1)]);
        assert_eq!(block_specs_for(2), vec![(2, 1), (1, 2)]);
        assert_eq!(block_specs_for(4), vec![(3, 1), (1, 2)]);
        assert_eq!(block_specs_for(6), vec![(4, 1), (2, 2), (1, 3)]);
        assert_eq!(block_specs_for(8), vec![(5, 1), (2, 2), (1, 3)]);
        assert_eq!(block_specs_for(16), vec![(9, 1), (4, 2), (2, 3), (1, 4)]);
        let n256 = block_specs_for(256);
        assert_eq!(n256.len(), 8);
        assert_eq!(n256.iter().map(|s| s.1).sum::<u32>(), 36);
        assert_eq!(n256[0], (129, 1));
        assert_eq!(n256[7], (1, 8));
        let blocks128: u32 = block_specs_for(128).iter().map(|s| s.1).sum();
        assert_eq!(blocks128, 28);
    }

    #[test]
    fn invalid_configurations_are_rejected() {
        assert!(CubeConfig::new(0).validate().is_err());
        let mut c = CubeConfig::new(4);
        c.num_agents = Some(21);
        assert!(c.validate().unwrap_err().to_string().contains("num_agents"));
        c.num_agents = Some(0);
        assert!(c.validate().is_err());
        let mut c = CubeConfig::new(4);
        c.block_specs = Some(vec![(0, 1)]);
        assert!(c.validate().is_err());
        assert_eq!(parse_block_specs("3x1, 1x2").unwrap(), vec![(3, 1), (1, 2)]);
        let key = |c: CubeConfig| match c.validate().unwrap_err() {
            CubeError::Invalid { field, .. } => field,
            other => panic!("{other}"),
        };
        let with = |f: &dyn Fn(&mut CubeConfig)| {
            let mut c = CubeConfig::new(4);
            f(&mut c);
            c
        };
        assert_eq!(
            key(with(&|c| c.grid_size = Some(1_000_000_000))),
            "grid_size"
        );
        assert_eq!(key(with(&|c| c.grid_size = Some(65_536))), "grid_size");
        assert_eq!(key(with(&|c| c.n = 10_000_000)), "n");
        assert_eq!(
            key(with(&|c| c.deliver_reward = f64::NEG_INFINITY)),
            "deliver_reward"
        );
        assert_eq!(key(with(&|c| c.step_cost = f64::NAN)), "step_cost");
        assert_eq!(key(with(&|c| c.max_steps = u32::MAX)), "max_steps");
        assert_eq!(
            key(with(&|c| c.block_specs = Some(vec![(1, u32::MAX)]))),
            "block_specs"
        );
        assert_eq!(
            key(with(&|c| c.block_specs = Some(vec![(u32::MAX, 1)]))),
            "block_specs"
        );
        assert_eq!(
            key(with(&|c| c.block_specs = Some(vec![(4, 60)]))),
            "block_specs"
        );
        assert!(CubeConfig::new(MAX_GRID_SIZE).validate().is_ok());
        assert!(parse_block_specs("3").is_err());
    }
}
