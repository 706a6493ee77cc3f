//! Typed model errors, classified so retry logic branches on the class, not on strings.

use std::time::Duration;

use thiserror::Error;

/// Everything that can go wrong when asking a model.
///
/// Each variant keeps the endpoint (base URL, never the key) and, where there is one, the HTTP
/// status and the raw body, so the one-line message tells a user what to fix.
#[derive(Debug, Error)]
pub enum ModelError {
    /// HTTP 429: the server asked us to slow down. Retried after `retry_after` when given.
    #[error("{endpoint}: rate limited (HTTP 429){}", fmt_retry_after(.retry_after))]
    RateLimited {
        /// Endpoint base URL.
        endpoint: String,
        /// Delay the server asked for (`retry-after-ms` or `Retry-After`).
        retry_after: Option<Duration>,
        /// Raw response body.
        body: String,
    },
    /// A failure that may succeed on retry: 5xx, connection refused or reset. A refused
    /// connection is named as such (nothing listens there; it stops a run, see `fatal.rs`),
    /// never "transient".
    #[error("{endpoint}: {}: {message}", transient_kind(.status, .message))]
    Transient {
        /// Endpoint base URL.
        endpoint: String,
        /// HTTP status, when the server answered.
        status: Option<u16>,
        /// What happened.
        message: String,
    },
    /// One attempt took longer than the request timeout.
    #[error("{endpoint}: no response within the request timeout of {}", fmt_secs(*.after))]
    Timeout {
        /// Endpoint base URL.
        endpoint: String,
        /// The timeout that expired.
        after: Duration,
    },
    /// The prompt does not fit the model's context window (not retried).
    #[error("{endpoint}: prompt exceeds the model's context length (HTTP {status}): {body}")]
    ContextLength {
        /// Endpoint base URL.
        endpoint: String,
        /// HTTP status.
        status: u16,
        /// Raw response body.
        body: String,
    },
    /// A request the server refuses for good: 400, 401, 403, 404, … (not retried).
    #[error("{endpoint}: HTTP {status} {}: {body}", status_hint(*.status))]
    Permanent {
        /// Endpoint base URL.
        endpoint: String,
        /// HTTP status.
        status: u16,
        /// Raw response body.
        body: String,
    },
    /// The server answered 200 with a body that is not a valid completion.
    #[error("{endpoint}: malformed response body: {message}")]
    Malformed {
        /// Endpoint base URL.
        endpoint: String,
        /// Parser message.
        message: String,
        /// The first bytes of the body.
        body: String,
    },
    /// A response body grew past the client's `max_body_bytes` (not retried: the same server
    /// would most likely send the same oversized or endless body again).
    #[error("{endpoint}: response body exceeds the limit of {limit} bytes (max_body_bytes); reading stopped there")]
    BodyTooLarge {
        /// Endpoint base URL.
        endpoint: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The prompt does not fit the model's context (`context_tokens`): refused before it is
    /// sent, so the failure is one clear line instead of the server's HTTP 400. A per-call
    /// failure: counted as a failed call, never a wrong answer.
    #[error("{model}: prompt of about {prompt_tokens} tokens (estimated at 4 characters per token) does not fit the context of {context_tokens} tokens ({origin}); not sent")]
    ContextOverflow {
        /// Model name.
        model: String,
        /// The prompt's estimated size, in tokens.
        prompt_tokens: u64,
        /// The model's context, in tokens.
        context_tokens: u64,
        /// Where the context comes from: `context_tokens` configured, or the server's
        /// `GET /props`.
        origin: &'static str,
    },
    /// The overall per-call deadline passed (retries included).
    #[error("{endpoint}: call deadline of {} exceeded after {attempts} attempt(s); last error: {last}", fmt_secs(*.deadline))]
    DeadlineExceeded {
        /// Endpoint base URL (or pool name).
        endpoint: String,
        /// The deadline.
        deadline: Duration,
        /// Attempts made.
        attempts: u32,
        /// Last error seen, or "none".
        last: String,
    },
    /// Strict replay found no recorded response for a request.
    #[error("replay cache miss in {dir}: no recorded response for request {key} (model {model}); record it first with --record")]
    CacheMiss {
        /// The replay directory.
        dir: String,
        /// The request key.
        key: String,
        /// Model id.
        model: String,
    },
    /// A scripted or simulated model could not answer (e.g. script exhausted).
    #[error("{model}: {message}")]
    Simulated {
        /// Model id.
        model: String,
        /// What went wrong.
        message: String,
    },
    /// Invalid model configuration.
    #[error("model configuration: {0}")]
    Config(String),
    /// Reading or writing a file failed. The cause is part of the message (not a `source`),
    /// so `{:#}` chains print it once.
    #[error("{path}: {cause}")]
    Io {
        /// File involved.
        path: String,
        /// Underlying error.
        cause: std::io::Error,
    },
}

/// The retry class of an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Retry after the server-given or computed delay.
    RateLimited,
    /// Retry with backoff.
    Transient,
    /// Do not retry.
    Permanent,
}

impl ModelError {
    /// How the retry loop should treat this error.
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::RateLimited { .. } => ErrorClass::RateLimited,
            Self::Transient { .. } | Self::Timeout { .. } | Self::Malformed { .. } => {
                ErrorClass::Transient
            }
            _ => ErrorClass::Permanent,
        }
    }

    /// True for a refused connection: nothing listens on the endpoint (a wrong port, a server
    /// not started). Retrying the same endpoint cannot help (README: fatal at once).
    pub fn is_connection_refused(&self) -> bool {
        let refused = |m: &str| m.contains("onnection refused");
        match self {
            Self::Transient {
                status: None,
                message,
                ..
            } => refused(message),
            Self::DeadlineExceeded { last, .. } => refused(last),
            _ => false,
        }
    }

    /// True when another attempt may succeed.
    pub fn is_retryable(&self) -> bool {
        self.class() != ErrorClass::Permanent
    }

    /// The delay the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The HTTP status, when the server answered with an error status.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::RateLimited { .. } => Some(429),
            Self::Transient { status, .. } => *status,
            Self::ContextLength { status, .. } | Self::Permanent { status, .. } => Some(*status),
            _ => None,
        }
    }
}

fn fmt_retry_after(d: &Option<Duration>) -> String {
    d.map(|d| format!(", retry after {}", fmt_secs(d)))
        .unwrap_or_default()
}

fn fmt_secs(d: Duration) -> String {
    format!("{:.3}s", d.as_secs_f64())
}

/// What a [`ModelError::Transient`] is called in its message.
fn transient_kind(status: &Option<u16>, message: &str) -> &'static str {
    if status.is_none() && message.contains("onnection refused") {
        "connection refused (nothing listens on this endpoint)"
    } else {
        "transient failure"
    }
}

fn status_hint(status: u16) -> &'static str {
    match status {
        400 => "(bad request)",
        401 => "(unauthorized: check the API key environment variable)",
        403 => "(forbidden)",
        404 => "(not found: check the base URL and the model name)",
        _ => "",
    }
}
