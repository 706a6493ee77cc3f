//! Typed access to a raw row's fields; every error names the file, location and field.

use serde_json::Value;

use super::RawRow;
use super::RowError;

impl RawRow {
    /// An error about this row (and `field`, if given).
    pub(crate) fn error(&self, field: Option<&str>, message: impl Into<String>) -> RowError {
        RowError {
            path: self.file.to_path_buf(),
            location: self.location,
            field: field.map(str::to_string),
            message: message.into(),
        }
    }

    /// The value of `name`, if present and not null.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.fields.get(name).filter(|v| !v.is_null())
    }

    /// The first of `names` present (not null) in the row.
    pub(crate) fn first_present<'a>(&self, names: &[&'a str]) -> Option<&'a str> {
        names.iter().copied().find(|n| self.get(n).is_some())
    }

    /// The value of a required field.
    pub(crate) fn required(&self, name: &str) -> Result<&Value, RowError> {
        match self.fields.get(name) {
            None => Err(self.error(Some(name), "missing field")),
            Some(Value::Null) => Err(self.error(Some(name), "field is null")),
            Some(v) => Ok(v),
        }
    }

    /// A required string field.
    pub(crate) fn string(&self, name: &str) -> Result<&str, RowError> {
        match self.required(name)? {
            Value::String(s) => Ok(s),
            other => Err(self.error(
                Some(name),
                format!("expected a string, found {}", kind(other)),
            )),
        }
    }

    /// A required string field that is not blank (questions).
    pub(crate) fn nonblank(&self, name: &str) -> Result<&str, RowError> {
        let s = self.string(name)?;
        if s.trim().is_empty() {
            return Err(self.error(Some(name), "is empty"));
        }
        Ok(s)
    }

    /// A required scalar field as text: a string as is, a number or boolean printed.
    pub(crate) fn text(&self, name: &str) -> Result<String, RowError> {
        match self.required(name)? {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(self.error(
                Some(name),
                format!("expected a string or number, found {}", kind(other)),
            )),
        }
    }

    /// An optional scalar field as text (`None` when absent, null or not a scalar).
    pub(crate) fn opt_text(&self, name: &str) -> Option<String> {
        match self.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A required list of strings: a JSON array of strings, or a string holding one (a list
    /// column flattened by a CSV export).
    pub(crate) fn string_list(&self, name: &str) -> Result<Vec<String>, RowError> {
        let v = self.required(name)?;
        let parsed;
        let items = match v {
            Value::Array(a) => a,
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Array(a)) => {
                    parsed = a;
                    &parsed
                }
                _ => {
                    return Err(self.error(
                        Some(name),
                        "expected a list of strings, found a string that is not a JSON list",
                    ))
                }
            },
            other => {
                return Err(self.error(
                    Some(name),
                    format!("expected a list of strings, found {}", kind(other)),
                ))
            }
        };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| match x {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(self.error(
                    Some(name),
                    format!("element {i}: expected a string, found {}", kind(other)),
                )),
            })
            .collect()
    }

    /// A required integer field: a JSON integer, an integral float, or a string of digits.
    pub(crate) fn integer(&self, name: &str) -> Result<i64, RowError> {
        let v = self.required(name)?;
        let n = match v {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
                    .map(|f| f as i64)
            }),
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        n.ok_or_else(|| {
            self.error(
                Some(name),
                format!("expected an integer, found {}", short(v)),
            )
        })
    }

    /// Copies the listed fields, when present, into `meta` under the paired keys.
    pub(crate) fn copy_meta(
        &self,
        meta: &mut std::collections::BTreeMap<String, Value>,
        pairs: &[(&str, &str)],
    ) {
        for (field, key) in pairs {
            if let Some(v) = self.get(field) {
                meta.insert((*key).to_string(), v.clone());
            }
        }
    }
}

/// The JSON kind of a value, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A value shown briefly in a message (at most 60 characters).
pub(crate) fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 60 {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}...")
    } else {
        s
    }
}
