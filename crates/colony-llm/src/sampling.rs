//! [`Sampling`]: the generation settings of a model call (temperature, top-p, completion-token
//! limit, seed, stop sequences), declared once and layered.
//!
//! Every place that can set them holds a `Sampling` in which an unset field means "no opinion":
//! a [`ChatRequest`](super::ChatRequest), an `AskOptions` (colony's runtime), a
//! `RoleCard` (colony's runtime), a `models.toml` entry
//! ([`ModelSpec::sampling`](super::ModelSpec::sampling)), the command-line flags and a
//! policy's built-in defaults. [`Sampling::or`] lays one over another, field by field, so the
//! effective settings of a call read as one expression:
//!
//! ```
//! # use colony_llm::Sampling;
//! # let (ask, role, flags_over_model, builtin) = (Sampling::default(), Sampling::default(),
//! #     Sampling::default(), Sampling::default());
//! let effective = ask.or(&role).or(&flags_over_model).or(&builtin);
//! ```
//!
//! # Precedence (one rule, everywhere)
//!
//! From strongest to weakest:
//!
//! 1. **per-call options** of a policy (`AskOptions` (colony's runtime): the
//!    per-item seed, and any setting a policy's method needs for one call);
//! 2. **the role card** (`temperature`, `top_p`, `max_tokens` in `roles/*.toml`): a deliberate
//!    per-role choice;
//! 3. **the command-line flags** `--temperature`, `--top-p`, `--max-tokens`: this run's choice;
//! 4. **the `models.toml` entry** of the agent's model (the same three keys): the model's usual
//!    settings;
//! 5. **the built-in default** of the command (`colony eval`: the MASLab protocol's temperature
//!    0.5 and 2,048 tokens; `colony compare`: 1,024 tokens; `colony chat`: none); a field
//!    still unset after all layers is not sent, and the server's default applies.
//!
//! Values are checked by [`Sampling::validate`]: temperature in [0, 2], top-p in (0, 1],
//! `max_tokens` from 1 to [`MAX_TOKENS_LIMIT`]; errors name the flag or key.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest `max_tokens` accepted (2^20 = 1,048,576), above every served context window; a
/// larger value is a typo, not a setting.
pub const MAX_TOKENS_LIMIT: u32 = 1 << 20;

/// Generation settings of a model call; an unset field leaves the decision to the next layer
/// (see the module docs for the precedence).
///
/// The serialized form is flat, with the OpenAI API's names (`temperature`, `top_p`,
/// `max_tokens`, `seed`, `stop`), unset fields omitted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sampling {
    /// Sampling temperature, in [0, 2].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Nucleus sampling mass, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Upper bound on completion tokens, from 1 to [`MAX_TOKENS_LIMIT`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling seed forwarded to servers that support it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Stop sequences (empty: unset).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
}

/// How [`Sampling::validate`] names a field in its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingKeys {
    /// Command-line flags: `--temperature`, `--top-p`, `--max-tokens`.
    Flags,
    /// Configuration keys (role cards, `models.toml`): `` `temperature` ``, `` `top_p` ``,
    /// `` `max_tokens` ``.
    Keys,
}

impl SamplingKeys {
    fn name(self, key: &'static str) -> String {
        match self {
            Self::Flags => format!("--{}", key.replace('_', "-")),
            Self::Keys => format!("`{key}`"),
        }
    }
}

/// A generation setting outside its range.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{name} must be {expected}, got {value}")]
pub struct SamplingError {
    /// The flag or key, as the user wrote it (`--top-p`, `` `top_p` ``).
    pub name: String,
    /// The allowed range, in words (`in [0, 2]`).
    pub expected: String,
    /// The value given.
    pub value: String,
}

impl Sampling {
    /// These settings, with every unset field taken from `fallback` (`self` wins where both
    /// are set; an empty `stop` is unset).
    pub fn or(&self, fallback: &Sampling) -> Sampling {
        Sampling {
            temperature: self.temperature.or(fallback.temperature),
            top_p: self.top_p.or(fallback.top_p),
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            seed: self.seed.or(fallback.seed),
            stop: if self.stop.is_empty() {
                fallback.stop.clone()
            } else {
                self.stop.clone()
            },
        }
    }

    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        *self == Sampling::default()
    }

    /// Checks the ranges: temperature in [0, 2], top-p in (0, 1], `max_tokens` from 1 to
    /// [`MAX_TOKENS_LIMIT`] (NaN is never in range); the error names the field as `keys` says.
    pub fn validate(&self, keys: SamplingKeys) -> Result<(), SamplingError> {
        let err = |key, expected: &str, value: String| SamplingError {
            name: keys.name(key),
            expected: expected.to_string(),
            value,
        };
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(err("temperature", "in [0, 2]", t.to_string()));
            }
        }
        if let Some(p) = self.top_p {
            if !(p > 0.0 && p <= 1.0) {
                return Err(err("top_p", "in (0, 1]", p.to_string()));
            }
        }
        if let Some(n) = self.max_tokens {
            if !(1..=MAX_TOKENS_LIMIT).contains(&n) {
                let expected = format!("from 1 to {MAX_TOKENS_LIMIT}");
                return Err(err("max_tokens", &expected, n.to_string()));
            }
        }
        Ok(())
    }
}

