//! Bounded memory for everything that comes over the network, over real loopback HTTP.
//!
//! Client side: a hostile server (raw TCP, written here) sends endless or oversized bodies; the
//! OpenAI-compatible client and `colony chat` must stop at `max_body_bytes` with
//! `ModelError::BodyTooLarge`, without retrying. Server side: `serve-mock` must cap embeddings
//! inputs and response size, refuse oversized request bodies with an OpenAI-style 413, and
//! disconnect clients that never finish sending their headers.
//!
//! Timing appears only as generous bounds that prove "stopped early" versus "ran until a
//! timeout", never as speed assertions.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use colony::llm::{
    ChatModel, ChatRequest, ClientSettings, EndpointSettings, Message, ModelError, ModelsConfig,
    OpenAiClient, RetryPolicy, SimulatedConfig, SimulatedModel,
};
use colony::mock_server::{MockServer, MockServerConfig};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// ---------------------------------------------------------------------------------------------
// A hostile OpenAI-compatible server.

/// What the hostile server answers to every request.
#[derive(Clone)]
enum Mode {
    /// 200 `application/json`, chunked, a completion whose content never ends.
    EndlessJson,
    /// 200 `text/event-stream`, chunked, `data:` frames forever.
    EndlessSse,
    /// 200 with `Content-Length: 1 GiB`, then a few bytes, then silence.
    DeclaredHuge,
    /// 500, chunked, an error body that never ends.
    EndlessError,
    /// 200 `application/json`, chunked (no `Content-Length`), exactly this body.
    Fixed(Arc<Vec<u8>>),
}

struct Hostile {
    url: String,
    /// Requests whose headers were read.
    requests: Arc<AtomicUsize>,
    /// Body bytes the server managed to write.
    written: Arc<AtomicU64>,
    /// Connections still being served.
    open: Arc<AtomicUsize>,
}

