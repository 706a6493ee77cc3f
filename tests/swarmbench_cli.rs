#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `colony swarmbench physics` and `colony env … swarmbench` through the built binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn colony(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_colony"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const ISSUE_EXAMPLE: &str = r#"{"height": 5, "width": 6,
 "meshes": [{"kind": "agent", "id": "a", "pos": [2, 0]},
            {"kind": "block", "id": "B", "pos": [1, 2], "shape": ["BB", "B."], "mass": 5},
            {"kind": "wall",  "id": "W", "pos": [0, 5], "shape": ["W", "W"]}],
 "actions": {"a": "RIGHT"}}"#;

#[test]
fn physics_prints_one_sorted_line_per_scenario() {
    let (ok, out, err) = colony(&["swarmbench", "physics"], ISSUE_EXAMPLE);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "{\"grid\":[\".....W\",\"..BB.W\",\".AB...\",\"......\",\"......\"],\"on_grid\":{\"B\":true,\"W\":true,\"a\":true},\"positions\":{\"B\":[1,2],\"W\":[0,5],\"a\":[2,1]}}\n"
    );
    let two = r#"[{"height": 3, "width": 3, "meshes": [{"kind": "agent", "id": "a", "pos": [1, 2]}], "actions": {"a": "RIGHT"}},
                  {"height": 3, "width": 3, "meshes": [{"kind": "agent", "id": "a", "pos": [1, 1]}]}]"#;
    let (ok, out, _) = colony(&["swarmbench", "physics"], two);
    assert!(ok);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["on_grid"]["a"], false);
    assert_eq!(lines[0]["positions"]["a"], serde_json::json!([1, 3]));
    assert_eq!(lines[1]["grid"], serde_json::json!(["...", ".A.", "..."]));
}

#[test]
fn physics_errors_name_the_scenario_and_field() {
    let bad = r#"[{"height": 3, "width": 3, "meshes": [{"kind": "agent", "id": "a", "pos": [1, 1]}], "actions": {"a": "JUMP"}}]"#;
    let (ok, _, err) = colony(&["swarmbench", "physics"], bad);
    assert!(!ok);
    assert!(
        err.contains("scenario [0]") && err.contains("actions.a"),
        "{err}"
    );
}

#[test]
fn env_reset_json_has_grid_and_agents_and_step_round_trips() {
    let (ok, out, err) = colony(
        &[
            "env",
            "reset",
            "swarmbench",
            "--seed",
            "42",
            "--set",
            "task=foraging",
            "--json",
        ],
        "",
    );
    assert!(ok, "{err}");
    let state: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(state["grid"][1], "WFF.Wa.NNW");
    assert_eq!(state["agents"]["Agent_0"], serde_json::json!([2, 3]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    std::fs::write(&path, &out).unwrap();
    let env_step = |a: &str| {
        let s = path.to_str().unwrap();
        colony(
            &["env", "step", "swarmbench", "--state", s, "--actions", a],
            "",
        )
    };
    let (ok, out, err) =
        env_step(r#"{"Agent_0": "ACTION: LEFT\nMSG: food here", "Agent_1": "UP"}"#);
    assert!(ok, "{err}");
    let step: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        step["state"]["agents"]["Agent_1"],
        serde_json::json!([6, 2])
    );
    assert_eq!(
        step["state"]["agents"]["Agent_0"],
        serde_json::json!([2, 3])
    );
    assert_eq!(step["state"]["round"], 1);
    let (ok, _, err) = env_step(r#"{"Agent_0": "JUMP"}"#);
    assert!(!ok && err.contains("Agent_0"), "{err}");
}
