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
        table.contains("| Method | gsm8k (%) | gsm-hard (%) | AVG | AVG-R |"),
        "{table}"
    );
    let svg = std::fs::read_to_string(dir.path().join("accuracy_vs_tokens.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("selforg") && svg.contains("single"));
}

fn eval_single(url: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
            "--policy",
            "single",
            "--base-url",
            url,
            "--model",
            "sim",
            "--max-retries",
            "0",
            "--quiet",
            "--limit",
            "3",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn a_failing_model_makes_errors_not_wrong_answers_and_a_rerun_retries_them() {
    let m = mock(&["--fail-500", "1.0"]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval_single(&m.url, dir.path(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "every item errored, yet exit 0");
    assert!(
        err.contains("every item of single ended with an error"),
        "{err}"
    );
    let s = summary(dir.path());
    assert_eq!(s["policies"]["single"]["n"], 3);
    assert_eq!(s["policies"]["single"]["errors"], 3);
    assert_eq!(s["policies"]["single"]["correct"], 0);
    assert_eq!(s["policies"]["single"]["failed_calls"], 3);
    let lines = std::fs::read_to_string(dir.path().join("single.jsonl")).unwrap();
    for line in lines.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(r["error"].as_str().unwrap().contains("500"), "{r}");
        assert_eq!(r["failed_calls"], 1);
    }
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| Errors | Failed calls |"), "{table}");
    // Against a healthy server the errored items run again; nothing is stuck at 0%.
    let healthy = mock(&[]);
    let out = eval_single(&healthy.url, dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(dir.path());
    assert_eq!(s["policies"]["single"]["n"], 3);
    assert_eq!(s["policies"]["single"]["errors"], 0);
    assert!(s["policies"]["single"]["calls"].as_u64().unwrap() >= 3);
}

#[test]
fn an_unauthorized_or_dead_endpoint_stops_the_run_with_one_line() {
    // 401: serve-mock requires a key the client does not send.
    let m = Mock::start(
        &["--require-api-key-env", "COLONY_TEST_NEEDED_KEY"],
        &[("COLONY_TEST_NEEDED_KEY", "secret-key")],
    );
    for (url, needle) in [(m.url.as_str(), "401"), ("http://127.0.0.1:9/v1", "efused")] {
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
                "--base-url",
                url,
                "--model",
                "sim",
                "--max-retries",
                "0",
                "--quiet",
                "--concurrency",
                "1",
                "--items-in-flight",
                "1",
                "--out",
            ])
            .arg(dir.path())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            err.contains("run stopped early") && err.contains(needle),
            "{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!err.contains("secret-key"));
        let done = lines_of(&dir.path().join("single.jsonl"));
        assert!(done < 12, "the run burnt through the dataset: {done} items");
    }
    // A strict replay miss stops the run too.
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    std::fs::create_dir_all(&rec).unwrap();
    std::fs::write(rec.join("calls.jsonl"), "").unwrap();
    let out = eval_single(
        "http://127.0.0.1:9/v1",
        &dir.path().join("out"),
        &[
            "--replay",
            rec.to_str().unwrap(),
            "--items-in-flight",
            "1",
            "--concurrency",
            "1",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("run stopped early") && err.contains("replay cache miss"),
        "{err}"
    );
}

#[test]
fn partial_failures_are_counted_per_item_without_losing_the_answer() {
    let m = mock(&["--fail-500", "0.3", "--seed", "5"]);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
            "--policy",
            "self_consistency:k=5",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--max-retries",
            "0",
            "--quiet",
            "--out",
        ])
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let _ = out;
    let text = std::fs::read_to_string(dir.path().join("self_consistency.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let partial: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["failed_calls"].as_u64().unwrap() > 0 && r["answer"].is_string())
        .collect();
    assert!(!partial.is_empty(), "no item had a partial failure: {text}");
    assert!(
        partial.iter().all(|r| r["error"].is_null()),
        "answered items are not errors"
    );
    let s = summary(dir.path());
    let failed: u64 = rows
        .iter()
        .map(|r| r["failed_calls"].as_u64().unwrap())
        .sum();
    assert_eq!(s["policies"]["self_consistency"]["failed_calls"], failed);
}

#[test]
fn a_damaged_summary_is_rebuilt_from_the_results_files() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval(&m.url, dir.path(), &["--limit", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = summary(dir.path());
    std::fs::write(dir.path().join("summary.json"), "{\"policies\": [").unwrap();
    let out = eval(&m.url, dir.path(), &["--limit", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every policy's rows are back, with the same totals (wall times aside).
    let after = summary(dir.path());
    for policy in ["single", "cot", "self_consistency", "debate", "selforg"] {
        for key in ["n", "correct", "errors", "calls", "prompt_tokens"] {
            assert_eq!(
                after["policies"][policy][key], before["policies"][policy][key],
                "{policy} {key}"
            );
        }
    }
}

#[test]
fn a_second_writer_on_the_same_directory_is_refused() {
    let slow = mock(&["--latency-ms", "300"]);
    let dir = tempfile::tempdir().unwrap();
    let mut first = Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
            "--policy",
            "single",
            "--base-url",
            &slow.url,
            "--model",
            "sim",
            "--quiet",
            "--concurrency",
            "1",
            "--items-in-flight",
            "1",
            "--out",
        ])
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = dir.path().join(".colony.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::fs::read_to_string(&lock).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            std::time::Instant::now() < deadline,
            "the first run never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = eval_single(&slow.url, dir.path(), &[]);
    let _ = first.kill();
    let _ = first.wait();
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success());
    assert!(err.contains("another colony process"), "{err}");
}

#[test]
fn a_remote_embedder_inside_eval_uses_the_api_key_env_like_colony_embed() {
    let m = Mock::start(
        &[
            "--require-api-key-env",
            "COLONY_TEST_EMBED_KEY",
            "--answer-key",
            sample().to_str().unwrap(),
            "--dataset",
            "gsm8k",
        ],
        &[("COLONY_TEST_EMBED_KEY", "k-123")],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            sample().to_str().unwrap(),
            "--policy",
            "selforg:rounds=1",
            "--limit",
            "1",
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--api-key-env",
            "COLONY_TEST_EMBED_KEY",
            "--embedder",
            &format!("remote:{}#sim", m.url),
            "--quiet",
            "--out",
        ])
        .arg(dir.path())
        .env("COLONY_TEST_EMBED_KEY", "k-123")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let s = summary(dir.path());
    assert_eq!(s["policies"]["selforg"]["errors"], 0, "{s}");
}

#[test]
fn a_stalled_server_with_a_deadline_gives_errors_not_wrong_answers() {
    let m = mock(&["--stall", "1.0", "--stall-secs", "30"]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval_single(&m.url, dir.path(), &["--timeout", "0.5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("every item of single ended with an error"),
        "{err}"
    );
    let s = summary(dir.path());
    assert_eq!(s["policies"]["single"]["errors"], 3);
    assert_eq!(s["policies"]["single"]["accuracy"], 0.0);
    let text = std::fs::read_to_string(dir.path().join("single.jsonl")).unwrap();
    for line in text.lines() {
        // The attempt timeout or the call deadline, whichever fires first.
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let e = r["error"].as_str().unwrap_or_default();
        assert!(e.contains("timeout") || e.contains("deadline"), "{line}");
        assert_eq!(r["correct"], false);
        assert_eq!(r["failed_calls"], 1);
    }
}
