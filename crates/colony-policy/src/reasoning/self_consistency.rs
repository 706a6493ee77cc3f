//! Self-consistency (docs/design/baselines.md §3.3): `k` independent CoT samples, plurality vote
//! over their extracted answers (equivalence-aware, ties → lowest sample index).
//!
//! Sample `i` is agent `agent_i`, a copy of the roster's first member, asked once with
//! `sample_index = i` and its own LLM seed, so samples are independent draws and run
//! concurrently. Output text = the first response in the winning cluster (sample 0 when no
//! answer is extractable), so re-grading it reproduces the vote.

use async_trait::async_trait;
use serde_json::json;

use super::common::{ask_all, ask_options, baseline_roster, Failures};
use super::cot::cot_prompt;
use super::vote::decide;
use super::{check_range, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};

/// Self-consistency over `k` CoT samples ([`SelfConsistency::new`] bounds `k` by
/// [`SelfConsistency::MAX_K`]).
#[derive(Debug, Clone, Copy)]
pub struct SelfConsistency {
    /// Number of samples (spec default 5).
    pub k: usize,
}

impl Default for SelfConsistency {
    fn default() -> Self {
        Self { k: 5 }
    }
}

impl SelfConsistency {
    /// The most samples (`k`) self-consistency takes: one call each, all in flight at once.
    pub const MAX_K: usize = 64;

    /// Self-consistency with 1 to [`Self::MAX_K`] samples; other values are
    /// [`PolicyError::OutOfRange`].
    pub fn new(k: usize) -> Result<Self, PolicyError> {
        check_range("self_consistency", "k", k, 1, Self::MAX_K)?;
        Ok(Self { k })
    }
}

#[async_trait]
impl ReasoningPolicy for SelfConsistency {
    fn name(&self) -> &str {
        "self_consistency"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let k = self.k.max(1);
        let samplers = baseline_roster(roster, k, true)?;
        let team = samplers.team(k)?;
        let prompt = cot_prompt(query)?;
        let asks = (0..k)
            .map(|i| {
                let sample = u32::try_from(i).unwrap_or(u32::MAX);
                let options = ask_options(query, self.name(), None, i)
                    .sample_index(sample)
                    .stateless();
                (i, prompt.clone(), options)
            })
            .collect();
        let mut failures = Failures::default();
        let turns: Vec<_> = ask_all(&team, asks)
            .await
            .into_iter()
            .map(|(i, r)| failures.turn(None, i, r))
            .collect();
        let answers: Vec<Option<String>> = turns.iter().map(|t| query.extract(&t.text)).collect();
        let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
        let d = decide(&texts, &answers, &query.item.answer_type);
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": "self_consistency",
                    "k": k,
                    "answers": answers,
                    "clusters": d.vote.clusters,
                    "winner": d.vote.winner,
                    "chosen_sample": d.chosen,
                    "answer": d.answer,
                    "errors": errors,
                });
                (d.text.clone(), d.answer.clone(), trace)
            })
            .await
    }
}
