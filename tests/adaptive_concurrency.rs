//! Adaptive per-endpoint concurrency against `colony serve-mock --fail-429`: the client's limit
//! drops under 429s (and the server sees fewer requests at once), every call still completes,
//! and the limit grows back to `max_concurrency` once the 429s stop.
//!
//! The 429-free phase restarts `serve-mock` on the same port without faults (the mock has no
//! runtime fault switch), so the same client and endpoint carry through both phases. No timing
//! assertions: only counts, limits and concurrency.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use colony::llm::{
    endpoint_gauges, ChatModel, ChatRequest, ClientSettings, EndpointGauge, EndpointSettings,
    Message, OpenAiClient, RetryPolicy,
};
use common::Mock;
use serde_json::Value;

const MAX: usize = 16;

fn client(url: &str) -> Arc<OpenAiClient> {
    let mut s = ClientSettings::new("sim");
    s.retry = RetryPolicy {
        max_retries: 60,
        base: Duration::from_millis(1),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_millis(20),
    };
    s.request_timeout = Duration::from_secs(20);
    s.deadline = Some(Duration::from_secs(240));
    let ep = EndpointSettings {
        max_concurrency: MAX,
        ..EndpointSettings::new(url)
    };
    Arc::new(OpenAiClient::new(s, vec![ep]).unwrap())
}

/// This test's endpoint among the process's gauges.
fn gauge(url: &str) -> EndpointGauge {
    let mine: Vec<_> = endpoint_gauges()
        .into_iter()
        .filter(|g| g.base_url == url)
        .collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    mine.into_iter().next().unwrap()
}

/// Lowest limit and highest client-side in-flight count seen by a sampler, while it runs.
struct Sampler {
    stop: Arc<AtomicBool>,
    min_limit: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Sampler {
    fn start(url: &str) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let min_limit = Arc::new(AtomicUsize::new(usize::MAX));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let task = {
            let (stop, min_limit, max_in_flight) =
                (stop.clone(), min_limit.clone(), max_in_flight.clone());
            let url = url.to_string();
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let g = gauge(&url);
                    assert!(
                        (1..=g.max).contains(&g.limit) && g.max == MAX,
                        "limit out of range: {g:?}"
                    );
                    min_limit.fetch_min(g.limit, Ordering::Relaxed);
                    max_in_flight.fetch_max(g.in_flight, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        };
        Sampler {
            stop,
            min_limit,
            max_in_flight,
            task,
        }
    }

    /// Stops sampling: (lowest limit, highest in-flight).
    async fn finish(self) -> (usize, usize) {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.unwrap();
        (
            self.min_limit.load(Ordering::Relaxed),
            self.max_in_flight.load(Ordering::Relaxed),
        )
    }
}

/// `n` concurrent chat calls; panics unless every one succeeds. Returns the retries made.
async fn burst(client: &Arc<OpenAiClient>, n: usize, tag: &str) -> u64 {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let c = client.clone();
            let prompt = format!("{tag} request {i}: say something.");
            tokio::spawn(
                async move { c.chat(&ChatRequest::new(vec![Message::user(prompt)])).await },
            )
        })
        .collect();
    let mut retries = 0;
    for (i, t) in tasks.into_iter().enumerate() {
        let reply = t.await.unwrap();
        let reply = reply.unwrap_or_else(|e| panic!("{tag} call {i} failed: {e}"));
        retries += u64::from(reply.retries);
    }
    retries
}

async fn mock_stats(http: &reqwest::Client, url: &str) -> Value {
    let resp = http.get(format!("{url}/mock/stats")).send().await.unwrap();
    resp.json().await.unwrap()
}

async fn mock_reset(http: &reqwest::Client, url: &str) {
    let resp = http.post(format!("{url}/mock/reset")).send().await.unwrap();
    assert!(resp.status().is_success(), "{}", resp.status());
}

