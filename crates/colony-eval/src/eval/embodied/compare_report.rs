//! The report of `colony compare`: `summary.json`, `results.md`, `results.csv` and two SVG
//! plots, from `episodes.jsonl` (so a resumed run reports exactly what an uninterrupted one
//! would).
//!
//! Per policy: mean ± std of the environment's score over the episodes that finished without
//! an error (errored episodes are counted apart, never scored), the paper's metrics
//! (SwarmBench: the score; CUBE: delivered weight and steps; Wildfire: the normalized score
//! against Do-Nothing measured in the same run on the same seeds, docs/design/wildfire.md §13.2),
//! calls, tokens, fallbacks and failed calls. A simulated run says SIMULATION in every table and
//! plot title.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::compare_config::{CompareConfig, CompareError, EpisodeResult};
use super::compare_latency::{latency_markdown, policy_latency, PolicyLatency};
use super::env_run::mean_std;
use super::episode::{run_episode, EpisodeConfig, NullSink};
use crate::eval::plot::{error_bar_chart, line_chart, Caption, Line, MeanBar};
use crate::eval::results::write_atomic;
use colony_policy::embodied::Scripted;

/// Mean and population standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    /// Mean.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
}

impl MeanStd {
    fn of(xs: &[f64]) -> Self {
        let (mean, std) = mean_std(xs);
        Self { mean, std }
    }
}

/// One policy's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyStats {
    /// Episodes that finished without an error (the ones scored).
    pub episodes: usize,
    /// Episodes that ended with an error (not scored).
    pub errors: usize,
    /// Seeds of the scored episodes.
    pub seeds: Vec<u64>,
    /// Their scores, in seed order.
    pub scores: Vec<f64>,
    /// Score mean ± std.
    pub score: MeanStd,
    /// Mean steps per scored episode.
    pub steps_mean: f64,
    /// Model calls (all episodes).
    pub calls: u64,
    /// Failed model calls (all episodes).
    pub failed_calls: u64,
    /// Prompt tokens (all episodes).
    pub prompt_tokens: u64,
    /// Completion tokens (all episodes).
    pub completion_tokens: u64,
    /// Replies replaced by the environment's fallback (all episodes).
    pub fallbacks: u64,
    /// The environment's paper metrics, mean ± std over scored episodes.
    pub metrics: BTreeMap<String, MeanStd>,
    /// Wildfire: normalized score of the mean against Do-Nothing (design §13.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized_score: Option<f64>,
    /// Mean score over the scored episodes (as `score.mean`; absent without any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_mean: Option<f64>,
    /// Sample standard deviation of the score (n − 1; absent with fewer than two seeds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_sd: Option<f64>,
    /// 95% Student t interval of the mean score over seeds (absent with fewer than two).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_ci95: Option<[f64; 2]>,
    /// The paired comparison with `--baseline` over the seeds both scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_baseline: Option<SeedsVsBaseline>,
    /// What the calls cost in US dollars at the models' prices, all episodes; absent
    /// when no model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Call latency percentiles, wall time and calls per second.
    #[serde(flatten)]
    pub latency: PolicyLatency,
}

/// A policy against the `--baseline` policy over the seeds both scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedsVsBaseline {
    /// The baseline policy.
    pub baseline: String,
    /// Mean score difference (this policy − baseline) over the paired seeds.
    pub delta: f64,
    /// Paired bootstrap 95% percentile interval of `delta`.
    pub ci95: Option<[f64; 2]>,
    /// Two-sided paired sign-flip permutation p-value.
    pub p_value: f64,
    /// Seeds both scored (the pairs).
    pub pairs: usize,
    /// Sign assignments the p-value is over (all 2ⁿ up to 16 seeds).
    pub flips: usize,
    /// Bootstrap resamples.
    pub draws: usize,
    /// Seed of the draws (`--seed`).
    pub seed: u64,
}

impl SeedsVsBaseline {
    fn of(baseline: &str, diffs: &[f64], seed: u64) -> Self {
        let draws = crate::eval::stats::DEFAULT_DRAWS;
        let (p_value, flips) = crate::eval::stats::sign_flip_p(diffs, draws, seed);
        Self {
            baseline: baseline.to_string(),
            delta: crate::eval::stats::mean_or_zero(diffs),
            ci95: crate::eval::stats::bootstrap_mean_ci(diffs, draws, seed),
            p_value,
            pairs: diffs.len(),
            flips,
            draws,
            seed,
        }
    }
}

/// `summary.json` of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareSummary {
    /// Environment id.
    pub env: String,
    /// `--set` settings.
    pub config: Vec<String>,
    /// Model label.
    pub model: String,
    /// What each model's calls asked for (`temperature`, `top_p`, `max_tokens` as set after
    /// every layer, see [`colony_llm::Sampling`]), one entry per model in `--models` order;
    /// empty without models (scripted policies, `--model script:FILE`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampling: Vec<colony_llm::Sampling>,
    /// The offline simulated model produced these results.
    pub simulated: bool,
    /// Seeds asked for.
    pub seeds: Vec<u64>,
    /// Policies in the order asked for.
    pub order: Vec<String>,
    /// Per policy.
    pub policies: BTreeMap<String, PolicyStats>,
    /// Wildfire: Do-Nothing score per seed, measured in this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub do_nothing: Option<BTreeMap<u64, f64>>,
    /// Why the run that wrote this summary stopped before its plan was done (a failure no
    /// retry can fix); absent when it ran to the end. Decision: a stopped
    /// run's table must not look finished, so its Markdown opens with this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// An environment with settings, as chart titles name it: `cube-v0, n=4`.
