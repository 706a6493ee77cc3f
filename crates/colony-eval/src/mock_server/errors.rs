//! Error answers of the mock server, in the OpenAI error shape
//! `{"error": {"message", "type", "code"}}`, so clients exercise the same parsing and error
//! classification they use against real endpoints.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use colony_llm::wire::ErrorBody;

/// An HTTP error answer with an OpenAI-style body.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    body: ErrorBody,
    retry_after_ms: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &str, code: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody::new(kind, code, message),
            retry_after_ms: None,
        }
    }

    /// 400: the request body is not what the endpoint expects.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            None,
            message,
        )
    }

    /// 400 with an error `code`, for refusals a client may want to tell apart.
    pub(crate) fn bad_request_code(code: &str, message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            Some(code),
            message,
        )
    }

    /// 413: the request body is longer than the server accepts.
    pub(crate) fn request_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            Some("request_too_large"),
            format!("The request body exceeds the limit of {limit} bytes."),
        )
    }

    /// 401: missing or wrong API key.
    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            Some("invalid_api_key"),
            message,
        )
    }

    /// 404: the model is not served.
    pub(crate) fn model_not_found(model: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("model_not_found"),
            format!("The model `{model}` does not exist or you do not have access to it."),
        )
    }

    /// 404: no such route.
    pub(crate) fn unknown_url(method: &str, path: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("unknown_url"),
            format!("Unknown request URL: {method} {path}."),
        )
    }

    /// 405: the route exists but not for this method.
    pub(crate) fn method_not_allowed(method: &str, path: &str) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "invalid_request_error",
            Some("method_not_allowed"),
            format!("Method {method} is not allowed for {path}."),
        )
    }

    /// 429 with `Retry-After` (whole seconds, rounded up) and `retry-after-ms` headers.
    pub(crate) fn rate_limited(retry_after_ms: u64) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            Some("rate_limit_exceeded"),
            format!("Rate limit reached (injected fault). Please retry after {retry_after_ms} ms."),
        );
        e.retry_after_ms = Some(retry_after_ms);
        e
    }

    /// 500 injected by the fault plan.
    pub(crate) fn injected_server_error() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            Some("injected_fault"),
            "The server had an error while processing your request (injected fault).",
        )
    }

    /// 500: the backing model or embedder failed.
    pub(crate) fn model_failed(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            Some("model_error"),
            message,
        )
    }

    /// The HTTP status.
    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if let Some(ms) = self.retry_after_ms {
            let headers = response.headers_mut();
            headers.insert("retry-after", HeaderValue::from(ms.div_ceil(1000)));
            headers.insert("retry-after-ms", HeaderValue::from(ms));
        }
        response
    }
}
