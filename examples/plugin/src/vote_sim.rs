//! Teaches colony's offline simulated model `demo_vote`'s judge turn: a responder owning the
//! purpose `demo_vote`, so it answers the calls `demo_vote` tags `demo_vote.judge` and no
//! other family's prompts. The simulated judge takes the answer two of the three agents gave
//! (a plurality vote), else keeps its own.

use colony::llm::responder::{KeyedTurn, Responder};

/// The responder, registered with `Registry::responder`.
pub struct JudgeResponder;

impl Responder for JudgeResponder {
    fn name(&self) -> &str {
        "demo_vote"
    }

    fn purposes(&self) -> &[&str] {
        &["demo_vote"]
    }

    fn keyed(&self, turn: &KeyedTurn<'_>) -> Option<String> {
        if turn.purpose != Some("demo_vote.judge") {
            return None;
        }
        // The prompt lists the answers as `Agent k:` blocks after the question.
        let listed = turn.user.split_once("answered differently:")?.1;
        let answers: Vec<String> = listed
            .split("\n\nAgent ")
            .filter_map(|block| (turn.extract)(block))
            .collect();
        let plurality = answers
            .iter()
            .find(|a| answers.iter().filter(|b| b == a).count() >= 2);
        Some(match plurality {
            Some(a) => format!(
                "Two of the three agents agree (plurality vote), so the result is \\boxed{{{a}}}.\n\
                 The answer is {a}."
            ),
            None => format!(
                "The three agents disagree; checking the work myself, the result is \\boxed{{{}}}.\n\
                 The answer is {}.",
                turn.answer, turn.answer
            ),
        })
    }
}
