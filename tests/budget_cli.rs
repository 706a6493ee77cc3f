//! Token budgets: `--max-tokens-total` on `colony eval`, `colony compare`
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
    // A cost cap (key or flag) on the unpriced simulated model is refused before anything
    // runs; a negative one is a checked key.
    let (ok, _, err) = run(&["--max-cost", "0.5"]);
    assert!(
        !ok && err.contains("needs prices: model sim has none"),
        "{err}"
    );
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(&suite, format!("max_cost = -2.0\n{text}")).unwrap();
    let (ok, _, err) = run(&[]);
    assert!(!ok && err.contains("max_cost"), "{err}");
}

/// A models.toml with the mock server as `priced` (with prices) and `free` (without).
fn priced_models(dir: &Path, url: &str) -> std::path::PathBuf {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            "[models.priced]\nbase_url = \"{url}\"\nmodel = \"sim\"\nmax_retries = 0\n\
             price.prompt_per_mtok = 1000.0\nprice.completion_per_mtok = 4000.0\n\
             [models.free]\nbase_url = \"{url}\"\nmodel = \"sim\"\nmax_retries = 0\n"
        ),
    )
    .unwrap();
    path
}

/// The cost of `row`'s tokens at the prices of [`priced_models`], recomputed independently.
fn cost_of(row: &Value) -> f64 {
    (row["prompt_tokens"].as_f64().unwrap() * 1000.0
        + row["completion_tokens"].as_f64().unwrap() * 4000.0)
        / 1e6
}

/// Prices give every item its cost, the summary `cost_usd` and the table a cost column;
/// `--max-cost` stops the run once spent and a higher cap resumes it; a cap on a model
/// without prices is refused before anything runs.
#[test]
fn eval_costs_come_from_prices_and_max_cost_stops_the_run() {
    let m = common::Mock::start(&[], &[]);
    let tmp = tempfile::tempdir().unwrap();
    let models = priced_models(tmp.path(), &m.url);
    let run = |out: &Path, model: &str, extra: &[&str]| {
        eval_on("gsm8k", &gsm8k_sample(), "single", out)
            .arg("--models-config")
            .arg(&models)
            .args(["--model", model, "--quiet", "--items-in-flight", "1"])
            .args(extra)
            .output()
            .unwrap()
    };
    let whole = tmp.path().join("whole");
    let out = run(&whole, "priced", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = jsonl(&whole.join("single.jsonl"));
    let mut total = 0.0;
    for r in &rows {
        let cost = r["cost_usd"].as_f64().unwrap();
        assert!((cost - cost_of(r)).abs() < 1e-9, "{r}");
        total += cost;
    }
    let s = summary(&whole);
    let summed = s["policies"]["single"]["cost_usd"].as_f64().unwrap();
    assert!((summed - total).abs() < 1e-9 && total > 0.0, "{s}");
    let md = std::fs::read_to_string(whole.join("results.md")).unwrap();
    assert!(md.contains("| Cost (USD) |"), "{md}");
    let csv = std::fs::read_to_string(whole.join("results.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",cost_usd"), "{csv}");

    // A cap the first item spends: nothing else starts; a higher one resumes.
    let capped = tmp.path().join("capped");
    let cap = format!("{}", rows[0]["cost_usd"].as_f64().unwrap());
    let out = run(&capped, "priced", &["--max-cost", &cap]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cost budget") && err.contains("--max-cost"),
        "{err}"
    );
    assert_eq!(jsonl(&capped.join("single.jsonl")).len(), 1);
    let out = run(&capped, "priced", &["--max-cost", "1000"]);
    assert!(out.status.success());
    assert_eq!(jsonl(&capped.join("single.jsonl")).len(), rows.len());

    // Without prices: no cost anywhere, and a cost cap is refused up front.
    let free = tmp.path().join("free");
    assert!(run(&free, "free", &[]).status.success());
    assert!(jsonl(&free.join("single.jsonl"))[0]
        .get("cost_usd")
        .is_none());
    assert!(summary(&free)["policies"]["single"]
        .get("cost_usd")
        .is_none());
    assert!(!std::fs::read_to_string(free.join("results.md"))
        .unwrap()
        .contains("Cost"));
    let refused = tmp.path().join("refused");
    let out = run(&refused, "free", &["--max-cost", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("model free has none"),
        "{err}"
    );
    assert!(!refused.join("single.jsonl").exists());
}

/// Compare episodes carry their cost, the summary sums it per policy and the table shows it.
#[test]
fn compare_costs_come_from_prices() {
    let m = common::Mock::start(&[], &[]);
    let tmp = tempfile::tempdir().unwrap();
    let models = priced_models(tmp.path(), &m.url);
    let out = tmp.path().join("cmp");
    let rest = [
        "--seeds",
        "0..2",
        "--max-steps",
        "5",
        "--models-config",
        models.to_str().unwrap(),
        "--model",
        "priced",
    ];
    let (ok, _, err) = colony(&compare_args(
        "cube",
        &["--set", "n=2"],
        "independent",
        &rest,
        &out,
    ));
    assert!(ok, "{err}");
    let rows = jsonl(&out.join("episodes.jsonl"));
    let mut total = 0.0;
    for r in &rows {
        let cost = r["cost_usd"].as_f64().unwrap();
        assert!((cost - cost_of(r)).abs() < 1e-9, "{r}");
        total += cost;
    }
    let s = summary(&out);
    let summed = s["policies"]["independent"]["cost_usd"].as_f64().unwrap();
    assert!((summed - total).abs() < 1e-9 && total > 0.0, "{s}");
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(md.contains("cost (USD, all episodes)"), "{md}");
}

/// A simulated model priced at `prompt` USD per million prompt tokens, in `dir/models.toml`.
fn sim_priced(dir: &Path, prompt: f64) -> std::path::PathBuf {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            "[models.p]\nkind = \"simulated\"\nprice.prompt_per_mtok = {prompt:?}\n\
             price.completion_per_mtok = 4.0\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_resume_under_other_prices_is_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["eval", "compare"] {
        let out = tmp.path().join(kind);
        let go = |prompt: f64| {
            let models = sim_priced(tmp.path(), prompt);
            let mut cmd = common::colony_cmd(["--models-config", models.to_str().unwrap()]);
            if kind == "eval" {
                cmd.args(["eval", "--dataset", "gsm8k", "--data"])
                    .arg(common::eval_run::gsm8k_sample())
                    .args(["--policy", "single", "--limit", "2"]);
            } else {
                cmd.args([
                    "compare",
                    "--env",
                    "cube",
                    "--set",
                    "n=1",
                    "--policies",
                    "independent",
                ])
                .args(["--seeds", "0", "--max-steps", "2"]);
            }
            let o = cmd
                .args(["--model", "p", "--quiet", "--out", out.to_str().unwrap()])
                .output()
                .unwrap();
            (
                o.status.success(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        };
        let (ok, err) = go(1.0);
        assert!(ok, "{kind}: {err}");
        assert!(out.join("prices.json").is_file());
        let (ok, err) = go(2.0);
        assert!(!ok, "{kind}: a resume at other prices must be refused");
        assert!(
            err.contains("model p") && err.contains("prompt 1") && err.contains("prompt 2"),
            "{kind}: {err}"
        );
        let (ok, err) = go(1.0);
        assert!(ok, "{kind}: the earlier prices resume: {err}");
    }
}