pub fn configuration_title<'a>(
    env: &'a str,
    settings: impl IntoIterator<Item = &'a str>,
) -> String {
    std::iter::once(env)
        .chain(settings)
        .collect::<Vec<_>>()
        .join(", ")
}

impl CompareSummary {
    /// The environment with its settings ([`configuration_title`]).
    pub fn configuration(&self) -> String {
        configuration_title(&self.env, self.config.iter().map(String::as_str))
    }
}

/// The environment's baseline score per seed ([`colony_env_api::EnvEntry::baseline_policy`];
/// Wildfire's Do-Nothing, design §13.1), taken from `scripted:<baseline>` episodes of this run
/// when present, else measured now; `None` for environments without a baseline.
pub async fn do_nothing_scores(
    config: &CompareConfig,
    all: &[EpisodeResult],
) -> Result<Option<BTreeMap<u64, f64>>, CompareError> {
    let (entry, _) = config.environment()?;
    let Some(baseline) = entry.baseline_policy() else {
        return Ok(None);
    };
    let label = format!("scripted:{baseline}");
    let mut out = BTreeMap::new();
    for &seed in &config.seeds {
        let known = all
            .iter()
            .rev()
            .find(|r| r.policy == label && r.seed == seed && r.error.is_none());
        let score = match known {
            Some(r) => r.score,
            None => {
                let (_, mut env) = config.environment()?;
                env.reset(seed);
                let policy = entry
                    .make_policy(baseline, seed)
                    .map_err(|e| CompareError::Policy(e.into()))?;
                let mut noop = Scripted::new(&label, policy);
                let cfg = EpisodeConfig {
                    seed,
                    max_steps: config.max_steps,
                };
                run_episode(env.as_mut(), &mut noop, cfg, &mut NullSink)
                    .await
                    .map_err(|e| CompareError::Io {
                        path: config.out.clone(),
                        source: e.0,
                    })?
                    .score
            }
        };
        out.insert(seed, score);
    }
    Ok(Some(out))
}

/// A total that stops at `u64::MAX` instead of wrapping (a server may report absurd token counts).
fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

impl CompareSummary {
    /// The summary of `all` (the last line per policy and seed counts) for `config`.
    pub fn of(
        config: &CompareConfig,
        env_id: String,
        all: &[EpisodeResult],
        do_nothing: Option<BTreeMap<u64, f64>>,
    ) -> Self {
        let mut last: BTreeMap<(&str, u64), &EpisodeResult> = BTreeMap::new();
        for r in all.iter().filter(|r| r.config == config.label) {
            last.insert((r.policy.as_str(), r.seed), r);
        }
        // Normalizing needs only the configuration, not a played state, and only
        // environments with a baseline normalize: others never build it here.
        let configured = do_nothing
            .as_ref()
            .and_then(|_| config.environment().ok())
            .map(|(_, e)| e);
        let mut policies = BTreeMap::new();
        for policy in &config.policy_specs() {
            let rows: Vec<&EpisodeResult> = config
                .seeds
                .iter()
                .filter_map(|s| last.get(&(policy.as_str(), *s)).copied())
                .collect();
            let ok: Vec<&EpisodeResult> =
                rows.iter().copied().filter(|r| r.error.is_none()).collect();
            let scores: Vec<f64> = ok.iter().map(|r| r.score).collect();
            let mut keys: Vec<&String> = ok.iter().flat_map(|r| r.metrics.keys()).collect();
            keys.sort();
            keys.dedup();
            let metrics = keys
                .into_iter()
                .map(|k| {
                    let xs: Vec<f64> = ok
                        .iter()
                        .filter_map(|r| r.metrics.get(k).copied())
                        .collect();
                    (k.clone(), MeanStd::of(&xs))
                })
                .collect();
            let score = MeanStd::of(&scores);
            let normalized_score = match (&configured, &do_nothing) {
                (Some(env), Some(dn)) if !ok.is_empty() => {
                    let dns: Vec<f64> =
                        ok.iter().filter_map(|r| dn.get(&r.seed).copied()).collect();
                    let (dn_mean, _) = mean_std(&dns);
                    env.paper()
                        .and_then(|p| p.normalized_score(score.mean, dn_mean))
                }
                _ => None,
            };
            let (score_mean, score_sd, score_ci95) = match crate::eval::stats::mean_sd_ci(&scores) {
                Some((m, sd, ci)) => (Some(m), sd, ci),
                None => (None, None, None),
            };
            let stats = PolicyStats {
                score_mean,
                score_sd,
                score_ci95,
                vs_baseline: None,
                episodes: ok.len(),
                errors: rows.len() - ok.len(),
                seeds: ok.iter().map(|r| r.seed).collect(),
                scores,
                score,
                steps_mean: mean_std(&ok.iter().map(|r| r.steps as f64).collect::<Vec<_>>()).0,
                calls: saturating_sum(rows.iter().map(|r| r.calls)),
                failed_calls: saturating_sum(rows.iter().map(|r| r.failed_calls)),
                prompt_tokens: saturating_sum(rows.iter().map(|r| r.prompt_tokens)),
                completion_tokens: saturating_sum(rows.iter().map(|r| r.completion_tokens)),
                fallbacks: rows.iter().map(|r| r.fallbacks).sum(),
                metrics,
                normalized_score,
                latency: policy_latency(&rows),
                cost_usd: rows
                    .iter()
                    .fold(None, |a, r| crate::eval::stats::add_costs(a, r.cost_usd)),
            };
            policies.insert(policy.clone(), stats);
        }
        if let Some(base) = config.baseline.as_deref() {
            let of = |p: &PolicyStats| -> BTreeMap<u64, f64> {
                p.seeds
                    .iter()
                    .copied()
                    .zip(p.scores.iter().copied())
                    .collect()
            };
            if let Some(base_scores) = policies.get(base).map(of) {
                for (_, p) in policies.iter_mut().filter(|(n, _)| n.as_str() != base) {
                    let diffs: Vec<f64> = of(p)
                        .into_iter()
                        .filter_map(|(seed, x)| base_scores.get(&seed).map(|b| x - b))
                        .collect();
                    p.vs_baseline = Some(SeedsVsBaseline::of(base, &diffs, config.stats_seed));
                }
            }
        }
        Self {
            env: env_id,
            config: config.set.clone(),
            model: config.model.clone(),
            sampling: config.caller.sampling_per_model(),
            simulated: config.simulated,
            seeds: config.seeds.clone(),
            order: config.policy_specs(),
            policies,
            do_nothing,
            stopped: None,
        }
    }
}

