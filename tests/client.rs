//! The OpenAI-compatible client against `serve-mock` on loopback, with injected faults.
//!
//! Timing appears only as bounds that prove behaviour (a Retry-After wait happened; a stall
//! did not hang past its deadline by an order of magnitude), never as speed assertions.

// A test crate: helpers fail loudly on anything unexpected.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use colony::llm::{
    AnswerKey, ChatModel, ChatRequest, ClientSettings, EndpointSettings, Message, ModelError,
    OpenAiClient, ReplayModel, RetryPolicy, SharedModel, SimulatedConfig, SimulatedModel,
    UsageLedger,
};
use colony::mock_server::{FaultConfig, LatencySpec, MockServer, MockServerConfig};
use colony::runtime::{AgentSpec, RoleCard, Team};
use futures::future::join_all;

fn sim() -> SharedModel {
    let mut key = AnswerKey::new();
    key.insert("What is 6 times 7?", "42");
    key.insert("What is 10 minus 3?", "7");
    Arc::new(SimulatedModel::new(SimulatedConfig {
        answer_key: key,
        seed: 5,
        ..SimulatedConfig::default()
    }))
}

async fn server(faults: FaultConfig) -> MockServer {
    let mut cfg = MockServerConfig::new(sim());
    cfg.faults = faults;
    MockServer::start(cfg).await.unwrap()
}

fn fast_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        base: Duration::from_millis(1),
        max_backoff: Duration::from_millis(10),
        ..RetryPolicy::default()
    }
}

fn client_for(urls: &[String], max_retries: u32, max_concurrency: usize) -> OpenAiClient {
    let mut s = ClientSettings::new("sim");
    s.retry = fast_retries(max_retries);
    s.request_timeout = Duration::from_secs(10);
    s.deadline = Some(Duration::from_secs(60));
    let eps = urls
        .iter()
        .map(|u| EndpointSettings {
            max_concurrency,
            ..EndpointSettings::new(u)
        })
        .collect();
    OpenAiClient::new(s, eps).unwrap()
}

fn req(i: usize) -> ChatRequest {
    ChatRequest::new(vec![Message::user(format!(
        "Request number {i}: say something."
    ))])
}

#[tokio::test]
async fn succeeds_through_429_500_and_drops() {
    let srv = server(FaultConfig {
        fail_429: 0.1,
        retry_after_ms: 5,
        fail_500: 0.1,
        drop: 0.1,
        seed: 1,
        ..FaultConfig::default()
    })
    .await;
    let client = Arc::new(client_for(&[srv.base_url()], 12, 16));
    let calls = (0..200).map(|i| {
        let c = client.clone();
        async move { c.chat(&req(i)).await }
    });
    let results = join_all(calls).await;
    let retries: u64 = results
        .iter()
        .map(|r| u64::from(r.as_ref().unwrap().retries))
        .sum();
    let st = srv.stats();
    assert!(
        st.rate_limited > 0 && st.server_errors > 0 && st.drops > 0,
        "{st:?}"
    );
    // Every injected fault cost exactly one retry, and nothing else did.
    assert_eq!(retries, st.rate_limited + st.server_errors + st.drops);
    assert_eq!(st.completed_ok, 200);
}

#[tokio::test]
async fn waits_as_long_as_retry_after_says() {
    let srv = server(FaultConfig {
        fail_429: 0.5,
        retry_after_ms: 300,
        seed: 3,
        ..FaultConfig::default()
    })
    .await;
    // Backoff alone would wait ≤ 10 ms; Retry-After asks for 300 ms per retry.
    let client = client_for(&[srv.base_url()], 20, 4);
    let mut total_retries = 0;
    for i in 0..30 {
        let t0 = Instant::now();
        let r = client.chat(&req(i)).await.unwrap();
        let elapsed = t0.elapsed();
        assert!(
            elapsed >= Duration::from_millis(300) * r.retries,
            "{} retries took only {elapsed:?}",
            r.retries
        );
        total_retries += r.retries;
        if total_retries >= 2 {
            break;
        }
    }
    assert!(
        total_retries >= 2,
        "the seeded fault plan should have produced 429s"
    );
}

