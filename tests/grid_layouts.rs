//! The papers' layouts of a grid over one setting: values × policies
//! tables (CUBE Fig. 9's completed blocks against n, Wildfire Table 3 with Do-Nothing and
//! NS), SwarmBench Table S.1 (policies × tasks with the total), `by_<key>.csv` and plots.
//! Every figure is recomputed here from `episodes.jsonl`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{colony, compare_args, jsonl};

/// Mean of `field` (`score` or a metric) per (configuration, policy), from the episodes.
fn means(dir: &Path, field: &str) -> BTreeMap<(String, String), f64> {
    let mut sums: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for r in jsonl(&dir.join("episodes.jsonl")) {
        assert!(r["error"].is_null(), "{r}");
        let v = if field == "score" {
            r["score"].as_f64().unwrap()
        } else {
            r["metrics"][field].as_f64().unwrap()
        };
        let key = (
            r["config"].as_str().unwrap().to_string(),
            r["policy"].as_str().unwrap().to_string(),
        );
        let e = sums.entry(key).or_default();
        e.0 += v;
        e.1 += 1.0;
    }
    sums.into_iter().map(|(k, (s, n))| (k, s / n)).collect()
}

#[test]
fn a_cube_grid_over_n_reports_completed_blocks_per_n_as_table_csv_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cube");
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &["--grid", "n=1,2"],
        "independent,scripted:heuristic",
        &["--seeds", "0..2", "--max-steps", "30"],
        &out,
    ));
    assert!(ok, "{err}");
    let blocks = means(&out, "completed_blocks");
    let scores = means(&out, "score");
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(md.contains("### completed_blocks per n and policy"), "{md}");
    let row = md
        .lines()
        .skip_while(|l| !l.starts_with("### completed_blocks per n"))
        .find(|l| l.starts_with("| 2 |"))
        .unwrap();
    let want = format!(
        "| 2 | {:.2} ± ",
        blocks[&("n=2".to_string(), "independent".to_string())]
    );
    assert!(row.starts_with(&want), "{row} vs {want}");
    let csv = std::fs::read_to_string(out.join("by_n.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (format!("n={}", f[0]), f[1].to_string());
        let mean: f64 = f[col("score_mean")].parse().unwrap();
        assert!((mean - scores[&key]).abs() < 1e-9, "{line}");
        let done: f64 = f[col("completed_blocks")].parse().unwrap();
        assert!((done - blocks[&key]).abs() < 1e-9, "{line}");
    }
    assert_eq!(csv.lines().count(), 1 + 4);
    for plot in [
        "score_by_n",
        "completed_blocks_by_n",
        "delivered_weight_by_n",
    ] {
        assert!(out.join(format!("{plot}.svg")).is_file(), "{plot}");
        assert!(out.join(format!("{plot}.png")).is_file(), "{plot}");
    }
}

#[test]
fn a_swarmbench_grid_over_tasks_has_table_s1_with_totals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("swarm");
    let (ok, _, err) = colony(&compare_args(
        "swarmbench",
        &[
            "--set",
            "agents=3",
            "--set",
            "max_round=6",
            "--grid",
            "task=pursuit,flocking",
        ],
        "independent,scripted:heuristic",
        &["--seeds", "0..2"],
        &out,
    ));
    assert!(ok, "{err}");
    let scores = means(&out, "score");
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    let table: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("### Score per policy and task, with the total"))
        .collect();
    assert_eq!(table[2], "| policy | pursuit | flocking | Total |", "{md}");
    for policy in ["independent", "scripted:heuristic"] {
        let a = scores[&("task=pursuit".to_string(), policy.to_string())];
        let b = scores[&("task=flocking".to_string(), policy.to_string())];
        let want = format!("| {policy} | {a:.2} | {b:.2} | {:.2} |", a + b);
        assert!(table.contains(&want.as_str()), "{want}\n{md}");
    }
    // A categorical setting has no line to draw: tables and CSV only.
    assert!(out.join("by_task.csv").is_file());
    assert!(!out.join("score_by_task.svg").exists());
    // Each task has its per-step score curves (SwarmBench Fig. 3), mean with a band.
    for task in ["pursuit", "flocking"] {
        let dir = out.join("configurations").join(format!("task={task}"));
        let svg = std::fs::read_to_string(dir.join("score_by_step.svg")).unwrap();
        assert!(
            svg.contains("independent") && svg.contains("scripted:heuristic"),
            "{task}"
        );
        assert!(dir.join("score_by_step.png").is_file());
    }
}

#[test]
fn a_wildfire_level_grid_has_table_3s_layout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fire");
    let (ok, _, err) = colony(&compare_args(
        "wildfire",
        &["--grid", "level=2,13"],
        "independent",
        &["--seeds", "0..2", "--max-steps", "4"],
        &out,
    ));
    assert!(ok, "{err}");
    let scores = means(&out, "score");
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(
        md.contains("| level | Do-Nothing | independent | independent NS |"),
        "{md}"
    );
    let row = md
        .lines()
        .find(|l| l.starts_with("| 13 Suppress Fire: Extinguish |"))
        .unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let ours = scores[&("level=13".to_string(), "independent".to_string())];
    assert_eq!(cells[3], format!("{ours:.2}"), "{row}");
}
