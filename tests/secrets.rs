//! Credentials never leak, over real loopback HTTP: a server that
//! echoes the `Authorization` header in its 401 body, a base URL with userinfo and a query key,
//! and `-vv` logging. Nothing of the key, the password or the query value may reach stderr,
//! results, call logs or the viewer page; one `Authorization` header is sent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use common::eval_run::gsm8k_sample;
use common::BIN;

const KEY: &str = "sk-ECHOED-KEY-4242";
const PASSWORD: &str = "PW-SECRET-77";
const QUERY: &str = "QUERY-SECRET-99";

/// Starts a server answering every request with 401 and a body quoting its `Authorization`
/// headers; returns its address and the headers it saw, per request.
fn echo_server() -> (String, Arc<Mutex<Vec<Vec<String>>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut auth = Vec::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("authorization:") {
                    auth.push(line[14..].trim().to_string());
                }
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body);
            let message = format!(
                "{{\"error\": {{\"message\": \"invalid credentials: {}\"}}}}",
                auth.join(" | ").replace('"', "'")
            );
            log.lock().unwrap().push(auth);
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{message}",
                message.len()
            );
        }
    });
    (addr, seen)
}

fn assert_clean(what: &str, text: &str) {
    for secret in [KEY, PASSWORD, QUERY] {
        assert!(!text.contains(secret), "{what} leaks {secret}: {text}");
    }
}

/// Every file's text below `dir`, compressed ones read through: zstd call logs
/// (`*.zst`) decompressed, the viewer's detail chunks (`report.data/c<k>.js`) decoded. A
/// compressed file that cannot be read fails the test rather than being skipped.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            out.push_str(&all_text(&p));
        } else if name.ends_with(".zst") {
            let bytes = zstd::decode_all(std::fs::File::open(&p).unwrap()).unwrap();
            out.push_str(&String::from_utf8_lossy(&bytes));
        } else if name.starts_with('c') && name.ends_with(".js") {
            let chunk = colony::view::read_chunk(&p).unwrap();
            out.push_str(&serde_json::to_string(&chunk).unwrap());
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out.push_str(&t);
        }
    }
    out
}

#[test]
fn keys_echoed_by_a_server_and_written_in_urls_never_leak() {
    let (addr, seen) = echo_server();
    let url = format!("http://alice:{PASSWORD}@{addr}/v1?api_key={QUERY}");
    let out = std::process::Command::new(BIN)
        .args([
            "-vv",
            "chat",
            "--base-url",
            &url,
            "--model",
            "m",
            "--api-key-env",
            "SECRET_KEY_VAR",
            "hello",
        ])
        .env("SECRET_KEY_VAR", KEY)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("401") || stderr.contains("nauthorized"),
        "{stderr}"
    );
    assert_clean("chat stderr", &stderr);
    // One Authorization header per request, the Bearer key (userinfo is not sent with a key).
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for auth in &seen {
        assert_eq!(auth.len(), 1, "{auth:?}");
        assert_eq!(auth[0], format!("Bearer {KEY}"));
    }

    // An eval run: results, call logs and the viewer page stay clean too.
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let out = std::process::Command::new(BIN)
        .args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args([
            "--limit",
            "2",
            "--policy",
            "single",
            "--base-url",
            &url,
            "--model",
            "m",
        ])
        .args(["--api-key-env", "SECRET_KEY_VAR", "--quiet", "--out"])
        .arg(&run)
        .env("SECRET_KEY_VAR", KEY)
        .output()
        .unwrap();
    assert_clean("eval stderr", &String::from_utf8_lossy(&out.stderr));
    let _ = std::process::Command::new(BIN)
        .arg("view")
        .arg(&run)
        .output()
        .unwrap();
    let files = all_text(&run);
    assert!(
        files.contains("invalid credentials"),
        "the server's message is kept"
    );
    // In the compressed call log and in the viewer's compressed details too.
    let calls = all_text(&run.join("calls"));
    assert!(calls.contains("invalid credentials"), "{calls}");
    let details = all_text(&run.join("report.data"));
    assert!(details.contains("invalid credentials"), "{details}");
    assert_clean("eval files", &files);
}

