//! Runs one policy over many items: bounded concurrency, one JSON line per finished item,
//! resume by skipping ids already in the results file without an error.
//!
//! Decision (failures are never wrong answers): an item whose model calls failed and that has
//! no answer, or whose calls all failed, is an **error**: `error` says which calls failed and
//! why, the item is left out of accuracy, and the next run solves it again. An answered item
//! with some failed calls (1 of 5 self-consistency samples) keeps its answer and counts them
//! in `failed_calls`. A failure that no retry can fix (see [`colony_llm::stops_run`]) stops
//! the run: no further items are started, and [`PolicyRun::stopped`] says why.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use colony_qa::{AnswerType, Item};
use futures::stream::{self, StreamExt};

use crate::eval::results::{ItemResult, ResultsError, ResultsFile};
use colony_llm::stops_run;
use colony_policy::reasoning::{PolicyError, Query, ReasoningPolicy, Roster};
use colony_policy::registry::{CodeGradeError, DatasetEntry};
use colony_policy::PolicySpec;
use colony_runtime::RuntimeError;

/// Settings of an evaluation run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// Items solved at once.
    pub concurrency: usize,
    /// Run seed (docs/design/reasoning.md §0.3).
    pub run_seed: u64,
    /// The dataset (resolved at the door): its name is recorded on every result (resuming
    /// matches (dataset, item id), so several datasets can share one output directory) and
    /// its grader decides correctness.
    pub dataset: DatasetEntry,
    /// The run's token cap (`--max-tokens-total`): no item starts once it is spent.
    pub budget: std::sync::Arc<crate::eval::budget::RunBudget>,
    /// Completions per item (`--samples`, [`super::samples`]).
    pub samples: u32,
    /// The judge that grades every answered item (`--judge`; `None`: rules only).
    pub judge: Option<std::sync::Arc<crate::eval::judge::Judge>>,
    /// The training split of policies that learn (`--train`; empty: none).
    pub train: std::sync::Arc<[Item]>,
}

/// Runs a code item's tests on `answer` with the dataset's judge, on a blocking thread:
/// `(passed, sandboxed)`.
async fn check_code_answer(
    dataset: &DatasetEntry,
    item: &Item,
    answer: &str,
) -> Result<(bool, bool), String> {
    let judge = dataset
        .code_judge()
        .cloned()
        .ok_or_else(|| CodeGradeError::NoSandbox(item.id.clone()).to_string())?;
    let (item, answer) = (item.clone(), answer.to_string());
    let verdict = tokio::task::spawn_blocking(move || judge.check(&item, &answer))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    Ok((verdict.passed, verdict.sandboxed))
}