impl Hostile {
    async fn start(mode: Mode) -> Hostile {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let (r, w, o) = (requests.clone(), written.clone(), open.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                o.fetch_add(1, Ordering::SeqCst);
                let (mode, r, w, o) = (mode.clone(), r.clone(), w.clone(), o.clone());
                tokio::spawn(async move {
                    serve(stream, mode, &r, &w).await;
                    o.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Hostile {
            url,
            requests,
            written,
            open,
        }
    }

    /// Waits until every connection the server accepted is closed (the client hung up).
    async fn wait_closed(&self) {
        let until = Instant::now() + Duration::from_secs(10);
        while self.open.load(Ordering::SeqCst) > 0 {
            assert!(
                Instant::now() < until,
                "the client never closed its connection"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Reads one request head and its `Content-Length` body; false on EOF.
/// Reads one request; `None` when the client hung up, else whether it asked `GET /props`.
async fn read_request(s: &mut TcpStream) -> Option<bool> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match s.read(&mut tmp).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < head_end + len {
        match s.read(&mut tmp).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
        }
    }
    Some(head.starts_with("get /props"))
}

fn chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// Writes `head`, `first` as a chunk, then `repeat` as chunks until the peer goes away.
async fn endless(s: &mut TcpStream, head: &str, first: &[u8], repeat: &[u8], written: &AtomicU64) {
    // (An empty chunk would end the body: send `first` only when there is one.)
    if s.write_all(head.as_bytes()).await.is_err()
        || (!first.is_empty() && s.write_all(&chunk(first)).await.is_err())
    {
        return;
    }
    let frame = chunk(repeat);
    while s.write_all(&frame).await.is_ok() {
        written.fetch_add(repeat.len() as u64, Ordering::Relaxed);
    }
}

const COMPLETION_START: &[u8] = br#"{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""#;

async fn serve(mut s: TcpStream, mode: Mode, requests: &AtomicUsize, written: &AtomicU64) {
    while let Some(props) = read_request(&mut s).await {
        // A hostile server has no `/props` (the client asks it once for the context size):
        // 404, not counted among the chat requests.
        if props {
            let not_found = "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";
            if s.write_all(not_found.as_bytes()).await.is_err() {
                return;
            }
            continue;
        }
        requests.fetch_add(1, Ordering::SeqCst);
        let chunked_200 =
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
        match &mode {
            Mode::EndlessJson => {
                let filler = vec![b'a'; 64 * 1024];
                return endless(&mut s, chunked_200, COMPLETION_START, &filler, written).await;
            }
            Mode::EndlessSse => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                let event = br#"data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}]}

"#
                .repeat(256);
                return endless(&mut s, head, b"", &event, written).await;
            }
            Mode::EndlessError => {
                let head = "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                let filler = vec![b'e'; 64 * 1024];
                endless(&mut s, head, br#"{"error":{"message":""#, &filler, written).await;
                return;
            }
            Mode::DeclaredHuge => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1073741824\r\n\r\n";
                if s.write_all(head.as_bytes()).await.is_err()
                    || s.write_all(COMPLETION_START).await.is_err()
                {
                    return;
                }
                // Hold the connection open until the client hangs up.
                let mut tmp = [0u8; 1024];
                while matches!(s.read(&mut tmp).await, Ok(n) if n > 0) {}
                return;
            }
            Mode::Fixed(body) => {
                let mut out = chunked_200.as_bytes().to_vec();
                out.extend(chunk(body));
                out.extend_from_slice(b"0\r\n\r\n");
                if s.write_all(&out).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn client(url: &str, max_body_bytes: usize, max_retries: u32) -> OpenAiClient {
    let mut s = ClientSettings::new("m");
    s.retry = RetryPolicy {
        max_retries,
        base: Duration::from_millis(1),
        max_backoff: Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    s.request_timeout = Duration::from_secs(60);
    s.deadline = Some(Duration::from_secs(120));
    s.max_body_bytes = max_body_bytes;
    OpenAiClient::new(s, vec![EndpointSettings::new(url)]).unwrap()
}

fn hello() -> ChatRequest {
    ChatRequest::new(vec![Message::user("hi")])
}

/// Asserts `err` is `BodyTooLarge` with `limit`.
fn assert_too_large(err: &ModelError, limit: usize) {
    assert!(
        matches!(err, ModelError::BodyTooLarge { limit: l, .. } if *l == limit),
        "expected BodyTooLarge {{ limit: {limit} }}, got {err:?}"
    );
    assert!(!err.is_retryable(), "{err}");
    assert!(err.to_string().contains(&limit.to_string()), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Client: response bodies are read with a limit.

/// The server saw one request (no retry) and could push little past the limit before the
/// client hung up.
async fn one_request_cut_short(server: &Hostile) {
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
    let written = server.written.load(Ordering::SeqCst);
    assert!(written < 64 << 20, "server wrote {written} bytes");
}

/// An endless chunked JSON body ends at the limit, long before the 60 s request timeout, with
/// one request only (not retried although 5 retries are allowed), and the server could push
/// only about the limit plus the loopback socket buffers before the client hung up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_chunked_json_stops_at_the_limit_without_retries() {
    let server = Hostile::start(Mode::EndlessJson).await;
    let limit = 1 << 20;
    let c = client(&server.url, limit, 5);
    let t = Instant::now();
    let err = c.chat(&hello()).await.unwrap_err();
    assert_too_large(&err, limit);
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    one_request_cut_short(&server).await;
}

/// An endless server-sent-events stream is bounded the same way: the limit covers the whole
/// body, whatever its content type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_event_stream_stops_at_the_limit() {
    let server = Hostile::start(Mode::EndlessSse).await;
    let limit = 256 * 1024;
    let err = client(&server.url, limit, 3)
        .chat(&hello())
        .await
        .unwrap_err();
    assert_too_large(&err, limit);
    one_request_cut_short(&server).await;
}

/// A `Content-Length` over the limit fails at once, without waiting for the body (the server
/// sends a few bytes and then nothing, so reading would hang until the 60 s timeout).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_oversized_body_fails_before_reading() {
    let server = Hostile::start(Mode::DeclaredHuge).await;
    let limit = 1 << 20;
    let t = Instant::now();
    let err = client(&server.url, limit, 3)
        .chat(&hello())
        .await
        .unwrap_err();
    assert_too_large(&err, limit);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
}

/// An endless error body is read only in part: the 500 stays a retried transient error (three
/// attempts), its message holds the start of the body, and the limit error never appears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_error_body_is_truncated_and_keeps_its_class() {
    let server = Hostile::start(Mode::EndlessError).await;
    let t = Instant::now();
    let err = client(&server.url, 16 << 20, 2)
        .chat(&hello())
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ModelError::Transient {
                status: Some(500),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("{\"error\":{\"message\":\"eee"),
        "{err}"
    );
    assert!(err.to_string().len() < 4096);
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 3);
}

/// A chunked body of exactly the limit is accepted; one byte less of limit refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limit_is_exact_for_chunked_bodies() {
    let body = serde_json::to_vec(&json!({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "The answer is 42."},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    }))
    .unwrap();
    let n = body.len();
    let server = Hostile::start(Mode::Fixed(Arc::new(body))).await;
    let reply = client(&server.url, n, 0).chat(&hello()).await.unwrap();
    assert_eq!(reply.text, "The answer is 42.");
    let err = client(&server.url, n - 1, 3)
        .chat(&hello())
        .await
        .unwrap_err();
    assert_too_large(&err, n - 1);
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}

/// Embeddings and `GET /models` replies go through the same limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embeddings_and_model_checks_are_bounded_too() {
    let server = Hostile::start(Mode::EndlessJson).await;
    let limit = 128 * 1024;
    let c = client(&server.url, limit, 3);
    let err = c.embeddings(&["a".to_string()]).await.unwrap_err();
    assert_too_large(&err, limit);
    let checks = c.check_endpoints().await;
    assert_too_large(checks[0].1.as_ref().unwrap_err(), limit);
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 2);
}

/// `max_body_bytes` in `models.toml` reaches the client; 0 is refused.
#[test]
fn models_toml_sets_max_body_bytes() {
    let toml = "[models.m]\nbase_url = \"http://127.0.0.1:9/v1\"\nmax_body_bytes = 4096\n";
    let cfg = ModelsConfig::parse(toml, None).unwrap();
    let spec = cfg.resolve(Some("m"), &Default::default()).unwrap();
    assert_eq!(spec.build_client().unwrap().settings().max_body_bytes, 4096);
    let default = ClientSettings::new("m").max_body_bytes;
    assert_eq!(default, 16 * 1024 * 1024);
    let bad = ModelsConfig::parse(&toml.replace("4096", "0"), None).unwrap();
    let err = bad
        .resolve(Some("m"), &Default::default())
        .unwrap()
        .build_client()
        .unwrap_err();
    assert!(err.to_string().contains("max_body_bytes"), "{err}");
}

/// Runs `colony ARGS` in a scratch directory (blocking, off the runtime's threads).
async fn colony(
    args: Vec<String>,
    envs: Vec<(String, String)>,
) -> (std::process::Output, Duration) {
    tokio::task::spawn_blocking(move || {
        let t = Instant::now();
        let out = Command::new(common::BIN)
            .args(&args)
            .envs(envs)
            .env_remove("RUST_LOG")
            .env_remove("COLONY_MODELS")
            .current_dir(env!("CARGO_TARGET_TMPDIR"))
            .output()
            .unwrap();
        (out, t.elapsed())
    })
    .await
    .unwrap()
}

/// The reported bug: `colony chat` against an endless chunked body grew to 3.66 GB in 7 s. Now
/// it fails at the default 16 MiB with one line naming the limit, after a single request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colony_chat_stops_an_endless_body_at_the_default_limit() {
    let server = Hostile::start(Mode::EndlessJson).await;
    let args = [
        "chat",
        "--base-url",
        &server.url,
        "--max-retries",
        "4",
        "hi",
    ];
    let (out, took) = colony(args.iter().map(|s| s.to_string()).collect(), Vec::new()).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("exceeds the limit of 16777216 bytes"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
}

/// `max_body_bytes` from `models.toml` applies to `colony chat`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colony_chat_honours_max_body_bytes_from_models_toml() {
    let server = Hostile::start(Mode::EndlessSse).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("models.toml");
    std::fs::write(
        &path,
        format!(
            "[models.hostile]\nbase_url = \"{}\"\nmax_body_bytes = 65536\n",
            server.url
        ),
    )
    .unwrap();
    let args = vec![
        "--models-config".to_string(),
        path.display().to_string(),
        "chat".into(),
        "--model".into(),
        "hostile".into(),
        "hi".into(),
    ];
    let (out, _) = colony(args, Vec::new()).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("exceeds the limit of 65536 bytes"),
        "{stderr}"
    );
    server.wait_closed().await;
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
}

