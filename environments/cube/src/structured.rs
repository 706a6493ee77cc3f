//! CUBE's plan reply under structured output (docs/design/tools.md §8): a plan of at most
//! [`MAX_LLM_PLAN`] symbolic actions, each with exactly its arguments (cube.md §9.2), read back
//! as the JSON-array plan the naive agent's parser takes (cube.md §12.2).

use serde_json::{json, Value};

use crate::plan_parser::MAX_LLM_PLAN;
use crate::symbolic::ACTION_NAMES;

/// The schema of one action's arguments: `(name, JSON Schema, required)`.
fn arguments(action: &str) -> Vec<(&'static str, Value, bool)> {
    let int = || json!({"type": "integer"});
    let face = || json!({"type": "string", "enum": ["left", "right", "top", "bottom"]});
    match action {
        "move" => vec![
            (
                "direction",
                json!({"type": "string", "enum": ["up", "down", "left", "right"]}),
                true,
            ),
            ("steps", int(), true),
        ],
        "move_to_block" => vec![
            ("block", int(), true),
            ("face", face(), true),
            ("timeout", int(), false),
        ],
        "rendezvous" => vec![
            ("block", int(), true),
            ("face", face(), true),
            ("count", int(), true),
            ("timeout", int(), false),
        ],
        "push_block" => vec![
            ("block", int(), true),
            ("steps", int(), true),
            ("timeout", int(), false),
        ],
        "yield_block" => vec![("block", int(), true), ("steps", int(), false)],
        "idle" => vec![("steps", int(), true)],
        "wait_agents" => vec![("count", int(), true), ("timeout", int(), false)],
        _ => Vec::new(),
    }
}

/// The schema: `{"plan": [ {"action": NAME, "args": {…}} ]}` with one alternative per action.
pub fn reply_schema() -> Value {
    let alternatives: Vec<Value> = ACTION_NAMES
        .iter()
        .map(|&name| {
            let args = arguments(name);
            let properties: serde_json::Map<String, Value> = args
                .iter()
                .map(|(k, s, _)| (k.to_string(), s.clone()))
                .collect();
            let required: Vec<&str> = args.iter().filter(|a| a.2).map(|a| a.0).collect();
            json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "const": name},
                    "args": {"type": "object", "properties": properties,
                             "required": required, "additionalProperties": false},
                },
                "required": ["action", "args"],
                "additionalProperties": false,
            })
        })
        .collect();
    json!({
        "type": "object",
        "properties": {"plan": {
            "type": "array",
            "items": {"anyOf": alternatives},
            "minItems": 1,
            "maxItems": MAX_LLM_PLAN,
        }},
        "required": ["plan"],
        "additionalProperties": false,
    })
}

/// The JSON-array plan text of a structured reply; `None` without a `plan` array.
pub fn reply_text(reply: &Value) -> Option<String> {
    let plan = reply.get("plan")?.as_array()?;
    Some(Value::Array(plan.clone()).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm_play::parse_plan_reply;
    use crate::symbolic::param_names;

    #[test]
    fn the_schema_names_every_action_with_its_arguments_and_plans_read_back() {
        for a in ACTION_NAMES {
            let names = param_names(a).unwrap();
            for (arg, _, _) in arguments(a) {
                assert!(names.contains(&arg), "{a}.{arg}");
            }
        }
        let s = reply_schema();
        assert_eq!(
            s["properties"]["plan"]["items"]["anyOf"]
                .as_array()
                .map(Vec::len),
            Some(7)
        );
        let reply = json!({"plan": [
            {"action": "move_to_block", "args": {"block": 0, "face": "left"}},
            {"action": "push_block", "args": {"block": 0, "steps": 2}}]});
        let text = reply_text(&reply).unwrap();
        let parsed = parse_plan_reply(&text, 10);
        assert!(parsed.fallback.is_none(), "{parsed:?}");
        assert_eq!(reply_text(&json!({"actions": []})), None);
    }
}
