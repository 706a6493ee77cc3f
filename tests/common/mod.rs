//! Helpers shared by the integration tests that drive the `colony` binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

pub mod eval_run;

/// The `colony` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_colony");

/// A `colony serve-mock` child process, killed on drop.
pub struct Mock {
    child: Child,
    /// The base URL it printed on its first stdout line.
    pub url: String,
}

impl Mock {
    /// Starts `colony serve-mock ARGS` with extra environment variables and reads its address.
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> Mock {
        let mut child = Command::new(BIN)
            .arg("serve-mock")
            .args(args)
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"),
            "{url:?}"
        );
        Mock { child, url }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the `colony` binary: (success, stdout, stderr).
pub fn colony(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON lines of a file (none when it is missing).
pub fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `serve-mock`'s `/mock/stats` at `url`.
pub fn stats(url: &str) -> Value {
    let out = Command::new("curl")
        .args(["-s", &format!("{url}/mock/stats")])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The user message of a logged call.
pub fn user_prompt(call: &Value) -> &str {
    let msgs = call["messages"].as_array().unwrap();
    msgs.last().unwrap()["content"].as_str().unwrap()
}

/// Runs `colony compare --policies POLICY --seeds 0..2` on `env` into `out` and checks that
/// both episodes finished without an error and made model calls; returns `episodes.jsonl`.
pub fn compare_policy(
    policy: &str,
    env: &str,
    set: &[&str],
    max_steps: &str,
    extra: &[&str],
    out: &Path,
) -> Vec<Value> {
    let mut args = vec!["compare", "--env", env];
    args.extend_from_slice(set);
    args.extend_from_slice(&[
        "--policies",
        policy,
        "--seeds",
        "0..2",
        "--max-steps",
        max_steps,
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend_from_slice(extra);
    let (ok, _, err) = colony(&args);
    assert!(ok, "{env}: {err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(rows.len(), 2, "{env}");
    for r in &rows {
        assert!(r["error"].is_null(), "{env}: {r}");
        assert!(r["calls"].as_u64().unwrap() > 0, "{env}: {r}");
    }
    rows
}

/// Runs [`compare_policy`] against a fresh `serve-mock` and checks that the prompt and
/// completion tokens the episodes report equal what the server counted.
pub fn assert_tokens_are_the_servers(policy: &str, env: &str, set: &[&str], max_steps: &str) {
    let m = Mock::start(&[], &[]);
    let dir = tempfile::tempdir().unwrap();
    let before = stats(&m.url);
    let rows = compare_policy(
        policy,
        env,
        set,
        max_steps,
        &["--base-url", &m.url, "--model", "sim"],
        dir.path(),
    );
    let after = stats(&m.url);
    for k in ["prompt_tokens", "completion_tokens"] {
        let sum: u64 = rows.iter().map(|r| r[k].as_u64().unwrap()).sum();
        let delta = after[k].as_u64().unwrap() - before[k].as_u64().unwrap();
        assert_eq!(delta, sum, "{policy} on {env}: {k}");
    }
}

/// `summary.json` of an eval output directory.
pub fn summary(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Lines of a file (0 when it is missing).
pub fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// The per-item results of `policy` in an eval output directory, wall times zeroed (they
/// differ run to run), sorted by item id.
pub fn results_by_id(dir: &Path, policy: &str) -> Vec<Value> {
    let mut rows = jsonl(&dir.join(format!("{policy}.jsonl")));
    for r in &mut rows {
        r["wall_ms"] = 0.into();
    }
    rows.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    rows
}

/// Runs `policy` on Wildfire level 1, seed 0, for `max_steps` steps with model replies
/// scripted by `lines` (`agent`, `step`, `purpose`, `reply`), and checks the episode ended
/// without an error; returns its `episodes.jsonl` row and its logged calls.
pub fn scripted_wildfire(
    dir: &Path,
    policy: &str,
    max_steps: u64,
    lines: &[(&str, u64, &str, &str)],
) -> (Value, Vec<Value>) {
    let text: String = lines
        .iter()
        .map(|(a, s, p, r)| {
            format!(
                "{}\n",
                serde_json::json!({"agent": a, "step": s, "purpose": p, "reply": r})
            )
        })
        .collect();
    let file = dir.join("script.jsonl");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("run");
    let (ok, _, err) = colony(&[
        "compare",
        "--env",
        "wildfire",
        "--set",
        "level=1",
        "--policies",
        policy,
        "--seeds",
        "0",
        "--max-steps",
        &max_steps.to_string(),
        "--model",
        &format!("script:{}", file.display()),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let row = jsonl(&out.join("episodes.jsonl")).remove(0);
    assert!(row["error"].is_null(), "{row}");
    let calls = jsonl(&out.join(format!("episodes/{policy}/0/calls.jsonl")));
    (row, calls)
}

/// `(agent, purpose)` of every call logged at `step`, in log order.
pub fn call_pattern(calls: &[Value], step: u64) -> Vec<(String, String)> {
    calls
        .iter()
        .filter(|c| c["step"] == step)
        .map(|c| {
            (
                c["agent"].as_str().unwrap().to_string(),
                c["purpose"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `v` without its wall-clock fields (`*wall*`, `*latency*`): the only thing two runs of the
/// same work may differ in.
pub fn timeless(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.contains("wall") && !k.contains("latency"))
                .map(|(k, x)| (k.clone(), timeless(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(timeless).collect()),
        other => other.clone(),
    }
}
