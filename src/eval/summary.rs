//! Run summaries: per-policy totals (`summary.json`) and the results table of the paper's
//! Table 1 (accuracy per dataset, AVG, AVG-R, tokens) as Markdown and CSV
//! (docs/design/grading.md §5.3).
//!
//! Several `colony eval` runs into the same output directory, one per dataset, accumulate:
//! `summary.json` keeps every dataset's per-policy totals and the table spans them all.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::metrics::{item_metrics, merge, MetricMean};
use super::results::ItemResult;
use crate::llm::Sampling;
use crate::policy::reasoning::Roster;

/// Totals of one policy over its finished items.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicySummary {
    /// Items finished.
    pub n: usize,
    /// Correct items.
    pub correct: usize,
    /// `correct / (n − errors)`: accuracy over the answered items (errors are not wrong
    /// answers; they are counted apart, as lm-eval-harness and Inspect report them); `null`
    /// when no item was answered (every one errored), never a 0 that reads as all wrong.
    pub accuracy: Option<f64>,
    /// The 95% Wilson score interval of the accuracy over the answered items
    /// ([`super::stats::wilson95`]); absent when no item was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy_ci95: Option<[f64; 2]>,
    /// Items that ended in an error (not scored).
    pub errors: usize,
    /// The paired comparison with `--baseline` (absent without one, and on the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_baseline: Option<VsBaseline>,
    /// Failed model calls, errored items and answered ones alike.
    #[serde(default)]
    pub failed_calls: u64,
    /// Items whose replies arrived but named no answer the grader could extract: scored wrong
    /// (the model did not answer), and counted apart so a format problem is told from wrong
    /// answers in every table.
    #[serde(default)]
    pub no_answer: usize,
    /// Model calls.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Sum of item wall times, seconds.
    pub wall_s: f64,
    /// Latency of the successful model calls, milliseconds: the median, 95th and 99th
    /// percentiles (nearest rank) over every timed call of the finished items (issue 26,
    /// part 3); absent when no call was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_latency_ms: Option<[f64; 3]>,
    /// Metrics the policy reports per item (top-level numbers of the trace's `metrics`
    /// object), each the mean over the items that report it ([`super::metrics`]); left out
    /// of the JSON when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, MetricMean>,
}

/// A policy against the `--baseline` policy on the items both answered (issue 26, part 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VsBaseline {
    /// The baseline's label.
    pub baseline: String,
    /// Accuracy difference (this policy − baseline) on the paired items, as a fraction.
    pub delta: f64,
    /// Paired bootstrap 95% percentile interval of `delta`.
    pub ci95: Option<[f64; 2]>,
    /// Exact two-sided McNemar p-value.
    pub p_value: f64,
    /// Items both answered (the pairs).
    pub pairs: usize,
    /// Pairs the baseline got right and this policy wrong.
    pub baseline_only: usize,
    /// Pairs this policy got right and the baseline wrong.
    pub policy_only: usize,
    /// Bootstrap resamples.
    pub draws: usize,
    /// Seed of the resampling (`--seed`).
    pub seed: u64,
}

impl VsBaseline {
    /// The comparison of `policy` with `baseline` over `(correct_policy, correct_baseline)`
    /// pairs of items both answered.
    pub fn of(baseline: &str, pairs: &[(bool, bool)], draws: usize, seed: u64) -> Self {
        let diffs: Vec<f64> = pairs
            .iter()
            .map(|&(p, b)| f64::from(u8::from(p)) - f64::from(u8::from(b)))
            .collect();
        let baseline_only = pairs.iter().filter(|&&(p, b)| b && !p).count();
        let policy_only = pairs.iter().filter(|&&(p, b)| p && !b).count();
        Self {
            baseline: baseline.to_string(),
            delta: super::stats::mean_or_zero(&diffs),
            ci95: super::stats::bootstrap_mean_ci(&diffs, draws, seed),
            p_value: super::stats::mcnemar_exact(baseline_only, policy_only),
            pairs: pairs.len(),
            baseline_only,
            policy_only,
            draws,
            seed,
        }
    }
}

/// `summary.json`: `{"policies": {"<name>": {…}}, "datasets": {"<dataset>": {"<name>": {…}}},
/// "settings": {"<dataset>": {"<name>": {…}}}}`; `policies` holds each policy's totals over
/// all datasets, `settings` what each run asked for ([`RunSettings`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Per policy, totals over every dataset, ordered by name.
    pub policies: BTreeMap<String, PolicySummary>,
    /// Per dataset, per policy.
    #[serde(default)]
    pub datasets: BTreeMap<String, BTreeMap<String, PolicySummary>>,
    /// Per dataset, per policy: the settings of the latest run (kept in `settings.json`,
    /// since they cannot be rebuilt from the per-item files).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, BTreeMap<String, RunSettings>>,
    /// Why the run that wrote this summary stopped before every policy was done (a failure no
    /// retry can fix); absent when it ran to the end. Its Markdown opens with it (issue 26,
    /// part 5: a stopped run's table must not look finished).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// What one `colony eval` run of a policy on a dataset asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// Run seed (`--seed`).
    pub run_seed: u64,
    /// The roster, in order: what each agent's calls ask for unless the policy sets a field
    /// for one call.
    pub agents: Vec<AgentSettings>,
    /// The policy spec the label ran with (`--rounds` applied, `label=` removed); absent in
    /// directories written before labels. A rerun of the label with other options is refused
    /// (issue 26, part 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
}

