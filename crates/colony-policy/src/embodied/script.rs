//! Scripted replies for embodied episodes (`--model script:FILE`): a JSONL file of
//! `{"agent", "step", "purpose", "reply"}` objects (`purpose` optional), for exact replays of
//! another system's episodes and for tests.
//!
//! A call looks up (agent, step, purpose) first, then the line without a purpose for that
//! agent and step, so one line can answer every call of a step when a policy makes one call
//! per agent. A missing line is an error naming agent, step and purpose, never a silent
//! default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

/// Largest script file read (a replay of a long episode with hundreds of agents fits).
pub const MAX_SCRIPT_BYTES: u64 = 512 * 1024 * 1024;

/// Errors of reply scripts.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The file cannot be read or is too large.
    #[error("script {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A line is not a script entry.
    #[error("script {path}:{line}: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// No line answers a call.
    #[error("script {path} has no reply for agent {agent:?}, step {step}, purpose {purpose:?}")]
    Missing {
        /// The file.
        path: PathBuf,
        /// The calling agent.
        agent: String,
        /// The step.
        step: u64,
        /// The call's purpose.
        purpose: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    agent: String,
    step: u64,
    #[serde(default)]
    purpose: Option<String>,
    reply: String,
}

/// Replies keyed by (agent, step, purpose); see the module docs.
#[derive(Debug, Clone)]
pub struct ReplyScript {
    path: PathBuf,
    replies: HashMap<(String, u64, Option<String>), String>,
}

impl ReplyScript {
    /// Loads a script file (size-bounded; errors name file and line).
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let io = |message: String| ScriptError::Io {
            path: path.to_path_buf(),
            message,
        };
        let text = colony_env_api::bounded::read_string(path, MAX_SCRIPT_BYTES)
            .map_err(|e| io(e.to_string()))?;
        Self::parse(&text, path)
    }

    /// Parses script text (`origin` names it in errors).
    pub fn parse(text: &str, origin: &Path) -> Result<Self, ScriptError> {
        let mut replies = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let err = |message: String| ScriptError::Line {
                path: origin.to_path_buf(),
                line: i + 1,
                message,
            };
            let l: Line = serde_json::from_str(raw).map_err(|e| err(e.to_string()))?;
            let key = (l.agent, l.step, l.purpose);
            if replies.insert(key.clone(), l.reply).is_some() {
                return Err(err(format!(
                    "a second reply for agent {:?}, step {}, purpose {:?}",
                    key.0, key.1, key.2
                )));
            }
        }
        Ok(Self {
            path: origin.to_path_buf(),
            replies,
        })
    }

    /// The reply for a call.
    pub fn reply(&self, agent: &str, step: u64, purpose: &str) -> Result<String, ScriptError> {
        let exact = (agent.to_string(), step, Some(purpose.to_string()));
        if let Some(r) = self.replies.get(&exact) {
            return Ok(r.clone());
        }
        self.replies
            .get(&(agent.to_string(), step, None))
            .cloned()
            .ok_or_else(|| ScriptError::Missing {
                path: self.path.clone(),
                agent: agent.to_string(),
                step,
                purpose: purpose.to_string(),
            })
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.replies.len()
    }

    /// True when the script has no line.
    pub fn is_empty(&self) -> bool {
        self.replies.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_with_and_without_purpose_and_clear_errors() {
        let text = r#"{"agent":"Agent_0","step":0,"reply":"ACTION: UP"}
{"agent":"Agent_0","step":1,"purpose":"act","reply":"ACTION: DOWN"}
"#;
        let s = ReplyScript::parse(text, Path::new("s.jsonl")).unwrap();
        assert_eq!(s.reply("Agent_0", 0, "act").unwrap(), "ACTION: UP");
        assert_eq!(s.reply("Agent_0", 1, "act").unwrap(), "ACTION: DOWN");
        let e = s.reply("Agent_0", 1, "perception").unwrap_err().to_string();
        assert!(
            e.contains("Agent_0") && e.contains("step 1") && e.contains("perception"),
            "{e}"
        );
        let e = ReplyScript::parse("{\"agent\":1}", Path::new("s.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("script s.jsonl:1:"), "{e}");
    }
}
