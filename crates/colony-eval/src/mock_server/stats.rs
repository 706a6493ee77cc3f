//! Server-side counters of the mock server: requests, successes, tokens served, concurrency and
//! injected faults.
//!
//! Why server-side: tests check what a client really did (how many calls it made, how many ran
//! at once, whether its token accounting matches what it was served) without trusting the
//! client's own bookkeeping. Counters are lock-free atomics; a [`MockStats`] is a snapshot,
//! also served as JSON at `GET /v1/mock/stats`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use colony_llm::Usage;

/// A snapshot of the mock server's counters (the JSON of `GET /v1/mock/stats`).
///
/// "Requests" are chat-completion and embeddings requests; `/v1/models` and the `/v1/mock/*`
/// endpoints are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MockStats {
    /// Chat and embeddings requests received (valid or not).
    pub requests: u64,
    /// Chat-completion requests received.
    pub chat_requests: u64,
    /// Embeddings requests received.
    pub embedding_requests: u64,
    /// Requests answered with a well-formed 200 (streams included).
    pub completed_ok: u64,
    /// Prompt tokens in the usage of successful chat completions (streams included, whether or
    /// not the client asked for the usage chunk).
    pub prompt_tokens: u64,
    /// Completion tokens in the usage of successful chat completions (streams included).
    pub completion_tokens: u64,
    /// Prompt tokens in the usage of successful embeddings responses (kept apart from chat).
    pub embedding_tokens: u64,
    /// Requests being handled right now (injected latency and stalls included).
    pub in_flight: u64,
    /// The highest `in_flight` seen since start or the last reset.
    pub max_in_flight: u64,
    /// Injected HTTP 429 answers.
    pub rate_limited: u64,
    /// Injected HTTP 500 answers.
    pub server_errors: u64,
    /// Connections dropped without an answer.
    pub drops: u64,
    /// Requests stalled.
    pub stalls: u64,
    /// 200 answers with a malformed body.
    pub malformed: u64,
    /// Requests refused with a 4xx (bad JSON, missing key, unknown model, …).
    pub client_errors: u64,
    /// Requests the backing model or embedder failed to answer (HTTP 500, not injected).
    pub model_errors: u64,
    /// Chat requests none of whose user messages holds a question of the answer key, when
    /// the server has one (`serve-mock --answer-key`), among the first 256 chat requests: a
    /// run on another dataset than the key's, which the simulated model can only answer
    /// generically (0% accuracy).
    #[serde(default)]
    pub unkeyed_requests: u64,
}

/// Live counters shared by the handlers.
#[derive(Debug, Default)]
pub(crate) struct StatsCounters {
    pub(crate) requests: AtomicU64,
    pub(crate) chat_requests: AtomicU64,
    pub(crate) embedding_requests: AtomicU64,
    pub(crate) completed_ok: AtomicU64,
    pub(crate) prompt_tokens: AtomicU64,
    pub(crate) completion_tokens: AtomicU64,
    pub(crate) embedding_tokens: AtomicU64,
    pub(crate) in_flight: AtomicU64,
    pub(crate) max_in_flight: AtomicU64,
    pub(crate) rate_limited: AtomicU64,
    pub(crate) server_errors: AtomicU64,
    pub(crate) drops: AtomicU64,
    pub(crate) stalls: AtomicU64,
    pub(crate) malformed: AtomicU64,
    pub(crate) client_errors: AtomicU64,
    pub(crate) model_errors: AtomicU64,
    pub(crate) unkeyed_requests: AtomicU64,
    /// Sequence number of the next faultable request (reset with the counters, so a reset
    /// replays the seed's fault sequence from the start).
    pub(crate) fault_seq: AtomicU64,
}

/// Increments a counter by one.
pub(crate) fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl StatsCounters {
    /// A consistent-enough snapshot (each counter is read atomically).
    pub(crate) fn snapshot(&self) -> MockStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        MockStats {
            requests: get(&self.requests),
            chat_requests: get(&self.chat_requests),
            embedding_requests: get(&self.embedding_requests),
            completed_ok: get(&self.completed_ok),
            prompt_tokens: get(&self.prompt_tokens),
            completion_tokens: get(&self.completion_tokens),
            embedding_tokens: get(&self.embedding_tokens),
            in_flight: get(&self.in_flight),
            max_in_flight: get(&self.max_in_flight),
            rate_limited: get(&self.rate_limited),
            server_errors: get(&self.server_errors),
            drops: get(&self.drops),
            stalls: get(&self.stalls),
            malformed: get(&self.malformed),
            client_errors: get(&self.client_errors),
            model_errors: get(&self.model_errors),
            unkeyed_requests: get(&self.unkeyed_requests),
        }
    }

    /// Zeroes every counter except `in_flight` (requests still running stay counted, and
    /// `max_in_flight` restarts from them).
    pub(crate) fn reset(&self) {
        for c in [
            &self.requests,
            &self.chat_requests,
            &self.embedding_requests,
            &self.completed_ok,
            &self.prompt_tokens,
            &self.completion_tokens,
            &self.embedding_tokens,
            &self.rate_limited,
            &self.server_errors,
            &self.drops,
            &self.stalls,
            &self.malformed,
            &self.client_errors,
            &self.model_errors,
            &self.unkeyed_requests,
            &self.fault_seq,
        ] {
            c.store(0, Ordering::Relaxed);
        }
        self.max_in_flight
            .store(self.in_flight.load(Ordering::SeqCst), Ordering::SeqCst);
    }

    /// Records a successful chat completion and the usage it returned.
    pub(crate) fn record_chat_ok(&self, usage: Usage) {
        self.prompt_tokens
            .fetch_add(usage.prompt_tokens, Ordering::Relaxed);
        self.completion_tokens
            .fetch_add(usage.completion_tokens, Ordering::Relaxed);
        bump(&self.completed_ok);
    }

    /// Records a successful embeddings response.
    pub(crate) fn record_embeddings_ok(&self, prompt_tokens: u64) {
        self.embedding_tokens
            .fetch_add(prompt_tokens, Ordering::Relaxed);
        bump(&self.completed_ok);
    }

    /// Marks one request in flight until the guard is dropped (also when the handler future is
    /// dropped mid-way, e.g. on a dropped connection or at shutdown).
    pub(crate) fn enter(&self) -> InFlightGuard<'_> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlightGuard { counters: self }
    }
}

/// Decrements `in_flight` on drop.
pub(crate) struct InFlightGuard<'a> {
    counters: &'a StatsCounters,
}

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.counters.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_flight_tracks_guards_and_reset_keeps_running_requests() {
        let c = StatsCounters::default();
        let a = c.enter();
        let b = c.enter();
        assert_eq!(c.snapshot().in_flight, 2);
        drop(a);
        assert_eq!(c.snapshot().in_flight, 1);
        assert_eq!(c.snapshot().max_in_flight, 2);
        c.record_chat_ok(Usage {
            prompt_tokens: 3,
            completion_tokens: 4,
            ..Usage::default()
        });
        c.reset();
        let s = c.snapshot();
        assert_eq!(
            (
                s.in_flight,
                s.max_in_flight,
                s.prompt_tokens,
                s.completed_ok
            ),
            (1, 1, 0, 0)
        );
        drop(b);
        assert_eq!(c.snapshot().in_flight, 0);
    }
}