/// The builder setters of a type that carries a [`Sampling`] in field `$field`: one definition
/// for [`ChatRequest`](super::ChatRequest) and `AskOptions` (colony's runtime), so
/// the two builders cannot drift apart.
#[doc(hidden)]
#[macro_export]
macro_rules! sampling_setters {
    ($field:ident) => {
        /// Sets every sampling field at once.
        pub fn with_sampling(mut self, sampling: $crate::Sampling) -> Self {
            self.$field = sampling;
            self
        }

        /// Sets the temperature.
        pub fn temperature(mut self, t: f32) -> Self {
            self.$field.temperature = Some(t);
            self
        }

        /// Sets top-p.
        pub fn top_p(mut self, p: f32) -> Self {
            self.$field.top_p = Some(p);
            self
        }

        /// Sets the completion-token limit.
        pub fn max_tokens(mut self, n: u32) -> Self {
            self.$field.max_tokens = Some(n);
            self
        }

        /// Sets the sampling seed.
        pub fn seed(mut self, seed: u64) -> Self {
            self.$field.seed = Some(seed);
            self
        }

        /// Sets the stop sequences.
        pub fn stop(mut self, stop: Vec<String>) -> Self {
            self.$field.stop = stop;
            self
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: Option<f32>, p: Option<f32>, n: Option<u32>) -> Sampling {
        Sampling {
            temperature: t,
            top_p: p,
            max_tokens: n,
            ..Sampling::default()
        }
    }

    #[test]
    fn layers_resolve_field_by_field_strongest_first() {
        let ask = Sampling {
            seed: Some(7),
            ..Sampling::default()
        };
        let role = s(Some(0.2), None, None);
        let flags = s(Some(0.9), None, Some(17));
        let model = s(Some(1.0), Some(0.8), Some(256));
        let builtin = s(Some(0.5), None, Some(2048));
        let flags_over_model = flags.or(&model);
        let got = ask.or(&role).or(&flags_over_model).or(&builtin);
        // Role beats flag (temperature), flag beats models.toml (max_tokens), models.toml
        // fills what the flags left (top_p), the per-call seed survives.
        assert_eq!(got.temperature, Some(0.2));
        assert_eq!(got.max_tokens, Some(17));
        assert_eq!(got.top_p, Some(0.8));
        assert_eq!(got.seed, Some(7));
        // Nothing set anywhere above: the built-in default.
        let got = Sampling::default().or(&Sampling::default()).or(&builtin);
        assert_eq!(got, builtin);
        // Nothing anywhere: unset (the server's default).
        assert!(Sampling::default().or(&Sampling::default()).is_empty());
    }

    #[test]
    fn stop_sequences_are_unset_when_empty() {
        let a = Sampling {
            stop: vec!["\n".into()],
            ..Sampling::default()
        };
        assert_eq!(Sampling::default().or(&a).stop, ["\n"]);
        let b = Sampling {
            stop: vec!["END".into()],
            ..Sampling::default()
        };
        assert_eq!(b.or(&a).stop, ["END"]);
    }

    #[test]
    fn ranges_are_checked_and_errors_name_the_flag_or_key() {
        assert!(s(Some(0.0), Some(1.0), Some(1))
            .validate(SamplingKeys::Flags)
            .is_ok());
        assert!(s(Some(2.0), Some(0.01), Some(MAX_TOKENS_LIMIT))
            .validate(SamplingKeys::Keys)
            .is_ok());
        let e = |x: Sampling, k| x.validate(k).unwrap_err().to_string();
        assert_eq!(
            e(s(Some(2.5), None, None), SamplingKeys::Flags),
            "--temperature must be in [0, 2], got 2.5"
        );
        assert_eq!(
            e(s(Some(f32::NAN), None, None), SamplingKeys::Keys),
            "`temperature` must be in [0, 2], got NaN"
        );
        assert_eq!(
            e(s(None, Some(0.0), None), SamplingKeys::Flags),
            "--top-p must be in (0, 1], got 0"
        );
        assert_eq!(
            e(s(None, Some(1.5), None), SamplingKeys::Keys),
            "`top_p` must be in (0, 1], got 1.5"
        );
        assert_eq!(
            e(s(None, None, Some(0)), SamplingKeys::Flags),
            "--max-tokens must be from 1 to 1048576, got 0"
        );
        assert!(e(
            s(None, None, Some(MAX_TOKENS_LIMIT + 1)),
            SamplingKeys::Keys
        )
        .starts_with("`max_tokens` must be from 1 to"));
    }

    #[test]
    fn serializes_flat_with_the_api_names_and_omits_unset_fields() {
        let json = serde_json::to_value(s(Some(0.1), None, Some(17))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"temperature": 0.1f32, "max_tokens": 17})
        );
        assert_eq!(serde_json::to_string(&Sampling::default()).unwrap(), "{}");
    }
}
