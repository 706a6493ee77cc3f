//! Live concurrency gauges of every HTTP endpoint in the process, for progress displays.
//!
//! Why a process-wide registry: the adaptive limits live deep inside [`OpenAiClient`]s, which
//! are built per model and wrapped in replay caches, rosters and policies; the CLI's progress
//! bars only need a glance at them. Each endpoint registers a [`Weak`] reference to its limit
//! when the client is built, so the registry never keeps a client alive, and entries of dropped
//! clients are pruned on the next registration or read.
//!
//! [`OpenAiClient`]: super::OpenAiClient

use std::sync::{Arc, Mutex, Weak};

use super::adaptive::AdaptiveLimit;

/// The concurrency of one endpoint at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointGauge {
    /// The endpoint's base URL, credentials redacted ([`super::redact_url`]).
    pub base_url: String,
    /// Current adaptive limit: requests allowed in flight now (`1..=max`).
    pub limit: usize,
    /// The configured maximum (`max_concurrency`).
    pub max: usize,
    /// Requests holding a permit right now.
    pub in_flight: usize,
}

struct Entry {
    base_url: String,
    limit: Weak<AdaptiveLimit>,
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Makes `limit` visible in [`endpoint_gauges`] for as long as someone else holds it.
pub(crate) fn register(base_url: &str, limit: &Arc<AdaptiveLimit>) {
    let mut r = registry();
    r.retain(|e| e.limit.strong_count() > 0);
    r.push(Entry {
        base_url: base_url.to_string(),
        limit: Arc::downgrade(limit),
    });
}

/// The gauges of every live HTTP endpoint in the process, in registration order (one per
/// endpoint of each [`OpenAiClient`](super::OpenAiClient) still alive; two clients of the same
/// URL give two gauges). Empty when only simulated or replayed models are in use.
pub fn endpoint_gauges() -> Vec<EndpointGauge> {
    let mut r = registry();
    r.retain(|e| e.limit.strong_count() > 0);
    r.iter()
        .filter_map(|e| {
            let s = e.limit.upgrade()?.snapshot();
            Some(EndpointGauge {
                base_url: e.base_url.clone(),
                limit: s.limit,
                max: s.max,
                in_flight: s.in_flight,
            })
        })
        .collect()
}

/// A short progress-bar label of [`endpoint_gauges`] summed over all endpoints:
/// `conc LIMIT/MAX` (e.g. `conc 3/16`: the adaptive limits allow 3 requests of a configured
/// 16), or `None` when no HTTP endpoint is live.
pub fn concurrency_label() -> Option<String> {
    let gauges = endpoint_gauges();
    if gauges.is_empty() {
        return None;
    }
    let limit: usize = gauges.iter().map(|g| g.limit).sum();
    let max: usize = gauges.iter().map(|g| g.max).sum();
    Some(format!("conc {limit}/{max}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn gauges_follow_live_limits_only() {
        let url = "http://gauge-test.invalid/v1";
        let mine = |g: &EndpointGauge| g.base_url == url;
        let limit = Arc::new(AdaptiveLimit::new(6));
        register(url, &limit);
        let g = limit.acquire().await.unwrap();
        g.overloaded();
        let seen: Vec<_> = endpoint_gauges().into_iter().filter(mine).collect();
        assert_eq!(
            seen,
            vec![EndpointGauge {
                base_url: url.into(),
                limit: 3,
                max: 6,
                in_flight: 1
            }]
        );
        assert!(concurrency_label().is_some());
        drop(g);
        drop(limit);
        assert!(!endpoint_gauges().iter().any(mine));
    }
}
