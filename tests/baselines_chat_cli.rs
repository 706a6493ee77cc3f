//! The Self-Refine, MultiPersona, AutoGen and MAD baselines from the command line (`colony eval
//! --policy self_refine;multipersona;autogen;mad;gptswarm`; GPTSwarm and G-Designer untrained here) over HTTP against `serve-mock`: totals equal
//! the server's counts, the traces carry each method's record, and a recorded run replays
//! identically offline.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::eval_run::eval_counted_by_the_server;
use common::jsonl;

const POLICIES: &str = "self_refine;multipersona;autogen;mad;gptswarm;gdesigner";
const FILES: [&str; 6] = [
    "self_refine",
    "multipersona",
    "autogen",
    "mad",
    "gptswarm",
    "gdesigner",
];

#[test]
fn eval_over_http_totals_equal_the_servers_counts() {
    let (dir, out, _) = eval_counted_by_the_server(POLICIES, "0.5", &FILES);
    for p in FILES {
        let rows = jsonl(&dir.path().join(format!("{p}.jsonl")));
        assert_eq!(rows.len(), 12, "{p}");
        for r in &rows {
            let t = &r["trace"];
            let keys: &[&str] = match p {
                "self_refine" => &["answers", "refinements", "stop"],
                "multipersona" => &["personas", "fallback"],
                "autogen" => &["speakers", "fallbacks", "stop"],
                "gptswarm" => &["edges", "depth", "trained"],
                "gdesigner" => &["edges", "depth", "trained", "probabilities"],
                _ => &["verdicts", "decided_by", "fallbacks"],
            };
            for key in keys {
                assert!(t.get(*key).is_some(), "{p}: no `{key}` in {t}");
            }
            assert_eq!(t["errors"], serde_json::json!([]), "{p}");
        }
    }
    // The table lists AutoGen where the SelfOrg paper's table has it, after AgentVerse's place
    // and before the other new baselines.
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let at = |m: &str| table.find(&format!("| {m} |")).unwrap();
    assert!(
        at("autogen") < at("self_refine") && at("self_refine") < at("mad"),
        "{table}"
    );
}

#[test]
fn a_recorded_run_replays_identically_offline() {
    common::eval_run::assert_replays_identically(POLICIES, &FILES);
}
