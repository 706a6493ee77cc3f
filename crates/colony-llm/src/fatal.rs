//! Which model failures stop a whole run: the ones no retry and no later item can fix.
//!
//! Decision (hardening issue, "failures are never wrong answers"): 401/403/404 (bad key, no
//! access, wrong base URL or model name), a strict replay cache miss, a model configuration
//! error, and a connection refused (nothing listens on the endpoint; the client does not
//! retry it unless its pool has another endpoint to try). A run that meets one stops early with one clear line instead of recording the
//! same error on every remaining item. Rate limits, 5xx, timeouts and malformed bodies are
//! per-call failures: the item is an error and is retried on the next run.

use super::ModelError;

/// True when `e` means every further call of this run would fail the same way.
pub fn stops_run(e: &ModelError) -> bool {
    match e {
        ModelError::Permanent { status, .. } => matches!(status, 401 | 403 | 404),
        ModelError::CacheMiss { .. } | ModelError::Config(_) => true,
        other => other.is_connection_refused(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_and_missing_endpoints_stop_runs_rate_limits_do_not() {
        let permanent = |status| ModelError::Permanent {
            endpoint: "http://x/v1".into(),
            status,
            body: String::new(),
        };
        assert!(stops_run(&permanent(401)));
        assert!(stops_run(&permanent(404)));
        assert!(!stops_run(&permanent(400)));
        assert!(stops_run(&ModelError::Transient {
            endpoint: "http://x/v1".into(),
            status: None,
            message: "error sending request: tcp connect error: Connection refused (os error 111)"
                .into(),
        }));
        assert!(!stops_run(&ModelError::Transient {
            endpoint: "http://x/v1".into(),
            status: Some(500),
            message: "boom".into(),
        }));
        assert!(!stops_run(&ModelError::RateLimited {
            endpoint: "http://x/v1".into(),
            retry_after: None,
            body: String::new(),
        }));
    }
}
