//! `colony bench client|endpoint|runtime|embed|qa|embodied|swarmsys`: whole-process throughput and memory figures, one JSON line.
//!
//! Figures are measured, never asserted in tests; README and issue notes report them.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::eval::resources::{cpu_time, peak_rss_bytes};
use crate::llm::{
    ChatModel, ChatRequest, ClientSettings, EndpointSettings, Message, OpenAiClient, RetryPolicy,
    SharedModel, SimulatedConfig, SimulatedModel,
};
use crate::runtime::{AgentSpec, RoleCard, Team};
use anyhow::Context;
use clap::{Args, Subcommand};
use futures::stream::{self, StreamExt};
use serde_json::json;

/// Arguments of `colony bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub what: BenchWhat,
}

/// What to benchmark.
#[derive(Subcommand, Debug)]
pub enum BenchWhat {
    /// HTTP client throughput against serve-mock (spawned as a child process unless --base-url).
    Client(ClientBench),
    /// A real server's throughput through colony's client vs a bare client, side by side.
    Endpoint(super::bench_endpoint::EndpointBench),
    /// Actor runtime: spawn N agents, one ask each against the in-process simulated model.
    Runtime(RuntimeBench),
    /// Embedding throughput: batches of 32 short texts and of 16 texts of ~300 tokens.
    Embed(EmbedBench),
    /// QA datasets: load and grade a synthetic GSM8K-format file.
    Qa(QaBench),
    /// Embodied episode loop: CPU µs per agent decision excluding model time, peak RSS.
    Embodied(super::bench_embodied::EmbodiedBench),
    /// SwarmSys wall time and calls per item for team sizes A against serve-mock with latency.
    Swarmsys(super::bench_swarmsys::SwarmsysBench),
}

/// Arguments of `colony bench qa`.
#[derive(Args, Debug)]
pub struct QaBench {
    /// Rows of the synthetic GSM8K JSONL file.
    #[arg(long, default_value_t = 100_000)]
    pub rows: usize,
}

/// Arguments of `colony bench embed`.
#[derive(Args, Debug)]
pub struct EmbedBench {
    /// Embedder spec (hash, minilm:DIR, remote:URL#MODEL, …).
    #[arg(long, default_value = "hash", value_name = "SPEC")]
    pub embedder: String,
    /// Minimum seconds to spend on each measurement.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
}

/// Arguments of `colony bench client`.
#[derive(Args, Debug)]
pub struct ClientBench {
    /// Number of measured calls.
    #[arg(long, default_value_t = 10_000)]
    pub calls: usize,
    /// Calls in flight at once (also the client's per-endpoint concurrency limit).
    #[arg(long, default_value_t = 64, value_parser = crate::cli::model_args::parse_in_flight)]
    pub concurrency: usize,
    /// Server to call; default: start `colony serve-mock --port 0` as a child process.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model name sent to the server.
    #[arg(long, default_value = "sim")]
    pub model: String,
}

/// Arguments of `colony bench runtime`.
#[derive(Args, Debug)]
pub struct RuntimeBench {
    /// Number of agents (each asked once), at most 200000 (100000 take about 0.6 GB).
    #[arg(long, default_value_t = 10_000, value_parser = parse_runtime_agents)]
    pub agents: usize,
}

/// Runs `colony bench`.
pub async fn run(args: BenchArgs, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Client(a) => client(a).await,
        BenchWhat::Endpoint(a) => super::bench_endpoint::run(a).await,
        BenchWhat::Runtime(a) => runtime(a).await,
        BenchWhat::Embed(a) => embed(a).await,
        BenchWhat::Qa(a) => qa(a),
        BenchWhat::Embodied(a) => super::bench_embodied::run(a, registry).await,
        BenchWhat::Swarmsys(a) => super::bench_swarmsys::run(a, registry).await,
    }
}

/// A `serve-mock` child process, killed on drop.
pub(super) struct MockChild(Child);

