//! Hostile command-line input: every bad value is a one-line error naming the parameter (exit
//! code non-zero), never a panic, an abort, a hang or a huge allocation, and errors quote at
//! most a short prefix of what was given.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::eval_run::gsm8k_sample;
use common::BIN;

/// Longest stderr a rejected input may produce, in bytes.
const MAX_ERROR_BYTES: usize = 600;

/// What a finished `colony` run printed.
struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `colony ARGS` from the repository root; fails the test if it takes over `limit`.
fn colony_within(args: &[&str], limit: Duration) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("colony {:?} still running after {limit:?}", clipped(args));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        success: status.success(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `colony ARGS` with a 60-second limit.
fn colony(args: &[&str]) -> Run {
    colony_within(args, Duration::from_secs(60))
}

fn clipped(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.chars().take(60).collect()).collect()
}

/// The run failed with one short `error:` line containing every needle.
fn assert_error(run: &Run, args: &[&str], needles: &[&str]) {
    let what = clipped(args);
    assert!(!run.success, "{what:?} succeeded: {}", run.stdout);
    let err = run.stderr.trim();
    assert!(
        err.len() <= MAX_ERROR_BYTES,
        "{what:?}: {} bytes of stderr: {}",
        err.len(),
        err.chars().take(300).collect::<String>()
    );
    for bad in [
        "panicked",
        "backtrace",
        "memory allocation",
        "RUST_BACKTRACE",
    ] {
        assert!(!err.contains(bad), "{what:?}: {err}");
    }
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{what:?}: {err}");
    for needle in needles {
        assert!(
            err.contains(needle),
            "{what:?}: missing {needle:?} in {err}"
        );
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn sample() -> String {
    gsm8k_sample().to_string_lossy().into_owned()
}

/// `colony eval --policy POLICY` on the GSM8K sample with the in-process simulated model into
/// `out`, plus `extra` flags, fails with one short error line containing every needle.
/// Writes a one-dataset suite (the GSM8K sample, the simulated model) running `policy` with the
/// extra top-level `keys`, runs it with `--dry-run` and checks its one-line error.
fn assert_suite_error(dir: &Path, policy: &str, keys: &str, out: &str, needles: &[&str]) {
    let data = sample();
    let text = format!(
        "name = \"r\"\npolicies = [\"{policy}\"]\nmodels = [\"sim\"]\n{keys}\n\n\
         [[datasets]]\nname = \"gsm8k\"\ndata = {data:?}\n"
    );
    assert_suite_text_error(dir, &text, out, needles);
}

/// Writes the suite `text`, runs it with `--dry-run` and checks its one-line error.
fn assert_suite_text_error(dir: &Path, text: &str, out: &str, needles: &[&str]) {
    let suite = write(dir, "suite.toml", text);
    let args = ["run", suite.to_str().unwrap(), "--out", out, "--dry-run"];
    assert_error(&colony(&args), &args, needles);
}

fn assert_eval_error(policy: &str, extra: &[&str], out: &str, needles: &[&str]) {
    let data = sample();
    let mut args = vec![
        "eval",
        "--dataset",
        "gsm8k",
        "--data",
        &data,
        "--policy",
        policy,
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--model", "sim", "--quiet", "--out", out]);
    assert_error(&colony(&args), &args, needles);
}

#[test]
fn embedder_dimension_is_bounded() {
    for spec in [
        "hash:1000000000",
        "hash:65537",
        "hash:99999999999999999999999",
    ] {
        let args = ["embed", "--embedder", spec, "a", "b"];
        assert_error(&colony(&args), &args, &["--embedder", "65536"]);
    }
    let ok = colony(&["embed", "--embedder", "hash:65536", "--json", "a b", "a c"]);
    assert!(ok.success, "{}", ok.stderr);
    assert!(ok.stdout.contains("\"dim\":65536"), "{}", ok.stdout);
}

#[test]
fn embedder_spec_echo_is_clipped() {
    let spec = format!("bert{}", "x".repeat(100_000));
    let args = ["embed", "--embedder", spec.as_str(), "a"];
    assert_error(&colony(&args), &args, &["--embedder", "…"]);
}

#[test]
fn selforg_graph_refuses_too_many_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let rows = vec!["[1.0, 0.0]"; 20_000].join(",");
    let p = write(dir.path(), "many.json", &format!("[{rows}]"));
    let args = ["selforg", "graph", "--vectors", p.to_str().unwrap()];
    assert_error(
        &colony(&args),
        &args,
        &["--vectors", "20000 vectors", "at most 1024"],
    );
}

#[test]
fn selforg_graph_refuses_non_finite_values() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, needle) in [
        ("big.json", "[[1e308, 0], [0, 1]]", "vector 0, entry 0"),
        ("neg.json", "[[1, 0], [0, -1e39]]", "vector 1, entry 1"),
        ("out.json", "[[1e999, 0], [0, 1]]", "--vectors"),
    ] {
        let p = write(dir.path(), name, text);
        let args = ["selforg", "graph", "--vectors", p.to_str().unwrap()];
        assert_error(&colony(&args), &args, &["--vectors", needle]);
    }
}

