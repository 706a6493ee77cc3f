//! `colony compare` end to end: every environment against `serve-mock` over loopback HTTP and
//! against the in-process simulated model, SwarmBench prompts byte for byte, scripted replies
//! and their fallbacks, determinism with many episodes in flight, record → replay, resume
//! after `kill -9`, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use colony_env_api::Environment;
use common::{
    assert_stopped_early, colony, compare_args, compare_flags, compare_resumed_after_kill,
    episode_files, jsonl, stats, summary, Mock,
};
use serde_json::Value;

/// Small settings per environment, so each episode takes milliseconds.
const ENVS: &[(&str, &[&str])] = &[
    ("swarmbench", &["--set", "agents=4", "--set", "max_round=6"]),
    ("cube", &["--set", "n=2"]),
    ("wildfire", &["--set", "level=1"]),
];

fn compare(env: &str, set: &[&str], extra: &[&str], out: &Path) -> (bool, String, String) {
    let rest = [&["--seeds", "0..2", "--max-steps", "40"][..], extra].concat();
    let policies = "independent,scripted:noop";
    colony(&compare_args(env, set, policies, &rest, out))
}

#[test]
fn every_environment_against_serve_mock_counts_the_servers_tokens() {
    let m = Mock::start(&[], &[]);
    for (env, set) in ENVS {
        let dir = tempfile::tempdir().unwrap();
        let before = stats(&m.url);
        let (ok, out, err) = compare(
            env,
            set,
            &["--base-url", &m.url, "--model", "sim"],
            dir.path(),
        );
        assert!(ok, "{env}: {err}");
        assert!(out.contains("| independent |"), "{env}: {out}");
        let rows = jsonl(&dir.path().join("episodes.jsonl"));
        assert_eq!(rows.len(), 4, "{env}: two policies × two seeds");
        let (mut prompt, mut completion, mut calls) = (0, 0, 0);
        for r in &rows {
            assert!(r["error"].is_null(), "{env}: {r}");
            prompt += r["prompt_tokens"].as_u64().unwrap();
            completion += r["completion_tokens"].as_u64().unwrap();
            calls += r["calls"].as_u64().unwrap();
        }
        assert!(calls > 0, "{env}: the LLM policy made no call");
        let after = stats(&m.url);
        let delta = |k: &str| after[k].as_u64().unwrap() - before[k].as_u64().unwrap();
        assert_eq!(delta("prompt_tokens"), prompt, "{env}");
        assert_eq!(delta("completion_tokens"), completion, "{env}");
        for f in [
            "summary.json",
            "results.md",
            "results.csv",
            "score.svg",
            "score_vs_tokens.svg",
        ] {
            assert!(dir.path().join(f).is_file(), "{env}: {f}");
        }
        // Every call of the LLM policy is logged with its purpose, and its reply became an
        // action (or a counted fallback).
        let calls_log = jsonl(&dir.path().join("episodes/independent/0/calls.jsonl"));
        assert!(calls_log
            .iter()
            .all(|c| c["purpose"].is_string() && c["reply"].is_string()));
        assert!(calls_log
            .iter()
            .any(|c| c["action"].is_string() || c["parse_error"].is_string()));
        let steps = jsonl(&dir.path().join("episodes/independent/0/steps.jsonl"));
        assert_eq!(steps[0]["step"], 0);
        for key in [
            "actions",
            "rewards",
            "score",
            "terminated",
            "truncated",
            "events",
        ] {
            assert!(!steps[0][key].is_null(), "{env}: steps.jsonl lacks {key}");
        }
    }
}

#[test]
fn in_process_simulation_is_labelled_and_wildfire_gets_its_normalized_score() {
    for (env, set) in ENVS {
        let dir = tempfile::tempdir().unwrap();
        let (ok, out, err) = compare(env, set, &[], dir.path());
        assert!(ok, "{env}: {err}");
        assert!(out.contains("SIMULATION"), "{env}: {out}");
        let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
        assert!(
            csv.lines().nth(1).unwrap().starts_with("SIMULATION,"),
            "{csv}"
        );
        let svg = std::fs::read_to_string(dir.path().join("score.svg")).unwrap();
        assert!(svg.contains("SIMULATION"));
        let summary = summary(dir.path());
        assert_eq!(summary["simulated"], true);
        if *env == "wildfire" {
            assert!(summary["do_nothing"].is_object(), "{summary}");
            assert!(summary["policies"]["independent"]["normalized_score"].is_number());
        }
        if *env == "cube" {
            assert!(summary["policies"]["independent"]["metrics"]["delivered_weight"].is_object());
        }
    }
}

