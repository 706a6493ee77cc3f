//! Stopping one in-process command leaves every other command of the process recording: the
//! stop flag belongs to a run (each command's runtime), not to the process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Duration;

use colony::cli::{run_args_until, CommandEnd};
use colony::registry::Registry;

/// Lines of `episodes.jsonl` under `dir` (0 before it exists).
fn episodes(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("episodes.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn compare_args(out: &Path, seeds: &str) -> Vec<String> {
    [
        "compare",
        "--env",
        "swarmbench",
        "--set",
        "agents=4",
        "--set",
        "max_round=12",
        "--policies",
        "independent",
        "--seeds",
        seeds,
        "--episodes-in-flight",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn stopping_one_run_does_not_truncate_another_in_the_same_process() {
    let registry = Registry::builtin();
    let (a_dir, b_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a_out, b_out) = (a_dir.path().to_path_buf(), b_dir.path().to_path_buf());
    let total = 24;
    let (a_end, b_end) = std::thread::scope(|s| {
        let b = s.spawn(|| {
            run_args_until(
                &registry,
                compare_args(&b_out, &format!("0..{total}")),
                std::future::pending::<()>(),
            )
        });
        // A is stopped as soon as B has recorded its first episode, while B still runs.
        let a = s.spawn(|| {
            let b_out = b_out.clone();
            run_args_until(&registry, compare_args(&a_out, "0..100000"), async move {
                while episodes(&b_out) == 0 {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        });
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a_end.unwrap(), CommandEnd::Stopped);
    assert_eq!(b_end.unwrap(), CommandEnd::Finished);
    assert!(
        episodes(&a_out) < 100_000,
        "the stopped run kept running to its end"
    );
    // Every episode B finished is on disk, and its summary counts them all.
    assert_eq!(episodes(&b_out), total);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b_out.join("summary.json")).unwrap())
            .unwrap();
    let scored = summary["policies"]["independent"]["episodes"].as_u64();
    assert_eq!(scored, Some(total as u64), "{summary}");
}
