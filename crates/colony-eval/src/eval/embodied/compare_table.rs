//! The tables of a comparison (`results.md`, `results.csv`): one row per policy with the
//! score, its intervals, the paired test against `--baseline`, Wildfire's normalized score,
//! the environment's paper metrics, steps, calls, tokens and (with prices) cost.

use super::compare_report::CompareSummary;

/// `s` as one CSV field: quoted, with quotes doubled, when it holds a comma, quote or newline.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The most paper metrics shown as columns of the main Markdown table.
const MAX_INLINE_METRICS: usize = 3;

impl CompareSummary {
    /// Whether some policy's calls were priced. Decision: only then is
    /// there a cost column, rather than a column of zeros.
    fn priced(&self) -> bool {
        self.policies.values().any(|p| p.cost_usd.is_some())
    }

    pub(crate) fn title(&self) -> String {
        let sim = if self.simulated {
            " [SIMULATION: offline simulated model]"
        } else {
            ""
        };
        format!("{} — model {}{sim}", self.env, self.model)
    }

    /// The `--baseline` policy, when the comparisons were made.
    fn baseline(&self) -> Option<&str> {
        self.policies
            .values()
            .find_map(|p| p.vs_baseline.as_ref().map(|v| v.baseline.as_str()))
    }

    fn metric_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .policies
            .values()
            .flat_map(|p| p.metrics.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The table rows; with `metrics`, one column per paper metric.
    fn rows(&self, with_metrics: bool) -> Vec<Vec<String>> {
        let metrics = if with_metrics {
            self.metric_names()
        } else {
            Vec::new()
        };
        let wildfire = self.do_nothing.is_some();
        let baseline = self.baseline().is_some();
        let priced = self.priced();
        self.order
            .iter()
            .filter_map(|name| self.policies.get(name).map(|p| (name, p)))
            .map(|(name, p)| {
                let n = (p.episodes + p.errors).max(1) as f64;
                let mut row = vec![
                    name.clone(),
                    p.episodes.to_string(),
                    p.errors.to_string(),
                    format!("{:.3} ± {:.3}", p.score.mean, p.score.std),
                    p.score_sd.map_or("–".into(), |x| format!("{x:.3}")),
                    p.score_ci95
                        .map_or("–".into(), |[lo, hi]| format!("[{lo:.3}, {hi:.3}]")),
                ];
                if baseline {
                    row.push(p.vs_baseline.as_ref().map_or("–".into(), |v| {
                        let ci = v
                            .ci95
                            .map_or("–".into(), |[lo, hi]| format!("[{lo:+.3}, {hi:+.3}]"));
                        format!("{:+.3} {ci} p={:.4} (n={})", v.delta, v.p_value, v.pairs)
                    }));
                }
                if wildfire {
                    row.push(p.normalized_score.map_or("–".into(), |x| format!("{x:.3}")));
                }
                for m in &metrics {
                    row.push(
                        p.metrics
                            .get(m)
                            .map_or("–".into(), |x| format!("{:.2} ± {:.2}", x.mean, x.std)),
                    );
                }
                row.extend([
                    format!("{:.1}", p.steps_mean),
                    format!("{:.1}", p.calls as f64 / n),
                    format!("{:.0}", (p.prompt_tokens + p.completion_tokens) as f64 / n),
                    p.fallbacks.to_string(),
                    p.failed_calls.to_string(),
                ]);
                if priced {
                    row.push(crate::eval::reasoning::table::usd_cell(p.cost_usd));
                }
                row
            })
            .collect()
    }

    /// The table header; with `metrics`, one column per paper metric.
    fn header(&self, with_metrics: bool) -> Vec<String> {
        let mut h: Vec<String> = [
            "policy",
            "episodes",
            "errors",
            "score (mean ± std)",
            "score sd (n−1)",
            "score 95% CI (t)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some(b) = self.baseline() {
            h.push(format!("vs {b}: Δ [95% CI] sign-flip p"));
        }
        if self.do_nothing.is_some() {
            h.push("NS vs Do-Nothing".into());
        }
        if with_metrics {
            h.extend(self.metric_names());
        }
        h.extend(
            [
                "steps",
                "calls/episode",
                "tokens/episode",
                "fallbacks",
                "failed calls",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        if self.priced() {
            h.push("cost (USD, all episodes)".into());
        }
        h
    }

    /// The Markdown table, titled (SIMULATION when simulated), with a line saying what the
    /// ± and the intervals mean and how many seeds stand behind them.
    pub fn markdown(&self) -> String {
        // Decision: a few paper metrics (CUBE's two) sit in the main table; more (SwarmBench's
        // twelve group-dynamics metrics, paper App. F) get a table of their own below it.
        let inline = self.metric_names().len() <= MAX_INLINE_METRICS;
        let h = self.header(inline);
        let mut out = self
            .stopped
            .as_deref()
            .map(crate::eval::partial::stopped_banner)
            .unwrap_or_default();
        out.push_str(&format!("## {}\n\n", self.title()));
        out.push_str(&format!("| {} |\n", h.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(h.len())));
        for row in self.rows(inline) {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out.push_str(&format!(
            "\nScore over the episodes that finished without an error, {} seed(s) per policy: \
             mean ± population std, the sample sd (n−1) and the 95% Student t interval of the \
             mean.{}\n",
            self.seeds.len(),
            self.baseline().map_or(String::new(), |b| format!(
                " Versus `{b}`: mean paired difference over the seeds both scored, 95% paired \
                 bootstrap interval, two-sided paired sign-flip p-value (exact up to 16 seeds)."
            ))
        ));
        if !inline {
            out.push_str(&self.metrics_markdown());
        }
        out
    }

    /// The paper metrics as their own table: policies by metrics, mean ± population std over
    /// the episodes that finished.
    fn metrics_markdown(&self) -> String {
        let names = self.metric_names();
        let mut out = format!(
            "\n### Paper metrics\n\n| policy | {} |\n|{}\n",
            names.join(" | "),
            "---|".repeat(names.len() + 1)
        );
        for name in &self.order {
            let Some(p) = self.policies.get(name) else {
                continue;
            };
            let cells: Vec<String> = names
                .iter()
                .map(|m| {
                    p.metrics
                        .get(m)
                        .map_or("–".into(), |x| format!("{:.2} ± {:.2}", x.mean, x.std))
                })
                .collect();
            out.push_str(&format!("| {name} | {} |\n", cells.join(" | ")));
        }
        out.push_str(
            "\nMean ± population std over the episodes that finished without an error; each \
             episode's value is its own mean over its states.\n",
        );
        out
    }

    /// The same table as CSV (a `label` column says SIMULATION when simulated).
    pub fn csv(&self) -> String {
        let quote = csv_field;
        let label = if self.simulated { "SIMULATION" } else { "" };
        let mut out = String::new();
        let mut h = self.header(true);
        h.insert(0, "label".into());
        h.insert(1, "env".into());
        out.push_str(&h.iter().map(|s| quote(s)).collect::<Vec<_>>().join(","));
        out.push('\n');
        for mut row in self.rows(true) {
            row.insert(0, label.into());
            row.insert(1, self.env.clone());
            out.push_str(&row.iter().map(|s| quote(s)).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }
}
