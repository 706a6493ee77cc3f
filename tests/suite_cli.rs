//! `colony run` (suites), `--dry-run`, the run manifest, shards and `colony merge`, end to end
//! through the binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{colony, colony_cmd, jsonl, read_json, run_ok, summary, timeless, Mock};
use serde_json::Value;

/// A small suite touching both kinds of unit; `limit` varies it for the manifest test.
fn suite_text(limit: usize) -> String {
    format!(
        r#"name = "tiny"
policies = ["single", "self_consistency:k=2"]
models = ["sim"]

[[datasets]]
name = "gsm8k"
data = "{root}/environments/qa/samples/gsm8k.jsonl"
limit = {limit}

[[datasets]]
name = "math"
data = "{root}/environments/qa/samples/math-500.jsonl"
limit = 3

[[environments]]
id = "cube"
set = {{ n = 1 }}
seeds = "0..3"
max_steps = 8
policies = ["independent", "scripted:heuristic"]
"#,
        root = env!("CARGO_MANIFEST_DIR")
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn run(args: &[&str]) -> String {
    let (ok, out, err) = colony(args);
    assert!(ok, "colony {args:?} failed: {err}");
    out
}

#[test]
fn bad_suites_name_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("unknown key", "polices = [\"single\"]\n".into(), ":1:"),
        (
            "bad seeds",
            "policies = [\"scripted:noop\"]\n\n[[environments]]\nid = \"cube\"\nset = { n = 1 }\nseeds = \"4..x\"\n".into(),
            ":6: environments[0].seeds",
        ),
        (
            "unknown dataset",
            "policies = [\"single\"]\n[[datasets]]\nname = \"gsm9k\"\ndata = \"x.jsonl\"\n".into(),
            ":3: datasets[0].name",
        ),
        (
            "reasoning policy on an environment",
            "policies = [\"single\"]\n[[environments]]\nid = \"cube\"\nset = { n = 1 }\nseeds = \"0..2\"\n".into(),
            "environments[0].policies",
        ),
        (
            "bad set key",
            "policies = [\"scripted:noop\"]\n[[environments]]\nid = \"cube\"\nset = { wings = 2 }\nseeds = 1\n".into(),
            ":4: environments[0].set",
        ),
        ("nothing to run", "policies = [\"single\"]\n".into(), "nothing to run"),
        (
            "same label twice",
            "policies = [\"selforg:k=2,label=s\", \"selforg:k=3,label=s\"]\n[[datasets]]\nname = \"gsm8k\"\ndata = \"x.jsonl\"\n".into(),
            "both labelled `s`",
        ),
    ];
    for (what, text, expected) in cases {
        let path = write(tmp.path(), "bad.toml", &text);
        let (ok, _, err) = colony(&["run", path.to_str().unwrap(), "--dry-run"]);
        assert!(!ok, "{what}: accepted");
        assert!(
            err.contains("bad.toml") && err.contains(expected),
            "{what}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{what}: not one line: {err}");
    }
}

#[test]
fn dry_run_counts_the_matrix_and_each_shard_its_share() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(6));
    let s = suite.to_str().unwrap();
    let out = run(&["run", s, "--dry-run", "--no-shard"]);
    assert!(
        out.contains("| sim/reasoning (gsm8k) | single | 6 | 6 | 6 |"),
        "{out}"
    );
    assert!(
        out.contains("| sim/reasoning (gsm8k) | self_consistency:k=2 | 6 | 6 | 12 |"),
        "{out}"
    );
    assert!(
        out.contains("| sim/cube_n=1 | scripted:heuristic | 3 | 3 | 0 |"),
        "{out}"
    );
    assert!(out.contains("| **total** | 2 units | 24 | 24 |"), "{out}");
    assert!(!tmp.path().join("runs").exists());
    let mut mine = 0;
    for i in 0..3 {
        let out = run(&["run", s, "--dry-run", "--shard", &format!("{i}/3")]);
        let total = out.lines().find(|l| l.starts_with("| **total**")).unwrap();
        mine += total
            .split('|')
            .nth(4)
            .unwrap()
            .trim()
            .parse::<usize>()
            .unwrap();
    }
    assert_eq!(mine, 24);
}

