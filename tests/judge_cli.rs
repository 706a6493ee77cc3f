//! `colony eval --judge` (docs/design/grading.md §7): a judge model grades every answered item
//! apart from the method: both verdicts per item under `--grade both`, the summary's `judge`
//! object (accuracy, κ, the 2×2 table, McNemar), judge tokens never charged to the method, a
//! dead judge giving errored items and a failing exit (never a lower accuracy), and judge calls
//! replayed bit for bit.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{jsonl, results_by_id, summary};
use serde_json::Value;

/// `colony eval` of `policy` on the GSM8K sample with the offline simulated model.
fn eval(policy: &str, out: &Path, extra: &[&str]) -> Output {
    eval_on("gsm8k", &gsm8k_sample(), policy, out)
        .args(["--model", "sim", "--quiet", "--seed", "3"])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn grade_both_keeps_both_verdicts_and_charges_the_judge_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    let judged = tmp.path().join("judged");
    let o = eval("cot", &plain, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = eval(
        "cot",
        &judged,
        &[
            "--judge",
            "sim",
            "--grade",
            "both",
            "--judge-agreement",
            "0.7",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));

    // Every item keeps the rule verdict it had without a judge and gains the judge's.
    let before = results_by_id(&plain, "cot");
    let after = results_by_id(&judged, "cot");
    assert_eq!(before.len(), 12);
    let mut disagree = 0;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a["id"], b["id"]);
        assert_eq!(a["correct"], b["correct"], "{a}");
        assert_eq!(a["prompt_tokens"], b["prompt_tokens"], "{a}");
        assert_eq!(a["calls"], b["calls"], "{a}");
        let judge = &a["judge"];
        assert_eq!(judge["grader"], "equivalence", "{a}");
        assert!(a["judge_correct"].is_boolean(), "{a}");
        assert_eq!(judge["correct"], a["judge_correct"], "{a}");
        assert!(
            u(&judge["calls"]) >= 1 && u(&judge["prompt_tokens"]) > 0,
            "{a}"
        );
        disagree += usize::from(a["judge_correct"] != a["correct"]);
    }
    // At agreement 0.7 over 12 items, some verdicts differ (seeded: the same ones every run).
    assert!(disagree > 0 && disagree < 12, "{disagree}");

    let s = summary(&judged);
    let row = &s["policies"]["cot"];
    let plain_row = &summary(&plain)["policies"]["cot"];
    assert_eq!(row["accuracy"], plain_row["accuracy"]);
    assert_eq!(row["prompt_tokens"], plain_row["prompt_tokens"]);
    assert_eq!(row["cost_usd"], plain_row["cost_usd"]);
    let j = &row["judge"];
    assert_eq!(u(&j["graded"]), 12, "{j}");
    assert_eq!(u(&j["paired"]), 12, "{j}");
    assert_eq!(u(&j["errors"]), 0, "{j}");
    let table: Vec<u64> = j["table"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(u))
        .collect();
    assert_eq!(table.iter().sum::<u64>(), 12, "{j}");
    assert_eq!((table[1] + table[2]) as usize, disagree, "{j}");
    let judge_correct = after.iter().filter(|a| a["judge_correct"] == true).count() as f64;
    assert!((j["accuracy"].as_f64().unwrap() - judge_correct / 12.0).abs() < 1e-12);
    assert_eq!(j["rules_accuracy"], row["accuracy"], "{j}");
    assert!(j["p_value"].as_f64().is_some(), "{j}");
    assert!(j.get("kappa").is_some(), "{j}");
    let judge_tokens: u64 = after.iter().map(|a| u(&a["judge"]["prompt_tokens"])).sum();
    assert_eq!(u(&j["prompt_tokens"]), judge_tokens, "{j}");

    // `logs cat` prints the judge's calls with the item's, under `judge`.
    let id = after[0]["id"].as_str().unwrap();
    let (ok, log, err) = common::colony(&["logs", "cat", judged.to_str().unwrap(), "--item", id]);
    assert!(ok, "{err}");
    let line: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    let judge_calls = line["judge"].as_array().unwrap_or_else(|| panic!("{line}"));
    assert!(!judge_calls.is_empty(), "{line}");
    assert!(
        judge_calls[0].to_string().contains("Verdict"),
        "{}",
        judge_calls[0]
    );

    // The tables name the grader of each number.
    let md = std::fs::read_to_string(judged.join("results.md")).unwrap();
    assert!(md.contains("judge:equivalence"), "{md}");
    let csv = std::fs::read_to_string(judged.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("judge_grader"), "equivalence", "{csv}");
    let csv_accuracy: f64 = col("judge_accuracy").parse().unwrap();
    assert!(
        (csv_accuracy - j["accuracy"].as_f64().unwrap()).abs() < 1e-6,
        "{csv}"
    );
    // A simulated run says so in its table (stdout and results.md) and on every CSV row.
    assert!(md.starts_with("**SIMULATION**"), "{md}");
    assert_eq!(col("label"), "SIMULATION", "{csv}");
    let plain_csv = std::fs::read_to_string(plain.join("results.csv")).unwrap();
    assert!(!plain_csv.contains("judge_"), "{plain_csv}");
}

