//! The JSON shapes of the OpenAI HTTP API that colony speaks, shared by the client and
//! `colony serve-mock` so both sides agree by construction.
//!
//! Only the fields colony uses are typed; unknown fields are ignored on input, as the OpenAI
//! clients do, so servers that add fields (vLLM, Ollama) still parse.

use serde::{Deserialize, Serialize};

use super::{Message, ResponseFormat, Sampling, ToolCall, ToolChoice, ToolSpec, Usage};

/// Body of `POST /v1/chat/completions`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    /// Model name as the server knows it.
    pub model: String,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Completion-token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Stop sequences (a string or a list on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopSequences>,
    /// Server-sent-events streaming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Streaming options (`include_usage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// Number of choices; colony always asks for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// Whether and which tool it must call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// The reply's required shape, in the OpenAI spelling or, for llama-server, its own
    /// (`{"type": "json_object", "schema": …}`; see [`StructuredSpelling`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<serde_json::Value>,
}

/// How a server spells a JSON-schema `response_format` (`structured_output` in `models.toml`).
///
/// Decision: OpenAI's `{"type": "json_schema", "json_schema": {"schema": …}}` is the default;
/// vLLM and recent llama-server accept it. `llama` sends llama-server's older
/// `{"type": "json_object", "schema": …}`, which every llama-server build with grammar support
/// understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StructuredSpelling {
    /// The OpenAI shape.
    #[default]
    Openai,
    /// llama-server's `json_object` with a `schema`.
    Llama,
}

impl StructuredSpelling {
    /// `format` as this server wants it on the wire.
    pub fn wire(self, format: &ResponseFormat) -> serde_json::Value {
        match (self, format) {
            (Self::Llama, ResponseFormat::JsonSchema { schema, .. }) => {
                serde_json::json!({"type": "json_object", "schema": schema})
            }
            _ => serde_json::to_value(format).unwrap_or(serde_json::Value::Null),
        }
    }
}

impl ChatCompletionRequest {
    /// A non-streaming request for `model` with `messages` and the set fields of `sampling`
    /// (unset ones are omitted, leaving the server's default).
    pub fn new(model: impl Into<String>, messages: Vec<Message>, sampling: &Sampling) -> Self {
        Self {
            model: model.into(),
            messages,
            temperature: sampling.temperature,
            top_p: sampling.top_p,
            max_tokens: sampling.max_tokens,
            seed: sampling.seed,
            stop: (!sampling.stop.is_empty()).then(|| StopSequences::Many(sampling.stop.clone())),
            stream: None,
            stream_options: None,
            n: None,
            tools: Vec::new(),
            tool_choice: None,
            response_format: None,
        }
    }

    /// The wire body of `request` for `model`: messages, set sampling fields, tools and the
    /// response format in `spelling`.
    pub fn from_chat(
        model: impl Into<String>,
        request: &super::ChatRequest,
        spelling: StructuredSpelling,
    ) -> Self {
        Self {
            tools: request.tools.clone(),
            tool_choice: request.tool_choice.clone(),
            response_format: request.response_format.as_ref().map(|f| spelling.wire(f)),
            ..Self::new(model, request.messages.clone(), &request.sampling)
        }
    }

    /// The response format of this body, read in either spelling (an unreadable one is
    /// `None`).
    pub fn format(&self) -> Option<ResponseFormat> {
        self.response_format
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    /// The sampling fields of this request.
    pub fn sampling(&self) -> Sampling {
        Sampling {
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens: self.max_tokens,
            seed: self.seed,
            stop: self
                .stop
                .clone()
                .map(StopSequences::into_vec)
                .unwrap_or_default(),
        }
    }
}

/// `stop` is either one string or a list of strings in the OpenAI API.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StopSequences {
    /// A single stop string.
    One(String),
    /// Several stop strings.
    Many(Vec<String>),
}

impl StopSequences {
    /// The stop strings as a list.
    pub fn into_vec(self) -> Vec<String> {
        match self {
            Self::One(s) => vec![s],
            Self::Many(v) => v,
        }
    }
}

/// `stream_options` of a streaming request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StreamOptions {
    /// Send a final chunk with the usage.
    #[serde(default)]
    pub include_usage: bool,
}

