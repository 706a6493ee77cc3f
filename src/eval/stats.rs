//! Interval estimates for results tables (issue 26, part 1).
//!
//! Decision: accuracy intervals are Wilson score intervals at 95% over the answered items (the
//! same denominator as the accuracy itself; errored items are not scored). Wilson, not the
//! normal approximation, because benchmark samples are small and accuracies near 0 or 1, where
//! the Wald interval collapses to a point or leaves [0, 1].

/// The two-sided 95% standard normal quantile, z₀.₉₇₅.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of `successes` out of `trials`, as fractions; `None` without
/// trials.
pub fn wilson95(successes: usize, trials: usize) -> Option<[f64; 2]> {
    if trials == 0 {
        return None;
    }
    let n = trials as f64;
    let p = successes.min(trials) as f64 / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At p = 0 or 1 one bound is exactly the edge; rounding must not move it inside.
    let lo = if successes == 0 {
        0.0
    } else {
        (center - half).max(0.0)
    };
    let hi = if successes >= trials {
        1.0
    } else {
        (center + half).min(1.0)
    };
    Some([lo, hi])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values_and_stays_in_range() {
        // 8 of 10: the textbook interval [0.490, 0.943].
        let [lo, hi] = wilson95(8, 10).unwrap();
        assert!(
            (lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4,
            "{lo} {hi}"
        );
        // All right or all wrong: one bound at the edge, the other strictly inside.
        let [lo, hi] = wilson95(12, 12).unwrap();
        assert!(hi == 1.0 && lo > 0.7 && lo < 0.8, "{lo}");
        let [lo, hi] = wilson95(0, 12).unwrap();
        assert!(lo == 0.0 && hi > 0.2 && hi < 0.3, "{hi}");
        assert_eq!(wilson95(0, 0), None);
    }
}
