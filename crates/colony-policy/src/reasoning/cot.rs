//! Zero-shot chain-of-thought (docs/design/baselines.md §3.2): one call, user = `question_body` +
//! "\n\nLet's think step by step." + `format_suffix`.

use async_trait::async_trait;

use super::common::{format_suffix, one_call};
use super::{prompts, PolicyError, PolicyOutput, Query, ReasoningPolicy, Roster};

/// The sentence CoT inserts between the question and the answer-format suffix.
pub const STEP_BY_STEP: &str = "\n\nLet's think step by step.";

/// One zero-shot CoT call.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChainOfThought;

/// The CoT prompt of a query (`prompts/cot/cot.jinja`).
pub fn cot_prompt(query: &Query) -> Result<String, PolicyError> {
    let text = query.text();
    let (question, suffix) = if text.starts_with(query.item.question.as_str()) {
        (query.item.question.clone(), format_suffix(query))
    } else {
        // A prompt that does not start with the question: keep it whole.
        (text, String::new())
    };
    prompts::render(
        prompts::COT,
        minijinja::context! { question => question, suffix => suffix },
    )
}

#[async_trait]
impl ReasoningPolicy for ChainOfThought {
    fn name(&self) -> &str {
        "cot"
    }

    async fn solve(&self, query: &Query, roster: &Roster) -> Result<PolicyOutput, PolicyError> {
        one_call(query, roster, self.name(), cot_prompt(query)?).await
    }
}
