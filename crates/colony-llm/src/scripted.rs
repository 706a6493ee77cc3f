//! `ScriptedModel`: canned replies in call order (cycling), text or tool calls, for tests and
//! for `colony serve-mock --script FILE`.
//!
//! A script file is JSONL, one reply per line: `{"content": "text"}`, or
//! `{"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}` (with an
//! optional `content` beside). Arguments given as an object are sent as its JSON text; given as
//! a string they are sent verbatim, so a script can make the malformed calls a real model
//! makes. Call ids are `call_<line>_<k>`. Replies are taken in call order whatever asks, so a
//! script drives one conversation at a time (one client, one call in flight).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;

use super::{
    approx_prompt_tokens, approx_tokens, ChatModel, ChatRequest, ChatResponse, FinishReason,
    ModelError, ToolCall, Usage,
};

/// Largest script file read.
pub const MAX_SCRIPT_BYTES: u64 = 16 << 20;

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScriptedReply {
    /// The reply text.
    pub content: String,
    /// The tool calls of the reply (then `finish_reason` is `tool_calls`).
    pub tool_calls: Vec<ToolCall>,
}

impl ScriptedReply {
    /// A text reply.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            tool_calls: Vec::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplyLine {
    #[serde(default)]
    content: String,
    #[serde(default)]
    tool_calls: Vec<CallLine>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallLine {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// The scripted model (see the module docs).
#[derive(Debug)]
pub struct ScriptedModel {
    name: String,
    replies: Vec<ScriptedReply>,
    next: AtomicUsize,
}

impl ScriptedModel {
    /// A model answering `replies` in call order, cycling; an empty list is an error on call.
    pub fn new(name: &str, replies: Vec<ScriptedReply>) -> Self {
        Self {
            name: name.to_string(),
            replies,
            next: AtomicUsize::new(0),
        }
    }

    /// The script in `path` (see the module docs); errors name the file and line.
    pub fn load(name: &str, path: &Path) -> Result<Self, ModelError> {
        let text = colony_env_api::bounded::read_string(path, MAX_SCRIPT_BYTES)
            .map_err(|e| ModelError::Config(e.to_string()))?;
        let mut replies = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |m: String| ModelError::Config(format!("{}:{}: {m}", path.display(), i + 1));
            let parsed: ReplyLine = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            let tool_calls = parsed
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(k, c)| {
                    if c.name.trim().is_empty() {
                        return Err(bad("a tool call without a name".into()));
                    }
                    Ok(ToolCall {
                        id: format!("call_{}_{k}", i + 1),
                        name: c.name,
                        arguments: match c.arguments {
                            Value::String(s) => s,
                            Value::Null => "{}".into(),
                            other => other.to_string(),
                        },
                    })
                })
                .collect::<Result<_, _>>()?;
            replies.push(ScriptedReply {
                content: parsed.content,
                tool_calls,
            });
        }
        if replies.is_empty() {
            return Err(ModelError::Config(format!(
                "{}: the script holds no reply",
                path.display()
            )));
        }
        Ok(Self::new(name, replies))
    }
}

#[async_trait]
impl ChatModel for ScriptedModel {
    fn id(&self) -> &str {
        &self.name
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        if self.replies.is_empty() {
            return Err(ModelError::Simulated {
                model: self.name.clone(),
                message: "scripted model has no replies".into(),
            });
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.replies.len();
        let mut reply = self.replies[i].clone();
        // Text replies honour stop sequences and `max_tokens`, as the simulated model's do.
        let mut finish = FinishReason::ToolCalls;
        if reply.tool_calls.is_empty() {
            let (text, f) = super::reply_limits::apply_limits(reply.content, request);
            reply.content = text;
            finish = f;
        }
        let calls_tokens: u64 = reply
            .tool_calls
            .iter()
            .map(|c| approx_tokens(&c.name) + approx_tokens(&c.arguments))
            .sum();
        Ok(ChatResponse {
            usage: Usage {
                prompt_tokens: approx_prompt_tokens(&request.messages),
                completion_tokens: approx_tokens(&reply.content) + calls_tokens,
                ..Usage::default()
            },
            finish_reason: finish,
            text: reply.content,
            latency: Duration::ZERO,
            model: self.name.clone(),
            retries: 0,
            cached: false,
            tool_calls: reply.tool_calls,
            tool_trace: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Message;

    #[tokio::test]
    async fn scripts_load_and_cycle_and_bad_lines_name_the_line() {
        let dir = std::env::temp_dir().join(format!("colony-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        std::fs::write(
            &path,
            "{\"tool_calls\": [{\"name\": \"calculator\", \"arguments\": {\"expression\": \"1+1\"}}, \
             {\"name\": \"python\", \"arguments\": \"{oops\"}]}\n\n{\"content\": \"done\"}\n",
        )
        .unwrap();
        let m = ScriptedModel::load("s", &path).unwrap();
        let r = ChatRequest::new(vec![Message::user("q")]);
        let first = m.chat(&r).await.unwrap();
        assert_eq!(first.finish_reason, FinishReason::ToolCalls);
        assert_eq!(first.tool_calls[0].arguments, r#"{"expression":"1+1"}"#);
        assert_eq!(first.tool_calls[1].arguments, "{oops");
        assert_eq!(first.tool_calls[1].id, "call_1_1");
        assert_eq!(m.chat(&r).await.unwrap().text, "done");
        assert_eq!(m.chat(&r).await.unwrap().tool_calls.len(), 2);
        std::fs::write(
            &path,
            "{\"content\": \"x\"}\n{\"tool_calls\": [{\"arguments\": {}}]}\n",
        )
        .unwrap();
        let err = ScriptedModel::load("s", &path).unwrap_err().to_string();
        assert!(err.contains("s.jsonl:2:"), "{err}");
        std::fs::write(&path, "\n").unwrap();
        let err = ScriptedModel::load("s", &path).unwrap_err().to_string();
        assert!(err.contains("holds no reply"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
