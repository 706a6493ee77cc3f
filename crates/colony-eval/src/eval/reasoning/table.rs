//! The results tables of `colony eval`, from a [`Summary`]: the paper's Table 1 layout
//! (accuracy per dataset, AVG, AVG-R, tokens; docs/design/grading.md §5.3) as Markdown and CSV,
//! the paired comparison against `--baseline`, the policy-metrics table and the call-latency
//! table. The data and its merging stay in [`super::summary`]; this file only renders.

use std::fmt::Write as _;

use super::summary::{PolicySummary, Summary};
use crate::eval::embodied::compare_table::csv_field;

/// Accuracy in percent rounded to 2 decimals, the precision ranks use (design §5.3).
fn percent2(accuracy: f64) -> f64 {
    (accuracy * 10_000.0).round() / 100.0
}

/// One row of the results table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// Method name.
    pub method: String,
    /// Accuracy in percent (2 decimals, the precision ranks use) per dataset, `None` where the
    /// method has no results or answered no item (an all-error policy is not scored 0).
    pub accuracy: Vec<Option<f64>>,
    /// The 95% Wilson interval per dataset, in percent, where `accuracy` has a value.
    pub ci95: Vec<Option<[f64; 2]>>,
    /// Unweighted mean over the scored datasets of the unrounded accuracies (from counts),
    /// in percent; `None` when no dataset is scored.
    pub avg: Option<f64>,
    /// Mean dense rank over the scored datasets (lower is better), 2 decimals; `None` when
    /// no dataset is scored.
    pub avg_rank: Option<f64>,
    /// Totals over all datasets.
    pub totals: PolicySummary,
}

/// The line a simulated results table opens with.
pub const SIMULATION_BANNER: &str = "**SIMULATION**: offline simulated model (`sim`); these \
     numbers test the pipeline, not a model.\n\n";

impl Summary {
    /// Every policy with its totals in the table's row order ([`super::table_order`]), the
    /// one order of every table and list of the run (results, metrics, latency, judge).
    pub fn policies_in_order(&self) -> Vec<(&String, &PolicySummary)> {
        let mut out: Vec<(&String, &PolicySummary)> = self.policies.iter().collect();
        out.sort_by_cached_key(|(m, _)| super::table_order::method_key(m));
        out
    }

    /// The table: one row per policy in the SelfOrg paper's row order (see
    /// [`super::table_order`]), AVG and AVG-R by the dense-rank rule of design §5.3.
    pub fn rows(&self) -> Vec<TableRow> {
        let names = self.dataset_names();
        // The scored results of a method on a dataset: present and with answered items.
        let scored =
            |d: &str, method: &str| self.datasets[d].get(method).filter(|s| s.answered() > 0);
        // Dense rank per dataset: distinct 2-decimal accuracies, best first.
        let ranks: Vec<Vec<f64>> = names
            .iter()
            .map(|d| {
                let mut values: Vec<f64> = self.datasets[d]
                    .values()
                    .filter_map(|s| s.accuracy.map(percent2))
                    .collect();
                values.sort_by(|a, b| b.total_cmp(a));
                values.dedup();
                values
            })
            .collect();
        let mut rows: Vec<TableRow> = self
            .policies
            .iter()
            .map(|(method, totals)| {
                let per: Vec<Option<&PolicySummary>> =
                    names.iter().map(|d| scored(d, method)).collect();
                let accuracy: Vec<Option<f64>> = per
                    .iter()
                    .map(|s| s.and_then(|s| s.accuracy.map(percent2)))
                    .collect();
                let ci95 = per
                    .iter()
                    .map(|s| {
                        s.and_then(|s| s.accuracy_ci95)
                            .map(|[lo, hi]| [100.0 * lo, 100.0 * hi])
                    })
                    .collect();
                let present: Vec<(usize, f64, f64)> = per
                    .iter()
                    .zip(&accuracy)
                    .enumerate()
                    .filter_map(|(i, (s, a))| Some((i, (*a)?, 100.0 * (*s)?.accuracy?)))
                    .collect();
                let (avg, avg_rank) = if present.is_empty() {
                    (None, None)
                } else {
                    let count = present.len() as f64;
                    let avg = present.iter().map(|(_, _, exact)| exact).sum::<f64>() / count;
                    let rank_sum: f64 = present
                        .iter()
                        .map(|(i, a, _)| {
                            (ranks[*i].iter().position(|v| v == a).unwrap_or(0) + 1) as f64
                        })
                        .sum();
                    // Round half up to 2 decimals; the epsilon keeps x.xx5 from falling below.
                    let rank = ((rank_sum / count) * 100.0 + 0.5 + 1e-9).floor() / 100.0;
                    (Some(avg), Some(rank))
                };
                TableRow {
                    method: method.clone(),
                    accuracy,
                    ci95,
                    avg,
                    avg_rank,
                    totals: totals.clone(),
                }
            })
            .collect();
        rows.sort_by_key(|r| super::table_order::method_key(&r.method));
        rows
    }

