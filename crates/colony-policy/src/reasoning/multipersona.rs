//! MultiPersona, Solo Performance Prompting of Wang et al. (2023b) (docs/design/baselines.md
//! §3.11): one model identifies the personas a task needs, simulates their multi-turn
//! collaboration in one reply, and states the final answer.
//!
//! One call per item (`prompts/multipersona/spp.jinja`): the SPP instruction, `demonstrations`
//! worked examples (the paper's prompt has two: one reasoning and one knowledge task), and the
//! task with the dataset's answer-format suffix.
//!
//! Decisions where the paper leaves room:
//! * **Demonstrations** are written in our own words on a word problem and a knowledge
//!   question, the two kinds of task the paper's demonstrations cover; `demonstrations=0|1|2`
//!   (default 2, the paper's) chooses how many are shown.
//! * **Answer:** read from the text after the reply's last `Final answer:` line when it states
//!   one (the collaboration before it quotes rejected answers), else from the whole reply
//!   (counted in the trace's `fallback`).
//! * No system prompt, like the other baselines.

use async_trait::async_trait;
use serde_json::json;

use super::common::{ask_options, baseline_roster, format_suffix, Failures};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::PolicyOptions;

/// `prompts/multipersona/spp.jinja`.
pub const SPP: &str = include_str!("../../../../prompts/multipersona/spp.jinja");
/// The line the final answer follows.
pub const FINAL_ANSWER: &str = "Final answer:";
/// Stated by every SPP prompt (the simulated model keys on it).
pub const SPP_MARKER: &str = "begin by identifying the participants";

const METHOD: &str = "multipersona";

/// MultiPersona (SPP) with `demonstrations` worked examples in its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiPersona {
    /// Demonstrations shown (0 to 2, default 2).
    pub demonstrations: usize,
}

impl Default for MultiPersona {
    fn default() -> Self {
        Self { demonstrations: 2 }
    }
}

impl MultiPersona {
    /// MultiPersona with 0 to 2 demonstrations.
    pub fn new(demonstrations: usize) -> Result<Self, PolicyError> {
        check_range(METHOD, "demonstrations", demonstrations, 0, 2)?;
        Ok(Self { demonstrations })
    }

    /// From `multipersona:demonstrations=N`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        let d = Self::default().demonstrations as u64;
        let n = o.whole("demonstrations", d, 0..=2)?;
        Self::new(usize::try_from(n).unwrap_or(usize::MAX))
    }
}

/// The SPP prompt of `query`.
pub fn spp_prompt(query: &Query, demonstrations: usize) -> Result<String, PolicyError> {
    prompts::render(
        SPP,
        minijinja::context! {
            question => &query.item.question, suffix => format_suffix(query),
            demonstrations => demonstrations,
        },
    )
}

/// The text after the last `Final answer:` of `reply` (any case), if any.
pub fn final_part(reply: &str) -> Option<&str> {
    let lower = reply.to_lowercase();
    let at = lower.rfind(&FINAL_ANSWER.to_lowercase())?;
    // Lowercasing keeps byte offsets for ASCII; a non-ASCII reply may shift them.
    reply
        .get(at + FINAL_ANSWER.len()..)
        .filter(|_| lower.len() == reply.len())
}

#[async_trait]
impl ReasoningPolicy for MultiPersona {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let team = baseline_roster(roster, 1, true)?.team(1)?;
        let mut failures = Failures::default();
        let prompt = spp_prompt(query, self.demonstrations)?;
        let options = ask_options(query, METHOD, None, 0);
        let text = failures
            .ask_texts(&team, None, vec![(0, prompt, options)])
            .await
            .concat();
        let from_final = final_part(&text).and_then(|t| query.extract(t));
        let fallback = from_final.is_none();
        let answer = from_final.or_else(|| query.extract(&text));
        let personas = text
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("Participants:"))
            .map(|p| {
                p.split(';')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .count()
            });
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "demonstrations": self.demonstrations,
                    "personas": personas, "fallback": fallback, "answer": answer,
                    "errors": errors,
                });
                (text, answer.clone(), trace)
            })
            .await
    }
}

/// Teaches the simulated model the SPP format: its ordinary reasoning as a short exchange of
/// two personas, then `Final answer:` with the answer it settled on.
#[derive(Debug, Clone, Copy, Default)]
pub struct MultiPersonaResponder;

impl colony_llm::responder::Responder for MultiPersonaResponder {
    fn name(&self) -> &str {
        METHOD
    }

    fn purposes(&self) -> &[&str] {
        &[METHOD]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        t.user.contains(SPP_MARKER).then(|| {
            format!(
                "Participants: AI Assistant (you); Domain Expert\n\nStart collaboration!\n\n\
                 Domain Expert: {}\nAI Assistant (you): I checked each step and agree.\n\n\
                 {FINAL_ANSWER} {}",
                t.body.trim(),
                t.answer
            )
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_qa::{AnswerType, Item};

    #[test]
    fn the_prompt_shows_the_asked_demonstrations_and_the_final_part_is_read() {
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
        let two = spp_prompt(&q, 2).unwrap();
        let none = spp_prompt(&q, 0).unwrap();
        assert_eq!(two.matches("Example task:").count(), 2);
        assert_eq!(none.matches("Example task:").count(), 0);
        assert!(two.contains(SPP_MARKER) && two.ends_with(&q.text()[q.item.question.len()..]));
        assert_eq!(
            final_part("A: 8?\nB: no.\nFinal answer: 7").map(str::trim),
            Some("7")
        );
        assert_eq!(final_part("no marker"), None);
        assert!(MultiPersona::new(3).is_err());
    }
}