/// Runs `independent` on SwarmBench with `set` and checks every logged prompt against the
/// environment's prompt function, replaying the logged actions on a fresh copy.
fn prompts_match_the_environment(set: &[&str], rounds: u64, agents: u64) {
    let dir = tempfile::tempdir().unwrap();
    let args = compare_args(
        "swarmbench",
        set,
        "independent",
        &["--seeds", "3"],
        dir.path(),
    );
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    let ep = dir.path().join("episodes/independent/3");
    // Stored once per seed for every policy, compressed.
    assert!(dir.path().join("episodes/initial-3.json.zst").is_file());
    assert!(!ep.join("initial_state.json").exists());
    let recorded =
        colony::eval::embodied::initial_state::read_initial_state(dir.path(), "", "independent", 3)
            .unwrap()
            .unwrap();
    let state: colony_swarmbench::state::SwarmState = serde_json::from_value(recorded).unwrap();
    let mut env = state.into_env().unwrap();
    let calls = jsonl(&ep.join("calls.jsonl"));
    let steps = jsonl(&ep.join("steps.jsonl"));
    assert_eq!(steps.len() as u64, rounds);
    let mut checked = 0;
    let mut messages = 0;
    for s in &steps {
        let step = s["step"].as_u64().unwrap();
        for c in calls.iter().filter(|c| c["step"].as_u64() == Some(step)) {
            let agent = c["agent"].as_str().unwrap();
            let msgs = c["messages"].as_array().unwrap();
            assert_eq!(msgs.len(), 2);
            assert_eq!(msgs[0]["role"], "system");
            assert_eq!(
                msgs[0]["content"],
                "You are a agent. You need to cooperate with other agents and finish a given task."
            );
            assert_eq!(msgs[1]["role"], "user");
            let prompt = msgs[1]["content"].as_str().unwrap();
            assert_eq!(
                prompt,
                env.observe_text(agent).unwrap(),
                "{set:?} step {step} {agent}"
            );
            messages += prompt.matches("Message: \"").count();
            checked += 1;
        }
        let actions: BTreeMap<String, colony_swarmbench::reply::Reply> = s["actions"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(a, t)| (a.clone(), env.parse_action(a, t.as_str().unwrap()).unwrap()))
            .collect();
        env.step(&actions);
    }
    assert_eq!(
        checked,
        rounds * agents,
        "{set:?}: one call per agent per round"
    );
    assert!(messages > 0, "{set:?}: no agent ever received a message");
}

#[test]
fn swarmbench_prompts_in_calls_jsonl_are_the_environments_prompts_byte_for_byte() {
    prompts_match_the_environment(
        &[
            "--set",
            "agents=3",
            "--set",
            "max_round=6",
            "--set",
            "task=foraging",
        ],
        6,
        3,
    );
    // The commander (L.3) and noisy, delayed messages (L.4) through the LLM loop.
    prompts_match_the_environment(
        &[
            "--set",
            "agents=5",
            "--set",
            "max_round=8",
            "--set",
            "commander=true",
            "--set",
            "corruption=0.3",
            "--set",
            "delay_max=2",
        ],
        8,
        5,
    );
}

