//! `--samples n`: several independent completions per item, for pass@k (docs/design/sandbox.md
//! §3; the unbiased estimator of the HumanEval paper, [`colony_policy::registry::pass_at_k`]).
//!
//! Sample `s` solves the item with its own run seed (sample 0 with the run's seed, so
//! `--samples 1` is a plain run and sample 0 of any run equals it), so every policy's draws
//! differ between samples as they differ between items. The item's result is one line:
//! `answer`, `correct` and the trace are sample 0's (the accuracy column stays comparable),
//! `samples` and `samples_correct` count the draws, calls, tokens, cost and tool figures are
//! summed, and the calls log keeps every sample's entries, agents of sample `s ≥ 1` named
//! `s<s>/agent_i`. **Decision:** a sample that failed makes the item an error (pass@k over the
//! samples that happened to succeed would be biased upwards); it is solved again next run.

use colony_policy::reasoning::{ReasoningPolicy, Roster};
use colony_policy::registry::DatasetEntry;
use colony_qa::Item;
use colony_runtime::{Transcript, TranscriptEntry};

use super::runner::solve_item;
use crate::eval::ItemResult;

/// Most `--samples`.
pub const MAX_SAMPLES: u32 = 1000;

/// The run seed of sample `s` (sample 0: the run's own).
pub fn sample_seed(run_seed: u64, s: u32) -> u64 {
    if s == 0 {
        return run_seed;
    }
    let mut h = colony_llm::stable_hash::StableHasher::new();
    h.str("sample").u64(run_seed).u64(u64::from(s));
    h.finish()
}

/// Solves `item` `n` times (see the module docs); `n ≤ 1` is one plain solve.
pub async fn solve_samples(
    policy: &dyn ReasoningPolicy,
    item: &Item,
    roster: &Roster,
    run_seed: u64,
    dataset: &DatasetEntry,
    n: u32,
) -> ItemResult {
    let mut first = solve_item(policy, item, roster, run_seed, dataset).await;
    if n <= 1 {
        return first;
    }
    let mut correct = u32::from(first.error.is_none() && first.correct);
    let mut entries: Vec<TranscriptEntry> = first
        .transcript
        .take()
        .map(|t| t.entries().to_vec())
        .unwrap_or_default();
    for s in 1..n {
        let r = solve_item(policy, item, roster, sample_seed(run_seed, s), dataset).await;
        correct += u32::from(r.error.is_none() && r.correct);
        if first.error.is_none() {
            if let Some(e) = &r.error {
                first.error = Some(format!("sample {s}: {e}"));
                first.fatal = r.fatal;
            }
        }
        first.failed_calls += r.failed_calls;
        first.calls += r.calls;
        first.retries += r.retries;
        first.prompt_tokens = first.prompt_tokens.saturating_add(r.prompt_tokens);
        first.completion_tokens = first.completion_tokens.saturating_add(r.completion_tokens);
        first.wall_ms += r.wall_ms;
        first.cost_usd = crate::eval::stats::add_costs(first.cost_usd, r.cost_usd);
        first.call_latency_ms.extend(r.call_latency_ms);
        first.tool_calls += r.tool_calls;
        first.tool_errors += r.tool_errors;
        first.tool_ms += r.tool_ms;
        first.unsandboxed |= r.unsandboxed;
        if let Some(t) = r.transcript {
            entries.extend(t.entries().iter().cloned().map(|mut e| {
                e.agent = format!("s{s}/{}", e.agent).into();
                e
            }));
        }
    }
    first.samples = n;
    first.samples_correct = correct;
    first.transcript = Some(Transcript::from_entries(entries));
    first
}

/// Mean pass@k over the answered items that drew at least `k` samples, for each `k` of 1, 5,
/// 10, 100 that some item reaches: `(k, estimate)`.
pub fn pass_at_k_means(results: &[ItemResult]) -> Vec<(usize, f64)> {
    let answered: Vec<&ItemResult> = results
        .iter()
        .filter(|r| r.error.is_none() && r.samples > 1)
        .collect();
    [1, 5, 10, 100]
        .into_iter()
        .filter_map(|k| {
            let values: Vec<f64> = answered
                .iter()
                .filter_map(|r| {
                    colony_policy::registry::pass_at_k(
                        r.samples as usize,
                        r.samples_correct as usize,
                        k,
                    )
                })
                .collect();
            (!values.is_empty()).then(|| (k, values.iter().sum::<f64>() / values.len() as f64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_sample_and_sample_zero_is_the_run() {
        assert_eq!(sample_seed(7, 0), 7);
        assert_ne!(sample_seed(7, 1), sample_seed(7, 2));
        assert_ne!(sample_seed(7, 1), sample_seed(8, 1));
    }

    #[test]
    fn pass_at_k_means_skip_errors_and_unreached_k() {
        let item = |samples: u32, correct: u32, error: bool| {
            let mut r: ItemResult = serde_json::from_value(serde_json::json!({
                "id": "1", "policy": "p", "answer": null, "gold": "1", "correct": false,
                "calls": 1, "prompt_tokens": 0, "completion_tokens": 0, "wall_ms": 0.0
            }))
            .unwrap_or_else(|e| unreachable!("{e}"));
            r.samples = samples;
            r.samples_correct = correct;
            r.error = error.then(|| "x".to_string());
            r
        };
        let means = pass_at_k_means(&[item(5, 1, false), item(5, 5, false), item(5, 0, true)]);
        assert_eq!(means.len(), 2, "{means:?}");
        assert_eq!(means[0].0, 1);
        assert!((means[0].1 - 0.6).abs() < 1e-12, "(0.2 + 1.0) / 2");
        assert_eq!(means[1], (5, 1.0));
    }
}
