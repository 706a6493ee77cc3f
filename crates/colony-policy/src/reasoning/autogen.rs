//! AutoGen group chat of Wu et al. (2024), as the SelfOrg paper ran it (docs/design/baselines.md
//! §3.8): an assistant and a critic (the user proxy's reviewing voice) under a manager that
//! selects the next speaker, until a message says `TERMINATE` or the round cap is reached.
//!
//! The user proxy opens the chat with the task (the query with its answer-format suffix); the
//! assistant always speaks first. Before every later message the manager reads the whole chat
//! and names the next speaker (`prompts/autogen/select.jinja`); the speaker reads the whole
//! chat too (`assistant.jinja`, `critic.jinja`), as every member of an AutoGen group chat
//! receives every message. Calls: 1 + 2·(rounds − 1) at most.
//!
//! Decisions where the paper and the port leave room:
//! * **Round cap:** `rounds` counts the messages after the task (AutoGen's `max_round`); the
//!   default 3 is the SelfOrg paper's setting (§3.8).
//! * **Termination:** a message containing `TERMINATE` (any case) ends the chat; AutoGen's
//!   default test, whether a message ends with the word, misses the small models' trailing
//!   punctuation.
//! * **Speaker selection:** the manager's reply must name exactly one of `assistant` and
//!   `critic`; otherwise the role that did not speak last is chosen (AutoGen falls back to the
//!   next agent in order), counted in the trace's `fallbacks`. A manager may pick the last
//!   speaker again, as AutoGen's `allow_repeat_speaker` allows by default.
//! * **Output:** the assistant's last non-empty message (the critic only reviews); a chat whose
//!   every assistant message failed yields the last non-empty message of any speaker. Its
//!   answer is extracted once at the end (§3.9). The port's error of scoring a first-reply
//!   termination as an inference error is not reproduced.
//! * Agents: `agent_0` assistant, `agent_1` critic, `agent_2` manager; no system prompt.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::json;

use super::common::{baseline_roster, format_suffix, step_options, Failures};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::PolicyOptions;

/// `prompts/autogen/assistant.jinja`.
pub const ASSISTANT: &str = include_str!("../../../../prompts/autogen/assistant.jinja");
/// `prompts/autogen/critic.jinja`.
pub const CRITIC: &str = include_str!("../../../../prompts/autogen/critic.jinja");
/// `prompts/autogen/select.jinja`.
pub const SELECT: &str = include_str!("../../../../prompts/autogen/select.jinja");
/// The word that ends the chat.
pub const TERMINATE: &str = "TERMINATE";
/// Stated by every speaker-selection prompt (the simulated model keys on it).
pub const SELECT_MARKER: &str = "select the role that speaks next";
/// Stated by every critic prompt.
pub const CRITIC_MARKER: &str = "You are the critic in a group chat";

const METHOD: &str = "autogen";
/// The speakers' names, by agent index.
const SPEAKERS: [&str; 2] = ["assistant", "critic"];

/// The AutoGen group chat with at most `rounds` messages after the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoGen {
    /// Messages after the task at most (default 3, the SelfOrg paper's).
    pub rounds: usize,
}

impl Default for AutoGen {
    fn default() -> Self {
        Self { rounds: 3 }
    }
}

impl AutoGen {
    /// The most messages a chat may have.
    pub const MAX_ROUNDS: usize = 20;

    /// A chat of 1 to [`Self::MAX_ROUNDS`] messages.
    pub fn new(rounds: usize) -> Result<Self, PolicyError> {
        check_range(METHOD, "rounds", rounds, 1, Self::MAX_ROUNDS)?;
        Ok(Self { rounds })
    }

    /// From `autogen:rounds=N`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        Self::new(o.count("rounds")?.unwrap_or(Self::default().rounds))
    }
}

/// One message of the chat.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    /// Its speaker: `user_proxy`, `assistant` or `critic`.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// The chat as every prompt shows it: one `<message from="…">` block per message.
pub fn chat_text(messages: &[Message]) -> String {
    messages
        .iter()
        .map(|m| {
            format!(
                "<message from=\"{}\">\n{}\n</message>\n",
                m.name,
                super::common::shown_text(&m.text)
            )
        })
        .collect()
}

/// The prompt of speaker `speaker` (0 assistant, 1 critic) or of the manager (2).
pub fn speaker_prompt(
    query: &Query,
    speaker: usize,
    messages: &[Message],
) -> Result<String, PolicyError> {
    let template = match speaker {
        0 => ASSISTANT,
        1 => CRITIC,
        _ => SELECT,
    };
    prompts::render(
        template,
        minijinja::context! { chat => chat_text(messages), suffix => format_suffix(query) },
    )
}

