//! `colony env list|reset|step|run|bench`: the command-line contract every environment
//! implements (DESIGN.md, "Command-line contract for environments").

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Largest layout, state or actions file `colony env` reads, in bytes (checked on the bytes
/// read).
const MAX_ENV_FILE_BYTES: u64 = 256 << 20;

use crate::env::parse_seeds;
use crate::eval::embodied::env_run::{markdown_table, run_builtin, EnvRunConfig};
use crate::registry::Registry;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use colony_env_api::{AgentId, DynEnvironment, EnvEntry, EnvParams};
use serde_json::json;

/// `colony env …`.
#[derive(Args, Debug)]
pub struct EnvArgs {
    #[command(subcommand)]
    command: EnvCmd,
}

#[derive(Subcommand, Debug)]
enum EnvCmd {
    /// Environment ids with versions and their configurable parameters.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Generate an initial state (ASCII render, or the whole state with --json).
    Reset(ResetArgs),
    /// Load a state, apply actions, print the next state, rewards, flags and events as JSON.
    Step(StepArgs),
    /// Run episodes with built-in non-LLM policies and print a score table.
    Run(RunArgs),
    /// Time random steps: one JSON line with ms_per_step, steps_per_s, peak_rss_bytes.
    Bench(BenchArgs),
}

/// Settings shared by the subcommands that build an environment.
#[derive(Args, Debug, Clone)]
struct ConfigArgs {
    /// Environment id (`cube`, `cube-v0`, `swarmbench`, …).
    env: String,
    /// A configuration parameter, `key=value` (repeatable; see `colony env list`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Args, Debug)]
struct ResetArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Episode seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Start from a layout file in the environment's notation instead of generating one.
    #[arg(long, value_name = "FILE")]
    layout: Option<PathBuf>,
    /// Print the whole serializable state (what `env step --state` reads).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct StepArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// State JSON file (as printed by `env reset --json` or under `"state"` by `env step`).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Actions: `{"<agent id>": "<action text>", …}`, inline or `@FILE`.
    #[arg(long, default_value = "{}")]
    actions: String,
    /// Repeat the same actions K times; the last step is printed.
    #[arg(long, default_value_t = 1)]
    steps: usize,
    /// Print JSON (the default and only output of `env step`; kept for symmetry).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Built-in policy (`random`, `noop`, the environment's own); comma-separated to compare.
    #[arg(long, default_value = "random", value_delimiter = ',')]
    policy: Vec<String>,
    /// Seeds, `A..B` (B exclusive) or `A..=B` or one number.
    #[arg(long, default_value = "0..5")]
    seeds: String,
    /// Write one trajectory JSONL per episode and summary.json here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the ASCII render after every step.
    #[arg(long)]
    render: bool,
    /// Safety cap on steps per episode (environments truncate themselves first).
    #[arg(long, default_value_t = 100_000)]
    max_steps: usize,
}

#[derive(Args, Debug)]
struct BenchArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Steps to time (episodes restart from the next seed when they end).
    #[arg(long, default_value_t = 1000)]
    steps: usize,
    /// First seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs `colony env …`.
pub async fn run(args: EnvArgs, registry: &Registry) -> Result<()> {
    let r = registry;
    match args.command {
        EnvCmd::List { json } => list(r, json),
        EnvCmd::Reset(a) => reset(r, a),
        EnvCmd::Step(a) => step(r, a),
        EnvCmd::Run(a) => run_episodes(r, a).await,
        EnvCmd::Bench(a) => bench(r, a),
    }
}

fn list(registry: &Registry, as_json: bool) -> Result<()> {
    let infos: Vec<_> = registry.environments().iter().map(|e| e.info()).collect();
    if as_json {
        println!("{}", serde_json::to_string_pretty(&infos)?);
        return Ok(());
    }
    for info in infos {
        println!("{}  {}", info.id, info.description);
        for p in info.params {
            println!("    {:<24} default {:<10} {}", p.name, p.default, p.doc);
        }
    }
    Ok(())
}

fn build(
    registry: &Registry,
    config: &ConfigArgs,
) -> Result<(&'static dyn EnvEntry, Box<dyn DynEnvironment>)> {
    Ok(registry.build_environment(&config.env, &config.set)?)
}

fn reset(registry: &Registry, a: ResetArgs) -> Result<()> {
    let env = match &a.layout {
        Some(path) => {
            let entry = registry.environment_entry(&a.config.env)?;
            let text = colony_env_api::bounded::read_string(path, MAX_ENV_FILE_BYTES)
                .with_context(|| format!("reading layout {}", path.display()))?;
            entry
                .make_from_layout(EnvParams::parse(&a.config.set)?, &text)
                .with_context(|| format!("layout {}", path.display()))?
        }
        None => {
            let (_, mut env) = build(registry, &a.config)?;
            env.reset(a.seed);
            env
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&env.state_json())?);
    } else {
        let picture = env.render();
        print!("{picture}");
        if !picture.ends_with('\n') {
            println!();
        }
    }
    Ok(())
}

