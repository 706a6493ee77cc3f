//! The plan parser for LLM output (docs/design/cube.md §12.2): a JSON array of
//! `{"action": …, "args": {…}}` objects, or one call per line (`move_to_block(block=2,
//! face="left")`), with per-action errors.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::symbolic::{param_names, validate, SymbolicCall};

/// Maximum actions taken from an LLM plan (design §12.2).
pub const MAX_LLM_PLAN: usize = 3;

/// One action of a plan text that was dropped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanError {
    /// Position of the action in the text (0-based).
    pub index: usize,
    /// The action's text.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

/// The result of parsing a plan text.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ParsedPlan {
    /// Calls that parsed and validated, in order.
    pub calls: Vec<SymbolicCall>,
    /// Actions that were dropped.
    pub errors: Vec<PlanError>,
}

impl ParsedPlan {
    /// The errors as one line per action, for the next prompt or an error message.
    pub fn error_text(&self) -> String {
        // Quotes are clipped and at most five errors are listed, so a huge reply is never
        // echoed whole.
        let mut text = self
            .errors
            .iter()
            .take(5)
            .map(|e| {
                format!(
                    "action {} ({}): {}",
                    e.index,
                    colony_env_api::clip(&e.text),
                    colony_env_api::clip(&e.message)
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        if self.errors.len() > 5 {
            text.push_str(&format!("; … and {} more", self.errors.len() - 5));
        }
        text
    }
}

/// Parses a plan text for a `k × k` grid: every action is validated; invalid ones go to
/// `errors`. No length cap (see [`parse_llm_plan`]).
pub fn parse_plan(text: &str, k: u32) -> ParsedPlan {
    let raw = split_actions(text);
    let mut out = ParsedPlan::default();
    for (index, item) in raw.into_iter().enumerate() {
        let (display, call) = match item {
            Raw::Json(v) => (v.to_string(), call_from_json(&v)),
            Raw::Line(l) => (l.clone(), call_from_line(&l)),
        };
        match call.and_then(|c| validate(&c, k).map(|_| c).map_err(|e| e.to_string())) {
            Ok(c) => out.calls.push(c),
            Err(message) => out.errors.push(PlanError {
                index,
                text: display,
                message,
            }),
        }
    }
    out
}

/// [`parse_plan`] with the LLM rules of design §12.2: at most three actions (the rest are
/// ignored), an empty plan becomes `[idle(1)]`.
pub fn parse_llm_plan(text: &str, k: u32) -> ParsedPlan {
    let mut p = parse_plan(text, k);
    limit_llm_plan(&mut p);
    p
}

/// The LLM rules of design §12.2 applied to a parsed plan: keeps the first
/// [`MAX_LLM_PLAN`] valid calls and turns an empty plan into `[idle(1)]`. Returns how many
/// valid calls were ignored beyond the cap (the lenient reply parser reports them).
pub fn limit_llm_plan(p: &mut ParsedPlan) -> usize {
    let ignored = p.calls.len().saturating_sub(MAX_LLM_PLAN);
    p.calls.truncate(MAX_LLM_PLAN);
    if p.calls.is_empty() {
        p.calls
            .push(SymbolicCall::new("idle", [("steps", Value::from(1))]));
    }
    ignored
}

enum Raw {
    Json(Value),
    Line(String),
}

/// Splits a text into action items: a JSON array (possibly inside prose or a code fence),
/// one JSON object, or call lines.
fn split_actions(text: &str) -> Vec<Raw> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return json_items(v);
    }
    if let (Some(a), Some(b)) = (trimmed.find('['), trimmed.rfind(']')) {
        if a < b {
            if let Ok(v) = serde_json::from_str::<Value>(&trimmed[a..=b]) {
                return json_items(v);
            }
        }
    }
    trimmed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("```"))
        .flat_map(split_calls_on_line)
        .map(Raw::Line)
        .collect()
}