    /// The table as Markdown: accuracy in % (2 decimals) with its 95% Wilson interval per
    /// dataset, AVG, AVG-R, answered items, tokens, calls, errors, failed calls, items with no
    /// extracted answer; then a line saying what the brackets mean and how many items stand
    /// behind each dataset. "—" marks a method that answered no item of a dataset (all
    /// errors): it is not scored, and not ranked.
    pub fn markdown(&self) -> String {
        let names = self.dataset_names();
        let mut out = self
            .stopped
            .as_deref()
            .map(crate::eval::partial::stopped_banner)
            .unwrap_or_default();
        // Decision: a simulated table says so before its first row, so a number copied from
        // stdout or results.md cannot pass for a model's (as compare's tables do).
        if self.simulated() {
            out.push_str(SIMULATION_BANNER);
        }
        out.push_str("| Method |");
        for d in &names {
            out.push_str(&format!(" {d} (%) |"));
        }
        // Decision: the cost column appears only when some model had a
        // price; a run without prices has no column rather than a column of zeros.
        let priced = self.policies.values().any(|p| p.cost_usd.is_some());
        out.push_str(
            " AVG | AVG-R | Answered | Prompt tokens | Completion tokens | Calls | Errors | Failed calls | No answer |",
        );
        if priced {
            out.push_str(" Cost (USD) |");
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(names.len() + 9 + usize::from(priced)));
        out.push('\n');
        let or_dash = |x: Option<f64>| x.map_or_else(|| "—".to_string(), |x| format!("{x:.2}"));
        for row in self.rows() {
            out.push_str(&format!("| {} |", row.method));
            for (i, (a, ci)) in row.accuracy.iter().zip(&row.ci95).enumerate() {
                let has = self.datasets[&names[i]].contains_key(&row.method);
                match (a, ci) {
                    (Some(a), Some([lo, hi])) => {
                        out.push_str(&format!(" {a:.2} [{lo:.1}, {hi:.1}] |"))
                    }
                    (Some(a), None) => out.push_str(&format!(" {a:.2} |")),
                    (None, _) if has => out.push_str(" — |"),
                    (None, _) => out.push_str(" – |"),
                }
            }
            let t = &row.totals;
            out.push_str(&format!(
                " {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                or_dash(row.avg),
                or_dash(row.avg_rank),
                t.answered(),
                t.prompt_tokens,
                t.completion_tokens,
                t.calls,
                t.errors,
                t.failed_calls,
                t.no_answer
            ));
            if priced {
                out.push_str(&format!(" {} |", usd_cell(t.cost_usd)));
            }
            out.push('\n');
        }
        let items: Vec<String> = names
            .iter()
            .map(|d| {
                let n = self.datasets[d].values().map(|s| s.n).max().unwrap_or(0);
                format!("{d} {n}")
            })
            .collect();
        out.push_str(&format!(
            "\nAccuracy: % correct over answered items (errored items are not scored), with the \
             95% Wilson score interval in brackets; AVG is the mean of the unrounded per-dataset \
             accuracies, AVG-R the mean dense rank. — : every item errored. Items per dataset: \
             {}.\n",
            items.join(", ")
        ));
        // pass@k of the runs that drew several completions per item (`--samples`), per
        // dataset and policy.
        for (d, per) in &self.datasets {
            for (policy, s) in per.iter().filter(|(_, s)| !s.pass_at_k.is_empty()) {
                let mut ks: Vec<(usize, f64)> = s
                    .pass_at_k
                    .iter()
                    .filter_map(|(k, v)| k.parse().ok().map(|k| (k, *v)))
                    .collect();
                ks.sort_by_key(|(k, _)| *k);
                let shown: Vec<String> = ks
                    .iter()
                    .map(|(k, v)| format!("pass@{k} {:.2}%", 100.0 * v))
                    .collect();
                out.push_str(&format!("\n{policy} on {d}: {}.\n", shown.join(", ")));
            }
        }
        if let Some(table) = self.baseline_markdown() {
            out.push('\n');
            out.push_str(&table);
        }
        out
    }

