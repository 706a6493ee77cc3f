//! `colony eval` runs of a policy list on the bundled GSM8K sample against `serve-mock`, and
//! the resume and replay checks every policy family's CLI test makes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::{assert_ok, colony_cmd, lines_of, results_by_id, stats, summary, wait_until, Mock};

/// The bundled GSM8K sample (12 items).
pub fn gsm8k_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("environments/qa/samples/gsm8k.jsonl")
}

/// `serve-mock` keyed with the GSM8K sample at `accuracy`, plus `extra` flags.
pub fn gsm8k_mock(accuracy: &str, extra: &[&str]) -> Mock {
    let key = gsm8k_sample();
    let mut args = vec![
        "--answer-key",
        key.to_str().unwrap(),
        "--dataset",
        "gsm8k",
        "--accuracy",
        accuracy,
    ];
    args.extend_from_slice(extra);
    Mock::start(&args, &[])
}

/// `colony eval --dataset DATASET --data DATA --policy POLICIES --out OUT` from the workspace
/// root; callers add the rest.
pub fn eval_on(dataset: &str, data: &Path, policies: &str, out: &Path) -> Command {
    let mut c = colony_cmd(["eval", "--dataset", dataset, "--data"]);
    c.arg(data).args(["--policy", policies, "--out"]).arg(out);
    c
}

/// [`eval_on`] the GSM8K sample against `url` with the model `sim`; callers add the rest.
pub fn gsm8k_eval(policies: &str, url: &str, out: &Path) -> Command {
    let mut c = eval_on("gsm8k", &gsm8k_sample(), policies, out);
    c.args(["--base-url", url, "--model", "sim"]);
    c
}

/// `colony eval --policy POLICIES` on the sample against `url`, into `out`.
pub fn eval_command(policies: &str, url: &str, out: &Path, extra: &[&str]) -> Command {
    let mut c = gsm8k_eval(policies, url, out);
    c.args(["--max-retries", "1", "--quiet", "--concurrency", "4"])
        .args(extra);
    c
}

/// [`eval_command`], run to the end.
pub fn eval_output(policies: &str, url: &str, out: &Path, extra: &[&str]) -> Output {
    eval_command(policies, url, out, extra).output().unwrap()
}

/// Checks that each of `policies` in the `summary.json` `s` ran all 12 items without an error
/// and that their prompt and completion tokens (and, with `requests`, their calls) add up to
/// what the server at `url` counted.
pub fn assert_totals_are_the_servers(s: &Value, policies: &[&str], url: &str, requests: bool) {
    let (mut prompt, mut completion, mut calls) = (0, 0, 0);
    for p in policies {
        let row = &s["policies"][p];
        assert_eq!(row["n"], 12, "{p}");
        assert_eq!(row["errors"], 0, "{p}");
        prompt += row["prompt_tokens"].as_u64().unwrap();
        completion += row["completion_tokens"].as_u64().unwrap();
        calls += row["calls"].as_u64().unwrap();
    }
    let st = stats(url);
    assert_eq!(st["prompt_tokens"].as_u64().unwrap(), prompt);
    assert_eq!(st["completion_tokens"].as_u64().unwrap(), completion);
    if requests {
        assert_eq!(st["requests"].as_u64().unwrap(), calls, "{st}");
    }
}

/// [`eval_output`] of `policies` against a fresh [`gsm8k_mock`] at `accuracy`, into a new
/// directory: it exits 0, and the totals of `counted` (calls included) are the server's (see
/// [`assert_totals_are_the_servers`]). Returns the directory, the output and the summary.
pub fn eval_counted_by_the_server(
    policies: &str,
    accuracy: &str,
    counted: &[&str],
) -> (tempfile::TempDir, Output, Value) {
    let m = gsm8k_mock(accuracy, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = eval_output(policies, &m.url, dir.path(), &[]);
    assert_ok(&out);
    let s = summary(dir.path());
    assert_totals_are_the_servers(&s, counted, &m.url, true);
    (dir, out, s)
}

/// A run killed once `files[0]` has 3 results, then rerun into the same directory, ends
/// with exactly the results of an uninterrupted run, for every results file in `files`.
pub fn assert_resumes_after_kill(policies: &str, files: &[&str], latency_ms: &str) {
    let m = gsm8k_mock("0.5", &["--latency-ms", latency_ms]);
    let full = tempfile::tempdir().unwrap();
    assert_ok(&eval_output(policies, &m.url, full.path(), &[]));
    let resumed = tempfile::tempdir().unwrap();
    let mut child = eval_command(policies, &m.url, resumed.path(), &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let first = resumed.path().join(format!("{}.jsonl", files[0]));
    wait_until(
        Duration::from_secs(120),
        Duration::from_millis(2),
        "no progress",
        || lines_of(&first) >= 3,
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let total = 12 * files.len();
    let done: usize = files
        .iter()
        .map(|p| lines_of(&resumed.path().join(format!("{p}.jsonl"))))
        .sum();
    assert!(
        done < total,
        "the run was interrupted ({done} of {total} done)"
    );
    assert_ok(&eval_output(policies, &m.url, resumed.path(), &[]));
    for p in files {
        let a = results_by_id(full.path(), p);
        let b = results_by_id(resumed.path(), p);
        assert_eq!(a.len(), 12, "{p}");
        assert_eq!(a, b, "{p}: resumed results differ");
    }
}

/// A run recorded with `--record` and replayed offline with `--replay` (nothing listening at
/// the replay's URL) gives the same answers, verdicts, call counts and traces.
pub fn assert_replays_identically(policies: &str, files: &[&str]) {
    let m = gsm8k_mock("0.5", &[]);
    let root = tempfile::tempdir().unwrap();
    let rec = root.path().join("rec");
    let a = root.path().join("a");
    assert_ok(&eval_output(
        policies,
        &m.url,
        &a,
        &["--record", rec.to_str().unwrap()],
    ));
    drop(m);
    let b = root.path().join("b");
    let replay = ["--replay", rec.to_str().unwrap()];
    assert_ok(&eval_output(policies, "http://127.0.0.1:9/v1", &b, &replay));
    for p in files {
        let (x, y) = (results_by_id(&a, p), results_by_id(&b, p));
        assert_eq!(x.len(), 12, "{p}");
        assert_eq!(x.len(), y.len(), "{p}");
        for (r, s) in x.iter().zip(&y) {
            // Replayed calls are cached: their tokens are not spent again; all else is equal.
            for key in ["id", "answer", "correct", "calls", "failed_calls", "trace"] {
                assert_eq!(r[key], s[key], "{p} {} {key}", r["id"]);
            }
        }
    }
}
