//! The mock server's router and the steps every model request shares: counting, the API-key
//! check, JSON parsing with OpenAI-style 400s, the served-model check, and applying the fault
//! plan (latency first, then at most one fault).
//!
//! The endpoint handlers themselves live in `chat.rs` and `embeddings.rs`; this file also
//! answers `GET /v1/models`, the `/v1/mock/*` control endpoints and unknown paths.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::errors::ApiError;
use super::faults::{Fault, FaultConfig};
use super::stats::{bump, StatsCounters};
use super::{chat, embeddings};
use colony_llm::embed::Embedder;
use colony_llm::wire::{ModelCard, ModelList};
use colony_llm::SharedModel;

/// Everything the handlers share.
pub(crate) struct AppState {
    /// Model answering chat completions.
    pub(crate) model: SharedModel,
    /// The simulated model's answer key, when the server was given one: requests whose
    /// questions it lacks are counted and warned about once.
    pub(crate) answer_key: Option<colony_llm::AnswerKey>,
    /// Embedder answering `/v1/embeddings`.
    pub(crate) embedder: Arc<dyn Embedder>,
    /// Accepted model names (empty: any).
    pub(crate) served_models: Vec<String>,
    /// Expected bearer token, if any.
    pub(crate) required_api_key: Option<String>,
    /// Fault injection settings.
    pub(crate) faults: FaultConfig,
    /// Counters.
    pub(crate) stats: Arc<StatsCounters>,
    /// Source of completion ids.
    pub(crate) next_id: AtomicU64,
    /// Unix seconds at start (the `created` of model cards).
    pub(crate) started: u64,
    /// Largest request body accepted (enforced by the router's [`DefaultBodyLimit`]).
    pub(crate) max_request_bytes: usize,
    /// Most inputs of one embeddings request.
    pub(crate) max_embedding_inputs: usize,
    /// Largest embeddings response body.
    pub(crate) max_response_bytes: usize,
    /// Where accepted chat requests are logged, one JSON line each.
    pub(crate) request_log: Option<std::sync::Mutex<std::fs::File>>,
    /// The context of the llama-server slot the server plays, when it plays one.
    pub(crate) context_tokens: Option<u64>,
}

impl AppState {
    /// A fresh `chatcmpl-<n>` id.
    pub(crate) fn completion_id(&self) -> String {
        format!(
            "chatcmpl-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed) + 1
        )
    }
}

/// Per-connection signal: cancelling it makes the connection task drop the connection, which
/// closes the socket without sending a response.
#[derive(Clone, Debug)]
pub(crate) struct ConnDrop(pub(crate) CancellationToken);

/// The router of every mock endpoint. Request bodies are read through a limit of
/// `max_request_bytes` (with or without `Content-Length`); handlers see a longer one as a
/// [`BytesRejection`] and answer 413.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let body_limit = DefaultBodyLimit::max(state.max_request_bytes);
    Router::new()
        .route("/v1/chat/completions", post(chat::handle))
        .route("/v1/embeddings", post(embeddings::handle))
        .route("/v1/models", get(models))
        .route("/props", get(props))
        .route("/v1/mock/stats", get(stats))
        .route("/v1/mock/reset", post(reset))
        .fallback(unknown_path)
        .method_not_allowed_fallback(wrong_method)
        .layer(body_limit)
        .with_state(state)
}

/// `GET /props`: llama-server's properties, reduced to what clients read (the per-slot
/// context), when the server plays a slot; 404 otherwise.
async fn props(State(state): State<Arc<AppState>>, method: Method, uri: Uri) -> Response {
    match state.context_tokens {
        Some(n) => Json(serde_json::json!({
            "default_generation_settings": { "n_ctx": n },
            "total_slots": 1,
        }))
        .into_response(),
        None => unknown_path(method, uri).await,
    }
}

/// Unix seconds now.
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Checks `Authorization: Bearer <key>` when a key is required.
fn check_api_key(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(expected) = &state.required_api_key else {
        return Ok(());
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        None => Err(ApiError::unauthorized(
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        )),
        Some(key) if key == expected => Ok(()),
        Some(_) => Err(ApiError::unauthorized("Incorrect API key provided.")),
    }
}

/// Parses a JSON body, naming the problem in the 400 message.
fn parse_body<T: DeserializeOwned>(body: &[u8], what: &str) -> Result<T, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!(
            "We could not parse the JSON body of your request: {e}"
        ))
    })?;
    if !value.is_object() {
        return Err(ApiError::bad_request(format!(
            "invalid {what} request: the body must be a JSON object"
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        let mut message = e.to_string();
        // Untagged enums say which enum failed, not which field: name the field.
        if message.contains("untagged enum EmbeddingInput") {
            message = "`input` must be a string or a list of strings".into();
        } else if message.contains("untagged enum StopSequences") {
            message = "`stop` must be a string or a list of strings".into();
        }
        ApiError::bad_request(format!("invalid {what} request: {message}"))
    })
}

/// The request body, or the error answer when it could not be read: 413 `request_too_large`
/// past the size limit, 400 otherwise.
fn read_body(state: &AppState, body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::request_too_large(state.max_request_bytes)
        } else {
            ApiError::bad_request(format!(
                "could not read the request body: {}",
                rejection.body_text()
            ))
        }
    })
}

