//! Property tests of the parameter bounds (counts in flight, roster size, episode count, seed
//! ranges): whatever the value, the parsers either accept it within the documented range or
//! refuse it with a message, and never panic or allocate past the bound. The CLI cases in
//! `tests/hostile_cli.rs` check the same bounds end to end.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony::cli::model_args::{parse_count, parse_in_flight};
use colony::env::parse_seeds;
use colony::eval::embodied::compare_config::{check_episode_count, MAX_EPISODES};
use colony::eval::models::MAX_ROSTER_AGENTS;
use colony::llm::MAX_CONCURRENCY;
use proptest::prelude::*;

const MAX_SEEDS: u64 = 1_000_000;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        // A fixed seed, as the environments' hostile tests: CI runs the same cases each time.
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

    /// Item 1: any in-flight count is 1..=MAX_CONCURRENCY or an error naming the range.
    #[test]
    fn in_flight_counts_stay_in_range(n in any::<u128>(), text in ".{0,24}") {
        for s in [n.to_string(), text] {
            match parse_in_flight(&s) {
                Ok(v) => prop_assert!((1..=MAX_CONCURRENCY).contains(&v)),
                Err(e) => prop_assert!(!e.is_empty()),
            }
        }
        let ok = (1..=MAX_CONCURRENCY as u128).contains(&n);
        prop_assert_eq!(parse_in_flight(&n.to_string()).is_ok(), ok);
    }

    /// Item 2: any roster size is 1..=MAX_ROSTER_AGENTS or an error.
    #[test]
    fn roster_sizes_stay_in_range(n in any::<u64>()) {
        let r = parse_count(&n.to_string(), MAX_ROSTER_AGENTS);
        prop_assert_eq!(r.is_ok(), (1..=MAX_ROSTER_AGENTS as u64).contains(&n));
    }

    /// Item 4: a plan is refused exactly when its episode count passes the limit, however
    /// large each factor (no overflow).
    #[test]
    fn episode_counts_are_refused_past_the_limit(
        c in any::<usize>(), p in any::<usize>(), s in any::<usize>(),
        small in (0usize..200, 0usize..200, 0usize..200),
    ) {
        for (c, p, s) in [(c, p, s), small] {
            let count = (c as u128).saturating_mul(p as u128).saturating_mul(s as u128);
            prop_assert_eq!(check_episode_count(c, p, s).is_ok(), count <= u128::from(MAX_EPISODES));
        }
    }

    /// Seed ranges: at most MAX_SEEDS seeds, all inside the range asked, whatever the bounds
    /// (up to 2⁶⁴−1); larger ranges and empty ones are errors.
    #[test]
    fn seed_ranges_are_bounded(a in any::<u64>(), width in prop_oneof![0u64..2_000_000, any::<u64>()]) {
        let b = a.saturating_add(width);
        for (spec, last) in [(format!("{a}..={b}"), Some(b)), (format!("{a}..{b}"), b.checked_sub(1))] {
            match parse_seeds(&spec) {
                Ok(seeds) => {
                    prop_assert!(!seeds.is_empty() && seeds.len() as u64 <= MAX_SEEDS);
                    prop_assert_eq!(seeds[0], a);
                    prop_assert_eq!(Some(*seeds.last().unwrap()), last);
                }
                Err(e) => {
                    let text = e.to_string();
                    let too_many = last.is_some_and(|l| l >= a && l - a >= MAX_SEEDS);
                    prop_assert!(too_many || last.is_none_or(|l| l < a), "{}", text);
                }
            }
        }
    }
}
