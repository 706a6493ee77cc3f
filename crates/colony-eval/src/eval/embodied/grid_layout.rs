//! The papers' layouts of a grid over one setting: rows are the setting's
//! values, columns the policies, as CREW-Wildfire's Table 3 (levels × frameworks, with
//! Do-Nothing) and CUBE's Fig. 9 (completed blocks against n) lay them out; the same figures
//! as a long CSV (`by_<key>.csv`) and as line charts (`score_by_<key>`, `<metric>_by_<key>`,
//! SVG and PNG).
//!
//! Decisions:
//! - Cells are the mean over the seeds that finished, with the 95% t interval of the score
//!   when there are two seeds or more, and the number of seeds; "–" where nothing finished.
//! - The baseline column (the environment's baseline policy, Wildfire's Do-Nothing) appears
//!   when the run measured one.
//! - Every paper metric the environment reports gets a table and a plot of its own.
//! - Plots are drawn over a numeric setting only (`n`, `level`), with the value on the x
//!   axis; a categorical setting (SwarmBench's `task`) has no order to draw a line along, so
//!   it gets the tables and the CSV, and the transposed table with totals (Table S.1).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::compare_config::CompareError;
use super::compare_report::CompareSummary;
use super::compare_table::csv_field;
use crate::eval::plot::{line_chart, Caption, Line};

/// The configurations of a one-setting grid, in grid order: `(value, summary)`.
pub struct GridRows<'a> {
    /// The setting (`level`, `n`).
    pub key: &'a str,
    /// `(value, summary)` per configuration, in grid order.
    pub rows: Vec<(String, &'a CompareSummary)>,
}

impl<'a> GridRows<'a> {
    /// The rows of `order`'s configurations (labels `key=value`).
    pub fn new(
        key: &'a str,
        order: &[String],
        configurations: &'a BTreeMap<String, CompareSummary>,
    ) -> Self {
        let prefix = format!("{key}=");
        let rows = order
            .iter()
            .filter_map(|label| {
                let s = configurations.get(label)?;
                Some((label.strip_prefix(&prefix).unwrap_or(label).to_string(), s))
            })
            .collect();
        Self { key, rows }
    }