// ---------------------------------------------------------------------------------------------
// serve-mock: bounded requests, responses and header reads.

/// A fresh client still gets an answer from `server` (a bad client did not take it down).
async fn assert_still_answers(server: &MockServer) {
    let reply = OpenAiClient::new(
        ClientSettings::new("m"),
        vec![EndpointSettings::new(server.base_url())],
    )
    .unwrap()
    .chat(&hello())
    .await
    .unwrap();
    assert!(!reply.text.is_empty());
}

async fn mock(edit: impl FnOnce(&mut MockServerConfig)) -> MockServer {
    let mut cfg = MockServerConfig::new(Arc::new(SimulatedModel::new(SimulatedConfig::default())));
    edit(&mut cfg);
    MockServer::start(cfg).await.unwrap()
}

async fn post(url: &str, body: Vec<u8>) -> (u16, Value, usize) {
    let resp = colony::llm::http::client()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let bytes = resp.bytes().await.unwrap();
    let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, value, bytes.len())
}

fn embeddings_body(n: usize) -> Vec<u8> {
    let input: Vec<&str> = vec!["a"; n];
    serde_json::to_vec(&json!({"model": "m", "input": input})).unwrap()
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or_default()
}

fn error_message(v: &Value) -> &str {
    v["error"]["message"].as_str().unwrap_or_default()
}