#[test]
fn selforg_graph_refuses_non_finite_tau_and_bad_k() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "ok.json", "[[1, 0.1], [0.9, 0.3], [0.2, 1]]");
    let p = p.to_str().unwrap();
    for tau in ["--tau=NaN", "--tau=inf", "--tau=-inf"] {
        let args = ["selforg", "graph", "--vectors", p, tau];
        assert_error(&colony(&args), &args, &["--tau must be a finite number"]);
    }
    for k in ["--k=NaN", "--k=-1", "--k=1e9"] {
        let args = ["selforg", "graph", "--vectors", p, k];
        assert_error(&colony(&args), &args, &["--k"]);
    }
    let ok = colony(&["selforg", "graph", "--vectors", p, "--json"]);
    assert!(ok.success, "{}", ok.stderr);
    assert!(!ok.stdout.contains("null"), "{}", ok.stdout);
}

#[test]
fn selforg_graph_on_dense_input_finishes() {
    // No neighbour budget and a threshold everything passes: a complete digraph whose cycle
    // removal took minutes when the search restarted from scratch after every removal.
    let dir = tempfile::tempdir().unwrap();
    let rows = vec!["[1.0, 0.0]"; 400].join(",");
    let p = write(dir.path(), "same.json", &format!("[{rows}]"));
    let args = [
        "selforg",
        "graph",
        "--vectors",
        p.to_str().unwrap(),
        "--k",
        "0",
        "--tau=-1",
        "--json",
    ];
    let run = colony_within(&args, Duration::from_secs(60));
    assert!(run.success, "{}", run.stderr);
    let g: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(g["order"].as_array().unwrap().len(), 400);
    let kept = g["edges"].as_array().unwrap().len();
    let removed = g["removed"].as_array().unwrap().len();
    assert_eq!(kept + removed, 400 * 399);
}

#[test]
fn policy_counts_are_bounded() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    for (policy, needles) in [
        ("debate:rounds=1000000", ["`rounds`", "from 1 to 20"]),
        ("debate:agents=100000", ["`agents`", "from 1 to 64"]),
        ("self_consistency:k=1000000", ["`k`", "from 1 to 64"]),
        ("sc:k=65", ["`k`", "from 1 to 64"]),
        ("selforg:agents=100000", ["`agents`", "from 1 to 64"]),
        ("selforg:rounds=1000000", ["`rounds`", "from 1 to 20"]),
        ("selforg:k=1000000", ["`k`", "from 0 to 64"]),
        ("selforg:tau=NaN", ["`tau`", "finite"]),
        ("selforg:gamma=inf", ["`gamma`", "finite"]),
    ] {
        assert_eval_error(policy, &[], out, &needles);
    }
    // `--rounds` is passed on to the policies that have rounds.
    let rounds = ["--rounds", "1000000"];
    assert_eval_error("debate", &rounds, out, &["`rounds`", "from 1 to 20"]);
}

