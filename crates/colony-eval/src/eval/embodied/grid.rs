//! Parameter grids of `colony compare --grid key=values`: every configuration × policy ×
//! seed, and the grid's report: a table per configuration, then whatever the environment
//! reports on a grid over one of its settings (Wildfire's `level` grid: the normalized score
//! per configuration and the Behavior Competency Score per policy, docs/design/wildfire.md
//! §13, next to the paper's Table 3/4 values).
//!
//! Values: `a..b` (b exclusive) or `a..=b` (integers), a comma list, or `all` for a setting
//! whose values the environment enumerates ([`EnvEntry::all_values`]; Wildfire's `level`:
//! configurations 1–17). Several `--grid` flags multiply.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use colony_env_api::EnvEntry;

/// Most configurations one grid may expand to.
pub const MAX_CONFIGURATIONS: usize = 10_000;

/// One `--grid` axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridAxis {
    /// The `--set` key.
    pub key: String,
    /// Its values, in order.
    pub values: Vec<String>,
}

/// A `--grid` value that does not parse.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("--grid {spec:?}: {message}")]
pub struct GridError {
    /// The value given.
    pub spec: String,
    /// What is wrong.
    pub message: String,
}

/// Parses `key=values` for the environment `entry` (which says what `key=all` means).
pub fn parse_axis(spec: &str, entry: &dyn EnvEntry) -> Result<GridAxis, GridError> {
    let err = |message: String| GridError {
        spec: spec.chars().take(80).collect(),
        message,
    };
    let (key, values) = spec
        .split_once('=')
        .ok_or_else(|| err("expected key=values, e.g. level=1..=17 or n=1,2,4".into()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(err("empty key".into()));
    }
    let values = values.trim();
    let num = |s: &str| -> Result<i64, GridError> {
        s.trim()
            .parse()
            .map_err(|_| err(format!("{s:?} is not an integer")))
    };
    let range = |a: i64, b: i64| -> Result<Vec<String>, GridError> {
        if b <= a {
            return Err(err("the range is empty".into()));
        }
        if (b - a) as u64 > MAX_CONFIGURATIONS as u64 {
            return Err(err(format!("more than {MAX_CONFIGURATIONS} values")));
        }
        Ok((a..b).map(|v| v.to_string()).collect())
    };
    let list: Vec<String> = if values == "all" {
        entry.all_values(key).ok_or_else(|| {
            err(format!(
                "`all` is not defined for {}'s `{key}`; list the values",
                entry.info().id
            ))
        })?
    } else if let Some((a, b)) = values.split_once("..=") {
        range(num(a)?, num(b)?.saturating_add(1))?
    } else if let Some((a, b)) = values.split_once("..") {
        range(num(a)?, num(b)?)?
    } else {
        values
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect()
    };
    if list.is_empty() {
        return Err(err("no values".into()));
    }
    Ok(GridAxis {
        key: key.to_string(),
        values: list,
    })
}

/// Parses every `key=values` of a grid over the environment `entry`.
pub fn parse_axes(
    entry: &'static dyn EnvEntry,
    specs: &[String],
) -> Result<Vec<GridAxis>, GridError> {
    specs.iter().map(|g| parse_axis(g, entry)).collect()
}

/// Every configuration of `axes` on top of `base` (`key=value` settings; a grid key replaces
/// the same key of `base`): `(label, settings)`, label `key=value[,key=value…]`.
pub fn configurations(
    base: &[String],
    axes: &[GridAxis],
) -> Result<Vec<(String, Vec<String>)>, GridError> {
    // (the grid's key=value pairs so far, the whole settings list)
    type Partial = (Vec<(String, String)>, Vec<String>);
    let mut out: Vec<Partial> = vec![(Vec::new(), base.to_vec())];
    for axis in axes {
        let mut next = Vec::new();
        for (pairs, set) in &out {
            for v in &axis.values {
                let mut pairs = pairs.clone();
                pairs.push((axis.key.clone(), v.clone()));
                let mut set: Vec<String> = set
                    .iter()
                    .filter(|kv| kv.split('=').next().map(str::trim) != Some(axis.key.as_str()))
                    .cloned()
                    .collect();
                set.push(format!("{}={v}", axis.key));
                next.push((pairs, set));
            }
        }
        if next.len() > MAX_CONFIGURATIONS {
            return Err(GridError {
                spec: axis.key.clone(),
                message: format!("the grid has more than {MAX_CONFIGURATIONS} configurations"),
            });
        }
        out = next;
    }
    Ok(out
        .into_iter()
        .map(|(pairs, set)| {
            let label = pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            (label, set)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_parse_and_multiply() {
        let r = colony_policy::registry::Registry::builtin();
        let wf = r.environment_entry("wildfire").unwrap();
        let cube = r.environment_entry("cube").unwrap();
        let all = parse_axis("level=all", wf).unwrap().values;
        assert_eq!(all.len(), 17);
        assert_eq!((all[0].as_str(), all[16].as_str()), ("1", "17"));
        assert_eq!(parse_axis("n=1,2,4", cube).unwrap().values, ["1", "2", "4"]);
        assert_eq!(parse_axis("n=1..=3", cube).unwrap().values, ["1", "2", "3"]);
        let err = parse_axis("n=all", cube).unwrap_err().to_string();
        assert!(
            err.contains("`all` is not defined for cube-v0's `n`"),
            "{err}"
        );
        assert!(parse_axis("n", cube).is_err());
        assert!(parse_axis("n=3..1", cube).is_err());
        let c = configurations(
            &["n=9".into(), "max_steps=5".into()],
            &[
                parse_axis("n=1,2", cube).unwrap(),
                parse_axis("seed_x=a,b", cube).unwrap(),
            ],
        )
        .unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c[0].0, "n=1,seed_x=a");
        assert_eq!(c[0].1, ["max_steps=5", "n=1", "seed_x=a"]);
    }
}
