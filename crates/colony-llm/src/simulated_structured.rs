//! How the offline simulated model answers a request that asks for structured output
//! (`response_format`), so the structured path (schema sent, JSON read back as the action)
//! runs offline as it does against a server that constrains decoding.
//!
//! Decision: the model first writes its plain reply, as without `response_format`, then shapes
//! it into the schema the way a constrained decoder would keep its content:
//! - a reply that is already a JSON object is kept;
//! - a reply holding a JSON array, under a schema whose one required property is an array,
//!   becomes that property (CUBE's `{"plan": [...]}` from a JSON-array plan), and one whose
//!   items fit the required properties in order becomes those (Wildfire's action code);
//! - otherwise every required property, and every optional one the reply labels (`MSG: …`), is
//!   filled from the schema: an `enum` or `const` value
//!   the reply names (the move in `ACTION: UP`), else one drawn from the request's seed; an
//!   `anyOf`/`oneOf` alternative whose `const` the reply names, else a drawn one; a string from
//!   a `NAME: value` line of the reply, else empty; a number at its `minimum` (else 0); an
//!   array with `minItems` (at least one) items.
//!
//! `{"type": "json_object"}` without a schema wraps a reply that is not an object as
//! `{"response": "<reply>"}`.

use serde_json::{Map, Value};

use super::ResponseFormat;

/// The reply `plain` shaped for `format`, under the request's draw `seed`.
pub(crate) fn structured_reply(plain: &str, format: &ResponseFormat, seed: u64) -> String {
    let object = serde_json::from_str::<Value>(plain.trim())
        .ok()
        .filter(Value::is_object);
    let Some(schema) = format.schema() else {
        return object
            .unwrap_or_else(|| serde_json::json!({ "response": plain }))
            .to_string();
    };
    if let Some(o) = object {
        return o.to_string();
    }
    if let Some(array) = embedded_array(plain) {
        if let Some(key) = single_array_property(schema) {
            let mut out = Map::new();
            out.insert(key, array);
            return Value::Object(out).to_string();
        }
        if let Some(out) = positional(schema, &array) {
            return out.to_string();
        }
    }
    let mut draw = seed;
    fill(schema, plain, &mut draw, 0).to_string()
}

/// The first JSON array in `text` (from its first `[` to the last `]`), if it parses.
fn embedded_array(text: &str) -> Option<Value> {
    let (start, end) = (text.find('[')?, text.rfind(']')?);
    (start < end)
        .then(|| serde_json::from_str::<Value>(&text[start..=end]).ok())
        .flatten()
        .filter(Value::is_array)
}

/// An array reply read as the object's required properties in order (Wildfire's
/// `[type, param_1, param_2, "description"]` code as `{"type", "param_1", "param_2"}`), when
/// it has at least that many items and each fits its property's type.
fn positional(schema: &Value, array: &Value) -> Option<Value> {
    let required = schema.get("required")?.as_array()?;
    let items = array.as_array()?;
    if required.is_empty() || items.len() < required.len() {
        return None;
    }
    let props = schema.get("properties")?;
    let mut out = Map::new();
    for (name, item) in required.iter().zip(items) {
        let name = name.as_str()?;
        let fits = match props.get(name)?.get("type").and_then(Value::as_str) {
            Some("integer") => item.is_i64() || item.is_u64(),
            Some("number") => item.is_number(),
            Some("string") => item.is_string(),
            Some("boolean") => item.is_boolean(),
            _ => false,
        };
        if !fits {
            return None;
        }
        out.insert(name.to_string(), item.clone());
    }
    Some(Value::Object(out))
}

/// The name of the one required property of an object schema, when it is an array.
fn single_array_property(schema: &Value) -> Option<String> {
    let required = schema.get("required")?.as_array()?;
    let [name] = required.as_slice() else {
        return None;
    };
    let name = name.as_str()?;
    let prop = schema.get("properties")?.get(name)?;
    (prop.get("type").and_then(Value::as_str) == Some("array")).then(|| name.to_string())
}

/// The next draw of a splitmix64 stream (no extra dependency for a handful of choices).
fn next(draw: &mut u64) -> u64 {
    *draw = draw.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *draw;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One of `options`: the first whose text `named` finds in the reply, else a drawn one.
fn choose<'a, T>(options: &'a [T], named: impl Fn(&T) -> bool, draw: &mut u64) -> Option<&'a T> {
    options
        .iter()
        .find(|o| named(o))
        .or_else(|| options.get((next(draw) % options.len().max(1) as u64) as usize))
}

