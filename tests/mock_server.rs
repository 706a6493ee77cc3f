//! The mock server over real HTTP on loopback: OpenAI response shapes, streaming, embeddings,
//! auth and validation errors; the fault tests are in `mock_server/faults.rs`. Uses `reqwest`
//! directly, not colony's client.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use colony::llm::{SharedModel, SimulatedConfig, SimulatedModel};
use colony::mock_server::{FaultConfig, MockServer, MockServerConfig, MockStats};
use serde_json::{json, Value};

#[path = "mock_server/faults.rs"]
mod faults;

fn sim() -> SharedModel {
    Arc::new(SimulatedModel::new(SimulatedConfig::default()))
}

async fn start_with(faults: FaultConfig) -> MockServer {
    let mut config = MockServerConfig::new(sim());
    config.faults = faults;
    MockServer::start(config).await.unwrap()
}

async fn start() -> MockServer {
    start_with(FaultConfig::default()).await
}

/// A server whose faults are the defaults changed by `set`.
async fn start_faulty(set: impl FnOnce(&mut FaultConfig)) -> MockServer {
    let mut faults = FaultConfig::default();
    set(&mut faults);
    start_with(faults).await
}

fn client() -> reqwest::Client {
    colony::llm::http::client_builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn chat_body(question: &str) -> Value {
    json!({
        "model": "sim",
        "messages": [
            {"role": "system", "content": "You are a careful solver."},
            {"role": "user", "content": question}
        ],
        "temperature": 0.7
    })
}

async fn post(server: &MockServer, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}{path}", server.base_url()))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// `body`'s JSON reply from `path`.
async fn post_json(server: &MockServer, path: &str, body: &Value) -> Value {
    post(server, path, body).await.json().await.unwrap()
}

/// `body` posted to `path` with `key` as the bearer token.
async fn post_with_key(
    server: &MockServer,
    path: &str,
    body: &Value,
    key: &str,
) -> reqwest::Response {
    client()
        .post(format!("{}{path}", server.base_url()))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// A GET of `path`.
async fn get(server: &MockServer, path: &str) -> reqwest::Response {
    client()
        .get(format!("{}{path}", server.base_url()))
        .send()
        .await
        .unwrap()
}

/// The JSON reply of a GET of `path`.
async fn get_json<T: serde::de::DeserializeOwned>(server: &MockServer, path: &str) -> T {
    get(server, path).await.json().await.unwrap()
}

/// The `data:` payloads of the SSE reply to `body` from `path`.
async fn post_sse(server: &MockServer, path: &str, body: &Value) -> Vec<String> {
    sse_data(&post(server, path, body).await.text().await.unwrap())
}

/// Parses an SSE body into its `data:` payloads.
fn sse_data(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            e.strip_prefix("data: ")
                .unwrap_or_else(|| panic!("not a data event: {e:?}"))
                .to_string()
        })
        .collect()
}

