//! The fixed, dependency-free generators environments use where a stream must never change:
//!
//! - [`PyRandom`]: a CPython-compatible random generator, MT19937 seeded like Python's
//!   `random.seed(int)`, with `getrandbits`, `randbelow`, `randint`, `choice`, `shuffle` and
//!   `random` drawing exactly what `random.Random` draws (docs/design/grading.md §4.1,
//!   docs/design/swarmbench.md §5). Used only where parity with a Python reference requires it
//!   (the MASLab evaluation subsets, the GPQA option order, SwarmBench layouts); everything else
//!   uses explicitly named ChaCha generators.
//! - [`splitmix64`]: a tiny fixed generator for random rollouts and simulated agents, independent
//!   of any crate version.
//!
//! One module so every crate finds them in one place; [`crate::pyrandom`] and
//! [`crate::policy::splitmix64`] re-export them under their older paths.
//!
//! ```
//! use colony_env_api::rng::PyRandom;
//! let mut rng = PyRandom::from_u64(2024);
//! let mut x: Vec<u32> = (0..10).collect();
//! rng.shuffle(&mut x);
//! assert_eq!(x, [6, 0, 9, 8, 3, 5, 1, 4, 2, 7]);
//! ```

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The MT19937 generator with CPython's seeding and derived draws.
#[derive(Clone)]
pub struct PyRandom {
    mt: [u32; N],
    mti: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRandom").field("mti", &self.mti).finish()
    }
}

impl PyRandom {
    /// The generator of `random.seed(key)` for the integer whose 32-bit words, least
    /// significant first, are `key` (an empty key is treated as `[0]`).
    pub fn from_key(key: &[u32]) -> Self {
        let mut r = Self::init_genrand(19_650_218);
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut i: usize = 1;
        let mut j: usize = 0;
        for _ in 0..N.max(key.len()) {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = r.mt[i - 1] ^ (r.mt[i - 1] >> 30);
            r.mt[i] = (r.mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                r.mt[0] = r.mt[N - 1];
                i = 1;
            }
        }
        r.mt[0] = 0x8000_0000;
        r.mti = N;
        r
    }

    /// `random.seed(seed)` for a non-negative integer below 2^64.
    pub fn from_u64(seed: u64) -> Self {
        let lo = seed as u32;
        let hi = (seed >> 32) as u32;
        if hi == 0 {
            Self::from_key(&[lo])
        } else {
            Self::from_key(&[lo, hi])
        }
    }

    /// `random.seed(seed)` for any 128-bit integer (Python seeds with `abs(seed)`).
    pub fn from_i128(seed: i128) -> Self {
        let mut n = seed.unsigned_abs();
        let mut key = vec![n as u32];
        n >>= 32;
        while n != 0 {
            key.push(n as u32);
            n >>= 32;
        }
        Self::from_key(&key)
    }

    /// The reference `init_genrand(s)` state (a building block of the seeding).
    fn init_genrand(s: u32) -> Self {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Self { mt, mti: N }
    }

    /// The generator's internal state: the 624 words and the position in them (0..=624), as
    /// CPython's `random.getstate()` holds them.
    pub fn state_words(&self) -> (&[u32], usize) {
        (&self.mt, self.mti)
    }

    /// The generator with the internal state `words` at position `index` (the inverse of
    /// [`PyRandom::state_words`]); `None` unless `words` has 624 entries and `index ≤ 624`.
    pub fn from_state_words(words: &[u32], index: usize) -> Option<Self> {
        let mt: [u32; N] = words.try_into().ok()?;
        (index <= N).then_some(Self { mt, mti: index })
    }

