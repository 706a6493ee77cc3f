//! `colony compare` statistics: per policy the mean, the sample sd (n−1)
//! and the Student t interval over seeds, and with `--baseline` the paired sign-flip test and
//! bootstrap interval, all recomputed here from `episodes.jsonl` with independent code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{colony, compare_args, jsonl, read_json};

/// t_{0.975, 4}, from the published table.
const T975_DF4: f64 = 2.776_445;

#[test]
fn scores_carry_sd_t_intervals_and_paired_tests() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let (ok, table, err) = colony(&[
        "compare",
        "--env",
        "cube",
        "--set",
        "n=2",
        "--policies",
        "scripted:heuristic,scripted:random,scripted:noop",
        "--seeds",
        "0..5",
        "--max-steps",
        "30",
        "--baseline",
        "scripted:noop",
        "--seed",
        "3",
        "--quiet",
        "--out",
        out,
    ]);
    assert!(ok, "{err}");
    let s = read_json(&dir.path().join("summary.json"));
    let mut scores: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
    for e in jsonl(&dir.path().join("episodes.jsonl")) {
        scores
            .entry(e["policy"].as_str().unwrap().to_string())
            .or_default()
            .insert(e["seed"].as_u64().unwrap(), e["score"].as_f64().unwrap());
    }
    for (policy, by_seed) in &scores {
        let xs: Vec<f64> = by_seed.values().copied().collect();
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let p = &s["policies"][policy];
        assert!(
            (p["score_mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{p}"
        );
        assert!((p["score_sd"].as_f64().unwrap() - sd).abs() < 1e-9, "{p}");
        let ci = p["score_ci95"].as_array().unwrap();
        let half = T975_DF4 * sd / n.sqrt();
        assert!(
            (ci[0].as_f64().unwrap() - (mean - half)).abs() < 1e-4,
            "{p}"
        );
        assert!(
            (ci[1].as_f64().unwrap() - (mean + half)).abs() < 1e-4,
            "{p}"
        );
    }
    let base = &scores["scripted:noop"];
    assert!(s["policies"]["scripted:noop"].get("vs_baseline").is_none());
    for policy in ["scripted:heuristic", "scripted:random"] {
        let diffs: Vec<f64> = scores[policy]
            .iter()
            .map(|(seed, x)| x - base[seed])
            .collect();
        let observed = diffs.iter().sum::<f64>().abs();
        // Every one of the 2^5 sign assignments.
        let extreme = (0u32..32)
            .filter(|mask| {
                let sum: f64 = diffs
                    .iter()
                    .enumerate()
                    .map(|(i, d)| if mask >> i & 1 == 1 { -d } else { *d })
                    .sum();
                sum.abs() >= observed - 1e-9 * observed.max(1.0)
            })
            .count();
        let v = &s["policies"][policy]["vs_baseline"];
        assert_eq!(v["baseline"], "scripted:noop");
        assert_eq!(v["pairs"], 5);
        assert_eq!(v["flips"], 32);
        assert!(
            (v["p_value"].as_f64().unwrap() - extreme as f64 / 32.0).abs() < 1e-12,
            "{v}"
        );
        let delta = diffs.iter().sum::<f64>() / 5.0;
        assert!((v["delta"].as_f64().unwrap() - delta).abs() < 1e-9, "{v}");
        assert_eq!(v["seed"], 3);
    }
    assert!(
        table.contains("score sd (n−1)") && table.contains("vs scripted:noop"),
        "{table}"
    );
    assert!(table.contains("5 seed(s) per policy"), "{table}");
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &[],
        "scripted:noop",
        &["--seeds", "0", "--baseline", "nope"],
        Path::new(out),
    ));
    assert!(!ok && err.contains("--baseline nope"), "{err}");
}