/// The checks every model request passes before faults: API key, body (size, then JSON),
/// model name.
///
/// Counts the request, and counts a refusal as a client error.
pub(crate) fn admit<T: DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    what: &str,
    model_of: impl FnOnce(&T) -> &str,
) -> Result<T, ApiError> {
    let result = check_api_key(state, headers).and_then(|()| {
        let body = read_body(state, body)?;
        let request: T = parse_body(&body, what)?;
        let model = model_of(&request);
        if !state.served_models.is_empty() && !state.served_models.iter().any(|m| m == model) {
            return Err(ApiError::model_not_found(model));
        }
        Ok(request)
    });
    if let Err(e) = &result {
        bump(&state.stats.client_errors);
        tracing::debug!(
            status = e.status().as_u16(),
            "mock server refused a {what} request"
        );
    }
    result
}

/// What the handler does after the fault plan ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Answer normally.
    Answer,
    /// Answer 200 with a truncated body.
    Malformed,
}

/// Applies the request's fault plan: sleeps the injected latency, then answers 429 or 500,
/// drops the connection (never returns), stalls, or lets the handler answer (normally or
/// malformed).
pub(crate) async fn apply_faults(
    state: &AppState,
    conn: Option<&ConnDrop>,
) -> Result<Outcome, Response> {
    let faults = &state.faults;
    if faults.is_quiet() {
        return Ok(Outcome::Answer);
    }
    let seq = state.stats.fault_seq.fetch_add(1, Ordering::Relaxed);
    let plan = faults.plan(seq);
    if !plan.latency.is_zero() {
        tokio::time::sleep(plan.latency).await;
    }
    if plan.fault != Fault::None {
        tracing::debug!(seq, fault = ?plan.fault, "mock server injects a fault");
    }
    match plan.fault {
        Fault::None => Ok(Outcome::Answer),
        Fault::RateLimit => {
            bump(&state.stats.rate_limited);
            Err(ApiError::rate_limited(faults.retry_after_ms).into_response())
        }
        Fault::ServerError => {
            bump(&state.stats.server_errors);
            Err(ApiError::injected_server_error().into_response())
        }
        Fault::Drop => {
            bump(&state.stats.drops);
            match conn {
                Some(conn) => {
                    conn.0.cancel();
                    // The connection task drops this future together with the connection.
                    std::future::pending::<()>().await;
                    Err(StatusCode::INTERNAL_SERVER_ERROR.into_response())
                }
                // Not served through `MockServer` (no connection to drop): closest substitute.
                None => Err(ApiError::injected_server_error().into_response()),
            }
        }
        Fault::Stall => {
            bump(&state.stats.stalls);
            tokio::time::sleep(faults.stall_for).await;
            Ok(Outcome::Answer)
        }
        Fault::Malformed => Ok(Outcome::Malformed),
    }
}

/// A 200 `application/json` answer holding the first half of `json` (never valid JSON).
pub(crate) fn malformed_response(state: &AppState, json: &str) -> Response {
    bump(&state.stats.malformed);
    let mut cut = (json.len() / 2).max(1).min(json.len());
    while cut > 0 && !json.is_char_boundary(cut) {
        cut -= 1;
    }
    let body = json.get(..cut).unwrap_or_default().to_string();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// `GET /v1/models`: the served models, or the backing model's id.
async fn models(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Err(e) = check_api_key(&state, &headers) {
        return e.into_response();
    }
    let names = if state.served_models.is_empty() {
        vec![state.model.id().to_string()]
    } else {
        state.served_models.clone()
    };
    let data = names
        .into_iter()
        .map(|id| ModelCard {
            id,
            object: "model".into(),
            created: state.started,
            owned_by: "colony".into(),
        })
        .collect();
    Json(ModelList {
        object: "list".into(),
        data,
    })
    .into_response()
}

/// `GET /v1/mock/stats`: the counters as JSON (no API key needed).
async fn stats(State(state): State<Arc<AppState>>) -> Response {
    Json(state.stats.snapshot()).into_response()
}

/// `POST /v1/mock/reset`: zeroes the counters and restarts the fault sequence.
async fn reset(State(state): State<Arc<AppState>>) -> Response {
    state.stats.reset();
    Json(state.stats.snapshot()).into_response()
}

async fn unknown_path(method: Method, uri: Uri) -> Response {
    ApiError::unknown_url(method.as_str(), uri.path()).into_response()
}

async fn wrong_method(method: Method, uri: Uri) -> Response {
    ApiError::method_not_allowed(method.as_str(), uri.path()).into_response()
}
