//! `colony eval`'s call logs: compact by default (`calls/<policy>.jsonl.zst`,
//! a zstd frame per run, appended on resume), plain with `--log-calls full`, none with
//! `none`; `colony logs cat --item ID` prints an item's transcript line from either.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{colony, timeless};
use serde_json::Value;

fn eval(out: &Path, extra: &[&str]) {
    let o = eval_on("gsm8k", &gsm8k_sample(), "single,cot", out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn cat(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["logs", "cat", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (ok, out, err) = colony(&args);
    assert!(ok, "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn eval_logs_are_compact_resume_into_new_frames_and_print_per_item() {
    let tmp = tempfile::tempdir().unwrap();
    let compact = tmp.path().join("compact");
    // Two runs into one directory: 6 items, then the rest (a resume appends a frame).
    eval(&compact, &["--limit", "6"]);
    eval(&compact, &[]);
    let full = tmp.path().join("full");
    eval(&full, &["--log-calls", "full"]);
    assert!(compact.join("calls/single.jsonl.zst").is_file());
    assert!(!compact.join("calls/single.jsonl").exists());
    assert!(full.join("calls/single.jsonl").is_file());
    let a = cat(&compact, &[]);
    let b = cat(&full, &[]);
    assert_eq!(a.len(), 2 * 12);
    let key = |v: &Value| {
        (
            v["policy"].as_str().unwrap().to_string(),
            v["id"].as_str().unwrap().to_string(),
        )
    };
    let sorted = |mut v: Vec<Value>| {
        v.sort_by_key(key);
        v.iter().map(timeless).collect::<Vec<_>>()
    };
    assert_eq!(sorted(a), sorted(b));
    let one = cat(&compact, &["--item", "3"]);
    assert_eq!(one.len(), 2, "one line per policy");
    assert!(one
        .iter()
        .all(|v| v["id"] == "3" && v["entries"].is_array()));
    let (ok, _, err) = colony(&["logs", "cat", compact.to_str().unwrap(), "--item", "nope"]);
    assert!(!ok && err.contains("--item nope"), "{err}");
    // The same results whatever the log keeps; `none` writes no calls log.
    let none = tmp.path().join("none");
    eval(&none, &["--log-calls", "none"]);
    assert!(
        !none.join("calls/single.jsonl").exists() && !none.join("calls/single.jsonl.zst").exists()
    );
    for dir in [&full, &none] {
        assert_eq!(
            std::fs::read(compact.join("results.md")).unwrap(),
            std::fs::read(dir.join("results.md")).unwrap()
        );
    }
}
