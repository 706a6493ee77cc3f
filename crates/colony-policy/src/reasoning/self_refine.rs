//! Self-Refine of Madaan et al. (2023) (docs/design/baselines.md §3.10): one model answers,
//! gives feedback on its own answer, and refines it with the feedback, until the feedback says
//! stop or `iterations` refinements were made.
//!
//! Per item: `answer` (the query as-is), then per iteration t = 1…`iterations`: `feedback` on
//! the latest answer (`prompts/self_refine/feedback.jinja`); if it carries [`STOP_MARKER`] the
//! loop ends, else `refine` (`prompts/self_refine/refine.jinja`) writes a new answer seeing the
//! whole history of answers and feedback, as the paper's refine step does (§2, "retains the
//! history of previous feedback and outputs"). Calls: at most 1 + 2·iterations.
//!
//! Decisions where the paper leaves room:
//! * **Stop:** the paper's stop indicator is task-specific; here the feedback prompt asks for
//!   the marker `[Stop]` when the answer needs no change (any case).
//! * **Default** `iterations = 4`, the paper's maximum number of iterations (§3).
//! * **One agent** (`agent_0`) makes every call, as the paper uses one model for all three
//!   roles; no system prompt, like the other baselines.
//! * **Failures:** a failed feedback call ends the loop with the current answer (nothing says
//!   what to fix); a failed or empty refinement keeps the previous answer and ends the loop.
//! * The output is the last answer; its answer is extracted once at the end (§3.9).

use async_trait::async_trait;
use serde::Serialize;
use serde_json::json;

use super::common::{baseline_roster, format_suffix, shown_text, step_options, Failures};
use super::{check_range, prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};
use crate::options::PolicyOptions;

/// `prompts/self_refine/feedback.jinja`.
pub const FEEDBACK: &str = include_str!("../../../../prompts/self_refine/feedback.jinja");
/// `prompts/self_refine/refine.jinja`.
pub const REFINE: &str = include_str!("../../../../prompts/self_refine/refine.jinja");
/// The marker feedback ends with when the answer needs no change.
pub const STOP_MARKER: &str = "[Stop]";
/// Stated by every feedback prompt (the simulated model keys on it).
pub const FEEDBACK_MARKER: &str = "Give feedback on this answer";

const METHOD: &str = "self_refine";

/// Self-Refine with at most `iterations` feedback-and-refine steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfRefine {
    /// Refinement iterations at most (default 4, the paper's).
    pub iterations: usize,
}

impl Default for SelfRefine {
    fn default() -> Self {
        Self { iterations: 4 }
    }
}

impl SelfRefine {
    /// The most iterations (each costs two calls and the refine prompt grows with each).
    pub const MAX_ITERATIONS: usize = 10;

    /// Self-Refine with 1 to [`Self::MAX_ITERATIONS`] iterations.
    pub fn new(iterations: usize) -> Result<Self, PolicyError> {
        check_range(METHOD, "iterations", iterations, 1, Self::MAX_ITERATIONS)?;
        Ok(Self { iterations })
    }

    /// From `self_refine:iterations=N`.
    pub(crate) fn from_options(o: &mut PolicyOptions) -> Result<Self, PolicyError> {
        Self::new(o.count("iterations")?.unwrap_or(Self::default().iterations))
    }
}

/// One answer and the feedback on it, as the refine prompt shows them.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    /// The answer's text.
    pub answer: String,
    /// The feedback on it.
    pub feedback: String,
}

/// The feedback prompt on `answer`.
pub fn feedback_prompt(query: &Query, answer: &str) -> Result<String, PolicyError> {
    prompts::render(
        FEEDBACK,
        minijinja::context! { question => &query.item.question, answer => shown_text(answer) },
    )
}

/// The refine prompt given every attempt so far.
pub fn refine_prompt(query: &Query, attempts: &[Attempt]) -> Result<String, PolicyError> {
    prompts::render(
        REFINE,
        minijinja::context! {
            question => &query.item.question, attempts => attempts, suffix => format_suffix(query),
        },
    )
}

/// Whether feedback says the answer needs no change.
pub fn says_stop(feedback: &str) -> bool {
    feedback
        .to_lowercase()
        .contains(&STOP_MARKER.to_lowercase())
}