#[test]
fn grade_judge_makes_the_judge_verdict_the_items_correct() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("j");
    let o = eval(
        "single",
        &out,
        &[
            "--judge",
            "sim",
            "--grade",
            "judge",
            "--judge-agreement",
            "0",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rules = tmp.path().join("r");
    assert!(eval("single", &rules, &[]).status.success());
    // A judge that never agrees flips every rule verdict.
    for (j, r) in results_by_id(&out, "single")
        .iter()
        .zip(&results_by_id(&rules, "single"))
    {
        assert_eq!(
            j["correct"].as_bool(),
            r["correct"].as_bool().map(|c| !c),
            "{j}"
        );
    }
}

#[test]
fn a_dead_judge_errors_every_item_and_fails_the_run_never_a_lower_accuracy() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("models.toml");
    // Port 9 (discard) is closed on loopback: every connection is refused.
    std::fs::write(
        &cfg,
        "[models.dead]\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_retries = 0\ntimeout_secs = 5\n",
    )
    .unwrap();
    let out = tmp.path().join("dead");
    let o = eval(
        "single",
        &out,
        &[
            "--models-config",
            cfg.to_str().unwrap(),
            "--judge",
            "dead",
            "--grade",
            "both",
        ],
    );
    assert!(!o.status.success(), "a dead judge must fail the run");
    assert!(stderr(&o).contains("ended with an error"), "{}", stderr(&o));
    let rows = jsonl(&out.join("single.jsonl"));
    assert_eq!(rows.len(), 12);
    for r in &rows {
        let e = r["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error: {r}"));
        assert!(e.starts_with("judge:"), "{e}");
        assert!(r.get("judge_correct").is_none_or(Value::is_null), "{r}");
    }
    let s = summary(&out);
    let row = &s["policies"]["single"];
    assert_eq!(u(&row["errors"]), 12, "{row}");
    // Nothing was scored: no accuracy, rather than an accuracy of 0.
    assert!(row["accuracy"].is_null(), "{row}");
    assert_eq!(u(&row["judge"]["errors"]), 12, "{row}");
    assert!(u(&row["judge"]["failed_calls"]) >= 12, "{row}");
}

#[test]
fn judge_calls_replay_bit_for_bit_and_a_rerun_under_another_grading_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let rec = tmp.path().join("rec");
    let calls = tmp.path().join("calls");
    let judge = ["--judge", "sim", "--judge-agreement", "0.6"];
    let record = [&judge[..], &["--record", calls.to_str().unwrap()]].concat();
    let o = eval("debate", &rec, &record);
    assert!(o.status.success(), "{}", stderr(&o));
    let rep = tmp.path().join("rep");
    let replay = [&judge[..], &["--replay", calls.to_str().unwrap()]].concat();
    let o = eval("debate", &rep, &replay);
    assert!(o.status.success(), "{}", stderr(&o));
    let strip = |rows: Vec<Value>| -> Vec<Value> {
        rows.into_iter()
            .map(|mut r| {
                r["judge"]["cost_usd"] = Value::Null;
                r
            })
            .collect()
    };
    assert_eq!(
        strip(results_by_id(&rec, "debate")),
        strip(results_by_id(&rep, "debate"))
    );
    // The same label graded by the rules alone would mix two graders: refused.
    let o = eval("debate", &rec, &[]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("grad"), "{}", stderr(&o));
}

