//! `colony eval` end to end: policies over HTTP against `serve-mock` with the dataset as its
//! answer key, token totals checked against the server, resume without duplicates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use common::eval_run::{
    assert_totals_are_the_servers, eval_on, gsm8k_eval, gsm8k_mock, gsm8k_sample,
};
use common::{
    assert_ok, assert_stopped_early, jsonl, lines_of, run_ok, stats, summary, wait_until, Mock,
};

const POLICIES: &str = "single,cot,self_consistency:k=3,debate:agents=3,rounds=2,selforg";
/// Results files are named by each spec's label: the spec as written.
const FILES: [&str; 5] = [
    "single",
    "cot",
    "self_consistency:k=3",
    "debate:agents=3,rounds=2",
    "selforg",
];

fn mock(extra: &[&str]) -> Mock {
    gsm8k_mock("0.7", extra)
}

fn eval(url: &str, out: &Path, extra: &[&str]) -> Output {
    gsm8k_eval(POLICIES, url, out)
        .args(["--max-retries", "2", "--quiet", "--concurrency", "4"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn every_policy_over_http_with_exact_token_totals() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval(&m.url, dir.path(), &[]);
    assert_ok(&out);
    let s = summary(dir.path());
    assert_totals_are_the_servers(&s, &FILES, &m.url, false);
    for p in FILES {
        assert_eq!(lines_of(&dir.path().join(format!("{p}.jsonl"))), 12);
    }
    // Some answers right, some wrong, at 70% accuracy per call.
    let acc = s["policies"]["single"]["accuracy"].as_f64().unwrap();
    assert!(acc > 0.0 && acc < 1.0, "{acc}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("| self_consistency:k=3 |"));
    assert!(dir.path().join("results.csv").is_file());
    // One policy order in every table and file of the run: the results table's (the
    // paper's), also in the latency table (once alphabetical), the stdout table and the CSV.
    let results = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    let order = policy_orders(&results)[0].clone();
    assert_eq!(order.len(), FILES.len(), "{results}");
    for t in policy_orders(&results) {
        // Tables of some policies only (metrics) keep the same relative order.
        let places: Vec<usize> = t
            .iter()
            .map(|p| order.iter().position(|o| o == p).unwrap())
            .collect();
        assert!(places.windows(2).all(|w| w[0] < w[1]), "{results}");
    }
    let latency = std::fs::read_to_string(dir.path().join("latency.md")).unwrap();
    assert_eq!(policy_orders(&latency), vec![order.clone()], "{latency}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(policy_orders(&stdout)[0], order, "{stdout}");
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let mut csv_order: Vec<String> = Vec::new();
    for line in csv.lines().skip(1) {
        // The method column, quoted when the label holds a comma.
        let method = match line.split_once(',').map(|(_, rest)| rest) {
            Some(rest) if rest.starts_with('"') => rest[1..].split('"').next().unwrap(),
            Some(rest) => rest.split(',').next().unwrap(),
            None => "",
        };
        assert!(FILES.contains(&method), "{line}");
        if !csv_order.iter().any(|m| m == method) {
            csv_order.push(method.to_string());
        }
    }
    assert_eq!(csv_order, order, "{csv}");
}

/// For each Markdown table of `text` that names the run's policies in its first column, the
/// policies in row order.
fn policy_orders(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for line in text.lines().chain(std::iter::once("")) {
        if let Some(rest) = line.strip_prefix("| ") {
            let first = rest
                .split(" |")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            if FILES.contains(&first.as_str()) {
                current.push(first);
            }
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// `summary.json` with wall times zeroed (they differ run to run).
fn summary_without_wall(out: &Path) -> serde_json::Value {
    // Wall times and call latencies are the only figures two runs of the same work differ in.
    common::timeless(&summary(out))
}

#[test]
fn killed_mid_run_then_rerun_ends_with_the_same_totals_and_no_duplicates() {
    // Slow answers, so the run is surely still going when it is killed.
    let m = mock(&["--latency-ms", "40"]);
    let full = tempfile::tempdir().unwrap();
    assert!(eval(&m.url, full.path(), &[]).status.success());

    let resumed = tempfile::tempdir().unwrap();
    let mut child = gsm8k_eval(POLICIES, &m.url, resumed.path())
        .args(["--quiet", "--concurrency", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = resumed.path().join("single.jsonl");
    wait_until(
        Duration::from_secs(60),
        Duration::from_millis(2),
        "no progress",
        || lines_of(&first) >= 3,
    );
    child.kill().unwrap(); // SIGKILL: no chance to clean up.
    child.wait().unwrap();
    let done_before: usize = FILES
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

    assert_ok(&eval(&m.url, resumed.path(), &[]));
    for p in FILES {
        let rows = jsonl(&resumed.path().join(format!("{p}.jsonl")));
        let ids: std::collections::BTreeSet<&str> =
            rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!((rows.len(), ids.len()), (12, 12), "{p}: duplicates or gaps");
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
    let hard = gsm8k_sample().with_file_name("gsm-hard.jsonl");
    let out = run_ok(eval_on("gsm-hard", &hard, "single,cot", dir.path()).args([
        "--base-url",
        &m.url,
        "--model",
        "sim",
        "--quiet",
        "--limit",
        "4",
    ]));
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

fn eval_single(url: &str, out: &Path, extra: &[&str]) -> Output {
    gsm8k_eval("single", url, out)
        .args(["--max-retries", "0", "--quiet", "--limit", "3"])
        .args(extra)
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
    for r in jsonl(&dir.path().join("single.jsonl")) {
        assert!(r["error"].as_str().unwrap().contains("500"), "{r}");
        assert_eq!(r["failed_calls"], 1);
    }
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("| Errors | Failed calls |"), "{table}");
    // Against a healthy server the errored items run again; nothing is stuck at 0%.
    let healthy = mock(&[]);
    assert_ok(&eval_single(&healthy.url, dir.path(), &[]));
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
        let out = gsm8k_eval("single", url, dir.path())
            .args(["--max-retries", "0", "--quiet"])
            .args(["--concurrency", "1", "--items-in-flight", "1"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_stopped_early(out.status.success(), &err, needle);
        // No partial table is printed before the error (results.md keeps it, marked partial).
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        // A refused connection is not also called "transient".
        assert!(!err.contains("transient"), "{err}");
        assert!(!err.contains("secret-key"));
        let done = lines_of(&dir.path().join("single.jsonl"));
        assert!(done < 12, "the run burnt through the dataset: {done} items");
        // The table of a stopped run says so before any number.
        let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
        assert!(md.starts_with("> **Partial results"), "{md}");
        assert!(summary(dir.path())["stopped"]
            .as_str()
            .is_some_and(|w| w.contains("single") && w.contains(needle)));
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
    assert_stopped_early(out.status.success(), &err, "replay cache miss");
}

#[test]
fn partial_failures_are_counted_per_item_without_losing_the_answer() {
    let m = mock(&["--fail-500", "0.3", "--seed", "5"]);
    let dir = tempfile::tempdir().unwrap();
    gsm8k_eval("self_consistency:k=5", &m.url, dir.path())
        .args(["--max-retries", "0", "--quiet"])
        .output()
        .unwrap();
    let text = std::fs::read_to_string(dir.path().join("self_consistency:k=5.jsonl")).unwrap();
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
    assert_eq!(
        s["policies"]["self_consistency:k=5"]["failed_calls"],
        failed
    );
}

#[test]
fn a_damaged_summary_is_rebuilt_from_the_results_files() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&eval(&m.url, dir.path(), &["--limit", "1"]));
    let before = summary(dir.path());
    std::fs::write(dir.path().join("summary.json"), "{\"policies\": [").unwrap();
    assert_ok(&eval(&m.url, dir.path(), &["--limit", "1"]));
    // Every policy's rows are back, with the same totals (wall times aside).
    let after = summary(dir.path());
    for policy in FILES {
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
    let mut first = gsm8k_eval("single", &slow.url, dir.path())
        .args(["--quiet", "--concurrency", "1", "--items-in-flight", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = dir.path().join(".colony.lock");
    wait_until(
        Duration::from_secs(30),
        Duration::from_millis(20),
        "the first run never locked",
        || std::fs::read_to_string(&lock).is_ok_and(|t| !t.trim().is_empty()),
    );
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
            gsm8k_sample().to_str().unwrap(),
            "--dataset",
            "gsm8k",
        ],
        &[("COLONY_TEST_EMBED_KEY", "k-123")],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = gsm8k_eval("selforg:rounds=1", &m.url, dir.path())
        .args(["--limit", "1", "--api-key-env", "COLONY_TEST_EMBED_KEY"])
        .args(["--embedder", &format!("remote:{}#sim", m.url), "--quiet"])
        .env("COLONY_TEST_EMBED_KEY", "k-123")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let s = summary(dir.path());
    assert_eq!(s["policies"]["selforg:rounds=1"]["errors"], 0, "{s}");
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
    assert!(s["policies"]["single"]["accuracy"].is_null(), "{s}");
    for r in jsonl(&dir.path().join("single.jsonl")) {
        // The attempt timeout or the call deadline, whichever fires first.
        let e = r["error"].as_str().unwrap_or_default();
        assert!(e.contains("timeout") || e.contains("deadline"), "{r}");
        assert_eq!(r["correct"], false);
        assert_eq!(r["failed_calls"], 1);
    }
}

/// stderr is a pipe here, as in a Slurm log: progress comes as plain lines at each 5% and at
/// the end, per policy, with done/total, calls, rate and ETA; `--quiet` silences them.
#[test]
fn progress_is_printed_as_lines_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = eval_on("gsm8k", &gsm8k_sample(), "single,cot", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for policy in ["single", "cot"] {
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with(&format!("progress: {policy} ")))
            .collect();
        // 12 items: every item crosses a new 5% step.
        assert_eq!(lines.len(), 12, "{err}");
        assert!(
            lines[0].contains(" 1/12 items (8%) calls 1 rate "),
            "{}",
            lines[0]
        );
        assert!(
            lines[11].contains(" 12/12 items (100%) calls 12 ") && lines[11].ends_with("ETA done")
        );
        assert!(lines[5].contains(" 6/12 items (50%) ") && lines[5].contains(" ETA "));
    }
    let quiet = eval_on("gsm8k", &gsm8k_sample(), "single", &dir.path().join("q"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("progress:"));
}

/// A server that reports its per-request context on `GET /props` (as llama-server does) has
/// prompts too long for it refused before they are sent, with the error saying where the limit
/// comes from; a configured `--context-tokens` wins, and the server then refuses the prompt
/// itself with HTTP 400 (what colony used to get from a 4,096-token llama-server slot).
#[test]
fn the_servers_reported_context_refuses_long_prompts_before_sending() {
    let m = mock(&["--context-tokens", "20"]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval_single(&m.url, dir.path(), &[]);
    assert!(!out.status.success(), "every item errored, yet exit 0");
    for item in jsonl(&dir.path().join("single.jsonl")) {
        let e = item["error"].as_str().unwrap();
        assert!(
            e.contains(
                "does not fit the context of 20 tokens (as the server reports on GET /props)"
            ),
            "{e}"
        );
    }
    assert_eq!(stats(&m.url)["chat_requests"], 0);
    let sent = eval_single(
        &m.url,
        &dir.path().join("sent"),
        &["--context-tokens", "4096"],
    );
    assert!(!sent.status.success());
    assert_eq!(stats(&m.url)["chat_requests"], 3);
    for item in jsonl(&dir.path().join("sent/single.jsonl")) {
        let e = item["error"].as_str().unwrap();
        assert!(e.contains("exceeds the available context size"), "{e}");
    }
}

/// A prompt that cannot fit `--context-tokens` is refused before it is sent: every item is an
/// error naming both sizes (never a wrong answer), and the server saw no request.
#[test]
fn prompts_over_the_context_budget_are_refused_before_they_are_sent() {
    let m = mock(&[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval_single(&m.url, dir.path(), &["--context-tokens", "20"]);
    assert!(!out.status.success(), "every item errored, yet exit 0");
    let s = summary(dir.path());
    assert_eq!(s["policies"]["single"]["errors"], 3, "{s}");
    assert_eq!(s["policies"]["single"]["correct"], 0, "{s}");
    let items = jsonl(&dir.path().join("single.jsonl"));
    for item in &items {
        let e = item["error"].as_str().unwrap();
        assert!(e.contains("does not fit the context of 20 tokens"), "{e}");
    }
    assert_eq!(stats(&m.url)["chat_requests"], 0);
    // A budget the prompts fit changes nothing.
    let fits = eval_single(
        &m.url,
        &dir.path().join("fits"),
        &["--context-tokens", "4096"],
    );
    assert_ok(&fits);
    assert_eq!(
        summary(&dir.path().join("fits"))["policies"]["single"]["errors"],
        0
    );
    let bad = eval_single(&m.url, &dir.path().join("bad"), &["--context-tokens", "0"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success() && err.contains("context_tokens"),
        "{err}"
    );
}

/// Every successful call's latency is recorded with its item, and the summary, CSV and
/// Markdown report its percentiles per policy. The server adds 30 ms to every call, so no
/// percentile can be below that (a causal bound, not a speed measurement).
#[test]
fn call_latency_percentiles_are_reported_per_policy() {
    let m = mock(&["--latency-ms", "30"]);
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&eval_single(&m.url, dir.path(), &[]));
    let items = jsonl(&dir.path().join("single.jsonl"));
    for item in &items {
        let calls = item["calls"].as_u64().unwrap() as usize;
        assert_eq!(
            item["call_latency_ms"].as_array().unwrap().len(),
            calls,
            "{item}"
        );
    }
    let s = summary(dir.path());
    common::assert_latency_percentiles(&s["policies"]["single"], 30.0);
    let md = std::fs::read_to_string(dir.path().join("latency.md")).unwrap();
    assert!(
        md.contains("| Method | Calls | p50 | p95 | p99 | wall s | calls/s |"),
        "{md}"
    );
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",call_p50_ms,call_p95_ms,call_p99_ms"));
}

/// `--base-url` without `--model`: the server is asked for its one model once per command,
/// and the note saying so is printed once (it was printed for every resolution of the model).
#[test]
fn the_servers_only_model_is_asked_for_and_noted_once() {
    let m = common::eval_run::gsm8k_mock("0.5", &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = common::eval_run::eval_on(
        "gsm8k",
        &common::eval_run::gsm8k_sample(),
        "single",
        dir.path(),
    )
    .args(["--base-url", &m.url, "--quiet", "--limit", "2"])
    .output()
    .unwrap();
    common::assert_ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("using the server's only model").count(),
        1,
        "{err}"
    );
}

/// A run against `serve-mock` keyed with another dataset's file: every request is counted as
/// unkeyed (what a silent 0% looks like) and the server warns once; the key's own dataset
/// gives none.
#[test]
fn requests_whose_question_is_not_in_the_answer_key_are_counted() {
    let m = common::eval_run::gsm8k_mock("0.9", &[]);
    let tmp = tempfile::tempdir().unwrap();
    let math = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("environments/qa/samples/math-500.jsonl");
    let out = common::eval_run::eval_on("math", &math, "single", &tmp.path().join("math"))
        .args([
            "--base-url",
            &m.url,
            "--model",
            "sim",
            "--quiet",
            "--limit",
            "3",
        ])
        .output()
        .unwrap();
    common::assert_ok(&out);
    let st = common::stats(&m.url);
    assert_eq!(st["unkeyed_requests"], 3, "{st}");
    let m = common::eval_run::gsm8k_mock("0.9", &[]);
    let out = common::eval_run::gsm8k_eval("single", &m.url, &tmp.path().join("gsm8k"))
        .args(["--quiet", "--limit", "3"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    assert_eq!(common::stats(&m.url)["unkeyed_requests"], 0);
}
