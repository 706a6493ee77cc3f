//! `colony eval` runs of a policy list on the bundled GSM8K sample against `serve-mock`, and
//! the resume and replay checks every policy family's CLI test makes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::{lines_of, results_by_id, Mock, BIN};

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

/// `colony eval --policy POLICIES` on the sample against `url`, into `out`.
pub fn eval_command(policies: &str, url: &str, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args(["--policy", policies, "--base-url", url, "--model", "sim"])
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

/// [`eval_command`], run to the end.
pub fn eval_output(policies: &str, url: &str, out: &Path, extra: &[&str]) -> Output {
    eval_command(policies, url, out, extra).output().unwrap()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while lines_of(&first) < 3 {
        assert!(std::time::Instant::now() < deadline, "no progress");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
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
