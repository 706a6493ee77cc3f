//! Policies that learn from a training split (docs/design/baselines.md §3.13; GPTSwarm): the
//! runner trains each such policy once per run label, before it solves anything, and keeps
//! what it learnt next to the label's results (`<label>.<dataset>.learnt.json`), so a resumed run loads
//! it instead of training again and another run can reuse it (`gptswarm:edges=FILE`).
//!
//! Decisions:
//! * **Training is paid for:** its tokens are charged to the run's budget and saved in the
//!   learnt file (`training_usage`), never added to the evaluated items' tokens.
//! * **Saved once, atomically:** the file is written by rename after training finishes; a run
//!   stopped during training trains again on resume. To retrain, delete the file.
//! * **No split, nothing learnt:** a learning policy run without `--train` (and without a
//!   saved file) runs untrained, with a warning; its traces say `trained: false`.

use std::path::{Path, PathBuf};

use colony_policy::reasoning::{ReasoningPolicy, Roster, TrainSplit};
use colony_qa::Item;

use super::runner::EvalConfig;
use crate::eval::results::{write_atomic, ResultsError};

/// The largest learnt-state file read back.
pub const MAX_LEARNT_BYTES: u64 = 16 << 20;

/// Where a label's learnt state for `dataset` is kept: next to its results file, one per
/// dataset (a results file holds several datasets' lines; each trains on its own items).
pub fn learnt_path(results_path: &Path, dataset: &str) -> PathBuf {
    results_path.with_extension(format!("{dataset}.learnt.json"))
}

fn failed(path: &Path, message: impl std::fmt::Display) -> ResultsError {
    ResultsError::Learning {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// Trains `policy` on `train` (or loads what an earlier run of the label learnt) when it
/// learns; nothing otherwise.
pub async fn prepare_learning(
    policy: &dyn ReasoningPolicy,
    train: &[Item],
    roster: &Roster,
    config: &EvalConfig,
    results_path: &Path,
) -> Result<(), ResultsError> {
    if !policy.learns() {
        return Ok(());
    }
    let path = learnt_path(results_path, &config.dataset.name);
    if path.is_file() {
        let bytes = std::fs::metadata(&path)
            .map_err(|e| failed(&path, e))?
            .len();
        if bytes > MAX_LEARNT_BYTES {
            return Err(failed(
                &path,
                format!("{bytes} bytes, more than the {MAX_LEARNT_BYTES} a learnt state may have"),
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| failed(&path, e))?;
        let state: serde_json::Value = serde_json::from_str(&text).map_err(|e| failed(&path, e))?;
        return policy.load_learnt(&state).map_err(|e| failed(&path, e));
    }
    if train.is_empty() {
        tracing::warn!(
            policy = policy.name(),
            "this policy learns from a training split, but none was given (--train N): it \
             runs untrained"
        );
        return Ok(());
    }
    let dataset = &config.dataset;
    let grade = |item: &Item, answer: &str| dataset.is_correct(answer, item);
    let split = TrainSplit {
        items: train,
        grade: &grade,
        run_seed: config.run_seed,
    };
    let learnt = policy
        .train(&split, roster)
        .await
        .map_err(|e| failed(&path, e))?;
    let u = &learnt.usage;
    config.budget.spend(
        u.usage
            .prompt_tokens
            .saturating_add(u.usage.completion_tokens),
    );
    let mut state = learnt.state;
    state["training_usage"] = serde_json::json!({
        "calls": u.calls, "failed_calls": u.failed_calls,
        "prompt_tokens": u.usage.prompt_tokens, "completion_tokens": u.usage.completion_tokens,
    });
    let json = serde_json::to_string_pretty(&state).map_err(|e| failed(&path, e))?;
    write_atomic(&path, json.as_bytes()).map_err(|e| failed(&path, e))
}

/// Why a training split cannot be drawn.
#[derive(Debug, thiserror::Error)]
pub enum TrainSplitError {
    /// The file has fewer items outside the evaluated ones than asked for.
    #[error(
        "--train {wanted}: the file has only {available} item(s) that are not evaluated \
         (training items are never evaluated ones); select fewer with --limit or ask for fewer"
    )]
    TooFew {
        /// Items asked for.
        wanted: usize,
        /// Items available.
        available: usize,
    },
}

/// The training split of a run: `n` items of the whole file `all` that are not among
/// `evaluated` (by id), a seeded sample (the same items for the same `seed`), in file order.
pub fn train_split(
    all: &[Item],
    evaluated: &[Item],
    n: usize,
    seed: u64,
) -> Result<Vec<Item>, TrainSplitError> {
    let taken: std::collections::HashSet<&str> = evaluated.iter().map(|i| i.id.as_str()).collect();
    let mut pool: Vec<usize> = (0..all.len())
        .filter(|&k| !taken.contains(all[k].id.as_str()))
        .collect();
    if pool.len() < n {
        return Err(TrainSplitError::TooFew {
            wanted: n,
            available: pool.len(),
        });
    }
    let mut rng = colony_policy::reasoning::stream(seed, "", "train", None, None, "train-split");
    colony_policy::reasoning::shuffle(&mut rng, &mut pool);
    pool.truncate(n);
    pool.sort_unstable();
    Ok(pool.into_iter().map(|k| all[k].clone()).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_qa::AnswerType;

    fn item(i: usize) -> Item {
        Item {
            id: format!("q{i}"),
            question: format!("What is {i} + 1?"),
            choices: vec![],
            gold: (i + 1).to_string(),
            answer_type: AnswerType::Numeric,
            meta: Default::default(),
        }
    }

    #[test]
    fn training_items_are_seeded_and_never_evaluated_ones() {
        let all: Vec<Item> = (0..20).map(item).collect();
        let evaluated = &all[..5];
        let a = train_split(&all, evaluated, 6, 1).unwrap();
        assert_eq!(a.len(), 6);
        assert!(a.iter().all(|t| !evaluated.iter().any(|e| e.id == t.id)));
        let ids = |v: &[Item]| v.iter().map(|i| i.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&train_split(&all, evaluated, 6, 1).unwrap()));
        assert_ne!(ids(&a), ids(&train_split(&all, evaluated, 6, 2).unwrap()));
        let e = train_split(&all, evaluated, 16, 1).unwrap_err().to_string();
        assert!(e.contains("only 15 item(s)"), "{e}");
    }
}
