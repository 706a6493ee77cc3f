//! Environment parameters from `--set key=value` flags, with errors naming the key.

use std::collections::BTreeMap;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{clip, EnvError};

/// Documentation of one configurable parameter (for `colony env list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    /// Name used in `--set name=value`.
    pub name: String,
    /// Default value, as text.
    pub default: String,
    /// What it controls.
    pub doc: String,
}

impl ParamSpec {
    /// A parameter's documentation: name, default (as text) and what it controls.
    pub fn new(name: &str, default: &str, doc: &str) -> Self {
        Self {
            name: name.into(),
            default: default.into(),
            doc: doc.into(),
        }
    }
}

/// Raw `key=value` settings; environments take typed values out of it and reject leftovers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvParams {
    values: BTreeMap<String, String>,
}

impl EnvParams {
    /// Parses `key=value` strings; a missing `=` or a repeated key is an error.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Self, EnvError> {
        let mut values = BTreeMap::new();
        for item in items {
            let item = item.as_ref();
            let (k, v) = item.split_once('=').ok_or_else(|| EnvError::Param {
                key: clip(item),
                message: "expected key=value".into(),
            })?;
            let k = k.trim();
            if values.insert(k.to_string(), v.trim().to_string()).is_some() {
                return Err(EnvError::Param {
                    key: clip(k),
                    message: "set twice".into(),
                });
            }
        }
        Ok(Self { values })
    }

    /// Takes `key` parsed as `T`, or `default` when not set.
    pub fn take<T: FromStr>(&mut self, key: &str, default: T) -> Result<T, EnvError>
    where
        T::Err: std::fmt::Display,
    {
        match self.values.remove(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|e: T::Err| EnvError::Param {
                key: key.into(),
                message: format!("cannot parse {:?}: {}", clip(&v), clip(&e.to_string())),
            }),
        }
    }

    /// Errors if any key was not taken (a typo would otherwise be silently ignored).
    pub fn finish(self, known: &[ParamSpec]) -> Result<(), EnvError> {
        match self.values.into_keys().next() {
            None => Ok(()),
            Some(key) => {
                let names: Vec<&str> = known.iter().map(|p| p.name.as_str()).collect();
                let hint = crate::suggest::closest(&key, names.iter().copied())
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                Err(EnvError::Param {
                    key: clip(&key),
                    message: format!("unknown parameter; known: {}{hint}", names.join(", ")),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_typo_gets_the_closest_name() {
        let known = [ParamSpec::new("max_round", "100", "rounds")];
        let e = EnvParams::parse(&["max_rond=3"])
            .unwrap()
            .finish(&known)
            .unwrap_err();
        assert!(e.to_string().contains("did you mean `max_round`?"), "{e}");
    }

    #[test]
    fn typed_values_and_clear_errors() {
        let mut p = EnvParams::parse(&["n=8", "name = x"]).unwrap();
        assert_eq!(p.take("n", 4u32).unwrap(), 8);
        assert_eq!(p.take("missing", 3u32).unwrap(), 3);
        let spec = [ParamSpec {
            name: "n".into(),
            default: "4".into(),
            doc: String::new(),
        }];
        let err = p.finish(&spec).unwrap_err().to_string();
        assert!(
            err.contains("parameter name: unknown parameter; known: n"),
            "{err}"
        );
        let err = EnvParams::parse(&["n8"]).unwrap_err().to_string();
        assert!(err.contains("n8") && err.contains("key=value"), "{err}");
        let mut p = EnvParams::parse(&["n=x"]).unwrap();
        assert!(p
            .take("n", 1u32)
            .unwrap_err()
            .to_string()
            .contains("parameter n"));
        assert!(EnvParams::parse(&["a=1", "a=2"]).is_err());
    }

    #[test]
    fn huge_values_and_keys_are_quoted_clipped() {
        let huge = "7".repeat(100_000);
        let mut p = EnvParams::parse(&[format!("n=x{huge}")]).unwrap();
        let err = p.take("n", 1u32).unwrap_err().to_string();
        assert!(err.len() < 300 && err.contains('…'), "{err}");
        let err = EnvParams::parse(std::slice::from_ref(&huge))
            .unwrap_err()
            .to_string();
        assert!(err.len() < 300, "{err}");
        let p = EnvParams::parse(&[format!("{huge}=1")]).unwrap();
        let err = p.finish(&[]).unwrap_err().to_string();
        assert!(err.len() < 300, "{err}");
        assert_eq!(crate::clip("short"), "short");
        assert_eq!(crate::clip(&"é".repeat(81)), format!("{}…", "é".repeat(80)));
    }
}
