//! The task RNG: CPython's MT19937 `random.Random` (docs/design/swarmbench.md §5), with a count of
//! raw outputs so a saved state restores the exact stream (re-seed, then skip).
//!
//! This is the one place where STYLE.md's ChaCha rule does not apply: seed-compatible layouts
//! need the reference's generator.

use colony_env_api::rng::PyRandom;
use serde::{Deserialize, Serialize};

/// A seeded MT19937 stream that remembers how many 32-bit outputs it has used.
#[derive(Debug, Clone)]
pub struct TaskRng {
    rng: PyRandom,
    seed: i64,
    draws: u64,
}

/// Most draws a restore replays from the seed (about 50 ms in a release build); a stream
/// further along is saved with its generator state ([`RngState::mt`]) instead.
pub const MAX_REPLAY_DRAWS: u64 = 1 << 24;

/// The serializable position of a [`TaskRng`] stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngState {
    /// The seed.
    pub seed: i64,
    /// Raw 32-bit outputs consumed since seeding.
    pub draws: u64,
    /// The generator state, saved once `draws` exceeds [`MAX_REPLAY_DRAWS`] so a restore
    /// never replays more than that many draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mt: Option<MtState>,
}

/// MT19937's internal state (CPython's `random.getstate()` without the version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MtState {
    /// The 624 state words.
    pub words: Vec<u32>,
    /// Position in them, 0..=624.
    pub index: usize,
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

    /// Re-creates the stream at a saved position: from the saved generator state when there
    /// is one, else by replaying at most [`MAX_REPLAY_DRAWS`] draws. Errors name the field
    /// under `rng` (`draws` past the replay limit without a generator state, a bad `mt`).
    pub fn restore(state: &RngState) -> Result<Self, (&'static str, String)> {
        if let Some(mt) = &state.mt {
            let rng = PyRandom::from_state_words(&mt.words, mt.index).ok_or((
                "mt",
                format!(
                    "expected 624 words and an index up to 624, got {} words and index {}",
                    mt.words.len(),
                    mt.index
                ),
            ))?;
            return Ok(Self {
                rng,
                seed: state.seed,
                draws: state.draws,
            });
        }
        if state.draws > MAX_REPLAY_DRAWS {
            return Err((
                "draws",
                format!(
                    "{} draws cannot be replayed (max {MAX_REPLAY_DRAWS}) and no generator state (rng.mt) is given",
                    state.draws
                ),
            ));
        }
        let mut r = Self::new(state.seed);
        for _ in 0..state.draws {
            r.next_u32();
        }
        Ok(r)
    }

    /// The stream position, for saving (with the generator state past
    /// [`MAX_REPLAY_DRAWS`]).
    pub fn state(&self) -> RngState {
        RngState {
            seed: self.seed,
            draws: self.draws,
            mt: (self.draws > MAX_REPLAY_DRAWS).then(|| {
                let (words, index) = self.rng.state_words();
                MtState {
                    words: words.to_vec(),
                    index,
                }
            }),
        }
    }

    /// The next raw output.
    pub fn next_u32(&mut self) -> u32 {
        self.draws = self.draws.wrapping_add(1);
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
        let mut b = TaskRng::restore(&a.state()).unwrap();
        assert_eq!(a.randint(0, 1000), b.randint(0, 1000));
        assert_eq!(a.state(), b.state());
    }

    #[test]
    fn long_streams_save_the_generator_and_huge_replays_are_refused() {
        let mut a = TaskRng::new(5);
        a.draws = MAX_REPLAY_DRAWS + 10; // as if it had drawn that much
        let saved = a.state();
        assert!(saved.mt.is_some());
        let mut b = TaskRng::restore(&saved).unwrap();
        assert_eq!(a.next_u32(), b.next_u32());
        assert_eq!(a.state(), b.state());
        let hostile = RngState {
            seed: 1,
            draws: 1_000_000_000_000_000,
            mt: None,
        };
        assert_eq!(TaskRng::restore(&hostile).unwrap_err().0, "draws");
        let bad = RngState {
            mt: Some(MtState {
                words: vec![1; 3],
                index: 0,
            }),
            ..hostile
        };
        assert_eq!(TaskRng::restore(&bad).unwrap_err().0, "mt");
    }
}
