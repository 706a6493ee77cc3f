//! [`PolicyOptions`]: the one parser of a policy spec's options (`name:key=value,…`), shared by
//! every reasoning and embodied constructor, colony's and plugins' alike
//! (docs/design/architecture.md §1).
//!
//! The constructor reads what it understands (`count`, `whole`, `float`, `text`,
//! [`choice`], `positional`); the registry then calls [`PolicyOptions::finish`], so an option
//! nobody read is an error naming it, the keys the policy does read, and the closest of them
//! when the unread key looks like a typo (`rouns` → did you mean `rounds`?).

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use colony_env_api::clip;

/// An option that is malformed, invalid or unknown (converted into the constructor's own
/// error type: `OptionError` for reasoning policies, `EmbodiedError` for embodied ones).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// An option the policy does not read (e.g. `debate:foo=1`).
    #[error("policy configuration: {policy}: unknown option `{key}`{known}")]
    Unknown {
        /// The policy.
        policy: String,
        /// The option key given (clipped).
        key: String,
        /// What the policy reads instead, with a leading space: ` (known: k, rounds); did
        /// you mean `rounds`?` or ` (debate takes no options)`.
        known: String,
    },
    /// An option whose value (or `key=value` form) is invalid; `reason` completes the
    /// sentence "option `key` …" (e.g. "must be a positive integer, got `x`").
    #[error("policy configuration: {policy}: option `{key}` {reason}")]
    Invalid {
        /// The policy.
        policy: String,
        /// The option key (for a malformed `key=value` part, the part itself; clipped).
        key: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// Parsed options of one policy spec, consumed as the policy's constructor reads them;
/// options left unread are an error naming the first (so typos never pass silently).
#[derive(Debug, Clone)]
pub struct PolicyOptions {
    policy: String,
    values: BTreeMap<String, String>,
    /// A leading part without `=` (`python:<name>`), for policies that take one.
    positional: Option<String>,
    /// The keys the constructor asked for, in order (for the error on an unread key).
    asked: Vec<String>,
}

impl PolicyOptions {
    /// Parses `key=value,key=value` (the part after `name:`) for `policy`. A first part
    /// without `=` is kept as the positional value (an error at [`PolicyOptions::finish`]
    /// unless the policy reads it); a later part without `=`, an empty key or value, or a
    /// key given twice is an error naming it.
    pub fn parse(policy: &str, text: &str) -> Result<Self, OptionError> {
        let mut values = BTreeMap::new();
        let mut positional = None;
        for (i, part) in text
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .enumerate()
        {
            let Some((key, value)) = part.split_once('=') else {
                if i == 0 {
                    positional = Some(part.to_string());
                    continue;
                }
                return Err(needs_value(policy, part));
            };
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || value.is_empty() {
                return Err(OptionError::Invalid {
                    policy: policy.to_string(),
                    key: clip(part),
                    reason: "needs a key and a value (key=value)".into(),
                });
            }
            if values.insert(key.to_string(), value.to_string()).is_some() {
                return Err(OptionError::Invalid {
                    policy: policy.to_string(),
                    key: clip(key),
                    reason: "is given twice".into(),
                });
            }
        }
        Ok(Self {
            policy: clip(policy),
            values,
            positional,
            asked: Vec::new(),
        })
    }

    fn take(&mut self, key: &str) -> Option<String> {
        if !self.asked.iter().any(|k| k == key) {
            self.asked.push(key.to_string());
        }
        self.values.remove(key)
    }

    fn invalid(&self, key: &str, reason: String) -> OptionError {
        OptionError::Invalid {
            policy: self.policy.clone(),
            key: key.to_string(),
            reason,
        }
    }

    /// A positive integer option.
    pub fn count(&mut self, key: &str) -> Result<Option<usize>, OptionError> {
        let Some(value) = self.take(key) else {
            return Ok(None);
        };
        match value.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(self.invalid(
                key,
                format!("must be a positive integer, got `{}`", clip(&value)),
            )),
        }
    }

    /// A whole-number option in `range`, `default` when not given (the embodied frameworks'
    /// counts: `hmas2:replans=3`).
    pub fn whole(
        &mut self,
        key: &str,
        default: u64,
        range: RangeInclusive<u64>,
    ) -> Result<u64, OptionError> {
        let Some(value) = self.take(key) else {
            return Ok(default);
        };
        match value.parse::<u64>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(self.invalid(
                key,
                format!(
                    "must be a whole number in {}..={}, got `{}`",
                    range.start(),
                    range.end(),
                    clip(&value)
                ),
            )),
        }
    }

    /// A finite number option.
    pub fn float(&mut self, key: &str) -> Result<Option<f64>, OptionError> {
        let Some(value) = self.take(key) else {
            return Ok(None);
        };
        match value.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(self.invalid(
                key,
                format!("must be a finite number, got `{}`", clip(&value)),
            )),
        }
    }

    /// A text option.
    pub fn text(&mut self, key: &str) -> Option<String> {
        self.take(key)
    }

    /// The positional value (`python:<name>`), if the spec has one.
    pub fn positional(&mut self) -> Option<String> {
        self.positional.take()
    }

    /// The policy these options belong to (for error messages).
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// Runs a constructor `read` over these options, then [`PolicyOptions::finish`]: the one
    /// way every constructor (reasoning, embodied, a plugin's) is handed a spec's options.
    pub fn read<T, E: From<OptionError>>(
        mut self,
        read: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        let value = read(&mut self)?;
        self.finish()?;
        Ok(value)
    }

    /// Errors on options the policy did not read: the key, the keys it does read (or that it
    /// takes none), and the closest of them when the key looks like a typo of one.
    pub fn finish(self) -> Result<(), OptionError> {
        if let Some(part) = &self.positional {
            return Err(needs_value(&self.policy, part));
        }
        let Some(key) = self.values.keys().next() else {
            return Ok(());
        };
        let known = if self.asked.is_empty() {
            format!(" ({} takes no options)", self.policy)
        } else {
            let hint = colony_env_api::suggest::closest(key, self.asked.iter().map(String::as_str))
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            format!(" (known: {}){hint}", self.asked.join(", "))
        };
        Err(OptionError::Unknown {
            policy: self.policy.clone(),
            key: clip(key),
            known,
        })
    }
}