#[async_trait]
impl ReasoningPolicy for SelfRefine {
    fn name(&self) -> &str {
        METHOD
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        let team = baseline_roster(roster, 1, true)?.team(1)?;
        let mut failures = Failures::default();
        let ask = |round: u32, step: &'static str, prompt: String| {
            (0, prompt, step_options(query, METHOD, round, 0, step))
        };
        let mut current = failures
            .ask_texts(&team, Some(0), vec![ask(0, "answer", query.text())])
            .await
            .concat();
        let mut answers = vec![query.extract(&current)];
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut stop = "iterations";
        for t in 1..=self.iterations {
            let round = u32::try_from(t).unwrap_or(u32::MAX);
            let prompt = feedback_prompt(query, &current)?;
            let feedback = failures
                .ask_texts(&team, Some(round), vec![ask(round, "feedback", prompt)])
                .await
                .concat();
            if feedback.trim().is_empty() {
                stop = "no_feedback";
                break;
            }
            if says_stop(&feedback) {
                attempts.push(Attempt {
                    answer: shown_text(&current),
                    feedback: feedback.trim().to_string(),
                });
                stop = "feedback";
                break;
            }
            attempts.push(Attempt {
                answer: shown_text(&current),
                feedback: feedback.trim().to_string(),
            });
            let prompt = refine_prompt(query, &attempts)?;
            let refined = failures
                .ask_texts(&team, Some(round), vec![ask(round, "refine", prompt)])
                .await
                .concat();
            if refined.trim().is_empty() {
                stop = "no_refinement";
                break;
            }
            current = refined;
            answers.push(query.extract(&current));
        }
        let answer = query.extract(&current);
        let stops: Vec<bool> = attempts.iter().map(|a| says_stop(&a.feedback)).collect();
        failures
            .finish(team, |errors| {
                let trace = json!({
                    "method": METHOD, "iterations": self.iterations,
                    "refinements": answers.len() - 1, "answers": answers, "stop_said": stops,
                    "stop": stop, "answer": answer, "errors": errors,
                });
                (current, answer.clone(), trace)
            })
            .await
    }
}

/// Teaches the simulated model Self-Refine's feedback turn: its reasoning and [`STOP_MARKER`]
/// when the answer under review states the answer the simulated agent settled on, else an
/// objection before its reasoning. Refinements are ordinary answer turns.
#[derive(Debug, Clone, Copy, Default)]
pub struct SelfRefineResponder;

impl colony_llm::responder::Responder for SelfRefineResponder {
    fn name(&self) -> &str {
        METHOD
    }

    fn purposes(&self) -> &[&str] {
        &[METHOD]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        if !t.user.contains(FEEDBACK_MARKER) {
            return None;
        }
        let under_review = super::baseline_sim::blocks(t.user, "answer")
            .into_iter()
            .next_back()
            .unwrap_or("");
        let agrees = super::baseline_sim::states(under_review, t.answer, t.extract);
        Some(if agrees == Some(true) {
            format!("{}\n\nThe answer is correct. {STOP_MARKER}", t.body)
        } else {
            format!(
                "The final answer is wrong: redo the calculation from the given numbers.\n\n{}",
                t.body
            )
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use colony_qa::{AnswerType, Item};

    fn query() -> Query {
        Query {
            item: Item {
                id: "0".into(),
                question: "What is 3 + 4?".into(),
                choices: vec![],
                gold: "7".into(),
                answer_type: AnswerType::Numeric,
                meta: Default::default(),
            },
            run_seed: 0,
        }
    }

    #[test]
    fn prompts_quote_the_history_and_the_stop_marker_is_read_in_any_case() {
        let q = query();
        let p = feedback_prompt(&q, "It is 8.").unwrap();
        assert!(p.contains("<answer>\nIt is 8.\n</answer>") && p.contains(STOP_MARKER));
        assert!(p.contains(FEEDBACK_MARKER));
        let attempts = [
            Attempt {
                answer: "It is 8.".into(),
                feedback: "Wrong sum.".into(),
            },
            Attempt {
                answer: "It is 6.".into(),
                feedback: "Still wrong.".into(),
            },
        ];
        let p = refine_prompt(&q, &attempts).unwrap();
        assert!(p.contains("Attempt 2:") && p.contains("Still wrong.") && p.contains("It is 8."));
        assert!(says_stop("All good. [STOP]") && !says_stop("Stop here? no"));
        assert!(SelfRefine::new(0).is_err() && SelfRefine::new(11).is_err());
    }
}
