//! Embodied `swarmsys` (docs/design/swarmsys.md §2.13) through `colony compare`: every
//! environment on the offline simulated model (one `swarmsys.act` call per matched agent, the
//! trace keys of every decision, identical reruns), an environment without sub-goals refused,
//! and once over HTTP against `serve-mock` with token totals equal to the server's.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{colony, compare_args, compare_policy, jsonl, user_prompt};

const ENVS: [(&str, &[&str], &str); 3] = [
    ("cube", &["--set", "n=2"], "20"),
    (
        "swarmbench",
        &["--set", "agents=3", "--set", "max_round=3"],
        "3",
    ),
    ("wildfire", &["--set", "level=1"], "4"),
];

#[test]
fn every_environment_on_the_simulated_model_with_its_trace() {
    for (env, set, max_steps) in ENVS {
        let dir = tempfile::tempdir().unwrap();
        let rows = compare_policy("swarmsys", env, set, max_steps, &[], dir.path());
        let ep = dir.path().join("episodes/swarmsys/0");
        let steps = jsonl(&ep.join("steps.jsonl"));
        let calls = jsonl(&ep.join("calls.jsonl"));
        let traced: Vec<_> = steps.iter().filter(|s| !s["trace"].is_null()).collect();
        assert!(!traced.is_empty(), "{env}");
        for s in &traced {
            let t = &s["trace"];
            for key in ["events", "epsilon", "p", "matches", "pheromone", "outcomes"] {
                assert!(!t[key].is_null(), "{env}: {key} missing in {t}");
            }
            // One act call per matched agent at this step, carrying its sub-goal.
            let matched: Vec<&String> = t["matches"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, m)| !m.is_null())
                .map(|(a, _)| a)
                .collect();
            let acts: Vec<_> = calls
                .iter()
                .filter(|c| c["step"] == s["step"] && c["purpose"] == "swarmsys.act")
                .collect();
            assert_eq!(acts.len(), matched.len(), "{env} step {}", s["step"]);
            for c in acts {
                assert!(matched.contains(&&c["agent"].as_str().unwrap().to_string()));
                assert!(
                    user_prompt(c).contains("Your current sub-goal: "),
                    "{env}: {}",
                    user_prompt(c)
                );
            }
        }
        // Same seed, same run.
        let again = tempfile::tempdir().unwrap();
        let rows2 = compare_policy("swarmsys", env, set, max_steps, &[], again.path());
        // Episodes finish in any order: compare them by seed.
        let key = |rows: &[serde_json::Value]| {
            let mut k: Vec<String> = rows
                .iter()
                .map(|r| format!("{} {} {}", r["seed"], r["score"], r["calls"]))
                .collect();
            k.sort();
            k
        };
        assert_eq!(key(&rows), key(&rows2), "{env}");
        let read = |d: &std::path::Path| {
            std::fs::read_to_string(d.join("episodes/swarmsys/0/steps.jsonl")).unwrap()
        };
        assert_eq!(read(dir.path()), read(again.path()), "{env}");
    }
}

#[test]
fn options_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let rest = ["--seeds", "0", "--max-steps", "2"];
    let args = compare_args(
        "cube",
        &["--set", "n=2"],
        "swarmsys:eta=1",
        &rest,
        dir.path(),
    );
    let (_, _, err) = colony(&args);
    let text = format!(
        "{err}{}",
        std::fs::read_to_string(dir.path().join("episodes.jsonl")).unwrap_or_default()
    );
    assert!(
        text.contains("unknown option `eta` (known: structured)"),
        "{text}"
    );
}

#[test]
fn against_serve_mock_the_tokens_are_the_servers() {
    let (env, set, max_steps) = ENVS[1];
    common::assert_tokens_are_the_servers("swarmsys", env, set, max_steps);
}