#[test]
fn the_appendix_b_prompt_comes_out_of_a_real_episode_byte_for_byte() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let given: [(u64, &str, String); 9] = [
        (0, "Agent_0", "Most lights are off, so I keep mine as it is and look around.\nACTION: STAY\nMSG: Lights: most are OFF. Everyone turn OFF, do not SWITCH if already off.".into()),
        (0, "Agent_2", format!("My light is on, I switch it off.\nACTION: SWITCH\nMSG: {}", "I switched OFF at (4,1). ".repeat(6))),
        (0, "Agent_5", "I am not sure yet.".into()),
        (0, "Agent_9", "ACTION: DOWN\nMSG: moving down to (3,2)".into()),
        (1, "Agent_0", "ACTION: up\nMSG: Is anyone still ON?".into()),
        (1, "Agent_1", "ACTION: STAY\nMSG: hello from (4,4)".into()),
        (1, "Agent_5", "Action: RIGHT\nMSG:".into()),
        (1, "Agent_8", "ACTION: SWITCH".into()),
        (1, "Agent_9", "ACTION: STAY\nMSG: All OFF near (3,2)?".into()),
    ];
    let mut script = String::new();
    for step in 0..3u64 {
        for i in 0..10 {
            let agent = format!("Agent_{i}");
            let reply = given
                .iter()
                .find(|(s, a, _)| *s == step && *a == agent)
                .map_or("ACTION: STAY".to_string(), |(_, _, r)| r.clone());
            script.push_str(
                &serde_json::json!({"agent": agent, "step": step, "reply": reply}).to_string(),
            );
            script.push('\n');
        }
    }
    let file = dir.path().join("appendix_b.jsonl");
    std::fs::write(&file, script).unwrap();
    let out = dir.path().join("run");
    let model = format!("script:{}", file.display());
    let rest = ["--seeds", "42", "--max-steps", "3", "--model", &model];
    let set = ["--set", "task=synchronization"];
    let args = compare_args("swarmbench", &set, "independent", &rest, &out);
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    let calls = jsonl(&out.join("episodes/independent/42/calls.jsonl"));
    let c = calls
        .iter()
        .find(|c| c["step"] == 2 && c["agent"] == "Agent_0")
        .unwrap();
    let prompt = c["messages"][1]["content"].as_str().unwrap();
    assert_eq!(prompt.len(), 4230);
    let hex: String = Sha256::digest(prompt.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        hex, "62e42d283f5c553c1169d1141d5b7a699f52e5e4dd1e691ac52a935c402bba38",
        "{prompt}"
    );
    // Counted fallbacks: Agent_2's over-long message and Agent_5's reply without an action
    // (round 0), Agent_0's lowercase `ACTION: up`, which §12.1 does not accept (round 1).
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(rows[0]["fallbacks"], 3, "{}", rows[0]);
    assert_eq!(rows[0]["score"], 1.0);
}

#[test]
fn scripted_replies_fallbacks_are_counted_and_a_missing_line_is_an_episode_error() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(200);
    let script = dir.path().join("script.jsonl");
    let lines = [
        serde_json::json!({"agent": "Agent_0", "step": 0, "reply": "I think I should go up."}),
        serde_json::json!({"agent": "Agent_1", "step": 0, "purpose": "act", "reply": format!("ACTION: LEFT\nMSG: {long}")}),
        serde_json::json!({"agent": "Agent_0", "step": 1, "reply": "ACTION: DOWN"}),
        serde_json::json!({"agent": "Agent_1", "step": 1, "reply": "ACTION: STAY"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&script, text).unwrap();
    let out = dir.path().join("run");
    let model = format!("script:{}", script.display());
    let run = |max_round: &str, out: &Path| {
        let rounds = format!("max_round={max_round}");
        let set = ["--set", "agents=2", "--set", &rounds];
        let rest = ["--seeds", "0", "--model", &model];
        colony(&compare_args("swarmbench", &set, "independent", &rest, out))
    };
    let (ok, _, err) = run("2", &out);
    assert!(ok, "{err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(rows[0]["fallbacks"], 2, "{}", rows[0]);
    assert!(rows[0]["error"].is_null());
    let calls = jsonl(&out.join("episodes/independent/0/calls.jsonl"));
    let first: Vec<&Value> = calls.iter().filter(|c| c["step"] == 0).collect();
    assert!(
        first[0]["parse_error"].as_str().unwrap().contains("action"),
        "{}",
        first[0]
    );
    assert!(first[1]["parse_error"].is_string(), "{}", first[1]);
    assert_eq!(
        first[1]["action"].as_str().unwrap(),
        format!("ACTION: LEFT\nMSG: {}...", &long[..120])
    );
    // The next prompt shows the unparsed reply as NONE (docs/design/swarmbench.md §10.4).
    let second = calls
        .iter()
        .find(|c| c["step"] == 1 && c["agent"] == "Agent_0")
        .unwrap();
    assert!(second["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("Action: NONE"));

    // A third round has no script line: the episode is recorded with an error naming the
    // call, the run completes, and (every episode having failed) exits non-zero.
    let out2 = dir.path().join("run2");
    let (ok, _, err) = run("3", &out2);
    assert!(!ok);
    assert!(err.contains("error"), "{err}");
    let rows = jsonl(&out2.join("episodes.jsonl"));
    let e = rows[0]["error"].as_str().unwrap();
    assert!(
        e.contains("Agent_0") && e.contains("step 2") && e.contains("act"),
        "{e}"
    );
}

/// Every file of every episode, by relative path.
/// A compact call log (`calls.jsonl.zst`) is given as its decoded lines, so the contents
/// are compared whatever the compressor's bytes.
fn all_episode_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = episode_files(dir, |_| true);
    for (rel, bytes) in files.iter_mut() {
        if let Some(ep) = rel.strip_suffix("/calls.jsonl.zst") {
            let mut text = String::new();
            colony::eval::call_log::read_call_log(&dir.join(ep), |l| {
                text.push_str(l);
                text.push('\n');
                true
            })
            .unwrap();
            *bytes = text.into_bytes();
        } else if rel.ends_with(".json.zst") {
            *bytes = zstd::decode_all(bytes.as_slice()).unwrap();
        }
    }
    files
}

/// A JSONL file's lines with every `latency_ms` zeroed.
fn without_latency(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                if o.contains_key("latency_ms") {
                    o.insert("latency_ms".into(), Value::from(0));
                }
            }
            v
        })
        .collect()
}

