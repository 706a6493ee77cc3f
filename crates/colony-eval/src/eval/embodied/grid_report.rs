//! The report of a `--grid` comparison: every configuration's table, then whatever the
//! environment reports on a grid over one of its settings ([`EnvEntry::grid_report`];
//! Wildfire's `level` grid: the normalized score per configuration and the Behavior Competency
//! Score per policy, docs/design/wildfire.md §13), written as `summary.json`, `results.md` and
//! `results.csv`.

use std::collections::BTreeMap;
use std::path::Path;

use colony_env_api::{EnvEntry, GridCell, GridInput};
use serde::{Deserialize, Serialize};

use super::compare_config::CompareError;
use super::compare_report::CompareSummary;
use super::grid::GridAxis;
use super::grid_layout::GridRows;
use crate::eval::results::write_atomic;

/// `summary.json` of a grid comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridSummary {
    /// The axes.
    pub grid: Vec<GridAxis>,
    /// Configuration labels, in grid order.
    pub order: Vec<String>,
    /// Per configuration.
    pub configurations: BTreeMap<String, CompareSummary>,
    /// Entries the environment adds for a grid over one of its settings
    /// ([`colony_env_api::EnvEntry::grid_report`]; Wildfire's `level` grid: `bcs`, NS per
    /// policy and configuration and BCS per policy).
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// The environment's extra tables for `results.md` (not stored in `summary.json`).
    #[serde(skip)]
    pub extra_markdown: String,
}

impl GridSummary {
    /// Builds the grid summary, with the environment's own tables when the grid varies one
    /// setting and the environment reports on it (`entry`'s `grid_report`).
    pub fn new(
        entry: &dyn EnvEntry,
        grid: Vec<GridAxis>,
        per: Vec<(String, CompareSummary)>,
    ) -> Self {
        let order: Vec<String> = per.iter().map(|(l, _)| l.clone()).collect();
        let configurations: BTreeMap<String, CompareSummary> = per.into_iter().collect();
        let report = match grid.as_slice() {
            [axis] if !configurations.is_empty() => {
                entry.grid_report(&grid_input(&axis.key, &order, &configurations))
            }
            _ => None,
        }
        .unwrap_or_default();
        Self {
            grid,
            order,
            configurations,
            extra: report.summary,
            extra_markdown: report.markdown,
        }
    }

    /// The rows of a grid over one setting, for the papers' layouts; `None` otherwise.
    pub fn rows(&self) -> Option<GridRows<'_>> {
        match self.grid.as_slice() {
            [axis] => Some(GridRows::new(&axis.key, &self.order, &self.configurations)),
            _ => None,
        }
    }

    /// Per-configuration tables, then (over one setting) the values × policies layout, then
    /// the environment's own tables.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for label in &self.order {
            if let Some(s) = self.configurations.get(label) {
                out.push_str(&format!("### {label}\n\n"));
                out.push_str(&s.markdown());
                out.push('\n');
            }
        }
        if let Some(rows) = self.rows() {
            out.push_str(&rows.markdown());
            out.push('\n');
        }
        out.push_str(&self.extra_markdown);
        out
    }
}

/// What the environment's grid report reads: per value of the one axis `key`, each policy's
/// mean score (`None` when no episode finished) and the baseline's mean over its seeds.
fn grid_input(
    key: &str,
    order: &[String],
    configurations: &BTreeMap<String, CompareSummary>,
) -> GridInput {
    let prefix = format!("{key}=");
    let mut input = GridInput {
        key: key.to_string(),
        values: Vec::new(),
        policies: Vec::new(),
        cells: Vec::new(),
        baseline: BTreeMap::new(),
        simulated: configurations.values().any(|s| s.simulated),
    };
    for label in order {
        let Some(s) = configurations.get(label) else {
            continue;
        };
        let value = label.strip_prefix(&prefix).unwrap_or(label).to_string();
        if let Some(d) = &s.do_nothing {
            let v: Vec<f64> = d.values().copied().collect();
            input
                .baseline
                .insert(value.clone(), v.iter().sum::<f64>() / v.len().max(1) as f64);
        }
        for policy in &s.order {
            if !input.policies.contains(policy) {
                input.policies.push(policy.clone());
            }
            if let Some(p) = s.policies.get(policy) {
                input.cells.push(GridCell {
                    value: value.clone(),
                    policy: policy.clone(),
                    score: (p.episodes > 0).then_some(p.score.mean),
                });
            }
        }
        input.values.push(value);
    }
    input
}

/// Writes the grid's `summary.json`, `results.md` and `results.csv` (every configuration's
/// rows, with a `configuration` column) into `dir`; over one setting also `by_<key>.csv` and
/// its plots ([`GridRows::write`]).
pub fn write_grid_report(
    dir: &Path,
    grid: &GridSummary,
    summaries: &[(String, CompareSummary)],
) -> Result<(), CompareError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|source| CompareError::Io { path, source })
    };
    let json = serde_json::to_string_pretty(grid).unwrap_or_default();
    write("summary.json", json.as_bytes())?;
    write("results.md", grid.markdown().as_bytes())?;
    let mut csv = String::new();
    for (i, (label, s)) in summaries.iter().enumerate() {
        for (j, line) in s.csv().lines().enumerate() {
            if j == 0 {
                if i == 0 {
                    csv.push_str(&format!("configuration,{line}\n"));
                }
                continue;
            }
            let quoted = super::compare_table::csv_field(label);
            csv.push_str(&format!("{quoted},{line}\n"));
        }
    }
    write("results.csv", csv.as_bytes())?;
    if let Some(rows) = grid.rows() {
        rows.write(dir)?;
    }
    Ok(())
}
