//! Improved Perlin gradient noise and the fractal layers of map generation
//! (docs/design/wildfire.md §4.2).
//!
//! Hand-written rather than taken from the `noise` crate because the spec fixes the exact
//! permutation construction (shuffled by the layer's own ChaCha stream), corner hashing and
//! gradient table so that maps are reproducible bit for bit between implementations; the
//! `noise` crate's Perlin uses its own seeding and gradient set.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The 8 gradients selected by `hash & 7` (§4.2).
const GRADIENTS: [(f64, f64); 8] = [
    (1.0, 1.0),
    (-1.0, 1.0),
    (1.0, -1.0),
    (-1.0, -1.0),
    (1.0, 0.0),
    (-1.0, 0.0),
    (0.0, 1.0),
    (0.0, -1.0),
];

/// A 2-D gradient noise function with a permutation drawn from a stream.
pub struct Perlin {
    perm: [usize; 512],
}

fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + t * (b - a)
}

impl Perlin {
    /// Shuffles `0..255` with Fisher–Yates from the last index down (§4.1) and duplicates it.
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let mut p: Vec<usize> = (0..256).collect();
        for i in (1..256).rev() {
            let j = rng.random_range(0..=i);
            p.swap(i, j);
        }
        let mut perm = [0usize; 512];
        for (i, slot) in perm.iter_mut().enumerate() {
            *slot = p[i & 255];
        }
        Self { perm }
    }

    fn corner(&self, x: usize, y: usize, du: f64, dv: f64) -> f64 {
        let hash = self.perm[self.perm[x] + y];
        let (gx, gy) = GRADIENTS[hash & 7];
        gx * du + gy * dv
    }

    /// Noise at `(u, v)`, roughly in `[−1, 1]`.
    pub fn at(&self, u: f64, v: f64) -> f64 {
        let (uf, vf) = (u.floor(), v.floor());
        // Two's complement masking of negative cell indices, as the spec requires.
        let x = (uf as i64 & 255) as usize;
        let y = (vf as i64 & 255) as usize;
        let (fu, fv) = (u - uf, v - vf);
        let n00 = self.corner(x, y, fu, fv);
        let n10 = self.corner(x + 1, y, fu - 1.0, fv);
        let n01 = self.corner(x, y + 1, fu, fv - 1.0);
        let n11 = self.corner(x + 1, y + 1, fu - 1.0, fv - 1.0);
        let (a, b) = (fade(fu), fade(fv));
        lerp(lerp(n00, n10, a), lerp(n01, n11, a), b)
    }
}

/// A fractal noise layer over an `size × size` map, min–max normalised to `[−1, 1]` (§4.2).
pub fn fractal_layer(rng: &mut ChaCha8Rng, size: usize, scale: f64, octaves: u32) -> Vec<f64> {
    let offsets: Vec<(f64, f64)> = (0..octaves)
        .map(|_| {
            let ox = rng.random_range(-100_000i64..=99_999) as f64;
            let oy = rng.random_range(-100_000i64..=99_999) as f64;
            (ox, oy)
        })
        .collect();
    let perlin = Perlin::new(rng);
    let mut values = Vec::with_capacity(size * size);
    for y in 0..size {
        for x in 0..size {
            let mut sum = 0.0;
            let mut amp = 1.0;
            let mut freq = 1.0;
            for &(ox, oy) in &offsets {
                sum += amp
                    * perlin.at(
                        (x as f64 + ox) / scale * freq,
                        (y as f64 + oy) / scale * freq,
                    );
                amp *= 0.5;
                freq *= 2.0;
            }
            values.push(sum);
        }
    }
    normalise(&mut values);
    values
}

/// Min–max normalisation to `[−1, 1]`; all zeros if the layer is constant.
pub fn normalise(values: &mut [f64]) {
    let (lo, hi) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if values.is_empty() || hi <= lo {
        values.iter_mut().for_each(|v| *v = 0.0);
        return;
    }
    for v in values.iter_mut() {
        *v = 2.0 * (*v - lo) / (hi - lo) - 1.0;
    }
}

/// Maps a normalised value to the output range `[a, b]`.
pub fn to_range(v: f64, a: f64, b: f64) -> f64 {
    a + (b - a) * (v + 1.0) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn noise_is_zero_on_lattice_points_and_bounded() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let p = Perlin::new(&mut rng);
        assert_eq!(p.at(5.0, -7.0), 0.0);
        for i in 0..200 {
            let v = p.at(i as f64 * 0.37 - 20.0, i as f64 * 0.11);
            assert!(v.abs() <= 1.0 + 1e-9, "{v}");
        }
    }

    #[test]
    fn layer_spans_the_full_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let l = fractal_layer(&mut rng, 20, 10.0, 3);
        let lo = l.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lo, hi), (-1.0, 1.0));
    }
}
