//! GPTSwarm and G-Designer from the command line (docs/design/baselines.md §3.13–§3.14): `--train N` trains the
//! edge distribution by REINFORCE on items that are never evaluated, saves it as
//! `<label>.<dataset>.learnt.json`, a resumed run loads it instead of training again, another run reuses
//! it with `edges=FILE`, and a run without a split says it is untrained.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Output;

use common::eval_run::{eval_on, gsm8k_sample};
use common::{read_json, results_by_id};

fn eval(policy: &str, out: &Path, extra: &[&str]) -> Output {
    eval_on("gsm8k", &gsm8k_sample(), policy, out)
        .args(["--model", "sim", "--quiet", "--seed", "5", "--limit", "4"])
        .args(extra)
        .output()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Labelled, so the saved file's name (`trained.gsm8k.learnt.json`) has no comma for `edges=`.
const POLICY: &str = "gptswarm:iterations=3,batch=2,label=trained";

#[test]
fn train_saves_the_learnt_edges_and_a_rerun_or_another_run_reuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    ok(&eval(POLICY, &a, &["--train", "6"]));
    let label = "trained";
    let rows = results_by_id(&a, label);
    assert_eq!(rows.len(), 4);
    let learnt_file = a.join("trained.gsm8k.learnt.json");
    let learnt = read_json(&learnt_file);
    assert_eq!(learnt["edges"].as_array().unwrap().len(), 6, "{learnt}");
    let t = &learnt["training"];
    assert_eq!(t["utility"].as_array().unwrap().len(), 3, "{t}");
    // Training items are never evaluated ones.
    let evaluated: HashSet<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let trained: Vec<&str> = t["item_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(trained.len(), 6);
    assert!(
        trained.iter().all(|id| !evaluated.contains(id)),
        "{trained:?}"
    );
    // 3 steps × 2 items × 4 nodes, all successful.
    assert_eq!(learnt["training_usage"]["calls"], 24, "{learnt}");
    for r in &rows {
        assert_eq!(r["trace"]["trained"], true, "{r}");
        assert_eq!(r["calls"], 4, "{r}");
    }
    // The training tokens are not the evaluated items'.
    let s = read_json(&a.join("summary.json"));
    let item_tokens: u64 = rows
        .iter()
        .map(|r| r["prompt_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(s["policies"][label]["prompt_tokens"], item_tokens);

    // A rerun into the same directory loads the file: it is not rewritten.
    let before = std::fs::read(&learnt_file).unwrap();
    ok(&eval(POLICY, &a, &["--train", "6"]));
    assert_eq!(std::fs::read(&learnt_file).unwrap(), before);

    // Another run reuses the edges without training: the same graphs, the same results.
    let b = tmp.path().join("b");
    let reuse = format!("gptswarm:edges={},label=reused", learnt_file.display());
    ok(&eval(&reuse, &b, &[]));
    let reused = results_by_id(&b, "reused");
    let strip = |rows: &[serde_json::Value]| -> Vec<serde_json::Value> {
        rows.iter()
            .map(|r| serde_json::json!([r["id"], r["answer"], r["trace"]["edges"], r["correct"]]))
            .collect()
    };
    assert_eq!(strip(&reused), strip(&rows));
}

#[test]
fn without_a_split_it_runs_untrained_and_bad_splits_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("untrained");
    ok(&eval("gptswarm", &out, &[]));
    for r in results_by_id(&out, "gptswarm") {
        assert_eq!(r["trace"]["trained"], false, "{r}");
    }
    // 12 items, 4 evaluated: 9 training items cannot be drawn.
    let o = eval("gptswarm", &tmp.path().join("x"), &["--train", "9"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--train 9") && e.contains("only 8"), "{e}");
    let o = eval("gptswarm:agents=9", &tmp.path().join("y"), &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("agents"));
    let o = eval(
        "gptswarm:edges=/nonexistent.json",
        &tmp.path().join("z"),
        &[],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent.json"));
}

#[test]
fn gdesigner_trains_its_generator_saves_the_weights_and_reuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let policy = "gdesigner:iterations=2,batch=2,hidden=8,latent=4,label=designed";
    ok(&eval(policy, &a, &["--train", "4"]));
    let learnt = read_json(&a.join("designed.gsm8k.learnt.json"));
    assert_eq!(learnt["method"], "gdesigner");
    assert_eq!(
        learnt["embedder"].as_str().map(|e| e.starts_with("hash")),
        Some(true),
        "{}",
        learnt["embedder"]
    );
    assert_eq!(learnt["weights"]["w2"].as_array().unwrap().len(), 8);
    assert_eq!(
        learnt["training_usage"]["calls"], 16,
        "2 steps × 2 items × 4 agents"
    );
    let rows = results_by_id(&a, "designed");
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["trace"]["trained"], true, "{r}");
        assert_eq!(
            r["trace"]["probabilities"].as_array().unwrap().len(),
            6,
            "{r}"
        );
    }
    // The saved weights give the same graphs in another run.
    let b = tmp.path().join("b");
    let reuse = format!(
        "gdesigner:hidden=8,latent=4,weights={},label=reused",
        a.join("designed.gsm8k.learnt.json").display()
    );
    ok(&eval(&reuse, &b, &[]));
    let again = results_by_id(&b, "reused");
    for (x, y) in rows.iter().zip(&again) {
        assert_eq!(x["trace"]["probabilities"], y["trace"]["probabilities"]);
        assert_eq!(x["trace"]["edges"], y["trace"]["edges"]);
        assert_eq!(x["answer"], y["answer"]);
    }
    // Weights of another shape are refused, naming the mismatch.
    let wrong = format!(
        "gdesigner:hidden=16,latent=4,weights={},label=c",
        a.join("designed.gsm8k.learnt.json").display()
    );
    let o = eval(&wrong, &tmp.path().join("c"), &[]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("w1 is not"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
