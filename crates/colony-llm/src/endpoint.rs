//! One HTTP endpoint of a model pool: its URL, key, adaptive concurrency limit and health.
//!
//! The concurrency limit ([`AdaptiveLimit`]) and the health record answer different questions:
//! the limit narrows how many requests an *overloaded* endpoint (429/503) gets at once, the
//! health record takes an endpoint that keeps *failing* (any retryable error) out of the
//! round-robin for a cool-down. A 429 feeds both.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::adaptive::AdaptiveLimit;
use super::ApiKey;

/// Consecutive failures after which an endpoint is skipped for a cool-down.
const FAILURES_BEFORE_SKIP: u32 = 3;
/// First cool-down; doubles with each further failure up to [`MAX_COOLDOWN`].
const BASE_COOLDOWN: Duration = Duration::from_millis(500);
/// Longest cool-down.
const MAX_COOLDOWN: Duration = Duration::from_secs(30);

/// Where and how to reach one OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct EndpointSettings {
    /// Base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Key sent as `Authorization: Bearer …`, if the server needs one.
    pub api_key: Option<ApiKey>,
    /// Most requests in flight at once on this endpoint. The effective limit adapts below it:
    /// halved on HTTP 429/503, grown back by one after a window of successes.
    pub max_concurrency: usize,
}

impl EndpointSettings {
    /// An endpoint without key and with a concurrency limit of 64.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            max_concurrency: 64,
        }
    }
}

#[derive(Debug, Default)]
struct Health {
    consecutive_failures: u32,
    skip_until: Option<Instant>,
}

/// A live endpoint: settings plus its adaptive concurrency limit and failure record.
#[derive(Debug)]
pub(crate) struct Endpoint {
    /// The base URL as shown in messages ([`redact_url`]); requests use the URLs below.
    pub(crate) base_url: String,
    pub(crate) completions_url: String,
    pub(crate) models_url: String,
    /// `GET /props` at the server's root (llama-server's properties, its context among them).
    pub(crate) props_url: String,
    pub(crate) embeddings_url: String,
    pub(crate) api_key: Option<ApiKey>,
    /// Every credential configured for this endpoint (the API key, URL userinfo, query
    /// values), removed from whatever the server sends back ([`Endpoint::scrub`]).
    secrets: Vec<String>,
    /// Permits of HTTP attempts (shared with the gauge registry, which holds it weakly).
    pub(crate) permits: Arc<AdaptiveLimit>,
    health: Mutex<Health>,
}

/// `base` with `path` appended to its path, query kept after it: `http://h/v1?k=x` +
/// `chat/completions` → `http://h/v1/chat/completions?k=x` (plain concatenation would put the
/// path inside the query).
pub(crate) fn join_path(base: &str, path: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut url) if !url.cannot_be_a_base() => {
            let segments: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            if let Ok(mut s) = url.path_segments_mut() {
                s.pop_if_empty().extend(segments);
            }
            url.to_string()
        }
        _ => format!("{}/{path}", base.trim_end_matches('/')),
    }
}

/// `base` as it may appear in messages and logs: userinfo replaced by `***` and every query
/// value by `***`, so a credential written into a base URL is never echoed.
pub fn redact_url(base: &str) -> String {
    let Ok(mut url) = reqwest::Url::parse(base) else {
        // Not a URL: cut anything that looks like userinfo or a query.
        let no_query = base.split('?').next().unwrap_or(base);
        return match no_query.split_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => no_query.to_string(),
        };
    };
    if !url.username().is_empty() || url.password().is_some() {
        let _ = url.set_username("***");
        let _ = url.set_password(None);
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, _)| (k.into_owned(), "***".to_string()))
        .collect();
    if !pairs.is_empty() {
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.to_string().trim_end_matches('/').to_string()
}

/// The credentials written into `base` (userinfo and query values), shortest ignored: a
/// one- to three-character value (`?v=1`) is no secret, and masking it would garble replies.
fn url_secrets(base: &str) -> Vec<String> {
    let Ok(url) = reqwest::Url::parse(base) else {
        return Vec::new();
    };
    let mut out = vec![url.username().to_string()];
    out.extend(url.password().map(str::to_string));
    out.extend(url.query_pairs().map(|(_, v)| v.into_owned()));
    out.retain(|s| s.len() >= 4);
    out
}

/// `base` without userinfo. Decision: with an API key configured, the
/// key goes as `Authorization: Bearer` and URL userinfo is not sent (reqwest would add a
/// second, Basic, header from it); without a key, userinfo is sent as Basic authentication.
fn without_userinfo(base: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string().trim_end_matches('/').to_string()
        }
        _ => base.to_string(),
    }
}

