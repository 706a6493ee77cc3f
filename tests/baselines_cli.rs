//! The DyLAN, MacNet and AgentVerse baselines from the command line (`colony eval --policy
//! dylan;macnet;agentverse`) over HTTP against `serve-mock`: totals equal the server's
//! counts, the traces carry each method's record, a killed run resumes to the same results,
//! and a recorded run replays identically offline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::eval_run::eval_counted_by_the_server;
use common::jsonl;

const POLICIES: &str = "single;dylan;macnet;agentverse";
const FILES: [&str; 3] = ["dylan", "macnet", "agentverse"];

#[test]
fn eval_over_http_totals_equal_the_servers_counts() {
    let counted = ["single", "dylan", "macnet", "agentverse"];
    let (dir, out, _) = eval_counted_by_the_server(POLICIES, "0.5", &counted);
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
