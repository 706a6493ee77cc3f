//! Hostile run directories: names read from a run's files never
//! become paths outside it, merge ignores links, publishes atomically and lets one of two
//! racing merges win, and a suite directory has one writer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{colony, colony_cmd, compare_args, run_ok};
use serde_json::Value;

const SUITE: &str = r#"name = "tiny"
policies = ["scripted:noop"]
models = ["sim"]

[[environments]]
id = "cube"
set = { n = 1 }
seeds = "0..2"
max_steps = 3
"#;

/// Runs the tiny suite in two shards under `tmp/sharded`; returns the shard directories.
fn shards(tmp: &Path) -> Vec<PathBuf> {
    let suite = tmp.join("tiny.toml");
    std::fs::write(&suite, SUITE).unwrap();
    let out = tmp.join("sharded");
    (0..2)
        .map(|i| {
            run_ok(
                colony_cmd([
                    "run",
                    suite.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                    "--quiet",
                ])
                .env("SLURM_ARRAY_TASK_ID", i.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "2"),
            );
            out.join(format!("shard-{i}-of-2"))
        })
        .collect()
}

fn merge(out: &Path, dirs: &[PathBuf], extra: &[&str]) -> (bool, String, String) {
    let mut args = vec!["merge".to_string(), out.display().to_string()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    colony(&args)
}

fn edit_json(path: &Path, f: impl Fn(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_string(&v).unwrap()).unwrap();
}

/// Every file under `dir`, relative.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn labels_from_shard_manifests_never_leave_the_merge_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = shards(tmp.path());
    let outside = tmp.path().join("outside");
    for (i, label) in [
        outside.display().to_string(),
        // From OUT/sim/<label>, this lands in the temporary directory itself.
        "../../escaped".to_string(),
    ]
    .iter()
    .enumerate()
    {
        for d in &dirs {
            edit_json(&d.join("manifest.json"), |m| {
                m["suite"]["environments"][0]["label"] = Value::from(label.clone());
            });
        }
        // The keys no longer match the label: a partial merge, written inside OUT only.
        let merged = tmp.path().join(format!("merged{i}"));
        let (ok, _, err) = merge(&merged, &dirs, &["--allow-partial"]);
        assert!(ok, "{err}");
        assert!(merged.join("summary.json").is_file());
        // With the plans edited to match, a full merge: inside OUT, or one clean error.
        for d in &dirs {
            edit_json(&d.join("plan.json"), |p| {
                for k in p["keys"].as_array_mut().unwrap() {
                    *k = Value::from(k.as_str().unwrap().replace("cube_n=1", label));
                }
            });
        }
        let merged = tmp.path().join(format!("planned{i}"));
        let (ok, _, err) = merge(&merged, &dirs, &[]);
        assert!(
            ok && merged.join("summary.json").is_file() || err.trim().lines().count() == 1,
            "{err}"
        );
        for d in &dirs {
            edit_json(&d.join("plan.json"), |p| {
                for k in p["keys"].as_array_mut().unwrap() {
                    *k = Value::from(k.as_str().unwrap().replace(label.as_str(), "cube_n=1"));
                }
            });
        }
        assert!(!outside.exists(), "merge wrote to {}", outside.display());
        assert!(
            !tmp.path().join("escaped").exists(),
            "merge wrote beside OUT"
        );
    }
}

#[test]
fn merge_skips_links_and_publishes_whole_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = shards(tmp.path());
    // A link in a shard's episode tree (to a secret outside, and a loop) is not followed.
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "do not copy").unwrap();
    let eps = dirs[0].join("sim/cube_n=1/episodes");
    assert!(eps.is_dir(), "{}", eps.display());
    std::os::unix::fs::symlink(&secret, eps.join("secret.txt")).unwrap();
    std::os::unix::fs::symlink("..", eps.join("loop")).unwrap();
    let merged = tmp.path().join("merged");
    let (ok, _, err) = merge(&merged, &dirs, &[]);
    assert!(ok, "{err}");
    let all = files(&merged);
    assert!(
        all.iter()
            .all(|f| !f.contains("secret") && !f.contains("loop")),
        "{all:?}"
    );
    assert!(all.iter().any(|f| f.ends_with("summary.json")));
    // Two merges into one directory: one wins, the other is refused, nothing is doubled.
    let twice = tmp.path().join("twice");
    let a = {
        let (dirs, twice) = (dirs.clone(), twice.clone());
        std::thread::spawn(move || merge(&twice, &dirs, &[]))
    };
    let b = merge(&twice, &dirs, &[]);
    let a = a.join().unwrap();
    assert_eq!(
        u8::from(a.0) + u8::from(b.0),
        1,
        "exactly one merge wins: {a:?} {b:?}"
    );
    let loser = if a.0 { &b.2 } else { &a.2 };
    assert!(loser.contains("not empty"), "{loser}");
    assert_eq!(files(&twice), files(&merged));
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("merging"))
        .collect();
    assert!(leftovers.is_empty(), "staging directories left behind");
}