/// `path` at the server's root: `base` without a trailing `v1` segment, then `path`
/// (llama-server serves `/props` beside `/v1`, not under it).
pub(crate) fn root_path(base: &str, path: &str) -> String {
    match reqwest::Url::parse(base) {
        Ok(mut url) if !url.cannot_be_a_base() => {
            let trimmed = url.path().trim_end_matches('/');
            let root = trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_string();
            url.set_path(&format!("{root}/{path}"));
            url.to_string()
        }
        _ => join_path(base, path),
    }
}

impl Endpoint {
    pub(crate) fn new(s: EndpointSettings) -> Self {
        let configured = s.base_url.trim_end_matches('/').to_string();
        let base_url = redact_url(&configured);
        let mut secrets = url_secrets(&configured);
        secrets.extend(s.api_key.as_ref().map(|k| k.expose().to_string()));
        let raw = if s.api_key.is_some() {
            without_userinfo(&configured)
        } else {
            configured
        };
        let permits = Arc::new(AdaptiveLimit::new(s.max_concurrency));
        super::gauges::register(&base_url, &permits);
        Self {
            completions_url: join_path(&raw, "chat/completions"),
            models_url: join_path(&raw, "models"),
            props_url: root_path(&raw, "props"),
            embeddings_url: join_path(&raw, "embeddings"),
            base_url,
            api_key: s.api_key,
            secrets,
            permits,
            health: Mutex::new(Health::default()),
        }
    }

    /// `body` with every configured credential replaced by `***`: a
    /// server that echoes the key (in a 401 message, or in a reply) must not put it into
    /// errors, logs, results or call logs. Free when no credential is configured.
    ///
    /// Decision: the raw bytes are scrubbed first, then, when the body has any JSON escape
    /// (a `\`), every string of the decoded JSON too, because an escaped echo (`sk-ab\/cd`,
    /// `\u0073k-…`) only becomes the key after parsing; a body with a changed string is
    /// re-serialized. A body without a backslash cannot hide the key behind an escape, so
    /// replies without escapes (embeddings) are not parsed twice.
    pub(crate) fn scrub(&self, body: bytes::Bytes) -> bytes::Bytes {
        if self.secrets.is_empty() {
            return body;
        }
        let body = self.scrub_raw(body);
        if memchr::memchr(b'\\', &body).is_none() {
            return body;
        }
        let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&body) else {
            return body;
        };
        if !self.scrub_strings(&mut value) {
            return body;
        }
        serde_json::to_vec(&value).map_or(body, bytes::Bytes::from)
    }

    /// Replaces every credential inside the strings (and keys) of `value`; true if any was.
    fn scrub_strings(&self, value: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        let clean = |s: &str| -> Option<String> {
            self.secrets
                .iter()
                .any(|k| s.contains(k.as_str()))
                .then(|| {
                    self.secrets
                        .iter()
                        .fold(s.to_string(), |t, k| t.replace(k.as_str(), "***"))
                })
        };
        match value {
            Value::String(s) => match clean(s) {
                Some(c) => {
                    *s = c;
                    true
                }
                None => false,
            },
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |any, v| self.scrub_strings(v) | any),
            Value::Object(map) => {
                let mut any = false;
                let renamed: Vec<(String, String)> = map
                    .keys()
                    .filter_map(|k| clean(k).map(|c| (k.clone(), c)))
                    .collect();
                for (old, new) in renamed {
                    if let Some(v) = map.remove(&old) {
                        map.insert(new, v);
                        any = true;
                    }
                }
                for v in map.values_mut() {
                    any |= self.scrub_strings(v);
                }
                any
            }
            _ => false,
        }
    }

    /// `body` with every credential's raw bytes replaced by `***`.
    fn scrub_raw(&self, body: bytes::Bytes) -> bytes::Bytes {
        let mut out: Option<Vec<u8>> = None;
        for secret in &self.secrets {
            let text = out.as_deref().unwrap_or(&body);
            let finder = memchr::memmem::Finder::new(secret.as_bytes());
            if finder.find(text).is_none() {
                continue;
            }
            let mut replaced = Vec::with_capacity(text.len());
            let mut rest = text;
            while let Some(i) = finder.find(rest) {
                replaced.extend_from_slice(&rest[..i]);
                replaced.extend_from_slice(b"***");
                rest = &rest[i + secret.len()..];
            }
            replaced.extend_from_slice(rest);
            out = Some(replaced);
        }
        out.map_or(body, bytes::Bytes::from)
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a successful attempt: the endpoint is healthy again.
    pub(crate) fn succeeded(&self) {
        let mut h = self.health();
        h.consecutive_failures = 0;
        h.skip_until = None;
    }

    /// Records a failed attempt (transport error, 429 or 5xx).
    pub(crate) fn failed(&self) {
        let mut h = self.health();
        h.consecutive_failures += 1;
        if h.consecutive_failures >= FAILURES_BEFORE_SKIP {
            let extra = h.consecutive_failures - FAILURES_BEFORE_SKIP;
            let cooldown = BASE_COOLDOWN
                .saturating_mul(1u32 << extra.min(16))
                .min(MAX_COOLDOWN);
            h.skip_until = Some(Instant::now() + cooldown);
        }
    }

    fn skipped_until(&self, now: Instant) -> Option<Instant> {
        self.health().skip_until.filter(|t| *t > now)
    }
}