#[tokio::test]
async fn permanent_errors_fail_fast_with_endpoint_and_status() {
    let mut cfg = MockServerConfig::new(sim());
    cfg.required_api_key = Some("sk-right".into());
    cfg.served_models = vec!["sim".into()];
    let srv = MockServer::start(cfg).await.unwrap();
    let url = srv.base_url();

    let client = client_for(std::slice::from_ref(&url), 5, 4);
    let err = client.chat(&req(0)).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Permanent { status: 401, .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains(&url) && msg.contains("401"), "{msg}");
    assert_eq!(srv.stats().chat_requests, 1, "401 must not be retried");

    let mut s = ClientSettings::new("no-such-model");
    s.retry = fast_retries(5);
    let ep = EndpointSettings {
        api_key: Some(colony::llm::ApiKey::new("sk-right")),
        ..EndpointSettings::new(&url)
    };
    let wrong_model = OpenAiClient::new(s, vec![ep.clone()]).unwrap();
    let err = wrong_model.chat(&req(0)).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Permanent { status: 404, .. }),
        "{err:?}"
    );
    assert!(err
        .to_string()
        .contains("check the base URL and the model name"));

    let wrong_path = EndpointSettings {
        base_url: url.replace("/v1", "/v2"),
        ..ep
    };
    let mut s = ClientSettings::new("sim");
    s.retry = fast_retries(5);
    let err = OpenAiClient::new(s, vec![wrong_path])
        .unwrap()
        .chat(&req(0))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404), "{err:?}");
    assert!(
        !err.to_string().contains("try "),
        "a path is there: no /v1 hint: {err}"
    );
    assert_eq!(srv.stats().chat_requests, 2, "404s must not be retried");

    // A bare host (the common mistake): the 404 says to add /v1.
    let host = url.trim_end_matches("/v1").to_string();
    let bare = EndpointSettings {
        base_url: format!("{host}/"),
        ..EndpointSettings::new(&url)
    };
    let mut s = ClientSettings::new("sim");
    s.retry = fast_retries(0);
    let err = OpenAiClient::new(s, vec![bare])
        .unwrap()
        .chat(&req(0))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404), "{err:?}");
    assert!(err.to_string().contains(&format!("try {host}/v1")), "{err}");
}

#[tokio::test]
async fn a_stall_ends_at_the_deadline() {
    let srv = server(FaultConfig {
        stall: 1.0,
        ..FaultConfig::default()
    })
    .await;
    let mut s = ClientSettings::new("sim");
    s.retry = fast_retries(100);
    s.request_timeout = Duration::from_secs(30);
    s.deadline = Some(Duration::from_millis(800));
    let client = OpenAiClient::new(s, vec![EndpointSettings::new(srv.base_url())]).unwrap();
    let t0 = Instant::now();
    let err = client.chat(&req(0)).await.unwrap_err();
    let elapsed = t0.elapsed();
    assert!(
        matches!(err, ModelError::DeadlineExceeded { .. }),
        "{err:?}"
    );
    assert!(elapsed >= Duration::from_millis(800));
    // A hang guard, not a speed test: the stall lasts an hour.
    assert!(elapsed < Duration::from_secs(20), "stalled for {elapsed:?}");

    // With a short per-attempt timeout, each attempt times out and is retried.
    let mut s = ClientSettings::new("sim");
    s.retry = fast_retries(2);
    s.request_timeout = Duration::from_millis(200);
    s.deadline = Some(Duration::from_secs(30));
    let client = OpenAiClient::new(s, vec![EndpointSettings::new(srv.base_url())]).unwrap();
    srv.reset_stats();
    let err = client.chat(&req(1)).await.unwrap_err();
    assert!(matches!(err, ModelError::Timeout { .. }), "{err:?}");
    assert_eq!(srv.stats().stalls, 3);
}

#[tokio::test]
async fn malformed_bodies_are_typed_errors() {
    let srv = server(FaultConfig {
        malformed: 1.0,
        ..FaultConfig::default()
    })
    .await;
    let client = client_for(&[srv.base_url()], 1, 4);
    let err = client.chat(&req(0)).await.unwrap_err();
    match &err {
        ModelError::Malformed { endpoint, .. } => assert_eq!(endpoint, &srv.base_url()),
        other => panic!("expected Malformed, got {other:?}"),
    }
    assert_eq!(
        srv.stats().malformed,
        2,
        "malformed bodies are retried, then reported"
    );
}

