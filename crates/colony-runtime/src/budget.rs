//! Run budgets: a cap on model calls and on tokens, enforced atomically across agents.
//!
//! Every model call first reserves a call slot with a compare-and-swap, so with `max_calls = n`
//! exactly `n` calls are made however many asks race for them. Tokens are only known after a
//! call, so the token cap is checked before each call and charged after it: calls already in
//! flight when the cap is crossed complete, and every later call is refused. Both counters only
//! grow, so once a budget is exhausted the run stays stopped and later asks fail fast.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// Limits on a team's (or run's) model calls and tokens; `None` means unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Maximum number of model calls.
    pub max_calls: Option<u64>,
    /// Maximum prompt plus completion tokens (cached replies are free).
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// No limits.
    pub fn unlimited() -> Self {
        Self::default()
    }

    /// At most `n` model calls.
    pub fn calls(n: u64) -> Self {
        Self {
            max_calls: Some(n),
            max_tokens: None,
        }
    }

    /// At most `n` tokens.
    pub fn tokens(n: u64) -> Self {
        Self {
            max_calls: None,
            max_tokens: Some(n),
        }
    }

    /// This budget with a call limit.
    pub fn with_max_calls(mut self, n: u64) -> Self {
        self.max_calls = Some(n);
        self
    }

    /// This budget with a token limit.
    pub fn with_max_tokens(mut self, n: u64) -> Self {
        self.max_tokens = Some(n);
        self
    }
}

/// What a budget has used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetUsage {
    /// Call slots taken (every started model call, failed and abandoned ones included).
    pub calls: u64,
    /// Tokens charged by completed, non-cached calls.
    pub tokens: u64,
}

/// Why a budget refused a call: which limit, its value and what was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// `"calls"` or `"tokens"`.
    pub kind: &'static str,
    /// The configured limit.
    pub limit: u64,
    /// What had been used.
    pub used: u64,
}

/// The live counters of a [`Budget`], shared by every agent of a team (or several teams).
#[derive(Debug, Default)]
pub struct BudgetMeter {
    budget: Budget,
    calls: AtomicU64,
    tokens: AtomicU64,
}

impl BudgetMeter {
    /// Fresh counters for `budget`.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            calls: AtomicU64::new(0),
            tokens: AtomicU64::new(0),
        }
    }

    /// The limits.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// What has been used so far.
    pub fn usage(&self) -> BudgetUsage {
        BudgetUsage {
            calls: self.calls.load(Ordering::Acquire),
            tokens: self.tokens.load(Ordering::Acquire),
        }
    }

    /// Fails if either limit is already reached, without reserving anything.
    pub fn check(&self) -> Result<(), BudgetExceeded> {
        self.check_tokens()?;
        if let Some(limit) = self.budget.max_calls {
            let used = self.calls.load(Ordering::Acquire);
            if used >= limit {
                return Err(BudgetExceeded {
                    kind: "calls",
                    limit,
                    used,
                });
            }
        }
        Ok(())
    }

    /// Takes one call slot, or fails if a limit is reached (atomic: never over-reserves).
    pub fn reserve_call(&self) -> Result<(), BudgetExceeded> {
        self.check_tokens()?;
        let limit = self.budget.max_calls.unwrap_or(u64::MAX);
        self.calls
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                (used < limit).then_some(used + 1)
            })
            .map(|_| ())
            .map_err(|used| BudgetExceeded {
                kind: "calls",
                limit,
                used,
            })
    }

    /// Charges the tokens of a completed call.
    pub fn charge_tokens(&self, tokens: u64) {
        self.tokens.fetch_add(tokens, Ordering::AcqRel);
    }

    fn check_tokens(&self) -> Result<(), BudgetExceeded> {
        if let Some(limit) = self.budget.max_tokens {
            let used = self.tokens.load(Ordering::Acquire);
            if used >= limit {
                return Err(BudgetExceeded {
                    kind: "tokens",
                    limit,
                    used,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_slots_stop_exactly_at_the_limit() {
        let m = BudgetMeter::new(Budget::calls(3));
        for _ in 0..3 {
            m.reserve_call().unwrap();
        }
        assert_eq!(
            m.reserve_call(),
            Err(BudgetExceeded {
                kind: "calls",
                limit: 3,
                used: 3
            })
        );
        assert!(m.check().is_err());
        assert_eq!(m.usage().calls, 3);
    }

    #[test]
    fn tokens_are_charged_after_the_call_and_then_refuse() {
        let m = BudgetMeter::new(Budget::tokens(100));
        m.reserve_call().unwrap();
        m.charge_tokens(150);
        let e = m.reserve_call().unwrap_err();
        assert_eq!((e.kind, e.limit, e.used), ("tokens", 100, 150));
    }

    #[test]
    fn unlimited_never_refuses() {
        let m = BudgetMeter::new(Budget::unlimited());
        for _ in 0..1000 {
            m.reserve_call().unwrap();
        }
        m.check().unwrap();
    }
}