/// A key with a slash, which PHP-style servers echo as `\/`.
const SLASH_KEY: &str = "sk-ab/cd-ESCAPED-5151";

/// Starts a server that answers every request with `status` and a chat completion (or, for an
/// error status, an error message) quoting the request's bearer key JSON-escaped twice: with
/// `\/` for each slash, and with its first letter as `\u0073`.
fn escaped_echo_server(status: u16) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut key, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("authorization: bearer ") {
                    key = line[22..].trim().to_string();
                }
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body);
            let slashed = key.replace('/', "\\/");
            let unicode = format!("\\u0073{}", &slashed[1.min(slashed.len())..]);
            let said = format!("the key is {slashed} or {unicode}");
            let message = if status == 200 {
                format!(
                    "{{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":0,\"model\":\"m\",\
                     \"choices\":[{{\"index\":0,\"message\":{{\"role\":\"assistant\",\"content\":\
                     \"{said}. The answer is 3.\"}},\"finish_reason\":\"stop\"}}],\
                     \"usage\":{{\"prompt_tokens\":5,\"completion_tokens\":7,\"total_tokens\":12}}}}"
                )
            } else {
                format!("{{\"error\": {{\"message\": \"invalid credentials: {said}\"}}}}")
            };
            let reason = if status == 200 { "OK" } else { "Unauthorized" };
            let _ = write!(
                stream,
                "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{message}",
                message.len()
            );
        }
    });
    addr
}

#[test]
fn keys_echoed_json_escaped_are_redacted_after_decoding() {
    let clean = |what: &str, text: &str| {
        assert!(!text.contains(SLASH_KEY), "{what} leaks the key: {text}");
        assert!(
            !text.contains("ab/cd-ESCAPED"),
            "{what} leaks most of the key: {text}"
        );
    };
    // A 401 whose message quotes the key escaped.
    let addr = escaped_echo_server(401);
    let out = std::process::Command::new(BIN)
        .args([
            "chat",
            "--base-url",
            &format!("http://{addr}/v1"),
            "--model",
            "m",
        ])
        .args(["--api-key-env", "ESCAPED_KEY_VAR", "hello"])
        .env("ESCAPED_KEY_VAR", SLASH_KEY)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid credentials"), "{stderr}");
    clean("the 401 error", &stderr);

    // A reply quoting it: chat's output, an eval's results, call logs, record cache,
    // `logs cat` and the viewer's page.
    let addr = escaped_echo_server(200);
    let url = format!("http://{addr}/v1");
    let out = std::process::Command::new(BIN)
        .args(["chat", "--base-url", &url, "--model", "m"])
        .args(["--api-key-env", "ESCAPED_KEY_VAR", "hello"])
        .env("ESCAPED_KEY_VAR", SLASH_KEY)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("the key is ***"), "{said}");
    clean("chat output", &said);
    let tmp = tempfile::tempdir().unwrap();
    let (run, record) = (tmp.path().join("run"), tmp.path().join("record"));
    let out = std::process::Command::new(BIN)
        .args(["eval", "--dataset", "gsm8k", "--data"])
        .arg(gsm8k_sample())
        .args([
            "--limit",
            "2",
            "--policy",
            "single",
            "--base-url",
            &url,
            "--model",
            "m",
        ])
        .args(["--api-key-env", "ESCAPED_KEY_VAR", "--quiet", "--record"])
        .arg(&record)
        .arg("--out")
        .arg(&run)
        .env("ESCAPED_KEY_VAR", SLASH_KEY)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cat = std::process::Command::new(BIN)
        .args(["logs", "cat"])
        .arg(&run)
        .output()
        .unwrap();
    let cat = String::from_utf8_lossy(&cat.stdout);
    assert!(cat.contains("the key is ***"), "{cat}");
    clean("logs cat", &cat);
    let _ = std::process::Command::new(BIN)
        .arg("view")
        .arg(&run)
        .output()
        .unwrap();
    let files = all_text(&run);
    assert!(files.contains("the key is ***"), "the reply is kept");
    clean("eval files", &files);
    clean("record cache", &all_text(&record));
}