#[tokio::test]
async fn concurrency_limit_is_never_exceeded() {
    let srv = server(FaultConfig {
        latency: LatencySpec::fixed(20),
        ..FaultConfig::default()
    })
    .await;
    let client = Arc::new(client_for(&[srv.base_url()], 0, 4));
    let calls = (0..64).map(|i| {
        let c = client.clone();
        async move { c.chat(&req(i)).await.unwrap() }
    });
    join_all(calls).await;
    let st = srv.stats();
    assert_eq!(st.completed_ok, 64);
    assert!(
        st.max_in_flight <= 4,
        "server saw {} in flight",
        st.max_in_flight
    );
    assert!(st.max_in_flight >= 2, "calls did not run concurrently");
}

#[tokio::test]
async fn usage_totals_equal_what_the_server_reported() {
    let srv = server(FaultConfig::default()).await;
    let client = Arc::new(client_for(&[srv.base_url()], 0, 32));
    let ledger = Arc::new(UsageLedger::new());
    let calls = (0..300).map(|i| {
        let (c, l) = (client.clone(), ledger.clone());
        async move {
            let prompt = if i % 3 == 0 {
                "What is 6 times 7?".to_string()
            } else {
                "x".repeat(i)
            };
            let r = c
                .chat(&ChatRequest::new(vec![Message::user(prompt)]))
                .await
                .unwrap();
            l.record(&format!("agent_{}", i % 7), &r);
        }
    });
    join_all(calls).await;
    let report = ledger.report();
    let st = srv.stats();
    assert_eq!(report.run.calls, 300);
    assert_eq!(report.agents.len(), 7);
    assert_eq!(report.run.usage.prompt_tokens, st.prompt_tokens);
    assert_eq!(report.run.usage.completion_tokens, st.completion_tokens);
}

#[tokio::test]
async fn pool_skips_a_dead_endpoint() {
    let live = server(FaultConfig::default()).await;
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let client = client_for(&[dead, live.base_url()], 3, 8);
    let mut retries = 0;
    for i in 0..50 {
        retries += client.chat(&req(i)).await.unwrap().retries;
    }
    assert_eq!(live.stats().completed_ok, 50);
    // Without skipping, about every other call would first hit the dead endpoint.
    assert!(
        retries <= 12,
        "{retries} retries: the dead endpoint was not skipped"
    );
}

async fn team_run(model: SharedModel) -> colony::runtime::Transcript {
    let role = Arc::new(RoleCard::new(
        "solver",
        "Solve the problem. End with 'The answer is X'.",
    ));
    let team = Team::builder()
        .agents((0..4).map(|i| AgentSpec::new(format!("a{i}"), role.clone(), model.clone())))
        .build()
        .unwrap();
    for question in ["What is 6 times 7?", "What is 10 minus 3?"] {
        let asks = (0..4).map(|i| team.ask(format!("a{i}"), question));
        for r in join_all(asks).await {
            r.unwrap();
        }
    }
    let t = team.transcript();
    team.shutdown().await;
    t
}

#[tokio::test]
async fn replay_reproduces_the_transcript_offline() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(FaultConfig {
        latency: LatencySpec::uniform(0, 5).unwrap(),
        ..FaultConfig::default()
    })
    .await;
    let client: SharedModel = Arc::new(client_for(&[srv.base_url()], 0, 8));
    let recorded = team_run(Arc::new(ReplayModel::record(client, dir.path()).unwrap())).await;
    assert_eq!(recorded.calls().count(), 8);
    srv.shutdown().await;

    let replayed = team_run(Arc::new(ReplayModel::replay("sim", dir.path()).unwrap())).await;
    assert_eq!(recorded, replayed);
    assert_eq!(
        serde_json::to_string(&recorded).unwrap(),
        serde_json::to_string(&replayed).unwrap()
    );
}

/// Compile-time check that the public futures can move across threads (tokio's
/// `async_send_sync` idea): this fails to build, not to run, if one stops being `Send`.
#[allow(dead_code)]
fn public_futures_are_send(client: &OpenAiClient, replay: &ReplayModel, r: &ChatRequest) {
    fn is_send<T: Send>(_: T) {}
    is_send(client.chat(r));
    is_send(client.embeddings(&[]));
    is_send(client.check_endpoints());
    is_send(replay.chat(r));
}