/// Reads `--actions` (inline JSON or `@FILE`) as agent → action text. Errors quote at most a
/// short prefix of the value ([`colony_env_api::clip`]), never a huge input whole.
fn parse_actions(spec: &str) -> Result<BTreeMap<AgentId, String>> {
    let text = match spec.strip_prefix('@') {
        // The error quotes a clipped prefix only: the path itself may be huge.
        Some(path) => colony_env_api::bounded::read_string(Path::new(path), MAX_ENV_FILE_BYTES)
            .map_err(|e| {
                anyhow::anyhow!(
                    "--actions: reading {}",
                    colony_env_api::clip(&e.to_string())
                )
            })?,
        None => spec.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "--actions is not JSON: {}",
            colony_env_api::clip(text.trim())
        )
    })?;
    let map = value
        .as_object()
        .context("--actions must be a JSON object {\"<agent id>\": \"<action>\", …}")?;
    map.iter()
        .map(|(agent, v)| match v {
            serde_json::Value::String(s) => Ok((agent.clone(), s.clone())),
            // Structured actions (e.g. a JSON plan) are passed on as their JSON text.
            other => Ok((agent.clone(), other.to_string())),
        })
        .collect()
}

fn step(registry: &Registry, a: StepArgs) -> Result<()> {
    let (_, mut env) = build(registry, &a.config)?;
    let text = colony_env_api::bounded::read_string(&a.state, MAX_ENV_FILE_BYTES)
        .with_context(|| format!("reading state {}", a.state.display()))?;
    let mut value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("state {} is not JSON", a.state.display()))?;
    // Accept a whole `env step` output as the state file, so steps chain.
    if let Some(inner) = value
        .get("state")
        .filter(|_| value.get("rewards").is_some())
    {
        value = inner.clone();
    }
    env.load_state_json(value)
        .with_context(|| format!("state {}", a.state.display()))?;
    let actions = parse_actions(&a.actions)?;
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let mut last = None;
    // Stop at the end of the episode: stepping a terminated or truncated environment again
    // is meaningless, and `--steps 1e9` must not keep going.
    for _ in 0..a.steps {
        let step = env.step_text(&actions)?;
        let done = step.terminated || step.truncated;
        last = Some(step);
        if done {
            break;
        }
    }
    println!("{}", serde_json::to_string(&last)?);
    Ok(())
}

async fn run_episodes(registry: &Registry, a: RunArgs) -> Result<()> {
    let config = EnvRunConfig {
        env: registry.environment_entry(&a.config.env)?,
        set: a.config.set.clone(),
        policies: a.policy.clone(),
        seeds: parse_seeds(&a.seeds)?,
        max_steps: a.max_steps,
        out: a.out.clone(),
    };
    if let Some(dir) = &a.out {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut show = |policy: &str, seed: u64, step: u64, picture: &str| {
        println!("{policy} seed {seed} step {step}\n{picture}");
    };
    let render: Option<crate::eval::embodied::env_run::EpisodeRender<'_>> =
        if a.render { Some(&mut show) } else { None };
    let all = run_builtin(&config, render).await?;
    print!("{}", markdown_table(&all));
    Ok(())
}

fn bench(registry: &Registry, a: BenchArgs) -> Result<()> {
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let (entry, mut env) = build(registry, &a.config)?;
    let mut seed = a.seed;
    env.reset(seed);
    let mut rng = seed;
    let mut elapsed = 0.0;
    for _ in 0..a.steps {
        let t = Instant::now();
        let ended = env.step_random(&mut rng);
        elapsed += t.elapsed().as_secs_f64();
        if ended {
            // Resets are not timed: the figure is the cost of a step.
            seed += 1;
            env.reset(seed);
        }
    }
    let line = json!({
        "env": entry.info().id,
        "config": a.config.set,
        "steps": a.steps,
        "ms_per_step": 1e3 * elapsed / a.steps as f64,
        "steps_per_s": a.steps as f64 / elapsed.max(1e-12),
        "peak_rss_bytes": crate::eval::resources::peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_inline_and_structured() {
        let a = parse_actions(r#"{"0": "UP", "1": ["push_block(block=2)"]}"#).unwrap();
        assert_eq!(a["0"], "UP");
        assert_eq!(a["1"], r#"["push_block(block=2)"]"#);
        assert!(parse_actions("[1]").is_err());
    }
}
