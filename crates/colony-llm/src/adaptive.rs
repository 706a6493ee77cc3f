//! Adaptive concurrency of one endpoint: AIMD (additive increase, multiplicative decrease) on
//! top of a tokio [`Semaphore`].
//!
//! Why: `max_concurrency` in `models.toml` is an upper bound chosen before the run; a vLLM
//! replica that is already busy (other users, a long prompt batch) answers 429 or 503 well
//! below it, and retrying at the same width only produces more refusals. The limit therefore
//! starts at the configured maximum, halves when the server signals overload and grows back by
//! one permit after `limit` consecutive successes (one "window" of successes), never below 1 and
//! never above the maximum.
//!
//! Mechanics. The semaphore is created with `max` permits; the *effective* limit is kept equal
//! to `available + held − debt`:
//! - shrinking from `old` to `new` retires `old − new` permits: idle ones at once
//!   ([`Semaphore::forget_permits`]), the rest as *debt*, paid by the next guards that drop
//!   (they forget their permit instead of returning it). Requests already running are never
//!   cancelled; the limit takes effect as they finish;
//! - growing by one pays one unit of debt if there is any, otherwise adds one permit.
//!
//! Each decrease bumps a *generation*, and a guard remembers the generation it was acquired in:
//! only an overload reported by a request started in the current generation halves the limit,
//! so a burst of 429s from requests that were all in flight before the cut halves it once,
//! not once per refused request.
//!
//! Only HTTP 429 and 503 count as overload (see [`is_overload`]): timeouts, dropped connections
//! and other 5xx say nothing reliable about load and are left to retries and the endpoint's
//! health record.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::{AcquireError, Semaphore, SemaphorePermit};

/// True for the HTTP statuses that mean "too many requests right now": 429 and 503.
pub(crate) fn is_overload(status: Option<u16>) -> bool {
    matches!(status, Some(429 | 503))
}

/// The mutable part of an [`AdaptiveLimit`], guarded by one mutex.
#[derive(Debug)]
struct State {
    /// Current effective limit, in `1..=max`.
    limit: usize,
    /// Permits still to retire after a decrease (forgotten as their holders finish).
    debt: usize,
    /// Successes since the last change of the limit (or the last overload).
    successes: usize,
    /// Bumped on every decrease.
    generation: u64,
}

/// A concurrency limit that halves on overload and grows back by one after a window of
/// successes, between 1 and a fixed maximum.
#[derive(Debug)]
pub(crate) struct AdaptiveLimit {
    max: usize,
    permits: Semaphore,
    in_flight: AtomicUsize,
    state: Mutex<State>,
}

/// A point-in-time view of an [`AdaptiveLimit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LimitSnapshot {
    /// Current limit.
    pub(crate) limit: usize,
    /// Configured maximum.
    pub(crate) max: usize,
    /// Guards alive (requests holding a permit).
    pub(crate) in_flight: usize,
}

