//! Retry policy: exponential backoff with jitter, honouring the server's `Retry-After`.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// How many times and how long to wait between attempts of one call.
///
/// The delay before retry `n` (0-based) is "equal jitter" backoff: half of
/// `min(max_backoff, base · 2ⁿ)` plus a uniform draw over the other half, so concurrent
/// callers spread out but never retry immediately. A server-given delay (`retry-after-ms` or
/// `Retry-After`) replaces the computed one, capped at `max_retry_after`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = no retry).
    pub max_retries: u32,
    /// Backoff before the first retry (before jitter).
    pub base: Duration,
    /// Upper bound of the computed backoff.
    pub max_backoff: Duration,
    /// Upper bound of a server-requested delay.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 6,
            base: Duration::from_millis(250),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (0-based), given the server's request if any.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(d) = retry_after {
            return d.min(self.max_retry_after);
        }
        let exp = self
            .base
            .saturating_mul(1u32.checked_shl(retry.min(30)).unwrap_or(u32::MAX));
        let cap = exp.min(self.max_backoff);
        let half = cap / 2;
        half + half.mul_f64(rand::random::<f64>())
    }
}

/// The delay a response asks for: `retry-after-ms` (OpenAI's header, milliseconds) first, then
/// `Retry-After` in seconds (fractions accepted). HTTP-date values are ignored (backoff applies).
pub fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    get("retry-after")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_grows_with_jitter_inside_bounds() {
        let p = RetryPolicy {
            base: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        for retry in 0..10 {
            let cap = (100u64 << retry).min(1000);
            let d = p.delay(retry, None).as_millis() as u64;
            assert!(
                d >= cap / 2 && d <= cap,
                "retry {retry}: {d} not in [{}, {cap}]",
                cap / 2
            );
        }
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3600))),
            p.max_retry_after
        );
    }

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(150)));
        let mut d = HeaderMap::new();
        d.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(parse_retry_after(&d), None);
    }
}
