//! `colony bench endpoint`: throughput of a real OpenAI-compatible server through colony's
//! client stack against the same server driven by the thinnest possible client, side by side
//! in one run (one JSON line).
//!
//! The baseline ("the server alone") posts a fixed JSON body with plain `reqwest` and reads
//! only `usage`; the colony side sends the same requests through [`OpenAiClient`] (request
//! building, per-endpoint concurrency limit, retries, deadline, body limits, response
//! parsing). Both run at the same concurrency with greedy decoding and a fixed seed, in
//! alternating rounds (baseline, colony, baseline, colony, …) so a drift in the machine's load
//! hits both; both sides send the same prompts (so greedy decoding generates the same tokens)
//! and who goes first alternates per round, so the server's prompt cache favours neither. The figure that matters is the ratio: colony's calls/s
//! and generated tokens/s over the server's own at that concurrency.

use std::time::Instant;

use crate::llm::{ChatModel, ChatRequest, Message, Sampling};
use anyhow::Context;
use clap::Args;
use futures::stream::{self, StreamExt};
use serde_json::json;

/// Arguments of `colony bench endpoint`.
#[derive(Args, Debug)]
pub struct EndpointBench {
    /// Base URL of the server, e.g. http://127.0.0.1:18099/v1.
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// Model name sent to the server.
    #[arg(long)]
    pub model: String,
    /// Calls per side per round.
    #[arg(long, default_value_t = 8)]
    pub calls: usize,
    /// Rounds; each runs the same calls both ways, the first side alternating (use an even number).
    #[arg(long, default_value_t = 2)]
    pub rounds: usize,
    /// Calls in flight at once, on both sides (match the server's parallel slots).
    #[arg(long, default_value_t = 2, value_parser = crate::cli::model_args::parse_in_flight)]
    pub concurrency: usize,
    /// Completion-token limit of every call.
    #[arg(long, default_value_t = 32)]
    pub max_tokens: u32,
}

/// Totals of one side.
#[derive(Default)]
struct Side {
    calls: usize,
    errors: usize,
    completion_tokens: u64,
    wall_s: f64,
}

impl Side {
    fn json(&self) -> serde_json::Value {
        json!({
            "calls": self.calls,
            "errors": self.errors,
            "completion_tokens": self.completion_tokens,
            "wall_s": self.wall_s,
            "calls_per_s": self.calls as f64 / self.wall_s.max(1e-9),
            "tokens_per_s": self.completion_tokens as f64 / self.wall_s.max(1e-9),
        })
    }
}

/// A prompt distinct from every other call's from its first token.
fn prompt(i: usize) -> String {
    format!("{i}. In one sentence, say something true about the number {i}.")
}

/// Runs `colony bench endpoint`.
pub async fn run(a: EndpointBench) -> anyhow::Result<()> {
    anyhow::ensure!(
        a.calls > 0 && a.rounds > 0 && a.concurrency > 0 && a.max_tokens > 0,
        "--calls, --rounds, --concurrency and --max-tokens must be positive"
    );
    let url = format!("{}/chat/completions", a.base_url.trim_end_matches('/'));
    let raw = crate::llm::http::client()?;
    let client = super::bench::bench_client(&a.model, &a.base_url, a.concurrency)?;
    let sampling = Sampling {
        temperature: Some(0.0),
        max_tokens: Some(a.max_tokens),
        seed: Some(1),
        ..Sampling::default()
    };

    // One call each way first, so connection set-up and model warm-up are not measured.
    let warm = ChatRequest::new(vec![Message::user(prompt(0))]).with_sampling(sampling.clone());
    client.chat(&warm).await.context("warm-up call")?;

    let (mut server, mut colony) = (Side::default(), Side::default());
    for round in 0..a.rounds {
        let ids: Vec<usize> = (1 + round * a.calls..1 + (round + 1) * a.calls).collect();
        // Both sides send the same prompts; who goes first alternates, so the server's
        // prompt cache favours each side equally over an even number of rounds.
        for colony_turn in [round % 2 == 1, round % 2 == 0] {
            let t = Instant::now();
            let results: Vec<Option<u64>> = if colony_turn {
                stream::iter(ids.clone())
                    .map(|i| {
                        let client = client.clone();
                        let req = ChatRequest::new(vec![Message::user(prompt(i))])
                            .with_sampling(sampling.clone());
                        async move {
                            client
                                .chat(&req)
                                .await
                                .ok()
                                .map(|r| r.usage.completion_tokens)
                        }
                    })
                    .buffer_unordered(a.concurrency)
                    .collect()
                    .await
            } else {
                stream::iter(ids.clone())
                    .map(|i| {
                        let body = json!({
                            "model": a.model,
                            "messages": [{"role": "user", "content": prompt(i)}],
                            "max_tokens": a.max_tokens,
                            "temperature": 0.0,
                            "seed": 1,
                        });
                        let (raw, url) = (&raw, &url);
                        async move {
                            let r = raw.post(url).json(&body).send().await.ok()?;
                            let v: serde_json::Value = r.json().await.ok()?;
                            v["usage"]["completion_tokens"].as_u64()
                        }
                    })
                    .buffer_unordered(a.concurrency)
                    .collect()
                    .await
            };
            let side = if colony_turn {
                &mut colony
            } else {
                &mut server
            };
            side.wall_s += t.elapsed().as_secs_f64();
            tally(side, &results);
        }
    }
    let ratio = |f: fn(&Side) -> f64| f(&colony) / f(&server).max(1e-12);
    let line = json!({
        "bench": "endpoint",
        "model": a.model,
        "concurrency": a.concurrency,
        "max_tokens": a.max_tokens,
        "rounds": a.rounds,
        "server_alone": server.json(),
        "through_colony": colony.json(),
        "calls_per_s_ratio": ratio(|s| s.calls as f64 / s.wall_s.max(1e-9)),
        "tokens_per_s_ratio": ratio(|s| s.completion_tokens as f64 / s.wall_s.max(1e-9)),
    });
    println!("{line}");
    anyhow::ensure!(
        server.errors == 0 && colony.errors == 0,
        "{} baseline and {} colony calls failed",
        server.errors,
        colony.errors
    );
    Ok(())
}

fn tally(side: &mut Side, results: &[Option<u64>]) {
    for r in results {
        side.calls += 1;
        match r {
            Some(t) => side.completion_tokens += t,
            None => side.errors += 1,
        }
    }
}
