//! The task RNG: CPython's MT19937 `random.Random` (spec §5), with a count of raw outputs so
//! a saved state restores the exact stream (re-seed, then skip).
//!
//! This is the one place where STYLE.md's ChaCha rule does not apply: seed-compatible layouts
//! need the reference's generator.

use colony_env_api::pyrandom::PyRandom;
use serde::{Deserialize, Serialize};

/// A seeded MT19937 stream that remembers how many 32-bit outputs it has used.
#[derive(Debug, Clone)]
pub struct TaskRng {
    rng: PyRandom,
    seed: i64,
    draws: u64,
}

/// The serializable position of a [`TaskRng`] stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngState {
    /// The seed.
    pub seed: i64,
    /// Raw 32-bit outputs consumed since seeding.
    pub draws: u64,
}

impl TaskRng {
    /// `random.Random(seed)`.
    pub fn new(seed: i64) -> Self {
        Self {
            rng: PyRandom::from_i128(i128::from(seed)),
            seed,
            draws: 0,
        }
    }

    /// Re-creates the stream at a saved position.
    pub fn restore(state: RngState) -> Self {
        let mut r = Self::new(state.seed);
        for _ in 0..state.draws {
            r.next_u32();
        }
        r
    }

    /// The stream position, for saving.
    pub fn state(&self) -> RngState {
        RngState {
            seed: self.seed,
            draws: self.draws,
        }
    }

    /// The next raw output.
    pub fn next_u32(&mut self) -> u32 {
        self.draws += 1;
        self.rng.next_u32()
    }

    /// `getrandbits(k)` for 1 ≤ k ≤ 32.
    pub fn bits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for n ≥ 1 (rejection on `bit_length(n)` bits).
    pub fn below(&mut self, n: u32) -> u32 {
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.bits(k.max(1));
            if r < n {
                return r;
            }
        }
    }

    /// `randint(a, b)`, inclusive; callers guarantee `a ≤ b` (configs are validated).
    pub fn randint(&mut self, a: i32, b: i32) -> i32 {
        a + self.below((b - a + 1).max(1) as u32) as i32
    }

    /// `choice(items)` for a non-empty slice.
    pub fn choice<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_test_vectors() {
        for (seed, want) in [
            (0i64, [3626764237u32, 1654615998, 3255389356]),
            (27, [2785274337, 2061077104, 3012359258]),
            (42, [2746317213, 478163327, 107420369]),
            ((1i64 << 32) + 1, [991850117, 2151679444, 2200792185]),
        ] {
            let mut r = TaskRng::new(seed);
            let got = [r.next_u32(), r.next_u32(), r.next_u32()];
            assert_eq!(got, want, "seed {seed}");
        }
        let mut r = TaskRng::new(42);
        let v: Vec<i32> = (0..10).map(|_| r.randint(0, 1)).collect();
        assert_eq!(v, vec![0, 0, 1, 0, 0, 0, 0, 0, 1, 0]);
        let mut r = TaskRng::new(42);
        let v: Vec<i32> = (0..10).map(|_| r.randint(1, 8)).collect();
        assert_eq!(v, vec![2, 1, 5, 4, 4, 3, 2, 2, 7, 1]);
        let mut r = TaskRng::new(42);
        let v: Vec<i32> = (0..5).map(|_| r.randint(6, 8)).collect();
        assert_eq!(v, vec![8, 6, 6, 8, 7]);
    }

    #[test]
    fn restore_continues_the_stream() {
        let mut a = TaskRng::new(27);
        for _ in 0..100 {
            a.randint(1, 7);
        }
        let mut b = TaskRng::restore(a.state());
        assert_eq!(a.randint(0, 1000), b.randint(0, 1000));
        assert_eq!(a.state(), b.state());
    }
}
