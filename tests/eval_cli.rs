//! `colony eval` end to end: policies over HTTP against `serve-mock` with the dataset as its
//! answer key, token totals checked against the server, resume without duplicates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Mock, BIN};

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
        "0.7",
    ];
    args.extend_from_slice(extra);
    Mock::start(&args, &[])
}

fn eval(url: &str, out: &Path, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
        ])
        .args([
            "--policy",
            "single,cot,self_consistency:k=3,debate:agents=3,rounds=2,selforg",
        ])
        .args([
            "--base-url",
            url,
            "--model",
            "sim",
            "--max-retries",
            "2",
            "--quiet",
            "--concurrency",
            "4",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

fn stats(url: &str) -> serde_json::Value {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys,urllib.request;print(urllib.request.urlopen(sys.argv[1]).read().decode())",
        ])
        .arg(format!("{url}/mock/stats"))
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_policy_over_http_with_exact_token_totals() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval(&m.url, dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(dir.path());
    let mut prompt = 0;
    let mut completion = 0;
    for p in ["single", "cot", "self_consistency", "debate", "selforg"] {
        let row = &s["policies"][p];
        assert_eq!(row["n"], 12, "{p}");
        assert_eq!(row["errors"], 0, "{p}");
        prompt += row["prompt_tokens"].as_u64().unwrap();
        completion += row["completion_tokens"].as_u64().unwrap();
        let lines = std::fs::read_to_string(dir.path().join(format!("{p}.jsonl"))).unwrap();
        assert_eq!(lines.lines().count(), 12);
    }
    let st = stats(&m.url);
    assert_eq!(st["prompt_tokens"].as_u64().unwrap(), prompt);
    assert_eq!(st["completion_tokens"].as_u64().unwrap(), completion);
    // Some answers right, some wrong, at 70% accuracy per call.
    let acc = s["policies"]["single"]["accuracy"].as_f64().unwrap();
    assert!(acc > 0.0 && acc < 1.0, "{acc}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("| self_consistency |"));
    assert!(dir.path().join("results.csv").is_file());
}

/// `summary.json` with wall times zeroed (they differ run to run).
fn summary_without_wall(out: &Path) -> serde_json::Value {
    let mut s = summary(out);
    for row in s["policies"].as_object_mut().unwrap().values_mut() {
        row["wall_s"] = 0.into();
    }
    for per in s["datasets"].as_object_mut().unwrap().values_mut() {
        for row in per.as_object_mut().unwrap().values_mut() {
            row["wall_s"] = 0.into();
        }
    }
    s
}

fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn killed_mid_run_then_rerun_ends_with_the_same_totals_and_no_duplicates() {
    // Slow answers, so the run is surely still going when it is killed.
    let m = mock(&["--latency-ms", "40"]);
    let full = tempfile::tempdir().unwrap();
    assert!(eval(&m.url, full.path(), &[]).status.success());

    let resumed = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(sample())
        .args([
            "--policy",
            "single,cot,self_consistency:k=3,debate:agents=3,rounds=2,selforg",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--quiet",
            "--concurrency",
            "4",
            "--out",
        ])
        .arg(resumed.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = resumed.path().join("single.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while lines_of(&first) < 3 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up.
    child.wait().unwrap();
    let done_before: usize = ["single", "cot", "self_consistency", "debate", "selforg"]
        .iter()
        .map(|p| lines_of(&resumed.path().join(format!("{p}.jsonl"))))
        .sum();
    assert!(
        done_before < 60,
        "the run was interrupted ({done_before} of 60 done)"
    );
    assert!(!resumed.path().join("summary.json").exists());
    // A kill in the middle of a write leaves a torn last line; the rerun must cope.
    let mut text = std::fs::read_to_string(&first).unwrap();
    text.push_str("{\"id\": \"7\", \"pol");
    std::fs::write(&first, text).unwrap();

    let out = eval(&m.url, resumed.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for p in ["single", "cot", "self_consistency", "debate", "selforg"] {
        let lines = std::fs::read_to_string(resumed.path().join(format!("{p}.jsonl"))).unwrap();
        let ids: std::collections::BTreeSet<String> = lines
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            (lines.lines().count(), ids.len()),
            (12, 12),
            "{p}: duplicates or gaps"
        );
    }
    // Same seed, same deterministic model: identical totals to the uninterrupted run.
    assert_eq!(
        summary_without_wall(full.path()),
        summary_without_wall(resumed.path())
    );
}

#[test]
fn a_second_dataset_in_the_same_directory_adds_a_column_avg_and_avg_r() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    assert!(eval(&m.url, dir.path(), &["--limit", "4"]).status.success());
    // Another dataset whose item ids ("0", "1", …) collide with GSM8K's: must not be skipped.
    let out = Command::new(BIN)
        .args(["eval", "--dataset", "gsm-hard", "--data"])
        .arg(sample().with_file_name("gsm-hard.jsonl"))
        .args([
            "--policy",
            "single,cot",
            "--base-url",
            &m.url,
            "--model",
            "sim",
        ])
        .args(["--quiet", "--limit", "4", "--out"])
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(dir.path());
    assert_eq!(s["datasets"]["gsm8k"]["single"]["n"], 4);
    assert_eq!(s["datasets"]["gsm-hard"]["single"]["n"], 4);
    assert_eq!(s["policies"]["single"]["n"], 8);
    assert_eq!(lines_of(&dir.path().join("single.jsonl")), 8);
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        table.contains("| Method | gsm-hard (%) | gsm8k (%) | AVG | AVG-R |"),
        "{table}"
    );
    let svg = std::fs::read_to_string(dir.path().join("accuracy_vs_tokens.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("selforg") && svg.contains("single"));
}

#[test]
fn a_failing_model_is_recorded_per_item_and_the_run_continues() {
    let m = mock(&["--fail-500", "1.0"]);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
            "--policy",
            "single",
        ])
        .args([
            "--base-url",
            &m.url,
            "--max-retries",
            "0",
            "--quiet",
            "--limit",
            "3",
            "--out",
        ])
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(dir.path());
    assert_eq!(s["policies"]["single"]["n"], 3);
    assert_eq!(s["policies"]["single"]["correct"], 0);
    let line = std::fs::read_to_string(dir.path().join("single.jsonl")).unwrap();
    assert!(line.contains("500"), "the error is recorded: {line}");
}

#[test]
fn a_damaged_summary_is_a_clear_error_not_a_silent_reset() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("summary.json"), "{\"policies\": [").unwrap();
    let out = eval(&m.url, dir.path(), &["--limit", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("summary.json") && err.contains("not a colony summary"),
        "{err}"
    );
    // Nothing was overwritten.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("summary.json")).unwrap(),
        "{\"policies\": ["
    );
}
