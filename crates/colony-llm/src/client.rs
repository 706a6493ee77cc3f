//! The OpenAI-compatible chat client: `/v1/chat/completions` over reqwest + rustls.
//!
//! Layering per call (async-openai's order): pick an endpoint from the pool, wait for one of
//! its adaptive concurrency permits (`adaptive.rs`: the limit halves on 429/503 and grows back
//! on success), send with the per-request timeout, classify the outcome, and on a retryable
//! error release the permit, back off (or wait the server's `Retry-After`) and try
//! again, possibly on another endpoint. The overall deadline bounds all of it, waiting for
//! permits and backoff included.
//!
//! Response bodies are read chunk by chunk and never past [`ClientSettings::max_body_bytes`]:
//! an endless or oversized body (chunked JSON, an event stream) ends the attempt with
//! [`ModelError::BodyTooLarge`], which is not retried. Error bodies (non-2xx) are only read up
//! to [`MAX_ERROR_BODY_READ`] bytes, as they serve only the error message.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use reqwest::StatusCode;

mod server_context;

pub use server_context::{MAX_CONTEXT_TOKENS, PROPS_ORIGIN};

use super::adaptive::is_overload;
use super::endpoint::{Endpoint, EndpointPool};
use super::retry::parse_retry_after;
use super::types::MAX_CALL_TOKENS;
use super::wire::{
    ChatCompletion, ChatCompletionRequest, EmbeddingInput, EmbeddingRequest, EmbeddingResponse,
    EmbeddingVector, ModelList,
};
use super::{ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, RetryPolicy, Usage};

pub use super::endpoint::EndpointSettings;

/// Longest error body kept in errors and logs.
const MAX_ERROR_BODY: usize = 2000;

/// Most bytes read of a non-2xx body (the rest is discarded unread).
pub(crate) const MAX_ERROR_BODY_READ: usize = 64 * 1024;

/// Default of [`ClientSettings::max_body_bytes`]: 16 MiB.
pub(crate) const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Client-wide settings of one model.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// Model name sent to the server (`model` field).
    pub model: String,
    /// Timeout of one HTTP attempt.
    pub request_timeout: Duration,
    /// Bound on a whole call: permits, attempts and backoff. `None` = no bound beyond retries.
    pub deadline: Option<Duration>,
    /// Retries and backoff.
    pub retry: RetryPolicy,
    /// Largest response body read, in bytes (default [`DEFAULT_MAX_BODY_BYTES`]); a longer
    /// one fails with [`ModelError::BodyTooLarge`].
    pub max_body_bytes: usize,
    /// Prompt-token capacity of one request; a prompt estimated larger fails with
    /// [`ModelError::ContextOverflow`] before it is sent. `None`: the servers' own figure
    /// when they report one on `GET /props` (llama-server), else no check.
    pub context_tokens: Option<u64>,
    /// How the servers spell a JSON-schema `response_format` (`structured_output` in
    /// `models.toml`).
    pub structured: crate::wire::StructuredSpelling,
}

impl ClientSettings {
    /// Defaults for `model`: 120 s per attempt, 600 s per call, the default retry policy,
    /// bodies of at most 16 MiB.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            request_timeout: Duration::from_secs(120),
            deadline: Some(Duration::from_secs(600)),
            retry: RetryPolicy::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            context_tokens: None,
            structured: crate::wire::StructuredSpelling::default(),
        }
    }
}

/// A [`ChatModel`] backed by one or more OpenAI-compatible endpoints serving the same model.
#[derive(Debug)]
pub struct OpenAiClient {
    settings: ClientSettings,
    pool: EndpointPool,
    http: reqwest::Client,
    label: String,
    /// The context the servers report, asked once ([`server_context`]).
    server_context: tokio::sync::OnceCell<Option<u64>>,
}

