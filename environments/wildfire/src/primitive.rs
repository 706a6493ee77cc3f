//! Primitives (paper Table 5, docs/design/wildfire.md §10) as data: the primitive, the low-level
//! vector, one agent's action, validation per agent kind, and the EXECUTION side as pure text:
//! parsing an action code into a primitive (§11.2). Running a primitive (what it emits each step
//! and when it is complete) is [`crate::executor`]; this module only knows the types, so the
//! state can hold an agent's current primitive without depending on the executor.

use serde::{Deserialize, Serialize};

use crate::config::AgentKind;
use crate::error::WildfireError;

/// A structured action `{type, param_1, param_2, description}` (§10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Primitive {
    /// Primitive type (per agent kind, §10 table).
    #[serde(rename = "type")]
    pub kind: u8,
    /// First parameter (x, or n for cutting).
    pub p1: i32,
    /// Second parameter (y).
    pub p2: i32,
    /// Free-text description (recorded in the action history).
    pub description: String,
}

impl Primitive {
    /// Type 0 "do nothing".
    pub fn do_nothing() -> Self {
        Self::new(0, 0, 0, "do nothing")
    }

    /// A primitive from its four fields.
    pub fn new(kind: u8, p1: i32, p2: i32, description: &str) -> Self {
        Self {
            kind,
            p1,
            p2,
            description: description.into(),
        }
    }

    /// The canonical one-line text `[type, p1, p2, "description"]`.
    pub fn to_code(&self) -> String {
        format!(
            "[{}, {}, {}, \"{}\"]",
            self.kind, self.p1, self.p2, self.description
        )
    }
}

/// A low-level action vector `[code, x, y]` (§6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LowLevel {
    /// Action code (meaning per agent kind; anything unknown means stop).
    pub code: i32,
    /// Target x.
    pub x: i32,
    /// Target y.
    pub y: i32,
}

impl LowLevel {
    /// Stop (code −1).
    pub const STOP: LowLevel = LowLevel {
        code: -1,
        x: 0,
        y: 0,
    };
}

/// Whether primitive type `t` moves to `(p1, p2)` (coordinates validated against the map).
fn has_target(kind: AgentKind, t: u8) -> bool {
    match kind {
        AgentKind::Firefighter => matches!(t, 1 | 6),
        AgentKind::Bulldozer => matches!(t, 1 | 2),
        AgentKind::Drone | AgentKind::Helicopter => t == 1,
    }
}

/// Highest primitive type of each kind (§10).
pub fn max_type(kind: AgentKind) -> u8 {
    match kind {
        AgentKind::Firefighter => 7,
        AgentKind::Bulldozer => 2,
        AgentKind::Drone => 1,
        AgentKind::Helicopter => 5,
    }
}

/// One agent's action in `wildfire-v0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WildfireAction {
    /// Keep executing the current primitive (idle if none). Text: `continue`.
    Continue,
    /// Assign a new primitive (replaces the current one). Text: `[type, p1, p2, "description"]`.
    Primitive(Primitive),
    /// A raw low-level vector for this step, bypassing the executor. Text: `low code x y`.
    Low(LowLevel),
}

/// Why a primitive is invalid for an agent (see [`validate`]); one-line messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrimitiveError {
    /// The primitive type does not exist for the agent's kind.
    #[error("type {primitive} is not a {} primitive (types 0–{max})", .kind.name())]
    UnknownType {
        /// The primitive type given.
        primitive: u8,
        /// The agent's kind.
        kind: AgentKind,
        /// The kind's highest primitive type.
        max: u8,
    },
    /// The target cell of a moving primitive is outside the map.
    #[error("target ({x}, {y}) is outside the map [0, {max}]")]
    OutsideMap {
        /// The target's first coordinate.
        x: i32,
        /// The target's second coordinate.
        y: i32,
        /// The largest valid coordinate (map size − 1).
        max: i32,
    },
}

/// Checks a primitive for an agent kind and map size; clamps `n` of "cut n trees" to 1–3
/// (§10 validation). The error says what is wrong.
pub fn validate(p: &Primitive, kind: AgentKind, size: u32) -> Result<Primitive, PrimitiveError> {
    if p.kind > max_type(kind) {
        return Err(PrimitiveError::UnknownType {
            primitive: p.kind,
            kind,
            max: max_type(kind),
        });
    }
    let mut q = p.clone();
    if has_target(kind, p.kind) {
        let s = size as i32;
        if !(0..s).contains(&p.p1) || !(0..s).contains(&p.p2) {
            return Err(PrimitiveError::OutsideMap {
                x: p.p1,
                y: p.p2,
                max: s - 1,
            });
        }
    }
    if kind == AgentKind::Firefighter && p.kind == 2 {
        q.p1 = p.p1.clamp(1, 3);
    }
    Ok(q)
}

/// Rounds a number text half away from zero (§11.2 allows decimals).
fn parse_number(field: &str) -> Option<i32> {
    let v: f64 = field.trim().trim_matches('"').trim().parse().ok()?;
    if !v.is_finite() || v.abs() > f64::from(i32::MAX) {
        return None;
    }
    Some(v.round() as i32)
}

/// Strips a `name=` / `name:` prefix from a field (`Action{type: 1, …}`).
fn strip_label(field: &str) -> &str {
    let f = field.trim();
    match f.find([':', '=']) {
        Some(i)
            if f[..i]
                .trim()
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ' ') =>
        {
            f[i + 1..].trim()
        }
        _ => f,
    }
}

fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim())
}

fn from_fields(
    text: &str,
    fields: [&str; 3],
    description: &str,
) -> Result<Primitive, WildfireError> {
    let err = |message: String| WildfireError::ActionCode {
        text: text.into(),
        message,
    };
    let kind = parse_number(fields[0])
        .filter(|t| (0..=255).contains(t))
        .ok_or_else(|| {
            err(format!(
                "type {:?} is not a whole number 0–255",
                colony_env_api::clip(fields[0].trim())
            ))
        })?;
    let p1 = parse_number(fields[1]).ok_or_else(|| {
        err(format!(
            "param_1 {:?} is not a number",
            colony_env_api::clip(fields[1].trim())
        ))
    })?;
    let p2 = parse_number(fields[2]).ok_or_else(|| {
        err(format!(
            "param_2 {:?} is not a number",
            colony_env_api::clip(fields[2].trim())
        ))
    })?;
    let d = description.trim();
    let d = d
        .strip_prefix('"')
        .and_then(|d| d.strip_suffix('"'))
        .unwrap_or(d);
    Ok(Primitive::new(kind as u8, p1, p2, d))
}

/// Parses an action code (§11.2): `[type, p1, p2, "description"]`, `Action{…}`,
/// `type|p1|p2|description`, or tagged `<type>…</type><param_1>…` fields. Syntax only; see
/// [`validate`] for the agent-kind checks and [`translate`] for the lenient form.
pub fn parse_action_code(text: &str) -> Result<Primitive, WildfireError> {
    let t = text.trim();
    let err = |message: &str| WildfireError::ActionCode {
        text: text.into(),
        message: message.into(),
    };
    if let Some(kind) = tag(t, "type") {
        let p1 = tag(t, "param_1").ok_or_else(|| err("missing <param_1>"))?;
        let p2 = tag(t, "param_2").ok_or_else(|| err("missing <param_2>"))?;
        let d = tag(t, "description").unwrap_or("");
        return from_fields(text, [kind, p1, p2], d);
    }
    let inner = if let Some(start) = t.find("Action{") {
        let rest = &t[start + "Action{".len()..];
        let end = rest
            .rfind('}')
            .ok_or_else(|| err("Action{ without closing }"))?;
        Some(&rest[..end])
    } else if let Some(start) = t.find('[') {
        let rest = &t[start + 1..];
        let end = rest.rfind(']').ok_or_else(|| err("[ without closing ]"))?;
        Some(&rest[..end])
    } else {
        None
    };
    let (body, sep) = match inner {
        Some(b) => (b, ','),
        None if t.contains('|') => (t, '|'),
        None => return Err(err("expected [type, param_1, param_2, \"description\"]")),
    };
    let parts: Vec<&str> = body.splitn(4, sep).collect();
    if parts.len() < 3 {
        return Err(err("expected at least type, param_1 and param_2"));
    }
    let fields = [
        strip_label(parts[0]),
        strip_label(parts[1]),
        strip_label(parts[2]),
    ];
    let description = parts.get(3).map_or("", |d| strip_label(d));
    from_fields(text, fields, description)
}

/// The lenient EXECUTION translation (§10, §11.2): anything unparsable or invalid for the
/// agent becomes "do nothing" with description `ERROR EXECUTING: <text>`.
pub fn translate(text: &str, kind: AgentKind, size: u32) -> Primitive {
    parse_action_code(text)
        .ok()
        .and_then(|p| validate(&p, kind, size).ok())
        .unwrap_or_else(|| Primitive::new(0, 0, 0, &format!("ERROR EXECUTING: {}", text.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_accepted_form() {
        let want = Primitive::new(1, 500, 500, "move to coordinate location of (500, 500)");
        let forms = [
            "[1, 500, 500, \"move to coordinate location of (500, 500)\"]",
            "Here: [1, 500.4, 499.5, \"move to coordinate location of (500, 500)\"] done",
            "Action{1, 500, 500, \"move to coordinate location of (500, 500)\"}",
            "Action{type: 1, param_1: 500, param_2: 500, description: \"move to coordinate location of (500, 500)\"}",
            "1|500|500|move to coordinate location of (500, 500)",
            "<type>1</type><param_1>500</param_1><param_2>500</param_2><description>move to coordinate location of (500, 500)</description>",
        ];
        for f in forms {
            assert_eq!(parse_action_code(f).unwrap(), want, "{f}");
        }
        assert_eq!(parse_action_code(&want.to_code()).unwrap(), want);
        assert_eq!(parse_action_code("[2, -0.5, 0, \"x\"]").unwrap().p1, -1);
    }

    #[test]
    fn bad_codes_are_clear_errors_and_translate_to_error_executing() {
        let e = parse_action_code("move north").unwrap_err().to_string();
        assert!(e.contains("move north") && e.contains("expected"), "{e}");
        let e = parse_action_code("[x, 1, 2, \"d\"]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("type \"x\""), "{e}");
        let p = translate("[6, 3, 3, \"spray\"]", AgentKind::Drone, 30);
        assert_eq!(p.kind, 0);
        assert_eq!(p.description, "ERROR EXECUTING: [6, 3, 3, \"spray\"]");
        let p = translate("[1, 30, 3, \"off map\"]", AgentKind::Drone, 30);
        assert!(p.description.starts_with("ERROR EXECUTING"));
        let p = translate("[2, 9, 0, \"cut\"]", AgentKind::Firefighter, 30);
        assert_eq!((p.kind, p.p1), (2, 3));
    }
}
