//! The four CREW-Wildfire frameworks and embodied SelfOrg through `colony compare` on every
//! environment over HTTP against `serve-mock` (token totals equal the server's counts),
//! record → replay identical and offline, and resume after `kill -9`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::{
    colony, compare_args, compare_flags, compare_resumed_after_kill, episode_files, jsonl, stats,
    Mock,
};

const FRAMEWORKS: &str = "camon,coela,embodied,hmas2,selforg";

fn settings(env: &str) -> Vec<&'static str> {
    match env {
        "swarmbench" => vec!["--set", "agents=3", "--set", "max_round=3"],
        "cube" => vec!["--set", "n=2", "--max-steps", "25"],
        _ => vec!["--set", "level=1", "--max-steps", "6"],
    }
}

/// Every calls.jsonl and steps.jsonl of a run, by relative path.
fn call_logs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    episode_files(dir, |p| {
        p.ends_with("calls.jsonl") || p.ends_with("calls.jsonl.zst") || p.ends_with("steps.jsonl")
    })
}

#[test]
fn every_framework_on_every_environment_over_http_then_replayed_offline() {
    let m = Mock::start(&[], &[]);
    let root = tempfile::tempdir().unwrap();
    for env in ["swarmbench", "cube", "wildfire"] {
        let set = settings(env);
        let run = |out: &Path, extra: &[&str]| {
            let rest = [&["--seeds", "0"][..], extra].concat();
            colony(&compare_args(env, &set, FRAMEWORKS, &rest, out))
        };
        let rec = root.path().join(format!("{env}-rec"));
        let rec_s = rec.to_str().unwrap();
        let live = root.path().join(format!("{env}-live"));
        let before = stats(&m.url);
        let (ok, _, err) = run(&live, &["--base-url", &m.url, "--model", "sim"]);
        assert!(ok, "{env}: {err}");
        let rows = jsonl(&live.join("episodes.jsonl"));
        assert_eq!(rows.len(), 5, "{env}");
        let (mut prompt, mut completion) = (0, 0);
        for r in &rows {
            assert!(r["error"].is_null(), "{env}: {r}");
            assert!(r["calls"].as_u64().unwrap() > 0, "{env}: {r}");
            prompt += r["prompt_tokens"].as_u64().unwrap();
            completion += r["completion_tokens"].as_u64().unwrap();
        }
        let after = stats(&m.url);
        let delta = |k: &str| after[k].as_u64().unwrap() - before[k].as_u64().unwrap();
        assert_eq!(delta("prompt_tokens"), prompt, "{env}");
        assert_eq!(delta("completion_tokens"), completion, "{env}");
        // Record (identical requests are answered once, so this run is not compared with
        // the server's counts), then replay with no server: byte-identical steps and calls.
        let recorded = root.path().join(format!("{env}-recorded"));
        let record = ["--base-url", &m.url, "--model", "sim", "--record", rec_s];
        let (ok, _, err) = run(&recorded, &record);
        assert!(ok, "{env} record: {err}");
        let replayed = root.path().join(format!("{env}-replay"));
        let replay = [
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "sim",
            "--replay",
            rec_s,
        ];
        let (ok, _, err) = run(&replayed, &replay);
        assert!(ok, "{env} replay: {err}");
        assert_eq!(
            call_logs(&recorded),
            call_logs(&replayed),
            "{env}: replay differs"
        );
    }
}

#[test]
fn a_killed_framework_run_resumes_without_duplicates_to_the_same_summary() {
    let m = Mock::start(&["--latency-ms", "10"], &[]);
    let root = tempfile::tempdir().unwrap();
    let rest = ["--seeds", "0..6", "--episodes-in-flight", "1"];
    let rest = [&rest[..], &["--base-url", &m.url, "--model", "sim"]].concat();
    let args = compare_flags("swarmbench", &settings("swarmbench"), "hmas2,camon", &rest);
    let rows = compare_resumed_after_kill(&args, root.path(), 2, 12, Duration::from_secs(120));
    let mut keys: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["policy"].as_str().unwrap().to_string(),
                r["seed"].as_u64().unwrap(),
            )
        })
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 12);
    assert_eq!(rows.len(), 12, "no episode twice");
}
