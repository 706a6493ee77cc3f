//! Wildfire's action code under structured output (docs/design/tools.md §8): the primitive's
//! type (the agent kind's range), its two parameters and a description, read back as the
//! `[type, param_1, param_2, "description"]` code of wildfire.md §11.2.

use serde_json::{json, Value};

use crate::config::AgentKind;
use crate::primitive::max_type;

/// The schema for an agent of `kind`.
pub fn reply_schema(kind: AgentKind) -> Value {
    json!({
        "type": "object",
        "properties": {
            "type": {"type": "integer", "minimum": 0, "maximum": max_type(kind)},
            "param_1": {"type": "integer"},
            "param_2": {"type": "integer"},
            "description": {"type": "string", "maxLength": 200},
        },
        "required": ["type", "param_1", "param_2"],
        "additionalProperties": false,
    })
}

/// The action code of a structured reply; `None` when a field is missing or not a number.
pub fn reply_text(reply: &Value) -> Option<String> {
    let n = |k: &str| {
        reply
            .get(k)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite())
    };
    let (t, p1, p2) = (n("type")?, n("param_1")?, n("param_2")?);
    let d = reply
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .replace(['"', '\n'], " ");
    Some(format!("[{t}, {p1}, {p2}, \"{}\"]", d.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitive::parse_action_code;

    #[test]
    fn codes_read_back() {
        let s = reply_schema(AgentKind::Drone);
        assert_eq!(s["properties"]["type"]["maximum"], 1);
        let text = reply_text(
            &json!({"type": 1, "param_1": 4, "param_2": 7, "description": "scout \"north\""}),
        )
        .unwrap();
        let p = parse_action_code(&text).unwrap();
        assert_eq!((p.kind, p.p1, p.p2), (1, 4, 7));
        assert_eq!(reply_text(&json!({"type": 1})), None);
    }
}
