//! Chat request and response values shared by every [`ChatModel`](super::ChatModel).
//!
//! The shapes follow the OpenAI chat-completions API (the lingua franca of vLLM, Ollama,
//! llama.cpp and hosted providers) but carry only what orchestration needs: messages, sampling
//! parameters, the reply text, why it stopped, token usage and latency.

use std::ops::{Add, AddAssign};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::tools::{ResponseFormat, ToolCall, ToolChoice, ToolExchange, ToolSpec};
use super::Sampling;

/// Who wrote a message in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the whole conversation (an agent's role card).
    System,
    /// Input to the model: a task, a peer's message, an observation.
    User,
    /// A previous reply of the model.
    Assistant,
    /// The result of a tool call, answering the assistant's call with the same id.
    Tool,
}

/// One message of a conversation.
///
/// The tool fields are omitted when empty, so a conversation without tools serializes (and
/// hashes into replay keys) exactly as before tools existed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Author of the message.
    pub role: Role,
    /// Plain-text content (a null content on the wire, as tool-calling replies send, reads as
    /// empty).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub content: String,
    /// The tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

impl Message {
    /// A message of `role` with plain text.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
    /// An assistant message that calls tools (its text, often empty, and the calls).
    pub fn assistant_tool_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::new(Role::Assistant, content)
        }
    }
    /// The result of the tool call `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::new(Role::Tool, content)
        }
    }
}

/// One chat-completion request: the conversation plus sampling parameters.
///
/// `sample_index` is not sent to servers: it distinguishes repeated samples of the same request
/// (self-consistency draws k of them) so that caches and the simulated model can tell them apart
/// without relying on the sampling seed (STYLE.md: the seed is not the cache key).
///
/// The serialized form is flat (`{"messages", "temperature", …, "sample_index"}`): the
/// [`Sampling`] fields sit beside the messages, as in the OpenAI API.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// Temperature, top-p, completion-token limit, seed and stop sequences; unset fields
    /// leave the server's default.
    #[serde(flatten)]
    pub sampling: Sampling,
    /// Index of this sample among repeated draws of the same request (not sent to servers).
    #[serde(default)]
    pub sample_index: u32,
    /// What the call is for, a stable tag set by the policy that makes it (`dylan.rank`,
    /// `camon.propose`, `perception`): the offline simulated model picks the responder of the
    /// prompt by it ([`super::responder`]). Not sent to servers, not part of
    /// replay keys or of the simulated model's draws, and not serialized.
    #[serde(skip)]
    pub purpose: Option<String>,
    /// Tools the model may call (omitted when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// Whether and which tool it must call (omitted: the server's default, `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// The shape the reply must take (omitted: free text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// The trace context of the call ([`super::TraceParent`]): not sent, not serialized, not
    /// part of equality or replay keys.
    #[serde(skip)]
    pub trace: super::TraceParent,
}

impl ChatRequest {
    /// A request with the given messages and server-default sampling.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }
    crate::sampling_setters!(sampling);

    /// Sets the sample index.
    pub fn sample_index(mut self, i: u32) -> Self {
        self.sample_index = i;
        self
    }

    /// Sets the purpose tag.
    pub fn purpose(mut self, purpose: impl Into<String>) -> Self {
        self.purpose = Some(purpose.into());
        self
    }

    /// Offers `tools` to the model.
    pub fn tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    /// Asks for a reply of this shape.
    pub fn response_format(mut self, format: ResponseFormat) -> Self {
        self.response_format = Some(format);
        self
    }
}

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end or a stop sequence.
    Stop,
    /// The completion-token limit was hit.
    Length,
    /// The provider filtered the content.
    ContentFilter,
    /// The model called tools (`tool_calls`).
    ToolCalls,
    /// Any other reason reported by the server, kept verbatim.
    #[serde(untagged)]
    Other(String),
}

impl FinishReason {
    /// Parses the OpenAI `finish_reason` string.
    pub fn from_api(s: &str) -> Self {
        match s {
            "stop" => Self::Stop,
            "length" => Self::Length,
            "content_filter" => Self::ContentFilter,
            "tool_calls" => Self::ToolCalls,
            other => Self::Other(other.to_string()),
        }
    }
    /// The OpenAI `finish_reason` string.
    pub fn as_api(&self) -> &str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
            Self::ContentFilter => "content_filter",
            Self::ToolCalls => "tool_calls",
            Self::Other(s) => s,
        }
    }
}

/// Token counts of one call (or a sum of calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens in the completion.
    pub completion_tokens: u64,
    /// Of the prompt tokens, those the server served from its cache, when it says
    /// (`prompt_tokens_details.cached_tokens`); they may have their own price.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_prompt_tokens: u64,
    /// Cost in nano-dollars (10⁻⁹ USD) at the model's price ([`super::PricedModel`]);
    /// `None` when the model has no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_nusd: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Prompt plus completion tokens.
    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }

    /// Whether these counts are believable for one call: each at most [`MAX_CALL_TOKENS`]. A
    /// server (or an edited replay cache) claiming more sent a malformed response, which
    /// is counted as a failed call rather than summed.
    pub fn is_plausible(&self) -> bool {
        self.prompt_tokens <= MAX_CALL_TOKENS && self.completion_tokens <= MAX_CALL_TOKENS
    }
}

/// Most tokens one call may report in either count: far above any model's context window.
pub const MAX_CALL_TOKENS: u64 = 1 << 31;

/// Sums saturate: totals of a long run can never wrap around.
impl AddAssign for Usage {
    fn add_assign(&mut self, rhs: Self) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(rhs.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(rhs.completion_tokens);
        self.cached_prompt_tokens = self
            .cached_prompt_tokens
            .saturating_add(rhs.cached_prompt_tokens);
        self.cost_nusd = match (self.cost_nusd, rhs.cost_nusd) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, rhs: Self) -> Self {
        self += rhs;
        self
    }
}

/// A model's reply to one [`ChatRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The generated text.
    pub text: String,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// Token usage as reported by the model.
    pub usage: Usage,
    /// Time from the first attempt to the final answer, retries and backoff included.
    #[serde(with = "duration_micros")]
    pub latency: Duration,
    /// The model id that answered (as the server names it).
    pub model: String,
    /// How many attempts failed before this one (transport metadata, not part of the answer).
    #[serde(default)]
    pub retries: u32,
    /// True when the reply came from a replay cache instead of a model (not counted as spend).
    #[serde(default)]
    pub cached: bool,
    /// The tool calls the model asked for (with [`FinishReason::ToolCalls`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The tool calls a tool loop ran before this final reply, in order (empty without
    /// tools): the transcript keeps them as the call's children.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_trace: Vec<ToolExchange>,
}

/// Serializes a [`Duration`] as integer microseconds, so JSON round trips are exact.
pub mod duration_micros {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the duration as whole microseconds.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
    }

    /// Reads whole microseconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}

/// A rough, deterministic token count for text (about four characters per token).
///
/// Used by the simulated model and the mock server, which have no tokenizer; real servers report
/// their own counts.
pub fn approx_tokens(text: &str) -> u64 {
    let chars = text.chars().count() as u64;
    chars.div_ceil(4).max(1)
}

/// Approximate prompt tokens of a conversation: each message's text plus a 4-token frame, the
/// overhead OpenAI documents for chat formatting.
pub fn approx_prompt_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| {
            let calls: u64 = m
                .tool_calls
                .iter()
                .map(|c| approx_tokens(&c.name) + approx_tokens(&c.arguments))
                .sum();
            approx_tokens(&m.content) + 4 + calls
        })
        .sum()
}
