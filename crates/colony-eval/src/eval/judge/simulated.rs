//! How the offline simulated model answers judge prompts (docs/design/grading.md §7.5), so the
//! whole judge path runs without an endpoint.
//!
//! Like an LLM, the responder reads only the prompt: the `<question>` and `<response>` blocks.
//! It finds the item whose prompt is the question, grades the response with the dataset's rule
//! grader, and agrees with that verdict with probability `accuracy` (the judge model's
//! configured accuracy, read as its agreement rate; `--judge-agreement`), drawn from the
//! request's seeded draw, so a run's judge verdicts are the same on every rerun. An equivalence
//! prompt gets the two-line verdict; a pairwise prompt names the response the rules find
//! correct when exactly one is (the other one when it disagrees), else a tie; a rubric prompt gets every criterion scored high (80% of
//! the scale) for a verdict of correct and low (20%) otherwise. A prompt whose question is not
//! one of the run's items is left to the model's generic reply, which the judge then counts as
//! unreadable.
//!
//! Decision: code items are compared by the dataset's answer rule here, not by running their
//! tests; the simulated judge's agreement on code datasets is therefore approximate.

use std::collections::HashMap;
use std::sync::Arc;

use colony_llm::responder::{Prompt, Responder, Response};
use colony_policy::registry::DatasetEntry;
use colony_qa::{extract, Item, JudgeOptions};

/// The rule verdict of a response to a question: `(extracted answer, correct)`, `None` when the
/// question is not a known item.
pub type RuleVerdict = dyn Fn(&str, &str) -> Option<(Option<String>, bool)> + Send + Sync;

/// The simulated judge (owns the `judge` purpose).
#[derive(Clone)]
pub struct JudgeResponder {
    rule: Arc<RuleVerdict>,
}

impl std::fmt::Debug for JudgeResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JudgeResponder")
    }
}

impl JudgeResponder {
    /// A responder that grades the responses to `items` with `dataset`'s rule grader.
    pub fn new(items: &[Item], dataset: &DatasetEntry) -> Self {
        let by_prompt: HashMap<String, Item> = items
            .iter()
            .map(|i| (i.prompt().trim().to_string(), i.clone()))
            .collect();
        let dataset = dataset.clone();
        Self {
            rule: Arc::new(move |question: &str, response: &str| {
                let item = by_prompt.get(question.trim())?;
                let answer = extract(response, &item.answer_type, &JudgeOptions::default()).answer;
                let correct = answer
                    .as_deref()
                    .is_some_and(|a| dataset.is_correct(a, item));
                Some((answer, correct))
            }),
        }
    }
}

/// The text between the first `open` and the first `close` after it (`last`: the last
/// `close`, for a block that may quote the closing tag itself, such as a response).
fn block<'a>(text: &'a str, open: &str, close: &str, last: bool) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let rest = &text[start..];
    let end = if last {
        rest.rfind(close)?
    } else {
        rest.find(close)?
    };
    Some(&rest[..end])
}

/// A uniform in [0, 1) from a draw.
fn uniform(draw: u64) -> f64 {
    (draw >> 11) as f64 / (1u64 << 53) as f64
}

impl Responder for JudgeResponder {
    fn name(&self) -> &str {
        "judge"
    }

    fn purposes(&self) -> &[&str] {
        &["judge"]
    }

    fn prompt(&self, p: &Prompt<'_>) -> Response {
        // The question ends at its first closing tag; the response runs to its last one.
        let Some(question) = block(p.user, "<question>\n", "\n</question>", false) else {
            return Response::Pass;
        };
        if let (Some(first), Some(second)) = (
            block(p.user, "<response_1>\n", "\n</response_1>", true),
            block(p.user, "<response_2>\n", "\n</response_2>", true),
        ) {
            let (Some((_, a)), Some((_, b))) =
                ((self.rule)(question, first), (self.rule)(question, second))
            else {
                return Response::Claimed;
            };
            // The better response by the rules; a disagreeing judge picks the other one (a
            // tie stays a tie).
            let agree = uniform(p.draw) < p.accuracy;
            let winner = match (a, b, agree) {
                (true, false, true) | (false, true, false) => "1",
                (false, true, true) | (true, false, false) => "2",
                _ => "TIE",
            };
            return Response::Reply(format!("Winner: {winner}"));
        }
        let Some(response) = block(p.user, "<response>\n", "\n</response>", true) else {
            return Response::Pass;
        };
        let Some((extracted, rule)) = (self.rule)(question, response) else {
            return Response::Claimed;
        };
        let agree = uniform(p.draw) < p.accuracy;
        let verdict = rule == agree;
        if let Some(criteria) = p.user.split("\nCriteria:\n").nth(1) {
            let scale: u32 = p
                .user
                .split("from 0 (absent or wrong) to ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(10);
            let score = if verdict {
                (f64::from(scale) * 0.8).round()
            } else {
                (f64::from(scale) * 0.2).round()
            };
            let lines: Vec<String> = criteria
                .lines()
                .map_while(|l| l.strip_prefix("- "))
                .filter_map(|l| l.split(':').next())
                .map(|name| format!("{name}: {score}"))
                .collect();
            return Response::Reply(lines.join("\n"));
        }
        let answer = extracted.unwrap_or_else(|| "NONE".into());
        Response::Reply(format!(
            "Extracted answer: {answer}\nVerdict: {}",
            if verdict { "CORRECT" } else { "INCORRECT" }
        ))
    }
}
