//! The environment command line's shared behaviour (DESIGN.md contract), independent of any
//! one environment: clear errors that name the culprit, nothing printed before them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::colony;

#[test]
fn list_names_every_registered_environment() {
    let (ok, out, _) = colony(&["env", "list", "--json"]);
    assert!(ok);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    for id in ["cube-v0", "swarmbench-v0", "wildfire-v0"] {
        assert!(ids.contains(&id), "{ids:?}");
    }
}

#[test]
fn bad_input_is_a_clear_error_before_any_output() {
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["env", "reset", "nope"],
            &["unknown environment \"nope\"", "cube-v0"],
        ),
        (
            &[
                "env",
                "run",
                "cube",
                "--policy",
                "noop,bogus",
                "--seeds",
                "0..1",
            ],
            &["unknown policy \"bogus\"", "heuristic"],
        ),
        (
            &["env", "run", "cube", "--seeds", "3..1"],
            &["--seeds", "empty"],
        ),
        (
            // 8 TB of seeds once; now refused before anything is allocated.
            &["env", "run", "cube", "--seeds", "0..1000000000000"],
            &["--seeds", "more than 1000000 seeds"],
        ),
        (
            &["env", "bench", "cube", "--set", "colour=red"],
            &["colour", "unknown parameter"],
        ),
        (
            &["env", "step", "cube", "--state", "/nonexistent/state.json"],
            &["/nonexistent/state.json"],
        ),
    ];
    for (args, wanted) in cases {
        let (ok, out, err) = colony(args);
        assert!(!ok, "{args:?} succeeded");
        assert!(out.is_empty(), "{args:?} printed before failing: {out}");
        for w in wanted {
            assert!(err.contains(w), "{args:?}: {err:?} lacks {w:?}");
        }
    }
}

#[test]
fn run_compares_policies_on_the_same_seeds_and_writes_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let (ok, out, err) = colony(&[
        "env",
        "run",
        "cube",
        "--set",
        "n=2",
        "--set",
        "max_steps=15",
        "--policy",
        "random,noop",
        "--seeds",
        "0..2",
        "--out",
        out_dir,
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("| random | 2 |") && out.contains("| noop | 2 |"),
        "{out}"
    );
    let summary = common::summary(dir.path());
    assert_eq!(
        summary["policies"]["noop"]["seeds"],
        serde_json::json!([0, 1])
    );
    let traj = std::fs::read_to_string(dir.path().join("random/seed-1.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = traj
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["seed"], 1);
    assert!(lines[0]["state"].is_object());
    assert_eq!(
        lines.len(),
        1 + 15,
        "header + one line per step until truncation"
    );
    assert_eq!(lines.last().unwrap()["truncated"], true);
}
