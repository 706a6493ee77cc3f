//! Procedural map generation from a seed (docs/design/wildfire.md §4): fractal layers, ground types
//! and trees, settlements and burnability, each from its own ChaCha8 stream.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::grid::{Grid, Land};
use crate::noise::{fractal_layer, to_range};

/// Random stream ids (§4.1).
pub mod streams {
    /// Elevation layer.
    pub const ELEVATION: u64 = 0;
    /// Moisture layer.
    pub const MOISTURE: u64 = 1;
    /// Vegetation layer.
    pub const VEGETATION: u64 = 2;
    /// Wind x layer.
    pub const WIND_X: u64 = 3;
    /// Wind y layer.
    pub const WIND_Y: u64 = 4;
    /// Settlements.
    pub const BUILDINGS: u64 = 5;
    // 6 was the level setup's, which now draws from .NET's `System.Random` (crate::setup).
    /// Runtime draws (civilian walks).
    pub const RUNTIME: u64 = 7;
}

/// The generator of stream `k` for `seed` (§4.1).
pub fn stream(seed: u64, k: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(k);
    rng
}

/// Vegetation class `q ∈ 0..=4` from a normalised value and the level's offset (§4.3).
pub fn vegetation_class(v: f64, offset: i32) -> u8 {
    let q = (2.5 * (v + f64::from(offset) / 100.0) + 2.0).round_ties_even();
    q.clamp(0.0, 4.0) as u8
}

fn class_land(q: u8) -> (Land, u8) {
    match q {
        0 => (Land::Rock, 0),
        1 => (Land::Brush, 0),
        2 => (Land::LightForest, 1),
        3 => (Land::MediumForest, 2),
        _ => (Land::DenseForest, 3),
    }
}

/// Generates the terrain of a `size × size` map (§4.2–§4.5; no water, no level setup).
pub fn generate_grid(size: usize, veg_offset: i32, seed: u64) -> Grid {
    let mut g = Grid::flat(size);
    let layer = |k: u64, scale: f64, octaves: u32| {
        fractal_layer(&mut stream(seed, k), size, scale, octaves)
    };
    g.elevation = layer(streams::ELEVATION, 100.0, 4)
        .into_iter()
        .map(|v| to_range(v, 0.0, 1.0))
        .collect();
    g.moisture = layer(streams::MOISTURE, 100.0, 2)
        .into_iter()
        .map(|v| to_range(v, 0.4, 0.8))
        .collect();
    let vegetation = layer(streams::VEGETATION, 20.0, 4);
    g.wind_x = layer(streams::WIND_X, 2000.0, 4)
        .into_iter()
        .map(|v| to_range(v, -10.0, 10.0))
        .collect();
    g.wind_y = layer(streams::WIND_Y, 200.0, 4)
        .into_iter()
        .map(|v| to_range(v, -10.0, 10.0))
        .collect();
    let classes: Vec<u8> = vegetation
        .iter()
        .map(|&v| vegetation_class(v, veg_offset))
        .collect();
    for (i, &q) in classes.iter().enumerate() {
        let (land, trees) = class_land(q);
        g.land[i] = land;
        g.trees[i] = trees;
    }
    place_settlements(&mut g, &classes, &mut stream(seed, streams::BUILDINGS));
    g.init_burnability();
    g
}

/// Settlements seeded on rock cells (§4.4).
fn place_settlements(g: &mut Grid, classes: &[u8], rng: &mut ChaCha8Rng) {
    let s = g.size as i32;
    for y in 0..s {
        for x in 0..s {
            let i = g.idx((x, y));
            if classes[i] != 0 || !rng.random_bool(0.05) {
                continue;
            }
            g.building[i] = true;
            for ny in y - 1..=y + 1 {
                for nx in x - 1..=x + 1 {
                    if !g.contains((nx, ny)) {
                        continue;
                    }
                    let hit = rng.random_bool(0.5);
                    if hit {
                        let j = g.idx((nx, ny));
                        g.building[j] = true;
                    }
                }
            }
        }
    }
    for i in 0..g.len() {
        if g.building[i] {
            g.trees[i] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Fire;

    #[test]
    fn classes_round_half_even_and_clamp() {
        assert_eq!(vegetation_class(-1.0, 20), 0); // 2.5·(−0.8)+2 = 0
        assert_eq!(vegetation_class(0.0, 0), 2);
        assert_eq!(vegetation_class(0.2, 0), 2); // 2.5 → 2 (half even)
        assert_eq!(vegetation_class(0.6, 0), 4); // 3.5 → 4
        assert_eq!(vegetation_class(1.0, 40), 4);
    }

    /// W12 (part): layer ranges, trees only on forest, burnability near buildings, no water,
    /// determinism.
    #[test]
    fn generation_properties_over_seeds() {
        for seed in 0..12u64 {
            let g = generate_grid(40, 20, seed);
            let lo = g.elevation.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = g
                .elevation
                .iter()
                .cloned()
                .fold(f64::NEG_INFINITY, f64::max);
            assert!((lo - 0.0).abs() < 1e-12 && (hi - 1.0).abs() < 1e-12);
            assert!(g
                .moisture
                .iter()
                .all(|&m| (0.4 - 1e-12..=0.8 + 1e-12).contains(&m)));
            for w in g.wind_x.iter().chain(&g.wind_y) {
                assert!((-10.0 - 1e-9..=10.0 + 1e-9).contains(w));
            }
            for i in 0..g.len() {
                assert_ne!(g.land[i], Land::Water);
                if g.trees[i] > 0 {
                    assert!(matches!(
                        g.land[i],
                        Land::LightForest | Land::MediumForest | Land::DenseForest
                    ));
                    assert!(!g.building[i]);
                }
                if g.building[i] {
                    let (x, y) = g.cell(i);
                    for dy in -2..=2 {
                        for dx in -2..=2 {
                            let c = (x + dx, y + dy);
                            if g.contains(c) {
                                assert_eq!(g.fire[g.idx(c)], Fire::Burnable);
                            }
                        }
                    }
                }
            }
            assert_eq!(g, generate_grid(40, 20, seed));
        }
        assert_ne!(generate_grid(40, 20, 1), generate_grid(40, 20, 2));
    }
}
