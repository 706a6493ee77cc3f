//! Token budgets (issue 26 part 3): `--max-tokens-total` on `colony eval`, `colony compare`
//! and suites (`max_tokens_total`). At the cap no new item or episode starts, the run is
//! marked partial (summary `stopped`, exit code), and a rerun with a higher cap resumes to
//! what an uncapped run gives.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{colony, compare_args, jsonl, summary, timeless};
use serde_json::Value;

fn tokens(row: &Value) -> u64 {
    row["prompt_tokens"].as_u64().unwrap() + row["completion_tokens"].as_u64().unwrap()
}

#[test]
fn compare_stops_at_its_token_budget_and_resumes_with_a_higher_one() {
    let tmp = tempfile::tempdir().unwrap();
    let set = ["--set", "agents=3", "--set", "max_round=6"];
    let run = |out: &Path, extra: &[&str]| {
        let rest = [&["--seeds", "0..5", "--episodes-in-flight", "1"][..], extra].concat();
        colony(&compare_args("swarmbench", &set, "independent", &rest, out))
    };
    let whole = tmp.path().join("whole");
    let (ok, _, err) = run(&whole, &[]);
    assert!(ok, "{err}");
    let first = tokens(&jsonl(&whole.join("episodes.jsonl"))[0]);
    assert!(first > 0);
    // The first episode spends the whole budget: nothing else starts.
    let capped = tmp.path().join("capped");
    let cap = first.to_string();
    let (ok, _, err) = run(&capped, &["--max-tokens-total", &cap]);
    assert!(
        !ok && err.contains("run stopped early") && err.contains("token budget"),
        "{err}"
    );
    assert_eq!(jsonl(&capped.join("episodes.jsonl")).len(), 1);
    let s = summary(&capped);
    assert!(
        s["stopped"].as_str().unwrap().contains("token budget"),
        "{s}"
    );
    assert!(std::fs::read_to_string(capped.join("results.md"))
        .unwrap()
        .contains("Partial results"));
    // The same cap again: earlier episodes count, so nothing starts.
    let (ok, _, _) = run(&capped, &["--max-tokens-total", &cap]);
    assert!(!ok);
    assert_eq!(jsonl(&capped.join("episodes.jsonl")).len(), 1);
    // A higher cap resumes to the uncapped run's results.
    let (ok, _, err) = run(&capped, &["--max-tokens-total", "100000000"]);
    assert!(ok, "{err}");
    assert_eq!(timeless(&summary(&capped)), timeless(&summary(&whole)));
    let (ok, _, err) = run(&capped, &["--max-tokens-total", "0"]);
    assert!(!ok && err.contains("--max-tokens-total"), "{err}");
}

#[test]
fn eval_stops_at_its_token_budget_and_resumes_with_a_higher_one() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |out: &Path, extra: &[&str]| {
        eval_on("gsm8k", &gsm8k_sample(), "single", out)
            .args(["--quiet", "--items-in-flight", "1"])
            .args(extra)
            .output()
            .unwrap()
    };
    let whole = tmp.path().join("whole");
    let out = run(&whole, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = jsonl(&whole.join("single.jsonl"));
    assert_eq!(rows.len(), 12);
    let capped = tmp.path().join("capped");
    let out = run(&capped, &["--max-tokens-total", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("token budget"),
        "{err}"
    );
    assert_eq!(
        jsonl(&capped.join("single.jsonl")).len(),
        1,
        "one item, then the cap"
    );
    assert!(summary(&capped)["stopped"]
        .as_str()
        .unwrap()
        .contains("token budget"));
    let out = run(&capped, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let strip = |dir: &Path| {
        let mut s = timeless(&summary(dir));
        s.as_object_mut().unwrap().remove("settings");
        s
    };
    assert_eq!(strip(&capped), strip(&whole));
}

#[test]
fn a_suite_budget_is_a_checked_key_shared_by_its_units() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("s.toml");
    let write = |cap: &str| {
        std::fs::write(
            &suite,
            format!(
                "name = \"b\"\nmax_tokens_total = {cap}\nmodels = [\"sim\"]\n\n[[environments]]\n\
                 id = \"swarmbench\"\nset = {{ agents = 3, max_round = 4 }}\nseeds = \"0..3\"\n\
                 policies = [\"independent\"]\n\n[[environments]]\nid = \"cube\"\nlabel = \"cube\"\n\
                 set = {{ n = 2 }}\nmax_steps = 5\nseeds = \"0..1\"\npolicies = [\"independent\"]\n"
            ),
        )
        .unwrap();
    };
    let out = tmp.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            suite.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        colony(&args)
    };
    write("0");
    let (ok, _, err) = run(&[]);
    assert!(!ok && err.contains("max_tokens_total"), "{err}");
    write("1");
    let (ok, _, err) = run(&[]);
    assert!(!ok && err.contains("token budget"), "{err}");
    // The flag beats the key; a higher cap resumes and runs every unit.
    let (ok, _, err) = run(&["--max-tokens-total", "100000000"]);
    assert!(ok, "{err}");
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["units"].as_array().unwrap().len(), 2, "{s}");
}
