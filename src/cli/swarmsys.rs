//! `colony swarmsys match`: the matching distribution of SwarmSys (docs/design/swarmsys.md §2.6)
//! for given compatibilities, so others can check it: reads
//! `{"compat": [[s_ij …] per agent], "outcomes": [[0|1 …] per agent]}` and prints
//! `{"epsilon": [ε_i …], "p": [[P(j|i) …] per agent]}`.
//!
//! Outcomes are optional; they may sit in the `--compat` object or come from `--outcomes
//! FILE` (an object with an `outcomes` key, or the bare list), not both. Input limits: files
//! of at most [`MAX_MATCH_FILE_BYTES`], at most [`MAX_MATCH_AGENTS`] agents and
//! [`MAX_MATCH_EVENTS`] events. This file only parses, calls the library and prints.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::policy::swarmsys::reasoning::matching::{
    distribution, DistributionRequest, EpsilonBounds, EPS_MAX, EPS_MIN, GAMMA, WINDOW,
};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use serde_json::Value;

/// Arguments of `colony swarmsys`.
#[derive(Args, Debug)]
pub struct SwarmsysArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: SwarmsysAction,
}

/// Subcommands of `colony swarmsys`.
#[derive(Subcommand, Debug)]
pub enum SwarmsysAction {
    /// The ε-greedy matching distribution P(j|i) for given compatibilities and outcomes.
    Match(MatchArgs),
}

/// Largest input file read, in bytes (16 MiB).
pub const MAX_MATCH_FILE_BYTES: u64 = 16 << 20;
/// Most agents (rows) accepted.
pub const MAX_MATCH_AGENTS: usize = 4096;
/// Most events (columns) accepted.
pub const MAX_MATCH_EVENTS: usize = 4096;

/// Arguments of `colony swarmsys match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// JSON object `{"compat": [[s_ij, …], …], "outcomes": [[0|1, …], …]}`: one row per agent,
    /// one compatibility in [0, 1] per event; `outcomes` (oldest first) is optional.
    #[arg(long, value_name = "FILE")]
    pub compat: PathBuf,
    /// Outcomes from their own file (`{"outcomes": […]}` or the bare list of rows) instead of
    /// the `--compat` object.
    #[arg(long, value_name = "FILE")]
    pub outcomes: Option<PathBuf>,
    /// Sharpness γ of the exploitation sigmoid.
    #[arg(long, default_value_t = GAMMA, value_name = "G")]
    pub gamma: f64,
    /// Lower bound of ε.
    #[arg(long, default_value_t = EPS_MIN, value_name = "A")]
    pub eps_min: f64,
    /// Upper bound of ε.
    #[arg(long, default_value_t = EPS_MAX, value_name = "B")]
    pub eps_max: f64,
    /// Outcomes in the recent-success window.
    #[arg(long, default_value_t = WINDOW, value_name = "W")]
    pub window: usize,
    /// Print `{"epsilon", "p"}` as one JSON object (default: a table).
    #[arg(long)]
    pub json: bool,
}

/// Runs `colony swarmsys …`.
pub fn run(args: SwarmsysArgs) -> anyhow::Result<()> {
    match args.action {
        SwarmsysAction::Match(a) => run_match(a),
    }
}

fn run_match(a: MatchArgs) -> anyhow::Result<()> {
    let name = format!(
        "--compat {}",
        colony_env_api::clip(&a.compat.display().to_string())
    );
    let doc = read_json(&a.compat, &name)?;
    let Some(obj) = doc.as_object() else {
        bail!("{name}: expected a JSON object with a `compat` field");
    };
    let compat = match obj.get("compat") {
        Some(v) => rows(v, &name, "compat", |x| x.as_f64())?,
        None => bail!("{name}: missing field `compat`"),
    };
    let mut outcomes = match obj.get("outcomes") {
        Some(Value::Null) | None => None,
        Some(v) => Some(rows(v, &name, "outcomes", Value::as_i64)?),
    };
    if let Some(path) = &a.outcomes {
        let oname = format!(
            "--outcomes {}",
            colony_env_api::clip(&path.display().to_string())
        );
        if outcomes.is_some() {
            bail!("{oname}: outcomes are given twice (also in {name}); give them once");
        }
        let doc = read_json(path, &oname)?;
        let v = match &doc {
            Value::Object(o) => o
                .get("outcomes")
                .with_context(|| format!("{oname}: missing field `outcomes`"))?,
            other => other,
        };
        outcomes = Some(rows(v, &oname, "outcomes", Value::as_i64)?);
    }
    let request = DistributionRequest {
        compat,
        outcomes,
        gamma: a.gamma,
        bounds: EpsilonBounds {
            min: a.eps_min,
            max: a.eps_max,
        },
        window: a.window,
    };
    let d = distribution(&request).with_context(|| name.clone())?;
    if a.json {
        println!("{}", serde_json::to_string(&d)?);
    } else {
        for (i, (e, p)) in d.epsilon.iter().zip(&d.p).enumerate() {
            let p: Vec<String> = p.iter().map(|x| format!("{x:.4}")).collect();
            println!("agent {i}: epsilon {e:.4}  p [{}]", p.join(", "));
        }
    }
    Ok(())
}