impl Drop for MockChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `colony serve-mock --port 0 <extra>` and reads its base URL.
pub(super) fn spawn_mock(extra: &[&str]) -> anyhow::Result<(MockChild, String)> {
    let exe = std::env::current_exe().context("locating the colony executable")?;
    let mut child = Command::new(exe)
        .args(["serve-mock", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting colony serve-mock")?;
    let stdout = child.stdout.take().context("serve-mock stdout")?;
    let child = MockChild(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .context("reading serve-mock's address")?;
    let url = line.trim().to_string();
    anyhow::ensure!(
        url.starts_with("http://"),
        "serve-mock printed {url:?} instead of its address"
    );
    Ok((child, url))
}

async fn client(a: ClientBench) -> anyhow::Result<()> {
    anyhow::ensure!(
        a.calls > 0 && a.concurrency > 0,
        "--calls and --concurrency must be positive"
    );
    let (_child, url, server) = match &a.base_url {
        Some(u) => (None, u.clone(), "external"),
        None => {
            let (c, u) = spawn_mock(&[])?;
            (Some(c), u, "spawned serve-mock")
        }
    };
    let client = bench_client(&a.model, &url, a.concurrency)?;
    let request = |i: usize| {
        ChatRequest::new(vec![Message::user(format!("Benchmark prompt number {i}."))])
            .max_tokens(64)
    };
    // Warm up the connection pool so the figure is steady-state throughput.
    let warm = a.concurrency.min(a.calls);
    run_calls(&client, warm, a.concurrency, &request).await;
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let errors = run_calls(&client, a.calls, a.concurrency, &request).await;
    let wall = t0.elapsed();
    let cpu = cpu_time().zip(cpu0).map(|(b, a)| b.saturating_sub(a));
    let line = json!({
        "bench": "client",
        "server": server,
        "calls": a.calls,
        "concurrency": a.concurrency,
        "errors": errors,
        "wall_s": wall.as_secs_f64(),
        "calls_per_s": a.calls as f64 / wall.as_secs_f64(),
        "cpu_us_per_call": cpu.map(|c| c.as_secs_f64() * 1e6 / a.calls as f64),
        "peak_rss_bytes": peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

/// colony's client for one endpoint as the benchmarks use it: no retries (a failure is
/// counted, not hidden), at most `concurrency` calls in flight.
pub(super) fn bench_client(
    model: &str,
    url: &str,
    concurrency: usize,
) -> anyhow::Result<Arc<OpenAiClient>> {
    let mut settings = ClientSettings::new(model);
    settings.retry = RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    };
    let endpoint = EndpointSettings {
        max_concurrency: concurrency,
        ..EndpointSettings::new(url)
    };
    Ok(Arc::new(OpenAiClient::new(settings, vec![endpoint])?))
}

async fn run_calls(
    client: &Arc<OpenAiClient>,
    n: usize,
    concurrency: usize,
    request: &impl Fn(usize) -> ChatRequest,
) -> usize {
    stream::iter(0..n)
        .map(|i| {
            let client = client.clone();
            let req = request(i);
            async move { client.chat(&req).await.is_err() }
        })
        .buffer_unordered(concurrency)
        .filter(|failed| futures::future::ready(*failed))
        .count()
        .await
}

async fn runtime(a: RuntimeBench) -> anyhow::Result<()> {
    anyhow::ensure!(a.agents > 0, "--agents must be positive");
    let model: SharedModel = Arc::new(SimulatedModel::new(SimulatedConfig::default()));
    let role = Arc::new(RoleCard::new("assistant", "You are a helpful assistant."));
    let t0 = Instant::now();
    let team = Team::builder()
        .timeout(Duration::from_secs(600))
        .agents(
            (0..a.agents)
                .map(|i| AgentSpec::new(format!("agent_{i:05}"), role.clone(), model.clone())),
        )
        .build()?;
    let spawned = t0.elapsed();
    let ids: Vec<String> = (0..a.agents).map(|i| format!("agent_{i:05}")).collect();
    let asks = ids
        .iter()
        .map(|id| team.ask(id.as_str(), "Say hello to the colony."));
    let results = futures::future::join_all(asks).await;
    let wall = t0.elapsed();
    let errors = results.iter().filter(|r| r.is_err()).count();
    let report = team.usage();
    team.shutdown().await;
    let line = json!({
        "bench": "runtime",
        "agents": a.agents,
        "errors": errors,
        "calls": report.run.calls,
        "spawn_s": spawned.as_secs_f64(),
        "wall_s": wall.as_secs_f64(),
        "peak_rss_bytes": peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

/// Texts per second embedding `batch` repeatedly for at least `min_secs`.
async fn texts_per_second(
    embedder: &dyn crate::embed::Embedder,
    batch: &[String],
    min_secs: f64,
) -> anyhow::Result<f64> {
    embedder.embed(batch).await?; // warm-up
    let t0 = Instant::now();
    let mut done = 0usize;
    while done == 0 || t0.elapsed().as_secs_f64() < min_secs {
        embedder.embed(batch).await?;
        done += batch.len();
    }
    Ok(done as f64 / t0.elapsed().as_secs_f64())
}

async fn embed(a: EmbedBench) -> anyhow::Result<()> {
    let spec: crate::embed::EmbedderSpec = a.embedder.parse()?;
    let t0 = Instant::now();
    let embedder = spec.build(None).await?;
    let load = t0.elapsed();
    let topics = [
        "ants",
        "bees",
        "wildfires",
        "blocks",
        "prime numbers",
        "rivers",
        "markets",
        "robots",
    ];
    let short: Vec<String> = (0..32)
        .map(|i| {
            format!(
                "Sentence {i}: the colony studies {} near the {}th hill.",
                topics[i % 8],
                i + 1
            )
        })
        .collect();
    // About 300 word pieces each: 220 words of varied vocabulary.
    let long: Vec<String> = (0..16)
        .map(|i| {
            (0..220)
                .map(|w| {
                    format!(
                        "{}{}",
                        topics[(i + w) % 8].split(' ').next().unwrap_or("x"),
                        w % 7
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let short_rate = texts_per_second(embedder.as_ref(), &short, a.seconds).await?;
    let long_rate = texts_per_second(embedder.as_ref(), &long, a.seconds).await?;
    let line = json!({
        "bench": "embed",
        "embedder": embedder.id(),
        "dim": embedder.dim(),
        "load_s": load.as_secs_f64(),
        "short_texts_per_s": short_rate,
        "long_texts_per_s": long_rate,
        "peak_rss_bytes": peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

fn qa(a: QaBench) -> anyhow::Result<()> {
    use colony_qa::{grade, load, Dataset, JudgeOptions, LoadOptions};
    use std::io::Write;

    anyhow::ensure!(a.rows > 0, "--rows must be positive");
    let path = std::env::temp_dir().join(format!("colony-bench-qa-{}.jsonl", std::process::id()));
    {
        let file = std::fs::File::create(&path).with_context(|| format!("{}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        for i in 0..a.rows {
            let (x, y) = (i % 977 + 3, i % 313 + 7);
            let row = json!({
                "question": format!("Item {i}: a farmer has {x} rows of {y} plants. How many plants are there?"),
                "answer": format!("Each row has {y} plants, so {x} * {y} = <<{x}*{y}={p}>>{p}.\n#### {p}", p = x * y),
            });
            writeln!(w, "{row}")?;
        }
        w.flush()?;
    }
    let t0 = Instant::now();
    let loaded = load(Dataset::Gsm8k, &path, &LoadOptions::default());
    let load_s = t0.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);
    let items = loaded?.items;
    let outputs: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, it)| match i % 3 {
            0 => format!(
                "Multiplying the rows by the plants per row gives the total.\nThe answer is {}.",
                it.gold
            ),
            1 => format!("So the total is \\boxed{{{}}} plants.", it.gold),
            _ => "There are 12 rows and 7 plants, I think 84 in total.".to_string(),
        })
        .collect();
    let opts = JudgeOptions::default();
    let t1 = Instant::now();
    let correct = items
        .iter()
        .zip(&outputs)
        .filter(|(it, o)| grade(o, it, &opts).correct)
        .count();
    let grade_s = t1.elapsed().as_secs_f64();
    let line = json!({
        "bench": "qa",
        "rows": items.len(),
        "load_s": load_s,
        "items_loaded_per_s": items.len() as f64 / load_s,
        "grade_s": grade_s,
        "items_graded_per_s": items.len() as f64 / grade_s,
        "correct": correct,
        "peak_rss_bytes": peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

/// Parses `bench runtime --agents`: 1 to 200000, so the benchmark fits in 2 GB
/// (100000 actors peaked at 0.6 GB).
fn parse_runtime_agents(s: &str) -> Result<usize, String> {
    super::model_args::parse_count(s, 200_000)
}
