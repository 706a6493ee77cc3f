//! The plumbing every reasoning policy shares: ask options, concurrent asks
//! and their failure bookkeeping, the answer-format suffix, roster resizing, how a reply is
//! shown inside another agent's prompt, and how the offline simulated model's hooks compare
//! stated answers. (The vote lives in `vote.rs`, seeded draws in `seeds.rs`.)

use std::sync::Arc;

use futures::future::join_all;
use serde_json::json;

use super::{llm_seed, PolicyError, PolicyOutput, Query, Roster};
use colony_runtime::{AskOptions, Reply, RoleCard, RuntimeError, Team};

/// What a prompt shows for a failed or empty reply.
pub const NO_RESPONSE: &str = "(no response)";

/// `text` trimmed, or [`NO_RESPONSE`] when it is blank: the form replies take when they are
/// quoted to other agents (debate, DyLAN, MacNet, AgentVerse, SwarmSys).
pub fn shown_text(text: &str) -> String {
    if text.trim().is_empty() {
        NO_RESPONSE.to_string()
    } else {
        text.trim().to_string()
    }
}

/// An answer reduced for the simulated model's comparisons: lowercase, without whitespace,
/// thousands separators or dollar signs (`$1,000` and `1000` compare equal). The hooks of
/// [`colony_llm::SimulatedModel`] use it to decide whether a quoted answer is their own; the
/// policies themselves compare answers with the dataset's grader.
pub fn normal_answer(answer: &str) -> String {
    answer
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, ',' | '$'))
        .collect::<String>()
        .to_lowercase()
}

/// Options of a stateless call that agent `agent` makes at `step` of round `round`, for
/// methods whose agents make several different calls per round (MacNet's reviews and
/// improvements, AgentVerse's drafts and critiques): the LLM seed of docs/design/reasoning.md §0.3
/// with the agent field `"{agent_id}|{step}"`, and the transcript tag `"round {round} {step}"`.
pub(crate) fn step_options(
    query: &Query,
    method: &str,
    round: u32,
    agent: usize,
    step: &str,
) -> AskOptions {
    let id = format!("{}|{step}", Roster::agent_id(agent));
    AskOptions::new()
        .seed(llm_seed(
            query.run_seed,
            &query.item.id,
            method,
            Some(round),
            &id,
        ))
        .tag(format!("round {round} {step}"))
        .purpose(format!("{method}.{step}"))
        .stateless()
}

/// One call of agent 0 with `prompt`; the output of Single and CoT.
pub(crate) async fn one_call(
    query: &Query,
    roster: &Roster,
    method: &str,
    prompt: String,
) -> Result<PolicyOutput, PolicyError> {
    let team = baseline_roster(roster, 1, true)?.team(1)?;
    let options = ask_options(query, method, None, 0);
    let mut failures = Failures::default();
    let replies = ask_all(&team, vec![(0, prompt, options)]).await;
    let turns: Vec<Turn> = replies
        .into_iter()
        .map(|(i, r)| failures.turn(None, i, r))
        .collect();
    let text = turns.into_iter().next().map(|t| t.text).unwrap_or_default();
    let answer = query.extract(&text);
    failures
        .finish(team, |errors| {
            (
                text,
                answer.clone(),
                json!({ "method": method, "answer": answer, "errors": errors }),
            )
        })
        .await
}

/// The answer-format suffix of the query (design §0.4): the prompt after the question body.
pub(crate) fn format_suffix(query: &Query) -> String {
    query
        .text()
        .strip_prefix(query.item.question.as_str())
        .map(str::to_string)
        .unwrap_or_default()
}

/// The ask options of agent `agent`'s call: the per-agent LLM seed of design §0.3, tagged with
/// the round when there is one. Temperature and token limit are not set per call: they come
/// from the agent's role card, the run's flags, its model's `models.toml` entry and the
/// roster's default ([`super::MASLAB_SAMPLING`]), in that order (see [`colony_llm::Sampling`]).
pub(crate) fn ask_options(
    query: &Query,
    method: &str,
    round: Option<u32>,
    agent: usize,
) -> AskOptions {
    let id = Roster::agent_id(agent);
    let seed = llm_seed(query.run_seed, &query.item.id, method, round, &id);
    let options = AskOptions::new().seed(seed).purpose(method);
    match round {
        Some(r) => options.tag(format!("round {r}")),
        None => options,
    }
}

