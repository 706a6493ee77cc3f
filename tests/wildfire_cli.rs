#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `colony wildfire bcs|levels|snapshot` and `colony env … wildfire` through the built binary.

use std::fs;
use std::process::Command;

fn colony(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_colony"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("colony-wildfire-cli-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Paper Table 3 means (docs/design/wildfire.md §13.4), configurations by number and by level id.
const TABLE3: &str = r#"{
 "CAMON": {"1": 18, "2": 72, "3": 30, "4": 94.33, "5": 1.6, "6": 0, "7": 6, "8": 10, "9": 3,
   "10": 4, "11": 0, "12": 0, "13": -593.33, "14": -736.67, "15": -1062.67, "16": -729.67,
   "full_environment": -5571.67},
 "COELA": {"1": 14, "2": 57.67, "3": 30, "4": 83.67, "5": 0, "6": 0, "7": 3, "8": 8.33, "9": 0.67,
   "10": 0, "11": 0, "12": 0, "13": -635, "14": -751.33, "15": -1062.67, "16": -729.67, "17": -5516}
}"#;

#[test]
fn bcs_reproduces_table_4_as_markdown_and_json() {
    let scores = tmp("scores.json");
    fs::write(&scores, TABLE3).unwrap();
    let path = scores.to_str().unwrap();
    let (ok, out, err) = colony(&["wildfire", "bcs", "--scores", path]);
    assert!(ok, "{err}");
    assert!(out.contains("| BCS | CAMON | COELA |"), "{out}");
    assert!(out.contains("| TD | 0.454 | 0.279 |"), "{out}");
    assert!(out.contains("| RC | 0.430 | 0.305 |"), "{out}");
    assert!(
        out.contains("| OP (single level) | 0.038 | 0.051 |"),
        "{out}"
    );

    let (ok, out, err) = colony(&["wildfire", "bcs", "--scores", path, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rc = v["bcs"]["CAMON"]["RC"].as_f64().unwrap();
    assert!((rc - 0.4304).abs() < 1e-4, "{rc}");
    let full = v["ns"]["CAMON"]["full_environment"].as_f64().unwrap();
    assert!((full - 0.037574).abs() < 1e-6);

    // Measured Do-Nothing values override the paper's constants.
    let dn = tmp("dn.json");
    fs::write(&dn, r#"{"13": -593.33}"#).unwrap();
    let (ok, out, _) = colony(&[
        "wildfire",
        "bcs",
        "--scores",
        path,
        "--json",
        "--do-nothing",
        dn.to_str().unwrap(),
    ]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ns = v["ns"]["CAMON"]["13"].as_f64().unwrap();
    assert!((ns - (1.0 + 160.0 / 753.33f64).log2()).abs() < 1e-9, "{ns}");

    fs::write(&scores, r#"{"X": {"42": 1}}"#).unwrap();
    let (ok, _, err) = colony(&["wildfire", "bcs", "--scores", path]);
    assert!(!ok && err.contains("\"42\""), "{err}");
}

#[test]
fn env_list_reset_step_run_and_snapshot() {
    let (ok, out, err) = colony(&["env", "list"]);
    assert!(ok, "{err}");
    assert!(out.contains("wildfire-v0"), "{out}");

    let (ok, out, err) = colony(&[
        "env",
        "reset",
        "wildfire",
        "--set",
        "level=cut_trees_sparse_small",
        "--seed",
        "375",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("cut_trees_sparse_small seed 375 step 0/30"),
        "{out}"
    );

    let (ok, state, err) = colony(&[
        "env", "reset", "wildfire", "--set", "level=9", "--seed", "9502", "--json",
    ]);
    assert!(ok, "{err}");
    let file = tmp("state.json");
    fs::write(&file, &state).unwrap();
    let f = file.to_str().unwrap();
    let (ok, out, err) = colony(&[
        "env",
        "step",
        "wildfire",
        "--state",
        f,
        "--actions",
        r#"{"1": "[1, 20, 20, \"move to (20, 20)\"]", "2": "low 0 0 0"}"#,
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["state"]["step"], 1);
    assert_eq!(v["terminated"], false);

    let (ok, _, err) = colony(&[
        "env",
        "step",
        "wildfire",
        "--state",
        f,
        "--actions",
        r#"{"1": "[6, 3, 3, \"spray\"]", "2": "fly"}"#,
    ]);
    assert!(!ok);
    assert!(err.contains("agent 2") || err.contains("agent 1"), "{err}");

    let svg = tmp("snap.svg");
    let (ok, _, err) = colony(&[
        "wildfire",
        "snapshot",
        "--state",
        f,
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("AGENT_1 Firefighter"));

    let (ok, out, err) = colony(&[
        "env",
        "run",
        "wildfire",
        "--policy",
        "heuristic",
        "--set",
        "level=cut_trees_sparse_small",
        "--seeds",
        "375,483",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("| heuristic | 2 |"), "{out}");

    let (ok, _, err) = colony(&[
        "env", "reset", "wildfire", "--set", "levle=1", "--seed", "1",
    ]);
    assert!(!ok && err.contains("levle"), "{err}");

    let (ok, out, err) = colony(&["wildfire", "levels"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 19, "header + separator + 17 rows");
}

#[test]
fn do_nothing_baseline_and_generation_timing() {
    let (ok, out, err) = colony(&["wildfire", "do-nothing", "--levels", "13"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dn = v["13"].as_f64().unwrap();
    assert!(dn < 0.0, "the fire burns trees when nobody acts: {dn}");
    assert!(err.contains("paper -519.67"), "{err}");

    let (ok, out, err) = colony(&[
        "wildfire",
        "bench-gen",
        "--sizes",
        "30,60",
        "--repeats",
        "1",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["cells"], 3600);
}

/// `--seeds level`: each level of a grid plays its own evaluation seeds (the paper's Table 9,
/// read from the level configurations here, not restated), the report keeps its NS and BCS,
/// and the word is refused where there are no levels.
#[test]
fn level_seeds_play_each_levels_evaluation_seeds_and_are_refused_elsewhere() {
    let out = tmp("level-seeds");
    let _ = fs::remove_dir_all(&out);
    let o = out.to_str().unwrap();
    let args = [
        "compare",
        "--env",
        "wildfire",
        "--grid",
        "level=1,13",
        "--seeds",
        "level",
        "--policies",
        "scripted:heuristic",
        "--max-steps",
        "5",
        "--quiet",
        "--out",
        o,
    ];
    let (ok, text, err) = colony(&args);
    assert!(ok, "{err}");
    assert!(text.contains("Behavior Competency Score"), "{text}");
    let levels = colony_wildfire::config::levels();
    let mut played: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    for line in fs::read_to_string(out.join("episodes.jsonl"))
        .unwrap()
        .lines()
    {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(r["error"].is_null(), "{r}");
        let seeds = played
            .entry(r["config"].as_str().unwrap().to_string())
            .or_default();
        seeds.push(r["seed"].as_u64().unwrap());
    }
    for (config, level) in [("level=1", &levels[0]), ("level=13", &levels[12])] {
        let mut want = level.seeds.clone();
        want.sort_unstable();
        let mut got = played[config].clone();
        got.sort_unstable();
        assert_eq!(got, want, "{config} ({})", level.id);
    }
    assert_ne!(played["level=1"], played["level=13"]);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert!(
        summary["bcs"]["ns"]["scripted:heuristic"]["13"].is_number(),
        "{summary}"
    );
    let bad = tmp("level-seeds-cube");
    let (ok, _, err) = colony(&[
        "compare",
        "--env",
        "cube",
        "--seeds",
        "level",
        "--policies",
        "scripted:noop",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("carries no evaluation seeds"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
