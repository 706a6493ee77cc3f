//! Tool-calling and structured-output values of a chat request and response, in the wire shape
//! of OpenAI Chat Completions (what vLLM, llama-server `--jinja`, Ollama and OpenAI accept).
//!
//! In memory the values are flat (`ToolCall { id, name, arguments }`); on the wire they are
//! wrapped as the API nests them (`{"id", "type": "function", "function": {"name",
//! "arguments"}}`). Because [`super::Message`] and [`super::ChatRequest`] serialize through
//! these, the transcript, the replay cache and the HTTP body are one shape.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A tool the model may call: its name, what it does and the JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by (`^[A-Za-z0-9_-]{1,64}$` on the wire, see
    /// [`wire_tool_name`]).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// The longest function name OpenAI accepts.
pub const MAX_TOOL_NAME: usize = 64;

/// The wire name of a tool: OpenAI allows only letters, digits, `_` and `-` (at most 64), so
/// `mcp:time/get_current_time` is sent as `mcp__time__get_current_time`.
///
/// Decision: `:` and `/` become `__` and any other character `_`; the result is cut to 64
/// characters. The tool loop maps a called name back through the same function, so the user
/// keeps writing the readable name.
pub fn wire_tool_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        match c {
            ':' | '/' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => out.push(c),
            _ => out.push('_'),
        }
    }
    out.truncate(MAX_TOOL_NAME);
    out
}

#[derive(Serialize, Deserialize)]
struct WireFunctionSpec {
    name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(default = "empty_object")]
    parameters: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[derive(Serialize, Deserialize)]
struct WireTool {
    #[serde(rename = "type", default = "function_kind")]
    kind: String,
    function: WireFunctionSpec,
}

fn function_kind() -> String {
    "function".into()
}

impl Serialize for ToolSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireTool {
            kind: function_kind(),
            function: WireFunctionSpec {
                name: self.name.clone(),
                description: self.description.clone(),
                parameters: self.parameters.clone(),
            },
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = WireTool::deserialize(d)?;
        Ok(Self {
            name: w.function.name,
            description: w.function.description,
            parameters: w.function.parameters,
        })
    }
}

/// One call the model asked for: its id (echoed by the tool's answer), the tool's name and
/// the arguments as the JSON text the model wrote (kept verbatim: it may not be valid JSON).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolCall {
    /// Call id (`call_…`), unique within the reply.
    pub id: String,
    /// The tool's wire name.
    pub name: String,
    /// Arguments, JSON text as written by the model.
    pub arguments: String,
}

#[derive(Serialize, Deserialize)]
struct WireFunctionCall {
    #[serde(default)]
    name: String,
    #[serde(default)]
    arguments: String,
}

#[derive(Serialize, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function_kind")]
    kind: String,
    function: WireFunctionCall,
}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireToolCall {
            id: self.id.clone(),
            kind: function_kind(),
            function: WireFunctionCall {
                name: self.name.clone(),
                arguments: self.arguments.clone(),
            },
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = WireToolCall::deserialize(d)?;
        Ok(Self {
            id: w.id,
            name: w.function.name,
            arguments: w.function.arguments,
        })
    }
}

/// Whether and which tool the model must call (`tool_choice`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (`"auto"`, the API default when tools are offered).
    Auto,
    /// No tool call: answer in text (`"none"`); the tool loop sends it on its last round.
    None,
    /// At least one tool call (`"required"`).
    Required,
    /// Exactly this tool (`{"type": "function", "function": {"name": …}}`).
    Function(String),
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Auto => s.serialize_str("auto"),
            Self::None => s.serialize_str("none"),
            Self::Required => s.serialize_str("required"),
            Self::Function(name) => serde_json::json!({
                "type": "function",
                "function": {"name": name},
            })
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match &v {
            Value::String(s) => match s.as_str() {
                "auto" => Ok(Self::Auto),
                "none" => Ok(Self::None),
                "required" => Ok(Self::Required),
                other => Err(serde::de::Error::custom(format!(
                    "unknown tool_choice {other:?} (auto, none, required or a function)"
                ))),
            },
            _ => v
                .pointer("/function/name")
                .and_then(Value::as_str)
                .map(|n| Self::Function(n.to_string()))
                .ok_or_else(|| {
                    serde::de::Error::custom("tool_choice object without function.name")
                }),
        }
    }
}

/// The shape the reply must take (`response_format`).
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    /// Any JSON object (`{"type": "json_object"}`).
    JsonObject,
    /// JSON valid under `schema` (`{"type": "json_schema", "json_schema": {"name", "schema",
    /// "strict"}}`).
    JsonSchema {
        /// A name for the schema (the API requires one).
        name: String,
        /// The JSON Schema.
        schema: Value,
    },
}

impl ResponseFormat {
    /// The schema, when there is one.
    pub fn schema(&self) -> Option<&Value> {
        match self {
            Self::JsonObject => None,
            Self::JsonSchema { schema, .. } => Some(schema),
        }
    }
}

