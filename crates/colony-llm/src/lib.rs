//! colony-llm, the bottom floor of colony (docs/design/architecture.md §2): language models
//! (the [`ChatModel`] trait and its implementations), embedders ([`embed`]) and stable hashing.
//! Nothing here knows a policy or an environment; the `colony` facade re-exports it as
//! `colony::llm`, `colony::embed` and `colony::stable_hash`.
//!
//! - [`OpenAiClient`]: any OpenAI-compatible `/v1/chat/completions` endpoint (or a pool of them),
//!   with per-endpoint adaptive concurrency limits (halved on 429/503, regrown on success,
//!   visible through [`endpoint_gauges`]), timeouts, a per-call deadline and retries.
//! - [`SimulatedModel`]: seeded, offline, answers QA prompts from an answer key with a chosen
//!   accuracy (SelfOrg §2.6); also a scripted mode for tests.
//! - [`ReplayModel`]: record/replay cache around any model.
//!
//! [`Sampling`] holds a call's generation settings and the one precedence rule that layers
//! them (per-call options, role card, flags, `models.toml`, built-in default).
//!
//! [`UsageLedger`] sums calls, tokens, retries and model time per agent and per run.

mod adaptive;
mod answer_key;
mod client;
mod config;
mod discover;
pub mod embed;
mod endpoint;
mod error;
mod fatal;
mod gauges;
pub mod http;
mod model;
mod price;
mod replay;
mod replay_tools;
mod reply_limits;
pub mod responder;
mod retry;
mod sampling;
mod scripted;
mod secret;
mod simulated;
mod simulated_structured;
mod simulated_tools;
pub mod stable_hash;
mod tools;
pub mod trace_parent;
mod types;
mod usage;
pub mod wire;

pub use answer_key::{AnswerKey, KeyMatch};
pub use client::{ClientSettings, EndpointSettings, OpenAiClient};
pub use config::{
    McpServerTable, ModelKind, ModelOverrides, ModelSpec, ModelsConfig, MAX_CONCURRENCY,
    MAX_CONTEXT_TOKENS, SIMULATED_NAME, UNNAMED_ENDPOINT_MODEL,
};
pub use discover::discover_model;
pub use endpoint::redact_url;
pub use error::{ErrorClass, ModelError};
pub use fatal::stops_run;
pub use gauges::{concurrency_label, endpoint_gauges, EndpointGauge};
pub use model::{ChatModel, SharedModel};
pub use price::{usd, Price, PricedModel, MAX_PRICE_PER_MTOK};
pub use replay::{request_key, ReplayMode, ReplayModel};
pub use replay_tools::{RecordedTool, ToolReplay, MAX_TOOL_CACHE_BYTES, TOOL_CALLS_FILE};
pub use responder::Responders;
pub use retry::RetryPolicy;
pub use sampling::{Sampling, SamplingError, SamplingKeys, MAX_TOKENS_LIMIT};
pub use scripted::{ScriptedModel, ScriptedReply, MAX_SCRIPT_BYTES};
pub use secret::ApiKey;
pub use simulated::{SimulatedConfig, SimulatedModel};
pub use tools::{
    wire_tool_name, ResponseFormat, ToolCall, ToolChoice, ToolExchange, ToolSpec, ToolTally,
    MAX_TOOL_NAME,
};
pub use trace_parent::TraceParent;
pub use types::{
    approx_prompt_tokens, approx_tokens, duration_micros, ChatRequest, ChatResponse, FinishReason,
    Message, Role, Usage,
};
pub use usage::{UsageLedger, UsageReport, UsageTotals};
