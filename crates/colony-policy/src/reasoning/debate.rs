//! LLM-Debate of Du et al. (docs/design/baselines.md §3.4): `N` agents, `R` rounds, plurality vote
//! at the end.
//!
//! Round 0: every agent answers `query(item)`. Round r ≥ 1 (synchronous: everyone sees round
//! r−1 only): each agent gets the other agents' round r−1 responses, each delimited, is asked
//! to use them as additional advice, and is given the original question and format suffix
//! again; the exchange extends the agent's own history. Final answer: plurality vote over the
//! last round's extracted answers (equivalence-aware, ties → lowest agent id); output text =
//! the last-round response of the lowest-id agent holding the winner (agent 0's if nothing is
//! extractable). Calls: N·R.

use async_trait::async_trait;
use serde_json::json;

use super::common::shown_text;
use super::common::{ask_all, ask_options, baseline_roster, format_suffix, Failures, Turn};
use super::prompts;
use super::vote::decide;
use super::{check_range, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};

/// LLM-Debate with `agents` agents and `rounds` rounds (round 0 included); [`Debate::new`]
/// bounds them by [`Debate::MAX_AGENTS`] and [`Debate::MAX_ROUNDS`].
#[derive(Debug, Clone, Copy)]
pub struct Debate {
    /// Number of agents N (default 3).
    pub agents: usize,
    /// Number of rounds R, round 0 included (default 2).
    pub rounds: usize,
}

impl Default for Debate {
    fn default() -> Self {
        Self {
            agents: 3,
            rounds: 2,
        }
    }
}

impl Debate {
    /// The most agents a debate takes (each round costs one call per agent, and every prompt
    /// quotes all other agents).
    pub const MAX_AGENTS: usize = 64;
    /// The most rounds a debate takes, round 0 included.
    pub const MAX_ROUNDS: usize = 20;

    /// A debate of 1 to [`Self::MAX_AGENTS`] agents over 1 to [`Self::MAX_ROUNDS`] rounds;
    /// other values are [`PolicyError::OutOfRange`].
    pub fn new(agents: usize, rounds: usize) -> Result<Self, PolicyError> {
        check_range("debate", "agents", agents, 1, Self::MAX_AGENTS)?;
        check_range("debate", "rounds", rounds, 1, Self::MAX_ROUNDS)?;
        Ok(Self { agents, rounds })
    }
}

/// The round r ≥ 1 prompt of an agent, given the other agents' previous responses
/// (`prompts/debate/update.jinja`).
pub fn debate_prompt(query: &Query, others: &[&str]) -> Result<String, PolicyError> {
    let others: Vec<String> = others.iter().map(|t| shown_text(t)).collect();
    prompts::render(
        prompts::DEBATE_UPDATE,
        minijinja::context! {
            others => others,
            question => &query.item.question,
            suffix => format_suffix(query),
        },
    )
}

#[async_trait]
impl ReasoningPolicy for Debate {
    fn name(&self) -> &str {
        "debate"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let (n, rounds) = (self.agents.max(1), self.rounds.max(1));
        let team = baseline_roster(roster, n, false)?.team(n)?;
        let mut failures = Failures::default();
        let mut history: Vec<Vec<Turn>> = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let r = u32::try_from(round).unwrap_or(u32::MAX);
            let asks = (0..n)
                .map(|i| -> Result<_, PolicyError> {
                    let prompt = match history.last() {
                        None => query.text(),
                        Some(prev) => {
                            let others: Vec<&str> = prev
                                .iter()
                                .enumerate()
                                .filter(|(j, _)| *j != i)
                                .map(|(_, t)| t.text.as_str())
                                .collect();
                            debate_prompt(query, &others)?
                        }
                    };
                    Ok((i, prompt, ask_options(query, self.name(), Some(r), i)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let turns = ask_all(&team, asks)
                .await
                .into_iter()
                .map(|(i, result)| failures.turn(Some(r), i, result))
                .collect();
            history.push(turns);
        }
        let per_round: Vec<Vec<Option<String>>> = history
            .iter()
            .map(|turns| turns.iter().map(|t| query.extract(&t.text)).collect())
            .collect();
        let last_answers = per_round.last().cloned().unwrap_or_default();
        let texts: Vec<&str> = history
            .last()
            .map(|turns| turns.iter().map(|t| t.text.as_str()).collect())
            .unwrap_or_default();
        let d = decide(&texts, &last_answers, &query.item.answer_type);
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": "debate",
                    "agents": n,
                    "rounds": rounds,
                    "answers": per_round,
                    "clusters": d.vote.clusters,
                    "winner": d.vote.winner,
                    "chosen_agent": d.chosen,
                    "answer": d.answer,
                    "errors": errors,
                });
                (d.text.clone(), d.answer.clone(), trace)
            })
            .await
    }
}
