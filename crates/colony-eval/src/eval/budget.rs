//! [`RunBudget`]: caps on the tokens and the dollars a run spends (`--max-tokens-total`,
//! `--max-cost`; suite keys `max_tokens_total`, `max_cost`).
//!
//! Decisions:
//! - **What counts:** prompt plus completion tokens, and the cost at the models' prices, of
//!   every item or episode of the run's output directory, those finished by earlier
//!   invocations included (also errored ones: they were paid for). So a run stopped by its
//!   budget and rerun with the same budget starts nothing, and rerun with a higher one
//!   resumes where it stopped.
//! - **When it acts:** before an item or episode starts. Work already in flight finishes and
//!   is kept, so the total may pass the cap by what was in flight; nothing new starts after.
//! - **What it says:** the run stops as a run stopped by a failure does: the summary is
//!   written and marked partial (`stopped`, the banner on every table), and the command exits
//!   with an error naming the budget.
//! - **A cost cap without prices** cannot be kept: the run is refused before it starts (see
//!   [`RunBudget::check_priced`]), instead of running unbounded.
//! - A suite shares one budget across its units, in order.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Caps on tokens and dollars shared by the work items of one run (see the module docs).
#[derive(Debug, Default)]
pub struct RunBudget {
    limit: Option<u64>,
    spent: AtomicU64,
    cost_limit_usd: Option<f64>,
    /// Dollars spent, as nano-dollars (an integer, so concurrent adds are exact).
    spent_nusd: AtomicU64,
    refused: AtomicBool,
}

/// A `--max-cost` given for models without prices.
#[derive(Debug, Clone, thiserror::Error)]
#[error("--max-cost {limit} (or the suite's max_cost) needs prices: model {model} has none; add price.prompt_per_mtok and price.completion_per_mtok to its models.toml entry")]
pub struct UnpricedBudget {
    /// The cap, in US dollars.
    pub limit: f64,
    /// The model without a price.
    pub model: String,
}

impl RunBudget {
    /// A budget of `limit` tokens (`None`: no cap).
    pub fn new(limit: Option<u64>) -> Arc<Self> {
        Self::with_cost(limit, None)
    }

    /// A budget of `tokens` tokens and `cost_usd` dollars (`None`: no cap on that).
    pub fn with_cost(tokens: Option<u64>, cost_usd: Option<f64>) -> Arc<Self> {
        Arc::new(Self {
            limit: tokens,
            cost_limit_usd: cost_usd,
            ..Self::default()
        })
    }

    /// No cap.
    pub fn unlimited() -> Arc<Self> {
        Self::new(None)
    }

    /// Refuses a cost cap when one of the run's models (`(name, priced)`) has no price.
    pub fn check_priced<'a>(
        &self,
        models: impl IntoIterator<Item = (&'a str, bool)>,
    ) -> Result<(), UnpricedBudget> {
        let Some(limit) = self.cost_limit_usd else {
            return Ok(());
        };
        match models.into_iter().find(|(_, priced)| !priced) {
            Some((model, _)) => Err(UnpricedBudget {
                limit,
                model: model.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Adds tokens spent by finished work (this run's, or earlier runs' found on disk).
    pub fn spend(&self, tokens: u64) {
        let _ = self
            .spent
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(tokens))
            });
    }

    /// Adds the cost of finished work, when known.
    pub fn spend_cost(&self, usd: Option<f64>) {
        let Some(usd) = usd.filter(|c| c.is_finite() && *c > 0.0) else {
            return;
        };
        let nusd = (usd * 1e9).round().min(u64::MAX as f64) as u64;
        let _ = self
            .spent_nusd
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                Some(s.saturating_add(nusd))
            });
    }

    /// Tokens counted so far.
    pub fn spent(&self) -> u64 {
        self.spent.load(Ordering::Relaxed)
    }

    /// Dollars counted so far.
    pub fn spent_usd(&self) -> f64 {
        colony_llm::usd(self.spent_nusd.load(Ordering::Relaxed))
    }

    fn tokens_spent(&self) -> bool {
        self.limit.is_some_and(|limit| self.spent() >= limit)
    }

    fn cost_spent(&self) -> bool {
        self.cost_limit_usd
            .is_some_and(|limit| self.spent_usd() >= limit)
    }

    /// Whether new work may start; a refusal is remembered for [`RunBudget::stopped`].
    pub fn may_start(&self) -> bool {
        if self.tokens_spent() || self.cost_spent() {
            self.refused.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Why the run stopped, when the budget kept some work from starting.
    pub fn stopped(&self) -> Option<String> {
        if !self.refused.load(Ordering::Relaxed) {
            return None;
        }
        if self.cost_spent() {
            let limit = self.cost_limit_usd.unwrap_or(f64::INFINITY);
            return Some(format!(
                "the cost budget is spent (${:.4} of ${limit}, --max-cost); rerun with a higher \
                 budget to resume",
                self.spent_usd()
            ));
        }
        let limit = self.limit.unwrap_or(u64::MAX);
        Some(format!(
            "the token budget is spent ({} of {limit} tokens, --max-tokens-total); rerun \
             with a higher budget to resume",
            self.spent()
        ))
    }
}

/// Parses a `--max-cost` value: a finite, non-negative number of US dollars.
pub fn parse_max_cost(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "{s:?} is not a cost: give a non-negative number of US dollars, such as 2.50"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_starts_until_the_cap_and_the_refusal_is_reported() {
        let b = RunBudget::new(Some(100));
        assert!(b.may_start());
        b.spend(60);
        assert!(b.may_start() && b.stopped().is_none());
        b.spend(60);
        assert!(!b.may_start());
        let why = b.stopped().unwrap_or_default();
        assert!(why.contains("120 of 100 tokens"), "{why}");
        let free = RunBudget::unlimited();
        free.spend(u64::MAX);
        free.spend(5);
        assert!(free.may_start() && free.stopped().is_none());
        assert_eq!(free.spent(), u64::MAX);
    }

    #[test]
    fn a_cost_cap_stops_new_work_and_needs_prices() {
        let b = RunBudget::with_cost(None, Some(0.5));
        b.spend_cost(Some(0.3));
        b.spend_cost(None);
        assert!(b.may_start());
        b.spend_cost(Some(0.25));
        assert!(!b.may_start());
        let why = b.stopped().unwrap_or_default();
        assert!(why.contains("$0.5500 of $0.5, --max-cost"), "{why}");
        assert!(b.check_priced([("a", true)]).is_ok());
        let e = b.check_priced([("a", true), ("b", false)]);
        assert!(e.is_err_and(|e| e.to_string().contains("model b has none")));
        assert!(RunBudget::unlimited().check_priced([("b", false)]).is_ok());
        assert_eq!(parse_max_cost("$2.5"), Ok(2.5));
        assert!(parse_max_cost("-1").is_err() && parse_max_cost("inf").is_err());
    }
}