#[test]
fn policy_option_echo_is_clipped() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let huge = format!("debate:agents={}", "9".repeat(100_000));
    let name = format!("{}:k=1", "p".repeat(100_000));
    for policy in [huge.as_str(), name.as_str()] {
        assert_eval_error(policy, &[], out, &["…"]);
    }
}

#[test]
fn empty_policy_is_an_error() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    for policy in ["", " ; ", ","] {
        assert_eval_error(policy, &[], out, &["--policy is empty"]);
    }
}

#[test]
fn env_step_actions_echo_is_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let reset = colony(&["env", "reset", "cube", "--json"]);
    assert!(reset.success, "{}", reset.stderr);
    let state = write(dir.path(), "state.json", &reset.stdout);
    let state = state.to_str().unwrap();
    // A single argument is limited to 128 KiB on Linux; 100 KB is far beyond any clip.
    let not_json = format!("{{{}", "x".repeat(100_000));
    let unknown_agent = format!("{{\"{}\": \"noop\"}}", "z".repeat(100_000));
    let missing_file = format!("@{}", "p".repeat(4000));
    for (actions, needle) in [
        (&not_json, "…"),
        (&unknown_agent, "…"),
        (&missing_file, "…"),
        (&not_json, "--actions is not JSON"),
    ] {
        let args = [
            "env",
            "step",
            "cube",
            "--state",
            state,
            "--actions",
            actions,
        ];
        assert_error(&colony(&args), &args, &[needle]);
    }
}

#[test]
fn dataset_name_echo_is_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let predictions = write(dir.path(), "p.jsonl", "");
    let name = "d".repeat(100_000);
    let args = [
        "grade",
        "--dataset",
        name.as_str(),
        "--data",
        &sample(),
        "--predictions",
        predictions.to_str().unwrap(),
    ];
    assert_error(&colony(&args), &args, &["unknown dataset", "…"]);
}

/// Counts in flight are bounded before any product or semaphore sees them.
#[test]
fn counts_in_flight_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let out = out.to_str().unwrap();
    for flag in ["--concurrency", "--items-in-flight"] {
        for value in ["4611686018427387904", "0", "18446744073709551616"] {
            assert_eval_error("single", &[flag, value], out, &[flag]);
        }
    }
    for flag in ["--concurrency", "--episodes-in-flight"] {
        let args = [
            "compare",
            "--env",
            "cube",
            "--policies",
            "scripted:noop",
            "--seeds",
            "0",
            flag,
            "4611686018427387904",
            "--out",
            out,
        ];
        assert_error(&colony(&args), &args, &[flag]);
    }
    // The same bound as a models.toml key and as suite keys (checked before anything runs).
    let models = write(
        tmp.path(),
        "models.toml",
        "[models.big]\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_concurrency = 100000000\n",
    );
    let args = [
        "chat",
        "--model",
        "big",
        "--models-config",
        models.to_str().unwrap(),
        "hi",
    ];
    assert_error(&colony(&args), &args, &["max_concurrency", "65536"]);
    for key in ["items_in_flight", "episodes_in_flight"] {
        let keys = format!("{key} = 100000000");
        assert_suite_error(tmp.path(), "single", &keys, out, &[key, "65536"]);
    }
}

/// The reasoning roster is bounded, as a flag and as a suite key (even under
/// `--dry-run`).
#[test]
fn roster_size_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let out = out.to_str().unwrap();
    assert_eval_error(
        "single",
        &["--agents", "100000000"],
        out,
        &["--agents", "1000"],
    );
    let keys = "agents = 1000000000";
    assert_suite_error(tmp.path(), "single", keys, out, &["agents", "1000"]);
}

