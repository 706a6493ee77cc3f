//! Runs one policy over many items: bounded concurrency, one JSON line per finished item,
//! resume by skipping ids already in the results file.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use colony_qa::{equivalent, Item, JudgeOptions};
use futures::stream::{self, StreamExt};

use super::results::{ItemResult, ResultsError, ResultsFile};
use crate::policy::reasoning::{Query, ReasoningPolicy, Roster};

/// Settings of an evaluation run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// Items solved at once.
    pub concurrency: usize,
    /// Run seed (spec §0.3).
    pub run_seed: u64,
    /// Dataset name, recorded on every result; resuming matches (dataset, item id), so
    /// several datasets can share one output directory.
    pub dataset: String,
}

/// Solves one item; failures become an error result (the item counts as incorrect).
pub async fn solve_item(
    policy: &dyn ReasoningPolicy,
    item: &Item,
    roster: &Roster,
    run_seed: u64,
    dataset: &str,
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
            let correct = out.answer.as_deref().is_some_and(|a| {
                equivalent(a, &item.gold, &item.answer_type, &JudgeOptions::default())
            });
            let run = out.usage.run;
            ItemResult {
                id: item.id.clone(),
                policy: policy.name().to_string(),
                dataset: dataset.to_string(),
                answer: out.answer,
                gold: item.gold.clone(),
                correct,
                error: None,
                calls: run.calls,
                prompt_tokens: run.usage.prompt_tokens,
                completion_tokens: run.usage.completion_tokens,
                wall_ms,
                trace: out.trace,
            }
        }
        Err(e) => ItemResult {
            id: item.id.clone(),
            policy: policy.name().to_string(),
            dataset: dataset.to_string(),
            answer: None,
            gold: item.gold.clone(),
            correct: false,
            error: Some(e.to_string()),
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            wall_ms,
            trace: serde_json::Value::Null,
        },
    }
}

/// Runs `policy` over `items`, appending to `results_path`; returns every result of the file
/// (earlier runs included) once all items are done. `on_done` sees each newly finished item.
pub async fn run_policy(
    policy: Arc<dyn ReasoningPolicy>,
    items: &[Item],
    roster: &Roster,
    config: &EvalConfig,
    results_path: &Path,
    on_done: &(dyn Fn(&ItemResult) + Send + Sync),
) -> Result<Vec<ItemResult>, ResultsError> {
    let (file, mut all) = ResultsFile::open(results_path)?;
    // Results of other datasets in the same file are kept but are not this run's.
    all.retain(|r| r.dataset == config.dataset || r.dataset.is_empty());
    let done = ResultsFile::ids(&all);
    let pending: Vec<&Item> = items.iter().filter(|i| !done.contains(&i.id)).collect();
    let mut finished = stream::iter(pending)
        .map(|item| {
            let policy = policy.clone();
            async move {
                solve_item(
                    policy.as_ref(),
                    item,
                    roster,
                    config.run_seed,
                    &config.dataset,
                )
                .await
            }
        })
        .buffer_unordered(config.concurrency.max(1));
    while let Some(result) = finished.next().await {
        file.append(&result)?;
        on_done(&result);
        all.push(result);
    }
    // Keep only this run's items, in item order, for the summary.
    let wanted: std::collections::BTreeMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.id.as_str(), i))
        .collect();
    all.retain(|r| wanted.contains_key(r.id.as_str()));
    all.sort_by_key(|r| wanted.get(r.id.as_str()).copied().unwrap_or(usize::MAX));
    all.dedup_by(|a, b| a.id == b.id);
    Ok(all)
}