impl AdaptiveLimit {
    /// A limit starting at, and never exceeding, `max` (at least 1).
    pub(crate) fn new(max: usize) -> Self {
        let max = max.max(1);
        Self {
            max,
            permits: Semaphore::new(max),
            in_flight: AtomicUsize::new(0),
            state: Mutex::new(State {
                limit: max,
                debt: 0,
                successes: 0,
                generation: 0,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a permit. The guard holds it until dropped; report the outcome of the
    /// request on it with [`AdaptivePermit::succeeded`] or [`AdaptivePermit::overloaded`].
    pub(crate) async fn acquire(&self) -> Result<AdaptivePermit<'_>, AcquireError> {
        let permit = self.permits.acquire().await?;
        // Read after the permit is granted: a request admitted after a cut belongs to the new
        // generation, and its 429 may cut again.
        let generation = self.state().generation;
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        Ok(AdaptivePermit {
            limit: self,
            permit: Some(permit),
            generation,
        })
    }

    /// Current limit, maximum and requests in flight.
    pub(crate) fn snapshot(&self) -> LimitSnapshot {
        LimitSnapshot {
            limit: self.state().limit,
            max: self.max,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        }
    }

    /// Overload seen by a request of `generation`: halves the limit unless a request of an
    /// earlier generation already did, and restarts the success window either way.
    fn on_overload(&self, generation: u64) {
        let mut s = self.state();
        s.successes = 0;
        if generation != s.generation {
            return;
        }
        s.generation += 1;
        let old = s.limit;
        let new = (old / 2).max(1);
        if new == old {
            return;
        }
        s.limit = new;
        let retire = old - new;
        let idle = self.permits.forget_permits(retire);
        s.debt += retire - idle;
        tracing::debug!(
            limit = new,
            from = old,
            "endpoint overloaded: concurrency halved"
        );
    }

    /// Success: after `limit` of them in a row the limit grows by one, up to the maximum.
    fn on_success(&self) {
        let mut s = self.state();
        s.successes += 1;
        if s.successes < s.limit {
            return;
        }
        s.successes = 0;
        if s.limit >= self.max {
            return;
        }
        s.limit += 1;
        if s.debt > 0 {
            s.debt -= 1;
        } else {
            self.permits.add_permits(1);
        }
    }

    /// A guard ends: its permit pays one unit of debt or goes back to the semaphore. Decided
    /// under the state lock so a concurrent decrease sees a consistent count.
    fn release(&self, permit: SemaphorePermit<'_>) {
        let mut s = self.state();
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        if s.debt > 0 {
            s.debt -= 1;
            permit.forget();
        } else {
            drop(permit);
        }
    }
}

/// One permit of an [`AdaptiveLimit`], held for the duration of one HTTP attempt.
#[derive(Debug)]
pub(crate) struct AdaptivePermit<'a> {
    limit: &'a AdaptiveLimit,
    permit: Option<SemaphorePermit<'a>>,
    generation: u64,
}

impl AdaptivePermit<'_> {
    /// The request succeeded.
    pub(crate) fn succeeded(&self) {
        self.limit.on_success();
    }

    /// The server signalled overload (429 or 503).
    pub(crate) fn overloaded(&self) {
        self.limit.on_overload(self.generation);
    }
}

impl Drop for AdaptivePermit<'_> {
    fn drop(&mut self) {
        if let Some(permit) = self.permit.take() {
            self.limit.release(permit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit_of(l: &AdaptiveLimit) -> usize {
        l.snapshot().limit
    }

    #[tokio::test]
    async fn a_burst_of_overloads_halves_once_per_generation() {
        let l = AdaptiveLimit::new(16);
        let guards: Vec<_> = futures::future::join_all((0..4).map(|_| l.acquire()))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(l.snapshot().in_flight, 4);
        for g in &guards {
            g.overloaded();
        }
        assert_eq!(limit_of(&l), 8, "four 429s of one generation halve once");
        // 12 idle permits, 8 of them retired at once: 4 left.
        assert_eq!((l.permits.available_permits(), l.state().debt), (4, 0));
        // A request admitted after the cut belongs to the new generation and may cut again:
        // 3 idle permits retired, the fourth is debt.
        let late = l.acquire().await.unwrap();
        late.overloaded();
        assert_eq!(limit_of(&l), 4);
        assert_eq!((l.permits.available_permits(), l.state().debt), (0, 1));
        drop(late);
        assert_eq!(l.state().debt, 0, "the late guard paid the debt");
        drop(guards);
        assert_eq!(l.snapshot().in_flight, 0);
        assert_eq!(l.permits.available_permits(), 4);
    }

    #[tokio::test]
    async fn the_limit_never_drops_below_one() {
        let l = AdaptiveLimit::new(3);
        for _ in 0..10 {
            let g = l.acquire().await.unwrap();
            g.overloaded();
        }
        assert_eq!(limit_of(&l), 1);
        assert_eq!(l.permits.available_permits(), 1);
        let g = l.acquire().await.unwrap();
        assert!(l.permits.try_acquire().is_err(), "a second permit exists");
        drop(g);
        assert_eq!(AdaptiveLimit::new(0).snapshot().max, 1);
    }

    #[tokio::test]
    async fn successes_grow_the_limit_back_to_the_maximum_and_no_further() {
        let l = AdaptiveLimit::new(8);
        let g = l.acquire().await.unwrap();
        g.overloaded();
        drop(g);
        let g = l.acquire().await.unwrap();
        g.overloaded();
        drop(g);
        assert_eq!(limit_of(&l), 2);
        // Two successes at limit 2 → 3; three more → 4.
        for _ in 0..2 {
            l.acquire().await.unwrap().succeeded();
        }
        assert_eq!(limit_of(&l), 3);
        for _ in 0..2 {
            l.acquire().await.unwrap().succeeded();
        }
        assert_eq!(limit_of(&l), 3, "growth needs a full window of successes");
        l.acquire().await.unwrap().succeeded();
        assert_eq!(limit_of(&l), 4);
        for _ in 0..1000 {
            l.acquire().await.unwrap().succeeded();
        }
        assert_eq!(limit_of(&l), 8);
        assert_eq!(l.permits.available_permits(), 8, "never above the maximum");
    }

    #[tokio::test]
    async fn an_overload_restarts_the_success_window() {
        let l = AdaptiveLimit::new(4);
        l.acquire().await.unwrap().overloaded();
        assert_eq!(limit_of(&l), 2);
        l.acquire().await.unwrap().succeeded();
        // A stale generation does not cut again but still breaks the run of successes.
        let stale = AdaptivePermit {
            limit: &l,
            permit: None,
            generation: 0,
        };
        stale.overloaded();
        assert_eq!(limit_of(&l), 2);
        l.acquire().await.unwrap().succeeded();
        assert_eq!(limit_of(&l), 2);
        l.acquire().await.unwrap().succeeded();
        assert_eq!(limit_of(&l), 3);
    }

    #[tokio::test]
    async fn debt_is_paid_by_guards_that_finish() {
        let l = AdaptiveLimit::new(8);
        let mut held: Vec<_> = futures::future::join_all((0..8).map(|_| l.acquire()))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(l.permits.available_permits(), 0);
        held[0].overloaded();
        // No idle permit to forget: all four retired permits are debt.
        assert_eq!(l.state().debt, 4);
        held.truncate(3);
        assert_eq!(l.state().debt, 0);
        assert_eq!(l.permits.available_permits(), 1, "5 returned, 4 forgotten");
        drop(held);
        assert_eq!(l.permits.available_permits(), 4);
        // Growth while in debt pays the debt instead of adding a permit.
        let all: Vec<_> = futures::future::join_all((0..4).map(|_| l.acquire()))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        all[0].overloaded();
        assert_eq!((limit_of(&l), l.state().debt), (2, 2));
        for g in &all {
            g.succeeded();
        }
        assert_eq!((limit_of(&l), l.state().debt), (3, 1));
        drop(all);
        assert_eq!(l.permits.available_permits(), 3);
        assert_eq!(l.snapshot().in_flight, 0);
    }

    #[tokio::test]
    async fn waiters_are_admitted_only_within_the_new_limit() {
        let l = AdaptiveLimit::new(4);
        let held: Vec<_> = futures::future::join_all((0..4).map(|_| l.acquire()))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        held[0].overloaded();
        drop(held);
        let a = l.acquire().await.unwrap();
        let b = l.acquire().await.unwrap();
        assert!(l.permits.try_acquire().is_err(), "limit 2 admitted a third");
        assert_eq!(l.snapshot().in_flight, 2);
        drop((a, b));
    }
}
