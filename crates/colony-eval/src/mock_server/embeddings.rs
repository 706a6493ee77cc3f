//! `POST /v1/embeddings`: unit vectors from the configured [`Embedder`](colony_llm::embed::Embedder),
//! as float lists or, with `encoding_format: "base64"`, as base64 of little-endian f32 bytes
//! (what the official Python client asks for by default and decodes itself).
//!
//! Bounds: at most `max_embedding_inputs` inputs per request (OpenAI's 2,048 by default) and a
//! response body of at most `max_response_bytes`, written through a capped buffer so an
//! oversized answer is refused (400 `response_too_large`) without ever being built whole.

use std::io;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use base64::Engine;

use super::errors::ApiError;
use super::routes::{admit, apply_faults, malformed_response, AppState, ConnDrop, Outcome};
use super::stats::bump;
use colony_llm::approx_tokens;
use colony_llm::wire::{
    EmbeddingData, EmbeddingRequest, EmbeddingResponse, EmbeddingVector, WireUsage,
};

/// How vectors are written in the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Float,
    Base64,
}

/// Handles one embeddings request.
pub(crate) async fn handle(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnDrop>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    bump(&state.stats.requests);
    bump(&state.stats.embedding_requests);
    let _in_flight = state.stats.enter();
    let checked = admit(
        &state,
        &headers,
        body,
        "embeddings",
        |r: &EmbeddingRequest| &r.model,
    )
    .and_then(|r| validate(r, state.max_embedding_inputs));
    let (request, encoding) = match checked {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let outcome = match apply_faults(&state, conn.as_ref().map(|Extension(c)| c)).await {
        Ok(outcome) => outcome,
        Err(response) => return response,
    };
    let texts = request.input.into_vec();
    let prompt_tokens: u64 = texts.iter().map(|t| approx_tokens(t)).sum();
    // Heavy backends move their work to the blocking pool themselves.
    let matrix = match state.embedder.embed(&texts).await {
        Ok(m) => m,
        Err(e) => return model_failed(&state, e.to_string()),
    };
    let data = matrix
        .rows()
        .into_iter()
        .enumerate()
        .map(|(i, row)| EmbeddingData {
            object: "embedding".into(),
            index: u32::try_from(i).unwrap_or(u32::MAX),
            embedding: match encoding {
                Encoding::Float => EmbeddingVector::Float(row.to_vec()),
                Encoding::Base64 => EmbeddingVector::Base64(encode_base64(row.iter().copied())),
            },
        })
        .collect();
    let response = EmbeddingResponse {
        object: "list".into(),
        data,
        model: request.model,
        usage: WireUsage {
            prompt_tokens,
            completion_tokens: 0,
            total_tokens: prompt_tokens,
            prompt_tokens_details: None,
        },
    };
    let json = match to_json_capped(&response, state.max_response_bytes) {
        Ok(json) => json,
        Err(e) => {
            bump(&state.stats.client_errors);
            tracing::debug!(
                status = e.status().as_u16(),
                "mock server refused an embeddings response over the size limit"
            );
            return e.into_response();
        }
    };
    if outcome == Outcome::Malformed {
        return malformed_response(&state, &String::from_utf8_lossy(&json));
    }
    state.stats.record_embeddings_ok(prompt_tokens);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        json,
    )
        .into_response()
}

/// A byte buffer that refuses to grow past its limit.
struct CappedBuffer {
    bytes: Vec<u8>,
    limit: usize,
}

impl io::Write for CappedBuffer {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.len() > self.limit.saturating_sub(self.bytes.len()) {
            return Err(io::Error::other("response size limit reached"));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `response` as JSON, or 400 `response_too_large` when it would exceed `limit` bytes (the
/// serialization stops at the limit).
fn to_json_capped(response: &EmbeddingResponse, limit: usize) -> Result<Vec<u8>, ApiError> {
    let mut buf = CappedBuffer {
        bytes: Vec::new(),
        limit,
    };
    match serde_json::to_writer(&mut buf, response) {
        Ok(()) => Ok(buf.bytes),
        Err(e) if e.is_io() => Err(ApiError::bad_request_code(
            "response_too_large",
            format!(
                "invalid embeddings request: the response for {} inputs would exceed the server's limit of {limit} bytes; send fewer inputs per request",
                response.data.len()
            ),
        )),
        Err(e) => Err(ApiError::model_failed(format!(
            "cannot serialize the embeddings: {e}"
        ))),
    }
}

fn model_failed(state: &AppState, message: String) -> Response {
    bump(&state.stats.model_errors);
    tracing::warn!(error = %message, "mock server: embedder failed");
    ApiError::model_failed(message).into_response()
}

/// Checks the input list (not empty, at most `max_inputs` items) and the encoding.
fn validate(
    request: EmbeddingRequest,
    max_inputs: usize,
) -> Result<(EmbeddingRequest, Encoding), ApiError> {
    let encoding = match request.encoding_format.as_deref() {
        None | Some("float") => Encoding::Float,
        Some("base64") => Encoding::Base64,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "invalid embeddings request: encoding_format {other:?} is not supported (use \"float\" or \"base64\")"
            )))
        }
    };
    if let colony_llm::wire::EmbeddingInput::Many(v) = &request.input {
        if v.is_empty() {
            return Err(ApiError::bad_request(
                "invalid embeddings request: `input` must not be an empty list",
            ));
        }
        if v.len() > max_inputs {
            return Err(ApiError::bad_request_code(
                "too_many_inputs",
                format!(
                    "invalid embeddings request: `input` has {} items, more than the limit of {max_inputs} inputs per request",
                    v.len()
                ),
            ));
        }
    }
    Ok((request, encoding))
}

/// Base64 (standard alphabet, padded) of the little-endian bytes of `values`.
pub(crate) fn encode_base64(values: impl Iterator<Item = f32>) -> String {
    let bytes: Vec<u8> = values.flat_map(f32::to_le_bytes).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_little_endian_f32() {
        let s = encode_base64([1.0f32, -0.5].into_iter());
        let bytes = base64::engine::general_purpose::STANDARD.decode(s).unwrap();
        assert_eq!(bytes, [0, 0, 128, 63, 0, 0, 0, 191]);
    }
}