#[test]
fn judge_flags_that_contradict_each_other_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x");
    for (args, needle) in [
        (&["--grade", "judge"][..], "--judge"),
        (&["--judge", "sim", "--grade", "rules"][..], "--grade rules"),
        (
            &["--judge", "sim", "--judge-agreement", "1.5"][..],
            "--judge-agreement",
        ),
        (&["--judge", "sim", "--judge-grader", "vibes"][..], "vibes"),
        (
            &[
                "--judge",
                "sim",
                "--judge-grader",
                "rubric:/nonexistent.toml",
            ][..],
            "nonexistent",
        ),
        (&["--judge", "nosuchmodel"][..], "nosuchmodel"),
    ] {
        let o = eval("single", &out, args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(needle), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}

#[test]
fn a_rubric_judge_scores_every_criterion() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("rubric");
    let rubric = Path::new(env!("CARGO_MANIFEST_DIR")).join("rubrics/deepresearch.toml");
    let grader = format!("rubric:{}", rubric.display());
    let o = eval(
        "single",
        &out,
        &[
            "--judge",
            "sim",
            "--judge-grader",
            &grader,
            "--judge-agreement",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for r in results_by_id(&out, "single") {
        let j = &r["judge"];
        assert_eq!(j["grader"], "rubric:deepresearch", "{r}");
        assert_eq!(j["criteria"].as_object().unwrap().len(), 4, "{r}");
        // A judge that always agrees passes exactly the items the rules pass.
        assert_eq!(r["judge_correct"], r["correct"], "{r}");
        let score = j["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score), "{r}");
    }
    let j = &summary(&out)["policies"]["single"]["judge"];
    assert_eq!(j["agreement"].as_f64(), Some(1.0), "{j}");
    assert!(j["mean_score"].as_f64().is_some(), "{j}");
}

#[test]
fn a_pairwise_judge_compares_with_the_reference_policy_in_a_seeded_order() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pairwise");
    // The reference is listed last: it still runs first.
    let o = eval(
        "self_consistency:k=3;single",
        &out,
        &[
            "--judge",
            "sim",
            "--judge-grader",
            "pairwise:single",
            "--judge-agreement",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // The reference itself is not judged.
    assert!(results_by_id(&out, "single")
        .iter()
        .all(|r| r["judge"].is_null()));
    let rows = results_by_id(&out, "self_consistency:k=3");
    let reference = results_by_id(&out, "single");
    let (mut firsts, mut wins) = (0, 0);
    for (r, s) in rows.iter().zip(&reference) {
        let p = &r["judge"]["pairwise"];
        assert_eq!(p["against"], "single", "{r}");
        assert!(r["judge_correct"].is_null(), "pairwise grades neither: {r}");
        firsts += usize::from(p["policy_first"] == true);
        // A judge that always agrees with the rules prefers the right answer.
        let expect = match (
            r["correct"].as_bool().unwrap(),
            s["correct"].as_bool().unwrap(),
        ) {
            (true, false) => "policy",
            (false, true) => "reference",
            _ => "tie",
        };
        assert_eq!(p["winner"], expect, "{r}");
        wins += usize::from(expect == "policy");
    }
    // The order is drawn per item: both orders occur over 12 items.
    assert!(firsts > 0 && firsts < 12, "{firsts}");
    let j = &summary(&out)["policies"]["self_consistency:k=3"]["judge"];
    assert_eq!(j["pairwise"]["compared"], 12, "{j}");
    assert_eq!(u(&j["pairwise"]["wins"]) as usize, wins, "{j}");
    assert_eq!(u(&j["errors"]), 0, "{j}");
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(
        md.contains("Position bias") && md.contains("judge:pairwise:single"),
        "{md}"
    );
    // A reference that is not among the policies, a run without a calls log, and --grade judge
    // are refused up front.
    for (args, needle) in [
        (
            &["--judge-grader", "pairwise:nobody"][..],
            "no policy of this run",
        ),
        (
            &["--judge-grader", "pairwise:single", "--log-calls", "none"][..],
            "--log-calls",
        ),
        (
            &["--judge-grader", "pairwise:single", "--grade", "judge"][..],
            "--grade both",
        ),
    ] {
        let o = eval(
            "cot;single",
            &tmp.path().join("bad"),
            &[&["--judge", "sim"][..], args].concat(),
        );
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}
