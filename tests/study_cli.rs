//! `colony study selforg-amplification`: outputs labelled as simulation, seeded and
//! reproducible, bad input rejected.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{assert_ok, colony_cmd, read_json, run_ok};

fn study(out: &Path, extra: &[&str]) -> Output {
    colony_cmd(["study", "selforg-amplification", "--out"])
        .arg(out)
        .args(["--items", "6", "--trials", "400", "--embedder", "hash"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn writes_labelled_tables_and_plots_and_reproduces_with_the_same_seed() {
    let a = tempfile::tempdir().unwrap();
    let out = study(a.path(), &["--p", "0.3,0.7"]);
    assert_ok(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("SIMULATION"), "{stdout}");
    for f in [
        "at_least_two.md",
        "at_least_two.csv",
        "at_least_two.svg",
        "policies.md",
        "policies.csv",
        "policies.svg",
        "early_stopping.md",
        "early_stopping.csv",
        "early_stopping.svg",
        "study.json",
        "gap.md",
        "gap.csv",
        "gap_short.svg",
        "gap_long.svg",
        "gap.json",
    ] {
        let text = std::fs::read_to_string(a.path().join(f)).unwrap();
        assert!(
            text.contains("SIMULATION") || text.starts_with("simulation,"),
            "{f} is not labelled as simulation"
        );
    }
    let doc: serde_json::Value = read_json(&a.path().join("study.json"));
    assert_eq!(doc["simulation"], true);
    // Part (a): N = 1..10 for three p values; the closed form is exact.
    let closed = doc["at_least_two"].as_array().unwrap();
    assert_eq!(closed.len(), 30);
    let n4 = closed
        .iter()
        .find(|r| r["n"] == 4 && r["p"] == 0.4)
        .unwrap();
    let want = 1.0 - 0.6f64.powi(4) - 4.0 * 0.4 * 0.6f64.powi(3);
    assert!((n4["closed_form"].as_f64().unwrap() - want).abs() < 1e-12);
    // Part (b): four policies at two accuracies, every item answered; SelfOrg's 12 calls.
    let rows = doc["policies"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for r in rows {
        assert_eq!(r["summary"]["n"], 6);
        assert_eq!(r["summary"]["errors"], 0);
    }
    let selforg = rows.iter().find(|r| r["policy"] == "selforg").unwrap();
    assert_eq!(selforg["calls_per_item"], 12.0);
    // Part (c): with and without early stopping at each p.
    assert_eq!(doc["early_stopping"].as_array().unwrap().len(), 4);
    // Part (d): five policies at three accuracies, short and long replies; the gap is to
    // self-consistency, and the long replies cost more tokens.
    let gap = doc["gap"].as_array().unwrap();
    assert_eq!(gap.len(), 30);
    let find = |replies: &str, policy: &str| {
        gap.iter()
            .find(|r| r["replies"] == replies && r["policy"] == policy && r["p"] == 0.5)
            .unwrap()
    };
    assert!(find("short", "self_consistency")["gap_points"].is_null());
    let answer = find("long", "selforg:embed=answer");
    assert_eq!(answer["summary"]["errors"], 0);
    let sc_acc = find("long", "self_consistency")["summary"]["accuracy"]
        .as_f64()
        .unwrap();
    let want = 100.0 * (answer["summary"]["accuracy"].as_f64().unwrap() - sc_acc);
    assert!((answer["gap_points"].as_f64().unwrap() - want).abs() < 1e-9);
    assert!(
        find("long", "selforg")["tokens_per_item"].as_f64().unwrap()
            > find("short", "selforg")["tokens_per_item"]
                .as_f64()
                .unwrap()
    );
    let md = std::fs::read_to_string(a.path().join("gap.md")).unwrap();
    assert!(
        md.contains("Closest to self_consistency with long replies"),
        "{md}"
    );

    // Same seed: the same numbers.
    let b = tempfile::tempdir().unwrap();
    assert!(study(b.path(), &["--p", "0.3,0.7"]).status.success());
    for f in [
        "at_least_two.csv",
        "policies.csv",
        "early_stopping.csv",
        "gap.csv",
    ] {
        assert_eq!(
            std::fs::read_to_string(a.path().join(f)).unwrap(),
            std::fs::read_to_string(b.path().join(f)).unwrap(),
            "{f} differs between two runs with the same seed"
        );
    }
    // Another seed: different draws.
    let c = tempfile::tempdir().unwrap();
    assert!(study(c.path(), &["--p", "0.3,0.7", "--seed", "5"])
        .status
        .success());
    assert_ne!(
        std::fs::read_to_string(a.path().join("at_least_two.csv")).unwrap(),
        std::fs::read_to_string(c.path().join("at_least_two.csv")).unwrap()
    );
}

#[test]
fn rejects_probabilities_outside_zero_one() {
    let d = tempfile::tempdir().unwrap();
    let out = study(d.path(), &["--p", "0.5,1.5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--p") && err.contains("1.5"), "{err}");
    let out = study(d.path(), &["--gap-p=0.5,1.1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--gap-p"), "{err}");
    let out = study(d.path(), &["--parts", "a,e"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("`e`"), "{err}");
}

#[test]
fn part_d_alone_writes_only_its_files() {
    let d = tempfile::tempdir().unwrap();
    let out = study(
        d.path(),
        &[
            "--parts",
            "d",
            "--gap-p",
            "0.5",
            "--gap-policies",
            "self_consistency;selforg:embed=tail",
            "--long-tokens",
            "0",
        ],
    );
    assert_ok(&out);
    assert!(!d.path().join("study.json").exists());
    assert!(!d.path().join("policies.md").exists());
    assert!(
        !d.path().join("gap_long.svg").exists(),
        "no long replies asked for"
    );
    let doc: serde_json::Value = read_json(&d.path().join("gap.json"));
    let rows = doc["gap"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["policy"], "selforg:embed=tail");
    assert_eq!(rows[1]["replies"], "short");
}

#[test]
fn framework_scaling_reports_per_step_figures_and_exponents_labelled_as_simulation() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(
        colony_cmd([
            "study",
            "framework-scaling",
            "--frameworks",
            "independent",
            "--sizes",
            "2,4,8",
            "--steps",
            "2",
            "--envs",
            "swarmbench:size=12,max_round=100",
            "--out",
        ])
        .arg(dir.path()),
    );
    let json: serde_json::Value = read_json(&dir.path().join("study.json"));
    let report = &json["reports"][0];
    assert_eq!(report["label"], "SIMULATION");
    // One call per agent per round on SwarmBench: calls grow exactly linearly.
    let e = report["exponents"]["independent"]["calls"]
        .as_f64()
        .unwrap();
    assert!((e - 1.0).abs() < 1e-9, "{e}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["calls_per_step"], 8.0);
    for f in [
        "scaling_swarmbench.md",
        "scaling_swarmbench.csv",
        "scaling_swarmbench.svg",
    ] {
        let text = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert!(text.contains("SIMULATION"), "{f}");
    }
}
