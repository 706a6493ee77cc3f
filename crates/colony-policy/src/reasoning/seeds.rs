//! Per-purpose seeds (docs/design/reasoning.md §0.3): every orchestration decision draws from its
//! own generator, never from one consumed in completion order, so results do not depend on
//! concurrency.
//!
//! Besides the seed formula, the draws §0.3 fixes so traces stay stable across `rand`
//! versions: [`stream`] (the ChaCha8 generator of one purpose), [`uniform`] (a draw in
//! [0, 1)), [`below`] (an integer in `0..n`) and [`shuffle`] (Fisher–Yates from the last index
//! down). Every policy draws through these.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// First 8 bytes (little-endian) of SHA-256 over
/// `"{run_seed}|{sample_id}|{method}|{round}|{agent_id}|{purpose}"`; fields that do not apply
/// are empty strings.
pub fn derive_seed(
    run_seed: u64,
    sample_id: &str,
    method: &str,
    round: Option<u32>,
    agent_id: Option<&str>,
    purpose: &str,
) -> u64 {
    let round = round.map(|r| r.to_string()).unwrap_or_default();
    let text = format!(
        "{run_seed}|{sample_id}|{method}|{round}|{}|{purpose}",
        agent_id.unwrap_or("")
    );
    let digest = Sha256::digest(text.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// The LLM `seed` field for an agent's call: [`derive_seed`] with purpose `llm`, low 31 bits
/// (servers reject seeds outside signed 32/64-bit ranges).
pub fn llm_seed(
    run_seed: u64,
    sample_id: &str,
    method: &str,
    round: Option<u32>,
    agent_id: &str,
) -> u64 {
    derive_seed(run_seed, sample_id, method, round, Some(agent_id), "llm") & 0x7FFF_FFFF
}

/// The generator of one purpose (design §0.3): `ChaCha8Rng::seed_from_u64` of [`derive_seed`]
/// over the same fields.
pub fn stream(
    run_seed: u64,
    sample_id: &str,
    method: &str,
    round: Option<u32>,
    agent_id: Option<&str>,
    purpose: &str,
) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(derive_seed(
        run_seed, sample_id, method, round, agent_id, purpose,
    ))
}

/// A uniform draw in [0, 1) as §0.3 fixes it: `(next_u64 >> 11) · 2⁻⁵³`.
pub fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An integer in `0..n` as §0.3 fixes it: `floor(draw · n)` (0 when `n` is 0).
pub fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((uniform(rng) * n as f64) as usize).min(n.saturating_sub(1))
}

/// Shuffles `items` in place, Fisher–Yates from the last index down (§0.3): position `i`
/// swaps with [`below`]`(i + 1)`.
pub fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_the_formula_and_differ_by_field() {
        let expected = {
            let d = Sha256::digest(b"7|q1|selforg|2|agent_0|llm");
            u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
        };
        assert_eq!(
            derive_seed(7, "q1", "selforg", Some(2), Some("agent_0"), "llm"),
            expected
        );
        assert_eq!(
            llm_seed(7, "q1", "selforg", Some(2), "agent_0"),
            expected & 0x7FFF_FFFF
        );
        assert_ne!(
            derive_seed(7, "q1", "cot", None, None, "x"),
            derive_seed(7, "q2", "cot", None, None, "x")
        );
        assert_ne!(
            derive_seed(7, "q1", "cot", None, None, ""),
            derive_seed(7, "q1", "cot", Some(0), None, "")
        );
    }

    #[test]
    fn draws_follow_the_spec_and_shuffles_are_permutations() {
        let mut a = stream(7, "q1", "macnet", None, None, "topology");
        let mut b =
            ChaCha8Rng::seed_from_u64(derive_seed(7, "q1", "macnet", None, None, "topology"));
        let u = uniform(&mut a);
        assert_eq!(u, (b.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
        assert!((0.0..1.0).contains(&u));
        for n in 1..20 {
            assert!(below(&mut a, n) < n);
        }
        assert_eq!(below(&mut a, 0), 0);
        let mut v: Vec<usize> = (0..50).collect();
        shuffle(&mut a, &mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted, "50 items almost surely move");
        // Same stream, same shuffle.
        let mut w: Vec<usize> = (0..50).collect();
        let mut c = stream(7, "q1", "macnet", None, None, "topology");
        let _ = uniform(&mut c);
        for n in 1..20 {
            let _ = below(&mut c, n);
        }
        let _ = below(&mut c, 0);
        shuffle(&mut c, &mut w);
        assert_eq!(v, w);
    }
}
