//! API keys: read from a named environment variable, never printed.

use std::fmt;

use super::ModelError;

/// An API key. `Debug` and `Display` print `***`, so the key cannot leak into logs, traces,
/// errors or results by formatting; only [`ApiKey::expose`] (used for the HTTP header) reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Reads the key from environment variable `var`; an unset or empty variable is an error
    /// naming the variable (never the value).
    pub fn from_env(var: &str) -> Result<Self, ModelError> {
        match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Self(v.trim().to_string())),
            Ok(_) => Err(ModelError::Config(format!(
                "environment variable {var} is empty"
            ))),
            Err(_) => Err(ModelError::Config(format!(
                "environment variable {var} is not set (it should hold the API key)"
            ))),
        }
    }

    /// Wraps a key obtained elsewhere (tests, a secret manager).
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_formats_the_key() {
        let k = ApiKey::new("sk-very-secret");
        assert!(!format!("{k:?} {k} {:?}", Some(&k)).contains("sk-very-secret"));
        assert_eq!(k.expose(), "sk-very-secret");
        let err = ApiKey::from_env("COLONY_TEST_SURELY_UNSET_VAR")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("COLONY_TEST_SURELY_UNSET_VAR is not set"),
            "{err}"
        );
    }
}
