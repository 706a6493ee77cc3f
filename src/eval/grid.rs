//! Parameter grids of `colony compare --grid key=values`: every configuration × policy ×
//! seed, and the grid's report (a table per configuration and, on Wildfire's `level` grid,
//! the normalized score per configuration and the Behavior Competency Score per policy,
//! docs/design/wildfire.md §13, next to the paper's Table 3/4 values).
//!
//! Values: `a..b` (b exclusive) or `a..=b` (integers), a comma list, or `all` for Wildfire's
//! `level` (configurations 1–17). Several `--grid` flags multiply.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::compare_report::CompareSummary;

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

/// Parses `key=values`.
pub fn parse_axis(spec: &str) -> Result<GridAxis, GridError> {
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
        if key != "level" {
            return Err(err("`all` is defined for Wildfire's `level` only".into()));
        }
        (1..=17).map(|v: u32| v.to_string()).collect()
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

/// The paper's mean raw scores (CREW-Wildfire Table 3) of a framework on a configuration
/// (1–17), for `camon`, `coela`, `embodied` and `hmas2`.
pub fn paper_score(policy: &str, level: &str) -> Option<f64> {
    let column = match policy {
        "camon" => 0,
        "coela" => 1,
        "embodied" => 2,
        "hmas2" => 3,
        _ => return None,
    };
    let row: [f64; 4] = match level.trim() {
        "1" => [18.0, 14.0, 14.6, 17.4],
        "2" => [72.0, 57.67, 50.33, 56.33],
        "3" => [30.0, 30.0, 30.0, 28.0],
        "4" => [94.33, 83.67, 90.33, 90.33],
        "5" => [1.6, 0.0, 0.8, 1.2],
        "6" | "11" | "12" => [0.0; 4],
        "7" => [6.0, 3.0, 4.6, 4.4],
        "8" => [10.0, 8.33, 9.33, 8.33],
        "9" => [3.0, 0.67, 2.67, 2.33],
        "10" => [4.0, 0.0, 4.33, 4.0],
        "13" => [-593.33, -635.0, -636.33, -624.33],
        "14" => [-736.67, -751.33, -757.33, -739.0],
        "15" => [-1062.67; 4],
        "16" => [-729.67; 4],
        "17" => [-5571.67, -5516.0, -5539.33, -5522.67],
        _ => return None,
    };
    Some(row[column])
}

/// `summary.json` of a grid comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridSummary {
    /// The axes.
    pub grid: Vec<GridAxis>,
    /// Configuration labels, in grid order.
    pub order: Vec<String>,
    /// Per configuration.
    pub configurations: BTreeMap<String, CompareSummary>,
    /// Wildfire `level` grids: NS per policy and configuration, and BCS per policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bcs: Option<colony_wildfire::metrics::BcsReport>,
}

impl GridSummary {
    /// Builds the grid summary; computes NS and BCS when the grid runs Wildfire levels.
    pub fn new(grid: Vec<GridAxis>, per: Vec<(String, CompareSummary)>) -> Self {
        let order: Vec<String> = per.iter().map(|(l, _)| l.clone()).collect();
        let configurations: BTreeMap<String, CompareSummary> = per.into_iter().collect();
        let levels_only = grid.len() == 1 && grid[0].key == "level";
        let bcs = if levels_only
            && configurations.values().all(|s| s.do_nothing.is_some())
            && !configurations.is_empty()
        {
            let mut scores: colony_wildfire::metrics::Scores = BTreeMap::new();
            let mut dn = BTreeMap::new();
            for (label, s) in &configurations {
                let level = label.trim_start_matches("level=").to_string();
                if let Some(d) = &s.do_nothing {
                    let v: Vec<f64> = d.values().copied().collect();
                    dn.insert(level.clone(), v.iter().sum::<f64>() / v.len().max(1) as f64);
                }
                for (policy, p) in &s.policies {
                    if p.episodes > 0 {
                        scores
                            .entry(policy.clone())
                            .or_default()
                            .insert(level.clone(), p.score.mean);
                    }
                }
            }
            colony_wildfire::metrics::bcs(&scores, &dn).ok()
        } else {
            None
        };
        Self {
            grid,
            order,
            configurations,
            bcs,
        }
    }

