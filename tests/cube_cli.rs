//! `colony env … cube`: the environment command-line contract for CUBE (DESIGN.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::colony;

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cube_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn list_reset_and_bad_params() {
    let (ok, out, _) = colony(&["env", "list"]);
    assert!(
        ok && out.contains("cube-v0") && out.contains("block_specs"),
        "{out}"
    );
    let (ok, out, err) = colony(&[
        "env", "reset", "cube", "--set", "n=8", "--seed", "3", "--json",
    ]);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["grid_size"], 20);
    assert_eq!(s["t"], 0);
    assert_eq!(s["agents"].as_array().unwrap().len(), 8);
    assert_eq!(s["blocks"].as_array().unwrap().len(), 6);
    assert_eq!(s["blocks"][0]["weight"], 5);
    assert!(s["delivered"].as_array().unwrap().is_empty());
    assert_eq!(s["score"], 0.0);
    let (ok, _, err) = colony(&["env", "reset", "cube", "--set", "m=3"]);
    assert!(!ok && err.contains("parameter m"), "{err}");
    let (ok, _, err) = colony(&[
        "env",
        "reset",
        "cube",
        "--set",
        "n=4",
        "--set",
        "num_agents=30",
    ]);
    assert!(!ok && err.contains("num_agents"), "{err}");
}

#[test]
fn layout_then_step_with_a_plan_and_with_primitives() {
    let layout = tmp("c1.txt");
    std::fs::write(
        &layout,
        "   01234567\n0  .......G\n1  .0aab..G\n2  21aa...G\n3  .......G\n",
    )
    .unwrap();
    let (ok, out, err) = colony(&[
        "env",
        "reset",
        "cube",
        "--layout",
        layout.to_str().unwrap(),
        "--json",
    ]);
    assert!(ok, "{err}");
    let state = tmp("c1.json");
    std::fs::write(&state, &out).unwrap();
    let step = |a: &str| {
        let s = state.to_str().unwrap();
        colony(&["env", "step", "cube", "--state", s, "--actions", a])
    };
    let (ok, out, err) = step(r#"{"0": "RIGHT", "1": "RIGHT", "2": "RIGHT"}"#);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["state"]["blocks"][0]["col"], 3);
    assert_eq!(s["state"]["agents"][0], serde_json::json!([1, 2]));
    assert_eq!(s["events"][0]["kind"], "push");
    assert_eq!(s["rewards"]["0"], -0.01);
    // A symbolic plan: agent 0 pushes alone (fails: the chain weighs 3), then keeps going.
    let (ok, out, err) = step(r#"{"0": "push_block(block=1, steps=1)"}"#);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["state"]["executor"]["history"][0]["action"], "push_block");
    assert_eq!(
        s["state"]["executor"]["history"][0]["outcome"],
        "failed:not_aligned"
    );
    let (ok, _, err) = step(r#"{"0": "fly(up)"}"#);
    assert!(!ok && err.contains("unknown action"), "{err}");
}

#[test]
fn run_heuristic_and_bench() {
    let (ok, out, err) = colony(&[
        "env",
        "run",
        "cube",
        "--policy",
        "heuristic,noop",
        "--set",
        "n=2",
        "--set",
        "max_steps=200",
        "--seeds",
        "0..2",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("heuristic") && out.contains("noop"), "{out}");
    let (ok, out, err) = colony(&["env", "bench", "cube", "--set", "n=8", "--steps", "50"]);
    assert!(ok, "{err}");
    let b: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(b["env"], "cube-v0");
    assert!(b["ms_per_step"].as_f64().unwrap() > 0.0);
}
