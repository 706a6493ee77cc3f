//! The four CREW-Wildfire frameworks and embodied SelfOrg through `colony compare` on every
//! environment over HTTP against `serve-mock` (token totals equal the server's counts),
//! record → replay identical and offline, and resume after `kill -9`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{stats, Mock, BIN};
use serde_json::Value;

const FRAMEWORKS: &str = "camon,coela,embodied,hmas2,selforg";

fn colony(args: &[&str]) -> (bool, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn settings(env: &str) -> Vec<&'static str> {
    match env {
        "swarmbench" => vec!["--set", "agents=3", "--set", "max_round=3"],
        "cube" => vec!["--set", "n=2", "--max-steps", "25"],
        _ => vec!["--set", "level=1", "--max-steps", "6"],
    }
}

/// Every calls.jsonl of a run, by relative path.
fn call_logs(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.join("episodes")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.ends_with("calls.jsonl") || p.ends_with("steps.jsonl") {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn every_framework_on_every_environment_over_http_then_replayed_offline() {
    let m = Mock::start(&[], &[]);
    let root = tempfile::tempdir().unwrap();
    for env in ["swarmbench", "cube", "wildfire"] {
        let rec = root.path().join(format!("{env}-rec"));
        let live = root.path().join(format!("{env}-live"));
        let before = stats(&m.url);
        let mut args = vec!["compare", "--env", env];
        args.extend(settings(env));
        let out = live.to_str().unwrap().to_string();
        let rec_s = rec.to_str().unwrap().to_string();
        let mut live_args = args.clone();
        live_args.extend([
            "--policies",
            FRAMEWORKS,
            "--seeds",
            "0",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--quiet",
            "--out",
            &out,
        ]);
        let (ok, err) = colony(&live_args);
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
        let recorded_s = recorded.to_str().unwrap().to_string();
        let mut record_args = args.clone();
        record_args.extend([
            "--policies",
            FRAMEWORKS,
            "--seeds",
            "0",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--record",
            &rec_s,
            "--quiet",
            "--out",
            &recorded_s,
        ]);
        let (ok, err) = colony(&record_args);
        assert!(ok, "{env} record: {err}");
        let replayed = root.path().join(format!("{env}-replay"));
        let rep = replayed.to_str().unwrap().to_string();
        let mut replay_args = args.clone();
        replay_args.extend([
            "--policies",
            FRAMEWORKS,
            "--seeds",
            "0",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "sim",
            "--replay",
            &rec_s,
            "--quiet",
            "--out",
            &rep,
        ]);
        let (ok, err) = colony(&replay_args);
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
    let args = |out: &Path| -> Vec<String> {
        [
            "compare",
            "--env",
            "swarmbench",
            "--set",
            "agents=3",
            "--set",
            "max_round=3",
            "--policies",
            "hmas2,camon",
            "--seeds",
            "0..6",
            "--episodes-in-flight",
            "1",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let whole = root.path().join("whole");
    let (ok, err) = colony(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    let killed = root.path().join("killed");
    let mut child = Command::new(BIN)
        .args(args(&killed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let episodes = killed.join("episodes.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while jsonl(&episodes).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        jsonl(&episodes).len() < 12,
        "the run finished before it was killed"
    );
    let (ok, err) = colony(&args(&killed).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    let mut keys: Vec<(String, u64)> = jsonl(&episodes)
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
    assert_eq!(jsonl(&episodes).len(), 12, "no episode twice");
    let summary = |d: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap()
    };
    assert_eq!(summary(&whole), summary(&killed));
}