#[test]
fn a_rerun_with_another_suite_is_refused_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(3));
    let out = tmp.path().join("run");
    let (s, o) = (suite.to_str().unwrap(), out.to_str().unwrap());
    run(&["run", s, "--out", o, "--quiet", "--no-shard"]);
    let manifest: Value = read_json(&out.join("manifest.json"));
    assert_eq!(manifest["suite"]["datasets"][0]["limit"], 3);
    assert_eq!(manifest["models"][0]["kind"], "simulated");
    assert!(manifest["templates"]["qa/math"].as_str().unwrap().len() == 64);
    assert!(manifest["started"].as_str().unwrap().ends_with('Z'));
    let gsm8k = |out: &Path| {
        jsonl(&out.join("sim/reasoning/single.jsonl"))
            .iter()
            .filter(|r| r["dataset"] == "gsm8k")
            .count()
    };
    let lines = jsonl(&out.join("sim/reasoning/single.jsonl")).len();
    // The same suite resumes: nothing runs again.
    run(&["run", s, "--out", o, "--quiet", "--no-shard"]);
    assert_eq!(jsonl(&out.join("sim/reasoning/single.jsonl")).len(), lines);
    std::fs::write(&suite, suite_text(4)).unwrap();
    let (ok, _, err) = colony(&["run", s, "--out", o, "--quiet", "--no-shard"]);
    assert!(!ok);
    assert!(
        err.contains("different run") && err.contains("suite.datasets[0].limit: 3 vs 4"),
        "{err}"
    );
    run(&["run", s, "--out", o, "--quiet", "--no-shard", "--force"]);
    assert_eq!(gsm8k(&out), 4);
}

