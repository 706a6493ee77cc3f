//! `colony swarmbench physics`: one SwarmBench physics step per scenario read as JSON on
//! stdin (a scenario or a list of them); prints one line per scenario with sorted keys:
//! `{"grid": [rows], "on_grid": {id: bool}, "positions": {id: [i, j]}}`
//! (docs/design/swarmbench.md §4).

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use colony_swarmbench::scenario::{run as run_scenario, Scenario};

/// Arguments of `colony swarmbench`.
#[derive(Args, Debug)]
pub struct SwarmbenchArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: SwarmbenchAction,
}

/// Subcommands of `colony swarmbench`.
#[derive(Subcommand, Debug)]
pub enum SwarmbenchAction {
    /// Run one physics step (four passes) on each scenario of the JSON input.
    Physics(PhysicsArgs),
}

/// Arguments of `colony swarmbench physics`.
#[derive(Args, Debug)]
pub struct PhysicsArgs {
    /// Read the scenario(s) from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

/// Runs `colony swarmbench …`.
pub fn run(args: SwarmbenchArgs) -> Result<()> {
    match args.action {
        SwarmbenchAction::Physics(a) => physics(a),
    }
}

fn physics(args: PhysicsArgs) -> Result<()> {
    let text = match &args.input {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?
        }
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading stdin")?;
            s
        }
    };
    let value: serde_json::Value = serde_json::from_str(&text).context("input is not JSON")?;
    let (items, single) = match value {
        serde_json::Value::Array(items) => (items, false),
        other => (vec![other], true),
    };
    for (n, item) in items.into_iter().enumerate() {
        let at = if single {
            "scenario".to_string()
        } else {
            format!("scenario [{n}]")
        };
        let scenario: Scenario =
            serde_json::from_value(item).with_context(|| format!("{at}: bad format"))?;
        let result = run_scenario(&scenario).with_context(|| at.clone())?;
        // serde_json maps are BTreeMaps here, so keys come out sorted.
        println!("{}", serde_json::to_value(result)?);
    }
    Ok(())
}
