//! Policy variants in `colony eval`: every spec of a `--policy` list is its own
//! row and results file, labelled by the spec as written or by `label=`; one label with two
//! option sets is refused unless `--force`. Offline, on the simulated model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{assert_ok, lines_of, read_json, summary};

fn eval(policies: &str, out: &Path, extra: &[&str]) -> Output {
    eval_on("gsm8k", &gsm8k_sample(), policies, out)
        .args(["--quiet"])
        .args(extra)
        .env_remove("COLONY_MODELS")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_sweep_of_three_variants_runs_each_on_its_own_items() {
    let dir = tempfile::tempdir().unwrap();
    let out = eval(
        "self_consistency:k=3;self_consistency:k=5;self_consistency:k=2,label=sc2",
        dir.path(),
        &[],
    );
    assert_ok(&out);
    let s = summary(dir.path());
    for (label, k) in [
        ("self_consistency:k=3", 3),
        ("self_consistency:k=5", 5),
        ("sc2", 2),
    ] {
        let row = &s["policies"][label];
        assert_eq!(row["n"], 12, "{label}: {s}");
        // k samples per item: each variant made its own calls, none skipped as done.
        assert_eq!(row["calls"], 12 * k, "{label}: {row}");
        assert_eq!(
            lines_of(&dir.path().join(format!("{label}.jsonl"))),
            12,
            "{label}"
        );
        assert!(dir
            .path()
            .join("calls")
            .join(format!("{label}.jsonl.zst"))
            .is_file());
    }
    assert!(s["policies"].get("self_consistency").is_none(), "{s}");
    // What each label ran with is recorded, without the label.
    let settings = read_json(&dir.path().join("settings.json"));
    assert_eq!(settings["gsm8k"]["sc2"]["spec"], "self_consistency:k=2");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("| self_consistency:k=5 |") && table.contains("| sc2 |"),
        "{table}"
    );
    // The sweep gets its own table, one row per k in numeric order, with the main table's
    // accuracy and interval, tokens and calls per item recomputed from the results.
    let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    let sweep: Vec<&str> = md
        .lines()
        .skip_while(|l| *l != "### Sweep of self_consistency over k")
        .collect();
    assert_eq!(
        sweep[2], "| k | gsm8k (%) | AVG | tokens/item | calls/item | label |",
        "{md}"
    );
    for (i, (k, label)) in [
        (2, "sc2"),
        (3, "self_consistency:k=3"),
        (5, "self_consistency:k=5"),
    ]
    .into_iter()
    .enumerate()
    {
        let items = common::jsonl(&dir.path().join(format!("{label}.jsonl")));
        let correct = items.iter().filter(|r| r["correct"] == true).count();
        let tokens: u64 = items
            .iter()
            .map(|r| {
                r["prompt_tokens"].as_u64().unwrap() + r["completion_tokens"].as_u64().unwrap()
            })
            .sum();
        let acc = 100.0 * correct as f64 / items.len() as f64;
        let row = sweep[4 + i];
        assert!(row.starts_with(&format!("| {k} | {acc:.2} [")), "{row}");
        assert!(
            row.ends_with(&format!(
                "| {acc:.2} | {:.0} | {:.1} | {label} |",
                tokens as f64 / 12.0,
                k as f64
            )),
            "{row}"
        );
    }
}

#[test]
fn a_variant_into_a_directory_holding_its_base_policy_gets_its_own_row() {
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&eval("selforg", dir.path(), &[]));
    let before = summary(dir.path())["policies"]["selforg"].clone();
    assert_ok(&eval("selforg:gamma=0.9", dir.path(), &[]));
    let s = summary(dir.path());
    assert_eq!(
        s["policies"]["selforg"], before,
        "the base row is untouched"
    );
    let variant = &s["policies"]["selforg:gamma=0.9"];
    assert_eq!(variant["n"], 12, "{s}");
    assert!(variant["calls"].as_u64().unwrap() > 0, "{variant}");
    assert_eq!(lines_of(&dir.path().join("selforg:gamma=0.9.jsonl")), 12);
}