#[test]
fn merged_shards_report_what_one_process_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(6));
    let s = suite.to_str().unwrap();
    let whole = tmp.path().join("whole");
    run(&[
        "run",
        s,
        "--out",
        whole.to_str().unwrap(),
        "--quiet",
        "--no-shard",
    ]);
    let sharded = tmp.path().join("sharded");
    let mut dirs = Vec::new();
    for i in 0..3 {
        // The job-array variables choose the shard, as under `sbatch --array=0-2`.
        run_ok(
            colony_cmd(["run", s, "--out", sharded.to_str().unwrap(), "--quiet"])
                .env("SLURM_ARRAY_TASK_ID", i.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "3"),
        );
        dirs.push(sharded.join(format!("shard-{i}-of-3")));
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge".to_string(), merged.display().to_string()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args);
    assert_eq!(timeless(&summary(&merged)), timeless(&summary(&whole)));
    assert_eq!(
        std::fs::read_to_string(merged.join("results.md")).unwrap(),
        std::fs::read_to_string(whole.join("results.md")).unwrap()
    );
    for unit in ["sim/reasoning", "sim/cube_n=1"] {
        assert_eq!(
            timeless(&summary(&merged.join(unit))),
            timeless(&summary(&whole.join(unit))),
            "{unit}"
        );
    }
    assert_eq!(
        std::fs::read(merged.join("sim/cube_n=1/score.svg")).unwrap(),
        std::fs::read(whole.join("sim/cube_n=1/score.svg")).unwrap()
    );
    // One table for the model's datasets, a column each, as in the SelfOrg paper's Table 1.
    let table = std::fs::read_to_string(merged.join("sim/reasoning/results.md")).unwrap();
    assert!(
        table.contains("gsm8k (%)") && table.contains("math (%)") && table.contains("AVG-R"),
        "{table}"
    );
    // Every episode's trajectory and every item's call log came along.
    assert!(merged
        .join("sim/cube_n=1/episodes/independent/2/steps.jsonl")
        .is_file());
    assert_eq!(
        jsonl(&merged.join("sim/reasoning/calls/single.jsonl")).len(),
        6 + 3
    );

    // Merge errors: a missing shard, a shard twice, a non-run, a used output directory.
    let partial = tmp.path().join("partial");
    let (ok, _, err) = colony(&[
        "merge",
        partial.to_str().unwrap(),
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("2/3 not given"), "{err}");
    let (ok, out, err) = colony(&[
        "merge",
        partial.to_str().unwrap(),
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        "--allow-partial",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("Partial merge") && err.contains("gap:"),
        "{out}{err}"
    );
    let (ok, _, err) = colony(&[
        "merge",
        tmp.path().join("twice").to_str().unwrap(),
        dirs[0].to_str().unwrap(),
        dirs[0].to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("like"), "{err}");
    let (ok, _, err) = colony(&[
        "merge",
        tmp.path().join("x").to_str().unwrap(),
        tmp.path().to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("no manifest.json"), "{err}");
    let (ok, _, err) = colony(&[
        "merge",
        merged.to_str().unwrap(),
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        dirs[2].to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("not empty"), "{err}");
}

#[test]
fn overlapping_shards_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(4));
    let s = suite.to_str().unwrap();
    let out = tmp.path().join("o");
    let o = out.to_str().unwrap();
    run(&["run", s, "--out", o, "--quiet", "--shard", "0/2"]);
    run(&["run", s, "--out", o, "--quiet", "--shard", "1/2"]);
    // A copy of shard 0 relabelled as shard 1 finishes the same items twice.
    let fake = tmp.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    let status = std::process::Command::new("cp")
        .args(["-r", &format!("{o}/shard-0-of-2/."), fake.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let m = std::fs::read_to_string(fake.join("manifest.json"))
        .unwrap()
        .replace("\"index\": 0", "\"index\": 1");
    std::fs::write(fake.join("manifest.json"), m).unwrap();
    let (ok, _, err) = colony(&[
        "merge",
        tmp.path().join("m").to_str().unwrap(),
        &format!("{o}/shard-0-of-2"),
        fake.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("overlap"), "{err}");
}

#[test]
fn a_suite_runs_against_an_endpoint_named_by_flags() {
    let mock = Mock::start(&[], &[]);
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(3));
    let out = tmp.path().join("run");
    run(&[
        "run",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--base-url",
        &mock.url,
        "--model",
        "mock-model",
        "--quiet",
        "--no-shard",
    ]);
    let manifest: Value = read_json(&out.join("manifest.json"));
    assert_eq!(manifest["models"][0]["kind"], "openai");
    assert_eq!(
        manifest["models"][0]["base_urls"][0],
        mock.url.trim_end_matches('/')
    );
    let unit = out.join(format!(
        "{}/reasoning",
        manifest["models"][0]["name"].as_str().unwrap()
    ));
    let results = jsonl(&unit.join("single.jsonl"));
    assert_eq!(results.len(), 3 + 3, "gsm8k and math");
    assert!(results
        .iter()
        .all(|r| r["error"].is_null() && r["calls"] == 1));
    let stats = common::stats(&mock.url);
    assert!(stats["requests"].as_u64().unwrap() >= 3 + 6, "{stats}");
}

#[test]
fn the_shipped_suites_load_and_expand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let registry = colony::registry::Registry::builtin();
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root.join("evals")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let suite = colony::suite::Suite::load(&path, &registry).unwrap_or_else(|e| panic!("{e}"));
        let mut notes = Vec::new();
        let units = colony::suite::expand(&registry, &suite, &suite.models, &mut notes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!units.is_empty(), "{}", path.display());
        names.push((suite.name.clone(), suite, units.len()));
    }
    let find = |n: &str| names.iter().find(|(name, _, _)| name == n).unwrap();
    let (_, wildfire, units) = find("wildfire");
    assert_eq!(
        *units, 1,
        "one grid over the levels, for the cross-level BCS"
    );
    assert!(wildfire.environments[0].level_seeds);
    let plan =
        colony::suite::expand(&registry, wildfire, &wildfire.models, &mut Vec::new()).unwrap();
    let colony::suite::UnitWork::Env { configs, .. } = &plan[0].work else {
        panic!("the wildfire suite is an environment unit");
    };
    // Levels 1–17: the Full Environment is part of the suite.
    assert_eq!(configs.len(), 17);
    assert_eq!(configs[0].1.len(), 10);
    assert_eq!(
        configs[15],
        ("level=16".to_string(), vec![6309, 3821, 6117])
    );
    assert_eq!(configs[16], ("level=17".to_string(), vec![1, 2, 3]));
    let (_, table1, units) = find("selforg-table1");
    assert_eq!(*units, 1, "one table for the eight datasets");
    assert_eq!(table1.datasets.len(), 8);
    assert!(table1.datasets.iter().all(|d| d.maslab));
    let (_, table2, _) = find("swarmsys-table2");
    assert_eq!(table2.train, Some(4));
    assert_eq!(table2.judge.as_deref(), Some("sim"));
    assert!(table2.datasets.iter().all(|d| d.limit == Some(8)));
    // One grid over the five tasks, for the Table S.1 layout.
    let (_, swarm, units) = find("swarmbench");
    assert_eq!(*units, 1);
    assert_eq!(
        swarm.environments[0].grid,
        ["task=pursuit,synchronization,foraging,flocking,transport"]
    );
    let (_, cube, _) = find("cube");
    assert_eq!(cube.environments[0].grid, ["n=1,2,4,8"]);
    assert!(names.iter().any(|(n, _, _)| n == "smoke"));
}

#[test]
fn a_recorded_suite_replays_to_the_same_results_without_the_endpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(tmp.path(), "tiny.toml", &suite_text(3));
    let calls = tmp.path().join("calls");
    let (live, replayed) = (tmp.path().join("live"), tmp.path().join("replayed"));
    {
        let mock = Mock::start(&[], &[]);
        run(&[
            "run",
            suite.to_str().unwrap(),
            "--out",
            live.to_str().unwrap(),
            "--base-url",
            &mock.url,
            "--model",
            "m",
            "--record",
            calls.to_str().unwrap(),
            "--quiet",
            "--no-shard",
        ]);
    }
    // The endpoint is gone: every call must come from the recording.
    run(&[
        "run",
        suite.to_str().unwrap(),
        "--out",
        replayed.to_str().unwrap(),
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--replay",
        calls.to_str().unwrap(),
        "--quiet",
        "--no-shard",
    ]);
    assert_eq!(timeless(&summary(&replayed)), timeless(&summary(&live)));
    let lines = |dir: &Path| {
        let mut v: Vec<Value> = jsonl(&dir.join("m/reasoning/self_consistency:k=2.jsonl"))
            .into_iter()
            .map(|r| timeless(&r))
            .collect();
        v.sort_by_key(|r| (r["dataset"].to_string(), r["id"].to_string()));
        v
    };
    assert_eq!(lines(&replayed), lines(&live));
}

/// A suite's `baseline` compares the units that run it, and a merge of shards reports the
/// same comparisons as one process.
#[test]
fn a_suite_baseline_survives_shards_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let text = format!("baseline = \"single\"\n{}", suite_text(6));
    let suite = write(tmp.path(), "base.toml", &text);
    let s = suite.to_str().unwrap();
    let whole = tmp.path().join("whole");
    run(&["run", s, "--out", whole.to_str().unwrap(), "--quiet"]);
    let reasoning = summary(&whole.join("sim/reasoning"));
    let v = &reasoning["policies"]["self_consistency:k=2"]["vs_baseline"];
    assert_eq!(v["baseline"], "single", "{reasoning}");
    assert!(v["pairs"].as_u64().unwrap() > 0, "{v}");
    // The environment unit does not run `single`: no comparison there.
    let env = read_json(&whole.join("sim/cube_n=1/summary.json"));
    assert!(env.to_string().find("vs_baseline").is_none(), "{env}");
    let sharded = tmp.path().join("sharded");
    for i in 0..2 {
        let shard = format!("{i}/2");
        run(&[
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
    run(&[
        "merge",
        merged.to_str().unwrap(),
        sharded.join("shard-0-of-2").to_str().unwrap(),
        sharded.join("shard-1-of-2").to_str().unwrap(),
    ]);
    assert_eq!(
        timeless(&summary(&merged.join("sim/reasoning"))),
        timeless(&reasoning)
    );
    let bad = write(
        tmp.path(),
        "bad.toml",
        &format!("baseline = \"nope\"\n{}", suite_text(2)),
    );
    let (ok, _, err) = colony(&["run", bad.to_str().unwrap(), "--dry-run"]);
    assert!(
        !ok && err.contains("baseline") && err.contains("nope"),
        "{err}"
    );
}

/// Dry-run estimates land within 1.5× of the run they estimate, calls and
/// tokens alike: a CUBE grid whose configurations differ in team size (a pilot of the first
/// configuration alone was 27× off on the shipped CUBE suite) and a reasoning unit whose
/// policies make different numbers of calls per item. The output says what it rests on.
#[test]
fn dry_run_estimates_land_within_one_and_a_half_times_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write(
        tmp.path(),
        "est.toml",
        &format!(
            r#"name = "est"
policies = ["single", "selforg:k=2"]
models = ["sim"]

[[datasets]]
name = "gsm8k"
data = "{root}/environments/qa/samples/gsm8k.jsonl"

[[environments]]
id = "cube"
label = "cube"
grid = {{ n = [1, 2, 4] }}
seeds = "0..3"
max_steps = 25
policies = ["independent", "camon"]
"#,
            root = env!("CARGO_MANIFEST_DIR")
        ),
    );
    let s = suite.to_str().unwrap();
    let out = tmp.path().join("out");
    let dry = run(&[
        "run",
        s,
        "--dry-run",
        "--no-shard",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(dry.contains("pilot episodes on up to"), "{dry}");
    // (calls, prompt tokens) estimated per unit and policy.
    let mut estimated: std::collections::BTreeMap<(String, String), (f64, f64)> =
        Default::default();
    for line in dry.lines().filter(|l| l.starts_with("| sim/")) {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let unit = f[1]
            .split(' ')
            .next()
            .unwrap()
            .trim_start_matches("sim/")
            .to_string();
        estimated.insert(
            (unit, f[2].to_string()),
            (f[5].parse().unwrap(), f[6].parse().unwrap()),
        );
    }
    run(&[
        "run",
        s,
        "--no-shard",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let mut actual: std::collections::BTreeMap<(String, String), (f64, f64)> = Default::default();
    for r in common::jsonl(&out.join("sim/cube/episodes.jsonl")) {
        let e = actual
            .entry(("cube".into(), r["policy"].as_str().unwrap().into()))
            .or_default();
        e.0 += (r["calls"].as_u64().unwrap() + r["failed_calls"].as_u64().unwrap()) as f64;
        e.1 += r["prompt_tokens"].as_f64().unwrap();
    }
    for label in ["single", "selforg:k=2"] {
        let e = actual
            .entry(("reasoning".into(), label.into()))
            .or_default();
        for r in common::jsonl(&out.join(format!("sim/reasoning/{label}.jsonl"))) {
            e.0 += r["calls"].as_f64().unwrap();
            e.1 += r["prompt_tokens"].as_f64().unwrap();
        }
    }
    assert_eq!(estimated.len(), 4, "{estimated:?}\n{dry}");
    for (key, (calls, prompt)) in &estimated {
        let (real_calls, real_prompt) = actual[key];
        for (what, est, real) in [
            ("calls", calls, real_calls),
            ("prompt tokens", prompt, real_prompt),
        ] {
            let ratio = est / real;
            assert!(
                (1.0 / 1.5..=1.5).contains(&ratio),
                "{key:?} {what}: estimated {est}, ran {real} (×{ratio:.2})\n{dry}"
            );
        }
    }
}

/// The two paper-table suites of the new baselines run end to end offline: SelfOrg's Table 1
/// with AutoGen and G-Designer, SwarmSys's Table 2 with GPTSwarm trained on items outside each
/// evaluated selection and the simulated judge's coverage score beside the rules' accuracy.
#[test]
fn the_paper_table_suites_run_end_to_end_offline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let t1 = tmp.path().join("t1");
    run(&[
        "run",
        root.join("evals/selforg-table1.toml").to_str().unwrap(),
        "--out",
        t1.to_str().unwrap(),
        "--quiet",
    ]);
    let md = std::fs::read_to_string(t1.join("results.md")).unwrap();
    for m in [
        "| autogen |",
        "| gdesigner |",
        "| agentverse |",
        "| selforg |",
    ] {
        assert!(md.contains(m), "{m} missing:\n{md}");
    }
    assert!(
        md.find("| gdesigner |") < md.find("| agentverse |"),
        "paper order:\n{md}"
    );
    let t2 = tmp.path().join("t2");
    run(&[
        "run",
        root.join("evals/swarmsys-table2.toml").to_str().unwrap(),
        "--out",
        t2.to_str().unwrap(),
        "--quiet",
    ]);
    let md = std::fs::read_to_string(t2.join("results.md")).unwrap();
    assert!(md.contains("judge:rubric:coverage"), "{md}");
    let mut learnt = 0;
    for entry in walk(&t2) {
        let name = entry.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("gptswarm.") && name.ends_with(".learnt.json") {
            let state = read_json(&entry);
            assert_eq!(state["training"]["items"], 4, "{state}");
            learnt += 1;
        }
        if name == "summary.json" && entry.parent() != Some(t2.as_path()) {
            let s = read_json(&entry);
            for (policy, row) in s["policies"].as_object().unwrap() {
                let j = &row["judge"];
                assert!(j["mean_score"].as_f64().is_some(), "{policy}: {j}");
                assert_eq!(j["errors"], 0, "{policy}: {j}");
            }
        }
    }
    assert_eq!(learnt, 3, "one learnt graph per dataset");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
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
    out.sort();
    out
}
