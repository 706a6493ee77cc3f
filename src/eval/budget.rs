//! [`TokenBudget`]: a cap on the tokens a run spends (`--max-tokens-total`, suite key
//! `max_tokens_total`; issue 26 part 3).
//!
//! Decisions:
//! - **What counts:** prompt plus completion tokens of every item or episode of the run's
//!   output directory, those finished by earlier invocations included (also errored ones: they
//!   were paid for). So a run stopped by its budget and rerun with the same budget starts
//!   nothing, and rerun with a higher one resumes where it stopped.
//! - **When it acts:** before an item or episode starts. Work already in flight finishes and
//!   is kept, so the total may pass the cap by what was in flight; nothing new starts after.
//! - **What it says:** the run stops as a run stopped by a failure does: the summary is
//!   written and marked partial (`stopped`, the banner on every table), and the command exits
//!   with an error naming the budget.
//! - A suite shares one budget across its units, in order.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A token cap shared by the work items of one run (see the module docs).
#[derive(Debug, Default)]
pub struct TokenBudget {
    limit: Option<u64>,
    spent: AtomicU64,
    refused: AtomicBool,
}

impl TokenBudget {
    /// A budget of `limit` tokens (`None`: no cap).
    pub fn new(limit: Option<u64>) -> Arc<Self> {
        Arc::new(Self {
            limit,
            ..Self::default()
        })
    }

    /// No cap.
    pub fn unlimited() -> Arc<Self> {
        Self::new(None)
    }

    /// Adds tokens spent by finished work (this run's, or earlier runs' found on disk).
    pub fn spend(&self, tokens: u64) {
        let _ = self
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(tokens))
            });
    }

    /// Tokens counted so far.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// Whether new work may start; a refusal is remembered for [`TokenBudget::stopped`].
    pub fn may_start(&self) -> bool {
        match self.limit {
            Some(limit) if self.spent() >= limit => {
                self.refused.store(true, Ordering::Relaxed);
                false
            }
            _ => true,
        }
    }

    /// Why the run stopped, when the budget kept some work from starting.
    pub fn stopped(&self) -> Option<String> {
        if !self.refused.load(Ordering::Relaxed) {
            return None;
        }
        let limit = self.limit.unwrap_or(u64::MAX);
        Some(format!(
            "the token budget is spent ({} of {limit} tokens, --max-tokens-total); rerun \
             with a higher budget to resume",
            self.spent()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_starts_until_the_cap_and_the_refusal_is_reported() {
        let b = TokenBudget::new(Some(100));
        assert!(b.may_start());
        b.spend(60);
        assert!(b.may_start() && b.stopped().is_none());
        b.spend(60);
        assert!(!b.may_start());
        let why = b.stopped().unwrap_or_default();
        assert!(why.contains("120 of 100 tokens"), "{why}");
        let free = TokenBudget::unlimited();
        free.spend(u64::MAX);
        free.spend(5);
        assert!(free.may_start() && free.stopped().is_none());
        assert_eq!(free.spent(), u64::MAX);
    }
}