/// Runs the asks `(agent index, prompt, options)` concurrently; results in input order.
pub(crate) async fn ask_all(
    team: &Team,
    asks: Vec<(usize, String, AskOptions)>,
) -> Vec<(usize, Result<Reply, RuntimeError>)> {
    join_all(asks.into_iter().map(|(i, prompt, options)| async move {
        (i, team.ask_with(Roster::agent_id(i), prompt, options).await)
    }))
    .await
}

/// A roster of `n` agents taking members cyclically from `roster` (`only_first`: all copies of
/// member 0), for policies whose agent count is an option rather than the roster's size.
pub(crate) fn resized(roster: &Roster, n: usize, only_first: bool) -> Result<Roster, PolicyError> {
    if roster.members.is_empty() {
        return Err(PolicyError::Config("the roster has no agents".into()));
    }
    let len = if only_first { 1 } else { roster.members.len() };
    Ok(Roster {
        members: (0..n).map(|i| roster.members[i % len].clone()).collect(),
        sampling: roster.sampling.clone(),
    })
}

/// [`resized`] with the role cards' system prompts removed: the baselines send no system
/// prompt (docs/design/baselines.md §3.1–3.4); role cards are SelfOrg's (§1.3).
pub(crate) fn baseline_roster(
    roster: &Roster,
    n: usize,
    only_first: bool,
) -> Result<Roster, PolicyError> {
    let mut r = resized(roster, n, only_first)?;
    for m in &mut r.members {
        let role = RoleCard {
            system_prompt: String::new(),
            ..(*m.role).clone()
        };
        m.role = Arc::new(role);
    }
    Ok(r)
}

/// The outcome of one call: its text (empty when it failed, design §0.2; the error is in the
/// trace).
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    pub text: String,
}

/// Failed calls of a query: recorded in the trace; the method continues with empty text.
#[derive(Debug, Default)]
pub(crate) struct Failures {
    errors: Vec<serde_json::Value>,
    /// The first failure that is not a model failure (budget, shutdown, …).
    fatal: Option<RuntimeError>,
    successes: usize,
}

impl Failures {
    /// Runs the asks of `round` concurrently ([`ask_all`]) and returns each one's text (empty
    /// for a failed ask, which is recorded here), in input order.
    pub(crate) async fn ask_texts(
        &mut self,
        team: &Team,
        round: Option<u32>,
        asks: Vec<(usize, String, AskOptions)>,
    ) -> Vec<String> {
        ask_all(team, asks)
            .await
            .into_iter()
            .map(|(i, r)| self.turn(round, i, r).text)
            .collect()
    }

    /// The turn of `agent` in `round` from its ask result.
    pub fn turn(
        &mut self,
        round: Option<u32>,
        agent: usize,
        result: Result<Reply, RuntimeError>,
    ) -> Turn {
        match result {
            Ok(reply) => {
                self.successes += 1;
                Turn { text: reply.text }
            }
            Err(e) => {
                let message = e.to_string();
                self.errors.push(json!({
                    "round": round,
                    "agent": Roster::agent_id(agent),
                    "error": message,
                }));
                let model_failure =
                    matches!(e, RuntimeError::Model { .. } | RuntimeError::Timeout { .. });
                if !model_failure && self.fatal.is_none() {
                    self.fatal = Some(e);
                }
                Turn {
                    text: String::new(),
                }
            }
        }
    }

    /// The output, and the team shut down: `build(errors)` gives (final text, answer, trace).
    /// Fails only when no call succeeded and a failure was not the model's (budget exhausted,
    /// team shut down, …). Every policy ends here, so no team outlives its query.
    pub async fn finish(
        self,
        team: Team,
        build: impl FnOnce(Vec<serde_json::Value>) -> (String, Option<String>, serde_json::Value),
    ) -> Result<PolicyOutput, PolicyError> {
        let output = match self.fatal {
            Some(e) if self.successes == 0 => Err(e.into()),
            _ => {
                let (final_text, answer, trace) = build(self.errors);
                Ok(PolicyOutput {
                    final_text,
                    answer,
                    transcript: team.transcript(),
                    usage: team.usage(),
                    trace,
                })
            }
        };
        team.shutdown().await;
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_replies_show_as_no_response_and_answers_normalise() {
        assert_eq!(shown_text("  \n"), NO_RESPONSE);
        assert_eq!(shown_text(" x \n"), "x");
        assert_eq!(normal_answer("$1,000 "), "1000");
        assert_eq!(normal_answer("(B)"), "(b)");
    }
}
