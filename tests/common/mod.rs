//! Helpers shared by the integration tests that drive the `colony` binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use colony::eval::results::timeless;
use serde_json::Value;

pub mod browser;
pub mod eval_run;
pub mod frameworks;

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
        let args = [&["serve-mock"][..], args].concat();
        let (child, url) = first_line_server(&args, envs);
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"),
            "{url:?}"
        );
        Mock { child, url }
    }
}

/// Starts `colony ARGS` (a server that prints its address first) with extra environment
/// variables; returns the child and its first stdout line, trimmed.
pub fn first_line_server(args: &[&str], envs: &[(&str, &str)]) -> (Child, String) {
    let mut child = Command::new(BIN)
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
    (child, line.trim().to_string())
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the `colony` binary: (success, stdout, stderr).
pub fn colony<S: AsRef<OsStr>>(args: &[S]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `colony ARGS`, to be run from the workspace root (where the bundled samples' relative paths
/// resolve); callers add the rest.
pub fn colony_cmd<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Command {
    let mut c = Command::new(BIN);
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Checks that a finished run exited 0; its stderr is the failure message.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `cmd` to the end and checks that it exited 0 (see [`assert_ok`]).
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert_ok(&out);
    out
}

/// A run failed, saying it stopped early because of `cause`.
pub fn assert_stopped_early(ok: bool, err: &str, cause: &str) {
    assert!(!ok);
    assert!(
        err.contains("run stopped early") && err.contains(cause),
        "{err}"
    );
}

/// Polls `done` every `poll` until it holds; fails with `what` once `limit` has passed.
pub fn wait_until(limit: Duration, poll: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(poll);
    }
}

/// The JSON lines of a file (which must exist).
///
/// A call log (`…/calls.jsonl`, `calls/<policy>.jsonl`) is read through colony's reader when
/// the run wrote the compact form (`….jsonl.zst`, the default): the same lines either way.
pub fn jsonl(path: &Path) -> Vec<Value> {
    let compact = path.with_extension("jsonl.zst");
    if !path.exists() && compact.is_file() {
        let mut out = Vec::new();
        let notes = colony::eval::call_log::read_log_file(&compact, |l| {
            out.push(serde_json::from_str(l).unwrap());
            true
        })
        .unwrap();
        assert!(!notes.torn, "{}: torn compact log", compact.display());
        return out;
    }
    if path.ends_with("calls.jsonl") && !path.exists() {
        if let Some(dir) = path
            .parent()
            .filter(|d| d.join("calls.jsonl.zst").is_file())
        {
            let mut out = Vec::new();
            let notes = colony::eval::call_log::read_call_log(dir, |l| {
                out.push(serde_json::from_str(l).unwrap());
                true
            })
            .unwrap();
            assert!(!notes.torn, "{}: torn compact log", dir.display());
            return out;
        }
    }
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

/// The arguments `compare --env ENV SET… --policies POLICIES REST…`.
pub fn compare_flags<'a>(
    env: &'a str,
    set: &[&'a str],
    policies: &'a str,
    rest: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["compare", "--env", env];
    args.extend_from_slice(set);
    args.extend_from_slice(&["--policies", policies]);
    args.extend_from_slice(rest);
    args
}

/// The arguments of a quiet `colony compare --env ENV SET… --policies POLICIES REST… --out OUT`.
pub fn compare_args<'a>(
    env: &'a str,
    set: &[&'a str],
    policies: &'a str,
    rest: &[&'a str],
    out: &'a Path,
) -> Vec<&'a str> {
    let mut args = compare_flags(env, set, policies, rest);
    args.extend_from_slice(&["--quiet", "--out", out.to_str().unwrap()]);
    args
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
    let rest = [&["--seeds", "0..2", "--max-steps", max_steps][..], extra].concat();
    let (ok, _, err) = colony(&compare_args(env, set, policy, &rest, out));
    assert!(ok, "{env}: {err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    assert_eq!(rows.len(), 2, "{env}");
    for r in &rows {
        assert!(r["error"].is_null(), "{env}: {r}");
        assert!(r["calls"].as_u64().unwrap() > 0, "{env}: {r}");
    }
    rows
}

/// `colony ARGS --quiet --out DIR`, a `compare` run of `total` episodes, run to the end into
/// `root/whole`, then into `root/killed` killed with SIGKILL once `progress` episodes are
/// done (waiting at most `limit`) and rerun: the kill came before the end, and the rerun ends
/// with the uninterrupted run's summary. Returns the resumed run's `episodes.jsonl`.
pub fn compare_resumed_after_kill(
    args: &[&str],
    root: &Path,
    progress: usize,
    total: usize,
    limit: Duration,
) -> Vec<Value> {
    let with_out = |out: &Path| {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.extend(["--quiet", "--out"].map(String::from));
        a.push(out.display().to_string());
        a
    };
    let whole = root.join("whole");
    let (ok, _, err) = colony(&with_out(&whole));
    assert!(ok, "{err}");
    let killed = root.join("killed");
    let mut child = Command::new(BIN)
        .args(with_out(&killed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let episodes = killed.join("episodes.jsonl");
    wait_until(limit, Duration::from_millis(20), "no progress", || {
        lines_of(&episodes) >= progress
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        jsonl(&episodes).len() < total,
        "the run finished before it was killed"
    );
    assert!(!killed.join("summary.json").exists());
    // The call logs of a killed run are readable: every finished episode has all its calls
    // (compact logs stay crash-safe).
    for row in jsonl(&episodes).iter().filter(|r| r["error"].is_null()) {
        let sel = format!("{}/{}", row["policy"].as_str().unwrap(), row["seed"]);
        assert_eq!(
            logged_calls(&killed, &sel).len() as u64,
            row["calls"].as_u64().unwrap(),
            "{sel}"
        );
    }
    let (ok, _, err) = colony(&with_out(&killed));
    assert!(ok, "{err}");
    assert_eq!(timeless(&summary(&whole)), timeless(&summary(&killed)));
    for row in jsonl(&episodes) {
        let sel = format!("{}/{}", row["policy"].as_str().unwrap(), row["seed"]);
        assert_eq!(
            timeless(&Value::Array(logged_calls(&whole, &sel))),
            timeless(&Value::Array(logged_calls(&killed, &sel))),
            "{sel}"
        );
    }
    jsonl(&episodes)
}

/// A `serve-mock --script` file in `dir`: a reply with a malformed calculator call and a
/// good one (`3 + 4`), then the answer `\boxed{7}`.
pub fn tool_script(dir: &Path) -> PathBuf {
    let script = dir.join("script.jsonl");
    std::fs::write(
        &script,
        "{\"tool_calls\": [{\"name\": \"calculator\", \"arguments\": \"{oops\"}, \
         {\"name\": \"calculator\", \"arguments\": {\"expression\": \"3 + 4\"}}]}\n\
         {\"content\": \"The answer is \\\\boxed{7}.\"}\n",
    )
    .unwrap();
    script
}

/// Every regular file under `root`, depth first.
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The calls of episode `sel` (`POLICY/SEED`) of run `dir`, through `colony logs cat`.
pub fn logged_calls(dir: &Path, sel: &str) -> Vec<Value> {
    let out = Command::new(BIN)
        .args(["logs", "cat"])
        .arg(dir)
        .args(["--episode", sel])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The files under `dir/episodes` that `keep` accepts, by path relative to `dir`.
pub fn episode_files(dir: &Path, keep: impl Fn(&Path) -> bool) -> BTreeMap<String, Vec<u8>> {
    files_under(&dir.join("episodes"))
        .into_iter()
        .filter(|p| keep(p))
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(&p).unwrap())
        })
        .collect()
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

/// A JSON file.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `summary.json` of an eval output directory.
pub fn summary(out: &Path) -> Value {
    read_json(&out.join("summary.json"))
}

/// Lines of a file (0 when it is missing).
pub fn lines_of(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// The per-item results of `policy` in an eval output directory, wall times and call
/// latencies left out (they differ run to run), sorted by item id.
pub fn results_by_id(dir: &Path, policy: &str) -> Vec<Value> {
    let mut rows = jsonl(&dir.join(format!("{policy}.jsonl")));
    for r in &mut rows {
        r["wall_ms"] = 0.into();
        if let Some(o) = r.as_object_mut() {
            o.remove("call_latency_ms");
        }
    }
    rows.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    rows
}

/// Checks a summary's `call_latency_ms` (p50, p90, p99): three values, in order, the first at
/// least `floor_ms` (the server's latency).
pub fn assert_latency_percentiles(policy: &Value, floor_ms: f64) {
    let q: Vec<f64> = policy["call_latency_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        q.len() == 3 && q[0] >= floor_ms && q[0] <= q[1] && q[1] <= q[2],
        "{q:?}"
    );
}
