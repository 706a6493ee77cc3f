//! Model prices and the [`PricedModel`] that prices each call.
//!
//! Decisions:
//! - A price is per million tokens, in US dollars, per model (`models.toml`:
//!   `price.prompt_per_mtok`, `price.completion_per_mtok`, `price.cached_per_mtok`).
//! - Each call is priced by the model that answered it, as it returns: a run whose agents use
//!   several models (heterogeneous teams, `--models`) costs what each call cost. The cost
//!   rides in [`Usage::cost_nusd`] (integer nano-dollars, so sums are exact and the same in
//!   any order), so every place that sums usage sums cost too.
//! - Prompt tokens the server says it served from its cache
//!   (`usage.prompt_tokens_details.cached_tokens`) cost `cached_per_mtok` when given, else
//!   the prompt price.
//! - Pricing wraps the model outside record/replay: a replayed run is priced with today's
//!   prices, like the recorded one, and changing a price needs no new recording.
//! - Without a price, a call's cost is unknown (`None`), not zero: results then have no cost
//!   column.

use async_trait::async_trait;
use serde::Deserialize;

use super::{ChatModel, ChatRequest, ChatResponse, ModelError, SharedModel, Usage};

/// Most dollars per million tokens accepted (far above any price today).
pub const MAX_PRICE_PER_MTOK: f64 = 100_000.0;

/// A model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Prompt tokens.
    pub prompt_per_mtok: f64,
    /// Completion tokens.
    pub completion_per_mtok: f64,
    /// Prompt tokens served from the server's cache; the prompt price when absent.
    #[serde(default)]
    pub cached_per_mtok: Option<f64>,
}

impl Price {
    /// Checks every price is a finite number in 0..=[`MAX_PRICE_PER_MTOK`]; the error names
    /// the key.
    pub fn check(&self, model: &str) -> Result<(), ModelError> {
        let keys = [
            ("prompt_per_mtok", Some(self.prompt_per_mtok)),
            ("completion_per_mtok", Some(self.completion_per_mtok)),
            ("cached_per_mtok", self.cached_per_mtok),
        ];
        for (key, value) in keys {
            if let Some(v) = value {
                if !(v.is_finite() && (0.0..=MAX_PRICE_PER_MTOK).contains(&v)) {
                    return Err(ModelError::Config(format!(
                        "model {model}: price.{key} must be 0..={MAX_PRICE_PER_MTOK} dollars per \
                         million tokens, got {v}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The cost of `usage`, in nano-dollars (rounded to the nearest).
    pub fn cost_nusd(&self, usage: &Usage) -> u64 {
        let cached = usage.cached_prompt_tokens.min(usage.prompt_tokens);
        let fresh = usage.prompt_tokens - cached;
        // Dollars per million tokens = nano-dollars per thousandth of a token: n·p/1000.
        let nusd = (fresh as f64 * self.prompt_per_mtok
            + cached as f64 * self.cached_per_mtok.unwrap_or(self.prompt_per_mtok)
            + usage.completion_tokens as f64 * self.completion_per_mtok)
            * 1e3;
        nusd.round().clamp(0.0, u64::MAX as f64) as u64
    }
}

/// Nano-dollars as dollars.
pub fn usd(nusd: u64) -> f64 {
    nusd as f64 / 1e9
}

/// A model whose every answer carries its cost at `price` (see the module docs).
pub struct PricedModel {
    inner: SharedModel,
    price: Price,
}

impl std::fmt::Debug for PricedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PricedModel")
            .field("model", &self.inner.id())
            .field("price", &self.price)
            .finish()
    }
}

impl PricedModel {
    /// `inner`, priced at `price`.
    pub fn new(inner: SharedModel, price: Price) -> Self {
        Self { inner, price }
    }
}

#[async_trait]
impl ChatModel for PricedModel {
    fn id(&self) -> &str {
        self.inner.id()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let mut r = self.inner.chat(request).await?;
        r.usage.cost_nusd = Some(self.price.cost_nusd(&r.usage));
        Ok(r)
    }

    fn simulated(&self) -> bool {
        self.inner.simulated()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_prompt_tokens_cost_their_own_price() {
        let p = Price {
            prompt_per_mtok: 0.15,
            completion_per_mtok: 0.60,
            cached_per_mtok: Some(0.075),
        };
        let u = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            cached_prompt_tokens: 400_000,
            ..Usage::default()
        };
        // 600k fresh at 0.15 + 400k cached at 0.075 + 500k at 0.60 = 0.09 + 0.03 + 0.30.
        assert_eq!(p.cost_nusd(&u), 420_000_000);
        let no_cached_price = Price {
            cached_per_mtok: None,
            ..p
        };
        assert_eq!(no_cached_price.cost_nusd(&u), 450_000_000);
        assert!(Price {
            prompt_per_mtok: -1.0,
            ..p
        }
        .check("m")
        .is_err_and(|e| e.to_string().contains("price.prompt_per_mtok")));
        assert!(p.check("m").is_ok());
    }
}
