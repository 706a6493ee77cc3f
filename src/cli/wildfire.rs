//! `colony wildfire …`: CREW-Wildfire tools outside the generic `colony env` contract —
//! `bcs` (normalized scores and Behavior Competency Scores, docs/design/wildfire.md §13), `levels`
//! (the 17 configurations of §12.1) and `snapshot` (an SVG picture of a saved state).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use colony_wildfire::metrics::{bcs as compute_bcs, markdown, Scores};
use colony_wildfire::render::render_svg;
use colony_wildfire::state::WildfireState;

/// Arguments of `colony wildfire`.
#[derive(Args, Debug)]
pub struct WildfireArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: WildfireAction,
}

/// Subcommands of `colony wildfire`.
#[derive(Subcommand, Debug)]
pub enum WildfireAction {
    /// NS and BCS from mean raw scores: `{"<framework>": {"<configuration>": score}}`, a
    /// configuration being its number 1–17 or its level id.
    Bcs(BcsArgs),
    /// List the 17 level configurations (number, id, team, map, max score, behaviors, seeds).
    Levels(LevelsArgs),
    /// Write an SVG snapshot (terrain, fire, agents, civilians) of a state JSON.
    Snapshot(SnapshotArgs),
    /// Measure the Do-Nothing baseline (design §13.1) on the open-ended levels over their
    /// evaluation seeds; prints `{"<configuration>": mean}` for `bcs --do-nothing`.
    DoNothing(DoNothingArgs),
    /// Time map generation and level setup for the given map sides (one JSON line each).
    BenchGen(BenchGenArgs),
}

/// Arguments of `colony wildfire do-nothing`.
#[derive(Args, Debug)]
pub struct DoNothingArgs {
    /// Configurations (numbers or ids), comma-separated; default: the open-ended ones 13–17.
    #[arg(long, value_delimiter = ',', default_value = "13,14,15,16,17")]
    pub levels: Vec<String>,
    /// The official rule set: `orch` or `paper` (the code behind the paper's Table 3;
    /// docs/design/wildfire.md §19).
    #[arg(long, default_value = "orch", value_parser = parse_rules)]
    pub rules: colony_wildfire::config::Rules,
}

fn parse_rules(s: &str) -> Result<colony_wildfire::config::Rules, String> {
    colony_wildfire::config::Rules::from_name(s)
        .ok_or_else(|| format!("unknown rule set {s:?}; known: orch, paper"))
}

/// Arguments of `colony wildfire bench-gen`.
#[derive(Args, Debug)]
pub struct BenchGenArgs {
    /// Map sides, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "100,250,1000")]
    pub sizes: Vec<u32>,
    /// Seeds timed per side (the mean is printed).
    #[arg(long, default_value_t = 3)]
    pub repeats: u64,
}

/// Arguments of `colony wildfire bcs`.
#[derive(Args, Debug)]
pub struct BcsArgs {
    /// JSON file of mean raw scores per framework and configuration.
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// JSON file `{"<configuration>": mean Do-Nothing score}` overriding the paper's constants.
    #[arg(long, value_name = "FILE")]
    pub do_nothing: Option<PathBuf>,
    /// Print `{"ns": {fw: {cfg: x}}, "bcs": {fw: {"TD": x, …}}}` instead of a Markdown table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `colony wildfire levels`.
#[derive(Args, Debug)]
pub struct LevelsArgs {
    /// Print the configurations as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `colony wildfire snapshot`.
#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// State JSON (`colony env reset wildfire --json`, or a whole `colony env step` output).
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,
    /// Output SVG file (default: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Pixels per cell.
    #[arg(long, default_value_t = 8)]
    pub cell_px: u32,
}

/// Runs `colony wildfire …`.
pub async fn run(args: WildfireArgs) -> Result<()> {
    match args.action {
        WildfireAction::Bcs(a) => bcs(a),
        WildfireAction::Levels(a) => levels(a),
        WildfireAction::Snapshot(a) => snapshot(a),
        WildfireAction::DoNothing(a) => do_nothing(a).await,
        WildfireAction::BenchGen(a) => bench_gen(a),
    }
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not {what}", path.display()))
}

fn bcs(a: BcsArgs) -> Result<()> {
    let scores: Scores = read_json(
        &a.scores,
        "a JSON object {\"<framework>\": {\"<configuration>\": number}}",
    )?;
    let dn: BTreeMap<String, f64> = match &a.do_nothing {
        Some(p) => read_json(p, "a JSON object {\"<configuration>\": number}")?,
        None => BTreeMap::new(),
    };
    let report = compute_bcs(&scores, &dn)?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", markdown(&report));
    }
    Ok(())
}