/// Reads at most [`MAX_MATCH_FILE_BYTES`] of JSON.
fn read_json(path: &Path, name: &str) -> anyhow::Result<Value> {
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot read file"))?;
    let mut text = String::new();
    file.take(MAX_MATCH_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("{name}: cannot read file"))?;
    if text.len() as u64 > MAX_MATCH_FILE_BYTES {
        bail!(
            "{name}: the file is larger than {} MiB",
            MAX_MATCH_FILE_BYTES >> 20
        );
    }
    serde_json::from_str(&text).with_context(|| format!("{name}: not valid JSON"))
}

/// A list of rows of values `get` accepts; errors name the file and the field.
fn rows<T>(
    v: &Value,
    name: &str,
    field: &str,
    get: impl Fn(&Value) -> Option<T>,
) -> anyhow::Result<Vec<Vec<T>>> {
    let Some(list) = v.as_array() else {
        bail!("{name}: field `{field}` must be a list of rows (one per agent)");
    };
    if list.len() > MAX_MATCH_AGENTS {
        bail!(
            "{name}: field `{field}` has {} rows, at most {MAX_MATCH_AGENTS} are accepted",
            list.len()
        );
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, row) in list.iter().enumerate() {
        let Some(row) = row.as_array() else {
            bail!("{name}: field `{field}[{i}]` must be a list");
        };
        if row.len() > MAX_MATCH_EVENTS {
            bail!(
                "{name}: field `{field}[{i}]` has {} entries, at most {MAX_MATCH_EVENTS} are accepted",
                row.len()
            );
        }
        let mut r = Vec::with_capacity(row.len());
        for (j, x) in row.iter().enumerate() {
            match get(x) {
                Some(value) => r.push(value),
                None => bail!(
                    "{name}: field `{field}[{i}][{j}]` must be a {}, got {}",
                    if field == "compat" {
                        "number"
                    } else {
                        "0 or 1"
                    },
                    colony_env_api::clip(&x.to_string())
                ),
            }
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("colony-swarmsys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn args(compat: PathBuf, outcomes: Option<PathBuf>) -> MatchArgs {
        MatchArgs {
            compat,
            outcomes,
            gamma: GAMMA,
            eps_min: EPS_MIN,
            eps_max: EPS_MAX,
            window: WINDOW,
            json: true,
        }
    }

    #[test]
    fn bad_inputs_name_the_file_and_the_field() {
        for (file, text, needle) in [
            ("a.json", "[1]", "expected a JSON object"),
            ("b.json", "{}", "missing field `compat`"),
            (
                "c.json",
                "{\"compat\": [[0.5, \"x\"]]}",
                "`compat[0][1]` must be a number",
            ),
            (
                "d.json",
                "{\"compat\": [[0.5, 1.5]]}",
                "`compat[0][1]` must be a number in [0, 1]",
            ),
            (
                "e.json",
                "{\"compat\": [[0.5], 3]}",
                "`compat[1]` must be a list",
            ),
            (
                "f.json",
                "{\"compat\": [[0.5]], \"outcomes\": [[2]]}",
                "`outcomes[0][0]` must be 0 or 1",
            ),
            (
                "g.json",
                "{\"compat\": [[0.5], [0.1, 0.2]]}",
                "`compat[1]` has 2 events",
            ),
            ("h.json", "{\"compat\": ", "not valid JSON"),
        ] {
            let p = write(file, text);
            let e = format!("{:#}", run_match(args(p, None)).unwrap_err());
            assert!(e.contains(needle) && e.contains(file), "{e}");
        }
        let p = write("i.json", "{\"compat\": [[0.5]], \"outcomes\": [[1]]}");
        let o = write("o.json", "[[1]]");
        let e = format!("{:#}", run_match(args(p, Some(o.clone()))).unwrap_err());
        assert!(e.contains("given twice"), "{e}");
        let p = write("j.json", "{\"compat\": [[0.9, 0.8, 0.6]]}");
        run_match(args(p, Some(o))).unwrap();
        let missing = write("k.json", "{}").with_file_name("nope.json");
        let e = format!("{:#}", run_match(args(missing, None)).unwrap_err());
        assert!(e.contains("nope.json") && e.contains("cannot read"), "{e}");
    }
}
