//! Reasoning datasets from the file layouts the `datasets` library writes and the Hub
//! publishes, with `--split`: a `save_to_disk` DatasetDict (Arrow IPC under `train/`,
//! `test/`), the Hub's `data/<split>-00000-of-00001.parquet` shards, and JSON lines. The files
//! are written by the real `datasets` package (`$COLONY_PYTHON`, `pip install datasets`) in
//! the test; it prints `SKIPPED` without it, and fails when `COLONY_REQUIRE_DATASETS=1` (CI).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{assert_ok, jsonl};
use serde_json::Value;

fn python() -> String {
    std::env::var("COLONY_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// The (id, gold) of every item an offline `single` eval of `data` records.
fn golds(data: &Path, out: &Path, extra: &[&str]) -> Vec<Value> {
    let o = eval_on("gsm8k", data, "single", out)
        .args(["--model", "sim", "--quiet"])
        .args(extra)
        .output()
        .unwrap();
    assert_ok(&o);
    let mut g: Vec<Value> = jsonl(&out.join("single.jsonl"))
        .into_iter()
        .map(|r| r["gold"].clone())
        .collect();
    g.sort_by_key(|v| v.to_string());
    g
}

#[test]
fn hub_and_save_to_disk_layouts_load_by_split() {
    let python = python();
    let has = Command::new(&python)
        .args(["-c", "import datasets"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var("COLONY_REQUIRE_DATASETS").as_deref() != Ok("1"),
            "COLONY_REQUIRE_DATASETS=1 but `{python} -c \"import datasets\"` failed (pip install datasets)"
        );
        eprintln!("SKIPPED: the datasets package is not installed (interpreter `{python}`)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let files = tmp.path().join("files");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hf_datasets.py");
    let o = Command::new(&python)
        .arg(script)
        .arg(gsm8k_sample())
        .arg(&files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The test split is the sample's rows after the first 8.
    let expected = golds(&gsm8k_sample(), &tmp.path().join("ref"), &["--offset", "8"]);
    assert_eq!(expected.len(), 4);
    let train = golds(
        &gsm8k_sample(),
        &tmp.path().join("ref-train"),
        &["--limit", "8"],
    );
    for (k, layout) in ["disk", "hub", "lines"].into_iter().enumerate() {
        let dir = files.join(layout);
        let got = golds(
            &dir,
            &tmp.path().join(format!("t{k}")),
            &["--split", "test"],
        );
        assert_eq!(got, expected, "{layout}");
        let got = golds(
            &dir,
            &tmp.path().join(format!("r{k}")),
            &["--split", "train"],
        );
        assert_eq!(got, train, "{layout}");
        // A split the directory does not have is one line naming what it has.
        let o = eval_on("gsm8k", &dir, "single", &tmp.path().join(format!("x{k}")))
            .args(["--model", "sim", "--quiet", "--split", "validation"])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{layout}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--split validation") && err.contains("test"),
            "{layout}: {err}"
        );
    }
    // A save_to_disk split directory loads on its own too (its metadata files are skipped).
    let got = golds(&files.join("disk/test"), &tmp.path().join("direct"), &[]);
    assert_eq!(got, expected);
}