#[test]
fn one_label_with_other_options_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&eval("selforg:gamma=0.9,label=g", dir.path(), &[]));
    let out = eval("selforg:gamma=0.5,label=g", dir.path(), &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("`g`")
            && err.contains("selforg:gamma=0.9")
            && err.contains("selforg:gamma=0.5"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Options in another order are the same configuration.
    assert_ok(&eval("selforg: gamma=0.9 ,label=g", dir.path(), &[]));
    assert_ok(&eval("selforg:gamma=0.5,label=g", dir.path(), &["--force"]));
    // `--rounds` is part of the recorded spec, not of the label.
    assert_ok(&eval("debate", dir.path(), &["--rounds", "2"]));
    let out = eval("debate", dir.path(), &["--rounds", "3"]);
    assert!(
        !out.status.success() && stderr(&out).contains("debate:rounds=2"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn two_specs_with_one_label_in_a_list_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for list in ["debate;debate", "single:label=x;cot:label=x"] {
        let out = eval(list, dir.path(), &[]);
        assert!(!out.status.success(), "{list}");
        assert!(stderr(&out).contains("both labelled"), "{}", stderr(&out));
    }
    assert!(!dir.path().join("summary.json").exists());
}

/// The 95% Wilson interval, written out independently of colony's code.
fn wilson(correct: f64, n: f64) -> [f64; 2] {
    let z = 1.959_963_984_540_054_f64;
    let p = correct / n;
    let c = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let h = z / (1.0 + z * z / n) * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt();
    [c - h, c + h]
}

#[test]
fn accuracy_intervals_are_recomputed_from_the_item_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = eval("single;cot", dir.path(), &["--sim-accuracy", "0.5"]);
    assert_ok(&out);
    let s = summary(dir.path());
    for label in ["single", "cot"] {
        let rows = common::jsonl(&dir.path().join(format!("{label}.jsonl")));
        let answered = rows.iter().filter(|r| r["error"].is_null()).count() as f64;
        let correct = rows.iter().filter(|r| r["correct"] == true).count() as f64;
        let [lo, hi] = wilson(correct, answered);
        for row in [&s["policies"][label], &s["datasets"]["gsm8k"][label]] {
            let ci = row["accuracy_ci95"].as_array().unwrap();
            assert!(
                (ci[0].as_f64().unwrap() - lo).abs() < 1e-12,
                "{label}: {ci:?}"
            );
            assert!(
                (ci[1].as_f64().unwrap() - hi).abs() < 1e-12,
                "{label}: {ci:?}"
            );
        }
        let table = String::from_utf8_lossy(&out.stdout).into_owned();
        let cell = format!(
            "| {label} | {:.2} [{:.1}, {:.1}] |",
            100.0 * correct / answered,
            100.0 * lo,
            100.0 * hi
        );
        assert!(table.contains(&cell), "{cell}\n{table}");
    }
}

/// C(n, k), exactly, for the McNemar check.
fn choose(n: u64, k: u64) -> f64 {
    (1..=k).fold(1.0, |acc, i| acc * (n - k + i) as f64 / i as f64)
}

#[test]
fn baseline_comparisons_are_recomputed_from_the_item_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = eval(
        "single;cot;self_consistency:k=3",
        dir.path(),
        &["--baseline", "single", "--sim-accuracy", "0.5"],
    );
    assert_ok(&out);
    let s = summary(dir.path());
    let by_id = |label: &str| -> std::collections::BTreeMap<String, serde_json::Value> {
        common::jsonl(&dir.path().join(format!("{label}.jsonl")))
            .into_iter()
            .map(|r| (r["id"].as_str().unwrap().to_string(), r))
            .collect()
    };
    let base = by_id("single");
    assert!(s["policies"]["single"].get("vs_baseline").is_none());
    for label in ["cot", "self_consistency:k=3"] {
        let rows = by_id(label);
        let (mut pairs, mut only_base, mut only_this, mut diff) = (0u64, 0u64, 0u64, 0i64);
        for (id, r) in &rows {
            let b = &base[id];
            if !r["error"].is_null() || !b["error"].is_null() {
                continue;
            }
            pairs += 1;
            let (p, q) = (r["correct"] == true, b["correct"] == true);
            only_this += u64::from(p && !q);
            only_base += u64::from(q && !p);
            diff += i64::from(p) - i64::from(q);
        }
        let n = only_base + only_this;
        let k = only_base.min(only_this);
        let p_exact =
            ((0..=k).map(|i| choose(n, i)).sum::<f64>() * 2.0 / 2f64.powi(n as i32)).min(1.0);
        let v = &s["policies"][label]["vs_baseline"];
        assert_eq!(v["baseline"], "single", "{v}");
        assert_eq!(v["pairs"], pairs, "{v}");
        assert_eq!(v["policy_only"], only_this, "{v}");
        assert_eq!(v["baseline_only"], only_base, "{v}");
        assert!(
            (v["p_value"].as_f64().unwrap() - p_exact).abs() < 1e-12,
            "{v} vs {p_exact}"
        );
        assert!((v["delta"].as_f64().unwrap() - diff as f64 / pairs as f64).abs() < 1e-12);
        let ci = v["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64().unwrap() <= ci[1].as_f64().unwrap());
        assert_eq!(v["draws"], 10_000);
    }
    let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    assert!(
        md.contains("Versus baseline `single`") && md.contains("| cot | all |"),
        "{md}"
    );
    // The same command again gives the same intervals (seeded resampling).
    assert_ok(&eval(
        "single;cot;self_consistency:k=3",
        dir.path(),
        &["--baseline", "single", "--sim-accuracy", "0.5"],
    ));
    assert_eq!(
        summary(dir.path())["policies"]["cot"]["vs_baseline"],
        s["policies"]["cot"]["vs_baseline"]
    );
    // An unknown baseline is one line naming it and the labels there are.
    let bad = eval("single", dir.path(), &["--baseline", "nope"]);
    assert!(!bad.status.success());
    let err = stderr(&bad);
    assert!(err.contains("nope") && err.contains("cot"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_refused_connection_stops_the_run_without_retries() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9; the default retry settings are in force.
    let out = eval(
        "single",
        dir.path(),
        &["--base-url", "http://127.0.0.1:9/v1", "--model", "sim"],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("efused"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let rows = common::jsonl(&dir.path().join("single.jsonl"));
    assert!(!rows.is_empty());
    // Every recorded item failed on its first attempt: no call was retried.
    assert!(
        rows.iter()
            .all(|r| r["error"].is_string() && r["retries"] == 0),
        "{rows:?}"
    );
}

/// `eval --dry-run` writes nothing and estimates each policy's calls and prompt tokens
/// within 1.5× of the run it then makes.
#[test]
fn eval_dry_run_estimates_the_run_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("e");
    let policies = "single;self_consistency:k=3;selforg";
    let dry = eval(policies, &out, &["--dry-run"]);
    assert_ok(&dry);
    assert!(!out.exists(), "a dry run wrote {}", out.display());
    let text = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(
        text.contains("Estimated on the offline simulated model"),
        "{text}"
    );
    assert_ok(&eval(policies, &out, &[]));
    for label in ["single", "self_consistency:k=3", "selforg"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| gsm8k | {label} |")))
            .unwrap_or_else(|| panic!("{text}"));
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let (calls, prompt): (f64, f64) = (f[5].parse().unwrap(), f[6].parse().unwrap());
        let items = common::jsonl(&out.join(format!("{label}.jsonl")));
        let real_calls: f64 = items.iter().map(|r| r["calls"].as_f64().unwrap()).sum();
        let real_prompt: f64 = items
            .iter()
            .map(|r| r["prompt_tokens"].as_f64().unwrap())
            .sum();
        for (what, est, real) in [
            ("calls", calls, real_calls),
            ("prompt", prompt, real_prompt),
        ] {
            assert!(
                (1.0 / 1.5..=1.5).contains(&(est / real)),
                "{label} {what}: estimated {est}, ran {real}\n{text}"
            );
        }
    }
}