/// Whether `plain` names `value` (a string `const`/`enum` value) as a whole word.
fn names(plain: &str, value: &Value) -> bool {
    let Some(v) = value.as_str().filter(|v| !v.is_empty()) else {
        return false;
    };
    plain.match_indices(v).any(|(i, _)| {
        let before = plain[..i].chars().next_back();
        let after = plain[i + v.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The value of a `NAME: value` line of `plain` for property `name` (case-insensitive; an
/// abbreviation also matches: the name's first letter, then letters of it in order, as `MSG:`
/// for `message`).
fn labelled(plain: &str, name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    let abbreviates = |label: &str| {
        let mut rest = name.chars();
        label.len() >= 2
            && label.chars().next() == name.chars().next()
            && label.chars().all(|c| rest.any(|n| n == c))
    };
    plain.lines().find_map(|line| {
        let (label, value) = line.split_once(':')?;
        let label = label.trim().to_ascii_lowercase();
        (label == name || abbreviates(&label)).then(|| value.trim().to_string())
    })
}

fn fill(schema: &Value, plain: &str, draw: &mut u64, depth: usize) -> Value {
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return choose(options, |o| names(plain, o), draw)
            .cloned()
            .unwrap_or(Value::Null);
    }
    let alternatives = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array);
    if let Some(alts) = alternatives {
        let named = |alt: &Value| {
            alt.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| {
                    p.values()
                        .any(|s| s.get("const").is_some_and(|c| names(plain, c)))
                })
        };
        return choose(alts, named, draw)
            .map_or(Value::Null, |alt| fill(alt, plain, draw, depth + 1));
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    let number = |key: &str| schema.get(key).and_then(Value::as_i64);
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
                let label = labelled(plain, name);
                // An optional property is written when the reply says it (`MSG: …`).
                if !required.is_empty() && !required.contains(&name.as_str()) && label.is_none() {
                    continue;
                }
                let value = match label {
                    Some(text)
                        if sub.get("type").and_then(Value::as_str) == Some("string")
                            && sub.get("enum").is_none() =>
                    {
                        Value::String(text)
                    }
                    _ => fill(sub, plain, draw, depth + 1),
                };
                out.insert(name.clone(), value);
            }
            Value::Object(out)
        }
        "object" => Value::Object(Map::new()),
        "array" if depth < 8 => {
            let n = number("minItems").unwrap_or(1).clamp(1, 16) as usize;
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array(
                (0..n)
                    .map(|_| fill(&items, plain, draw, depth + 1))
                    .collect(),
            )
        }
        "array" => Value::Array(Vec::new()),
        "integer" | "number" => Value::from(number("minimum").unwrap_or(0)),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => Value::String(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn format(schema: Value) -> ResponseFormat {
        ResponseFormat::JsonSchema {
            name: "action".into(),
            schema,
        }
    }

    #[test]
    fn the_plain_reply_is_kept_in_the_schemas_shape() {
        let moves = format(json!({"type": "object", "properties": {
            "action": {"type": "string", "enum": ["UP", "DOWN", "STAY"]},
            "message": {"type": "string", "maxLength": 40}},
            "required": ["action"]}));
        let out = structured_reply("ACTION: DOWN\nMSG: follow me", &moves, 1);
        assert_eq!(
            out,
            json!({"action": "DOWN", "message": "follow me"}).to_string()
        );
        assert_eq!(
            structured_reply("ACTION: UP", &moves, 1),
            json!({"action": "UP"}).to_string()
        );
        let plan = format(json!({"type": "object", "properties": {"plan": {
            "type": "array", "items": {"type": "object"}, "minItems": 1}},
            "required": ["plan"]}));
        let out = structured_reply("I will [{\"action\": \"idle\", \"args\": {}}]", &plan, 1);
        assert_eq!(
            out,
            json!({"plan": [{"action": "idle", "args": {}}]}).to_string()
        );
        let code = format(json!({"type": "object", "properties": {
            "type": {"type": "integer"}, "param_1": {"type": "integer"},
            "param_2": {"type": "integer"}, "description": {"type": "string"}},
            "required": ["type", "param_1", "param_2"]}));
        let out = structured_reply("[3, 12, 5, \"go\"]", &code, 1);
        assert_eq!(
            out,
            json!({"type": 3, "param_1": 12, "param_2": 5}).to_string()
        );
        // Already an object: kept.
        assert_eq!(structured_reply("{\"a\": 1}", &plan, 1), "{\"a\":1}");
        // Nothing named: the draw decides, the same for the same seed.
        let a = structured_reply("no idea", &moves, 7);
        assert_eq!(a, structured_reply("no idea", &moves, 7));
        let v: Value = serde_json::from_str(&a).unwrap();
        assert!(["UP", "DOWN", "STAY"].contains(&v["action"].as_str().unwrap()));
        let any = structured_reply("just text", &ResponseFormat::JsonObject, 0);
        assert_eq!(any, json!({"response": "just text"}).to_string());
    }

    #[test]
    fn alternatives_follow_the_named_const_and_labelled_strings() {
        let schema = format(json!({"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "wait"}, "steps": {"type": "integer", "minimum": 2}}},
            {"type": "object", "properties": {"kind": {"const": "push"}, "note": {"type": "string"}}}]}));
        let out: Value =
            serde_json::from_str(&structured_reply("push it\nnote: now", &schema, 3)).unwrap();
        assert_eq!(out, json!({"kind": "push", "note": "now"}));
        let out: Value =
            serde_json::from_str(&structured_reply("let us wait", &schema, 3)).unwrap();
        assert_eq!(out, json!({"kind": "wait", "steps": 2}));
    }
}
