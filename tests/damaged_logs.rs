//! What `colony logs cat` and `colony view` do with call logs that are damaged, missing, not
//! regular files, over the line limit, or links out of the run: the first names what it could
//! not print and fails; the second shows the rest of the run and marks the episode.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{colony, compare_args};
use serde_json::Value;

/// A compare run of 4 SwarmBench episodes (`independent`, simulated model) into `out`, with
/// `--log-calls MODE`.
fn run(out: &Path, mode: &str) {
    let args = compare_args(
        "swarmbench",
        &["--set", "agents=3", "--set", "max_round=4"],
        "independent",
        &["--seeds", "0..4", "--log-calls", mode],
        out,
    );
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
}

fn episode(out: &Path, seed: u64) -> PathBuf {
    out.join("episodes/independent").join(seed.to_string())
}

/// `logs cat OUT`: (exit ok, stdout lines, stderr).
fn cat(out: &Path) -> (bool, usize, String) {
    let (ok, stdout, stderr) = colony(&["logs", "cat", out.to_str().unwrap()]);
    (ok, stdout.lines().count(), stderr)
}

/// The calls `episodes.jsonl` records for seed `seed`.
fn recorded(out: &Path, seed: u64) -> usize {
    std::fs::read_to_string(out.join("episodes.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["seed"] == seed)
        .map(|v| (v["calls"].as_u64().unwrap() + v["failed_calls"].as_u64().unwrap()) as usize)
        .unwrap()
}

#[test]
fn logs_cat_names_what_it_could_not_print_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    run(&out, "compact");
    let per: Vec<usize> = (0..4).map(|s| recorded(&out, s)).collect();
    let total: usize = per.iter().sum();
    let (ok, lines, err) = cat(&out);
    assert!(ok && lines == total && err.is_empty(), "{lines} {err}");

    // One flipped byte in the middle of a compressed log (zstd -t accepts some such files).
    let zst = episode(&out, 0).join("calls.jsonl.zst");
    let mut bytes = std::fs::read(&zst).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&zst, &bytes).unwrap();
    // A log that is a directory, and one that is a link to a device.
    let one = episode(&out, 1).join("calls.jsonl.zst");
    std::fs::remove_file(&one).unwrap();
    std::fs::create_dir(&one).unwrap();
    let two = episode(&out, 2).join("calls.jsonl.zst");
    std::fs::remove_file(&two).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &two).unwrap();

    let (ok, lines, err) = cat(&out);
    assert!(!ok, "a run with unprintable calls must fail");
    assert!(
        lines >= per[3] && lines < total,
        "{lines} of {total}: {err}"
    );
    let zst_line = err
        .lines()
        .find(|l| l.contains(&zst.display().to_string()))
        .unwrap_or_else(|| panic!("the damaged log is named: {err}"));
    assert!(
        zst_line.contains("damaged") || zst_line.contains("not printed"),
        "{zst_line}"
    );
    assert!(
        !err.contains("an interrupted or running episode"),
        "damage is not blamed on an interruption: {err}"
    );
    for (seed, dir) in [(1, episode(&out, 1)), (2, episode(&out, 2))] {
        let line = err
            .lines()
            .find(|l| l.starts_with(&dir.display().to_string()))
            .unwrap_or_else(|| panic!("episode {seed} is named: {err}"));
        assert!(
            line.contains("no readable call log")
                && line.contains(&format!("{} recorded call(s) not printed", per[seed])),
            "{line}"
        );
    }
}

#[test]
fn logs_cat_reports_a_call_over_the_line_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    run(&out, "full");
    let log = episode(&out, 0).join("calls.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // The first call's prompt grown past the 64 MiB line limit.
    let mut first: Value = serde_json::from_str(&lines[0]).unwrap();
    first["prompt"] = Value::from("x".repeat(65 << 20));
    lines[0] = serde_json::to_string(&first).unwrap();
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let total: usize = (0..4).map(|s| recorded(&out, s)).sum();
    let (ok, printed, err) = cat(&out);
    assert!(!ok, "{err}");
    assert_eq!(printed, total - 1);
    assert!(
        err.contains(&log.display().to_string()) && err.contains("1 call(s) longer than"),
        "{err}"
    );
}

/// Every detail chunk of the report in `out` as one JSON text.
fn report_text(out: &Path) -> String {
    let mut text = String::new();
    let mut stack = vec![out.join("report.data")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "js")
                && p.file_name().unwrap().to_string_lossy().starts_with('c')
            {
                text.push_str(
                    &serde_json::to_string(&colony::view::read_chunk(&p).unwrap()).unwrap(),
                );
            }
        }
    }
    text
}

#[test]
fn view_shows_the_rest_of_a_run_and_reads_no_link_out_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    run(&out, "full");
    // Episode 0: a garbled line in its plain log; episode 1: its log is a link to a file
    // outside the run.
    let log = episode(&out, 0).join("calls.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.insert_str(text.len() / 2, "\u{1}garbage{");
    std::fs::write(&log, text).unwrap();
    let secret = tmp.path().join("secret.jsonl");
    std::fs::write(&secret, "{\"prompt\": \"OUTSIDE-MARKER\"}\n").unwrap();
    let linked = episode(&out, 1).join("calls.jsonl");
    std::fs::remove_file(&linked).unwrap();
    std::os::unix::fs::symlink(&secret, &linked).unwrap();

    let (ok, _, err) = colony(&["view", out.to_str().unwrap()]);
    assert!(ok, "one damaged episode does not refuse the run: {err}");
    let report = report_text(&out);
    assert!(
        !report.contains("OUTSIDE-MARKER"),
        "a link out of the run was followed"
    );
    assert!(
        report.contains("resolves outside the run directory"),
        "{report:.400}"
    );
    assert_eq!(
        report.matches("\"damaged\":true").count(),
        2,
        "the two episodes are marked: {report:.400}"
    );
    assert!(report.contains("damaged ("), "with a note naming the line");
    // The intact episodes are all there with their calls.
    assert!(
        report.matches("\"kind\":\"episode\"").count() >= 4,
        "{report:.400}"
    );
}
