//! Interval estimates and paired tests for results tables.
//!
//! Decisions:
//! - Accuracy intervals are Wilson score intervals at 95% over the answered items (the same
//!   denominator as the accuracy itself; errored items are not scored). Wilson, not the normal
//!   approximation, because benchmark samples are small and accuracies near 0 or 1, where the
//!   Wald interval collapses to a point or leaves [0, 1].
//! - Embodied scores: mean, sample standard deviation (n − 1) and a Student t interval over
//!   seeds; none of the last two with fewer than two seeds.
//! - Versus a baseline: on reasoning items both answered, the exact (binomial) McNemar test
//!   and a paired bootstrap percentile interval of the accuracy difference; on embodied seeds
//!   both scored, a paired sign-flip permutation test (exact up to 16 seeds, else `draws`
//!   random flips) and a paired bootstrap interval of the mean score difference. Every draw
//!   comes from a ChaCha8 generator seeded with the run's `--seed`, so a report is
//!   reproducible; the number of draws is recorded beside the result.

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

/// Bootstrap resamples (and random sign flips beyond 16 seeds) used by the paired tests.
pub const DEFAULT_DRAWS: usize = 10_000;

/// The mean of `xs`, 0 without values (a comparison without pairs reports no difference).
pub fn mean_or_zero(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Mean, sample standard deviation (n − 1) and the 95% Student t interval of the mean; the
/// last two are `None` with fewer than two values. `None` without values.
pub fn mean_sd_ci(xs: &[f64]) -> Option<(f64, Option<f64>, Option<[f64; 2]>)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return Some((mean, None, None));
    }
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = t975(xs.len() - 1) * sd / n.sqrt();
    Some((mean, Some(sd), Some([mean - half, mean + half])))
}

/// The 0.975 quantile of Student's t distribution with `df` degrees of freedom (the factor
/// of a two-sided 95% interval), by bisection on the t CDF (regularized incomplete beta).
pub fn t975(df: usize) -> f64 {
    let df = df.max(1) as f64;
    // P(T ≤ t) for t ≥ 0: 1 − I_x(df/2, 1/2) / 2 with x = df / (df + t²).
    let cdf = |t: f64| 1.0 - 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
    let (mut lo, mut hi) = (0.0_f64, 1000.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < 0.975 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz's method).
fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..500 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The exact two-sided McNemar p-value for `b` and `c` discordant pairs (one method right and
/// the other wrong, each way): 2·P(X ≤ min(b, c)) for X ~ Binomial(b + c, 1/2), at most 1.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    // Σ_{i ≤ k} C(n, i) / 2^n, in logs so large n cannot overflow.
    let ln_half_n = n as f64 * 0.5_f64.ln();
    let mut ln_choose = 0.0_f64; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// The paired bootstrap 95% percentile interval of the mean of `diffs` (`draws` resamples
/// from a generator seeded with `seed`); `None` without pairs.
pub fn bootstrap_mean_ci(diffs: &[f64], draws: usize, seed: u64) -> Option<[f64; 2]> {
    use rand::{Rng, SeedableRng};
    if diffs.is_empty() || draws == 0 {
        return None;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let n = diffs.len();
    let mut means: Vec<f64> = (0..draws)
        .map(|_| (0..n).map(|_| diffs[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (draws - 1) as f64).round() as usize).min(draws - 1)];
    Some([at(0.025), at(0.975)])
}

/// The two-sided paired sign-flip permutation p-value of the mean of `diffs`: the share of
/// sign assignments whose |mean| is at least the observed one (all 2ⁿ up to n = 16, else
/// `draws` random ones plus the observed, seeded with `seed`). Returns the p-value and the
/// number of assignments used.
pub fn sign_flip_p(diffs: &[f64], draws: usize, seed: u64) -> (f64, usize) {
    use rand::{Rng, SeedableRng};
    let n = diffs.len();
    if n == 0 {
        return (1.0, 0);
    }
    let observed = diffs.iter().sum::<f64>().abs();
    // A relative tolerance so ties of equal sums count as "at least as extreme".
    let tol = 1e-9 * observed.max(1.0);
    let extreme = |sum: f64| sum.abs() >= observed - tol;
    if n <= 16 {
        let total = 1usize << n;
        let hits = (0..total)
            .filter(|mask| {
                let sum: f64 = diffs
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if mask >> i & 1 == 1 { -d } else { *d })
                    .sum();
                extreme(sum)
            })
            .count();
        return (hits as f64 / total as f64, total);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let hits = (0..draws)
        .filter(|_| {
            let sum: f64 = diffs
                .iter()
                .map(|d| if rng.random::<bool>() { -d } else { *d })
                .sum();
            extreme(sum)
        })
        .count();
    ((hits + 1) as f64 / (draws + 1) as f64, draws + 1)
}

/// The sum of two costs, either unknown (`None`: no price); known when either is.
pub fn add_costs(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x + y),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        for (df, t) in [
            (1, 12.7062),
            (2, 4.3027),
            (4, 2.7764),
            (9, 2.2622),
            (29, 2.0452),
            (120, 1.9799),
        ] {
            assert!((t975(df) - t).abs() < 1e-3, "df {df}: {}", t975(df));
        }
        let (mean, sd, ci) = mean_sd_ci(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((mean - 2.5).abs() < 1e-12);
        assert!((sd.unwrap() - 1.290_994_448_7).abs() < 1e-9);
        let [lo, hi] = ci.unwrap();
        assert!((hi - lo - 2.0 * 3.182_446_3 * 1.290_994_448_7 / 2.0).abs() < 1e-4);
        assert_eq!(mean_sd_ci(&[5.0]), Some((5.0, None, None)));
    }

    #[test]
    fn mcnemar_and_sign_flip_are_exact() {
        // b = 1, c = 6: 2·(1 + 7)/128 = 0.125.
        assert!((mcnemar_exact(1, 6) - 0.125).abs() < 1e-12);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        // Four positive differences: only the all-plus and all-minus flips are as extreme.
        let (p, n) = sign_flip_p(&[1.0, 2.0, 3.0, 4.0], 100, 0);
        assert_eq!(n, 16);
        assert!((p - 2.0 / 16.0).abs() < 1e-12);
        let ci = bootstrap_mean_ci(&[1.0, 1.0, 1.0], 100, 0).unwrap();
        assert_eq!(ci, [1.0, 1.0]);
        assert_eq!(
            bootstrap_mean_ci(&[0.0, 1.0], 500, 7),
            bootstrap_mean_ci(&[0.0, 1.0], 500, 7)
        );
    }

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