#[test]
fn same_seeds_give_identical_trajectories_and_replay_is_offline_and_identical() {
    let m = Mock::start(&[], &[]);
    let root = tempfile::tempdir().unwrap();
    let set = [
        "--set",
        "agents=6",
        "--set",
        "max_round=8",
        "--set",
        "task=pursuit",
    ];
    let run = |name: &str, extra: &[&str]| {
        let out = root.path().join(name);
        let flags = [
            "--seeds",
            "0..6",
            "--episodes-in-flight",
            "6",
            "--concurrency",
            "32",
        ];
        let rest = [&flags[..], extra].concat();
        let policies = "independent,scripted:random";
        let (ok, _, err) = colony(&compare_args("swarmbench", &set, policies, &rest, &out));
        assert!(ok, "{name}: {err}");
        out
    };
    let rec = root.path().join("rec");
    let a = run(
        "a",
        &[
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--record",
            rec.to_str().unwrap(),
        ],
    );
    let b = run("b", &["--base-url", &m.url, "--model", "sim"]);
    let files_a = all_episode_files(&a);
    // Steps and calls per episode, and one initial state per seed.
    assert_eq!(files_a.len(), 2 * 6 * 2 + 6);
    let files_b = all_episode_files(&b);
    assert_eq!(
        files_a.keys().collect::<Vec<_>>(),
        files_b.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &files_a {
        // Live HTTP latencies differ run to run; everything else must be identical.
        assert!(
            without_latency(bytes) == without_latency(&files_b[path]),
            "{path} differs between two runs"
        );
    }
    let served = stats(&m.url)["requests"].as_u64().unwrap();
    drop(m);
    // The server is gone: a replay must not need it, and replayed calls carry the recorded
    // latencies, so every file is byte-identical to the recorded run's.
    let c = run(
        "c",
        &[
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "sim",
            "--replay",
            rec.to_str().unwrap(),
        ],
    );
    let files_c = all_episode_files(&c);
    assert_eq!(files_a.len(), files_c.len());
    for (path, bytes) in &files_a {
        assert!(
            Some(bytes) == files_c.get(path),
            "{path} differs after replay"
        );
    }
    assert!(served > 0);
}

#[test]
fn killed_mid_run_resumes_without_duplicates_to_the_same_summary() {
    let m = Mock::start(&["--latency-ms", "15"], &[]);
    let root = tempfile::tempdir().unwrap();
    let set = ["--set", "agents=3", "--set", "max_round=6"];
    let rest = ["--seeds", "0..12", "--episodes-in-flight", "2"];
    let rest = [&rest[..], &["--base-url", &m.url, "--model", "sim"]].concat();
    let args = compare_flags("swarmbench", &set, "independent", &rest);
    let rows = compare_resumed_after_kill(&args, root.path(), 3, 12, Duration::from_secs(60));
    let mut seeds: Vec<u64> = rows.iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    seeds.sort();
    assert_eq!(
        seeds,
        (0..12).collect::<Vec<_>>(),
        "each episode exactly once"
    );
}

#[test]
fn bad_input_is_a_clear_error_and_a_failing_endpoint_is_recorded_not_scored() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "compare",
                "--env",
                "chess",
                "--policies",
                "independent",
                "--out",
                o,
            ],
            "unknown environment \"chess\"",
        ),
        (
            &[
                "compare",
                "--env",
                "cube",
                "--policies",
                "telepathy",
                "--out",
                o,
            ],
            "unknown policy \"telepathy\"",
        ),
        (
            &[
                "compare",
                "--env",
                "cube",
                "--policies",
                "scripted:magic",
                "--out",
                o,
            ],
            "magic",
        ),
        (
            &[
                "compare",
                "--env",
                "cube",
                "--set",
                "n=x",
                "--policies",
                "independent",
                "--out",
                o,
            ],
            "parameter n",
        ),
        (
            &[
                "compare",
                "--env",
                "cube",
                "--policies",
                "independent",
                "--seeds",
                "5..1",
                "--out",
                o,
            ],
            "--seeds",
        ),
        (
            &[
                "compare",
                "--env",
                "cube",
                "--policies",
                "independent",
                "--model",
                "script:/nonexistent.jsonl",
                "--out",
                o,
            ],
            "/nonexistent.jsonl",
        ),
    ];
    for (args, needle) in cases {
        let (ok, _, err) = colony(args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{args:?}: one line expected: {err}"
        );
    }
    // An endpoint that always fails: every episode is recorded with its error and not
    // scored, the other policy still runs, and the run exits non-zero naming the policy
    // whose every episode failed.
    let m = Mock::start(&["--fail-500", "1.0"], &[]);
    let rest = [
        "--seeds",
        "0..2",
        "--base-url",
        &m.url,
        "--model",
        "sim",
        "--max-retries",
        "0",
    ];
    let policies = "independent,scripted:heuristic";
    let args = compare_args("cube", &["--set", "n=1"], policies, &rest, &out);
    let (ok, out_text, err) = colony(&args);
    assert!(!ok);
    assert!(err.contains("2 episode(s) ended with an error"), "{err}");
    assert!(
        err.contains("every episode of independent ended with an error"),
        "{err}"
    );
    assert!(out_text.contains("| independent | 0 | 2 |"), "{out_text}");
    assert!(
        out_text.contains("| scripted:heuristic | 2 | 0 |"),
        "{out_text}"
    );
    let rows = jsonl(&out.join("episodes.jsonl"));
    let failed: Vec<&Value> = rows
        .iter()
        .filter(|r| r["policy"] == "independent")
        .collect();
    assert_eq!(failed.len(), 2);
    assert!(failed
        .iter()
        .all(|r| r["error"].as_str().unwrap().contains("500")));
    assert!(failed
        .iter()
        .all(|r| r["failed_calls"].as_u64().unwrap() >= 1));
}

