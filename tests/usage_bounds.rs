//! Absurd token counts: a server reporting `prompt_tokens = 2^64 − 1` sent
//! a malformed response (a failed call, never summed), and an edited replay cache claiming it
//! is refused naming the file and line; totals never wrap around.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;

use common::eval_run::gsm8k_sample;
use common::BIN;
use serde_json::Value;

/// A server whose every completion claims `u64::MAX` prompt tokens.
fn absurd_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let reply = format!(
                "{{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":0,\"model\":\"m\",\"choices\":[{{\"index\":0,\"message\":{{\"role\":\"assistant\",\"content\":\"The answer is 3.\"}},\"finish_reason\":\"stop\"}}],\"usage\":{{\"prompt_tokens\":{m},\"completion_tokens\":1,\"total_tokens\":{m}}}}}",
                m = u64::MAX
            );
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    format!("http://{addr}/v1")
}

fn eval(out: &Path, extra: &[&str]) -> std::process::Output {
    std::process::Command::new(BIN)
        .args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args([
            "--limit",
            "3",
            "--policy",
            "single",
            "--quiet",
            "--max-retries",
            "0",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn absurd_usage_is_a_failed_call_and_never_summed() {
    let url = absurd_server();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let run = eval(&out, &["--base-url", &url, "--model", "m"]);
    assert!(
        !run.status.success(),
        "a run of failed calls does not exit 0"
    );
    let results = std::fs::read_to_string(out.join("single.jsonl")).unwrap();
    assert!(results.contains("implausible usage"), "{results}");
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let p = &s["policies"]["single"];
    assert!(p["errors"].as_u64().unwrap() > 0, "{p}");
    assert!(p["prompt_tokens"].as_u64().unwrap() < 1 << 40, "{p}");
    assert!(p["accuracy"].is_null(), "{p}");
}

#[test]
fn an_edited_replay_cache_with_absurd_usage_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let first = eval(
        &tmp.path().join("a"),
        &["--record", cache.to_str().unwrap()],
    );
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let calls = cache.join("calls.jsonl");
    let text = std::fs::read_to_string(&calls).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["response"]["usage"]["prompt_tokens"] = Value::from(u64::MAX);
    let edited: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&calls, edited).unwrap();
    let run = eval(
        &tmp.path().join("b"),
        &["--replay", cache.to_str().unwrap()],
    );
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("calls.jsonl:1") && stderr.contains("implausible usage"),
        "{stderr}"
    );
}
