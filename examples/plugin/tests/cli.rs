//! The plugin binary is the whole `colony` command line with the plugins in it: listed in the
//! help and `env list`, run by `compare`, `eval` and a suite mixing both, sharded and merged,
//! recorded and replayed, resumed after `kill -9`, and drawn by `view` — exactly as built-ins.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use colony::eval::results::timeless;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_colony-plugin-demo");

/// The colony checkout this crate's path dependencies point at (for the bundled samples);
/// `COLONY_ROOT` overrides it when the crate is copied elsewhere.
fn colony_root() -> PathBuf {
    std::env::var_os("COLONY_ROOT").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        PathBuf::from,
    )
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("COLONY_MODELS")
        .output()
        .unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    // Episodes write their call log compressed by default; colony's reader gives its lines.
    if path.ends_with("calls.jsonl") && !path.exists() {
        if let Some(dir) = path.parent() {
            let mut out = Vec::new();
            colony::eval::call_log::read_call_log(dir, |l| {
                out.push(serde_json::from_str(l).unwrap());
                true
            })
            .unwrap();
            return out;
        }
    }
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

const POLICIES: &str = "independent,demo_nearest:k=5,scripted:heuristic";

fn compare(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "compare",
        "--env",
        "spread-v0",
        "--set",
        "agents=3",
        "--policies",
        POLICIES,
        "--seeds",
        "0..3",
        "--quiet",
        "--out",
    ];
    let out = out.to_str().unwrap();
    args.push(out);
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn the_plugins_are_listed_like_builtins() {
    let envs = ok(&["env", "list"]);
    assert!(
        envs.contains("spread-v0") && envs.contains("cube-v0"),
        "{envs}"
    );
    let help = ok(&["compare", "--help"]);
    assert!(
        help.contains("demo_nearest") && help.contains("camon"),
        "{help}"
    );
    assert!(help.contains("spread-v0"), "{help}");
    let help = ok(&["eval", "--help"]);
    assert!(
        help.contains("demo_vote") && help.contains("selforg"),
        "{help}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let err = run(&[
        "compare",
        "--env",
        "spread",
        "--policies",
        "nope",
        "--seeds",
        "0",
        "--out",
        out,
    ]);
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(
        err.contains("demo_nearest") && err.contains("scripted:<random|noop|heuristic>"),
        "{err}"
    );
}

/// SwarmSys asks the environment for sub-goals through the public API; an
/// environment that describes none is refused up front with a message saying how to opt in.
#[test]
fn a_policy_needing_sub_goals_is_refused_on_an_environment_without_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let err = run(&[
        "compare",
        "--env",
        "spread",
        "--policies",
        "swarmsys",
        "--seeds",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!err.status.success());
    let err = String::from_utf8_lossy(&err.stderr);
    assert!(
        err.contains("spread-v0") && err.contains("no sub-goals") && err.contains("sub_goals"),
        "{err}"
    );
}

