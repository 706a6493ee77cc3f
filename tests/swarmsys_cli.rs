//! SwarmSys from the command line: `colony swarmsys match` (docs/design/swarmsys.md §2.6) and
//! `colony eval --policy swarmsys…` over HTTP against `serve-mock`: totals equal the server's
//! counts, resume after a kill, replay identical.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::eval_run::eval_counted_by_the_server;
use common::{colony, jsonl};
use serde_json::Value;

const POLICIES: &str = "swarmsys;swarmsys:mode=c;swarmsys:mode=b,roles=random";
/// Each spec is its own results file, named by its label (the spec as written).
const FILES: [&str; 3] = [
    "swarmsys",
    "swarmsys:mode=c",
    "swarmsys:mode=b,roles=random",
];

#[test]
fn match_prints_the_spec_distribution_and_names_bad_fields() {
    let dir = tempfile::tempdir().unwrap();
    let compat = dir.path().join("compat.json");
    std::fs::write(&compat, r#"{"compat": [[0.9, 0.8, 0.6], [0.5, 0.5, 0.5]]}"#).unwrap();
    let (ok, out, err) = colony(&[
        "swarmsys",
        "match",
        "--compat",
        compat.to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["epsilon"], serde_json::json!([0.15, 0.15]));
    let p: Vec<f64> = serde_json::from_value(v["p"][0].clone()).unwrap();
    for (x, want) in p.iter().zip([0.4975, 0.3752, 0.1272]) {
        assert!((x - want).abs() < 5e-5, "{p:?}");
    }
    // Outcomes from their own file, or in the same object.
    let outcomes = dir.path().join("outcomes.json");
    std::fs::write(&outcomes, r#"{"outcomes": [[1, 0, 1, 1, 0], []]}"#).unwrap();
    let (ok, out, err) = colony(&[
        "swarmsys",
        "match",
        "--compat",
        compat.to_str().unwrap(),
        "--outcomes",
        outcomes.to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert!((v["epsilon"][0].as_f64().unwrap() - 0.23).abs() < 1e-12);
    let both = dir.path().join("both.json");
    std::fs::write(
        &both,
        r#"{"compat": [[0.9, 0.8, 0.6]], "outcomes": [[0, 0]]}"#,
    )
    .unwrap();
    let (ok, out, _) = colony(&[
        "swarmsys",
        "match",
        "--compat",
        both.to_str().unwrap(),
        "--gamma",
        "0",
        "--eps-min",
        "0.1",
        "--eps-max",
        "0.5",
        "--json",
    ]);
    assert!(ok);
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert!((v["epsilon"][0].as_f64().unwrap() - 0.5).abs() < 1e-12);
    // γ = 0: exploitation is uniform.
    let p0 = v["p"][0][0].as_f64().unwrap();
    assert!((p0 - (0.5 * 0.9 / 2.3 + 0.5 / 3.0)).abs() < 1e-12, "{p0}");
    // Bad input: one line naming the file and the field, non-zero exit.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"compat": [[0.9, -0.1]]}"#).unwrap();
    let (ok, _, err) = colony(&["swarmsys", "match", "--compat", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("bad.json") && err.contains("`compat[0][1]`"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let many = dir.path().join("many.json");
    let rows = vec!["[0.5]"; 4097].join(",");
    std::fs::write(&many, format!("{{\"compat\": [{rows}]}}")).unwrap();
    let (ok, _, err) = colony(&["swarmsys", "match", "--compat", many.to_str().unwrap()]);
    assert!(!ok && err.contains("at most 4096"), "{err}");
    let (ok, _, err) = colony(&[
        "swarmsys",
        "match",
        "--compat",
        compat.to_str().unwrap(),
        "--eps-min",
        "0.5",
        "--eps-max",
        "0.2",
    ]);
    assert!(!ok && err.contains("eps-min"), "{err}");
}

#[test]
fn eval_over_http_totals_equal_the_servers_counts() {
    let (dir, _, s) = eval_counted_by_the_server(POLICIES, "0.6", &FILES);
    for p in FILES {
        let rows = jsonl(&dir.path().join(format!("{p}.jsonl")));
        assert_eq!(rows.len(), 12);
        for r in &rows {
            let t = &r["trace"];
            let rounds = if p == "swarmsys:mode=c" {
                &t["exam_trace"]["rounds"]
            } else {
                &t["rounds"]
            };
            if let Some(rounds) = rounds.as_array() {
                for key in ["epsilon", "p", "matches", "verdicts", "pheromone"] {
                    assert!(rounds[0].get(key).is_some(), "{p}: no `{key}`");
                }
            }
        }
    }
    let acc = s["policies"]["swarmsys"]["accuracy"].as_f64().unwrap();
    assert!(acc > 0.5, "{acc}");
    // The §2.10 metrics, averaged per policy over the items that report them.
    let h_c = &s["policies"]["swarmsys"]["metrics"]["h_c"];
    assert!(h_c["items"].as_u64().unwrap() > 0, "{h_c}");
    assert!(
        (0.0..=1.0).contains(&h_c["mean"].as_f64().unwrap()),
        "{h_c}"
    );
    let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    assert!(
        md.contains("Policy metrics") && md.contains("| h_c |"),
        "{md}"
    );
}

#[test]
fn killed_mid_run_then_rerun_gives_the_same_results() {
    common::eval_run::assert_resumes_after_kill(POLICIES, &FILES, "30");
}

#[test]
fn a_recorded_run_replays_identically_offline() {
    common::eval_run::assert_replays_identically(POLICIES, &FILES);
}