/// The reported bug: 410,000 one-letter inputs (a 1.6 MB request) made an 866 MB response. Now
/// more than 2,048 inputs get a small 400 naming the limit; 2,048 are still answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embeddings_inputs_are_capped_at_2048() {
    let server = mock(|_| {}).await;
    let url = format!("{}/embeddings", server.base_url());
    let (status, v, len) = post(&url, embeddings_body(410_000)).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(error_code(&v), "too_many_inputs", "{v}");
    assert!(error_message(&v).contains("2048"), "{v}");
    assert!(error_message(&v).contains("410000"), "{v}");
    assert!(len < 1024, "{len}");
    let (status, v, _) = post(&url, embeddings_body(2049)).await;
    assert_eq!((status, error_code(&v)), (400, "too_many_inputs"), "{v}");
    let (status, v, len) = post(&url, embeddings_body(2048)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["data"].as_array().unwrap().len(), 2048);
    assert!(len <= 16 << 20, "{len}");
    server.shutdown().await;
}

/// The response size is capped: a request whose answer would exceed `max_response_bytes` gets
/// a 400 naming the limit (and a small one still works).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embeddings_response_size_is_capped() {
    let server = mock(|c| c.max_response_bytes = 100_000).await;
    let url = format!("{}/embeddings", server.base_url());
    let (status, v, len) = post(&url, embeddings_body(200)).await;
    assert_eq!((status, error_code(&v)), (400, "response_too_large"), "{v}");
    assert!(error_message(&v).contains("100000"), "{v}");
    assert!(len < 1024, "{len}");
    let (status, v, len) = post(&url, embeddings_body(2)).await;
    assert_eq!(status, 200, "{v}");
    assert!(len <= 100_000);
    server.shutdown().await;
}

/// Request bodies over the limit (default 2 MiB) get an OpenAI-style 413 on both model routes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_request_bodies_get_413() {
    let server = mock(|_| {}).await;
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(3 << 20)}]});
    for route in ["chat/completions", "embeddings"] {
        let url = format!("{}/{route}", server.base_url());
        let (status, v, _) = post(&url, serde_json::to_vec(&big).unwrap()).await;
        assert_eq!(status, 413, "{route}: {v}");
        assert_eq!(error_code(&v), "request_too_large", "{v}");
        assert!(error_message(&v).contains("2097152"), "{v}");
    }
    // Just under the limit is parsed (and answered) normally.
    let ok = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(1 << 20)}]});
    let url = format!("{}/chat/completions", server.base_url());
    let (status, v, _) = post(&url, serde_json::to_vec(&ok).unwrap()).await;
    assert_eq!(status, 200, "{v}");
    server.shutdown().await;
}

