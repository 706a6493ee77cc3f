//! Run summaries: per-policy totals (`summary.json`) and the results table of the paper's
//! Table 1 (accuracy per dataset, AVG, AVG-R, tokens) as Markdown and CSV
//! (docs/design/grading.md §5.3).
//!
//! Several `colony eval` runs into the same output directory, one per dataset, accumulate:
//! `summary.json` keeps every dataset's per-policy totals and the table spans them all.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::metrics::{item_metrics, merge, MetricMean};
use crate::eval::results::ItemResult;
use colony_llm::Sampling;
use colony_policy::reasoning::Roster;

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
    /// ([`crate::eval::stats::wilson95`]); absent when no item was answered.
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
    /// What the calls cost in US dollars at the models' prices; absent
    /// when no model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Latency of the successful model calls, milliseconds: the median, 95th and 99th
    /// percentiles (nearest rank) over every timed call of the finished items; absent
    /// when no call was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_latency_ms: Option<[f64; 3]>,
    /// Metrics the policy reports per item (top-level numbers of the trace's `metrics`
    /// object), each the mean over the items that report it ([`super::metrics`]); left out
    /// of the JSON when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, MetricMean>,
    /// Tool calls of the items (`--tools`; omitted when none).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_calls: u64,
    /// Of those, the failed ones (counted, never scored as answers).
    #[serde(default, skip_serializing_if = "crate::eval::results::is_default")]
    pub tool_errors: u64,
    /// pass@k (`--samples n`): the mean over the answered items of the HumanEval paper's
    /// unbiased estimate, for k = 1, 5, 10, 100 up to n; absent without samples.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k: BTreeMap<String, f64>,
    /// The judge's grades, agreement with the rules, calls, tokens and cost (`--judge`;
    /// absent without one): its tokens and cost are never in the fields above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<crate::eval::judge::JudgeSummary>,
}

/// A policy against the `--baseline` policy on the items both answered.
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
            delta: crate::eval::stats::mean_or_zero(&diffs),
            ci95: crate::eval::stats::bootstrap_mean_ci(&diffs, draws, seed),
            p_value: crate::eval::stats::mcnemar_exact(baseline_only, policy_only),
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
    /// retry can fix); absent when it ran to the end. Its Markdown opens with it (a
    /// stopped run's table must not look finished).
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
    /// directories written before labels. A rerun of the label with other options is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// Completions per item (`--samples`; absent for one).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub samples: u32,
    /// How items were graded when a judge took part (`judge equivalence by MODEL`, `both
    /// equivalence by MODEL`); absent for rules only. A rerun under another grading is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<String>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n <= 1
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
    /// The model is the offline simulated one (absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub simulated: bool,
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
                simulated: m.model.simulated(),
            })
            .collect();
        Self {
            run_seed,
            agents,
            spec: None,
            samples: 1,
            grade: None,
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
                cost_usd: r.cost_usd,
                call_latency_ms: None,
                metrics: item_metrics(&r.trace),
                tool_calls: r.tool_calls,
                tool_errors: r.tool_errors,
                pass_at_k: BTreeMap::new(),
                judge: None,
            });
        }
        s.judge = crate::eval::judge::JudgeSummary::of(results);
        s.call_latency_ms = super::latency::latency_percentiles(results);
        s.pass_at_k = super::samples::pass_at_k_means(results)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        s
    }

    /// Adds `other`'s counts to these and recomputes the accuracy.
    pub(crate) fn add(&mut self, other: &PolicySummary) {
        self.n += other.n;
        self.correct += other.correct;
        self.errors += other.errors;
        // Saturating: a server's absurd usage must not wrap a total around.
        self.failed_calls = self.failed_calls.saturating_add(other.failed_calls);
        self.no_answer += other.no_answer;
        self.calls = self.calls.saturating_add(other.calls);
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.wall_s += other.wall_s;
        self.cost_usd = crate::eval::stats::add_costs(self.cost_usd, other.cost_usd);
        // Percentiles do not add up: totals get theirs from the items themselves
        // ([`super::latency::latency_percentiles`], in `rebuild_summary_with`).
        self.call_latency_ms = None;
        merge(&mut self.metrics, &other.metrics);
        self.tool_calls = self.tool_calls.saturating_add(other.tool_calls);
        self.tool_errors = self.tool_errors.saturating_add(other.tool_errors);
        // Means do not add up: totals get theirs from the items (as the percentiles above).
        self.pass_at_k.clear();
        match (&mut self.judge, &other.judge) {
            (Some(mine), Some(theirs)) => mine.add(theirs),
            (None, Some(theirs)) => self.judge = Some(theirs.clone()),
            _ => {}
        }
        let answered = self.answered();
        self.accuracy = (answered > 0).then(|| self.correct as f64 / answered as f64);
        self.accuracy_ci95 = crate::eval::stats::wilson95(self.correct, answered);
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

/// Whether some run of `settings` (dataset → policy → settings, as `settings.json` keeps
/// them) used the offline simulated model: the one rule of every SIMULATION label of an eval.
pub fn simulated_in(settings: &BTreeMap<String, BTreeMap<String, RunSettings>>) -> bool {
    settings
        .values()
        .flat_map(|per| per.values())
        .flat_map(|s| &s.agents)
        .any(|a| a.simulated)
}

impl Summary {
    /// Whether some run of this summary used the offline simulated model (its plots then say
    /// SIMULATION).
    pub fn simulated(&self) -> bool {
        simulated_in(&self.settings)
    }

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
}