/// Writes `summary.json`, `results.md`, `results.csv`, `latency.md` (when calls were timed),
/// and `score` and `score_vs_tokens` as SVG and PNG into `dir`.
pub fn write_report(
    dir: &Path,
    summary: &CompareSummary,
    all: &[EpisodeResult],
) -> Result<(), CompareError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|source| CompareError::Io { path, source })
    };
    let json = serde_json::to_string_pretty(summary).unwrap_or_default();
    write("summary.json", json.as_bytes())?;
    write("results.md", summary.markdown().as_bytes())?;
    write("results.csv", summary.csv().as_bytes())?;
    let latency = latency_markdown(summary.order.iter().filter_map(|p| {
        summary
            .policies
            .get(p)
            .map(|s| (p.as_str(), s.calls, &s.latency))
    }));
    if let Some(table) = latency {
        write("latency.md", table.as_bytes())?;
    }
    // Decision: the bars are the 95% t intervals of the table when every
    // policy has one (two seeds or more), else mean ± population std for all, as labelled.
    let rows: Vec<(&String, &PolicyStats)> = summary
        .order
        .iter()
        .filter_map(|p| summary.policies.get(p).map(|s| (p, s)))
        .collect();
    let with_ci = !rows.is_empty() && rows.iter().all(|(_, s)| s.score_ci95.is_some());
    let bars: Vec<MeanBar> = rows
        .iter()
        .map(|(p, s)| {
            let [lo, hi] = match s.score_ci95 {
                Some(ci) if with_ci => ci,
                _ => [s.score.mean - s.score.std, s.score.mean + s.score.std],
            };
            MeanBar {
                label: (*p).clone(),
                mean: s.score.mean,
                lo,
                hi,
            }
        })
        .collect();
    let what = format!("{} — model {}", summary.configuration(), summary.model);
    let (bars_are, y_label) = if with_ci {
        (
            "mean and 95% t interval over seeds",
            "score (mean, 95% t interval)",
        )
    } else {
        ("mean ± std over seeds", "score (mean ± std)")
    };
    error_bar_chart(
        &dir.join("score.svg"),
        &Caption::new(
            format!("Score per policy, {bars_are} — {what}"),
            summary.simulated,
        ),
        y_label,
        &bars,
    )?;
    let lines: Vec<Line> = summary
        .order
        .iter()
        .map(|p| Line {
            name: p.clone(),
            points: all
                .iter()
                .filter(|r| &r.policy == p && r.error.is_none())
                .map(|r| ((r.prompt_tokens + r.completion_tokens) as f64, r.score))
                .collect(),
            markers_only: true,
        })
        .collect();
    let ys: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .collect();
    let lo = ys.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    // Equal scores (every episode 0, say) get a unit either side, not a 1e-9 sliver.
    let (lo, hi) = crate::eval::plot::padded(lo, hi, 0.1, 0.15);
    line_chart(
        &dir.join("score_vs_tokens.svg"),
        &Caption::new(
            format!("Score vs tokens per episode — {what}"),
            summary.simulated,
        ),
        "tokens per episode (prompt + completion)",
        "score",
        (lo, hi),
        &lines,
    )?;
    Ok(())
}