fn needs_value(policy: &str, part: &str) -> OptionError {
    OptionError::Invalid {
        policy: policy.to_string(),
        key: clip(part),
        reason: "needs a value (key=value)".into(),
    }
}

/// A text option that must be one of `allowed` (`a|b|c`), lowercased.
pub fn choice(
    o: &mut PolicyOptions,
    key: &str,
    allowed: &str,
) -> Result<Option<String>, OptionError> {
    match o.text(key).map(|v| v.to_ascii_lowercase()) {
        Some(v) if !allowed.split('|').any(|a| a == v) => {
            Err(o.invalid(key, format!("must be one of {allowed}, got `{}`", clip(&v))))
        }
        v => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unread_keys_name_what_is_known_and_the_closest_key() {
        let mut o = PolicyOptions::parse("hmas2", "replans=2,rasks=1").unwrap();
        assert_eq!(o.whole("replans", 0, 0..=10).unwrap(), 2);
        assert_eq!(o.whole("reasks", 2, 0..=10).unwrap(), 2);
        let e = o.finish().unwrap_err().to_string();
        assert!(e.contains("unknown option `rasks`"), "{e}");
        assert!(e.contains("known: replans, reasks"), "{e}");
        assert!(e.contains("did you mean `reasks`?"), "{e}");

        let o = PolicyOptions::parse("independent", "eta=1").unwrap();
        let e = o.finish().unwrap_err().to_string();
        assert!(e.contains("independent takes no options"), "{e}");

        let mut o = PolicyOptions::parse("coela", "chat=0").unwrap();
        let e = o.whole("chat", 5, 1..=1000).unwrap_err().to_string();
        assert!(
            e.contains("`chat` must be a whole number in 1..=1000, got `0`"),
            "{e}"
        );
    }

    #[test]
    fn a_leading_word_is_positional_and_refused_unless_read() {
        let mut o = PolicyOptions::parse("python", "mine").unwrap();
        assert_eq!(o.positional().as_deref(), Some("mine"));
        assert!(o.finish().is_ok());
        let o = PolicyOptions::parse("cot", "fast").unwrap();
        let e = o.finish().unwrap_err().to_string();
        assert!(e.contains("needs a value (key=value)"), "{e}");
        let e = PolicyOptions::parse("cot", "k=1,fast")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`fast` needs a value"), "{e}");
        assert!(PolicyOptions::parse("cot", "k=1,k=2").is_err());
        assert_eq!(colony_env_api::suggest::edit_distance("rounds", "rouns"), 1);
        assert_eq!(colony_env_api::suggest::edit_distance("", "abc"), 3);
    }
}