/// Size limits hold on what is read, not on what the file claims: a symlink
/// to `/dev/zero` is refused as every kind of input file, quickly and in bounded memory.
#[test]
fn endless_files_are_refused_whatever_their_metadata_says() {
    let tmp = tempfile::tempdir().unwrap();
    let zero = tmp.path().join("zero.jsonl");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let toml = tmp.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &toml).unwrap();
    let out = tmp.path().join("o");
    let (zero, toml, out) = (
        zero.to_str().unwrap(),
        toml.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let data = sample();
    let script = format!("script:{zero}");
    let actions = format!("@{zero}");
    let state = tmp.path().join("state.json");
    let reset = colony(&["env", "reset", "cube", "--set", "n=1", "--json"]);
    assert!(reset.success, "{}", reset.stderr);
    std::fs::write(&state, reset.stdout).unwrap();
    let state = state.to_str().unwrap().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", toml, "--out", out, "--dry-run"],
        vec![
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            zero,
            "--policy",
            "single",
            "--out",
            out,
        ],
        vec![
            "eval",
            "--dataset",
            "gsm8k",
            "--data",
            &data,
            "--policy",
            "single",
            "--models-config",
            toml,
            "--out",
            out,
        ],
        vec!["env", "step", "cube", "--state", zero],
        vec!["env", "reset", "cube", "--layout", zero],
        vec!["serve-mock", "--answer-key", zero],
        vec!["serve-mock", "--answer-key", zero, "--dataset", "gsm8k"],
        vec![
            "compare",
            "--env",
            "cube",
            "--set",
            "n=1",
            "--policies",
            "independent",
            "--seeds",
            "0",
            "--max-steps",
            "1",
            "--model",
            &script,
            "--out",
            out,
        ],
        vec![
            "env",
            "step",
            "cube",
            "--state",
            &state,
            "--actions",
            &actions,
        ],
    ];
    for args in &cases {
        assert_error(&colony(args), args, &["zero", "more than"]);
    }
    // A record/replay cache that never ends: one line is read up to its bound, not forever.
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cache.join("calls.jsonl")).unwrap();
    let cache = cache.to_str().unwrap();
    for mode in ["--record", "--replay"] {
        assert_eval_error(
            "single",
            &[mode, cache],
            out,
            &["calls.jsonl", "longer than"],
        );
    }
}

