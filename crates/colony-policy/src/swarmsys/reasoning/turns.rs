//! The three turns of an event round (docs/design/swarmsys.md §2.8): their prompts
//! (`prompts/swarmsys/*.jinja`), the bounded transcript, and running a phase of calls with
//! failures recorded in a fixed order.

use futures::future::join_all;
use serde::Serialize;
use serde_json::json;

use super::matching::Role;
use crate::reasoning::{prompts, PolicyError};
use colony_runtime::{AskOptions, Reply, RuntimeError, Team};

/// `prompts/swarmsys/event.jinja`: the event material every turn starts with.
pub const EVENT: &str = include_str!("../../../../../prompts/swarmsys/event.jinja");
/// `prompts/swarmsys/explorer.jinja`: the explorer's turn.
pub const EXPLORER: &str = include_str!("../../../../../prompts/swarmsys/explorer.jinja");
/// `prompts/swarmsys/worker.jinja`: a worker's turn.
pub const WORKER: &str = include_str!("../../../../../prompts/swarmsys/worker.jinja");
/// `prompts/swarmsys/validator.jinja`: the validator's turn.
pub const VALIDATOR: &str = include_str!("../../../../../prompts/swarmsys/validator.jinja");
/// The verdict-line form every validator prompt states (the simulated model keys on it).
pub const VALIDATOR_MARKER: &str = "VERDICT <agent_id>: valid|invalid";
/// The start of the mode-B block the explorer is asked for (the simulated model keys on it).
pub const SUBEVENTS_MARKER: &str = "{\"subevents\": [";
/// The heading before the current round's messages in worker and validator prompts.
pub const THIS_ROUND: &str = "This round:";

/// A message shown in a prompt.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// Author id.
    pub agent: String,
    /// Author's turn (`explorer`, `worker`, `validator`).
    pub role: &'static str,
    /// Event round it was written in.
    pub round: u32,
    /// The text (`(no response)` when empty).
    pub text: String,
}

impl Shown {
    /// A message of `agent` in `role`.
    pub fn new(agent: &str, role: Role, round: u32, text: &str) -> Self {
        Self {
            agent: agent.to_string(),
            role: role.name(),
            round,
            text: shown_text(text),
        }
    }
}

/// `text` trimmed, or `(no response)` (shared with the baselines).
pub use crate::reasoning::common::shown_text;

/// A dependency's result as the prompt shows it.
#[derive(Debug, Clone, Serialize)]
pub struct DepResult {
    /// Event id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Its result (TERMINATE answer or fallback answer).
    pub result: String,
}

/// The event material (`event.jinja`): the overall task for sub-events, the event, the
/// results of its dependencies and the bounded transcript.
pub fn material(
    overall: Option<&str>,
    event_id: &str,
    title: &str,
    description: &str,
    deps: &[DepResult],
    history: &[Shown],
) -> Result<String, PolicyError> {
    prompts::render(
        EVENT,
        minijinja::context! {
            overall => overall.unwrap_or(""),
            event_id => event_id,
            title => title,
            description => description,
            deps => deps,
            history => history,
        },
    )
}

/// The explorer's turn: open the round (or propose the combined answer of the sub-events),
/// plus the sub-event block request in mode B's first root round.
pub fn explorer_prompt(
    material: &str,
    agent: &str,
    event_id: &str,
    round: u32,
    synthesis: bool,
    decompose: bool,
) -> Result<String, PolicyError> {
    prompts::render(
        EXPLORER,
        minijinja::context! {
            material => material, agent => agent, event_id => event_id, round => round,
            synthesis => synthesis, decompose => decompose,
        },
    )
}

/// A worker's turn: the explorer's message of this round, then the request to solve or
/// refine, ending with the dataset's answer-format suffix.
pub fn worker_prompt(
    material: &str,
    explorer: &Shown,
    agent: &str,
    event_id: &str,
    round: u32,
    suffix: &str,
) -> Result<String, PolicyError> {
    prompts::render(
        WORKER,
        minijinja::context! {
            material => material, explorer => &explorer.agent, explorer_text => &explorer.text,
            agent => agent, event_id => event_id, round => round, suffix => suffix,
        },
    )
}

/// The validator's turn: this round's explorer and worker messages (labelled with ids), the
/// request to check each worker, the VERDICT lines and the TERMINATE line in the dataset's
/// answer form.
pub fn validator_prompt(
    material: &str,
    explorer: &Shown,
    workers: &[Shown],
    agent: &str,
    event_id: &str,
    round: u32,
    answer_form: &str,
) -> Result<String, PolicyError> {
    let ids: Vec<&str> = workers.iter().map(|w| w.agent.as_str()).collect();
    prompts::render(
        VALIDATOR,
        minijinja::context! {
            material => material, explorer => &explorer.agent, explorer_text => &explorer.text,
            workers => workers, worker_ids => ids.join(", "), agent => agent,
            event_id => event_id, round => round, answer_form => answer_form.trim(),
        },
    )
}