#[tokio::test]
async fn chat_completion_has_the_openai_shape() {
    let server = start().await;
    let resp = post(&server, "/chat/completions", &chat_body("What is 2 + 3?")).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    let v: Value = resp.json().await.unwrap();
    assert!(v["id"].as_str().unwrap().starts_with("chatcmpl-"), "{v}");
    assert_eq!(v["object"], "chat.completion");
    assert!(v["created"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(v["model"], "sim");
    assert_eq!(v["choices"][0]["index"], 0);
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert!(!v["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .is_empty());
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    let u = &v["usage"];
    let (p, c) = (
        u["prompt_tokens"].as_u64().unwrap(),
        u["completion_tokens"].as_u64().unwrap(),
    );
    assert!(p > 0 && c > 0);
    assert_eq!(u["total_tokens"].as_u64().unwrap(), p + c);
    let s = server.stats();
    assert_eq!((s.requests, s.chat_requests, s.completed_ok), (1, 1, 1));
    assert_eq!((s.prompt_tokens, s.completion_tokens), (p, c));
    server.shutdown().await;
}

#[tokio::test]
async fn streaming_reassembles_to_the_non_streaming_text() {
    let server = start().await;
    let body = chat_body("Name three primes.");
    let plain = post_json(&server, "/chat/completions", &body).await;
    let text = plain["choices"][0]["message"]["content"].as_str().unwrap();

    let mut streaming = body.clone();
    streaming["stream"] = json!(true);
    streaming["stream_options"] = json!({"include_usage": true});
    let resp = post(&server, "/chat/completions", &streaming).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let data = sse_data(&resp.text().await.unwrap());
    assert_eq!(data.last().unwrap(), "[DONE]");
    let chunks: Vec<Value> = data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert!(
        chunks.len() >= 4,
        "role chunk, content chunk(s), usage chunk: {chunks:?}"
    );
    assert!(chunks
        .iter()
        .all(|c| c["object"] == "chat.completion.chunk"));
    assert!(chunks.iter().all(|c| c["id"] == chunks[0]["id"]));
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let usage_chunk = chunks.last().unwrap();
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(usage_chunk["usage"], plain["usage"]);
    let content_chunks = &chunks[..chunks.len() - 1];
    let reassembled: String = content_chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(reassembled, text);
    let finishes: Vec<&Value> = content_chunks
        .iter()
        .map(|c| &c["choices"][0]["finish_reason"])
        .collect();
    assert_eq!(*finishes.last().unwrap(), "stop");
    assert!(finishes[..finishes.len() - 1].iter().all(|f| f.is_null()));

    // Without include_usage: no usage chunk, still [DONE].
    streaming["stream_options"] = json!({"include_usage": false});
    let data = post_sse(&server, "/chat/completions", &streaming).await;
    assert_eq!(data.last().unwrap(), "[DONE]");
    assert!(data[..data.len() - 1]
        .iter()
        .all(|d| !d.contains("\"usage\"")));
    server.shutdown().await;
}

#[tokio::test]
async fn models_lists_the_backing_model_or_the_served_names() {
    let server = start().await;
    let v: Value = get_json(&server, "/models").await;
    assert_eq!(v["object"], "list");
    assert_eq!(v["data"][0]["id"], "sim");
    assert_eq!(v["data"][0]["object"], "model");
    server.shutdown().await;

    let mut config = MockServerConfig::new(sim());
    config.served_models = vec!["llama-3-8b".into(), "qwen-7b".into()];
    let server = MockServer::start(config).await.unwrap();
    let v: Value = get_json(&server, "/models").await;
    let ids: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["llama-3-8b", "qwen-7b"]);
    let resp = post(
        &server,
        "/chat/completions",
        &json!({"model": "qwen-7b", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(resp.status(), 200);
    let resp = post(
        &server,
        "/chat/completions",
        &json!({"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(resp.status(), 404);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
    assert_eq!(v["error"]["code"], "model_not_found");
    assert!(v["error"]["message"].as_str().unwrap().contains("gpt-9"));
    assert_eq!(server.stats().client_errors, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn embeddings_float_and_base64_decode_to_the_same_unit_vectors() {
    let server = start().await;
    let input = json!(["The cat sits outside", "The answer is 42."]);
    let float = post_json(
        &server,
        "/embeddings",
        &json!({"model": "emb", "input": input}),
    )
    .await;
    let b64 = post_json(
        &server,
        "/embeddings",
        &json!({"model": "emb", "input": input, "encoding_format": "base64"}),
    )
    .await;
    assert_eq!(float["object"], "list");
    assert_eq!(float["model"], "emb");
    assert_eq!(float["data"].as_array().unwrap().len(), 2);
    for i in 0..2 {
        let f: Vec<f32> = float["data"][i]["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64["data"][i]["embedding"].as_str().unwrap())
            .unwrap();
        let d: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(f.len(), 512);
        assert_eq!(f, d);
        let norm: f32 = f.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        assert_eq!(float["data"][i]["index"], i);
        assert_eq!(float["data"][i]["object"], "embedding");
    }
    assert_ne!(float["data"][0]["embedding"], float["data"][1]["embedding"]);
    let tokens = float["usage"]["prompt_tokens"].as_u64().unwrap();
    assert_eq!(
        tokens,
        colony::llm::approx_tokens("The cat sits outside")
            + colony::llm::approx_tokens("The answer is 42.")
    );
    assert_eq!(float["usage"]["total_tokens"].as_u64().unwrap(), tokens);

    // A single string is one vector.
    let one = post_json(
        &server,
        "/embeddings",
        &json!({"model": "emb", "input": "hello"}),
    )
    .await;
    assert_eq!(one["data"].as_array().unwrap().len(), 1);
    let s = server.stats();
    assert_eq!(
        (s.embedding_requests, s.completed_ok, s.prompt_tokens),
        (3, 3, 0)
    );
    assert_eq!(
        s.embedding_tokens,
        2 * tokens + colony::llm::approx_tokens("hello")
    );

    let bad = post(
        &server,
        "/embeddings",
        &json!({"model": "emb", "input": "x", "encoding_format": "int8"}),
    )
    .await;
    assert_eq!(bad.status(), 400);
    let bad = post(&server, "/embeddings", &json!({"model": "emb", "input": 5})).await;
    assert_eq!(bad.status(), 400);
    let v: Value = bad.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("`input`"),
        "{v}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn api_key_is_required_when_configured() {
    let mut config = MockServerConfig::new(sim());
    config.required_api_key = Some("sk-secret".into());
    let server = MockServer::start(config).await.unwrap();
    let body = chat_body("hi");
    let resp = post(&server, "/chat/completions", &body).await;
    assert_eq!(resp.status(), 401);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
    assert!(v["error"]["message"].as_str().unwrap().contains("API key"));
    for (key, status) in [("sk-wrong", 401), ("sk-secret", 200)] {
        let resp = post_with_key(&server, "/chat/completions", &body, key).await;
        assert_eq!(resp.status(), status, "{key}");
    }
    assert_eq!(get(&server, "/models").await.status(), 401);
    let resp = post(&server, "/embeddings", &json!({"model": "e", "input": "x"})).await;
    assert_eq!(resp.status(), 401);
    // The control endpoints stay open.
    let stats: MockStats = get_json(&server, "/mock/stats").await;
    assert_eq!(stats.client_errors, 3);
    server.shutdown().await;
}

#[tokio::test]
async fn bad_requests_get_openai_error_json() {
    let server = start().await;
    let url = format!("{}/chat/completions", server.base_url());
    let resp = client()
        .post(&url)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["error"]["type"], "invalid_request_error");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("JSON"),
        "{v}"
    );

    let resp = post(&server, "/chat/completions", &json!({"model": "sim"})).await;
    assert_eq!(resp.status(), 400);
    let v: Value = resp.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("messages"),
        "{v}"
    );

    let resp = post(
        &server,
        "/chat/completions",
        &json!({"model": "sim", "messages": []}),
    )
    .await;
    assert_eq!(resp.status(), 400);

    let resp = get(&server, "/nope").await;
    assert_eq!(resp.status(), 404);
    let v: Value = resp.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("/v1/nope"),
        "{v}"
    );
    let resp = get(&server, "/chat/completions").await;
    assert_eq!(resp.status(), 405);
    assert!(resp.json::<Value>().await.unwrap()["error"]["message"].is_string());
    server.shutdown().await;
}

#[tokio::test]
async fn a_failing_backing_model_gives_500_with_its_message() {
    let model: SharedModel = Arc::new(SimulatedModel::scripted("broken", Vec::new()));
    let server = MockServer::start(MockServerConfig::new(model))
        .await
        .unwrap();
    let resp = post(&server, "/chat/completions", &chat_body("hi")).await;
    assert_eq!(resp.status(), 500);
    let v: Value = resp.json().await.unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no replies"),
        "{v}"
    );
    assert_eq!(server.stats().model_errors, 1);
    server.shutdown().await;
}

#[test]
fn public_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let start = MockServer::start(MockServerConfig::new(sim()));
    assert_send(&start);
    drop(start);
    fn shutdown_is_send(server: MockServer) {
        assert_send(&server.shutdown());
    }
    let _ = shutdown_is_send;
}