/// A directory symlink inside a dataset folder is not followed (a loop back
/// to the root would read the problems again, or forever).
#[test]
fn dataset_folders_do_not_follow_directory_symlinks() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("math");
    std::fs::create_dir_all(root.join("algebra")).unwrap();
    std::fs::write(
        root.join("algebra/1.json"),
        r#"{"problem": "What is 1+1?", "solution": "It is $\\boxed{2}$.", "level": "Level 1", "type": "Algebra"}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink("..", root.join("algebra/loop")).unwrap();
    std::os::unix::fs::symlink(".", root.join("self")).unwrap();
    let out = tmp.path().join("o");
    let args = [
        "eval",
        "--dataset",
        "math",
        "--data",
        root.to_str().unwrap(),
        "--policy",
        "single",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    let run = colony(&args);
    assert!(run.success, "{}", run.stderr);
    let lines = std::fs::read_to_string(out.join("single.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 1, "one problem, read once: {lines}");
}

/// A comparison or suite unit of more episodes than
/// the documented limit is refused up front with the count, in bounded memory, dry runs too.
#[test]
fn episode_counts_are_bounded_before_planning() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let out = out.to_str().unwrap();
    let args = [
        "compare",
        "--env",
        "cube",
        "--grid",
        "max_steps=1..=10000",
        "--seeds",
        "0..1000000",
        "--policies",
        "scripted:noop",
        "--out",
        out,
    ];
    assert_error(&colony(&args), &args, &["10000000000 episodes", "100000"]);
    assert_suite_text_error(
        tmp.path(),
        "policies = [\"scripted:noop\"]\nmodels = [\"sim\"]\n[[environments]]\nid = \"cube\"\ngrid = { max_steps = \"1..=10000\" }\nseeds = \"0..1000000\"\n",
        out,
        &["episodes", "100000"],
    );
    // A suite listing one model twice is an error, not the same unit twice.
    assert_suite_text_error(
        tmp.path(),
        "policies = [\"scripted:noop\"]\nmodels = [\"sim\", \"sim\"]\n[[environments]]\nid = \"cube\"\nseeds = \"0\"\n",
        out,
        &["models", "twice"],
    );
}

/// The last seed is a valid range end, and `env step --steps` stops at the
/// end of the episode.
#[test]
fn seed_ranges_reach_the_last_seed_and_steps_stop_at_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let max = u64::MAX;
    let out = tmp.path().join("o");
    let seeds = format!("5..={max}");
    let args = [
        "compare",
        "--env",
        "cube",
        "--policies",
        "scripted:noop",
        "--seeds",
        &seeds,
        "--out",
        out.to_str().unwrap(),
    ];
    assert_error(&colony(&args), &args, &["more than"]);
    let reset = colony(&["env", "reset", "cube", "--set", "max_steps=3", "--json"]);
    assert!(reset.success, "{}", reset.stderr);
    let state = write(tmp.path(), "state.json", &reset.stdout);
    let run = colony_within(
        &[
            "env",
            "step",
            "cube",
            "--set",
            "max_steps=3",
            "--state",
            state.to_str().unwrap(),
            "--steps",
            "1000000000",
        ],
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["truncated"], true, "{v}");
}

/// `colony … | head`: the reader closing stdout ends the command quietly with 141 (what a
/// shell reports for SIGPIPE), never a panic message. The output is far larger than a pipe
/// buffer, so a write fails after the close whatever the timing.
#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = Command::new(BIN)
        .args([
            "env",
            "reset",
            "wildfire",
            "--set",
            "map_size=300",
            "--json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}

/// The largest documented environment sizes run within the 2 GiB this file
/// runs under in CI (`prlimit`), and one past each limit is refused naming its parameter.
#[test]
fn the_largest_documented_sizes_fit_and_one_more_is_refused() {
    let largest: [&[&str]; 2] = [
        &[
            "env",
            "reset",
            "wildfire",
            "--set",
            "map_size=1000",
            "--set",
            "agents=2000",
            "--json",
        ],
        &[
            "env",
            "reset",
            "cube",
            "--set",
            "n=500",
            "--set",
            "grid_size=500",
            "--json",
        ],
    ];
    for args in largest {
        let run = colony_within(args, Duration::from_secs(300));
        assert!(run.success, "{args:?}: {}", run.stderr);
        assert!(run.stdout.starts_with('{'), "{args:?}");
    }
    for (env, set, key) in [
        ("wildfire", "map_size=1001", "map_size"),
        ("wildfire", "agents=2001", "agents"),
        ("cube", "n=501", "n"),
        ("cube", "grid_size=501", "grid_size"),
    ] {
        let args = ["env", "reset", env, "--set", set, "--json"];
        assert_error(&colony(&args), &args, &[key]);
    }
    let args = ["bench", "runtime", "--agents", "200001"];
    assert_error(&colony(&args), &args, &["--agents", "200000"]);
}

/// A role-card folder without cards (a flag or a suite's `roles`, dry run
/// included) is one error naming the folder, never a division by zero.
#[test]
fn a_role_folder_without_cards_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = tmp.path().join("o");
    let (empty, out) = (empty.to_str().unwrap(), out.to_str().unwrap());
    assert_eval_error(
        "selforg",
        &["--roles", empty],
        out,
        &["empty", "no `*.toml` card"],
    );
    let keys = "roles = \"/etc\"";
    assert_suite_error(
        tmp.path(),
        "selforg",
        keys,
        out,
        &["/etc", "no `*.toml` card"],
    );
}