    /// The next raw 32-bit output (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.mti >= N {
            self.generate();
        }
        let mut y = self.mt[self.mti];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    fn generate(&mut self) {
        let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        for kk in 0..N - M {
            let y = (self.mt[kk] & UPPER_MASK) | (self.mt[kk + 1] & LOWER_MASK);
            self.mt[kk] = self.mt[kk + M] ^ (y >> 1) ^ mag(y);
        }
        for kk in N - M..N - 1 {
            let y = (self.mt[kk] & UPPER_MASK) | (self.mt[kk + 1] & LOWER_MASK);
            self.mt[kk] = self.mt[kk + M - N] ^ (y >> 1) ^ mag(y);
        }
        let y = (self.mt[N - 1] & UPPER_MASK) | (self.mt[0] & LOWER_MASK);
        self.mt[N - 1] = self.mt[M - 1] ^ (y >> 1) ^ mag(y);
        self.mti = 0;
    }

    /// `getrandbits(k)` for 0 ≤ k ≤ 64 (k > 64 is clamped to 64); 0 draws nothing.
    ///
    /// As in CPython, k ≤ 32 keeps the top k bits of one output; larger k fills 32-bit words
    /// least significant first, the last word keeping its top bits.
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        let k = k.min(64);
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return u64::from(self.next_u32() >> (32 - k));
        }
        let low = u64::from(self.next_u32());
        let high = u64::from(self.next_u32() >> (64 - k));
        low | (high << 32)
    }

    /// `_randbelow(n)`: uniform in `0..n` by rejection on `bit_length(n)` bits; `n = 0` → 0
    /// without drawing.
    pub fn randbelow(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let k = u64::BITS - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `randint(a, b)` inclusive; `None` when `b < a` (an error in Python).
    pub fn randint(&mut self, a: i64, b: i64) -> Option<i64> {
        if b < a {
            return None;
        }
        let width = (i128::from(b) - i128::from(a) + 1) as u128;
        let draw = match u64::try_from(width) {
            Ok(w) => self.randbelow(w),
            // Only a = i64::MIN, b = i64::MAX: 2^64 values, so CPython draws 65 bits
            // (three outputs, the last keeping its top bit) until the value fits.
            Err(_) => loop {
                let low = u64::from(self.next_u32());
                let mid = u64::from(self.next_u32());
                if self.next_u32() >> 31 == 0 {
                    break low | (mid << 32);
                }
            },
        };
        Some((i128::from(a) + i128::from(draw)) as i64)
    }

    /// `choice(seq)`; `None` for an empty slice (an error in Python).
    pub fn choice<'a, T>(&mut self, seq: &'a [T]) -> Option<&'a T> {
        if seq.is_empty() {
            return None;
        }
        let i = self.randbelow(seq.len() as u64) as usize;
        seq.get(i)
    }

    /// `shuffle(x)`: for i from len−1 down to 1, swap x\[i\] with x\[randbelow(i + 1)\].
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i as u64 + 1) as usize;
            x.swap(i, j);
        }
    }

    /// `random()`: a float in \[0, 1) from 53 bits of two outputs.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }
}