/// One agent of [`RunSettings`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentSettings {
    /// Agent id (`agent_0`, …).
    pub agent: String,
    /// Role card name.
    pub role: String,
    /// Model id.
    pub model: String,
    /// Effective sampling after every layer (role card, flags, `models.toml`, built-in
    /// default); unset fields are left to the server.
    pub sampling: Sampling,
}

impl RunSettings {
    /// The settings of a run of `roster` with `run_seed`.
    pub fn of(roster: &Roster, run_seed: u64) -> Self {
        let agents = roster
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| AgentSettings {
                agent: Roster::agent_id(i),
                role: m.role.name.clone(),
                model: m.model.id().to_string(),
                sampling: roster.effective_sampling(i).unwrap_or_default(),
            })
            .collect();
        Self {
            run_seed,
            agents,
            spec: None,
        }
    }
}

impl PolicySummary {
    /// Totals of `results`.
    pub fn of(results: &[ItemResult]) -> Self {
        let mut s = PolicySummary::default();
        for r in results {
            s.add(&PolicySummary {
                n: 1,
                correct: usize::from(r.correct),
                accuracy: None,
                accuracy_ci95: None,
                vs_baseline: None,
                errors: usize::from(r.error.is_some()),
                failed_calls: r.failed_calls,
                no_answer: usize::from(r.error.is_none() && r.answer.is_none()),
                calls: r.calls,
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
                wall_s: r.wall_ms / 1000.0,
                call_latency_ms: None,
                metrics: item_metrics(&r.trace),
            });
        }
        s.call_latency_ms = super::latency::latency_percentiles(results);
        s
    }

    /// Adds `other`'s counts to these and recomputes the accuracy.
    fn add(&mut self, other: &PolicySummary) {
        self.n += other.n;
        self.correct += other.correct;
        self.errors += other.errors;
        // Saturating: a server's absurd usage must not wrap a total around (issue 30, item 8).
        self.failed_calls = self.failed_calls.saturating_add(other.failed_calls);
        self.no_answer += other.no_answer;
        self.calls = self.calls.saturating_add(other.calls);
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.wall_s += other.wall_s;
        // Percentiles do not add up: totals get theirs from the items themselves
        // ([`super::latency::latency_percentiles`], in `rebuild_summary_with`).
        self.call_latency_ms = None;
        merge(&mut self.metrics, &other.metrics);
        let answered = self.answered();
        self.accuracy = (answered > 0).then(|| self.correct as f64 / answered as f64);
        self.accuracy_ci95 = super::stats::wilson95(self.correct, answered);
    }

    /// The accuracy, or NaN when no item was answered: for plots and sweeps that need a
    /// number, where NaN shows as a gap or "NaN" (never as 0, which would read as all wrong).
    pub fn accuracy_or_nan(&self) -> f64 {
        self.accuracy.unwrap_or(f64::NAN)
    }

    /// Items with an answer to score (finished minus errored): the accuracy's denominator.
    pub fn answered(&self) -> usize {
        self.n.saturating_sub(self.errors)
    }
}

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

impl Summary {
    /// Records one policy's results on one dataset and refreshes its totals.
    pub fn record(&mut self, dataset: &str, policy: &str, summary: PolicySummary) {
        self.datasets
            .entry(dataset.to_string())
            .or_default()
            .insert(policy.to_string(), summary);
        let mut total = PolicySummary::default();
        for per in self.datasets.values() {
            if let Some(s) = per.get(policy) {
                total.add(s);
            }
        }
        self.policies.insert(policy.to_string(), total);
    }

    /// Dataset names, in the table's column order (the SelfOrg paper's, see
    /// [`super::table_order`]).
    pub fn dataset_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.datasets.keys().cloned().collect();
        names.sort_by_key(|d| super::table_order::dataset_key(d));
        names
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
            .map(super::compare_report::stopped_banner)
            .unwrap_or_default();
        out.push_str("| Method |");
        for d in &names {
            out.push_str(&format!(" {d} (%) |"));
        }
        out.push_str(
            " AVG | AVG-R | Answered | Prompt tokens | Completion tokens | Calls | Errors | Failed calls | No answer |\n|---|",
        );
        out.push_str(&"---|".repeat(names.len() + 9));
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
                " {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
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
        let mut out = String::from(
            "method,dataset,accuracy,n,correct,prompt_tokens,completion_tokens,calls,errors,wall_s,avg,avg_r,failed_calls,no_answer,ci95_lo,ci95_hi,call_p50_ms,call_p95_ms,call_p99_ms\n",
        );
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
                        "{},{d},{},{},{},{},{},{},{},{:.3},{},{},{},{},{},{},{},{},{}\n",
                        row.method,
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
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(csv.contains("\nb,math,0.750000,4,3,"), "{csv}");
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
        // summary.json says null, not 0.0 (issue 30, item 10).
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
            call_latency_ms: vec![2.0, 1.0],
            trace: serde_json::Value::Null,
            transcript: None,
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
        assert_eq!(line[12..14], ["1", "1"], "{line:?}");
    }

    #[test]
    fn old_summaries_without_datasets_still_load() {
        let s: Summary = serde_json::from_str(r#"{"policies": {}}"#).unwrap();
        assert!(s.datasets.is_empty());
    }
}