/// The speaker a manager's reply names, if it names exactly one.
pub fn parse_speaker(reply: &str) -> Option<usize> {
    let lower = reply.to_lowercase();
    let named: Vec<usize> = (0..SPEAKERS.len())
        .filter(|&i| lower.contains(SPEAKERS[i]))
        .collect();
    match named.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether a message ends the chat.
pub fn terminates(text: &str) -> bool {
    text.to_uppercase().contains(TERMINATE)
}

#[async_trait]
impl ReasoningPolicy for AutoGen {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let mut members = baseline_roster(roster, 3, false)?;
        for (m, name) in members
            .members
            .iter_mut()
            .zip(["assistant", "critic", "manager"])
        {
            m.role =
                super::role_pool::with_prompt_of(&m.role, &colony_runtime::RoleCard::new(name, ""));
        }
        let team = members.team(3)?;
        let mut failures = Failures::default();
        let mut messages = vec![Message {
            name: "user_proxy".into(),
            text: query.text(),
        }];
        let (mut speakers, mut fallbacks) = (Vec::new(), 0u32);
        let mut stop = "rounds";
        let mut last = 1; // so the first fallback is the assistant
        for m in 1..=self.rounds {
            let round = u32::try_from(m).unwrap_or(u32::MAX);
            let speaker = if m == 1 {
                0
            } else {
                let prompt = speaker_prompt(query, 2, &messages)?;
                let options = step_options(query, METHOD, round, 2, "select");
                let reply = failures
                    .ask_texts(&team, Some(round), vec![(2, prompt, options)])
                    .await
                    .concat();
                parse_speaker(&reply).unwrap_or_else(|| {
                    fallbacks += 1;
                    1 - last
                })
            };
            let prompt = speaker_prompt(query, speaker, &messages)?;
            let options = step_options(query, METHOD, round, speaker, SPEAKERS[speaker]);
            let text = failures
                .ask_texts(&team, Some(round), vec![(speaker, prompt, options)])
                .await
                .concat();
            speakers.push(SPEAKERS[speaker]);
            last = speaker;
            let done = terminates(&text);
            messages.push(Message {
                name: SPEAKERS[speaker].into(),
                text,
            });
            if done {
                stop = "terminate";
                break;
            }
        }
        let said = |name: Option<&str>| {
            messages[1..]
                .iter()
                .rev()
                .find(|m| name.is_none_or(|n| m.name == n) && !m.text.trim().is_empty())
                .map(|m| m.text.clone())
        };
        let final_text = said(Some("assistant"))
            .or_else(|| said(None))
            .unwrap_or_default();
        let answer = query.extract(&final_text);
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "rounds": self.rounds, "speakers": speakers,
                    "fallbacks": fallbacks, "stop": stop, "answer": answer, "errors": errors,
                });
                (final_text, answer.clone(), trace)
            })
            .await
    }
}

/// Teaches the simulated model AutoGen's machine-read turns: the manager names the role that
/// did not speak last; the critic ends with `TERMINATE` when the assistant's latest message
/// states the answer the simulated agent settled on, else objects before its reasoning.
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoGenResponder;

impl colony_llm::responder::Responder for AutoGenResponder {
    fn name(&self) -> &str {
        METHOD
    }

    fn purposes(&self) -> &[&str] {
        &[METHOD]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        if t.user.contains(SELECT_MARKER) {
            let last = t.user.rfind("<message from=\"").map(|i| &t.user[i..]);
            let next = match last {
                Some(l) if l.starts_with("<message from=\"assistant\"") => "critic",
                _ => "assistant",
            };
            return Some(next.to_string());
        }
        if !t.user.contains(CRITIC_MARKER) {
            return None;
        }
        let latest = t
            .user
            .rsplit("<message from=\"assistant\">")
            .next()
            .filter(|_| t.user.contains("<message from=\"assistant\">"))
            .and_then(|rest| rest.split("</message>").next())
            .unwrap_or("");
        Some(
            if super::baseline_sim::states(latest, t.answer, t.extract) == Some(true) {
                format!("{}\n\nThe solution is correct. {TERMINATE}", t.body)
            } else {
                format!(
                    "The assistant's final answer is wrong; here is my own working.\n\n{}",
                    t.body
                )
            },
        )
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_qa::{AnswerType, Item};

    #[test]
    fn prompts_show_the_whole_chat_and_replies_parse() {
        let q = Query {
            item: Item {
                id: "0".into(),
                question: "What is 3 + 4?".into(),
                choices: vec![],
                gold: "7".into(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            },
            run_seed: 0,
        };
        let chat = [
            Message {
                name: "user_proxy".into(),
                text: q.text(),
            },
            Message {
                name: "assistant".into(),
                text: "It is 7.".into(),
            },
        ];
        let p = speaker_prompt(&q, 1, &chat).unwrap();
        assert!(p.contains(CRITIC_MARKER) && p.contains("<message from=\"assistant\">\nIt is 7."));
        assert!(speaker_prompt(&q, 2, &chat)
            .unwrap()
            .contains(SELECT_MARKER));
        assert!(speaker_prompt(&q, 0, &chat)
            .unwrap()
            .ends_with(&q.text()[q.item.question.len()..]));
        assert_eq!(parse_speaker("Critic."), Some(1));
        assert_eq!(parse_speaker("**assistant**"), Some(0));
        assert_eq!(parse_speaker("assistant or critic"), None);
        assert_eq!(parse_speaker(""), None);
        assert!(terminates("Looks right. terminate.") && !terminates("go on"));
        assert!(AutoGen::new(0).is_err());
    }
}
