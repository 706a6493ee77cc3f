//! Generation settings end to end: `--max-tokens`, `--temperature`, `--top-p`, the same keys in
//! `models.toml` and role cards, one precedence (role card > flag > models.toml > built-in
//! default), checked in the request bodies `serve-mock --log-requests` saw and in the results
//! that record them; bad values are one-line errors naming the flag or key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;

use common::eval_run::gsm8k_sample as sample;
use common::{colony, compare_args, jsonl, summary, Mock};
use serde_json::{json, Value};

/// A mock server answering the GSM8K sample and logging every request into `log`.
fn mock(log: &Path) -> Mock {
    Mock::start(
        &[
            "--answer-key",
            sample().to_str().unwrap(),
            "--dataset",
            "gsm8k",
            "--log-requests",
            log.to_str().unwrap(),
        ],
        &[],
    )
}

/// `colony eval` of `single` on two GSM8K items into `out`, with extra flags.
fn eval(out: &Path, extra: &[&str]) -> (bool, String, String) {
    let sample = sample();
    let mut args = vec![
        "eval",
        "--dataset",
        "gsm8k",
        "--data",
        sample.to_str().unwrap(),
        "--limit",
        "2",
        "--policy",
        "single",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    colony(&args)
}

/// Empties the request log (truncated, not removed: the server keeps appending to it).
fn clear(log: &Path) {
    std::fs::write(log, "").unwrap();
}

/// The sampling fields of every logged request, as `{"temperature", "top_p", "max_tokens"}`.
fn sampled(log: &Path) -> Vec<Value> {
    let requests = jsonl(log);
    assert!(!requests.is_empty(), "no request reached the server");
    requests
        .iter()
        .map(|r| json!({"temperature": r["temperature"], "top_p": r["top_p"], "max_tokens": r["max_tokens"]}))
        .collect()
}

#[test]
fn eval_flags_reach_the_request_body_and_are_recorded_in_summary_json() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let m = mock(&log);
    let out = dir.path().join("run");
    let flags = ["--max-tokens", "17", "--temperature", "0.1"];
    let (ok, _, err) = eval(
        &out,
        &[&["--base-url", &m.url, "--model", "sim"][..], &flags].concat(),
    );
    assert!(ok, "{err}");
    let want = json!({"temperature": 0.1, "top_p": null, "max_tokens": 17});
    for r in sampled(&log) {
        assert_eq!(r, want);
    }
    let s = summary(&out);
    let settings = &s["settings"]["gsm8k"]["single"];
    assert_eq!(settings["run_seed"], 0, "{s}");
    let agents = settings["agents"].as_array().unwrap();
    assert!(!agents.is_empty(), "{s}");
    for a in agents {
        assert_eq!(
            a["sampling"],
            json!({"temperature": 0.1, "max_tokens": 17}),
            "{s}"
        );
        assert_eq!(a["model"], "sim", "{s}");
    }
    assert!(out.join("settings.json").is_file());

    // Without flags: the built-in MASLab default, recorded as such; the rerun's note says the
    // settings changed.
    clear(&log);
    let out2 = dir.path().join("default");
    let (ok, _, err) = eval(&out2, &["--base-url", &m.url, "--model", "sim"]);
    assert!(ok, "{err}");
    for r in sampled(&log) {
        assert_eq!(
            r,
            json!({"temperature": 0.5, "top_p": null, "max_tokens": 2048})
        );
    }
    let s = summary(&out2);
    assert_eq!(
        s["settings"]["gsm8k"]["single"]["agents"][0]["sampling"],
        json!({"temperature": 0.5, "max_tokens": 2048})
    );
    let (ok, _, err) = eval(&out, &["--base-url", &m.url, "--model", "sim"]);
    assert!(ok, "{err}");
    assert!(err.contains("ran before with other settings"), "{err}");
}

#[test]
fn role_card_beats_flag_beats_models_toml_beats_the_builtin_default() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let m = mock(&log);
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        format!(
            "[models.cpu]\nmodel = \"sim\"\nbase_url = \"{}\"\nmax_tokens = 300\n\
             temperature = 0.3\ntop_p = 0.9\n",
            m.url
        ),
    )
    .unwrap();
    let run = |out: &str, extra: &[&str]| {
        let path = dir.path().join(out);
        let base = [
            "--models-config",
            config.to_str().unwrap(),
            "--model",
            "cpu",
        ];
        let (ok, _, err) = eval(&path, &[&base[..], extra].concat());
        assert!(ok, "{err}");
        let got = sampled(&log);
        clear(&log);
        got
    };
    // models.toml over the built-in default (every key set there wins over 0.5 / 2048).
    for r in run("toml", &[]) {
        assert_eq!(
            r,
            json!({"temperature": 0.3, "top_p": 0.9, "max_tokens": 300})
        );
    }
    // A flag over models.toml; the keys no flag sets stay.
    for r in run("flag", &["--max-tokens", "17", "--temperature", "0.1"]) {
        assert_eq!(
            r,
            json!({"temperature": 0.1, "top_p": 0.9, "max_tokens": 17})
        );
    }
    // A role card's key over the flag.
    let roles = dir.path().join("roles");
    std::fs::create_dir(&roles).unwrap();
    std::fs::write(
        roles.join("a.toml"),
        "name = \"a\"\nsystem_prompt = \"You are careful.\"\ntemperature = 0.2\n",
    )
    .unwrap();
    let roles_flag = ["--roles", roles.to_str().unwrap()];
    let flags = ["--max-tokens", "17", "--temperature", "0.1"];
    for r in run("role", &[&roles_flag[..], &flags].concat()) {
        assert_eq!(
            r,
            json!({"temperature": 0.2, "top_p": 0.9, "max_tokens": 17})
        );
    }
    let s = summary(&dir.path().join("role"));
    assert_eq!(
        s["settings"]["gsm8k"]["single"]["agents"][0]["sampling"],
        json!({"temperature": 0.2, "top_p": 0.9, "max_tokens": 17})
    );
}

