//! `colony grade` and `colony datasets` as a user runs them, on the shipped sample files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use colony_qa::{load, Dataset, LoadOptions};

fn sample(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("environments/qa/samples")
        .join(file)
}

fn colony(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_colony"))
        .args(args)
        .output()
        .unwrap()
}

/// `colony grade --dataset DATASET --data DATA --predictions PREDICTIONS EXTRA…`.
fn grade(dataset: &str, data: &Path, predictions: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "grade",
        "--dataset",
        dataset,
        "--data",
        data.to_str().unwrap(),
        "--predictions",
        predictions.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    colony(&args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes predictions: correct answers for even positions, wrong ones for odd positions.
fn predictions(dataset: &str, file: &str, dir: &Path) -> (PathBuf, usize, usize) {
    let items = load(
        dataset.parse::<Dataset>().unwrap(),
        &sample(file),
        &LoadOptions::default(),
    )
    .unwrap()
    .items;
    let mut lines = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let output = if i % 2 == 0 {
            format!("Reasoning...\nThe answer is \\boxed{{{}}}.", item.gold)
        } else {
            "I am not sure. The answer is \\boxed{123456789}.".to_string()
        };
        // Numeric ids are written as numbers, to check both id forms are accepted.
        let id = match item.id.parse::<u64>() {
            Ok(n) => serde_json::json!(n),
            Err(_) => serde_json::json!(item.id),
        };
        lines.push(serde_json::json!({"id": id, "output": output}).to_string());
    }
    let path = dir.join(format!("{dataset}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (path, items.len(), items.len().div_ceil(2))
}

#[test]
fn grade_json_reports_accuracy_and_items() {
    let dir = tempfile::tempdir().unwrap();
    for (dataset, file) in [
        ("gsm8k", "gsm8k.jsonl"),
        ("math", "math-500.jsonl"),
        ("mmlu-pro", "mmlu-pro.parquet"),
    ] {
        let (preds, n, correct) = predictions(dataset, file, dir.path());
        let out = grade(dataset, &sample(file), &preds, &["--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["n"], n, "{dataset}");
        assert_eq!(v["correct"], correct, "{dataset}");
        let acc = v["accuracy"].as_f64().unwrap();
        assert!((acc - correct as f64 / n as f64).abs() < 1e-12);
        let first = &v["items"][0];
        assert_eq!(first["correct"], true);
        assert!(
            first["extracted"].is_string() && first["gold"].is_string() && first["id"].is_string()
        );
        assert_eq!(v["items"][1]["correct"], false);
    }
}

#[test]
fn grade_reports_bad_input_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let preds = dir.path().join("p.jsonl");
    std::fs::write(
        &preds,
        "{\"id\": 0, \"output\": \"The answer is 7\"}\nnot json\n{\"output\": \"x\"}\n",
    )
    .unwrap();
    let data = sample("gsm8k.jsonl");
    let strict = grade("gsm8k", &data, &preds, &["--strict"]);
    assert!(!strict.status.success());
    assert!(stderr(&strict).contains("p.jsonl:2"), "{}", stderr(&strict));
    // Without --strict, bad lines are skipped with a warning and the rest is graded.
    let lenient = grade("gsm8k", &data, &preds, &["--json"]);
    assert!(lenient.status.success(), "{}", stderr(&lenient));
    assert!(
        stderr(&lenient).contains("missing field `id`"),
        "{}",
        stderr(&lenient)
    );
    let v: serde_json::Value = serde_json::from_slice(&lenient.stdout).unwrap();
    assert_eq!(v["n"], 1);

    let out = grade("gsm9k", Path::new("x"), Path::new("y"), &[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("gsm8k"),
        "valid names are listed: {}",
        stderr(&out)
    );
    let out = grade(
        "gsm8k",
        Path::new("/nonexistent.jsonl"),
        Path::new("y"),
        &[],
    );
    assert!(
        stderr(&out).contains("/nonexistent.jsonl"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn datasets_lists_all_ten() {
    let out = colony(&["datasets", "--json"]);
    assert!(out.status.success());
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "gsm8k",
            "gsm-hard",
            "math",
            "aqua-rat",
            "mmlu",
            "mmlu-pro",
            "gpqa",
            "aime-2024",
            "humaneval",
            "code"
        ]
    );
}

fn show(args: &[&str]) -> Vec<serde_json::Value> {
    let data = sample("gsm8k.jsonl");
    let mut a = vec![
        "datasets",
        "show",
        "--dataset",
        "gsm8k",
        "--data",
        data.to_str().unwrap(),
        "--json",
    ];
    a.extend_from_slice(args);
    let out = colony(&a);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ids(items: &[serde_json::Value]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn selection_flags_pick_items() {
    assert_eq!(
        ids(&show(&["--offset", "2", "--limit", "3"])),
        ["2", "3", "4"]
    );
    let a = ids(&show(&["--sample", "5", "--seed", "1"]));
    assert_eq!(a.len(), 5);
    assert_eq!(
        a,
        ids(&show(&["--sample", "5", "--seed", "1"])),
        "a seeded sample is stable"
    );
    assert_ne!(
        a,
        ids(&show(&["--sample", "5", "--seed", "2"])),
        "and depends on the seed"
    );
    // The MASLab subset equals the library's, in its shuffled order.
    let items = load(
        Dataset::Gsm8k,
        &sample("gsm8k.jsonl"),
        &LoadOptions::default(),
    )
    .unwrap()
    .items;
    let want: Vec<String> = colony_qa::maslab_subset(items)
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ids(&show(&["--subset", "maslab"])), want);
    let first = &show(&["--limit", "1"])[0];
    assert!(first["prompt"]
        .as_str()
        .unwrap()
        .ends_with("inside \\boxed{}."));

    // Grading a selection ignores predictions of other items but reports unknown ids.
    let dir = tempfile::tempdir().unwrap();
    let (preds, _, _) = predictions("gsm8k", "gsm8k.jsonl", dir.path());
    let mut text = std::fs::read_to_string(&preds).unwrap();
    text.push_str("{\"id\": \"999\", \"output\": \"The answer is 1\"}\n");
    std::fs::write(&preds, text).unwrap();
    let data = sample("gsm8k.jsonl");
    let out = grade("gsm8k", &data, &preds, &["--limit", "4", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["n"].as_u64(), v["correct"].as_u64()), (Some(4), Some(2)));
    assert!(stderr(&out).contains("999"), "{}", stderr(&out));
}