#[test]
fn compare_runs_plugin_and_builtin_policies_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let out = compare(tmp.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let episodes = lines(&tmp.path().join("episodes.jsonl"));
    assert_eq!(episodes.len(), 9);
    let s = read(&tmp.path().join("summary.json"));
    let text = s.to_string();
    for p in ["independent", "demo_nearest:k=5", "scripted:heuristic"] {
        assert!(text.contains(p), "{p}: {text}");
    }
    // demo_nearest asks its model on steps 0, 5, 10, …: one call per agent on those steps.
    let calls = lines(&tmp.path().join("episodes/demo_nearest:k=5/0/calls.jsonl"));
    assert!(!calls.is_empty());
    assert!(
        calls.iter().all(|c| c["step"].as_u64().unwrap() % 5 == 0),
        "{calls:?}"
    );
    // The page draws the plugin's episodes.
    let page = tmp.path().join("page.html");
    ok(&[
        "view",
        tmp.path().to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("demo_nearest") && html.contains("spread-v0"));
}

#[test]
fn record_then_replay_gives_the_same_episodes() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = tmp.path().join("rec");
    let a = compare(&tmp.path().join("a"), &["--record", rec.to_str().unwrap()]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let b = compare(&tmp.path().join("b"), &["--replay", rec.to_str().unwrap()]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    // Episodes finish in any order; compare them by (policy, seed).
    let ep = |d: &str| {
        let mut v = lines(&tmp.path().join(d).join("episodes.jsonl"));
        v.sort_by_key(|e| (e["policy"].to_string(), e["seed"].as_u64()));
        timeless(&Value::Array(v))
    };
    assert_eq!(ep("a"), ep("b"));
}

/// `serve-mock` of the plugin binary (its simulated agents know `spread-v0`), slowed down.
struct Mock(Child, String);

impl Mock {
    fn start() -> Self {
        let mut child = Command::new(BIN)
            .args(["serve-mock", "--latency-ms", "15"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        Mock(child, url.trim().to_string())
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_run_killed_mid_way_resumes_to_the_same_results() {
    let mock = Mock::start();
    let tmp = tempfile::tempdir().unwrap();
    let args = |out: &Path| {
        vec![
            "compare".to_string(),
            "--env".into(),
            "spread-v0".into(),
            "--policies".into(),
            "independent,demo_nearest:k=2".into(),
            "--seeds".into(),
            "0..6".into(),
            "--episodes-in-flight".into(),
            "1".into(),
            "--base-url".into(),
            mock.1.clone(),
            "--model".into(),
            "sim".into(),
            "--quiet".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let whole = tmp.path().join("whole");
    let out = Command::new(BIN).args(args(&whole)).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let killed = tmp.path().join("killed");
    let mut child = Command::new(BIN)
        .args(args(&killed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while lines(&killed.join("episodes.jsonl")).len() < 2 {
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        lines(&killed.join("episodes.jsonl")).len() < 12,
        "finished before the kill"
    );
    let out = Command::new(BIN).args(args(&killed)).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        timeless(&read(&whole.join("summary.json"))),
        timeless(&read(&killed.join("summary.json")))
    );
}

#[test]
fn eval_runs_the_plugin_reasoning_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let data = colony_root().join("environments/qa/samples/gsm8k.jsonl");
    let out = tmp.path().to_str().unwrap();
    ok(&[
        "eval",
        "--dataset",
        "gsm8k",
        "--data",
        data.to_str().unwrap(),
        "--policy",
        "single,demo_vote",
        "--quiet",
        "--out",
        out,
    ]);
    let s = read(&tmp.path().join("summary.json"));
    assert_eq!(s["policies"]["demo_vote"]["n"], 12, "{s}");
    // Three votes per item, plus one judge call on the items where they disagreed.
    let items = lines(&tmp.path().join("demo_vote.jsonl"));
    for item in &items {
        let judged = item["trace"]["judged"].as_bool().unwrap();
        assert_eq!(item["calls"], if judged { 4 } else { 3 }, "{item}");
    }
    assert!(
        items.iter().any(|i| i["trace"]["judged"] == true),
        "no disagreement at 60%"
    );
    // The plugin's responder owns the purpose `demo_vote`: the simulated judge takes the
    // answer two voters share, and says so; the voters' calls are left to the model.
    for item in items.iter().filter(|i| i["trace"]["judged"] == true) {
        let votes: Vec<&Value> = item["trace"]["votes"].as_array().unwrap().iter().collect();
        let shared = votes
            .iter()
            .find(|v| !v.is_null() && votes.iter().filter(|w| w == v).count() >= 2);
        if let Some(shared) = shared {
            assert_eq!(&&item["answer"], shared, "{item}");
        }
    }
    let mut calls = String::new();
    colony::eval::call_log::read_log_file(&tmp.path().join("calls/demo_vote.jsonl.zst"), |l| {
        calls.push_str(l);
        calls.push('\n');
        true
    })
    .unwrap();
    let (mut judged, mut voted) = (0, 0);
    for line in calls.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        for entry in record["entries"].as_array().unwrap() {
            let text = entry["event"]["text"].as_str().unwrap_or_default();
            match entry["event"]["tag"].as_str() {
                Some("judge") => {
                    judged += 1;
                    assert!(text.contains("agents"), "{text}");
                }
                Some("vote") => {
                    voted += 1;
                    assert!(!text.contains("plurality vote"), "{text}");
                }
                _ => {}
            }
        }
    }
    assert!(
        judged > 0 && voted > 0,
        "{judged} judge and {voted} vote calls"
    );
}

#[test]
fn a_suite_mixing_both_shards_and_merges_like_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite.toml");
    let data = colony_root().join("environments/qa/samples/gsm8k.jsonl");
    std::fs::write(
        &suite,
        format!(
            r#"name = "plugin"
policies = ["single", "demo_vote"]
models = ["sim"]

[[datasets]]
name = "gsm8k"
data = "{}"
limit = 4

[[environments]]
id = "spread-v0"
set = {{ agents = 2 }}
seeds = "0..3"
policies = ["demo_nearest:k=3", "scripted:heuristic"]
"#,
            data.display()
        ),
    )
    .unwrap();
    let s = suite.to_str().unwrap();
    let whole = tmp.path().join("whole");
    ok(&["run", s, "--out", whole.to_str().unwrap(), "--quiet"]);
    // The plugin's registered template is recorded in the manifest beside colony's own.
    let manifest = read(&whole.join("manifest.json"));
    for name in ["demo/vote_judge", "reasoning/cot", "qa/math"] {
        assert!(
            manifest["templates"][name].is_string(),
            "{name}: {manifest}"
        );
    }
    let sharded = tmp.path().join("sharded");
    for i in 0..2 {
        let shard = format!("{i}/2");
        ok(&[
            "run",
            s,
            "--out",
            sharded.to_str().unwrap(),
            "--quiet",
            "--shard",
            &shard,
        ]);
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge".to_string(), merged.display().to_string()];
    for entry in std::fs::read_dir(&sharded).unwrap() {
        args.push(entry.unwrap().path().display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&args);
    let summary = |root: &Path, unit: &str| timeless(&read(&root.join(unit).join("summary.json")));
    for unit in ["sim/reasoning", "sim/spread-v0_agents=2"] {
        assert!(whole.join(unit).join("summary.json").is_file(), "{unit}");
        assert_eq!(summary(&whole, unit), summary(&merged, unit), "{unit}");
    }
}

#[test]
fn a_plugin_dataset_is_listed_evaluated_and_graded_by_its_own_grader() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/capitals.tsv");
    let data = data.to_str().unwrap();
    let listed = ok(&["datasets"]);
    assert!(
        listed.contains("demo-capitals") && listed.contains("gsm8k"),
        "{listed}"
    );

    // `grade`: outputs naming an accepted alias in another case are right only by the
    // plugin's grader (the answer-type comparison would call `tokio` wrong for `Tokyo`).
    let tmp = tempfile::tempdir().unwrap();
    let preds = tmp.path().join("preds.jsonl");
    std::fs::write(
        &preds,
        "{\"id\": 1, \"output\": \"The answer is \\\\boxed{paris}\"}\n\
         {\"id\": 2, \"output\": \"\\\\boxed{Tokio}\"}\n\
         {\"id\": 3, \"output\": \"\\\\boxed{Milan}\"}\n",
    )
    .unwrap();
    let graded: Value = serde_json::from_str(&ok(&[
        "grade",
        "--dataset",
        "demo-capitals",
        "--data",
        data,
        "--predictions",
        preds.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let correct: Vec<bool> = graded["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["correct"].as_bool().unwrap())
        .collect();
    assert_eq!(correct, [true, true, false], "{graded}");

    // `eval` with the simulated model: every item answered, the registered judge template is
    // hashed into a suite manifest, and a malformed file is a one-line error naming the line.
    let out = tmp.path().join("eval");
    ok(&[
        "eval",
        "--dataset",
        "demo-capitals",
        "--data",
        data,
        "--policy",
        "single",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let s = read(&out.join("summary.json"));
    assert_eq!(s["policies"]["single"]["n"], 8, "{s}");
    assert_eq!(s["policies"]["single"]["errors"], 0, "{s}");
    let bad = tmp.path().join("bad.tsv");
    std::fs::write(&bad, "France\tParis\nno tab here\n").unwrap();
    let e = run(&[
        "eval",
        "--dataset",
        "demo-capitals",
        "--data",
        bad.to_str().unwrap(),
        "--policy",
        "single",
        "--out",
        tmp.path().join("bad").to_str().unwrap(),
    ]);
    assert!(!e.status.success());
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(err.contains("line 2") && err.contains("bad.tsv"), "{err}");
}