/// Solves one item; see the module docs for when it is an error.
pub async fn solve_item(
    policy: &dyn ReasoningPolicy,
    item: &Item,
    roster: &Roster,
    run_seed: u64,
    dataset: &DatasetEntry,
) -> ItemResult {
    let t0 = Instant::now();
    let query = Query {
        item: item.clone(),
        run_seed,
    };
    let outcome = policy.solve(&query, roster).await;
    let wall_ms = t0.elapsed().as_secs_f64() * 1000.0;
    match outcome {
        Ok(out) => {
            let run = out.usage.run;
            let failed = run.failed_calls;
            let error = (failed > 0 && (run.calls == 0 || out.answer.is_none())).then(|| {
                let first = out
                    .transcript
                    .failures()
                    .next()
                    .map_or_else(String::new, |(_, f)| f.error.clone());
                format!(
                    "{failed} of {} model call(s) failed and no answer was obtained: {first}",
                    failed + run.calls
                )
            });
            // The dataset's grader (its registered one, else the answer-type comparison); code
            // items run their tests in the sandbox, and a check that could not run is an error.
            let answer = out.answer.as_deref().filter(|_| error.is_none());
            let (correct, unsandboxed, error) = match (answer, &item.answer_type) {
                (Some(a), AnswerType::Code { .. }) => {
                    match check_code_answer(dataset, item, a).await {
                        Ok((passed, sandboxed)) => (passed, !sandboxed, error),
                        Err(e) => (false, false, Some(format!("grading: {e}"))),
                    }
                }
                (Some(a), _) => (dataset.is_correct(a, item), false, error),
                (None, _) => (false, false, error),
            };
            ItemResult {
                unsandboxed,
                tool_calls: run.tool_calls,
                tool_errors: run.tool_errors,
                tool_ms: (run.tool_time_us as f64 / 100.0).round() / 10.0,
                samples: 0,
                samples_correct: 0,
                judge_correct: None,
                judge: None,
                response: Some(out.final_text),
                judge_transcript: None,
                id: item.id.clone(),
                policy: policy.name().to_string(),
                dataset: dataset.name.clone(),
                answer: out.answer,
                gold: item.gold.clone(),
                correct,
                fatal: error.is_some() && run.fatal_failures > 0,
                error,
                failed_calls: failed,
                retries: run.retries,
                calls: run.calls,
                // Cached (replayed) calls count: a replay's table equals the recorded run's.
                prompt_tokens: run.usage.prompt_tokens + run.cached_usage.prompt_tokens,
                completion_tokens: run.usage.completion_tokens + run.cached_usage.completion_tokens,
                cost_usd: (run.usage + run.cached_usage)
                    .cost_nusd
                    .map(colony_llm::usd),
                wall_ms,
                call_latency_ms: out
                    .transcript
                    .calls()
                    .map(|(_, c)| (c.latency.as_secs_f64() * 10_000.0).round() / 10.0)
                    .collect(),
                trace: out.trace,
                transcript: Some(out.transcript),
            }
        }
        Err(e) => ItemResult {
            id: item.id.clone(),
            policy: policy.name().to_string(),
            dataset: dataset.name.clone(),
            answer: None,
            gold: item.gold.clone(),
            correct: false,
            fatal: matches!(&e, PolicyError::Runtime(RuntimeError::Model { source, .. }) if stops_run(source)),
            error: Some(e.to_string()),
            failed_calls: u64::from(matches!(
                e,
                PolicyError::Runtime(RuntimeError::Model { .. })
            )),
            calls: 0,
            retries: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: None,
            wall_ms,
            call_latency_ms: Vec::new(),
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
        },
    }
}

/// A policy with the spec it was built from: its label names its results file and rows
/// ([`PolicySpec`]).
#[derive(Clone)]
pub struct LabelledPolicy {
    /// Label and spec.
    pub spec: PolicySpec,
    /// The policy built from `spec.spec`.
    pub policy: Arc<dyn ReasoningPolicy>,
}

impl LabelledPolicy {
    /// Builds every spec of a list with `build` (the registry's constructor).
    pub fn build_all<E>(
        specs: &[PolicySpec],
        build: impl Fn(&str) -> Result<Box<dyn ReasoningPolicy>, E>,
    ) -> Result<Vec<Self>, E> {
        specs
            .iter()
            .map(|s| {
                Ok(Self {
                    spec: s.clone(),
                    policy: Arc::from(build(&s.spec)?),
                })
            })
            .collect()
    }
}

/// The outcome of [`run_policy`].
#[derive(Debug, Clone)]
pub struct PolicyRun {
    /// The latest result of every selected item that has one, in item order.
    pub results: Vec<ItemResult>,
    /// Why the run stopped early, when a failure no retry can fix ended it.
    pub stopped: Option<String>,
}

