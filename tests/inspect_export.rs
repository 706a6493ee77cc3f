//! `colony export inspect` read back by the real `inspect_ai` package (`$COLONY_PYTHON`, with
//! `pip install inspect-ai`): sample counts, scores, errors and token totals equal colony's
//! `summary.json`, in both the `.eval` and the JSON format. Prints `SKIPPED` without the
//! package, and fails instead when `COLONY_REQUIRE_INSPECT=1` (CI sets it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;

use common::eval_run::{gsm8k_eval, gsm8k_mock};
use common::{assert_ok, colony, jsonl, summary};
use serde_json::Value;

fn python() -> String {
    std::env::var("COLONY_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn inspect_available(python: &str) -> bool {
    Command::new(python)
        .args(["-c", "import inspect_ai"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn read_back(files: &[&Path]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inspect_export.py");
    let out = Command::new(python())
        .arg(script)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "inspect_ai could not read the export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn inspect_reads_the_export_and_its_numbers_are_colonys() {
    let python = python();
    if !inspect_available(&python) {
        assert!(
            std::env::var("COLONY_REQUIRE_INSPECT").as_deref() != Ok("1"),
            "COLONY_REQUIRE_INSPECT=1 but `{python} -c \"import inspect_ai\"` failed (pip install inspect-ai)"
        );
        eprintln!("SKIPPED: inspect_ai not installed (interpreter `{python}`; set COLONY_PYTHON)");
        return;
    }
    // Some calls fail (seeded 500s, no retry): errored items must stay errors in Inspect.
    let m = gsm8k_mock("0.6", &["--fail-500", "0.2"]);
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let out = gsm8k_eval("single;cot", &m.url, &run)
        .args(["--max-retries", "0", "--quiet"])
        .output()
        .unwrap();
    assert_ok(&out);
    let s = summary(&run);
    let exported = tmp.path().join("inspect");
    let (ok, printed, err) = colony(&[
        "export",
        "inspect",
        run.to_str().unwrap(),
        "--out",
        exported.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(printed.lines().count(), 2, "one log per label: {printed}");
    let single = exported.join("single.gsm8k.eval");
    let json = tmp.path().join("single.json");
    let (ok, _, err) = colony(&[
        "export",
        "inspect",
        run.to_str().unwrap(),
        "--out",
        json.to_str().unwrap(),
        "--format",
        "json",
        "--policy",
        "single",
    ]);
    assert!(ok, "{err}");
    let read = read_back(&[&single, &exported.join("cot.gsm8k.eval"), &json]);
    for (r, label) in read.iter().zip(["single", "cot", "single"]) {
        let row = &s["policies"][label];
        let lines = jsonl(&run.join(format!("{label}.jsonl")));
        assert_eq!(r["task"], "colony/gsm8k", "{r}");
        assert_eq!(r["samples"], row["n"], "{label}: {r}");
        assert_eq!(r["total"], row["n"], "{label}: {r}");
        let errors = row["errors"].as_u64().unwrap();
        assert_eq!(
            r["completed"].as_u64().unwrap(),
            12 - errors,
            "{label}: {r}"
        );
        assert_eq!(
            r["errored"].as_array().unwrap().len() as u64,
            errors,
            "{label}: {r}"
        );
        assert!(
            (r["accuracy"].as_f64().unwrap() - row["accuracy"].as_f64().unwrap()).abs() < 1e-12
        );
        assert_eq!(r["input_tokens"], row["prompt_tokens"], "{label}: {r}");
        assert_eq!(r["output_tokens"], row["completion_tokens"], "{label}: {r}");
        let tokens =
            row["prompt_tokens"].as_u64().unwrap() + row["completion_tokens"].as_u64().unwrap();
        assert_eq!(r["sample_tokens"].as_u64().unwrap(), tokens, "{label}: {r}");
        let correct: Vec<String> = lines
            .iter()
            .filter(|l| l["correct"] == true && l["error"].is_null())
            .map(|l| l["id"].as_str().unwrap().to_string())
            .collect();
        let mut correct = correct;
        correct.sort();
        assert_eq!(r["correct"], serde_json::json!(correct), "{label}: {r}");
        assert!(
            r["messages"].as_u64().unwrap() > 0 && r["inputs_hold_questions"] == true,
            "{r}"
        );
        assert_eq!(r["header_status"], "success", "{r}");
        if r["path"].as_str().unwrap().ends_with(".eval") {
            assert_eq!(r["summaries"], row["n"], "the viewer's sample list: {r}");
        }
    }
    assert!(
        s["policies"]["single"]["errors"].as_u64().unwrap() > 0,
        "the faults fired: {s}"
    );
    // A selection that matches nothing says what the run has.
    let (ok, _, err) = colony(&[
        "export",
        "inspect",
        run.to_str().unwrap(),
        "--out",
        tmp.path().join("x.eval").to_str().unwrap(),
        "--policy",
        "nope",
    ]);
    assert!(!ok && err.contains("single on gsm8k"), "{err}");
}

#[test]
fn inspect_reads_a_compare_export_one_sample_per_episode() {
    let python = python();
    if !inspect_available(&python) {
        assert!(
            std::env::var("COLONY_REQUIRE_INSPECT").as_deref() != Ok("1"),
            "COLONY_REQUIRE_INSPECT=1 but inspect_ai is not installed"
        );
        eprintln!("SKIPPED: inspect_ai not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("compare");
    let (ok, _, err) = colony(&common::compare_args(
        "swarmbench",
        &["--set", "agents=2", "--set", "max_round=3"],
        "independent",
        &["--seeds", "0..3"],
        &run,
    ));
    assert!(ok, "{err}");
    let s = summary(&run);
    let file = tmp.path().join("independent.eval");
    let (ok, _, err) = colony(&[
        "export",
        "inspect",
        run.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let r = &read_back(&[&file])[0];
    let row = &s["policies"]["independent"];
    assert_eq!(r["task"], "colony/swarmbench-v0", "{r}");
    assert_eq!(r["samples"], row["episodes"], "{r}");
    assert_eq!(r["ids"], serde_json::json!(["0", "1", "2"]), "{r}");
    assert!(
        (r["accuracy"].as_f64().unwrap() - row["score"]["mean"].as_f64().unwrap()).abs() < 1e-12,
        "{r}"
    );
    assert_eq!(r["scores"], row["scores"], "{r}");
    assert_eq!(r["input_tokens"], row["prompt_tokens"], "{r}");
    assert_eq!(r["output_tokens"], row["completion_tokens"], "{r}");
    // Every model call is a prompt and a reply, tagged with its step.
    assert_eq!(
        r["messages"].as_u64().unwrap(),
        2 * row["calls"].as_u64().unwrap(),
        "{r}"
    );
    assert!(
        r["metadata_steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v.is_u64()),
        "{r}"
    );
}
