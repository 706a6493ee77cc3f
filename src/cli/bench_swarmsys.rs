//! `colony bench swarmsys`: SwarmSys wall time and calls per item for several team sizes
//! against `serve-mock --latency-ms 100` (spawned, keyed with simulated GSM8K-format items),
//! one JSON line per size, then a Markdown table on stderr. The logic is
//! `crate::study::swarmsys_scaling`.

use std::io::Write;
use std::sync::Arc;

use crate::embed::{Embedder, HashingEmbedder};
use crate::eval::resources::peak_rss_bytes;
use crate::llm::{ClientSettings, EndpointSettings, OpenAiClient, SharedModel};
use crate::study::amplification::simulated_items;
use crate::study::swarmsys_scaling::{markdown, run_size};
use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};

/// Arguments of `colony bench swarmsys`.
#[derive(Args, Debug)]
pub struct SwarmsysBench {
    /// Team sizes A, comma-separated (each `swarmsys:agents=A`).
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32")]
    pub agents: Vec<usize>,
    /// Items per size, solved one at a time.
    #[arg(long, default_value_t = 5)]
    pub items: usize,
    /// Latency of every call of the spawned serve-mock, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub latency_ms: u64,
    /// Accuracy of the spawned serve-mock's simulated model.
    #[arg(long, default_value_t = 0.6)]
    pub accuracy: f64,
    /// More SwarmSys options, comma-separated (`rounds=4,mode=b`, …).
    #[arg(long, default_value = "", value_name = "KEY=VALUE,…")]
    pub options: String,
    /// Seed of the items, the server and the run.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// GETs or POSTs `url`, returning the JSON body (stats and reset of serve-mock).
async fn mock_call(http: &reqwest::Client, url: &str, post: bool) -> anyhow::Result<Value> {
    let req = if post { http.post(url) } else { http.get(url) };
    let text = req.send().await?.text().await?;
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Runs `colony bench swarmsys`.
pub async fn run(a: SwarmsysBench, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    anyhow::ensure!(a.items > 0, "--items must be at least 1");
    anyhow::ensure!(
        !a.agents.is_empty() && a.agents.iter().all(|n| (3..=64).contains(n)),
        "--agents must be team sizes from 3 to 64"
    );
    anyhow::ensure!(
        (0.0..=1.0).contains(&a.accuracy),
        "--accuracy must be in [0, 1]"
    );
    let items = simulated_items(a.items, a.seed);
    let key = tempfile_path("colony-bench-swarmsys-key", "jsonl");
    {
        let mut f = std::fs::File::create(&key).with_context(|| key.display().to_string())?;
        for item in &items {
            writeln!(
                f,
                "{}",
                json!({"question": item.question, "answer": item.gold})
            )?;
        }
    }
    let latency = a.latency_ms.to_string();
    let accuracy = a.accuracy.to_string();
    let seed = a.seed.to_string();
    let key_arg = key.display().to_string();
    let spawned = super::bench::spawn_mock(&[
        "--latency-ms",
        &latency,
        "--answer-key",
        &key_arg,
        "--accuracy",
        &accuracy,
        "--seed",
        &seed,
    ]);
    let _ = std::fs::remove_file(&key);
    let (_child, url) = spawned?;
    let endpoint = EndpointSettings {
        max_concurrency: 256,
        ..EndpointSettings::new(&url)
    };
    let model: SharedModel = Arc::new(OpenAiClient::new(
        ClientSettings::new("sim"),
        vec![endpoint],
    )?);
    let embedder: Arc<dyn Embedder> = Arc::new(HashingEmbedder::new(HashingEmbedder::DEFAULT_DIM));
    let http = crate::llm::http::client()?;
    let mut rows = Vec::new();
    for &agents in &a.agents {
        mock_call(&http, &format!("{url}/mock/reset"), true).await?;
        let row = run_size(
            registry,
            agents,
            &a.options,
            &items,
            (model.clone(), embedder.clone()),
            a.seed,
            a.latency_ms as f64 / 1000.0,
        )
        .await?;
        let stats = mock_call(&http, &format!("{url}/mock/stats"), false).await?;
        println!(
            "{}",
            json!({
                "bench": "swarmsys",
                "latency_ms": a.latency_ms,
                "row": row,
                "server_requests": stats["requests"],
                "server_max_in_flight": stats["max_in_flight"],
                "peak_rss_bytes": peak_rss_bytes(),
            })
        );
        rows.push(row);
    }
    eprint!("{}", markdown(&rows, a.latency_ms));
    Ok(())
}

/// A fresh path in the temporary directory.
fn tempfile_path(stem: &str, ext: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("{stem}-{}.{ext}", std::process::id()))
}
