//! Agents that call tools, as a user runs them: `colony eval --tools …` against `serve-mock`
//! (the tools go over the wire in the OpenAI shape and the server's simulated model calls
//! them), offline on the simulated model, recorded and replayed byte-identically, an MCP
//! server's tool through `--mcp`, and bad flags as one-line errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::eval_run::{eval_output, gsm8k_mock, gsm8k_sample};
use common::{assert_ok, colony_cmd, jsonl, results_by_id, summary, timeless};
use serde_json::Value;

/// `colony logs cat --item ID DIR`: every call of the item, with its tool calls.
fn logs(dir: &Path, item: &str) -> String {
    let out = colony_cmd(["logs", "cat", "--item", item])
        .arg(dir)
        .output()
        .unwrap();
    assert_ok(&out);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn react_and_selforg_call_tools_through_serve_mock_and_replay_byte_identically() {
    let root = tempfile::tempdir().unwrap();
    let requests = root.path().join("requests.jsonl");
    let m = gsm8k_mock("0.5", &["--log-requests", requests.to_str().unwrap()]);
    let rec = root.path().join("rec");
    let a = root.path().join("a");
    let tools = [
        "--tools",
        "python,calculator",
        "--record",
        rec.to_str().unwrap(),
    ];
    assert_ok(&eval_output("react,selforg", &m.url, &a, &tools));
    drop(m);

    // The wire: every request offers both tools in the OpenAI shape, and the second round of
    // a turn carries the assistant's tool call and the tool's answer.
    let sent = jsonl(&requests);
    assert!(!sent.is_empty());
    for r in &sent {
        let names: Vec<&str> = r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                assert_eq!(t["type"], "function");
                t["function"]["name"].as_str().unwrap()
            })
            .collect();
        assert_eq!(names, ["python", "calculator"], "{r}");
    }
    let answered: Vec<&Value> = sent
        .iter()
        .filter(|r| {
            r["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["role"] == "tool")
        })
        .collect();
    assert_eq!(answered.len() * 2, sent.len(), "one tool round per turn");
    let msgs = answered[0]["messages"].as_array().unwrap();
    let call = &msgs[msgs.len() - 2];
    assert_eq!(call["role"], "assistant");
    let id = call["tool_calls"][0]["id"].as_str().unwrap();
    assert_eq!(msgs[msgs.len() - 1]["tool_call_id"], id);

    // Results count the tool calls; the python ones ran in the sandbox.
    let s = summary(&a);
    for p in ["react", "selforg"] {
        let calls = s["policies"][p]["tool_calls"].as_u64().unwrap();
        assert!(calls >= 12, "{p}: {calls}");
        assert_eq!(s["policies"][p].get("tool_errors"), None, "{p}");
    }
    let react = results_by_id(&a, "react");
    assert!(react.iter().all(|r| r["tool_calls"] == 1), "{react:?}");
    let actions = &react[0]["trace"]["actions"];
    assert!(["python", "calculator"].contains(&actions[0]["tool"].as_str().unwrap()));
    let log = logs(&a, "0");
    assert!(
        log.contains(r#""result":"55\n""#) || log.contains(r#""result":"3073""#),
        "{log}"
    );

    // A replay makes no model call (nothing listens on port 9) and no tool call: its call
    // log and results equal the recorded run's.
    let b = root.path().join("b");
    let replay = [
        "--tools",
        "python,calculator",
        "--replay",
        rec.to_str().unwrap(),
    ];
    assert_ok(&eval_output(
        "react,selforg",
        "http://127.0.0.1:9/v1",
        &b,
        &replay,
    ));
    for item in ["0", "5"] {
        assert_eq!(logs(&a, item), logs(&b, item), "item {item}");
    }
    for p in ["react", "selforg"] {
        let (x, y) = (results_by_id(&a, p), results_by_id(&b, p));
        let (x, y): (Vec<Value>, Vec<Value>) = (
            x.iter().map(timeless).collect(),
            y.iter().map(timeless).collect(),
        );
        assert_eq!(x, y, "{p}");
    }
}

#[test]
fn react_runs_offline_with_the_calculator_by_default() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("o");
    let run = colony_cmd(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args(["--policy", "react", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_ok(&run);
    let rows = results_by_id(&out, "react");
    assert_eq!(rows.len(), 12);
    for r in &rows {
        assert_eq!(r["tool_calls"], 1, "{r}");
        assert_eq!(r["trace"]["actions"][0]["tool"], "calculator");
        assert!(r["error"].is_null());
    }
}

/// The Python that has `mcp_server_time` (`.ci/run` installs it), or `None` to skip.
fn mcp_python() -> Option<String> {
    let python = std::env::var("COLONY_PYTHON").ok()?;
    let ok = std::process::Command::new(&python)
        .args(["-c", "import mcp_server_time"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("COLONY_REQUIRE_MCP").is_none(),
            "COLONY_REQUIRE_MCP is set but {python} cannot import mcp_server_time"
        );
        return None;
    }
    Some(python)
}

#[test]
fn an_mcp_servers_tool_is_called_by_react() {
    let Some(python) = mcp_python() else {
        eprintln!("skipping: no mcp_server_time (pip install mcp-server-time)");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("o");
    let run = colony_cmd(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args(["--policy", "react", "--quiet", "--limit", "2", "--out"])
        .arg(&out)
        .args(["--mcp", &format!("time={python} -m mcp_server_time")])
        .args(["--tools", "mcp:time/get_current_time"])
        .output()
        .unwrap();
    assert_ok(&run);
    let rows = results_by_id(&out, "react");
    assert_eq!(rows.len(), 2);
    let log = logs(&out, rows[0]["id"].as_str().unwrap());
    assert!(
        log.contains(r#""tool":"mcp:time/get_current_time""#),
        "{log}"
    );
    assert!(
        log.contains(r#"\"timezone\": \"America/New_York\""#),
        "{log}"
    );
    assert!(
        rows.iter().all(|r| r.get("tool_errors").is_none()),
        "{rows:?}"
    );
}

#[test]
fn bad_tool_flags_are_one_line_errors() {
    let root = tempfile::tempdir().unwrap();
    for (flags, says) in [
        (
            vec!["--policy", "react:steps=0"],
            "react: option `steps` must be a positive integer",
        ),
        (
            vec!["--policy", "react:steps=65"],
            "react: steps must be 1..=64",
        ),
        (
            vec!["--tools", "frobnicate"],
            "--tools: unknown tool \"frobnicate\" (known: python, calculator",
        ),
        (
            vec!["--tools", "mcp:git"],
            "mcp:git names no configured MCP server",
        ),
        (
            vec!["--mcp", "nonsense", "--tools", "calculator"],
            "--mcp nonsense: expected NAME=COMMAND",
        ),
        (
            vec!["--tools", "calculator", "--max-tool-rounds", "0"],
            "--max-tool-rounds must be in 1..=64",
        ),
        (
            vec!["--tools", "calculator", "--tool-timeout=0"],
            "--tool-timeout must be",
        ),
        (
            vec!["--mcp", "x=/nonexistent/server", "--tools", "mcp:x"],
            "MCP server x: cannot start \"/nonexistent/server\"",
        ),
    ] {
        let out = colony_cmd(["eval", "--dataset", "gsm8k", "--data"])
            .arg(gsm8k_sample())
            .args(["--quiet", "--out"])
            .arg(root.path().join("o"))
            .args(&flags)
            .args(if flags.contains(&"--policy") {
                vec![]
            } else {
                vec!["--policy", "single"]
            })
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flags:?}");
        assert!(err.contains(says), "{flags:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{flags:?}: {err}");
    }
}

#[test]
fn a_suites_tools_reach_every_unit_and_bad_ones_name_the_key() {
    let root = tempfile::tempdir().unwrap();
    let data = gsm8k_sample();
    let suite = root.path().join("tools.toml");
    std::fs::write(
        &suite,
        format!(
            "policies = [\"single\"]\ntools = [\"calculator\"]\n\n[[datasets]]\nname = \"gsm8k\"\n\
             data = {data:?}\nlimit = 3\n\n[[environments]]\nid = \"cube\"\nseeds = [0]\n\
             max_steps = 10\npolicies = [\"embodied\"]\n"
        ),
    )
    .unwrap();
    let out = root.path().join("o");
    let run = colony_cmd(["run"])
        .arg(&suite)
        .args(["--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_ok(&run);
    let rows = results_by_id(&out.join("sim/reasoning"), "single");
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["tool_calls"] == 1), "{rows:?}");
    let episodes = jsonl(&out.join("sim/cube/episodes.jsonl"));
    assert!(
        episodes[0]["tool_calls"].as_u64().unwrap() > 0,
        "{episodes:?}"
    );

    for (tools, says) in [
        ("[\"frobnicate\"]", "unknown tool \"frobnicate\""),
        ("[\"mcp:git\"]", "no [mcp.git] table in this suite"),
    ] {
        std::fs::write(
            &suite,
            format!("policies = [\"single\"]\ntools = {tools}\n[[datasets]]\nname = \"gsm8k\"\ndata = {data:?}\n"),
        )
        .unwrap();
        let out = colony_cmd(["run"])
            .arg(&suite)
            .arg("--dry-run")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            err.contains("tools.toml:2: tools: ") && err.contains(says),
            "{err}"
        );
    }
}

#[test]
fn a_scripted_serve_mock_sends_malformed_tool_calls_that_are_counted_not_fatal() {
    let root = tempfile::tempdir().unwrap();
    let script = common::tool_script(root.path());
    let m = common::Mock::start(&["--script", script.to_str().unwrap()], &[]);
    let out = root.path().join("o");
    let run = common::eval_run::eval_command("single", &m.url, &out, &["--tools", "calculator"])
        .args(["--limit", "1"])
        .output()
        .unwrap();
    assert_ok(&run);
    let row = &results_by_id(&out, "single")[0];
    assert_eq!(
        (row["tool_calls"].as_u64(), row["tool_errors"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(row["answer"], "7");
    let log = logs(&out, "0");
    assert!(
        log.contains(r#""error":"invalid_json""#) && log.contains(r#""result":"7""#),
        "{log}"
    );
    // A bad script is a one-line error naming the file and line.
    std::fs::write(&script, "{\"content\": \"x\"}\nnot json\n").unwrap();
    let bad = colony_cmd(["serve-mock", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("script.jsonl:2:"),
        "{err}"
    );
}