impl Serialize for ResponseFormat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::JsonObject => serde_json::json!({"type": "json_object"}).serialize(s),
            Self::JsonSchema { name, schema } => serde_json::json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": true},
            })
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ResponseFormat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v.get("type").and_then(Value::as_str) {
            Some("json_object") => Ok(match v.get("schema") {
                // llama-server's own spelling: a schema beside `json_object`.
                Some(schema) => Self::JsonSchema {
                    name: "reply".into(),
                    schema: schema.clone(),
                },
                None => Self::JsonObject,
            }),
            Some("json_schema") => {
                let inner = v.get("json_schema").unwrap_or(&Value::Null);
                Ok(Self::JsonSchema {
                    name: inner
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("reply")
                        .to_string(),
                    schema: inner.get("schema").cloned().unwrap_or_else(empty_object),
                })
            }
            Some("text") | None => Err(serde::de::Error::custom(
                "response_format must be json_object or json_schema",
            )),
            Some(other) => Err(serde::de::Error::custom(format!(
                "unknown response_format type {other:?}"
            ))),
        }
    }
}

/// One tool call of a tool-using ask and what came back, as the transcript and the call log
/// keep it (a call's children in the viewer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolExchange {
    /// The call as the model made it.
    pub call: ToolCall,
    /// The tool's readable name (`mcp:time/get_current_time`), when the call named a known
    /// tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// What was returned to the model: the tool's output, or the error text.
    pub result: String,
    /// Set when the call failed (bad arguments, unknown tool, tool error, timeout, replay
    /// miss): the kind of failure; `result` then holds the message the model saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Time spent in the tool, in microseconds (a replay reports the recorded time).
    #[serde(default)]
    pub elapsed_us: u64,
    /// True when the result came from a replay cache instead of running the tool (not
    /// serialized: a replayed transcript equals the recorded one byte for byte).
    #[serde(skip)]
    pub cached: bool,
    /// When the call ended (not serialized, as `cached`): a trace places the call's span
    /// from `finished_at - elapsed_us` to `finished_at`.
    #[serde(skip)]
    pub finished_at: Option<std::time::SystemTime>,
}

/// What a list of exchanges adds up to: calls, failed calls, microseconds in tools (the one
/// tally of usage totals and of embodied episodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolTally {
    /// Tool calls.
    pub calls: u64,
    /// Of those, the failed ones.
    pub errors: u64,
    /// Time spent in tools, microseconds.
    pub time_us: u64,
}

impl ToolTally {
    /// The tally of `exchanges`.
    pub fn of(exchanges: &[ToolExchange]) -> Self {
        exchanges.iter().fold(Self::default(), |t, x| Self {
            calls: t.calls + 1,
            errors: t.errors + u64::from(x.error.is_some()),
            time_us: t.time_us.saturating_add(x.elapsed_us),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_shapes_match_openai() {
        let spec = ToolSpec {
            name: "calculator".into(),
            description: "math".into(),
            parameters: serde_json::json!({"type": "object"}),
        };
        let v = serde_json::to_value(&spec).unwrap();
        assert_eq!(v["type"], "function");
        assert_eq!(v["function"]["name"], "calculator");
        assert_eq!(serde_json::from_value::<ToolSpec>(v).unwrap(), spec);
        let call = ToolCall {
            id: "call_1".into(),
            name: "calculator".into(),
            arguments: "{\"expression\":\"1+1\"}".into(),
        };
        let v = serde_json::to_value(&call).unwrap();
        assert_eq!(v["function"]["arguments"], "{\"expression\":\"1+1\"}");
        assert_eq!(serde_json::from_value::<ToolCall>(v).unwrap(), call);
        for (choice, text) in [
            (ToolChoice::Auto, "\"auto\""),
            (ToolChoice::None, "\"none\""),
            (ToolChoice::Required, "\"required\""),
        ] {
            assert_eq!(serde_json::to_string(&choice).unwrap(), text);
            assert_eq!(serde_json::from_str::<ToolChoice>(text).unwrap(), choice);
        }
        let f = ToolChoice::Function("python".into());
        let back: ToolChoice = serde_json::from_value(serde_json::to_value(&f).unwrap()).unwrap();
        assert_eq!(back, f);
    }

    #[test]
    fn response_formats_round_trip_and_llama_spelling_parses() {
        let f = ResponseFormat::JsonSchema {
            name: "plan".into(),
            schema: serde_json::json!({"type": "object"}),
        };
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["json_schema"]["schema"]["type"], "object");
        assert_eq!(serde_json::from_value::<ResponseFormat>(v).unwrap(), f);
        let llama: ResponseFormat =
            serde_json::from_str(r#"{"type":"json_object","schema":{"type":"array"}}"#).unwrap();
        assert_eq!(llama.schema().unwrap()["type"], "array");
        assert!(serde_json::from_str::<ResponseFormat>(r#"{"type":"text"}"#).is_err());
    }

    #[test]
    fn wire_names_are_openai_legal() {
        assert_eq!(
            wire_tool_name("mcp:time/get_current_time"),
            "mcp__time__get_current_time"
        );
        assert_eq!(wire_tool_name("a b.c"), "a_b_c");
        assert_eq!(wire_tool_name(&"x".repeat(100)).len(), MAX_TOOL_NAME);
    }
}