    /// Per-configuration tables, then (Wildfire levels) the NS table with the paper's raw
    /// scores beside ours and the BCS table.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for label in &self.order {
            if let Some(s) = self.configurations.get(label) {
                out.push_str(&format!("### {label}\n\n"));
                out.push_str(&s.markdown());
                out.push('\n');
            }
        }
        if let Some(report) = &self.bcs {
            let sim = if self.configurations.values().any(|s| s.simulated) {
                " [SIMULATION]"
            } else {
                ""
            };
            out.push_str(&format!(
                "### Normalized score per configuration{sim}\n\n| configuration | policy | score | NS | paper score |\n|---|---|---|---|---|\n"
            ));
            for label in &self.order {
                let level = label.trim_start_matches("level=");
                let Some(s) = self.configurations.get(label) else {
                    continue;
                };
                for policy in &s.order {
                    let Some(p) = s.policies.get(policy) else {
                        continue;
                    };
                    let ns = report
                        .ns
                        .get(policy)
                        .and_then(|m| m.get(level))
                        .map_or("–".to_string(), |v| format!("{v:.3}"));
                    let paper =
                        paper_score(policy, level).map_or("–".into(), |v| format!("{v:.2}"));
                    out.push_str(&format!(
                        "| {label} | {policy} | {:.2} | {ns} | {paper} |\n",
                        p.score.mean
                    ));
                }
            }
            out.push_str(&format!("\n### Behavior Competency Score{sim}\n\n"));
            out.push_str(&colony_wildfire::metrics::markdown(report));
            if let Some(paper) = self.paper_bcs() {
                out.push_str(
                    "\n### Behavior Competency Score of the paper's frameworks (Table 3 scores on \
                     the same configurations, the paper's Do-Nothing; Table 4 when all 17 run)\n\n",
                );
                out.push_str(&colony_wildfire::metrics::markdown(&paper));
            }
        }
        out
    }

    /// The paper's BCS (from its Table 3 raw scores and Do-Nothing constants) restricted to
    /// this grid's configurations, for the frameworks this run compared; `None` when it ran
    /// none of them.
    pub fn paper_bcs(&self) -> Option<colony_wildfire::metrics::BcsReport> {
        let levels: Vec<&str> = self
            .order
            .iter()
            .map(|l| l.trim_start_matches("level="))
            .collect();
        let mut scores: colony_wildfire::metrics::Scores = BTreeMap::new();
        let policies: std::collections::BTreeSet<&String> = self
            .configurations
            .values()
            .flat_map(|s| s.order.iter())
            .collect();
        for policy in policies {
            for level in &levels {
                if let Some(v) = paper_score(policy, level) {
                    scores
                        .entry(format!("{policy} (paper)"))
                        .or_default()
                        .insert((*level).to_string(), v);
                }
            }
        }
        if scores.is_empty() {
            return None;
        }
        colony_wildfire::metrics::bcs(&scores, &BTreeMap::new()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_bcs_over_all_levels_is_table_4() {
        let order: Vec<String> = (1..=17).map(|l| format!("level={l}")).collect();
        let summary = |policy: &str| CompareSummary {
            env: "wildfire-v0".into(),
            config: Vec::new(),
            model: "sim".into(),
            sampling: Vec::new(),
            simulated: true,
            seeds: vec![0],
            order: vec![policy.to_string()],
            policies: BTreeMap::new(),
            do_nothing: None,
        };
        let g = GridSummary {
            grid: vec![parse_axis("level=all").unwrap()],
            order: order.clone(),
            configurations: order
                .iter()
                .map(|l| (l.clone(), summary("camon")))
                .collect(),
            bcs: None,
        };
        let paper = g.paper_bcs().unwrap();
        // Design §13.4 (Table 4): CAMON TD 0.454, RC 0.430.
        let camon = &paper.bcs["camon (paper)"];
        assert!((camon["TD"] - 0.454).abs() < 5e-4, "{camon:?}");
        assert!((camon["RC"] - 0.430).abs() < 5e-4, "{camon:?}");
    }

    #[test]
    fn axes_parse_and_multiply() {
        assert_eq!(parse_axis("level=all").unwrap().values.len(), 17);
        assert_eq!(parse_axis("n=1,2,4").unwrap().values, ["1", "2", "4"]);
        assert_eq!(parse_axis("n=1..=3").unwrap().values, ["1", "2", "3"]);
        assert!(parse_axis("n=all").is_err());
        assert!(parse_axis("n").is_err());
        assert!(parse_axis("n=3..1").is_err());
        let c = configurations(
            &["n=9".into(), "max_steps=5".into()],
            &[
                parse_axis("n=1,2").unwrap(),
                parse_axis("seed_x=a,b").unwrap(),
            ],
        )
        .unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c[0].0, "n=1,seed_x=a");
        assert_eq!(c[0].1, ["max_steps=5", "n=1", "seed_x=a"]);
        assert_eq!(paper_score("camon", "2"), Some(72.0));
        assert_eq!(paper_score("independent", "2"), None);
    }
}
