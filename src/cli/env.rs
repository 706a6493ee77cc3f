//! `colony env list|reset|step|run|bench`: the command-line contract every environment
//! implements (DESIGN.md, "Command-line contract for environments").

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use colony_env_api::{AgentId, DynEnvironment, EnvEntry, EnvParams};
use serde_json::json;

use crate::cli::env_registry::{entries, find};

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
pub fn run(args: EnvArgs) -> Result<()> {
    match args.command {
        EnvCmd::List { json } => list(json),
        EnvCmd::Reset(a) => reset(a),
        EnvCmd::Step(a) => step(a),
        EnvCmd::Run(a) => run_episodes(a),
        EnvCmd::Bench(a) => bench(a),
    }
}

fn list(as_json: bool) -> Result<()> {
    let infos: Vec<_> = entries().iter().map(|e| e.info()).collect();
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

fn build(config: &ConfigArgs) -> Result<(&'static dyn EnvEntry, Box<dyn DynEnvironment>)> {
    let entry = find(&config.env)?;
    let params = EnvParams::parse(&config.set)?;
    let env = entry
        .make(params)
        .with_context(|| format!("configuring {}", entry.info().id))?;
    Ok((entry, env))
}

fn reset(a: ResetArgs) -> Result<()> {
    let env = match &a.layout {
        Some(path) => {
            let entry = find(&a.config.env)?;
            let text = fs::read_to_string(path)
                .with_context(|| format!("reading layout {}", path.display()))?;
            entry
                .make_from_layout(EnvParams::parse(&a.config.set)?, &text)
                .with_context(|| format!("layout {}", path.display()))?
        }
        None => {
            let (_, mut env) = build(&a.config)?;
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

/// Reads `--actions` (inline JSON or `@FILE`) as agent → action text.
fn parse_actions(spec: &str) -> Result<BTreeMap<AgentId, String>> {
    let text = match spec.strip_prefix('@') {
        Some(path) => fs::read_to_string(path).with_context(|| format!("reading {path}"))?,
        None => spec.to_string(),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("--actions is not JSON: {text}"))?;
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

fn step(a: StepArgs) -> Result<()> {
    let (_, mut env) = build(&a.config)?;
    let text = fs::read_to_string(&a.state)
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
    for _ in 0..a.steps {
        last = Some(env.step_text(&actions)?);
    }
    println!("{}", serde_json::to_string(&last)?);
    Ok(())
}

/// Parses `A..B`, `A..=B` or `A` into a list of seeds.
fn parse_seeds(spec: &str) -> Result<Vec<u64>> {
    let num = |s: &str| -> Result<u64> {
        s.trim()
            .parse()
            .with_context(|| format!("--seeds {spec:?}: {s:?} is not a number"))
    };
    let seeds: Vec<u64> = if let Some((a, b)) = spec.split_once("..=") {
        (num(a)?..=num(b)?).collect()
    } else if let Some((a, b)) = spec.split_once("..") {
        (num(a)?..num(b)?).collect()
    } else {
        spec.split(',').map(num).collect::<Result<_>>()?
    };
    if seeds.is_empty() {
        bail!("--seeds {spec:?} is empty");
    }
    Ok(seeds)
}

/// One finished episode.
struct Episode {
    score: f64,
    steps: usize,
    terminated: bool,
    seconds: f64,
}

fn run_episode(
    config: &ConfigArgs,
    policy_name: &str,
    seed: u64,
    max_steps: usize,
    render: bool,
    trajectory: Option<&Path>,
) -> Result<Episode> {
    let (entry, mut env) = build(config)?;
    env.reset(seed);
    let mut policy = entry.make_policy(policy_name, seed)?;
    let mut out = match trajectory {
        Some(path) => {
            let mut f = std::io::BufWriter::new(
                fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
            );
            let head = json!({"env": env.id(), "policy": policy_name, "seed": seed,
                              "config": config.set, "state": env.state_json()});
            writeln!(f, "{head}")?;
            Some(f)
        }
        None => None,
    };
    let start = Instant::now();
    let (mut steps, mut terminated) = (0, false);
    while steps < max_steps {
        let actions = policy
            .act_text(env.as_ref())
            .with_context(|| format!("policy {policy_name} at step {steps}"))?;
        let r = env
            .step_events(&actions)
            .with_context(|| format!("policy {policy_name} at step {steps}"))?;
        steps += 1;
        if let Some(f) = out.as_mut() {
            let line = json!({"t": steps, "actions": actions, "rewards": r.rewards,
                              "events": r.events, "score": env.score(),
                              "terminated": r.terminated, "truncated": r.truncated});
            writeln!(f, "{line}")?;
        }
        if render {
            println!("{policy_name} seed {seed} step {steps}\n{}", env.render());
        }
        if r.terminated || r.truncated {
            terminated = r.terminated;
            break;
        }
    }
    if let Some(mut f) = out {
        f.flush()?;
    }
    Ok(Episode {
        score: env.score(),
        steps,
        terminated,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

fn run_episodes(a: RunArgs) -> Result<()> {
    let seeds = parse_seeds(&a.seeds)?;
    let (entry, _) = build(&a.config)?;
    let id = entry.info().id;
    if let Some(dir) = &a.out {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    for policy in &a.policy {
        // Validate every name before running anything.
        entry.make_policy(policy, 0)?;
    }
    let mut summary = serde_json::Map::new();
    println!("| policy | episodes | score (mean ± std) | min | max | steps (mean) | terminated | ms/episode |");
    println!("|---|---|---|---|---|---|---|---|");
    for policy in &a.policy {
        let mut episodes = Vec::new();
        for &seed in &seeds {
            let path = match &a.out {
                Some(dir) => {
                    let d = dir.join(policy);
                    fs::create_dir_all(&d)?;
                    Some(d.join(format!("seed-{seed}.jsonl")))
                }
                None => None,
            };
            episodes.push(run_episode(
                &a.config,
                policy,
                seed,
                a.max_steps,
                a.render,
                path.as_deref(),
            )?);
        }
        let scores: Vec<f64> = episodes.iter().map(|e| e.score).collect();
        let (mean, std) = mean_std(&scores);
        let min = scores.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let steps = episodes.iter().map(|e| e.steps as f64).sum::<f64>() / episodes.len() as f64;
        let done = episodes.iter().filter(|e| e.terminated).count();
        let ms = 1e3 * episodes.iter().map(|e| e.seconds).sum::<f64>() / episodes.len() as f64;
        println!(
            "| {policy} | {} | {mean:.4} ± {std:.4} | {min:.4} | {max:.4} | {steps:.1} | {done} | {ms:.1} |",
            episodes.len()
        );
        summary.insert(
            policy.clone(),
            json!({"episodes": episodes.len(), "seeds": seeds, "scores": scores,
                   "mean": mean, "std": std, "min": min, "max": max, "mean_steps": steps,
                   "terminated": done}),
        );
    }
    if let Some(dir) = &a.out {
        let doc = json!({"env": id, "config": a.config.set, "policies": summary});
        fs::write(
            dir.join("summary.json"),
            serde_json::to_string_pretty(&doc)?,
        )?;
    }
    Ok(())
}

fn bench(a: BenchArgs) -> Result<()> {
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let (entry, mut env) = build(&a.config)?;
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
        "peak_rss_bytes": colony::eval::resources::peak_rss_bytes(),
    });
    println!("{line}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_ranges_and_lists() {
        assert_eq!(parse_seeds("0..3").unwrap(), vec![0, 1, 2]);
        assert_eq!(parse_seeds("2..=3").unwrap(), vec![2, 3]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert_eq!(parse_seeds("1,5").unwrap(), vec![1, 5]);
        assert!(parse_seeds("3..3").is_err());
        assert!(parse_seeds("a..3")
            .unwrap_err()
            .to_string()
            .contains("\"a\""));
    }

    #[test]
    fn actions_inline_and_structured() {
        let a = parse_actions(r#"{"0": "UP", "1": ["push_block(block=2)"]}"#).unwrap();
        assert_eq!(a["0"], "UP");
        assert_eq!(a["1"], r#"["push_block(block=2)"]"#);
        assert!(parse_actions("[1]").is_err());
    }
}