#[test]
fn compare_and_chat_send_the_flags_and_compare_records_them() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let m = mock(&log);
    let out = dir.path().join("cmp");
    let compare = |extra: &[&str]| {
        let flags = [
            "--seeds",
            "0",
            "--max-steps",
            "2",
            "--base-url",
            &m.url,
            "--model",
            "sim",
        ];
        let rest = [&flags[..], extra].concat();
        colony(&compare_args(
            "cube",
            &["--set", "n=2"],
            "independent",
            &rest,
            &out,
        ))
    };
    let (ok, _, err) = compare(&["--max-tokens", "33", "--top-p", "0.5"]);
    assert!(ok, "{err}");
    for r in sampled(&log) {
        assert_eq!(
            r,
            json!({"temperature": null, "top_p": 0.5, "max_tokens": 33})
        );
    }
    let s = summary(&out);
    assert_eq!(
        s["sampling"],
        json!([{"top_p": 0.5, "max_tokens": 33}]),
        "{s}"
    );
    // Other settings into the same directory would mix results: refused.
    let (ok, _, err) = compare(&["--max-tokens", "34", "--top-p", "0.5"]);
    assert!(!ok);
    assert!(err.contains("sampling"), "{err}");

    clear(&log);
    let (ok, _, err) = colony(&[
        "chat",
        "--base-url",
        &m.url,
        "--model",
        "sim",
        "--max-tokens",
        "5",
        "--temperature",
        "0",
        "--top-p",
        "1",
        "Hello",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        sampled(&log),
        [json!({"temperature": 0.0, "top_p": 1.0, "max_tokens": 5})]
    );
}

#[test]
fn bad_values_are_one_line_errors_naming_the_flag_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    for (flag, value, message) in [
        (
            "--temperature",
            "2.5",
            "--temperature must be in [0, 2], got 2.5",
        ),
        ("--top-p", "0", "--top-p must be in (0, 1], got 0"),
        ("--top-p", "1.5", "--top-p must be in (0, 1], got 1.5"),
        (
            "--max-tokens",
            "0",
            "--max-tokens must be from 1 to 1048576, got 0",
        ),
        (
            "--max-tokens",
            "2000000",
            "--max-tokens must be from 1 to 1048576, got 2000000",
        ),
    ] {
        let (ok, _, err) = eval(&out, &[flag, value]);
        assert!(!ok, "{flag} {value}");
        assert!(err.contains(message), "{flag} {value}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        let (ok, _, err) = colony(&["chat", flag, value, "Hello"]);
        assert!(!ok && err.contains(message), "chat {flag} {value}: {err}");
        let (ok, _, err) = colony(&[
            "compare",
            "--env",
            "cube",
            "--policies",
            "scripted:noop",
            "--out",
            out.to_str().unwrap(),
            flag,
            value,
        ]);
        assert!(
            !ok && err.contains(message),
            "compare {flag} {value}: {err}"
        );
    }
    let config = dir.path().join("models.toml");
    std::fs::write(
        &config,
        "[models.cpu]\nbase_url = \"http://127.0.0.1:9/v1\"\ntemperature = 5\n",
    )
    .unwrap();
    let (ok, _, err) = colony(&[
        "--models-config",
        config.to_str().unwrap(),
        "chat",
        "--model",
        "cpu",
        "Hello",
    ]);
    assert!(!ok);
    assert!(
        err.contains("models.toml: model cpu: `temperature` must be in [0, 2], got 5"),
        "{err}"
    );
    let roles = dir.path().join("roles");
    std::fs::create_dir(&roles).unwrap();
    std::fs::write(
        roles.join("a.toml"),
        "name = \"a\"\nsystem_prompt = \"\"\nmax_tokens = 0\n",
    )
    .unwrap();
    let (ok, _, err) = eval(&out, &["--roles", roles.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("a.toml") && err.contains("field `max_tokens` must be from 1"),
        "{err}"
    );
}
