//! `colony bench embodied`: the orchestration overhead of the one episode loop with LLM
//! agents, against the in-process simulated model (one JSON line).
//!
//! Overhead per decision = (process CPU time − CPU time inside the model) / decisions: view
//! snapshots, prompt assembly, actor messaging, reply parsing, stepping and call logging,
//! everything but the model. The simulated model computes synchronously inside `chat`, so the
//! wall time spent there is its CPU time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::eval::call_log::LogCalls;
use crate::eval::embodied::episode::{run_episode, EpisodeConfig, NullSink};
use crate::eval::embodied::trajectory::TrajectoryWriter;
use crate::eval::resources::{cpu_time, peak_rss_bytes};
use crate::llm::{
    ChatModel, ChatRequest, ChatResponse, ModelError, SharedModel, SimulatedConfig, SimulatedModel,
};
use crate::policy::embodied::{CallerConfig, PolicyContext};
use async_trait::async_trait;
use clap::Args;
use serde_json::json;

/// Arguments of `colony bench embodied`.
#[derive(Args, Debug)]
pub struct EmbodiedBench {
    /// Environment id.
    #[arg(long, default_value = "swarmbench")]
    pub env: String,
    /// Environment parameters (default: SwarmBench 40×40 with 100 agents on swarmbench, the
    /// environment's own defaults elsewhere).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Steps to run.
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The embodied policy to time (`independent`, `camon`, `coela`, `embodied`, `hmas2`,
    /// `selforg`).
    #[arg(long, default_value = "independent")]
    pub policy: String,
    /// Write the episode's steps and call log into DIR, as `colony compare` does (timed with
    /// the rest of the orchestration); without it nothing is written.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<std::path::PathBuf>,
    /// The call log's form with `--log-dir` (as `colony compare --log-calls`).
    #[arg(long, value_enum, default_value_t = LogCalls::Compact)]
    pub log_calls: LogCalls,
}

/// A model wrapper that adds up the time spent inside the inner model.
struct Timed {
    inner: SharedModel,
    nanos: Arc<AtomicU64>,
}

#[async_trait]
impl ChatModel for Timed {
    fn id(&self) -> &str {
        self.inner.id()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let t = Instant::now();
        let r = self.inner.chat(request).await;
        let spent = u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(spent, Ordering::Relaxed);
        r
    }
}

/// The settings `colony bench embodied` uses when `--set` gives none. Decision: only SwarmBench
/// has a scale-up default (40×40 with 100 agents and no round cap: the orchestration-overhead
/// figure of docs/reference/benchmarks.md); every other environment, a plugin's included, is
/// timed at its own defaults, since another environment's keys would be refused as unknown.
fn bench_defaults(id: &str) -> Vec<String> {
    match id {
        "swarmbench-v0" => ["size=40", "agents=100", "max_round=100000"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Runs `colony bench embodied`.
pub async fn run(a: EmbodiedBench, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    anyhow::ensure!(a.steps > 0, "--steps must be at least 1");
    let entry = registry.environment_entry(&a.env)?;
    let set = if a.set.is_empty() {
        bench_defaults(entry.info().id.as_str())
    } else {
        a.set.clone()
    };
    let (entry, mut env) = registry.build_environment(&a.env, &set)?;
    let factory = registry.embodied_factory(&a.policy, entry)?;
    env.reset(a.seed);
    let nanos = Arc::new(AtomicU64::new(0));
    let model: SharedModel = Arc::new(Timed {
        inner: Arc::new(SimulatedModel::new(SimulatedConfig {
            responders: registry.responders(),
            ..SimulatedConfig::default()
        })),
        nanos: nanos.clone(),
    });
    let ctx = PolicyContext {
        entry,
        seed: a.seed,
        caller: CallerConfig {
            models: vec![model],
            sampling: crate::policy::embodied::EMBODIED_SAMPLING,
            ..CallerConfig::default()
        },
    };
    let mut policy = factory.build(&ctx)?;
    let cpu0 = cpu_time().unwrap_or_default();
    let wall = Instant::now();
    let config = EpisodeConfig {
        seed: a.seed,
        max_steps: a.steps,
    };
    let out = match &a.log_dir {
        Some(dir) => {
            let mut w =
                TrajectoryWriter::create(&dir.join("steps.jsonl"), Some((dir, a.log_calls)), None)?;
            let out = run_episode(env.as_mut(), policy.as_mut(), config, &mut w).await?;
            w.finish()?;
            out
        }
        None => run_episode(env.as_mut(), policy.as_mut(), config, &mut NullSink).await?,
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let cpu = cpu_time()
        .unwrap_or_default()
        .saturating_sub(cpu0)
        .as_secs_f64();
    let model_s = nanos.load(Ordering::Relaxed) as f64 / 1e9;
    // Per model call (one call per agent decision for `independent` on SwarmBench).
    let decisions = out.calls.max(1) as f64;
    println!(
        "{}",
        json!({
            "env": env.id(),
            "policy": a.policy,
            "config": set,
            "steps": out.steps,
            "decisions": out.calls,
            "error": out.error,
            "fallbacks": out.fallbacks,
            "wall_s": wall_s,
            "cpu_us_per_decision": cpu * 1e6 / decisions,
            "model_us_per_decision": model_s * 1e6 / decisions,
            "overhead_us_per_decision": (cpu - model_s).max(0.0) * 1e6 / decisions,
            "peak_rss_bytes": peak_rss_bytes(),
            "log_calls": a.log_dir.as_ref().map(|_| a.log_calls),
        })
    );
    Ok(())
}