#[test]
fn a_failure_no_retry_can_fix_stops_the_run_early_with_one_line() {
    // Nothing listens on port 9: connection refused on every call.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let set = ["--set", "agents=2", "--set", "max_round=3"];
    let rest = [
        "--seeds",
        "0..40",
        "--episodes-in-flight",
        "1",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "sim",
        "--max-retries",
        "0",
    ];
    let args = compare_args("swarmbench", &set, "independent", &rest, &out);
    let (ok, _, err) = colony(&args);
    assert_stopped_early(ok, &err, "efused");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert!(
        rows.len() < 40,
        "the run went on after a fatal failure: {} episodes",
        rows.len()
    );
    assert!(rows.iter().all(|r| r["error"].is_string()));
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(md.starts_with("> **Partial results"), "{md}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary["stopped"]
        .as_str()
        .is_some_and(|w| w.contains("efused")));
    // A second writer on the same directory is refused while one runs is tested in the
    // library (eval::lock); here: a strict replay miss also stops the run.
    let rec = dir.path().join("empty-record");
    std::fs::create_dir_all(&rec).unwrap();
    std::fs::write(rec.join("calls.jsonl"), "").unwrap();
    let rest = [
        "--seeds",
        "0..5",
        "--episodes-in-flight",
        "1",
        "--replay",
        rec.to_str().unwrap(),
    ];
    let y = dir.path().join("y");
    let args = compare_args("cube", &["--set", "n=1"], "independent", &rest, &y);
    let (ok, _, err) = colony(&args);
    assert_stopped_early(ok, &err, "replay cache miss");
}