/// SplitMix64 step: a tiny fixed generator, independent of any crate version, so random
/// rollouts stay identical across dependency upgrades.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first3(mut r: PyRandom) -> [u32; 3] {
        [r.next_u32(), r.next_u32(), r.next_u32()]
    }

    #[test]
    fn state_words_round_trip_mid_stream() {
        let mut a = PyRandom::from_u64(27);
        for _ in 0..1000 {
            a.next_u32();
        }
        let (words, index) = a.state_words();
        let b = PyRandom::from_state_words(words, index).unwrap();
        assert!(PyRandom::from_state_words(&words[1..], index).is_none());
        assert!(PyRandom::from_state_words(words, 625).is_none());
        assert_eq!(first3(a), first3(b));
    }

    #[test]
    fn raw_outputs_match_cpython() {
        assert_eq!(
            first3(PyRandom::from_u64(2024)),
            [2019024262, 780421486, 3127871324]
        );
        assert_eq!(
            first3(PyRandom::from_u64(0)),
            [3626764237, 1654615998, 3255389356]
        );
        assert_eq!(
            first3(PyRandom::from_u64(27)),
            [2785274337, 2061077104, 3012359258]
        );
        assert_eq!(
            first3(PyRandom::from_u64(42)),
            [2746317213, 478163327, 107420369]
        );
        assert_eq!(
            first3(PyRandom::from_u64((1 << 32) + 1)),
            [991850117, 2151679444, 2200792185]
        );
        assert_eq!(
            first3(PyRandom::from_i128((1 << 70) + 5)),
            [2004888747, 1674612923, 2039552273]
        );
        assert_eq!(
            first3(PyRandom::from_i128(-5)),
            [2675342405, 1097127993, 3185950873]
        );
        assert_eq!(
            first3(PyRandom::from_i128(-5)),
            first3(PyRandom::from_u64(5))
        );
    }

    #[test]
    fn shuffle_matches_cpython() {
        let mut x: Vec<u32> = (0..10).collect();
        PyRandom::from_u64(2024).shuffle(&mut x);
        assert_eq!(x, [6, 0, 9, 8, 3, 5, 1, 4, 2, 7]);
        for (n, want) in [
            (254usize, [56, 156, 153, 177, 122]),
            (1319, [1230, 739, 97, 778, 584]),
            (14042, [1348, 13230, 4199, 2331, 11765]),
            (12032, [1960, 10726, 8966, 4541, 4973]),
        ] {
            let mut x: Vec<usize> = (0..n).collect();
            PyRandom::from_u64(2024).shuffle(&mut x);
            assert_eq!(x[..5], want, "n = {n}");
        }
    }

    #[test]
    fn randint_choice_and_random_match_cpython() {
        let mut r = PyRandom::from_u64(42);
        let draws: Vec<i64> = (0..10).filter_map(|_| r.randint(0, 1)).collect();
        assert_eq!(draws, [0, 0, 1, 0, 0, 0, 0, 0, 1, 0]);
        let mut r = PyRandom::from_u64(42);
        let draws: Vec<i64> = (0..10).filter_map(|_| r.randint(1, 8)).collect();
        assert_eq!(draws, [2, 1, 5, 4, 4, 3, 2, 2, 7, 1]);
        let draws: Vec<i64> = (0..5).filter_map(|_| r.randint(6, 8)).collect();
        assert_eq!(draws, [6, 6, 6, 6, 8]);
        let mut r = PyRandom::from_u64(42);
        let draws: Vec<i64> = (0..5).filter_map(|_| r.randint(6, 8)).collect();
        assert_eq!(draws, [8, 6, 6, 8, 7]);
        assert_eq!(r.randint(3, 2), None);
        let mut r = PyRandom::from_u64(42);
        let draws: Vec<i64> = (0..3)
            .filter_map(|_| r.randint(i64::MIN, i64::MAX))
            .collect();
        assert_eq!(
            draws,
            [
                -7169676182496904803,
                -4149976519821344517,
                836864915349561680
            ]
        );
        assert_eq!(r.choice::<u8>(&[]), None);

        let mut r = PyRandom::from_u64(42);
        assert_eq!(r.random(), 0.6394267984578837);
        assert_eq!(r.random(), 0.025010755222666936);
        assert_eq!(r.random(), 0.27502931836911926);

        let mut r = PyRandom::from_u64(42);
        assert_eq!(r.getrandbits(64), 2053695854357871005);
        assert_eq!(r.getrandbits(64), 13679192365072849617);
        assert_eq!(r.getrandbits(40), 267469214295);

        // random.seed(7); [random.randrange(10**12) for _ in range(3)]
        let mut r = PyRandom::from_u64(7);
        let draws: Vec<u64> = (0..3).map(|_| r.randbelow(1_000_000_000_000)).collect();
        assert_eq!(draws, [434439589175, 54335349840, 902254243635]);
    }
}