    /// The table of the `--baseline` comparisons (per method, over all datasets and per
    /// dataset), or `None` without one.
    pub fn baseline_markdown(&self) -> Option<String> {
        let mut rows = Vec::new();
        for row in self.rows() {
            let mut scopes: Vec<(String, &PolicySummary)> = vec![("all".into(), &row.totals)];
            for d in self.dataset_names() {
                if let Some(s) = self.datasets[&d].get(&row.method) {
                    scopes.push((d, s));
                }
            }
            for (scope, s) in scopes {
                if let Some(v) = &s.vs_baseline {
                    let ci = v.ci95.map_or("—".into(), |[lo, hi]| {
                        format!("[{:+.1}, {:+.1}]", 100.0 * lo, 100.0 * hi)
                    });
                    rows.push(format!(
                        "| {} | {scope} | {:+.2} | {ci} | {:.4} | {} | {} / {} |\n",
                        row.method,
                        100.0 * v.delta,
                        v.p_value,
                        v.pairs,
                        v.policy_only,
                        v.baseline_only
                    ));
                }
            }
        }
        let base = self
            .policies
            .values()
            .find_map(|p| p.vs_baseline.as_ref())?;
        let mut out = format!(
            "Versus baseline `{}` on the items both answered: Δ accuracy in points, 95% paired \
             bootstrap interval ({} resamples, seed {}), exact McNemar p-value.\n\n\
             | Method | Dataset | Δ (pp) | 95% CI | p (McNemar) | Pairs | Only this / only baseline |\n\
             |---|---|---|---|---|---|---|\n",
            base.baseline, base.draws, base.seed
        );
        for r in rows {
            out.push_str(&r);
        }
        Some(out)
    }