#[test]
fn a_level_grid_reports_ns_per_configuration_and_bcs_per_policy() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("grid");
    let args = compare_args(
        "wildfire",
        &["--grid", "level=1,13"],
        "independent,scripted:heuristic",
        &["--seeds", "0..2", "--max-steps", "20"],
        &out,
    );
    let (ok, text, err) = colony(&args);
    assert!(ok, "{err}");
    assert!(
        text.contains("### level=13") && text.contains("Behavior Competency Score"),
        "{text}"
    );
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(rows.len(), 2 * 2 * 2, "configurations × policies × seeds");
    assert!(rows
        .iter()
        .all(|r| r["config"] == "level=1" || r["config"] == "level=13"));
    assert!(out
        .join("episodes/level=13/independent/1/steps.jsonl")
        .is_file());
    assert!(out.join("configurations/level=1/score.svg").is_file());
    let summary = summary(&out);
    let ns = &summary["bcs"]["ns"]["scripted:heuristic"];
    assert!(ns["1"].is_number() && ns["13"].is_number(), "{summary}");
    assert!(
        summary["bcs"]["bcs"]["independent"]["TD"].is_number(),
        "{summary}"
    );
    // Rerunning resumes: nothing runs again.
    let before = std::fs::read_to_string(out.join("episodes.jsonl")).unwrap();
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    assert_eq!(
        before,
        std::fs::read_to_string(out.join("episodes.jsonl")).unwrap()
    );
    // Bad grids are one-line errors naming the problem.
    let bad = dir.path().join("bad");
    for (grid, needle) in [
        ("level", "key=values"),
        ("n=all", "`all` is not defined for wildfire-v0's `n`"),
        ("level=99", "level"),
    ] {
        let args = compare_args("wildfire", &["--grid", grid], "scripted:noop", &[], &bad);
        let (ok, _, err) = colony(&args);
        assert!(!ok && err.contains(needle), "{grid}: {err}");
    }
}

#[test]
fn selforg_proposes_builds_the_graph_revises_along_it_and_traces_each_step() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let out = dir.path().join(name);
        let set = ["--set", "agents=4", "--set", "max_round=3"];
        let rest = ["--seeds", "0..3", "--episodes-in-flight", "3"];
        let args = compare_args("swarmbench", &set, "selforg:k=2,rounds=1", &rest, &out);
        let (ok, _, err) = colony(&args);
        assert!(ok, "{err}");
        out
    };
    let a = run("a");
    let steps = jsonl(&a.join("episodes/selforg:k=2,rounds=1/0/steps.jsonl"));
    for s in &steps {
        let round = &s["trace"]["rounds"][0];
        assert_eq!(round["psi"].as_array().unwrap().len(), 4, "{s}");
        assert_eq!(round["order"].as_array().unwrap().len(), 4);
        assert!(round["leader"].is_string() && round["edges"].is_array());
    }
    let calls = jsonl(&a.join("episodes/selforg:k=2,rounds=1/0/calls.jsonl"));
    let step0: Vec<&str> = calls
        .iter()
        .filter(|c| c["step"] == 0)
        .map(|c| c["purpose"].as_str().unwrap())
        .collect();
    assert_eq!(step0[..4], ["selforg.propose"; 4]);
    assert_eq!(step0[4..], ["selforg.revise"; 4]);
    // A revision shows the parents' proposals; the DAG-parallel order does not change results.
    assert!(calls.iter().any(|c| c["purpose"] == "selforg.revise"
        && c["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Proposals of the teammates")));
    let b = run("b");
    assert_eq!(all_episode_files(&a), all_episode_files(&b));
}

/// A comparison's progress lines end with the closing one, whatever the ticker saw.
#[test]
fn a_comparison_prints_its_closing_progress_line_when_stderr_is_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let mut args = compare_flags(
        "cube",
        &["--set", "n=4"],
        "scripted:noop,independent",
        &["--seeds", "0..3", "--max-steps", "3"],
    );
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    let last = err.lines().rfind(|l| l.starts_with("progress: episodes "));
    assert!(
        last.is_some_and(|l| l.contains(" 6/6 episodes (100%) ") && l.ends_with("ETA done")),
        "{err}"
    );
}