    fn policies(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (_, s) in &self.rows {
            for p in &s.order {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    fn metrics(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .rows
            .iter()
            .flat_map(|(_, s)| s.policies.values().flat_map(|p| p.metrics.keys().cloned()))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn simulated(&self) -> bool {
        self.rows.iter().any(|(_, s)| s.simulated)
    }

    /// The score table and one table per paper metric, rows = values, columns = policies.
    pub fn markdown(&self) -> String {
        let policies = self.policies();
        let key = self.key;
        let sim = if self.simulated() {
            " [SIMULATION]"
        } else {
            ""
        };
        let baseline = self.rows.iter().any(|(_, s)| s.do_nothing.is_some());
        let mut out = format!("### Score per {key} and policy{sim}\n\n| {key} |");
        if baseline {
            out.push_str(" baseline |");
        }
        for p in &policies {
            let _ = write!(out, " {p} |");
        }
        let _ = writeln!(
            out,
            "\n|{}",
            "---|".repeat(policies.len() + 1 + usize::from(baseline))
        );
        for (value, s) in &self.rows {
            let _ = write!(out, "| {value} |");
            if baseline {
                let dn: Vec<f64> = s
                    .do_nothing
                    .as_ref()
                    .map(|d| d.values().copied().collect())
                    .unwrap_or_default();
                let cell = if dn.is_empty() {
                    "–".to_string()
                } else {
                    // `+ 0.0` prints a mean of -0.0 as 0.00.
                    format!("{:.2}", dn.iter().sum::<f64>() / dn.len() as f64 + 0.0)
                };
                let _ = write!(out, " {cell} |");
            }
            for p in &policies {
                let cell =
                    s.policies
                        .get(p)
                        .filter(|x| x.episodes > 0)
                        .map_or("–".to_string(), |x| match x.score_ci95 {
                            Some([lo, hi]) => {
                                format!("{:.2} [{lo:.2}, {hi:.2}] (n={})", x.score.mean, x.episodes)
                            }
                            None => format!("{:.2} (n={})", x.score.mean, x.episodes),
                        });
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
        out.push_str(
            "\nMean score over the seeds that finished, the 95% Student t interval of the mean \
             in brackets (two seeds or more) and the number of seeds.",
        );
        if baseline {
            out.push_str(
                " Baseline: the environment's baseline policy (Wildfire's Do-Nothing) on the \
                 same seeds.",
            );
        }
        out.push('\n');
        if self.xs().1 != self.key {
            out.push_str(&self.by_policy_markdown(&policies, sim));
        }
        for metric in self.metrics() {
            let _ = write!(out, "\n### {metric} per {key} and policy{sim}\n\n| {key} |");
            for p in &policies {
                let _ = write!(out, " {p} |");
            }
            let _ = writeln!(out, "\n|{}", "---|".repeat(policies.len() + 1));
            for (value, s) in &self.rows {
                let _ = write!(out, "| {value} |");
                for p in &policies {
                    let cell = s
                        .policies
                        .get(p)
                        .and_then(|x| x.metrics.get(&metric))
                        .map_or("–".to_string(), |m| {
                            format!("{:.2} ± {:.2}", m.mean, m.std)
                        });
                    let _ = write!(out, " {cell} |");
                }
                out.push('\n');
            }
            out.push_str("\nMean ± population std over the seeds that finished.\n");
        }
        out
    }

    /// Over a categorical setting (SwarmBench's tasks): the transposed table, policies by
    /// values with the total over them, SwarmBench's Table S.1 layout. The total is given
    /// only for a policy scored on every value.
    fn by_policy_markdown(&self, policies: &[String], sim: &str) -> String {
        let key = self.key;
        let mut out =
            format!("\n### Score per policy and {key}, with the total{sim}\n\n| policy |");
        for (value, _) in &self.rows {
            let _ = write!(out, " {value} |");
        }
        let _ = writeln!(out, " Total |\n|{}", "---|".repeat(self.rows.len() + 2));
        for p in policies {
            let means: Vec<Option<f64>> = self
                .rows
                .iter()
                .map(|(_, s)| {
                    s.policies
                        .get(p)
                        .filter(|x| x.episodes > 0)
                        .map(|x| x.score.mean)
                })
                .collect();
            let _ = write!(out, "| {p} |");
            for m in &means {
                let _ = write!(out, " {} |", m.map_or("–".into(), |v| format!("{v:.2}")));
            }
            let total: Option<f64> = means.iter().copied().sum();
            let _ = writeln!(
                out,
                " {} |",
                total.map_or("–".into(), |v| format!("{v:.2}"))
            );
        }
        out.push_str(
            "\nMean score over the seeds that finished; Total: their sum over the columns.\n",
        );
        out
    }

    /// The same figures as a long CSV: one line per value and policy.
    pub fn csv(&self) -> String {
        let metrics = self.metrics();
        let mut out = format!(
            "{},policy,episodes,errors,score_mean,score_sd,score_ci95_lo,score_ci95_hi",
            self.key
        );
        for m in &metrics {
            let _ = write!(out, ",{m}");
        }
        out.push('\n');
        let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
        for (value, s) in &self.rows {
            for p in &s.order {
                let Some(x) = s.policies.get(p) else { continue };
                let [lo, hi] = x
                    .score_ci95
                    .map_or([None, None], |[l, h]| [Some(l), Some(h)]);
                let _ = write!(
                    out,
                    "{},{},{},{},{},{},{},{}",
                    csv_field(value),
                    csv_field(p),
                    x.episodes,
                    x.errors,
                    opt(x.score_mean),
                    opt(x.score_sd),
                    opt(lo),
                    opt(hi)
                );
                for m in &metrics {
                    let _ = write!(out, ",{}", opt(x.metrics.get(m).map(|v| v.mean)));
                }
                out.push('\n');
            }
        }
        out
    }

    /// The x position of each row: its value when all are numbers, else its grid position.
    fn xs(&self) -> (Vec<f64>, String) {
        let parsed: Option<Vec<f64>> = self
            .rows
            .iter()
            .map(|(v, _)| v.parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        match parsed {
            Some(xs) => (xs, self.key.to_string()),
            None => (
                (1..=self.rows.len()).map(|i| i as f64).collect(),
                format!("{} (grid order)", self.key),
            ),
        }
    }

    /// Writes `by_<key>.csv` and, over a numeric setting, the plots into `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), CompareError> {
        let key = colony_policy::file_component(self.key);
        let path = dir.join(format!("by_{key}.csv"));
        crate::eval::results::write_atomic(&path, self.csv().as_bytes())
            .map_err(|source| CompareError::Io { path, source })?;
        let (xs, x_label) = self.xs();
        if x_label != self.key {
            return Ok(());
        }
        // The settings every row shares (the varied one is the x axis): `cube-v0, agents=4`.
        let varied = format!("{}=", self.key);
        let env = self.rows.first().map_or(String::new(), |(_, s)| {
            super::compare_report::configuration_title(
                &s.env,
                s.config
                    .iter()
                    .map(String::as_str)
                    .filter(|c| !c.starts_with(&varied)),
            )
        });
        let series = |value: &dyn Fn(&CompareSummary, &str) -> Option<f64>| -> Vec<Line> {
            self.policies()
                .into_iter()
                .map(|p| Line {
                    points: xs
                        .iter()
                        .zip(&self.rows)
                        .filter_map(|(x, (_, s))| value(s, &p).map(|y| (*x, y)))
                        .collect(),
                    name: p,
                    markers_only: false,
                })
                .collect()
        };
        let mut charts: Vec<(String, String, Vec<Line>)> = vec![(
            "score".into(),
            "score (mean over seeds)".into(),
            series(&|s, p| {
                s.policies
                    .get(p)
                    .filter(|x| x.episodes > 0)
                    .map(|x| x.score.mean)
            }),
        )];
        for m in self.metrics() {
            let lines = series(&|s, p| {
                s.policies
                    .get(p)
                    .and_then(|x| x.metrics.get(&m))
                    .map(|v| v.mean)
            });
            charts.push((m.clone(), format!("{m} (mean over seeds)"), lines));
        }
        for (name, y_label, lines) in charts {
            let ys: Vec<f64> = lines
                .iter()
                .flat_map(|l| l.points.iter().map(|p| p.1))
                .collect();
            let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let range = crate::eval::plot::padded(lo, hi, 0.08, 0.08);
            let file = dir.join(format!(
                "{}_by_{key}.svg",
                colony_policy::file_component(&name)
            ));
            line_chart(
                &file,
                &Caption::new(format!("{name} per {} — {env}", self.key), self.simulated()),
                &x_label,
                &y_label,
                range,
                &lines,
            )?;
        }
        Ok(())
    }
}