impl OpenAiClient {
    /// A client for `settings.model` over `endpoints` (at least one).
    pub fn new(
        settings: ClientSettings,
        endpoints: Vec<EndpointSettings>,
    ) -> Result<Self, ModelError> {
        if endpoints.is_empty() {
            return Err(ModelError::Config(format!(
                "model {}: no endpoint (base URL) configured",
                settings.model
            )));
        }
        for e in &endpoints {
            let shown = super::endpoint::redact_url(&e.base_url);
            let url = reqwest::Url::parse(&e.base_url).map_err(|err| {
                ModelError::Config(format!(
                    "model {}: base URL {shown:?}: {err}",
                    settings.model
                ))
            })?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(ModelError::Config(format!(
                    "model {}: base URL {shown:?} must start with http:// or https://",
                    settings.model
                )));
            }
        }
        let max_conc: usize = endpoints.iter().map(|e| e.max_concurrency).sum();
        let http = super::http::client_builder()
            .pool_max_idle_per_host(max_conc.max(1))
            .tcp_nodelay(true)
            .user_agent(concat!("colony/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ModelError::Config(format!("HTTP client: {e}")))?;
        let pool = EndpointPool::new(endpoints.into_iter().map(Endpoint::new).collect());
        let label = match pool.endpoints() {
            [one] => one.base_url.clone(),
            many => format!("pool of {} endpoints for {}", many.len(), settings.model),
        };
        Ok(Self {
            settings,
            pool,
            http,
            label,
            server_context: tokio::sync::OnceCell::new(),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &ClientSettings {
        &self.settings
    }

    /// Base URLs of the endpoints, in pool order.
    pub fn base_urls(&self) -> Vec<String> {
        self.pool
            .endpoints()
            .iter()
            .map(|e| e.base_url.clone())
            .collect()
    }

    /// Asks every endpoint for `GET /models`: per base URL, the served model ids or the error.
    pub async fn check_endpoints(&self) -> Vec<(String, Result<Vec<String>, ModelError>)> {
        let checks = self.pool.endpoints().iter().map(|ep| async move {
            let result = async {
                let mut req = self
                    .http
                    .get(&ep.models_url)
                    .timeout(self.settings.request_timeout);
                if let Some(key) = &ep.api_key {
                    req = req.bearer_auth(key.expose());
                }
                let resp = req
                    .send()
                    .await
                    .map_err(|e| transport_error(ep, e, &self.settings))?;
                let status = resp.status();
                let body = ep.scrub(self.read_body(ep, resp).await?);
                if !status.is_success() {
                    return Err(status_error(ep, status, None, &body));
                }
                let list: ModelList = serde_json::from_slice(&body)
                    .map_err(|e| malformed(ep, e.to_string(), &body))?;
                Ok(list.data.into_iter().map(|m| m.id).collect())
            }
            .await;
            (ep.base_url.clone(), result)
        });
        futures::future::join_all(checks).await
    }

    fn wire_request(&self, r: &ChatRequest) -> Result<Bytes, ModelError> {
        let body =
            ChatCompletionRequest::from_chat(&self.settings.model, r, self.settings.structured);
        serde_json::to_vec(&body)
            .map(Bytes::from)
            .map_err(|e| ModelError::Config(format!("cannot serialize request: {e}")))
    }

    /// One HTTP attempt on `ep`, holding one of its adaptive permits for its duration only
    /// and reporting the outcome to the limit: a success may widen it, an overload answer
    /// (429, 503) halves it; other errors leave it alone.
    async fn attempt<R: WireResponse>(
        &self,
        ep: &Endpoint,
        route: Route,
        body: Bytes,
        remaining: Option<Duration>,
    ) -> Result<R, ModelError> {
        let permit = ep
            .permits
            .acquire()
            .await
            .map_err(|_| ModelError::Transient {
                endpoint: ep.base_url.clone(),
                status: None,
                message: "endpoint closed".into(),
            })?;
        let result = self.attempt_http(ep, route, body, remaining).await;
        match &result {
            Ok(_) => permit.succeeded(),
            Err(e) if is_overload(e.status()) => permit.overloaded(),
            Err(_) => {}
        }
        result
    }

    /// The HTTP exchange of [`attempt`](Self::attempt), permit already held.
    async fn attempt_http<R: WireResponse>(
        &self,
        ep: &Endpoint,
        route: Route,
        body: Bytes,
        remaining: Option<Duration>,
    ) -> Result<R, ModelError> {
        let timeout = remaining.map_or(self.settings.request_timeout, |r| {
            r.min(self.settings.request_timeout)
        });
        let url = match route {
            Route::Chat => &ep.completions_url,
            Route::Embeddings => &ep.embeddings_url,
        };
        let mut req = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .timeout(timeout)
            .body(body);
        if let Some(key) = &ep.api_key {
            req = req.bearer_auth(key.expose());
        }
        tracing::debug!(
            endpoint = %ep.base_url,
            model = %self.settings.model,
            key = ?ep.api_key,
            "POST {}",
            route.path()
        );
        let resp = req
            .send()
            .await
            .map_err(|e| transport_error(ep, e, &self.settings))?;
        let status = resp.status();
        tracing::debug!(endpoint = %ep.base_url, status = status.as_u16(), "response");
        // Only error answers need a header (Retry-After): read it before the body consumes
        // the response instead of cloning every response's header map.
        let retry_after = (!status.is_success())
            .then(|| parse_retry_after(resp.headers()))
            .flatten();
        let bytes = ep.scrub(self.read_body(ep, resp).await?);
        if !status.is_success() {
            return Err(status_error(ep, status, retry_after, &bytes));
        }
        let parsed: R =
            serde_json::from_slice(&bytes).map_err(|e| malformed(ep, e.to_string(), &bytes))?;
        parsed.check().map_err(|m| malformed(ep, m, &bytes))?;
        Ok(parsed)
    }

    /// Reads the body of `resp` without ever holding more than the limit: for a 2xx answer
    /// `max_body_bytes` (a longer body is [`ModelError::BodyTooLarge`], detected from
    /// `Content-Length` before reading when the server declares it), for an error answer
    /// [`MAX_ERROR_BODY_READ`] bytes (silently truncated: only the message needs it).
    async fn read_body(
        &self,
        ep: &Endpoint,
        mut resp: reqwest::Response,
    ) -> Result<Bytes, ModelError> {
        let success = resp.status().is_success();
        let limit = if success {
            self.settings.max_body_bytes
        } else {
            MAX_ERROR_BODY_READ.min(self.settings.max_body_bytes)
        };
        let too_large = || ModelError::BodyTooLarge {
            endpoint: ep.base_url.clone(),
            limit: self.settings.max_body_bytes,
        };
        let declared = resp.content_length();
        if success && declared.is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        // Pre-allocate what the server declared, within the limit and at most 1 MiB.
        let hint = declared
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
            .min(limit)
            .min(1 << 20);
        let mut buf = BytesMut::with_capacity(hint);
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| transport_error(ep, e, &self.settings))?
        {
            let room = limit.saturating_sub(buf.len());
            if chunk.len() > room {
                if success {
                    tracing::warn!(
                        endpoint = %ep.base_url,
                        limit,
                        "response body exceeds max_body_bytes; connection dropped"
                    );
                    return Err(too_large());
                }
                buf.extend_from_slice(chunk.get(..room).unwrap_or_default());
                break;
            }
            buf.extend_from_slice(&chunk);
        }
        // Dropping `resp` here closes a connection whose body was not read to the end.
        Ok(buf.freeze())
    }

    /// Sends `body` to `route` with the pool, permits, deadline and retries; returns the parsed
    /// reply, the number of retries and the start time.
    async fn send<R: WireResponse>(
        &self,
        route: Route,
        body: Bytes,
    ) -> Result<(R, u32, Instant), ModelError> {
        let start = Instant::now();
        let deadline_at = self.settings.deadline.map(|d| start + d);
        let mut retries = 0u32;
        let mut last_error = String::from("none");
        loop {
            let ep = self.pool.pick();
            let remaining = deadline_at.map(|d| d.saturating_duration_since(Instant::now()));
            let outcome = match (deadline_at, remaining) {
                (Some(_), Some(r)) if r.is_zero() => None,
                (Some(at), _) => tokio::time::timeout_at(
                    at.into(),
                    self.attempt(ep, route, body.clone(), remaining),
                )
                .await
                .ok(),
                (None, _) => Some(self.attempt(ep, route, body.clone(), None).await),
            };
            let Some(outcome) = outcome else {
                return Err(self.deadline_error(retries + 1, last_error));
            };
            let err = match outcome {
                Ok(parsed) => {
                    ep.succeeded();
                    return Ok((parsed, retries, start));
                }
                Err(e) => e,
            };
            if !err.is_retryable() {
                return Err(err);
            }
            // Nothing listens there: with no other endpoint to try, waiting cannot help, so
            // the call fails at once and the run stops.
            if err.is_connection_refused() && self.pool.endpoints().len() == 1 {
                return Err(err);
            }
            ep.failed();
            if retries >= self.settings.retry.max_retries {
                return Err(err);
            }
            let delay = self.settings.retry.delay(retries, err.retry_after());
            if deadline_at.is_some_and(|at| Instant::now() + delay >= at) {
                return Err(self.deadline_error(retries + 1, err.to_string()));
            }
            retries += 1;
            tracing::warn!(
                endpoint = %ep.base_url,
                retry = retries,
                max_retries = self.settings.retry.max_retries,
                delay_ms = delay.as_millis() as u64,
                error = %err,
                "retrying model call"
            );
            last_error = err.to_string();
            tokio::time::sleep(delay).await;
        }
    }

    /// Embeds `texts` with `POST /embeddings`: one vector per text, in input order, as the
    /// server returns them (not normalized), plus the usage.
    pub async fn embeddings(&self, texts: &[String]) -> Result<(Vec<Vec<f32>>, Usage), ModelError> {
        let body = EmbeddingRequest {
            model: self.settings.model.clone(),
            input: EmbeddingInput::Many(texts.to_vec()),
            encoding_format: Some("float".into()),
        };
        let body = serde_json::to_vec(&body)
            .map(Bytes::from)
            .map_err(|e| ModelError::Config(format!("cannot serialize request: {e}")))?;
        let (mut reply, _, _): (EmbeddingResponse, _, _) =
            self.send(Route::Embeddings, body).await?;
        let malformed_reply = |message: String| ModelError::Malformed {
            endpoint: self.label.clone(),
            message,
            body: String::new(),
        };
        if reply.data.len() != texts.len() {
            return Err(malformed_reply(format!(
                "{} embeddings for {} inputs",
                reply.data.len(),
                texts.len()
            )));
        }
        reply.data.sort_by_key(|d| d.index);
        let vectors = reply
            .data
            .into_iter()
            .map(|d| match d.embedding {
                EmbeddingVector::Float(v) => Ok(v),
                EmbeddingVector::Base64(b) => decode_f32_base64(&b).map_err(malformed_reply),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((vectors, reply.usage.into()))
    }
}

/// Which API route a request goes to.
#[derive(Debug, Clone, Copy)]
enum Route {
    Chat,
    Embeddings,
}

impl Route {
    fn path(self) -> &'static str {
        match self {
            Self::Chat => "chat/completions",
            Self::Embeddings => "embeddings",
        }
    }
}

/// A reply body the client can parse and sanity-check (a failed check is a malformed body,
/// which is retried).
trait WireResponse: serde::de::DeserializeOwned {
    fn check(&self) -> Result<(), String>;
}

impl WireResponse for ChatCompletion {
    fn check(&self) -> Result<(), String> {
        if self.choices.is_empty() {
            return Err("no choices in the response".into());
        }
        if let Some(u) = &self.usage {
            if !Usage::from(*u).is_plausible() || u.total_tokens > 2 * MAX_CALL_TOKENS {
                return Err(format!(
                    "implausible usage ({} prompt, {} completion tokens; at most {MAX_CALL_TOKENS} each)",
                    u.prompt_tokens, u.completion_tokens
                ));
            }
        }
        Ok(())
    }
}

impl WireResponse for EmbeddingResponse {
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Decodes base64 little-endian f32 values (the `encoding_format = base64` form).
fn decode_f32_base64(b64: &str) -> Result<Vec<f32>, String> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("bad base64 embedding: {e}"))?;
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "base64 embedding of {} bytes is not f32 data",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[async_trait]
impl ChatModel for OpenAiClient {
    fn id(&self) -> &str {
        &self.settings.model
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        if let Some((context_tokens, origin)) = self.context_limit().await {
            let prompt_tokens = super::approx_prompt_tokens(&request.messages);
            if prompt_tokens > context_tokens {
                return Err(ModelError::ContextOverflow {
                    model: self.settings.model.clone(),
                    prompt_tokens,
                    context_tokens,
                    origin,
                });
            }
        }
        let body = self.wire_request(request)?;
        let (completion, retries, start): (ChatCompletion, _, _) =
            self.send(Route::Chat, body).await?;
        let usage = completion.usage.map(Usage::from).unwrap_or_default();
        let model = completion.model;
        let choice = completion.choices.into_iter().next();
        let finish = choice
            .as_ref()
            .and_then(|c| c.finish_reason.clone())
            .unwrap_or_else(|| "stop".into());
        let (text, tool_calls) = choice
            .map(|c| (c.message.content.unwrap_or_default(), c.message.tool_calls))
            .unwrap_or_default();
        Ok(ChatResponse {
            finish_reason: FinishReason::from_api(&finish),
            text,
            usage,
            latency: start.elapsed(),
            model,
            retries,
            cached: false,
            tool_calls,
            tool_trace: Vec::new(),
        })
    }
}

impl OpenAiClient {
    fn deadline_error(&self, attempts: u32, last: String) -> ModelError {
        ModelError::DeadlineExceeded {
            endpoint: self.label.clone(),
            deadline: self.settings.deadline.unwrap_or_default(),
            attempts,
            last,
        }
    }
}

fn body_text(body: &[u8]) -> String {
    let s = String::from_utf8_lossy(body);
    let mut s = s.trim().to_string();
    if s.len() > MAX_ERROR_BODY {
        let cut = (0..=MAX_ERROR_BODY)
            .rev()
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(0);
        s.truncate(cut);
        s.push('…');
    }
    s
}

fn malformed(ep: &Endpoint, message: String, body: &[u8]) -> ModelError {
    ModelError::Malformed {
        endpoint: ep.base_url.clone(),
        message,
        body: body_text(body),
    }
}

fn status_error(
    ep: &Endpoint,
    status: StatusCode,
    retry_after: Option<Duration>,
    body: &[u8],
) -> ModelError {
    let endpoint = ep.base_url.clone();
    let text = body_text(body);
    let code = status.as_u16();
    match code {
        429 => ModelError::RateLimited {
            endpoint,
            retry_after,
            body: text,
        },
        408 | 409 | 500..=599 => ModelError::Transient {
            endpoint,
            status: Some(code),
            message: format!("HTTP {code}: {text}"),
        },
        400 | 413
            if text.contains("context_length_exceeded")
                || text.contains("maximum context length") =>
        {
            ModelError::ContextLength {
                endpoint,
                status: code,
                body: text,
            }
        }
        404 if lacks_v1(&endpoint) => ModelError::Permanent {
            body: format!(
                "{text} (the base URL has no path; OpenAI-compatible servers serve \
                 chat/completions under /v1: try {}/v1)",
                endpoint
                    .split('?')
                    .next()
                    .unwrap_or(&endpoint)
                    .trim_end_matches('/')
            ),
            endpoint,
            status: code,
        },
        _ => ModelError::Permanent {
            endpoint,
            status: code,
            body: text,
        },
    }
}

/// Whether a base URL is a bare host with no path (`http://localhost:8000`), the usual
/// mistake behind a 404: OpenAI-compatible servers serve under `/v1`.
fn lacks_v1(base: &str) -> bool {
    let no_query = base.split('?').next().unwrap_or(base);
    let after_scheme = no_query
        .split_once("://")
        .map_or(no_query, |(_, rest)| rest);
    after_scheme
        .split_once('/')
        .is_none_or(|(_, path)| path.trim_matches('/').is_empty())
}

fn transport_error(ep: &Endpoint, e: reqwest::Error, s: &ClientSettings) -> ModelError {
    if e.is_timeout() {
        return ModelError::Timeout {
            endpoint: ep.base_url.clone(),
            after: s.request_timeout,
        };
    }
    // The full source chain says what happened ("connection refused", "connection closed
    // before message completed"). The URL is dropped from it: a base URL may carry a
    // credential (userinfo or a query parameter); the redacted endpoint names the server.
    let e = e.without_url();
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    ModelError::Transient {
        endpoint: ep.base_url.clone(),
        status: None,
        message,
    }
}
