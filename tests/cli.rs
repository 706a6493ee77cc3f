//! The `colony` binary as a user runs it: real processes, real HTTP on loopback.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Output};

use common::{Mock, BIN};

fn colony(args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(BIN)
        .args(args)
        .envs(envs.iter().copied())
        .env_remove("RUST_LOG")
        .env_remove("COLONY_MODELS")
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn chat_json_against_serve_mock() {
    let mock = Mock::start(&[], &[]);
    let out = colony(
        &[
            "chat",
            "--base-url",
            &mock.url,
            "--model",
            "m",
            "--json",
            "Hello there",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(v["text"].as_str().unwrap().contains("Hello there"));
    let u = &v["usage"];
    assert_eq!(
        u["total_tokens"].as_u64().unwrap(),
        u["prompt_tokens"].as_u64().unwrap() + u["completion_tokens"].as_u64().unwrap()
    );
    assert_eq!(v["model"], "m");
}

#[test]
fn chat_without_configuration_uses_the_simulated_model() {
    let out = colony(&["chat", "What is the capital of France?"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("offline simulated model"));
}

#[test]
fn failures_exit_non_zero_with_one_line_errors() {
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let out = colony(
        &["chat", "--base-url", &dead, "--max-retries", "0", "hi"],
        &[],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(&dead), "{err}");

    let mock = Mock::start(
        &["--require-api-key-env", "MOCK_KEY"],
        &[("MOCK_KEY", "sk-right")],
    );
    let out = colony(&["chat", "--base-url", &mock.url, "hi"], &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("HTTP 401"), "{}", stderr(&out));

    let out = colony(
        &[
            "chat",
            "--base-url",
            &mock.url,
            "--api-key-env",
            "UNSET_VAR_FOR_TEST",
            "hi",
        ],
        &[],
    );
    assert!(
        stderr(&out).contains("UNSET_VAR_FOR_TEST is not set"),
        "{}",
        stderr(&out)
    );

    let out = colony(&["chat", "--model", "nope", "hi"], &[]);
    assert!(
        stderr(&out).contains("unknown model \"nope\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn api_key_never_appears_in_logs() {
    let secret = "sk-colony-test-secret-9f8e7d";
    let mock = Mock::start(
        &[
            "--require-api-key-env",
            "MOCK_KEY",
            "--fail-500",
            "0.5",
            "--seed",
            "2",
        ],
        &[("MOCK_KEY", secret)],
    );
    let out = colony(
        &[
            "-vv",
            "chat",
            "--base-url",
            &mock.url,
            "--api-key-env",
            "MY_KEY",
            "--max-retries",
            "8",
            "hi",
        ],
        &[("MY_KEY", secret)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    // Debug logging was on and the request (with its key) was logged.
    assert!(
        log.contains("POST chat/completions") && log.contains("ApiKey(***)"),
        "{log}"
    );
    assert!(!log.contains(secret) && !stdout(&out).contains(secret));
    // Also at trace level, where the HTTP stack logs too.
    let out = colony(
        &[
            "-vvv",
            "chat",
            "--base-url",
            &mock.url,
            "--api-key-env",
            "MY_KEY",
            "hi",
        ],
        &[("MY_KEY", secret)],
    );
    assert!(out.status.success());
    assert!(!stderr(&out).contains(secret));
}

#[test]
fn models_lists_and_checks_endpoints() {
    let mock = Mock::start(&["--served-model", "served"], &[]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("models.toml");
    std::fs::write(
        &cfg,
        format!(
            "default = \"good\"\n[models.good]\nmodel = \"served\"\nbase_url = \"{}\"\n\
             [models.bad]\nbase_url = \"http://127.0.0.1:9/v1\"\ntimeout_secs = 2\n",
            mock.url
        ),
    )
    .unwrap();
    let out = colony(
        &["--models-config", cfg.to_str().unwrap(), "models", "--json"],
        &[],
    );
    assert!(!out.status.success(), "a dead endpoint must fail the check");
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_name = |n: &str| rows.iter().find(|r| r["name"] == n).unwrap().clone();
    assert_eq!(by_name("good")["endpoints"][0]["ok"], true);
    assert_eq!(by_name("good")["default"], true);
    assert_eq!(by_name("bad")["endpoints"][0]["ok"], false);
    assert_eq!(by_name("sim")["kind"], "simulated");
    // The configured default is used by chat.
    let out = colony(
        &[
            "--models-config",
            cfg.to_str().unwrap(),
            "chat",
            "--json",
            "hey",
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"model\":\"served\""));
}

#[test]
fn record_then_replay_offline_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let mock = Mock::start(&[], &[]);
    let args = |mode: &str, url: &str| {
        vec![
            "chat".to_string(),
            "--base-url".into(),
            url.into(),
            "--model".into(),
            "m".into(),
            mode.into(),
            rec.display().to_string(),
            "--json".into(),
            "Tell me a fact".into(),
        ]
    };
    let a = args("--record", &mock.url);
    let first = colony(&a.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    drop(mock);
    let b = args("--replay", "http://127.0.0.1:9/v1");
    let second = colony(&b.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert!(second.status.success(), "{}", stderr(&second));
    let (x, y): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&first.stdout).unwrap(),
        serde_json::from_slice(&second.stdout).unwrap(),
    );
    assert_eq!(x["text"], y["text"]);
    assert_eq!(x["usage"], y["usage"]);
    assert_eq!(y["cached"], true);
    let mut c = b.clone();
    *c.last_mut().unwrap() = "Something never recorded".into();
    let miss = colony(&c.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert!(!miss.status.success());
    assert!(
        stderr(&miss).contains("replay cache miss"),
        "{}",
        stderr(&miss)
    );
}

#[test]
fn bench_embodied_times_every_environment_at_its_own_defaults() {
    // SwarmBench's 40×40 scale-up settings belong to SwarmBench: on cube and wildfire they
    // were refused as unknown parameters.
    for (env, id) in [
        ("cube", "cube-v0"),
        ("wildfire", "wildfire-v0"),
        ("swarmbench", "swarmbench-v0"),
    ] {
        let out = colony(&["bench", "embodied", "--env", env, "--steps", "2"], &[]);
        assert!(out.status.success(), "{env}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(v["env"], id, "{v}");
        assert!(v["steps"].as_u64().unwrap() >= 1, "{v}");
    }
}

#[test]
fn benches_print_one_json_line() {
    let out = colony(
        &["bench", "client", "--calls", "300", "--concurrency", "8"],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["calls"], 300);
    assert_eq!(v["errors"], 0);
    assert!(v["calls_per_s"].as_f64().unwrap() > 0.0);
    let out = colony(&["bench", "runtime", "--agents", "500"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        (
            v["agents"].as_u64(),
            v["calls"].as_u64(),
            v["errors"].as_u64()
        ),
        (Some(500), Some(500), Some(0))
    );
    assert!(v["peak_rss_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn every_subcommand_has_help() {
    for sub in [
        vec!["--help"],
        vec!["chat", "--help"],
        vec!["serve-mock", "--help"],
        vec!["models", "--help"],
        vec!["bench", "--help"],
        vec!["bench", "client", "--help"],
        vec!["bench", "runtime", "--help"],
    ] {
        let out = colony(&sub, &[]);
        assert!(out.status.success(), "{sub:?}");
        assert!(stdout(&out).contains("Usage: colony"), "{sub:?}");
    }
    let out = colony(&["serve-mock", "--help"], &[]);
    for flag in [
        "--latency-ms",
        "--fail-429",
        "--fail-500",
        "--drop",
        "--stall",
        "--malformed",
        "--answer-key",
        "--accuracy",
        "--seed",
        "--port",
        "--host",
    ] {
        assert!(
            stdout(&out).contains(flag),
            "serve-mock --help lacks {flag}"
        );
    }
    // `view` says what it writes: a page and its data folder, not "one self-contained page".
    let out = colony(&["view", "--help"], &[]);
    let help = stdout(&out);
    assert!(
        help.contains("report.html") && help.contains("report.data/"),
        "{help}"
    );
    assert!(!help.contains("self-contained"), "{help}");
    // The command list's one-line summaries carry no stray trailing period.
    let out = colony(&["--help"], &[]);
    for line in stdout(&out)
        .lines()
        .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with('-'))
    {
        assert!(!line.trim_end().ends_with('.'), "stray period: {line}");
    }
}

/// `--base-url` without `--model` asks the server's `/v1/models`: its only model is used
/// (a server that serves one named model rejects any other name, as llama-server and vLLM do);
/// several models are an error listing them.
#[test]
fn base_url_without_model_uses_the_servers_only_model() {
    let one = Mock::start(&["--served-model", "smol-135m"], &[]);
    let out = colony(&["chat", "--base-url", &one.url, "--json", "Hello"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["model"], "smol-135m");
    assert!(
        stderr(&out).contains("using the server's only model `smol-135m`"),
        "{}",
        stderr(&out)
    );

    let two = Mock::start(&["--served-model", "a-7b", "--served-model", "b-13b"], &[]);
    let out = colony(&["chat", "--base-url", &two.url, "Hello"], &[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("serves 2 models: a-7b, b-13b") && err.contains("--model"),
        "{err}"
    );
    // Naming the model skips the question.
    let out = colony(
        &["chat", "--base-url", &two.url, "--model", "b-13b", "Hello"],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn errors_are_one_clipped_line_said_once() {
    let huge = "9".repeat(500);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let out = out.to_str().unwrap();
    let compare = |extra: &[&str]| {
        let mut args = vec![
            "compare",
            "--env",
            "cube",
            "--policies",
            "scripted:noop",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        let o = colony(&args, &[]);
        assert!(!o.status.success(), "{extra:?}");
        stderr(&o)
    };
    for extra in [
        vec!["--seeds".to_string(), huge.clone()],
        vec!["--seeds".to_string(), format!("0..{huge}")],
        vec![
            "--seeds".to_string(),
            "0".into(),
            "--max-steps".into(),
            huge.clone(),
        ],
        vec![
            "--seeds".to_string(),
            "0".into(),
            "--set".into(),
            format!("n={huge}"),
        ],
    ] {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let err = compare(&extra);
        let first = err.lines().next().unwrap_or("");
        assert!(first.len() < 300, "{} characters: {first}", first.len());
        assert!(!err.contains(&"9".repeat(120)), "{err}");
    }
    // A bad setting is said once, not twice through the error chain.
    let err = compare(&["--seeds", "0", "--set", "nn=3"]);
    assert_eq!(err.matches("unknown parameter").count(), 1, "{err}");
    // A setting typo gets the hint policy-option typos get.
    let err = compare(&["--seeds", "0", "--set", "num_agent=3"]);
    assert!(err.contains("did you mean `num_agents`?"), "{err}");
    // A context the HTTP model refuses is refused for the simulated one too.
    let o = colony(
        &[
            "compare",
            "--env",
            "cube",
            "--policies",
            "independent",
            "--seeds",
            "0",
            "--context-tokens",
            "0",
            "--out",
            out,
        ],
        &[],
    );
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("context_tokens") && err.contains("got 0"),
        "{err}"
    );
    // A TOML error is one line naming the file and the line.
    let toml = tmp.path().join("models.toml");
    std::fs::write(&toml, "[models.a]\nkind = \"simulated\"\nbogus = \n").unwrap();
    let o = colony(&["models", "--models-config", toml.to_str().unwrap()], &[]);
    let err = stderr(&o);
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("{}:3:", toml.display())), "{err}");
}
