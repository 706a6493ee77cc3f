//! How the offline simulated model uses the tools a request offers, so every tool path (call,
//! bad arguments, results, the round limit) runs without a real model.
//!
//! Decision (deterministic per seed and request): when a request offers tools, does not say
//! `tool_choice: none`, and no tool result has come back since the last user message, the
//! model calls one tool (the named one under `tool_choice: {"function"}`, else one drawn from
//! the request's seed) with arguments made from the tool's schema ([`example_arguments`]).
//! Once a tool result is in the conversation it answers in text, as it would without tools.

use serde_json::{Map, Value};

use super::{ChatRequest, Role, ToolCall, ToolChoice};

/// The call the simulated model makes for `request` under the draw `seed`, if any.
pub(crate) fn tool_call(seed: u64, request: &ChatRequest) -> Option<ToolCall> {
    if request.tools.is_empty() || request.tool_choice == Some(ToolChoice::None) {
        return None;
    }
    let answered = request
        .messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::User)
        .any(|m| m.role == Role::Tool);
    if answered {
        return None;
    }
    let tool = match &request.tool_choice {
        Some(ToolChoice::Function(name)) => request.tools.iter().find(|t| &t.name == name)?,
        _ => &request.tools[(seed % request.tools.len() as u64) as usize],
    };
    Some(ToolCall {
        id: format!("call_{:016x}", seed),
        name: tool.name.clone(),
        arguments: example_arguments(&tool.parameters).to_string(),
    })
}

/// Arguments that fit `schema`: every required property (all of them when none is marked
/// required) from its `examples`, `default`, `const` or first `enum` value, else a value of
/// its type; a string without any of those takes the first single-quoted example in its
/// description (`'UTC'`), as a model reading the description would.
pub(crate) fn example_arguments(schema: &Value) -> Value {
    example(schema, 0)
}

fn example(schema: &Value, depth: usize) -> Value {
    if let Some(v) = schema
        .get("examples")
        .and_then(|e| e.get(0))
        .or_else(|| schema.get("default"))
        .or_else(|| schema.get("const"))
        .or_else(|| schema.get("enum").and_then(|e| e.get(0)))
    {
        return v.clone();
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" if depth < 8 => {
            let props = schema.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (name, sub) in props.into_iter().flatten() {
                if required.is_empty() || required.contains(&name.as_str()) {
                    out.insert(name.clone(), example(sub, depth + 1));
                }
            }
            Value::Object(out)
        }
        "object" => Value::Object(Map::new()),
        "array" => Value::Array(Vec::new()),
        "integer" | "number" => Value::from(1),
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        _ => Value::String(quoted_example(schema).unwrap_or_else(|| "example".into())),
    }
}

fn quoted_example(schema: &Value) -> Option<String> {
    let text = schema.get("description")?.as_str()?;
    let start = text.find('\'')? + 1;
    let len = text[start..].find('\'')?;
    let found = &text[start..start + len];
    (!found.is_empty() && found.len() <= 80).then(|| found.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, ToolSpec};
    use serde_json::json;

    fn spec(name: &str, parameters: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters,
        }
    }

    #[test]
    fn arguments_follow_the_schema() {
        let time = json!({"type": "object", "required": ["timezone"], "properties": {
            "timezone": {"type": "string", "description": "IANA name (e.g., 'America/New_York'). Use 'UTC' if none."},
            "verbose": {"type": "boolean"}}});
        assert_eq!(
            example_arguments(&time),
            json!({"timezone": "America/New_York"})
        );
        let calc = json!({"type": "object", "properties": {
            "expression": {"type": "string", "examples": ["1/3 + 1/6"]},
            "n": {"type": "integer"}, "mode": {"enum": ["exact", "float"]}}});
        assert_eq!(
            example_arguments(&calc),
            json!({"expression": "1/3 + 1/6", "n": 1, "mode": "exact"})
        );
    }

    #[test]
    fn one_call_per_turn_and_none_means_text() {
        let tools = vec![spec("a", json!({})), spec("b", json!({}))];
        let mut r = ChatRequest::new(vec![Message::user("q")]).tools(tools);
        let first = tool_call(3, &r).unwrap();
        assert_eq!(first.name, "b");
        assert_eq!(tool_call(3, &r), Some(first.clone()));
        r.tool_choice = Some(ToolChoice::Function("a".into()));
        assert_eq!(tool_call(3, &r).unwrap().name, "a");
        r.messages
            .push(Message::assistant_tool_calls("", vec![first]));
        r.messages.push(Message::tool("call_x", "42"));
        assert_eq!(tool_call(3, &r), None);
        r.messages.push(Message::user("again"));
        r.tool_choice = Some(ToolChoice::None);
        assert_eq!(tool_call(3, &r), None);
    }
}