/// Round-robin over endpoints, skipping those cooling down after repeated failures; when all
/// are cooling down, the one that recovers first is used rather than failing the call.
#[derive(Debug)]
pub(crate) struct EndpointPool {
    endpoints: Vec<Endpoint>,
    next: AtomicUsize,
}

impl EndpointPool {
    pub(crate) fn new(endpoints: Vec<Endpoint>) -> Self {
        Self {
            endpoints,
            next: AtomicUsize::new(0),
        }
    }

    pub(crate) fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The endpoint for the next attempt. The pool is never empty (checked at construction).
    pub(crate) fn pick(&self) -> &Endpoint {
        let n = self.endpoints.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut soonest: Option<(Instant, usize)> = None;
        for k in 0..n {
            let i = (start + k) % n;
            match self.endpoints[i].skipped_until(now) {
                None => return &self.endpoints[i],
                Some(t) => {
                    if soonest.is_none_or(|(s, _)| t < s) {
                        soonest = Some((t, i));
                    }
                }
            }
        }
        &self.endpoints[soonest.map_or(0, |(_, i)| i)]
    }
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn paths_join_before_the_query_and_credentials_are_redacted() {
        assert_eq!(
            join_path("http://h:1/v1?api_key=X", "chat/completions"),
            "http://h:1/v1/chat/completions?api_key=X"
        );
        assert_eq!(join_path("http://h/v1", "models"), "http://h/v1/models");
        assert_eq!(join_path("http://h/v1/", "models"), "http://h/v1/models");
        let shown = redact_url("http://alice:s3cret@h:1/v1?api_key=K123&x=1");
        assert!(!shown.contains("s3cret") && !shown.contains("K123") && !shown.contains("alice"));
        assert!(
            shown.contains("h:1/v1") && shown.contains("api_key=***"),
            "{shown}"
        );
        assert_eq!(redact_url("http://h/v1"), "http://h/v1");
    }

    #[test]
    fn props_are_asked_at_the_servers_root() {
        assert_eq!(root_path("http://h:1/v1", "props"), "http://h:1/props");
        assert_eq!(root_path("http://h:1/v1/", "props"), "http://h:1/props");
        assert_eq!(
            root_path("http://h/api/v1?k=X", "props"),
            "http://h/api/props?k=X"
        );
        assert_eq!(root_path("http://h/llm", "props"), "http://h/llm/props");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> EndpointPool {
        EndpointPool::new(
            (0..n)
                .map(|i| Endpoint::new(EndpointSettings::new(format!("http://e{i}/v1/"))))
                .collect(),
        )
    }

    #[test]
    fn round_robin_skips_a_failing_endpoint() {
        let p = pool(3);
        assert_eq!(
            p.endpoints()[0].completions_url,
            "http://e0/v1/chat/completions"
        );
        for _ in 0..FAILURES_BEFORE_SKIP {
            p.endpoints()[1].failed();
        }
        let picked: Vec<&str> = (0..6).map(|_| p.pick().base_url.as_str()).collect();
        assert!(!picked.contains(&"http://e1/v1"), "{picked:?}");
        assert!(picked.contains(&"http://e0/v1") && picked.contains(&"http://e2/v1"));
        p.endpoints()[1].succeeded();
        let picked: Vec<&str> = (0..3).map(|_| p.pick().base_url.as_str()).collect();
        assert!(picked.contains(&"http://e1/v1"));
    }

    #[test]
    fn all_failing_still_picks_one() {
        let p = pool(2);
        for _ in 0..6 {
            p.endpoints()[0].failed();
        }
        for _ in 0..FAILURES_BEFORE_SKIP {
            p.endpoints()[1].failed();
        }
        // e1 has the shorter cool-down, so it is used while both are cooling down.
        for _ in 0..4 {
            assert_eq!(p.pick().base_url, "http://e1/v1");
        }
    }
}