/// Episodes keep their calls compressed by default (`calls.jsonl.zst`), whole
/// and plain with `--log-calls full`, usage only with `none`; `colony logs cat` gives the
/// classic lines of any of them, the compact ones byte for byte as `full` wrote them.
#[test]
fn call_logs_compact_by_default_full_and_none_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let set = ["--set", "agents=6", "--set", "max_round=8"];
    let run = |name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let rest = [&["--seeds", "0..2"][..], extra].concat();
        let (ok, _, err) = colony(&compare_args(
            "swarmbench",
            &set,
            "camon,independent",
            &rest,
            &out,
        ));
        assert!(ok, "{name}: {err}");
        out
    };
    let compact = run("compact", &[]);
    let full = run("full", &["--log-calls", "full"]);
    let none = run("none", &["--log-calls", "none"]);
    let ep = |dir: &Path| dir.join("episodes/camon/1");
    assert!(ep(&compact).join("calls.jsonl.zst").is_file());
    assert!(!ep(&compact).join("calls.jsonl").exists());
    assert!(ep(&full).join("calls.jsonl").is_file());
    // Same results whatever the log keeps.
    for dir in [&full, &none] {
        assert_eq!(
            std::fs::read(compact.join("results.md")).unwrap(),
            std::fs::read(dir.join("results.md")).unwrap()
        );
    }
    let cat = |dir: &Path, extra: &[&str]| {
        let mut args = vec!["logs", "cat", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (ok, out, err) = colony(&args);
        assert!(ok, "{err}");
        out
    };
    let plain = std::fs::read_to_string(ep(&full).join("calls.jsonl")).unwrap();
    let from_compact = cat(&compact, &["--episode", "camon/1"]);
    let strip = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| common::timeless(&serde_json::from_str(l).unwrap()))
            .collect()
    };
    assert_eq!(strip(&from_compact), strip(&plain));
    assert_eq!(strip(&cat(&full, &["--episode", "camon/1"])), strip(&plain));
    let zst = std::fs::metadata(ep(&compact).join("calls.jsonl.zst"))
        .unwrap()
        .len();
    assert!(zst * 10 < plain.len() as u64, "{zst} vs {}", plain.len());
    // `none` keeps one lean line per call.
    let lean = strip(&cat(&none, &["--episode", "camon/1"]));
    assert_eq!(lean.len(), strip(&plain).len());
    assert!(lean
        .iter()
        .all(|c| c.get("messages").is_none() && c.get("reply").is_none()));
    assert!(lean
        .iter()
        .all(|c| c["usage"].is_object() && c["purpose"].is_string()));
    // Every episode, in path order, without a selector; a selector that matches nothing fails.
    assert_eq!(
        cat(&compact, &[]).lines().count(),
        cat(&full, &[]).lines().count()
    );
    let (ok, _, err) = colony(&[
        "logs",
        "cat",
        compact.to_str().unwrap(),
        "--episode",
        "camon/9",
    ]);
    assert!(
        !ok && err.contains("--episode camon/9") && err.contains("camon/0"),
        "{err}"
    );
    let (ok, _, err) = colony(&[
        "compare",
        "--env",
        "cube",
        "--policies",
        "independent",
        "--log-calls",
        "gzip",
    ]);
    assert!(!ok && err.contains("--log-calls"), "{err}");
}

/// SwarmBench's group-dynamics metrics (paper App. F) reach every episode's `metrics`, the
/// summary and a table of their own in `results.md`; CUBE's two stay in the main table.
#[test]
fn swarmbench_group_dynamics_reach_episodes_summary_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = compare(
        "swarmbench",
        &["--set", "agents=4", "--set", "max_round=6"],
        &[],
        dir.path(),
    );
    assert!(ok, "{err}");
    let keys = [
        "directional_entropy",
        "stillness",
        "dominant_action",
        "polarization",
        "moving_distance",
        "exploration",
        "local_structure",
        "push_events",
        "mean_message_length",
        "question_proportion",
    ];
    for r in jsonl(&dir.path().join("episodes.jsonl")) {
        let m = r["metrics"].as_object().unwrap();
        for k in keys {
            assert!(m[k].as_f64().unwrap().is_finite(), "{k}: {r}");
        }
        // Four agents on their start cells count as explored at least.
        assert!(m["exploration"].as_f64().unwrap() >= 4.0, "{r}");
        assert!(
            !m.contains_key("information_homogeneity"),
            "needs an embedder: {r}"
        );
    }
    let s = summary(dir.path());
    let noop = &s["policies"]["scripted:noop"]["metrics"];
    // Everybody stays in each of the 6 rounds; the final state has no actions (the paper's
    // analysis averages over all logged states, round 0 to 6).
    let still = noop["stillness"]["mean"].as_f64().unwrap();
    assert!((still - 6.0 / 7.0).abs() < 1e-12, "{noop}");
    assert_eq!(
        noop["moving_distance"]["mean"].as_f64(),
        Some(0.0),
        "{noop}"
    );
    let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    assert!(
        md.contains("### Paper metrics") && md.contains("| directional_entropy |"),
        "{md}"
    );
    let cube = tempfile::tempdir().unwrap();
    let (ok, _, err) = compare("cube", &["--set", "n=2"], &[], cube.path());
    assert!(ok, "{err}");
    let md = std::fs::read_to_string(cube.path().join("results.md")).unwrap();
    assert!(
        !md.contains("### Paper metrics") && md.contains("delivered_weight"),
        "{md}"
    );
}