/// One call to make.
#[derive(Debug, Clone)]
pub struct Ask {
    /// Agent id.
    pub agent: String,
    /// User message.
    pub prompt: String,
    /// Seed, tag, stateless.
    pub options: AskOptions,
}

/// Runs a phase's asks (concurrently, or one by one when `sequential`); results in input
/// order, whatever the completion order.
pub async fn run_phase(
    team: &Team,
    asks: Vec<Ask>,
    sequential: bool,
) -> Vec<Result<Reply, RuntimeError>> {
    if sequential {
        let mut out = Vec::with_capacity(asks.len());
        for a in asks {
            out.push(team.ask_with(a.agent, a.prompt, a.options).await);
        }
        return out;
    }
    join_all(
        asks.into_iter()
            .map(|a| async move { team.ask_with(a.agent, a.prompt, a.options).await }),
    )
    .await
}

/// Failed calls of a task, recorded in a fixed order; the task continues with empty text
/// (docs/design/reasoning.md §0.2). Mirrors the baselines' bookkeeping with SwarmSys agent ids.
#[derive(Debug, Default)]
pub struct CallLog {
    errors: Vec<serde_json::Value>,
    fatal: Option<RuntimeError>,
    /// Calls that returned a reply.
    pub successes: usize,
    /// Calls that failed.
    pub failures: usize,
}

impl CallLog {
    /// The text of one call (empty when it failed; the error goes to the trace).
    pub fn text(
        &mut self,
        round: u32,
        event: &str,
        agent: &str,
        turn: Role,
        result: Result<Reply, RuntimeError>,
    ) -> (String, bool) {
        match result {
            Ok(reply) => {
                self.successes += 1;
                (reply.text, true)
            }
            Err(e) => {
                self.failures += 1;
                self.errors.push(json!({
                    "round": round,
                    "event": event,
                    "agent": agent,
                    "turn": turn.name(),
                    "error": e.to_string(),
                }));
                let model_failure =
                    matches!(e, RuntimeError::Model { .. } | RuntimeError::Timeout { .. });
                if !model_failure && self.fatal.is_none() {
                    self.fatal = Some(e);
                }
                (String::new(), false)
            }
        }
    }

    /// The recorded errors.
    pub fn errors(&self) -> &[serde_json::Value] {
        &self.errors
    }

    /// The first failure that is not the model's when no call succeeded.
    pub fn fatal_error(&mut self) -> Option<RuntimeError> {
        if self.successes == 0 {
            self.fatal.take()
        } else {
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::reasoning::common::NO_RESPONSE;

    #[test]
    fn prompts_carry_the_machine_read_forms() {
        let m = material(
            Some("Whole task"),
            "E1.2",
            "Step",
            "Do it.",
            &[DepResult {
                id: "E1.1".into(),
                title: "First".into(),
                result: "4".into(),
            }],
            &[Shown::new("V1", Role::Validator, 1, "Looks fine.")],
        )
        .unwrap();
        assert!(m.starts_with("Overall task:\nWhole task\n\nEvent E1.2: Step\nDo it."));
        assert!(m.contains("- E1.1 (First): 4"));
        assert!(m.contains("### V1 (validator, round 1)\nLooks fine."));
        let x = Shown::new("X1", Role::Explorer, 2, "");
        assert_eq!(x.text, NO_RESPONSE);
        let e = explorer_prompt(&m, "X1", "E1.2", 2, false, true).unwrap();
        assert!(e.contains(SUBEVENTS_MARKER) && e.contains("round 2"));
        let w = worker_prompt(&m, &x, "W1", "E1.2", 2, "\n\nGive \\boxed{}.").unwrap();
        assert!(w.contains(THIS_ROUND) && w.ends_with("\n\nGive \\boxed{}."));
        let v = validator_prompt(
            &m,
            &x,
            &[Shown::new("W1", Role::Worker, 2, "It is 4.")],
            "V1",
            "E1.2",
            2,
            "\n\nGive \\boxed{}.",
        )
        .unwrap();
        assert!(v.contains(VALIDATOR_MARKER));
        assert!(v.contains("TERMINATE: The answer is: <answer>"));
        assert!(v.contains("### W1 (worker)\nIt is 4."));
        assert!(v.trim_end().ends_with("Give \\boxed{}."));
        let plain = material(None, "E1", "Q", "What?", &[], &[]).unwrap();
        assert_eq!(plain, "Event E1: Q\nWhat?");
    }
}
