//! Small helpers several reasoning policies share: how a reply is shown inside another
//! agent's prompt, and how the offline simulated model's hooks compare stated answers.
//! (Asking, failure bookkeeping and the answer-format suffix live in `single.rs`, the vote in
//! `vote.rs`, seeded draws in `seeds.rs`.)

use super::{llm_seed, Query, Roster};
use crate::runtime::AskOptions;

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
/// [`crate::llm::SimulatedModel`] use it to decide whether a quoted answer is their own; the
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
/// improvements, AgentVerse's drafts and critiques): the LLM seed of spec §0.3 with the agent
/// field `"{agent_id}|{step}"`, and the transcript tag `"round {round} {step}"`.
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
        .stateless()
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