/// Every episode keeps its calls' latencies (in 1% buckets), and the summary and
/// `latency.md` report p50/p95/p99, wall time and calls per second per policy. The server adds
/// 30 ms to every call, so no percentile can be below that, give or take the bucket's half
/// width (a causal bound, not a speed measurement).
#[test]
fn compare_reports_call_latency_percentiles_and_calls_per_second() {
    let m = Mock::start(&["--latency-ms", "30"], &[]);
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = compare(
        "cube",
        &["--set", "n=2"],
        &["--base-url", &m.url, "--model", "sim"],
        dir.path(),
    );
    assert!(ok, "{err}");
    for r in jsonl(&dir.path().join("episodes.jsonl")) {
        let counted: u64 = match r["policy"].as_str() {
            Some("independent") => r["call_latency_hist"]
                .as_object()
                .unwrap()
                .values()
                .map(|n| n.as_u64().unwrap())
                .sum(),
            _ => {
                assert!(r.get("call_latency_hist").is_none(), "{r}");
                0
            }
        };
        assert_eq!(counted, r["calls"].as_u64().unwrap(), "{r}");
    }
    let s = summary(dir.path());
    let p = &s["policies"]["independent"];
    common::assert_latency_percentiles(p, 30.0 / 1.005);
    let rate = p["calls_per_s"].as_f64().unwrap();
    let wall = p["wall_s"].as_f64().unwrap();
    let calls = p["calls"].as_f64().unwrap();
    assert!((rate * wall - calls).abs() < 1e-6 * calls, "{p}");
    assert!(s["policies"]["scripted:noop"]
        .get("call_latency_ms")
        .is_none());
    let md = std::fs::read_to_string(dir.path().join("latency.md")).unwrap();
    assert!(md.contains("| independent | "), "{md}");
    assert!(!md.contains("scripted:noop"), "{md}");
}

/// `compare --dry-run` writes nothing and estimates each policy's calls within 1.5× of the
/// run it then makes.
#[test]
fn compare_dry_run_estimates_the_run_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    let flags = ["--seeds", "0..3", "--max-steps", "20"];
    let mut dry = compare_args(
        "cube",
        &["--grid", "n=1,4"],
        "independent,camon",
        &flags,
        &out,
    );
    dry.push("--dry-run");
    let (ok, text, err) = colony(&dry);
    assert!(ok, "{err}");
    assert!(!out.exists(), "a dry run wrote {}", out.display());
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &["--grid", "n=1,4"],
        "independent,camon",
        &flags,
        &out,
    ));
    assert!(ok, "{err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    for policy in ["independent", "camon"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("| compare | {policy} |")))
            .unwrap_or_else(|| panic!("{text}"));
        let est: f64 = line.split('|').nth(5).unwrap().trim().parse().unwrap();
        let real: f64 = rows
            .iter()
            .filter(|r| r["policy"] == policy)
            .map(|r| (r["calls"].as_u64().unwrap() + r["failed_calls"].as_u64().unwrap()) as f64)
            .sum();
        assert!(
            (1.0 / 1.5..=1.5).contains(&(est / real)),
            "{policy}: estimated {est}, ran {real}\n{text}"
        );
    }
}

#[test]
fn a_policy_named_twice_is_refused_naming_both_specs() {
    for (policies, first, second) in [
        ("independent,independent", "independent", "independent"),
        ("camon;camon:;", "camon", "camon:"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        let (ok, _, err) = colony(&compare_args(
            "wildfire",
            &[],
            policies,
            &["--seeds", "0"],
            &out,
        ));
        assert!(!ok, "{policies}");
        assert!(
            err.contains(&format!("`{first}` and `{second}` are one policy")),
            "{policies}: {err}"
        );
        assert!(!out.join("episodes.jsonl").exists(), "nothing ran");
    }
}