#[test]
fn view_reads_episodes_only_inside_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let args = compare_args(
        "cube",
        &["--set", "n=1"],
        "scripted:noop",
        &["--seeds", "0", "--max-steps", "2"],
        &run,
    );
    let (ok, _, err) = colony(&args);
    assert!(ok, "{err}");
    // An outside directory holding files the viewer would embed.
    let outside = tmp.path().join("outside");
    let ep = outside.join("scripted:noop/0");
    std::fs::create_dir_all(&ep).unwrap();
    std::fs::write(ep.join("calls.jsonl"), "{\"secret\": \"OUTSIDE-MARKER\"}\n").unwrap();
    let episodes = run.join("episodes.jsonl");
    let text = std::fs::read_to_string(&episodes).unwrap();
    let mut line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    line["config"] = Value::from(outside.display().to_string());
    let mut text = text;
    text.push_str(&serde_json::to_string(&line).unwrap());
    text.push('\n');
    // Unsanitized, this would resolve from run/episodes/ to the outside directory.
    line["config"] = Value::from("../../outside");
    text.push_str(&serde_json::to_string(&line).unwrap());
    text.push('\n');
    std::fs::write(&episodes, text).unwrap();
    let _ = colony(&["view", run.to_str().unwrap()]);
    let pages: Vec<String> = files(&run)
        .into_iter()
        .filter(|f| f.ends_with(".html") || f.ends_with(".js"))
        .collect();
    assert!(pages.iter().any(|f| f.ends_with("c0.js")), "{pages:?}");
    for page in &pages {
        let mut html = std::fs::read_to_string(run.join(page)).unwrap();
        if page.ends_with(".js") && page.contains("/c") {
            // A chunk of details: compressed, so read what it holds.
            html =
                serde_json::to_string(&colony::view::read_chunk(&run.join(page)).unwrap()).unwrap();
        }
        assert!(
            !html.contains("OUTSIDE-MARKER"),
            "{page} embeds an outside file"
        );
    }
}

#[test]
fn a_suite_directory_has_one_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("tiny.toml");
    std::fs::write(&suite, SUITE).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // Hold the suite directory's lock as a running colony would.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(out.join(".colony.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let (ok, _, err) = colony(&[
        "run",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--no-shard",
    ]);
    assert!(!ok);
    assert!(err.contains("another colony process"), "{err}");
    assert!(!out.join("manifest.json").exists() && !out.join("plan.json").exists());
}

/// `kill -9` at any moment of a merge leaves OUT absent or whole (the staging directory is
/// renamed into place at the end), and the merge run again then produces the same tree.
#[test]
fn a_merge_killed_at_any_moment_leaves_nothing_or_everything() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = shards(tmp.path());
    let reference = tmp.path().join("reference");
    let (ok, _, err) = merge(&reference, &dirs, &[]);
    assert!(ok, "{err}");
    let whole = files(&reference);
    for (i, delay_ms) in [0u64, 2, 5, 10, 20, 40, 80].into_iter().enumerate() {
        let out = tmp.path().join(format!("killed{i}"));
        let mut cmd = colony_cmd(["merge", out.to_str().unwrap()]);
        cmd.args(&dirs)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = cmd.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let present = out.exists() && std::fs::read_dir(&out).unwrap().next().is_some();
        if present {
            assert_eq!(
                files(&out),
                whole,
                "a partial merge was published at {delay_ms} ms"
            );
        } else {
            let (ok, _, err) = merge(&out, &dirs, &[]);
            assert!(ok, "rerun after a kill at {delay_ms} ms: {err}");
            assert_eq!(files(&out), whole);
        }
    }
}

/// A record cache larger than this process may map (CI runs this file
/// under a 2 GiB address-space limit) still replays, because it is indexed and read one line
/// at a time, never held whole.
#[test]
fn a_replay_cache_larger_than_memory_replays() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let rec = tmp.path().join("rec");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let eval = |out: &Path, cache: (&str, &Path)| {
        run_ok(
            common::eval_run::eval_on("gsm8k", &common::eval_run::gsm8k_sample(), "single", out)
                .args(["--limit", "3", "--quiet", "--model", "sim", cache.0])
                .arg(cache.1),
        );
    };
    eval(&a, ("--record", &rec));
    // Eleven filler records of 200 MiB each (fresh keys, an ignored padding field) after the
    // real ones: 2.2 GB, more than the limit.
    let calls = rec.join("calls.jsonl");
    let first = std::fs::read_to_string(&calls).unwrap();
    let mut filler: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    filler["key"] = Value::from("KEY");
    filler["pad"] = Value::from("x".repeat(200 << 20));
    let line = serde_json::to_string(&filler).unwrap();
    let (head, tail) = line.split_once("\"KEY\"").unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&calls)
        .unwrap();
    for i in 0..11u32 {
        file.write_all(head.as_bytes()).unwrap();
        write!(file, "\"{i:064x}\"").unwrap();
        file.write_all(tail.as_bytes()).unwrap();
        file.write_all(b"\n").unwrap();
    }
    drop(file);
    assert!(std::fs::metadata(&calls).unwrap().len() > 2 << 30);
    eval(&b, ("--replay", &rec));
    let answers = |dir: &Path| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_to_string(dir.join("single.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|r| (r["id"].to_string(), r["answer"].to_string()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(answers(&a), answers(&b));
    assert_eq!(answers(&a).len(), 3);
}