/// Runs `policy` over `items`, appending to `results_path`; returns the latest result of
/// every selected item that has one (earlier runs included). `on_done` sees each newly
/// finished item. Items whose last result is an error are solved again.
///
/// `only` (a shard's share) restricts which item ids this call solves; the policy still
/// prepares with every item, so item groups and per-item draws are those of an unsharded run.
pub async fn run_policy(
    labelled: &LabelledPolicy,
    items: &[Item],
    roster: &Roster,
    config: &EvalConfig,
    results_path: &Path,
    only: Option<&std::collections::BTreeSet<String>>,
    on_done: &(dyn Fn(&ItemResult) + Send + Sync),
) -> Result<PolicyRun, ResultsError> {
    let policy = &labelled.policy;
    super::learning::prepare_learning(policy.as_ref(), &config.train, roster, config, results_path)
        .await?;
    // Every selected item, finished or not, so item groups are the same on a resumed run.
    policy.prepare(items, config.run_seed);
    let (file, mut all) = ResultsFile::open(results_path)?;
    // Results of other datasets in the same file are kept but are not this run's.
    all.retain(|r| r.dataset == config.dataset.name || r.dataset.is_empty());
    let done = ResultsFile::ids(&latest(all.clone()));
    // Every recorded attempt was paid for (budgets count the whole run).
    for r in &all {
        config
            .budget
            .spend(r.prompt_tokens.saturating_add(r.completion_tokens));
        config.budget.spend_cost(r.cost_usd);
        spend_judge(&config.budget, r.judge.as_ref());
    }
    let pending: Vec<&Item> = items
        .iter()
        .filter(|i| !done.contains(&i.id) && only.is_none_or(|o| o.contains(&i.id)))
        .collect();
    let mut finished = stream::iter(pending)
        .map(|item| {
            let policy = policy.clone();
            let span = format!("item {}", item.id);
            let attributes = vec![
                opentelemetry::KeyValue::new("colony.item", item.id.clone()),
                opentelemetry::KeyValue::new("colony.policy", policy.name().to_string()),
                opentelemetry::KeyValue::new("colony.dataset", config.dataset.name.clone()),
            ];
            crate::eval::otlp::in_span(span, attributes, async move {
                // Checked when the item would start, so items in flight always finish.
                if !config.budget.may_start() {
                    return None;
                }
                let mut r = super::samples::solve_samples(
                    policy.as_ref(),
                    item,
                    roster,
                    config.run_seed,
                    &config.dataset,
                    config.samples,
                )
                .await;
                if let Some(judge) = &config.judge {
                    judge
                        .apply(&mut r, item, config.run_seed, &labelled.spec.label)
                        .await;
                }
                config
                    .budget
                    .spend(r.prompt_tokens.saturating_add(r.completion_tokens));
                config.budget.spend_cost(r.cost_usd);
                spend_judge(&config.budget, r.judge.as_ref());
                Some(r)
            })
        })
        .buffer_unordered(config.concurrency.max(1));
    let mut stopped = None;
    while let Some(solved) = finished.next().await {
        let Some(mut result) = solved else {
            continue;
        };
        // Filed under the label, not the policy's base name: variants are their own rows.
        result.policy.clone_from(&labelled.spec.label);
        file.append(&result)?;
        on_done(&result);
        // The transcript went to the calls log; the summary needs none, and keeping every
        // item's transcript would grow memory with the run.
        result.transcript = None;
        if result.fatal && stopped.is_none() {
            // Items already in flight finish and are kept; no new item starts.
            stopped = result
                .error
                .as_ref()
                .map(|e| format!("a failure no retry can fix: {e}"));
        }
        all.push(result);
        if stopped.is_some() {
            break;
        }
    }
    drop(finished);
    if stopped.is_none() {
        stopped = config.budget.stopped();
    }
    // Keep only this run's items, latest result first, in item order, for the summary.
    let wanted: std::collections::BTreeMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.id.as_str(), i))
        .collect();
    let mut results = latest(all);
    results.retain(|r| wanted.contains_key(r.id.as_str()));
    results.sort_by_key(|r| wanted.get(r.id.as_str()).copied().unwrap_or(usize::MAX));
    Ok(PolicyRun { results, stopped })
}

/// Charges the judge's tokens and cost to the run's budget: `--max-tokens-total` and
/// `--max-cost` bound what the run spends, grader included, although tables report the judge
/// apart from the method.
fn spend_judge(
    budget: &crate::eval::budget::RunBudget,
    judge: Option<&crate::eval::judge::JudgeRecord>,
) {
    if let Some(j) = judge {
        budget.spend(j.prompt_tokens.saturating_add(j.completion_tokens));
        budget.spend_cost(j.cost_usd);
    }
}

/// The last result per item id (a rerun's line supersedes an earlier errored one); an id
/// with only errored lines keeps its last error.
fn latest(all: Vec<ItemResult>) -> Vec<ItemResult> {
    let mut by_id: std::collections::BTreeMap<String, ItemResult> =
        std::collections::BTreeMap::new();
    for r in all {
        by_id.insert(r.id.clone(), r);
    }
    by_id.into_values().collect()
}