/// A line may hold several calls separated by `;` (or be a bullet like `1. idle(steps=1)`).
fn split_calls_on_line(line: &str) -> Vec<String> {
    let line = line.trim_start_matches(|c: char| {
        c.is_ascii_digit() || c == '.' || c == '-' || c == '*' || c == ')' || c.is_whitespace()
    });
    line.split(';')
        .map(|s| s.trim().trim_end_matches(',').trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn json_items(v: Value) -> Vec<Raw> {
    match v {
        Value::Array(items) => items
            .into_iter()
            .map(|i| match i {
                Value::String(s) => Raw::Line(s),
                other => Raw::Json(other),
            })
            .collect(),
        Value::String(s) => split_actions(&s),
        other => vec![Raw::Json(other)],
    }
}

/// `{"action": "idle", "args": {"steps": 2}}` or `{"action": "idle", "steps": 2}`.
fn call_from_json(v: &Value) -> Result<SymbolicCall, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| "an action must be an object {\"action\": …, \"args\": {…}}".to_string())?;
    let action = obj
        .get("action")
        .or_else(|| obj.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| "missing \"action\" name".to_string())?
        .trim()
        .to_string();
    let mut args = BTreeMap::new();
    if let Some(a) = obj.get("args").or_else(|| obj.get("arguments")) {
        let a = a
            .as_object()
            .ok_or_else(|| "\"args\" must be an object".to_string())?;
        args.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for (k, v) in obj {
        if !matches!(k.as_str(), "action" | "name" | "args" | "arguments") {
            args.insert(k.clone(), v.clone());
        }
    }
    Ok(SymbolicCall { action, args })
}

/// `name(key=value, …)`; positional values follow the action's parameter order.
fn call_from_line(line: &str) -> Result<SymbolicCall, String> {
    let open = line
        .find('(')
        .ok_or_else(|| "expected name(arguments)".to_string())?;
    let close = line
        .rfind(')')
        .filter(|&c| c > open)
        .ok_or_else(|| "missing closing parenthesis".to_string())?;
    let action = line[..open].trim().to_string();
    if action.is_empty()
        || !action
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(format!(
            "bad action name {:?}",
            colony_env_api::clip(&line[..open])
        ));
    }
    let names = param_names(&action).ok_or_else(|| {
        format!(
            "unknown action {:?}; known: {}",
            colony_env_api::clip(&action),
            crate::symbolic::ACTION_NAMES.join(", ")
        )
    })?;
    let mut args = BTreeMap::new();
    let inner = line[open + 1..close].trim();
    if !inner.is_empty() {
        for (pos, part) in inner.split(',').enumerate() {
            let part = part.trim();
            let (key, value) = match part.split_once(['=', ':']) {
                Some((k, v)) => (k.trim().trim_matches(['"', '\'']).to_string(), v.trim()),
                None => {
                    let key = names
                        .get(pos)
                        .ok_or_else(|| format!("too many positional arguments for {action}"))?;
                    (key.to_string(), part)
                }
            };
            args.insert(key, scalar(value));
        }
    }
    Ok(SymbolicCall { action, args })
}

fn scalar(text: &str) -> Value {
    let t = text.trim().trim_matches(['"', '\'']);
    match t.parse::<i64>() {
        Ok(n) => Value::from(n),
        Err(_) => Value::from(t),
    }
}

/// The JSON-array form of a plan (what [`parse_plan`] reads back).
pub fn format_plan(calls: &[SymbolicCall]) -> String {
    serde_json::to_string(calls).unwrap_or_else(|_| "[]".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_line_forms_parse_to_the_same_calls() {
        let a = parse_plan(
            r#"[{"action": "move_to_block", "args": {"block": 2, "face": "left"}},
                {"action": "push_block", "args": {"block": 2, "steps": 3}}]"#,
            20,
        );
        let b = parse_plan(
            "move_to_block(block=2, face=\"left\")\npush_block(block=2, steps=3)",
            20,
        );
        assert!(a.errors.is_empty() && b.errors.is_empty(), "{a:?} {b:?}");
        assert_eq!(a.calls, b.calls);
        let c = parse_plan(
            "Here you go:\n```\n[\"idle(2)\", \"move(right, 1)\"]\n```",
            20,
        );
        assert_eq!(c.calls.len(), 2, "{c:?}");
        assert_eq!(c.calls[1].args["direction"], "right");
    }

    #[test]
    fn invalid_actions_are_dropped_with_per_action_errors() {
        let p = parse_plan(
            "fly(up)\nmove(direction=sideways, steps=1)\nidle(steps=x)\nrendezvous(block=1, face=left)\nidle(1)",
            20,
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(p.errors.len(), 4);
        assert!(p.errors[0].message.contains("unknown action"), "{p:?}");
        assert!(p.errors[1].message.contains("direction"));
        assert!(p.errors[2].message.contains("integer"));
        assert!(p.errors[3].message.contains("count"));
        assert!(p.error_text().contains("action 3"));
        let llm = parse_llm_plan("idle(1)\nidle(2)\nidle(3)\nidle(4)", 20);
        assert_eq!(llm.calls.len(), 3);
        assert_eq!(parse_llm_plan("nonsense", 20).calls[0].action, "idle");
    }

    #[test]
    fn format_round_trips() {
        let p = parse_plan("push_block(block=2, steps=3)", 20);
        let text = format_plan(&p.calls);
        assert_eq!(parse_plan(&text, 20).calls, p.calls);
        assert_eq!(p.calls[0].to_string(), "push_block(block=2, steps=3)");
    }
}
