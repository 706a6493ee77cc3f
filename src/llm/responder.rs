//! What teaches the offline [`super::SimulatedModel`] the prompts of policies and environments
//! it does not know: responders, registered by the layers that own those prompts.
//!
//! Decision (issue 25, part 3): `llm` is the bottom layer, so it defines the trait and holds
//! the process's responders, and imports nothing from `policy` or `env`. Each policy or
//! environment implements its responder next to its own prompts; the open registry
//! (`colony::registry::Registry`) hands them to [`install`] when it becomes the process's
//! registry, built-ins first, in registration order. Responders still recognise their prompts
//! by reading them (a marker line, a `Reply with:` line), as the previous hard-wired readers
//! did, so offline results are unchanged; choosing them by a tag carried with the request is
//! not done yet.

use std::sync::{Arc, OnceLock};

/// A question-answering turn of the answer key: the simulated agent has settled on `answer`
/// and written its ordinary reply `body`; a responder may rewrite the reply into the format a
/// policy's machine-read turn asks for (a rating, a verdict, a ranking).
pub struct KeyedTurn<'a> {
    /// The user message that holds the question.
    pub user: &'a str,
    /// The answer the simulated agent settled on.
    pub answer: &'a str,
    /// Its ordinary reasoning reply.
    pub body: &'a str,
    /// How the simulated model reads the answer a text states.
    pub extract: &'a dyn Fn(&str) -> Option<String>,
}

/// A prompt that is not in the answer key (an environment's or a framework's).
pub struct Prompt<'a> {
    /// The system message (empty when there is none).
    pub system: &'a str,
    /// The last user message.
    pub user: &'a str,
    /// The chance of the expert's reply.
    pub accuracy: f64,
    /// The request's draw (all randomness of the reply comes from it).
    pub draw: u64,
}

/// A responder's answer to a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    /// Not this responder's prompt: ask the next one.
    Pass,
    /// The reply.
    Reply(String),
    /// This responder's prompt, but no reply: stop asking (the model's generic reply follows).
    Claimed,
}

/// Teaches the simulated model one family of prompts.
pub trait Responder: Send + Sync {
    /// Its name (diagnostics).
    fn name(&self) -> &str;

    /// The reply to a keyed question turn, or `None` to leave `body` (the default).
    fn keyed(&self, turn: &KeyedTurn<'_>) -> Option<String> {
        let _ = turn;
        None
    }

    /// The reply to a prompt outside the answer key; [`Response::Pass`] by default.
    fn prompt(&self, prompt: &Prompt<'_>) -> Response {
        let _ = prompt;
        Response::Pass
    }
}

static INSTALLED: OnceLock<Vec<Arc<dyn Responder>>> = OnceLock::new();

/// Makes `responders` the process's set (the first call wins; later calls are ignored and
/// return false).
pub fn install(responders: Vec<Arc<dyn Responder>>) -> bool {
    INSTALLED.set(responders).is_ok()
}

/// The process's responders, in the order they are asked; empty until a registry installs
/// them (`colony::registry::Registry::current()` or `install()` does).
pub fn installed() -> &'static [Arc<dyn Responder>] {
    INSTALLED.get().map_or(&[], Vec::as_slice)
}

/// The first keyed rewrite of the installed responders, if any.
pub fn keyed_reply(turn: &KeyedTurn<'_>) -> Option<String> {
    installed().iter().find_map(|r| r.keyed(turn))
}

/// The reply of the first installed responder that claims `prompt`.
pub fn prompt_reply(prompt: &Prompt<'_>) -> Option<String> {
    for r in installed() {
        match r.prompt(prompt) {
            Response::Pass => continue,
            Response::Reply(text) => return Some(text),
            Response::Claimed => return None,
        }
    }
    None
}
