//! Structured output on embodied tasks: `independent:structured=true` asks for the
//! environment's action schema (`response_format` `json_schema`, in the OpenAI shape or
//! llama-server's, per `structured_output` in models.toml) and reads the JSON reply back as the
//! action; a reply that does not fit is the environment's fallback, counted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::{assert_ok, colony_cmd, compare_args, jsonl, Mock};
use serde_json::Value;

/// `colony compare` on SwarmBench against `url` with `policy`, 1 seed, 3 steps.
fn swarmbench(url: &str, policy: &str, out: &Path, config: Option<&Path>) {
    let rest = [
        "--seeds",
        "0",
        "--max-steps",
        "3",
        "--base-url",
        url,
        "--model",
        "sim",
    ];
    let mut cmd = colony_cmd(std::iter::empty::<&str>());
    if let Some(c) = config {
        cmd.arg("--models-config").arg(c);
    }
    let run = cmd
        .args(compare_args("swarmbench", &[], policy, &rest, out))
        .output()
        .unwrap();
    assert_ok(&run);
}

fn script(dir: &Path, replies: &[&str]) -> std::path::PathBuf {
    let path = dir.join("script.jsonl");
    let lines: Vec<String> = replies
        .iter()
        .map(|r| serde_json::json!({ "content": r }).to_string())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn structured_replies_are_asked_for_with_the_schema_and_read_back_as_actions() {
    let root = tempfile::tempdir().unwrap();
    let requests = root.path().join("requests.jsonl");
    let s = script(root.path(), &[r#"{"action": "UP", "message": "north"}"#]);
    let m = Mock::start(
        &[
            "--script",
            s.to_str().unwrap(),
            "--log-requests",
            requests.to_str().unwrap(),
        ],
        &[],
    );
    let out = root.path().join("on");
    swarmbench(&m.url, "independent:structured=true", &out, None);
    let sent = jsonl(&requests);
    assert!(!sent.is_empty());
    for r in &sent {
        let f = &r["response_format"];
        assert_eq!(f["type"], "json_schema", "{r}");
        let moves = &f["json_schema"]["schema"]["properties"]["action"]["enum"];
        assert_eq!(
            moves,
            &serde_json::json!(["UP", "DOWN", "LEFT", "RIGHT", "STAY"])
        );
    }
    let episodes = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(episodes[0]["fallbacks"], 0, "{:?}", episodes[0]);
    let calls = jsonl(&out.join("episodes/independent:structured=true/0/calls.jsonl"));
    assert!(
        calls
            .iter()
            .all(|c| c["action"] == "ACTION: UP\nMSG: north"),
        "{calls:?}"
    );

    // The same JSON without structured=true is not the benchmark's reply format: every
    // reply is a counted fallback, and no request asked for a shape.
    // Truncated, not removed: the server keeps appending to the file it opened.
    std::fs::write(&requests, "").unwrap();
    let off = root.path().join("off");
    swarmbench(&m.url, "independent", &off, None);
    assert!(jsonl(&requests)
        .iter()
        .all(|r| r.get("response_format").is_none()));
    let episodes = jsonl(&off.join("episodes.jsonl"));
    assert!(
        episodes[0]["fallbacks"].as_u64().unwrap() > 0,
        "{:?}",
        episodes[0]
    );
}

#[test]
fn llama_spelling_and_unfitting_replies() {
    let root = tempfile::tempdir().unwrap();
    let requests = root.path().join("requests.jsonl");
    let s = script(root.path(), &["not json at all"]);
    let m = Mock::start(
        &[
            "--script",
            s.to_str().unwrap(),
            "--log-requests",
            requests.to_str().unwrap(),
        ],
        &[],
    );
    let config = root.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[models.sim]\nbase_url = \"{}\"\nstructured_output = \"llama\"\n",
            m.url
        ),
    )
    .unwrap();
    let out = root.path().join("o");
    swarmbench(&m.url, "independent:structured=true", &out, Some(&config));
    let sent: Vec<Value> = jsonl(&requests);
    assert!(!sent.is_empty());
    assert!(sent
        .iter()
        .all(|r| r["response_format"]["type"] == "json_object"
            && r["response_format"]["schema"]["required"] == serde_json::json!(["action"])));
    let episodes = jsonl(&out.join("episodes.jsonl"));
    assert!(
        episodes[0]["fallbacks"].as_u64().unwrap() > 0,
        "a reply that does not fit is a fallback"
    );
    let bad = colony_cmd([
        "compare",
        "--env",
        "cube",
        "--policies",
        "independent:structured=maybe",
        "--seeds",
        "0",
        "--quiet",
        "--out",
    ])
    .arg(root.path().join("bad"))
    .output()
    .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("structured") && err.contains("true|false"),
        "{err}"
    );
}

