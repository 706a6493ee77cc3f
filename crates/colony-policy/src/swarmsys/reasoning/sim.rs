//! How colony's offline simulated model answers SwarmSys prompts, so the policy runs end to
//! end without an endpoint (DESIGN.md, offline default). Like an LLM, it reads only the
//! prompt: the simulated model has already decided its own answer to the question (by its
//! accuracy and the peer answers in the prompt); this module wraps that answer in the form a
//! SwarmSys turn asks for.
//!
//! * **Validator prompts** (they state [`VALIDATOR_MARKER`]): one `VERDICT <id>: valid|invalid`
//!   line per worker of this round, valid when the worker's stated answer equals the
//!   validator's own; `TERMINATE: The answer is: <answer>` when a strict majority of the
//!   round's workers are valid, otherwise a sentence saying there is no consensus yet.
//! * **Explorer prompts asking for sub-events** (they contain [`SUBEVENTS_MARKER`]): the usual
//!   reasoning followed by a valid two-step `{"subevents": [...]}` block.
//! * Anything else: `None` (the simulated model's ordinary reasoning reply).

use super::turns::{SUBEVENTS_MARKER, THIS_ROUND, VALIDATOR_MARKER};
use crate::reasoning::common::normal_answer as normal;

/// The block a simulated explorer proposes in mode B: two leaves, the second depending on the
/// first (generic wording: the leaves' prompts carry the original question as the overall
/// task).
pub const SIMULATED_SUBEVENTS: &str = r#"{"subevents": [{"id": "S1", "title": "Collect the data", "description": "List the quantities the question gives and say what it asks for.", "depends_on": [], "milestone": "The given quantities and the unknown"}, {"id": "S2", "title": "Compute the result", "description": "Combine the quantities into the value the question asks for.", "depends_on": ["S1"], "milestone": "The requested value"}]}"#;

/// The current round's worker messages of a validator prompt: `(id, text)` after the last
/// `This round:` heading, one per `### <id> (worker)` section.
fn workers_of_round(user: &str) -> Vec<(String, String)> {
    let Some(start) = user.rfind(THIS_ROUND) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in user[start..].lines() {
        if let Some(head) = line.strip_prefix("### ") {
            if let Some(w) = current.take() {
                out.push(w);
            }
            if let Some(id) = head.strip_suffix(" (worker)") {
                current = Some((id.trim().to_string(), String::new()));
            }
            continue;
        }
        if let Some((_, text)) = current.as_mut() {
            if line.starts_with("You are ") {
                out.extend(current.take());
                break;
            }
            text.push_str(line);
            text.push('\n');
        }
    }
    out.extend(current);
    out
}

/// The simulated reply to a SwarmSys prompt whose user message is `user`, given the answer
/// the simulated agent settled on, its ordinary reply `body`, and how it reads the answer a
/// text states (`extract`); `None` for prompts that are not SwarmSys validator or mode-B
/// explorer turns.
pub fn simulated_reply(
    user: &str,
    answer: &str,
    body: &str,
    extract: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if user.contains(VALIDATOR_MARKER) {
        let workers = workers_of_round(user);
        let mine = normal(answer);
        let mut lines = Vec::with_capacity(workers.len());
        let mut valid = 0usize;
        for (id, text) in &workers {
            let ok = extract(text).is_some_and(|a| normal(&a) == mine);
            valid += usize::from(ok);
            lines.push(format!(
                "VERDICT {id}: {}",
                if ok { "valid" } else { "invalid" }
            ));
        }
        let close = if !workers.is_empty() && 2 * valid > workers.len() {
            format!("TERMINATE: The answer is: {answer}")
        } else {
            "No consensus yet: the workers do not agree, another round is needed.".to_string()
        };
        return Some(format!("{body}\n\n{}\n{close}", lines.join("\n")));
    }
    if user.contains(SUBEVENTS_MARKER) {
        return Some(format!("{body}\n\n{SIMULATED_SUBEVENTS}"));
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::super::parse::{parse_subevents, parse_terminate, parse_verdicts};
    use super::super::turns::{self, Shown};
    use super::*;
    use crate::swarmsys::reasoning::matching::Role;

    fn last_answer(t: &str) -> Option<String> {
        t.rsplit("The answer is ")
            .next()
            .filter(|_| t.contains("The answer is "))
            .map(|a| a.trim().trim_end_matches('.').to_string())
    }

    #[test]
    fn validator_replies_parse() {
        let x = Shown::new("X1", Role::Explorer, 1, "Plan. The answer is 3.");
        let ws = [
            Shown::new("W1", Role::Worker, 1, "Work. The answer is 7."),
            Shown::new("W2", Role::Worker, 1, "Work. The answer is 7."),
            Shown::new("W3", Role::Worker, 1, "Work. The answer is 8."),
        ];
        let prompt =
            turns::validator_prompt("Event E1: Q\nWhat?", &x, &ws, "V1", "E1", 1, "Box it.")
                .unwrap();
        let reply =
            simulated_reply(&prompt, "7", "Checked. The answer is 7.", &last_answer).unwrap();
        assert_eq!(parse_terminate(&reply).as_deref(), Some("7"));
        let v = parse_verdicts(&reply);
        assert_eq!(v.get("w1"), Some(&true));
        assert_eq!(v.get("w3"), Some(&false));
        let reply = simulated_reply(&prompt, "8", "Checked.", &last_answer).unwrap();
        assert_eq!(
            parse_terminate(&reply),
            None,
            "one of three agrees: no consensus"
        );
        assert!(simulated_reply("Solve it.", "7", "b", &last_answer).is_none());
    }

    #[test]
    fn explorer_blocks_parse() {
        let p = turns::explorer_prompt("Event E1: Q\nWhat?", "X1", "E1", 1, false, true).unwrap();
        let reply = simulated_reply(&p, "7", "Plan.", &last_answer).unwrap();
        let s = parse_subevents(&reply).unwrap();
        assert_eq!(s.len(), 2);
        let plain = turns::explorer_prompt("Event E1", "X1", "E1", 1, false, false).unwrap();
        assert!(simulated_reply(&plain, "7", "Plan.", &last_answer).is_none());
    }
}

/// SwarmSys's responder: teaches the simulated model its validator and mode-B explorer turns
/// ([`simulated_reply`]); registered by `Registry::builtin`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SwarmSysResponder;

impl colony_llm::responder::Responder for SwarmSysResponder {
    fn name(&self) -> &str {
        "swarmsys"
    }

    /// The reasoning turns' purposes only: embodied SwarmSys's `swarmsys.act` calls are
    /// environment prompts, answered by the environments' simulated agents.
    fn purposes(&self) -> &[&str] {
        &["swarmsys.explorer", "swarmsys.worker", "swarmsys.validator"]
    }

    fn keyed(&self, t: &colony_llm::responder::KeyedTurn<'_>) -> Option<String> {
        simulated_reply(t.user, t.answer, t.body, t.extract)
    }
}
