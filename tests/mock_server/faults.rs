//! Injected faults over real HTTP: 429 with both retry headers, 500, dropped connections,
//! malformed bodies, stalls (and shutdown aborting them), latency-induced concurrency, token
//! accounting in the stats, and reproducible fault sequences per seed.

use colony::mock_server::{Fault, LatencySpec};

use super::*;

#[tokio::test]
async fn fail_429_sets_both_retry_headers_on_every_request() {
    let server = start_faulty(|f| {
        f.fail_429 = 1.0;
        f.retry_after_ms = 1500;
    })
    .await;
    for path in ["/chat/completions", "/chat/completions", "/embeddings"] {
        let body = if path == "/embeddings" {
            json!({"model": "e", "input": "x"})
        } else {
            chat_body("hi")
        };
        let resp = post(&server, path, &body).await;
        assert_eq!(resp.status(), 429);
        assert_eq!(resp.headers()["retry-after"], "2");
        assert_eq!(resp.headers()["retry-after-ms"], "1500");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"]["code"], "rate_limit_exceeded");
    }
    let s = server.stats();
    assert_eq!(
        (s.requests, s.rate_limited, s.completed_ok, s.prompt_tokens),
        (3, 3, 0, 0)
    );
    server.shutdown().await;
}

#[tokio::test]
async fn fail_500_answers_server_errors() {
    let server = start_faulty(|f| f.fail_500 = 1.0).await;
    let resp = post(&server, "/chat/completions", &chat_body("hi")).await;
    assert_eq!(resp.status(), 500);
    assert_eq!(
        resp.json::<Value>().await.unwrap()["error"]["type"],
        "server_error"
    );
    assert_eq!(server.stats().server_errors, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn drop_closes_the_connection_without_a_response() {
    let server = start_faulty(|f| f.drop = 1.0).await;
    let c = client();
    for _ in 0..3 {
        let result = c
            .post(format!("{}/chat/completions", server.base_url()))
            .json(&chat_body("hi"))
            .send()
            .await;
        let err = result.expect_err("a dropped connection must not produce a response");
        assert!(!err.is_timeout(), "{err:?}");
    }
    let s = server.stats();
    assert_eq!((s.drops, s.in_flight, s.completed_ok), (3, 0, 0));
    // The server still answers other routes.
    assert_eq!(
        c.get(format!("{}/models", server.base_url()))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    server.shutdown().await;
}

#[tokio::test]
async fn malformed_gives_a_200_body_that_does_not_parse() {
    let server = start_faulty(|f| f.malformed = 1.0).await;
    for body in [
        chat_body("hi"),
        json!({"model": "sim", "stream": true, "messages": [{"role": "user", "content": "hi"}]}),
    ] {
        let resp = post(&server, "/chat/completions", &body).await;
        assert_eq!(resp.status(), 200);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json"));
        let text = resp.text().await.unwrap();
        assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
    }
    let resp = post(&server, "/embeddings", &json!({"model": "e", "input": "x"})).await;
    assert!(serde_json::from_str::<Value>(&resp.text().await.unwrap()).is_err());
    let s = server.stats();
    assert_eq!(
        (
            s.malformed,
            s.completed_ok,
            s.prompt_tokens,
            s.embedding_tokens
        ),
        (3, 0, 0, 0)
    );
    server.shutdown().await;
}

#[tokio::test]
async fn stalls_are_aborted_by_shutdown() {
    let server = start_faulty(|f| f.stall = 1.0).await;
    let url = format!("{}/chat/completions", server.base_url());
    let pending =
        tokio::spawn(async move { client().post(url).json(&chat_body("hi")).send().await });
    for _ in 0..200 {
        if server.stats().in_flight == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let s = server.stats();
    assert_eq!((s.in_flight, s.stalls), (1, 1));
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .expect("shutdown must not wait for stalls");
    let result = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .unwrap()
        .unwrap();
    assert!(
        result.is_err(),
        "the stalled request must fail once the server is gone"
    );
}

#[tokio::test]
async fn stall_answers_after_stall_for() {
    let server = start_faulty(|f| {
        f.stall = 1.0;
        f.stall_for = Duration::from_millis(200);
    })
    .await;
    let t0 = std::time::Instant::now();
    let resp = post(&server, "/chat/completions", &chat_body("hi")).await;
    assert_eq!(resp.status(), 200);
    assert!(t0.elapsed() >= Duration::from_millis(200));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_overlap_during_latency() {
    let server = start_faulty(|f| f.latency = LatencySpec::fixed(300)).await;
    let c = client();
    let calls = (0..6).map(|i| {
        let c = c.clone();
        let url = format!("{}/chat/completions", server.base_url());
        async move {
            c.post(url)
                .json(&chat_body(&format!("question {i}")))
                .send()
                .await
                .unwrap()
                .status()
        }
    });
    let statuses = futures::future::join_all(calls).await;
    assert!(statuses.iter().all(|s| *s == 200));
    let s = server.stats();
    assert!(s.max_in_flight > 1, "max_in_flight = {}", s.max_in_flight);
    assert_eq!((s.in_flight, s.completed_ok), (0, 6));
    server.shutdown().await;
}

#[tokio::test]
async fn stats_token_sums_equal_the_usage_served_and_reset_over_http() {
    let server = start().await;
    let (mut prompt, mut completion) = (0, 0);
    for i in 0..4 {
        let mut body = chat_body(&format!("What is {i} squared?"));
        if i % 2 == 1 {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
            let data = post_sse(&server, "/chat/completions", &body).await;
            let usage: Value = serde_json::from_str(&data[data.len() - 2]).unwrap();
            prompt += usage["usage"]["prompt_tokens"].as_u64().unwrap();
            completion += usage["usage"]["completion_tokens"].as_u64().unwrap();
        } else {
            let v = post_json(&server, "/chat/completions", &body).await;
            prompt += v["usage"]["prompt_tokens"].as_u64().unwrap();
            completion += v["usage"]["completion_tokens"].as_u64().unwrap();
        }
    }
    let s = server.stats();
    assert_eq!(
        (
            s.prompt_tokens,
            s.completion_tokens,
            s.completed_ok,
            s.requests
        ),
        (prompt, completion, 4, 4)
    );
    let over_http: MockStats = get_json(&server, "/mock/stats").await;
    assert_eq!(over_http, s);
    let after: MockStats = client()
        .post(format!("{}/mock/reset", server.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(after, MockStats::default());
    assert_eq!(server.stats(), MockStats::default());
    server.shutdown().await;
}

/// What a client saw for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Ok,
    Status429,
    Status500,
    Dropped,
    Malformed,
}

/// Each of 429, 500, a dropped connection and a malformed body with probability 0.2.
fn mixed_faults(seed: u64) -> FaultConfig {
    FaultConfig {
        fail_429: 0.2,
        fail_500: 0.2,
        drop: 0.2,
        malformed: 0.2,
        seed,
        ..FaultConfig::default()
    }
}

async fn observe_sequence(seed: u64, n: usize) -> Vec<Seen> {
    let server = start_with(mixed_faults(seed)).await;
    let c = client();
    let mut seen = Vec::new();
    for i in 0..n {
        let url = format!("{}/chat/completions", server.base_url());
        let outcome = match c.post(url).json(&chat_body(&format!("q{i}"))).send().await {
            Err(_) => Seen::Dropped,
            Ok(r) if r.status() == 429 => Seen::Status429,
            Ok(r) if r.status() == 500 => Seen::Status500,
            Ok(r) => match serde_json::from_str::<Value>(&r.text().await.unwrap()) {
                Ok(_) => Seen::Ok,
                Err(_) => Seen::Malformed,
            },
        };
        seen.push(outcome);
    }
    server.shutdown().await;
    seen
}

#[tokio::test]
async fn the_same_seed_gives_the_same_fault_sequence() {
    let a = observe_sequence(42, 25).await;
    let b = observe_sequence(42, 25).await;
    assert_eq!(a, b);
    let c = observe_sequence(43, 25).await;
    assert_ne!(a, c, "a different seed should give a different sequence");
    // And it is the sequence `FaultConfig::plan` predicts.
    let faults = mixed_faults(42);
    let predicted: Vec<Seen> = (0..25)
        .map(|i| match faults.plan(i).fault {
            Fault::None | Fault::Stall => Seen::Ok,
            Fault::RateLimit => Seen::Status429,
            Fault::ServerError => Seen::Status500,
            Fault::Drop => Seen::Dropped,
            Fault::Malformed => Seen::Malformed,
        })
        .collect();
    assert_eq!(a, predicted);
    assert!(a.contains(&Seen::Ok) && a.contains(&Seen::Dropped), "{a:?}");
}

#[tokio::test]
async fn invalid_fault_config_is_refused_at_start() {
    let mut config = MockServerConfig::new(sim());
    config.faults.drop = 2.0;
    let err = MockServer::start(config).await.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("drop"), "{err}");
}
