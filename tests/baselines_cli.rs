//! The DyLAN, MacNet and AgentVerse baselines from the command line (`colony eval --policy
//! dylan;macnet;agentverse`) over HTTP against `serve-mock`: totals equal the server's
//! counts, the traces carry each method's record, a killed run resumes to the same results,
//! and a recorded run replays identically offline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{jsonl, lines_of, results_by_id, stats, summary, Mock, BIN};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("environments/qa/samples/gsm8k.jsonl")
}

fn mock(extra: &[&str]) -> Mock {
    let key = sample();
    let mut args = vec![
        "--answer-key",
        key.to_str().unwrap(),
        "--dataset",
        "gsm8k",
        "--accuracy",
        "0.5",
    ];
    args.extend_from_slice(extra);
    Mock::start(&args, &[])
}

const POLICIES: &str = "single;dylan;macnet;agentverse";
const FILES: [&str; 3] = ["dylan", "macnet", "agentverse"];

fn command(url: &str, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(sample())
        .args(["--policy", POLICIES, "--base-url", url, "--model", "sim"])
        .args([
            "--max-retries",
            "1",
            "--quiet",
            "--concurrency",
            "4",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn eval(url: &str, out: &Path, extra: &[&str]) -> Output {
    command(url, out, extra).output().unwrap()
}

#[test]
fn eval_over_http_totals_equal_the_servers_counts() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval(&m.url, dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(dir.path());
    let (mut prompt, mut completion, mut calls) = (0, 0, 0);
    for p in ["single", "dylan", "macnet", "agentverse"] {
        let row = &s["policies"][p];
        assert_eq!(row["n"], 12, "{p}");
        assert_eq!(row["errors"], 0, "{p}");
        prompt += row["prompt_tokens"].as_u64().unwrap();
        completion += row["completion_tokens"].as_u64().unwrap();
        calls += row["calls"].as_u64().unwrap();
    }
    let st = stats(&m.url);
    assert_eq!(st["prompt_tokens"].as_u64().unwrap(), prompt);
    assert_eq!(st["completion_tokens"].as_u64().unwrap(), completion);
    assert_eq!(st["requests"].as_u64().unwrap(), calls, "{st}");
    for p in FILES {
        let rows = jsonl(&dir.path().join(format!("{p}.jsonl")));
        assert_eq!(rows.len(), 12, "{p}");
        for r in &rows {
            let t = &r["trace"];
            let keys: &[&str] = match p {
                "dylan" => &["rounds", "importance", "ranking", "fallbacks", "stop"],
                "macnet" => &["edges", "depth", "temperature", "personas", "nodes", "sink"],
                _ => &["turns", "fallbacks", "stop"],
            };
            for key in keys {
                assert!(t.get(*key).is_some(), "{p}: no `{key}` in {t}");
            }
            assert_eq!(t["errors"], serde_json::json!([]), "{p}");
        }
    }
    // The table lists the methods in the SelfOrg paper's order.
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let at = |m: &str| table.find(&format!("| {m} |")).unwrap();
    assert!(
        at("single") < at("dylan") && at("dylan") < at("macnet"),
        "{table}"
    );
    assert!(at("macnet") < at("agentverse"), "{table}");
}

#[test]
fn killed_mid_run_then_rerun_gives_the_same_results() {
    let m = mock(&["--latency-ms", "20"]);
    let full = tempfile::tempdir().unwrap();
    assert!(eval(&m.url, full.path(), &[]).status.success());
    let resumed = tempfile::tempdir().unwrap();
    let mut child = command(&m.url, resumed.path(), &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = resumed.path().join("dylan.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while lines_of(&first) < 3 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done: usize = FILES
        .iter()
        .map(|p| lines_of(&resumed.path().join(format!("{p}.jsonl"))))
        .sum();
    assert!(done < 36, "the run was interrupted ({done} of 36 done)");
    let out = eval(&m.url, resumed.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in FILES {
        let a = results_by_id(full.path(), p);
        let b = results_by_id(resumed.path(), p);
        assert_eq!(a.len(), 12, "{p}");
        assert_eq!(a, b, "{p}: resumed results differ");
    }
}

#[test]
fn a_recorded_run_replays_identically_offline() {
    let m = mock(&[]);
    let root = tempfile::tempdir().unwrap();
    let rec = root.path().join("rec");
    let a = root.path().join("a");
    let out = eval(&m.url, &a, &["--record", rec.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(m);
    let b = root.path().join("b");
    let out = eval(
        "http://127.0.0.1:9/v1",
        &b,
        &["--replay", rec.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in FILES {
        let (x, y) = (results_by_id(&a, p), results_by_id(&b, p));
        assert_eq!(x.len(), 12);
        for (r, s) in x.iter().zip(&y) {
            // Replayed calls are cached: their tokens are not spent again; all else is equal.
            for key in ["id", "answer", "correct", "calls", "failed_calls", "trace"] {
                assert_eq!(r[key], s[key], "{p} {} {key}", r["id"]);
            }
        }
    }
}