    /// The table as CSV: one line per (method, dataset), plus the method's AVG and AVG-R
    /// (empty when not scored) and the 95% Wilson interval (fractions; empty when no item was
    /// answered).
    pub fn csv(&self) -> String {
        // First, as in compare's CSV: SIMULATION on a simulated run's rows.
        let mut out = String::from(
            "label,method,dataset,accuracy,n,correct,prompt_tokens,completion_tokens,calls,errors,wall_s,avg,avg_r,failed_calls,no_answer,ci95_lo,ci95_hi,call_p50_ms,call_p95_ms,call_p99_ms",
        );
        let priced = self.policies.values().any(|p| p.cost_usd.is_some());
        let judged = self.policies.values().any(|p| p.judge.is_some());
        if priced {
            out.push_str(",cost_usd");
        }
        // The judge's numbers, named by their grader, only when a judge graded (docs/design/
        // grading.md §7.4): existing readers of the CSV see the same columns otherwise.
        if judged {
            out.push_str(
                ",judge_grader,judge_accuracy,judge_score,judge_kappa,judge_errors,judge_tokens",
            );
        }
        out.push('\n');
        let label = if self.simulated() { "SIMULATION" } else { "" };
        let opt =
            |x: Option<f64>, digits: usize| x.map_or(String::new(), |x| format!("{x:.digits$}"));
        for row in self.rows() {
            for d in self.dataset_names() {
                if let Some(s) = self.datasets[&d].get(&row.method) {
                    let [lo, hi] = s
                        .accuracy_ci95
                        .map_or([None, None], |[l, h]| [Some(l), Some(h)]);
                    let [p50, p95, p99] = s
                        .call_latency_ms
                        .map_or([None, None, None], |[a, b, c]| [Some(a), Some(b), Some(c)]);
                    out.push_str(&format!(
                        "{label},{},{},{},{},{},{},{},{},{},{:.3},{},{},{},{},{},{},{},{},{}",
                        // A label may hold commas (`debate:agents=3,rounds=2`): quoted.
                        csv_field(&row.method),
                        csv_field(&d),
                        opt(s.accuracy, 6),
                        s.n,
                        s.correct,
                        s.prompt_tokens,
                        s.completion_tokens,
                        s.calls,
                        s.errors,
                        s.wall_s,
                        opt(row.avg, 2),
                        opt(row.avg_rank, 2),
                        s.failed_calls,
                        s.no_answer,
                        opt(lo, 6),
                        opt(hi, 6),
                        opt(p50, 1),
                        opt(p95, 1),
                        opt(p99, 1),
                    ));
                    if priced {
                        out.push_str(&format!(",{}", opt(s.cost_usd, 6)));
                    }
                    if judged {
                        match &s.judge {
                            Some(j) => out.push_str(&format!(
                                ",{},{},{},{},{},{}",
                                csv_field(&j.grader),
                                opt(j.accuracy, 6),
                                opt(j.mean_score, 6),
                                opt(j.kappa, 6),
                                j.errors,
                                j.tokens
                            )),
                            None => out.push_str(",,,,,,"),
                        }
                    }
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// A dollar amount for a table cell: cents below $1,000, "–" when unknown.
pub fn usd_cell(cost: Option<f64>) -> String {
    cost.map_or("–".into(), |c| {
        if c < 0.01 && c > 0.0 {
            format!("{c:.4}")
        } else {
            format!("{c:.2}")
        }
    })
}

/// The "Policy metrics" table of `summary` (one row per policy that reports metrics, one
/// column per metric name, the mean over all datasets), or `None` when no policy has any.
pub fn metrics_markdown(summary: &Summary) -> Option<String> {
    let mut names: Vec<&String> = summary
        .policies
        .values()
        .flat_map(|p| p.metrics.keys())
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    let mut out = String::from(
        "Policy metrics (mean over the items that report each; see the policy's docs):\n\n| Method |",
    );
    for n in &names {
        let _ = write!(out, " {n} |");
    }
    out.push_str(" Items |\n|---|");
    out.push_str(&"---|".repeat(names.len() + 1));
    out.push('\n');
    for (method, p) in summary
        .policies_in_order()
        .into_iter()
        .filter(|(_, p)| !p.metrics.is_empty())
    {
        let _ = write!(out, "| {method} |");
        for n in &names {
            match p.metrics.get(*n) {
                Some(m) => {
                    let _ = write!(out, " {:.3} |", m.mean);
                }
                None => out.push_str(" – |"),
            }
        }
        let items = p.metrics.values().map(|m| m.items).max().unwrap_or(0);
        let _ = writeln!(out, " {items} |");
    }
    Some(out)
}

/// The call-latency table of `summary` (per policy over all datasets: calls, p50, p95, p99),
/// or `None` when no call was timed.
pub fn latency_markdown(summary: &Summary) -> Option<String> {
    let rows: Vec<String> = summary
        .policies_in_order()
        .into_iter()
        .filter_map(|(name, s)| {
            let [p50, p95, p99] = s.call_latency_ms?;
            let rate = if s.wall_s > 0.0 {
                format!("{:.2}", s.calls as f64 / s.wall_s)
            } else {
                "–".into()
            };
            Some(format!(
                "| {name} | {} | {p50:.1} | {p95:.1} | {p99:.1} | {:.1} | {rate} |\n",
                s.calls, s.wall_s
            ))
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(format!(
        "Model-call latency in milliseconds (successful calls; nearest-rank percentiles; \
         replayed calls keep their recorded latency), the items' summed wall time, and calls per \
         second of it:\n\n| Method | Calls | p50 | p95 | p99 | wall s | calls/s |\n\
         |---|---|---|---|---|---|---|\n{}",
        rows.concat()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::ItemResult;

    fn ps(correct: usize, n: usize) -> PolicySummary {
        let mut s = PolicySummary::default();
        s.add(&PolicySummary {
            n,
            correct,
            calls: n as u64,
            prompt_tokens: 10 * n as u64,
            completion_tokens: 5 * n as u64,
            ..PolicySummary::default()
        });
        s
    }

    #[test]
    fn dense_ranks_avg_and_totals_over_datasets() {
        let mut s = Summary::default();
        // gsm8k: a 80%, b 80%, c 60% → dense ranks 1, 1, 2.
        s.record("gsm8k", "a", ps(8, 10));
        s.record("gsm8k", "b", ps(8, 10));
        s.record("gsm8k", "c", ps(6, 10));
        // math: a 50%, b 75%, c 25% → ranks 2, 1, 3.
        s.record("math", "a", ps(2, 4));
        s.record("math", "b", ps(3, 4));
        s.record("math", "c", ps(1, 4));
        let rows = s.rows();
        let by = |m: &str| rows.iter().find(|r| r.method == m).unwrap().clone();
        // Columns in the paper's order: MATH before GSM8K.
        assert_eq!(by("a").accuracy, vec![Some(50.0), Some(80.0)]);
        assert!((by("a").avg.unwrap() - 65.0).abs() < 1e-9);
        assert_eq!(by("a").avg_rank, Some(1.5));
        assert_eq!(by("b").avg_rank, Some(1.0));
        assert_eq!(by("c").avg_rank, Some(2.5));
        // Totals span both datasets.
        assert_eq!(s.policies["a"].n, 14);
        assert_eq!(s.policies["a"].correct, 10);
        assert!((s.policies["a"].accuracy.unwrap() - 10.0 / 14.0).abs() < 1e-12);
        let md = s.markdown();
        assert!(
            md.contains("| math (%) | gsm8k (%) | AVG | AVG-R |"),
            "{md}"
        );
        // Accuracy with its Wilson interval: 1/4 → [4.6, 69.9], 6/10 → [31.3, 83.2].
        assert!(
            md.contains("| c | 25.00 [4.6, 69.9] | 60.00 [31.3, 83.2] | 42.50 | 2.50 | 14 |"),
            "{md}"
        );
        assert!(md.contains("Items per dataset: math 4, gsm8k 10."), "{md}");
        let csv = s.csv();
        assert_eq!(csv.lines().count(), 1 + 6);
        assert!(csv.contains("\n,b,math,0.750000,4,3,"), "{csv}");
    }

    #[test]
    fn rerecording_replaces_and_missing_datasets_show_a_dash() {
        let mut s = Summary::default();
        s.record("gsm8k", "a", ps(1, 10));
        s.record("gsm8k", "a", ps(9, 10));
        s.record("math", "b", ps(1, 3));
        assert_eq!(s.policies["a"].correct, 9);
        let rows = s.rows();
        assert_eq!(rows[0].accuracy, vec![None, Some(90.0)]);
        assert_eq!(rows[0].avg_rank, Some(1.0));
        assert!(
            s.markdown().contains("| a | – | 90.00 ["),
            "{}",
            s.markdown()
        );
        // Repeating thirds: 33.33 % (2 decimals), AVG-R rounded half up.
        assert_eq!(rows[1].accuracy, vec![Some(33.33), None]);
    }

    #[test]
    fn an_all_error_method_is_not_scored_and_avg_comes_from_counts() {
        let mut s = Summary::default();
        s.record("gsm8k", "a", ps(1, 3));
        s.record("math", "a", ps(1, 3));
        let mut failed = ps(0, 3);
        failed.add(&PolicySummary {
            n: 0,
            errors: 3,
            ..PolicySummary::default()
        });
        s.record("gsm8k", "broken", failed);
        let rows = s.rows();
        let broken = rows.iter().find(|r| r.method == "broken").unwrap();
        assert_eq!((broken.avg, broken.avg_rank), (None, None));
        assert_eq!(broken.accuracy, vec![None, None]);
        assert!(s.policies["broken"].accuracy_ci95.is_none());
        // summary.json says null, not 0.0.
        assert_eq!(s.policies["broken"].accuracy, None);
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["policies"]["broken"]["accuracy"].is_null(), "{json}");
        let md = s.markdown();
        assert!(md.contains("| broken | – | — | — | — | 0 |"), "{md}");
        // AVG is the mean of the exact 1/3s (33.333…%), not of the rounded 33.33s.
        let a = rows.iter().find(|r| r.method == "a").unwrap();
        assert!((a.avg.unwrap() - 100.0 / 3.0).abs() < 1e-9);
        // The failing method does not push `a` down the ranks.
        assert_eq!(a.avg_rank, Some(1.0));
    }

    #[test]
    fn rows_and_columns_follow_the_papers_table_1() {
        let mut s = Summary::default();
        for m in ["selforg", "agentverse", "single", "macnet", "cot", "dylan"] {
            for d in ["aime-2024", "gsm8k", "math"] {
                s.record(d, m, ps(1, 2));
            }
        }
        let methods: Vec<String> = s.rows().into_iter().map(|r| r.method).collect();
        assert_eq!(
            methods,
            ["single", "cot", "dylan", "macnet", "agentverse", "selforg"]
        );
        assert_eq!(s.dataset_names(), ["math", "gsm8k", "aime-2024"]);
        assert!(s
            .markdown()
            .starts_with("| Method | math (%) | gsm8k (%) | aime-2024 (%) | AVG | AVG-R |"));
    }

    #[test]
    fn replies_without_an_answer_are_wrong_and_counted_apart_from_errors() {
        let item = |answer: Option<&str>, correct: bool, error: Option<&str>| ItemResult {
            id: "1".into(),
            policy: "single".into(),
            dataset: "mmlu".into(),
            answer: answer.map(str::to_string),
            gold: "A".into(),
            correct,
            error: error.map(str::to_string),
            failed_calls: u64::from(error.is_some()),
            fatal: false,
            calls: 1,
            retries: 0,
            prompt_tokens: 10,
            completion_tokens: 2,
            wall_ms: 1.0,
            cost_usd: None,
            call_latency_ms: vec![2.0, 1.0],
            trace: serde_json::Value::Null,
            transcript: None,
            unsandboxed: false,
            tool_calls: 0,
            tool_errors: 0,
            tool_ms: 0.0,
            samples: 0,
            samples_correct: 0,
            judge_correct: None,
            judge: None,
            response: None,
            judge_transcript: None,
        };
        let s = PolicySummary::of(&[
            item(Some("A"), true, None),
            item(Some("B"), false, None),
            item(None, false, None),
            item(None, false, Some("HTTP 500")),
        ]);
        assert_eq!((s.n, s.correct, s.errors, s.no_answer), (4, 1, 1, 1));
        // The unanswered reply is a wrong answer; the failed call is not scored.
        assert!((s.accuracy.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        let mut t = Summary::default();
        t.record("mmlu", "single", s);
        assert!(t.markdown().contains("| Failed calls | No answer |"));
        assert!(t.markdown().contains("| 1 | 1 | 1 |\n"), "{}", t.markdown());
        let line: Vec<String> = t
            .csv()
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .map(String::from)
            .collect();
        assert_eq!(line[13..15], ["1", "1"], "{line:?}");
    }

    #[test]
    fn old_summaries_without_datasets_still_load() {
        let s: Summary = serde_json::from_str(r#"{"policies": {}}"#).unwrap();
        assert!(s.datasets.is_empty());
    }
}
