//! The context a server gives one request, asked from the server when `context_tokens` is not
//! configured.
//!
//! Decisions:
//! - llama-server reports its per-slot context on `GET /props` as
//!   `default_generation_settings.n_ctx`; that is the size one request may use (the
//!   `--ctx-size` it was started with is divided among its parallel slots). `/props` sits at
//!   the server's root, beside `/v1`, so a base URL ending in `/v1` is asked at its parent.
//! - It is asked once per client, on the first call, from every endpoint of the pool; the
//!   smallest answer is the limit (a prompt must fit whichever endpoint serves it).
//! - A server that does not answer (vLLM and hosted APIs have no `/props`), answers an error,
//!   or answers something else gives no limit: prompts are sent as before, and the server's
//!   own answer decides. The question never fails a call.
//! - A configured `context_tokens` (models.toml or `--context-tokens`) wins and nothing is
//!   asked.

use std::time::Duration;

use super::OpenAiClient;

/// Largest `context_tokens` accepted, configured or reported by a server (2^24, far above any
/// served context today). It lives with the client, which reads servers' reports, and
/// `models.toml` checks against it through the client.
pub const MAX_CONTEXT_TOKENS: u64 = 1 << 24;
use crate::endpoint::Endpoint;

/// The origin a context learnt from the server is reported under.
pub const PROPS_ORIGIN: &str = "as the server reports on GET /props";

/// Longest wait for a `/props` answer: the question must not hold up a run against a server
/// that accepts connections and never answers it.
const PROPS_TIMEOUT: Duration = Duration::from_secs(10);

impl OpenAiClient {
    /// The prompt-token capacity prompts are checked against and where it comes from (see
    /// the module docs); `None`: no check.
    pub(super) async fn context_limit(&self) -> Option<(u64, &'static str)> {
        if let Some(n) = self.settings.context_tokens {
            return Some((n, "`context_tokens`"));
        }
        self.server_context
            .get_or_init(|| self.ask_server_context())
            .await
            .map(|n| (n, PROPS_ORIGIN))
    }

    async fn ask_server_context(&self) -> Option<u64> {
        let asks = self.pool.endpoints().iter().map(|ep| self.ask_props(ep));
        let found = futures::future::join_all(asks)
            .await
            .into_iter()
            .flatten()
            .min();
        if let Some(n) = found {
            tracing::info!(
                model = %self.settings.model,
                "the server reports a context of {n} tokens per request (GET /props); longer \
                 prompts are refused before they are sent"
            );
        }
        found
    }

    async fn ask_props(&self, ep: &Endpoint) -> Option<u64> {
        let mut req = self
            .http
            .get(&ep.props_url)
            .timeout(self.settings.request_timeout.min(PROPS_TIMEOUT));
        if let Some(key) = &ep.api_key {
            req = req.bearer_auth(key.expose());
        }
        let resp = req.send().await.ok()?;
        if !resp.status().is_success() {
            tracing::debug!(endpoint = %ep.base_url, status = %resp.status(), "no /props");
            return None;
        }
        let body = self.read_body(ep, resp).await.ok()?;
        context_of_props(&body)
    }
}

/// The per-request context in a `/props` body, when it names one within
/// 1..=[`MAX_CONTEXT_TOKENS`].
pub(crate) fn context_of_props(body: &[u8]) -> Option<u64> {
    let props: serde_json::Value = serde_json::from_slice(body).ok()?;
    props
        .get("default_generation_settings")?
        .get("n_ctx")?
        .as_u64()
        .filter(|n| (1..=MAX_CONTEXT_TOKENS).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_per_slot_context_is_read_and_nonsense_is_ignored() {
        let props = br#"{"total_slots":4,"default_generation_settings":{"n_ctx":4096}}"#;
        assert_eq!(context_of_props(props), Some(4096));
        for bad in [
            &br#"{"default_generation_settings":{"n_ctx":0}}"#[..],
            br#"{"default_generation_settings":{"n_ctx":-5}}"#,
            br#"{"default_generation_settings":{"n_ctx":1e30}}"#,
            br#"{"default_generation_settings":{"n_ctx":99999999999}}"#,
            br#"{"n_ctx":4096}"#,
            b"not json",
        ] {
            assert_eq!(
                context_of_props(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
