//! The DyLAN, MacNet and AgentVerse baselines from the command line (`colony eval --policy
//! dylan;macnet;agentverse`) over HTTP against `serve-mock`: totals equal the server's
//! counts, the traces carry each method's record, a killed run resumes to the same results,
//! and a recorded run replays identically offline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::eval_run::{eval_output, gsm8k_mock};
use common::{jsonl, stats, summary, Mock};

const POLICIES: &str = "single;dylan;macnet;agentverse";
const FILES: [&str; 3] = ["dylan", "macnet", "agentverse"];

fn mock(extra: &[&str]) -> Mock {
    gsm8k_mock("0.5", extra)
}

fn eval(url: &str, out: &Path, extra: &[&str]) -> Output {
    eval_output(POLICIES, url, out, extra)
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
    common::eval_run::assert_resumes_after_kill(POLICIES, &FILES, "20");
}

#[test]
fn a_recorded_run_replays_identically_offline() {
    common::eval_run::assert_replays_identically(POLICIES, &FILES);
}