fn count(stats: &Value, key: &str) -> u64 {
    stats[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} in {stats}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_drops_under_429s_and_recovers() {
    let faulty = Mock::start(
        &[
            "--fail-429",
            "0.3",
            "--retry-after-ms",
            "5",
            "--latency-ms",
            "10",
            "--seed",
            "3",
        ],
        &[],
    );
    let url = faulty.url.clone();
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .to_string();
    let http = colony::llm::http::client().unwrap();
    let client = client(&url);
    assert_eq!(
        gauge(&url),
        EndpointGauge {
            base_url: url.clone(),
            limit: MAX,
            max: MAX,
            in_flight: 0
        }
    );

    // Phase 1: 429s from the start. The limit is cut below the maximum, yet every call ends
    // well after retries.
    let sampler = Sampler::start(&url);
    let retries = burst(&client, 200, "first").await;
    let (min_limit, _) = sampler.finish().await;
    let st = mock_stats(&http, &url).await;
    assert!(count(&st, "rate_limited") > 0, "no 429 injected: {st}");
    assert!(
        retries >= count(&st, "rate_limited"),
        "{retries} retries, {st}"
    );
    assert!(min_limit < MAX, "limit never dropped below {MAX}");
    assert!(count(&st, "max_in_flight") <= MAX as u64, "{st}");
    assert_eq!(count(&st, "completed_ok"), 200, "{st}");

    // Phase 2: still 429s, the client already throttled. The server never sees the configured
    // width again: the limit cannot climb back while a third of the answers are 429s.
    mock_reset(&http, &url).await;
    let sampler = Sampler::start(&url);
    burst(&client, 200, "second").await;
    let (_, client_peak_throttled) = sampler.finish().await;
    let st = mock_stats(&http, &url).await;
    let server_peak_throttled = count(&st, "max_in_flight");
    assert!(count(&st, "rate_limited") > 0, "{st}");
    assert_eq!(count(&st, "completed_ok"), 200, "{st}");
    assert!(
        server_peak_throttled < MAX as u64,
        "server saw {server_peak_throttled} in flight under 429s (max {MAX})"
    );
    assert!(client_peak_throttled < MAX, "{client_peak_throttled}");
    let throttled = gauge(&url);
    assert!(throttled.limit < MAX, "{throttled:?}");
    assert_eq!(throttled.in_flight, 0);

    // Phase 3: the same port, no faults. Successes widen the limit by one per window until it
    // is back at the maximum, never beyond.
    drop(faulty);
    let clean = Mock::start(&["--port", &port, "--latency-ms", "10"], &[]);
    assert_eq!(clean.url, url);
    let mut rounds = 0;
    while gauge(&url).limit < MAX {
        rounds += 1;
        assert!(rounds <= 10, "limit stuck at {:?}", gauge(&url));
        burst(&client, 100, &format!("recovery {rounds}")).await;
    }
    assert_eq!(gauge(&url).limit, MAX);

    // At the full width again, the server sees more requests at once than under 429s.
    mock_reset(&http, &url).await;
    burst(&client, 100, "recovered").await;
    let st = mock_stats(&http, &url).await;
    assert_eq!(count(&st, "completed_ok"), 100, "{st}");
    assert_eq!(count(&st, "rate_limited"), 0, "{st}");
    let server_peak_recovered = count(&st, "max_in_flight");
    assert!(
        server_peak_recovered > server_peak_throttled && server_peak_recovered <= MAX as u64,
        "in flight: {server_peak_throttled} under 429s, {server_peak_recovered} after"
    );
    eprintln!(
        "lowest limit {min_limit}; in flight under 429s: server {server_peak_throttled}, \
         client {client_peak_throttled}; recovered after {rounds} round(s): server {server_peak_recovered}"
    );
    let end = gauge(&url);
    assert_eq!((end.limit, end.max, end.in_flight), (MAX, MAX, 0));
}