/// A chunked request body (no `Content-Length`) is cut off at the limit too, while it streams.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunked_request_bodies_are_limited_while_streaming() {
    let server = mock(|c| c.max_request_bytes = 64 * 1024).await;
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
        server.addr()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let (mut rd, mut wr) = s.into_split();
    // Keep sending (up to 80 MB) while reading: the server must answer before the body ends.
    let writer = tokio::spawn(async move {
        let frame = chunk(&[b' '; 8192]);
        for _ in 0..10_000 {
            if wr.write_all(&frame).await.is_err() {
                break;
            }
        }
    });
    let mut reply = Vec::new();
    let read = async {
        let mut tmp = [0u8; 4096];
        while !reply.ends_with(b"}}") {
            match rd.read(&mut tmp).await {
                Ok(0) | Err(_) => break,
                Ok(n) => reply.extend_from_slice(&tmp[..n]),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("no answer while the body was still streaming");
    writer.abort();
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(
        reply.contains("request_too_large") && reply.contains("65536"),
        "{reply}"
    );
    server.shutdown().await;
}

/// Sends a request line and then one header byte every 100 ms, forever; returns how long the
/// server let the connection live (reading EOF or an error), or `None` within `patience`.
async fn trickle_headers(addr: std::net::SocketAddr, patience: Duration) -> Option<Duration> {
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nx-slow: ")
        .await
        .unwrap();
    let (mut rd, mut wr) = s.split();
    let closed = async {
        let mut tmp = [0u8; 1024];
        loop {
            match rd.read(&mut tmp).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {} // hyper may answer 408 before closing.
            }
        }
    };
    let trickle = async {
        loop {
            if wr.write_all(b"a").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let done = async {
        tokio::select! {
            _ = closed => {}
            _ = trickle => {}
        }
    };
    tokio::time::timeout(patience, done)
        .await
        .ok()
        .map(|()| t.elapsed())
}

/// A client that sends its headers byte by byte is disconnected after the header-read timeout,
/// while a normal request on the same server still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_header_clients_are_dropped() {
    let server = mock(|c| c.header_read_timeout = Some(Duration::from_secs(1))).await;
    let took = trickle_headers(server.addr(), Duration::from_secs(8))
        .await
        .expect("the slow client was never disconnected");
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert_still_answers(&server).await;
    assert_eq!(
        MockServerConfig::new(Arc::new(SimulatedModel::new(SimulatedConfig::default())))
            .header_read_timeout,
        Some(Duration::from_secs(10))
    );
    server.shutdown().await;
}

/// `colony serve-mock` applies the default 10 s header-read timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_mock_drops_slow_header_clients_after_ten_seconds() {
    let mock = common::Mock::start(&["--port", "0"], &[]);
    let addr: std::net::SocketAddr = mock
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .parse()
        .unwrap();
    let took = trickle_headers(addr, Duration::from_secs(30))
        .await
        .expect("the slow client was never disconnected");
    assert!(
        took >= Duration::from_secs(9) && took < Duration::from_secs(20),
        "{took:?}"
    );
}

/// A credential written into `--base-url` (userinfo or `?api_key=`) is never echoed, and a
/// query string does not break URL joining (`…/v1?api_key=X/chat/completions`).
#[test]
fn credentials_in_base_urls_are_redacted_and_queries_join_properly() {
    let m = common::Mock::start(&[], &[]);
    let port = m
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1");
    let with_secret = format!("http://alice:pw-SECRET1@127.0.0.1:{port}/v1?api_key=SECRET2");
    let (ok, _, err) = common::colony(&[
        "chat",
        "--base-url",
        &with_secret,
        "--model",
        "sim",
        "hello",
    ]);
    assert!(ok, "{err}");
    // A closed port: the error names the endpoint without its credentials.
    let dead = "http://alice:pw-SECRET1@127.0.0.1:9/v1?api_key=SECRET2";
    let (ok, _, err) = common::colony(&[
        "chat",
        "--base-url",
        dead,
        "--model",
        "sim",
        "--max-retries",
        "0",
        "hello",
    ]);
    assert!(!ok);
    assert!(err.contains("127.0.0.1:9"), "{err}");
    assert!(
        !err.contains("SECRET1") && !err.contains("SECRET2") && !err.contains("alice"),
        "{err}"
    );
}

/// A client that declares a huge body and then stalls is answered and
/// disconnected once the header-read timeout has passed (the body must arrive within it too),
/// so stalled bodies cannot hold connections forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_request_bodies_are_dropped() {
    let server = mock(|c| c.header_read_timeout = Some(Duration::from_secs(1))).await;
    let mut s = TcpStream::connect(server.addr()).await.unwrap();
    s.write_all(
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n{",
    )
    .await
    .unwrap();
    let mut answer = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut answer)).await;
    assert!(closed.is_ok(), "the stalled client was never disconnected");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.is_empty() || text.starts_with("HTTP/1.1 4"), "{text}");
    assert_still_answers(&server).await;
    server.shutdown().await;
}
