//! What an environment offers an LLM agent: the types of the opt-in "LLM play" methods of
//! [`Environment`](crate::Environment) (instructions, who decides now, perception and
//! execution prompts, a lenient reply parser, who hears whom).
//!
//! PettingZoo lets an RL policy drive any environment through `action_space` and AEC's
//! `agent_selection`; these methods do the same for a language policy. Every method has a
//! default, so an environment that defines none still works (all agents decide every step,
//! the observation text is the prompt, the strict action parser with the no-op as fallback).
//!
//! The split between the two parsers is deliberate: `parse_action` is strict (the action
//! syntax of `colony env step`, an error names the problem), `parse_reply` is lenient (any
//! model text becomes an action; when nothing usable is in it the environment's documented
//! fallback is taken and reported in [`ParsedReply::fallback`], so runs count fallbacks and
//! never hide them).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A model reply turned into an action by an environment's lenient parser.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedReply<A> {
    /// The action the agent takes.
    pub action: A,
    /// Text for the agent's next prompt about this reply (e.g. CUBE's rejected plan
    /// actions), if any.
    pub feedback: Option<String>,
    /// Set when the environment's fallback replaced (part of) the reply: why.
    pub fallback: Option<String>,
}

impl<A> ParsedReply<A> {
    /// A reply that parsed cleanly.
    pub fn ok(action: A) -> Self {
        Self {
            action,
            feedback: None,
            fallback: None,
        }
    }

    /// A reply replaced by the fallback `action` because of `why` (also fed back).
    pub fn fallback(action: A, why: impl Into<String>) -> Self {
        let why = why.into();
        Self {
            action,
            feedback: Some(why.clone()),
            fallback: Some(why),
        }
    }
}

/// How one agent's reply was taken, as the text-level episode loop reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyOutcome {
    /// The action taken, in the environment's action syntax (`format_action`).
    pub action: String,
    /// Feedback for the agent's next prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Why the fallback was taken, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// Builds the EXECUTION prompt that turns an agent's free-text action into the environment's
/// structured action (docs/design/wildfire.md §11.2). An owned, pure function, so a policy can use
/// it across `.await`s without touching the environment.
pub type ExecutionPrompter = Arc<dyn Fn(&str) -> String + Send + Sync>;