fn levels(a: LevelsArgs) -> Result<()> {
    let all = colony_wildfire::config::levels();
    if a.json {
        println!("{}", serde_json::to_string(&all)?);
        return Ok(());
    }
    println!(
        "| # | id | type | map | team (F,B,D,H) | max score | behaviors | max steps | seeds |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for l in all {
        let behaviors: Vec<&str> = l.behaviors.iter().map(|b| b.tag()).collect();
        let seeds: Vec<String> = l.seeds.iter().map(u64::to_string).collect();
        println!(
            "| {} | {} | {:?} | {} | {:?} | {} | {} | {} | {} |",
            l.number,
            l.id,
            l.kind,
            l.map_size,
            l.team,
            l.max_score,
            behaviors.join(" "),
            l.max_steps,
            seeds.join(", ")
        );
    }
    Ok(())
}

fn snapshot(a: SnapshotArgs) -> Result<()> {
    if a.cell_px == 0 {
        bail!("--cell-px must be at least 1");
    }
    let mut value: serde_json::Value = read_json(&a.state, "JSON")?;
    // Accept a whole `env step` output, so snapshots chain with steps.
    if let Some(inner) = value.get_mut("state") {
        value = inner.take();
    }
    let state: WildfireState = serde_json::from_value(value)
        .with_context(|| format!("{} is not a wildfire-v0 state", a.state.display()))?;
    let env = colony_wildfire::WildfireEnv::from_state(state)
        .with_context(|| format!("{} is not a valid wildfire-v0 state", a.state.display()))?;
    let svg = render_svg(env.world(), a.cell_px);
    match &a.out {
        Some(path) => {
            fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{svg}"),
    }
    Ok(())
}

async fn do_nothing(a: DoNothingArgs) -> Result<()> {
    use crate::eval::embodied::episode::{run_episode, EpisodeConfig, NullSink};
    use crate::policy::embodied::Scripted;
    let mut out = BTreeMap::new();
    for name in &a.levels {
        let level = colony_wildfire::metrics::resolve(name)?.with_rules(a.rules);
        let mut total = 0.0;
        for &seed in &level.seeds {
            let mut env = colony_env_api::boxed(colony_wildfire::WildfireEnv::new(level.clone())?);
            env.reset(seed);
            let mut noop = Scripted::new("noop", Box::new(colony_env_api::NoopPolicy));
            let config = EpisodeConfig {
                seed,
                max_steps: usize::MAX,
            };
            let outcome = run_episode(env.as_mut(), &mut noop, config, &mut NullSink).await?;
            total += outcome.score;
        }
        let mean = total / level.seeds.len().max(1) as f64;
        eprintln!(
            "{} ({}, rules {}): Do-Nothing mean {mean:.2} over {} seeds (paper {:.2})",
            level.number,
            level.id,
            level.rules.name(),
            level.seeds.len(),
            level.do_nothing
        );
        out.insert(name.clone(), mean);
    }
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}

fn bench_gen(a: BenchGenArgs) -> Result<()> {
    let mut level = colony_wildfire::config::bench_level(100, 20);
    for size in a.sizes {
        if !(8..=4000).contains(&size) {
            bail!("--sizes: {size} is outside 8..=4000");
        }
        level.map_size = size;
        let start = std::time::Instant::now();
        for seed in 0..a.repeats.max(1) {
            colony_wildfire::setup::new_episode(&level, seed)?;
        }
        let ms = start.elapsed().as_secs_f64() * 1e3 / a.repeats.max(1) as f64;
        println!(
            "{}",
            serde_json::json!({"map_size": size, "cells": u64::from(size) * u64::from(size),
                               "repeats": a.repeats.max(1), "ms_per_map": ms})
        );
    }
    Ok(())
}