#[test]
fn swarmsys_asks_for_cubes_plan_schema_too() {
    let root = tempfile::tempdir().unwrap();
    let requests = root.path().join("requests.jsonl");
    let s = script(
        root.path(),
        &[r#"{"plan": [{"action": "idle", "args": {"steps": 1}}]}"#],
    );
    let m = Mock::start(
        &[
            "--script",
            s.to_str().unwrap(),
            "--log-requests",
            requests.to_str().unwrap(),
        ],
        &[],
    );
    let out = root.path().join("o");
    let rest = [
        "--seeds",
        "0",
        "--max-steps",
        "4",
        "--base-url",
        &m.url,
        "--model",
        "sim",
    ];
    let run = colony_cmd(compare_args(
        "cube",
        &["--set", "n=2"],
        "swarmsys:structured=true",
        &rest,
        &out,
    ))
    .output()
    .unwrap();
    assert_ok(&run);
    let sent = jsonl(&requests);
    assert!(!sent.is_empty());
    for r in &sent {
        let schema = &r["response_format"]["json_schema"]["schema"];
        assert_eq!(schema["properties"]["plan"]["maxItems"], 3, "{r}");
    }
    let episodes = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(episodes[0]["fallbacks"], 0, "{:?}", episodes[0]);
    assert!(episodes[0]["calls"].as_u64().unwrap() > 0);
}

/// The CREW-Wildfire frameworks constrain their EXECUTION call (the one whose reply is the
/// action) and only that one; where an environment has none, they add one, and only it is
/// constrained.
#[test]
fn frameworks_constrain_the_execution_call_and_add_one_where_there_is_none() {
    for policy in ["camon:structured=true", "selforg:structured=true"] {
        let root = tempfile::tempdir().unwrap();
        let requests = root.path().join("requests.jsonl");
        let m = Mock::start(&["--log-requests", requests.to_str().unwrap()], &[]);
        let out = root.path().join("o");
        let rest = [
            "--seeds",
            "0",
            "--max-steps",
            "3",
            "--base-url",
            &m.url,
            "--model",
            "sim",
        ];
        let run = colony_cmd(compare_args("wildfire", &[], policy, &rest, &out))
            .output()
            .unwrap();
        assert_ok(&run);
        let sent = jsonl(&requests);
        let (mut executions, mut others) = (0, 0);
        for r in &sent {
            // The EXECUTION prompt (wildfire.md §11.2) asks to convert a text action.
            let msgs = r["messages"].as_array().unwrap();
            let user = msgs[msgs.len() - 1]["content"].as_str().unwrap_or("");
            if user.contains("into the executable format") {
                executions += 1;
                let schema = &r["response_format"]["json_schema"]["schema"];
                assert!(schema["properties"]["param_1"].is_object(), "{policy}: {r}");
            } else {
                others += 1;
                assert!(
                    r.get("response_format").is_none(),
                    "{policy}: only EXECUTION: {r}"
                );
            }
        }
        assert!(
            executions > 0 && others > 0,
            "{policy}: {executions} {others}"
        );
        // CUBE has no EXECUTION call: the added one carries CUBE's plan schema, the
        // planning and dialogue calls none.
        let cube_requests = root.path().join("cube-requests.jsonl");
        let m = Mock::start(&["--log-requests", cube_requests.to_str().unwrap()], &[]);
        let cube_out = root.path().join("cube");
        let rest = [
            "--seeds",
            "0",
            "--max-steps",
            "2",
            "--base-url",
            &m.url,
            "--model",
            "sim",
        ];
        let run = colony_cmd(compare_args(
            "cube",
            &["--set", "n=2"],
            policy,
            &rest,
            &cube_out,
        ))
        .output()
        .unwrap();
        assert_ok(&run);
        let (mut executions, mut others) = (0, 0);
        for r in &jsonl(&cube_requests) {
            let msgs = r["messages"].as_array().unwrap();
            let user = msgs[msgs.len() - 1]["content"].as_str().unwrap_or("");
            if user.contains("written as the JSON object the response format describes") {
                executions += 1;
                let schema = &r["response_format"]["json_schema"]["schema"];
                assert_eq!(schema["properties"]["plan"]["maxItems"], 3, "{policy}: {r}");
            } else {
                others += 1;
                assert!(r.get("response_format").is_none(), "{policy}: {r}");
            }
        }
        assert!(
            executions > 0 && others > 0,
            "{policy}: {executions} {others}"
        );
        let logged = common::logged_calls(&cube_out, "0");
        assert!(
            logged.iter().any(|c| c["purpose"] == "execution"
                && (c.get("action").is_some() || c.get("parse_error").is_some())),
            "{policy}: the added call is the deciding one"
        );
    }
}

/// Offline, the simulated model answers a structured request with JSON in the schema's shape
/// that keeps its plain reply's content: on SwarmBench the same first moves as without
/// `structured=true` (later prompts differ: each agent's history holds its JSON replies), on
/// CUBE its plan, with no fallback either way.
#[test]
fn the_simulated_model_answers_in_the_schema_and_keeps_its_choices() {
    let root = tempfile::tempdir().unwrap();
    let run = |env: &str, set: &[&str], policy: &str, out: &Path| {
        let rest = ["--seeds", "0..2", "--max-steps", "3", "--model", "sim"];
        assert_ok(
            &colony_cmd(compare_args(env, set, policy, &rest, out))
                .output()
                .unwrap(),
        );
    };
    let (plain, shaped) = (root.path().join("plain"), root.path().join("shaped"));
    run("swarmbench", &[], "independent", &plain);
    run("swarmbench", &[], "independent:structured=true", &shaped);
    let moves = |dir: &Path, policy: &str| -> Vec<String> {
        let mut out = Vec::new();
        for seed in 0..2 {
            for c in common::logged_calls(dir, &format!("{policy}/{seed}")) {
                if c["step"] != 0 {
                    continue;
                }
                out.push(
                    c["action"]
                        .as_str()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string(),
                );
                if policy.contains("structured") {
                    let reply: serde_json::Value =
                        serde_json::from_str(c["reply"].as_str().unwrap()).unwrap();
                    assert!(reply["action"].is_string(), "{c}");
                }
            }
        }
        out
    };
    let a = moves(&plain, "independent");
    assert!(!a.is_empty());
    assert_eq!(a, moves(&shaped, "independent:structured=true"));
    for dir in [&plain, &shaped] {
        for e in jsonl(&dir.join("episodes.jsonl")) {
            assert_eq!(e["fallbacks"], 0, "{e}");
        }
    }
    let cube = root.path().join("cube");
    run(
        "cube",
        &["--set", "n=2"],
        "independent:structured=true",
        &cube,
    );
    for c in common::logged_calls(&cube, "independent:structured=true/0") {
        let reply: serde_json::Value = serde_json::from_str(c["reply"].as_str().unwrap()).unwrap();
        assert!(reply["plan"].is_array(), "{c}");
    }
    for e in jsonl(&cube.join("episodes.jsonl")) {
        assert_eq!(e["fallbacks"], 0, "{e}");
    }
}