/// Body of a non-streaming chat completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChatCompletion {
    /// Completion id (`chatcmpl-…`).
    pub id: String,
    /// Always `chat.completion`.
    pub object: String,
    /// Unix seconds.
    pub created: u64,
    /// Model that answered.
    pub model: String,
    /// The choices; colony reads the first.
    pub choices: Vec<Choice>,
    /// Token usage (optional in the wild: some servers omit it).
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// One choice of a completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Choice {
    /// Index of the choice.
    pub index: u32,
    /// The reply message.
    pub message: ChoiceMessage,
    /// Why generation stopped (`stop`, `length`, …).
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The assistant message of a choice (content may be null for tool calls).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChoiceMessage {
    /// Always `assistant`.
    pub role: String,
    /// Reply text.
    #[serde(default)]
    pub content: Option<String>,
    /// Tool calls of the reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// `usage` object of the API.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct WireUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Sum of both.
    pub total_tokens: u64,
    /// Details of the prompt tokens (OpenAI: how many came from the server's cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

/// `usage.prompt_tokens_details` of the API.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from the server's prompt cache.
    #[serde(default)]
    pub cached_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Self {
        Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cached_prompt_tokens: u
                .prompt_tokens_details
                .map_or(0, |d| d.cached_tokens.min(u.prompt_tokens)),
            cost_nusd: None,
        }
    }
}

impl From<Usage> for WireUsage {
    fn from(u: Usage) -> Self {
        WireUsage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            total_tokens: u.total(),
            prompt_tokens_details: (u.cached_prompt_tokens > 0).then_some(PromptTokensDetails {
                cached_tokens: u.cached_prompt_tokens,
            }),
        }
    }
}

/// One server-sent event of a streaming completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    /// Completion id, the same for every chunk.
    pub id: String,
    /// Always `chat.completion.chunk`.
    pub object: String,
    /// Unix seconds.
    pub created: u64,
    /// Model that answered.
    pub model: String,
    /// Deltas (empty in the final usage chunk).
    pub choices: Vec<ChunkChoice>,
    /// Usage, only in the final chunk when `include_usage` was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<WireUsage>,
}

/// One delta of a streaming chunk.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Index of the choice.
    pub index: u32,
    /// New content.
    pub delta: Delta,
    /// Set on the last content chunk.
    pub finish_reason: Option<String>,
}

/// Incremental message content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Delta {
    /// `assistant` on the first chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Text fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Tool-call fragments (each names its call by `index`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallDelta>,
}

/// A fragment of a streamed tool call: the first names the call (`id`, `function.name`), later
/// ones append to `function.arguments`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// Which call of the reply this fragment belongs to.
    pub index: u32,
    /// The call id (first fragment only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Always `function` (first fragment only).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name (first fragment) and an arguments piece.
    pub function: FunctionDelta,
}

/// The function part of a [`ToolCallDelta`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The function's name (first fragment only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A piece of the arguments text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// Body of `GET /v1/models`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelList {
    /// Always `list`.
    pub object: String,
    /// The served models.
    pub data: Vec<ModelCard>,
}

/// One entry of `GET /v1/models`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelCard {
    /// Model name.
    pub id: String,
    /// Always `model`.
    pub object: String,
    /// Unix seconds.
    #[serde(default)]
    pub created: u64,
    /// Owner string.
    #[serde(default)]
    pub owned_by: String,
}

/// Body of `POST /v1/embeddings`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbeddingRequest {
    /// Model name.
    pub model: String,
    /// One string or a list of strings.
    pub input: EmbeddingInput,
    /// `float` (default) or `base64` (little-endian f32, what the official Python client asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding_format: Option<String>,
}

/// The `input` of an embeddings request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EmbeddingInput {
    /// One text.
    One(String),
    /// Several texts.
    Many(Vec<String>),
}

impl EmbeddingInput {
    /// The texts as a list.
    pub fn into_vec(self) -> Vec<String> {
        match self {
            Self::One(s) => vec![s],
            Self::Many(v) => v,
        }
    }
}

/// Body of an embeddings response.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbeddingResponse {
    /// Always `list`.
    pub object: String,
    /// One entry per input, in input order.
    pub data: Vec<EmbeddingData>,
    /// Model name.
    pub model: String,
    /// Prompt tokens (completion is always zero).
    pub usage: WireUsage,
}

/// One embedding vector.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbeddingData {
    /// Always `embedding`.
    pub object: String,
    /// Position in the input.
    pub index: u32,
    /// A float list, or a base64 string of little-endian f32 when `encoding_format = base64`.
    pub embedding: EmbeddingVector,
}

/// An embedding as floats or as base64.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EmbeddingVector {
    /// Plain floats.
    Float(Vec<f32>),
    /// Base64 of little-endian f32 bytes.
    Base64(String),
}

/// The error body OpenAI-compatible servers send: `{"error": {"message", "type", "code"}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// Inside [`ErrorBody`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// Human-readable message.
    pub message: String,
    /// Error type, e.g. `invalid_request_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Optional code, e.g. `model_not_found`.
    #[serde(default)]
    pub code: Option<String>,
}

impl ErrorBody {
    /// An error body with the given type, code and message.
    pub fn new(kind: &str, code: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            error: ErrorDetail {
                message: message.into(),
                kind: kind.to_string(),
                code: code.map(str::to_string),
            },
        }
    }
}
