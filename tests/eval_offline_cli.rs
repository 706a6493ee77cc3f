//! `colony eval` offline: `--record`/`--replay` around the simulated model keep
//! its results (one model or a `--models` list, in `colony compare` too), and `--field` reads
//! files of any shape (the MMLU `answer_a…answer_d`/`correct_answer` layout) with one-line
//! errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{compare_args, BIN};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("environments/qa/samples")
        .join(name)
}

fn colony(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("COLONY_MODELS")
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `colony [global] eval --dataset D --data FILE --policy P --quiet --out OUT EXTRA…`.
fn eval(
    global: &[&str],
    dataset: &str,
    file: &Path,
    policy: &str,
    out: &Path,
    extra: &[&str],
) -> Output {
    let mut args: Vec<&str> = global.to_vec();
    args.extend([
        "eval",
        "--dataset",
        dataset,
        "--data",
        file.to_str().unwrap(),
        "--policy",
        policy,
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend_from_slice(extra);
    colony(&args)
}

/// Per policy: (n, correct, accuracy, errors) from `summary.json`.
fn scores(out: &Path) -> Vec<(String, serde_json::Value)> {
    let s = common::summary(out);
    let mut v: Vec<(String, serde_json::Value)> = s["policies"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, p)| {
            (
                name.clone(),
                serde_json::json!([p["n"], p["correct"], p["accuracy"], p["errors"]]),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!v.is_empty(), "no policies in {s}");
    v
}

const POLICIES: &str = "single,self_consistency:k=3,debate:agents=2,rounds=2";

#[test]
fn recording_and_replaying_the_simulated_model_keep_its_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    for (dataset, file) in [("gsm8k", "gsm8k.jsonl"), ("mmlu", "mmlu.csv")] {
        let d = dir.path().join(dataset);
        let (plain, recorded, replayed, calls) = (
            d.join("plain"),
            d.join("rec"),
            d.join("rep"),
            d.join("calls"),
        );
        let file = sample(file);
        let calls_s = calls.to_str().unwrap();
        ok(&eval(&[], dataset, &file, POLICIES, &plain, &[]));
        ok(&eval(
            &[],
            dataset,
            &file,
            POLICIES,
            &recorded,
            &["--record", calls_s],
        ));
        assert!(std::fs::metadata(calls.join("calls.jsonl")).unwrap().len() > 0);
        ok(&eval(
            &[],
            dataset,
            &file,
            POLICIES,
            &replayed,
            &["--replay", calls_s],
        ));
        let want = scores(&plain);
        // The simulated model answers (it scored, it did not fall back to its generic reply).
        assert!(
            want.iter().all(|(_, s)| s[1].as_u64().unwrap() > 0),
            "{dataset}: {want:?}"
        );
        assert_eq!(
            scores(&recorded),
            want,
            "{dataset}: --record changed the results"
        );
        assert_eq!(
            scores(&replayed),
            want,
            "{dataset}: --replay differs from the recording"
        );
    }
}

/// A models.toml with two simulated models, `strong` and `weak`.
fn two_models(dir: &Path) -> PathBuf {
    let cfg = dir.join("models.toml");
    std::fs::write(
        &cfg,
        "[models.strong]\nkind = \"simulated\"\naccuracy = 0.9\n\
         [models.weak]\nkind = \"simulated\"\naccuracy = 0.2\nseed = 3\n",
    )
    .unwrap();
    cfg
}

/// Asserts that both models' calls were recorded in `calls`.
fn recorded_both(calls: &Path) {
    let text = std::fs::read_to_string(calls.join("calls.jsonl")).unwrap();
    for model in ["\"model\":\"strong\"", "\"model\":\"weak\""] {
        assert!(text.contains(model), "no call of {model} recorded");
    }
}

#[test]
fn a_models_list_is_recorded_and_replayed_too() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_models(dir.path());
    let global = ["--models-config", cfg.to_str().unwrap()];
    let calls = dir.path().join("calls");
    let calls_s = calls.to_str().unwrap();
    let file = sample("gsm8k.jsonl");
    let team = ["--models", "strong,weak", "--agents", "2"];
    let run = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let mut args = team.to_vec();
        args.extend_from_slice(extra);
        ok(&eval(&global, "gsm8k", &file, POLICIES, &out, &args));
        scores(&out)
    };
    let plain = run("plain", &[]);
    assert!(
        plain.iter().all(|(_, s)| s[1].as_u64().unwrap() > 0),
        "{plain:?}"
    );
    assert_eq!(run("rec", &["--record", calls_s]), plain);
    recorded_both(&calls);
    assert_eq!(run("rep", &["--replay", calls_s]), plain);
}

#[test]
fn compare_records_and_replays_a_models_list() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = two_models(dir.path());
    let calls = dir.path().join("calls");
    let run = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let rest = [&["--seeds", "0..2", "--models", "strong,weak"][..], extra].concat();
        let mut args = vec!["--models-config", cfg.to_str().unwrap()];
        args.extend(compare_args(
            "cube",
            &["--set", "n=2"],
            "independent",
            &rest,
            &out,
        ));
        ok(&colony(&args));
        std::fs::read_to_string(out.join("results.md")).unwrap()
    };
    let plain = run("plain", &[]);
    assert_eq!(run("rec", &["--record", calls.to_str().unwrap()]), plain);
    recorded_both(&calls);
    assert_eq!(run("rep", &["--replay", calls.to_str().unwrap()]), plain);
}

#[test]
fn field_flags_read_the_mmlu_answer_columns_layout() {
    let dir = tempfile::tempdir().unwrap();
    let file = sample("mmlu-answer-columns.jsonl");
    let fields = [
        "--field",
        "choices=answer_a,answer_b,answer_c,answer_d",
        "--field",
        "answer=correct_answer",
        "--field",
        "subject=topic",
    ];
    let out = dir.path().join("out");
    let o = eval(&[], "mmlu", &file, "single", &out, &fields);
    ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("mmlu-answer-columns.jsonl, line 4: a stray header row"),
        "{stderr}"
    );
    let results = std::fs::read_to_string(out.join("single.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 6);
    // Every simulated answer is an option letter the grader read.
    for r in &rows {
        let a = r["answer"]
            .as_str()
            .unwrap_or_else(|| panic!("no answer: {r}"));
        assert!(["A", "B", "C", "D"].contains(&a), "{r}");
    }

    // One-line errors: unknown field, bad syntax, a missing column (file, line, column).
    let bad = |extra: &[&str]| {
        let o = eval(&[], "mmlu", &file, "single", &dir.path().join("bad"), extra);
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr).trim().to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    let e = bad(&["--field", "questoin=q"]);
    assert!(
        e.contains("unknown field \"questoin\"; valid fields: question, choices"),
        "{e}"
    );
    let e = bad(&["--field", "answer"]);
    assert!(e.contains("expected FIELD=COLUMN"), "{e}");
    let e = bad(&[
        "--field",
        "choices=answer_a,answer_b,answer_c,answer_x",
        "--field",
        "answer=correct_answer",
        "--strict",
    ]);
    assert!(
        e.contains("mmlu-answer-columns.jsonl, line 1: field \"answer_x\": missing column (mapped to choices)"),
        "{e}"
    );
    let o = eval(
        &[],
        "gsm8k",
        &sample("gsm8k.jsonl"),
        "single",
        &dir.path().join("bad"),
        &["--field", "choices=a,b"],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.trim().lines().count() == 1, "{e}");
    assert!(e.contains("--field: dataset gsm8k has no options"), "{e}");
}
