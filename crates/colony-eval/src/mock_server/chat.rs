//! `POST /v1/chat/completions`: one completion from the backing model, as a JSON body or as a
//! server-sent-events stream in the OpenAI chunk format.
//!
//! The stream carries exactly the text of the non-streaming answer: a first delta with the
//! role, the content split at word boundaries into a few pieces, `finish_reason` on the last
//! content chunk, then (with `stream_options.include_usage`) a chunk with empty `choices` and
//! the usage, then `data: [DONE]`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

use super::errors::ApiError;
use super::routes::{
    admit, apply_faults, malformed_response, unix_now, AppState, ConnDrop, Outcome,
};
use super::stats::bump;
use colony_llm::wire::{
    ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, Choice, ChoiceMessage, ChunkChoice,
    Delta, FunctionDelta, ToolCallDelta, WireUsage,
};
use colony_llm::{ChatRequest, ChatResponse};

/// Most pieces a streamed reply is split into.
const STREAM_PIECES: usize = 4;

/// Handles one chat-completion request.
pub(crate) async fn handle(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnDrop>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    bump(&state.stats.requests);
    bump(&state.stats.chat_requests);
    let _in_flight = state.stats.enter();
    let request: ChatCompletionRequest = match admit(
        &state,
        &headers,
        body,
        "chat completion",
        |r: &ChatCompletionRequest| &r.model,
    )
    .and_then(validate)
    {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    if let Some(limit) = state.context_tokens {
        let asked = colony_llm::approx_prompt_tokens(&request.messages);
        if asked > limit {
            return ApiError::bad_request_code(
                "exceed_context_size_error",
                format!(
                    "the request exceeds the available context size ({asked} > {limit} tokens), \
                     try increasing it"
                ),
            )
            .into_response();
        }
    }
    log_request(&state, &request);
    note_unkeyed(&state, &request);
    let outcome = match apply_faults(&state, conn.as_ref().map(|Extension(c)| c)).await {
        Ok(outcome) => outcome,
        Err(response) => return response,
    };
    let streaming = request.stream.unwrap_or(false);
    let include_usage = request
        .stream_options
        .as_ref()
        .is_some_and(|o| o.include_usage);
    let model_name = request.model.clone();
    let reply = match state.model.chat(&to_chat_request(request)).await {
        Ok(reply) => reply,
        Err(e) => {
            bump(&state.stats.model_errors);
            tracing::warn!(error = %e, "mock server: backing model failed");
            return ApiError::model_failed(e.to_string()).into_response();
        }
    };
    let id = state.completion_id();
    let created = unix_now();
    if outcome == Outcome::Malformed {
        let json = serde_json::to_string(&completion(&id, created, &model_name, &reply))
            .unwrap_or_default();
        return malformed_response(&state, &json);
    }
    state.stats.record_chat_ok(reply.usage);
    if streaming {
        sse_response(stream_events(
            &id,
            created,
            &model_name,
            &reply,
            include_usage,
        ))
    } else {
        Json(completion(&id, created, &model_name, &reply)).into_response()
    }
}

/// Appends `request` to the request log, when there is one (a failed write is logged, not
/// fatal: the log is a test aid).
fn log_request(state: &AppState, request: &ChatCompletionRequest) {
    let Some(log) = &state.request_log else {
        return;
    };
    let mut line = serde_json::to_string(request).unwrap_or_default();
    line.push('\n');
    let mut file = log.lock().unwrap_or_else(|p| p.into_inner());
    if let Err(e) = std::io::Write::write_all(&mut *file, line.as_bytes()) {
        tracing::warn!(error = %e, "mock server: cannot append to the request log");
    }
}

/// Checks what the typed parse cannot express.
fn validate(request: ChatCompletionRequest) -> Result<ChatCompletionRequest, ApiError> {
    if request.messages.is_empty() {
        return Err(ApiError::bad_request(
            "invalid chat completion request: `messages` must contain at least one message",
        ));
    }
    if let Some(n) = request.n.filter(|&n| n != 1) {
        return Err(ApiError::bad_request(format!(
            "invalid chat completion request: n = {n} is not supported by the mock server (only n = 1)"
        )));
    }
    Ok(request)
}

/// The model-facing request of a wire request.
/// Chat requests checked against the answer key: a run on the wrong dataset shows at its
/// start, and the check (a scan of the key per message, which the simulated model then does
/// again) stays off the server's steady-state path.
pub const UNKEYED_CHECKED_REQUESTS: u64 = 256;

/// Counts a request none of whose user messages is a question of the server's answer key
/// (among the first [`UNKEYED_CHECKED_REQUESTS`]), and warns on the first one: a silent 0% is
/// what a run on the wrong dataset looks like.
fn note_unkeyed(state: &AppState, request: &ChatCompletionRequest) {
    let Some(key) = &state.answer_key else {
        return;
    };
    if state
        .stats
        .chat_requests
        .load(std::sync::atomic::Ordering::Relaxed)
        > UNKEYED_CHECKED_REQUESTS
    {
        return;
    }
    let keyed = request
        .messages
        .iter()
        .filter(|m| m.role == colony_llm::Role::User)
        .any(|m| key.lookup_entry(&m.content).is_some());
    if keyed {
        return;
    }
    let before = state
        .stats
        .unkeyed_requests
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if before == 0 {
        tracing::warn!(
            questions = key.len(),
            "serve-mock: a request asked a question that is not in the answer key; the \
             simulated model can only answer it generically (a run on another dataset than the \
             key's scores 0%): start serve-mock with --answer-key of the evaluated file"
        );
    }
}

fn to_chat_request(r: ChatCompletionRequest) -> ChatRequest {
    ChatRequest {
        sampling: r.sampling(),
        response_format: r.format(),
        messages: r.messages,
        sample_index: 0,
        // Requests from outside the process carry no purpose: the simulated model asks its
        // responders in order, each recognising its own prompts.
        purpose: None,
        // Offered tools reach the backing model, so the simulated one calls them.
        tools: r.tools,
        tool_choice: r.tool_choice,
        trace: Default::default(),
    }
}

/// The non-streaming body.
fn completion(id: &str, created: u64, model: &str, reply: &ChatResponse) -> ChatCompletion {
    ChatCompletion {
        id: id.to_string(),
        object: "chat.completion".into(),
        created,
        model: model.to_string(),
        choices: vec![Choice {
            index: 0,
            message: ChoiceMessage {
                role: "assistant".into(),
                // OpenAI sends a null content with tool calls.
                content: (reply.tool_calls.is_empty() || !reply.text.is_empty())
                    .then(|| reply.text.clone()),
                tool_calls: reply.tool_calls.clone(),
            },
            finish_reason: Some(reply.finish_reason.as_api().to_string()),
        }],
        usage: Some(WireUsage::from(reply.usage)),
    }
}

/// Splits `text` at word boundaries into at most [`STREAM_PIECES`] pieces whose concatenation
/// is `text` (one empty piece for empty text).
pub(crate) fn split_pieces(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(char::is_whitespace).collect();
    if words.is_empty() {
        return vec![String::new()];
    }
    let per_piece = words.len().div_ceil(STREAM_PIECES);
    words.chunks(per_piece).map(|c| c.concat()).collect()
}

/// The chunks of a streamed reply, in order (without the `[DONE]` marker).
fn stream_events(
    id: &str,
    created: u64,
    model: &str,
    reply: &ChatResponse,
    include_usage: bool,
) -> Vec<ChatCompletionChunk> {
    let chunk = |choices: Vec<ChunkChoice>, usage: Option<WireUsage>| ChatCompletionChunk {
        id: id.to_string(),
        object: "chat.completion.chunk".into(),
        created,
        model: model.to_string(),
        choices,
        usage,
    };
    let delta = |role: Option<&str>, content: String, finish: Option<&str>| ChunkChoice {
        index: 0,
        delta: Delta {
            role: role.map(str::to_string),
            content: Some(content),
            tool_calls: Vec::new(),
        },
        finish_reason: finish.map(str::to_string),
    };
    let mut events = vec![chunk(
        vec![delta(Some("assistant"), String::new(), None)],
        None,
    )];
    let pieces = split_pieces(&reply.text);
    let last = pieces.len().saturating_sub(1);
    let has_calls = !reply.tool_calls.is_empty();
    for (i, piece) in pieces.into_iter().enumerate() {
        let finish = (i == last && !has_calls).then(|| reply.finish_reason.as_api());
        events.push(chunk(vec![delta(None, piece, finish)], None));
    }
    if has_calls {
        // Each call in two fragments, as OpenAI streams them: its id and name, then the
        // arguments; the last fragment carries `finish_reason`.
        let mut fragments = Vec::new();
        for (i, call) in reply.tool_calls.iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            fragments.push(ToolCallDelta {
                index,
                id: Some(call.id.clone()),
                kind: Some("function".into()),
                function: FunctionDelta {
                    name: Some(call.name.clone()),
                    arguments: Some(String::new()),
                },
            });
            fragments.push(ToolCallDelta {
                index,
                id: None,
                kind: None,
                function: FunctionDelta {
                    name: None,
                    arguments: Some(call.arguments.clone()),
                },
            });
        }
        let n = fragments.len();
        for (k, fragment) in fragments.into_iter().enumerate() {
            events.push(chunk(
                vec![ChunkChoice {
                    index: 0,
                    delta: Delta {
                        tool_calls: vec![fragment],
                        ..Delta::default()
                    },
                    finish_reason: (k + 1 == n).then(|| reply.finish_reason.as_api().to_string()),
                }],
                None,
            ));
        }
    }
    if include_usage {
        events.push(chunk(Vec::new(), Some(WireUsage::from(reply.usage))));
    }
    events
}

/// A `text/event-stream` response sending each chunk as `data: {json}\n\n`, then `data: [DONE]`.
fn sse_response(events: Vec<ChatCompletionChunk>) -> Response {
    let mut frames: Vec<Result<Bytes, Infallible>> = events
        .iter()
        .filter_map(|e| serde_json::to_string(e).ok())
        .map(|json| Ok(Bytes::from(format!("data: {json}\n\n"))))
        .collect();
    frames.push(Ok(Bytes::from_static(b"data: [DONE]\n\n")));
    let body = Body::from_stream(futures::stream::iter(frames));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_reassemble_exactly() {
        for text in [
            "",
            "one",
            "The answer is 42.",
            "a b c d e f g h i j",
            "  lead\nand trail  ",
        ] {
            let pieces = split_pieces(text);
            assert!(
                !pieces.is_empty() && pieces.len() <= STREAM_PIECES,
                "{text:?}"
            );
            assert_eq!(pieces.concat(), text);
        }
        assert_eq!(split_pieces("a b c d e f g h").len(), 4);
    }
}
