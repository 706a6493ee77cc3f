//! JSON lines and JSON documents.
//!
//! Python's `json` module writes the non-standard constants `NaN`, `Infinity` and `-Infinity`;
//! a line using them is read with those values as strings rather than rejected, so a
//! published row is never dropped (dropping one would change the MASLab subset).

use std::path::Path;
use std::rc::Rc;

use serde_json::Value;

use super::{Location, RowError};
use super::{RawRow, RowResult};

/// One JSON object per non-blank line; the location is the 1-based line number.
pub(crate) fn read_lines(file: &Rc<Path>, text: &str) -> Vec<RowResult> {
    text.split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| parse_object(file, Location::Line(i + 1), line))
        .collect()
}

/// A `.json` file: an array of objects (locations are 0-based element indices), a single
/// object, or else JSON lines.
pub(crate) fn read_document(file: &Rc<Path>, text: &str) -> Vec<RowResult> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(items)) = parse_value(text) {
            return items
                .into_iter()
                .enumerate()
                .map(|(i, v)| to_row(file, Location::Row(i), v))
                .collect();
        }
    } else if trimmed.starts_with('{') {
        if let Ok(v @ Value::Object(_)) = parse_value(text) {
            let line = text[..text.len() - trimmed.len()].matches('\n').count() + 1;
            return vec![to_row(file, Location::Line(line), v)];
        }
    }
    read_lines(file, text)
}

fn parse_object(file: &Rc<Path>, location: Location, line: &str) -> RowResult {
    match parse_value(line) {
        Ok(v) => to_row(file, location, v),
        Err(e) => Err(RowError {
            path: file.to_path_buf(),
            location,
            field: None,
            message: format!("invalid JSON: {e}"),
        }),
    }
}

fn to_row(file: &Rc<Path>, location: Location, v: Value) -> RowResult {
    match v {
        Value::Object(fields) => Ok(RawRow {
            file: Rc::clone(file),
            location,
            index: 0,
            rel_path: None,
            fields,
        }),
        other => Err(RowError {
            path: file.to_path_buf(),
            location,
            field: None,
            message: format!(
                "expected a JSON object, found {}",
                super::fields::kind(&other)
            ),
        }),
    }
}

/// Parses JSON, retrying with Python's non-finite constants turned into strings.
fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(v),
        Err(e) => match quote_nonfinite(text) {
            Some(fixed) => serde_json::from_str::<Value>(&fixed).map_err(|_| e),
            None => Err(e),
        },
    }
}

/// `text` with bare `NaN`, `Infinity` and `-Infinity` outside strings quoted, or `None` if
/// there are none.
fn quote_nonfinite(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if let Some(tok) = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t))
        {
            out.push('"');
            out.push_str(tok);
            out.push('"');
            rest = &rest[tok.len()..];
            changed = true;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_nonfinite_constants_become_strings() {
        let v = parse_value(r#"{"a": NaN, "b": -Infinity, "c": "NaN and Infinity"}"#).unwrap();
        assert_eq!(v["a"], "NaN");
        assert_eq!(v["b"], "-Infinity");
        assert_eq!(v["c"], "NaN and Infinity");
        assert!(parse_value("{\"a\": nope}").is_err());
    }
}
