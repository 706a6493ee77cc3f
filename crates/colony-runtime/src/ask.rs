//! Per-ask options and the reply an ask returns.
//!
//! Options override the role card's sampling defaults for one call ([`Sampling`] has the
//! precedence); `stateless` asks see only the system prompt and the prompt (self-consistency
//! draws, judges, one-shot probes) and leave the agent's memory untouched.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::AgentId;
use colony_llm::{duration_micros, FinishReason, Sampling, Usage};

/// Options of one ask; the default is a conversational ask with the role card's sampling.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AskOptions {
    /// Sampling of this call: set fields beat the role card and the agent's defaults (see
    /// [`Sampling`] for the precedence); the per-call seed and stop sequences live here.
    pub sampling: Sampling,
    /// Index of this sample among repeated draws of the same prompt.
    pub sample_index: u32,
    /// When true, send only the system prompt and this prompt, and do not extend memory.
    pub stateless: bool,
    /// Deadline of the whole ask, queueing included (overrides the team default).
    pub timeout: Option<Duration>,
    /// A label recorded with the call in the transcript (e.g. `"round 2"`).
    pub tag: Option<String>,
    /// What the call is for, a stable tag (`dylan.rank`, `camon.propose`): carried with the
    /// request so the offline simulated model picks the responder of this prompt by it, not by
    /// its wording ([`colony_llm::responder`]).
    pub purpose: Option<String>,
    /// A system prompt for this call in place of the role card's (the CREW-Wildfire
    /// frameworks give each kind of call its own short role, as the official code does).
    pub system: Option<String>,
    /// The shape this call's reply must take (`response_format`: structured output).
    pub response_format: Option<colony_llm::ResponseFormat>,
    /// The asker's trace context, captured by [`crate::Team::ask_with`] and carried to the
    /// model call in the agent's task ([`colony_llm::TraceParent`]).
    pub trace: colony_llm::TraceParent,
}

impl AskOptions {
    /// Default options: conversational, role-card sampling, team deadline.
    pub fn new() -> Self {
        Self::default()
    }

    colony_llm::sampling_setters!(sampling);

    /// Sets the sample index.
    pub fn sample_index(mut self, i: u32) -> Self {
        self.sample_index = i;
        self
    }

    /// Makes the ask stateless: no memory read, no memory written.
    pub fn stateless(mut self) -> Self {
        self.stateless = true;
        self
    }

    /// Sets the deadline of this ask.
    pub fn timeout(mut self, after: Duration) -> Self {
        self.timeout = Some(after);
        self
    }

    /// Sets the transcript label.
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tag = Some(tag.into());
        self
    }

    /// Sets the purpose tag (the field of the same name).
    pub fn purpose(mut self, purpose: impl Into<String>) -> Self {
        self.purpose = Some(purpose.into());
        self
    }

    /// Sets this call's system prompt (the field of the same name).
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Asks for a reply of this shape (the field of the same name).
    pub fn response_format(mut self, format: colony_llm::ResponseFormat) -> Self {
        self.response_format = Some(format);
        self
    }
}

/// An agent's answer to one ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The agent that answered.
    pub agent: AgentId,
    /// The call's sequence number in the agent's transcript.
    pub seq: u64,
    /// The reply text.
    pub text: String,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Token usage of the call.
    pub usage: Usage,
    /// Latency reported by the model.
    #[serde(with = "duration_micros")]
    pub latency: Duration,
    /// Model id that answered.
    pub model: String,
    /// Failed attempts that the client retried before this reply (transport metadata).
    #[serde(default)]
    pub retries: u32,
    /// The tool calls made while answering, with their results (empty without tools).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<colony_llm::ToolExchange>,
}
