//! Tools agents can call: the [`Tool`] trait, a run's [`ToolSet`], and the bounded tool loop
//! ([`ToolLoop`]) that runs them between model rounds.
//!
//! A tool is one small trait: its [`ToolSpec`] (name, description, JSON Schema of the
//! arguments) and one async call returning text or a typed [`ToolError`]. Built-ins
//! (`python`, `calculator`) and MCP servers' tools implement it in `colony-tools`; a plugin
//! crate registers its own through the open registry. The loop never lets a tool failure end
//! a run: bad arguments, unknown tools, errors and timeouts go back to the model as error
//! messages (the convention of the OpenAI and Anthropic SDKs) and are counted.

mod schema;
mod tool_loop;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use colony_llm::{wire_tool_name, ToolSpec};

pub use schema::check_arguments;
pub use tool_loop::ToolLoop;

/// Something an agent can call (see the module docs).
#[async_trait]
pub trait Tool: Send + Sync + std::fmt::Debug {
    /// Its name as users write it (`python`, `mcp:time/get_current_time`), description and
    /// argument schema.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool on arguments that passed the schema check; returns the text for the
    /// model.
    async fn call(&self, arguments: Value) -> Result<String, ToolError>;
}

/// A shared tool.
pub type SharedTool = Arc<dyn Tool>;

/// Why a tool call failed; the tool loop turns it into an error message for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments were wrong in a way the schema could not say.
    #[error("invalid arguments: {message}")]
    InvalidArguments {
        /// What was wrong.
        message: String,
    },
    /// The tool ran and failed (its own error, a server's `isError` result).
    #[error("{message}")]
    Failed {
        /// What the tool said.
        message: String,
    },
    /// The tool could not be reached (an MCP server that exited, a missing sandbox).
    #[error("unavailable: {message}")]
    Unavailable {
        /// Why.
        message: String,
    },
}

impl ToolError {
    /// A [`ToolError::Failed`].
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
        }
    }
}

/// Bounds of the tool loop of one agent turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolLimits {
    /// Model rounds that may call tools in one ask; the round after the last is sent with
    /// `tool_choice: none`, so the model must answer.
    pub max_tool_rounds: u32,
    /// Deadline of one tool call.
    pub call_timeout: Duration,
    /// Most bytes of one result the model sees; the rest is cut with a marker.
    pub max_output_bytes: usize,
    /// Most tool calls one model reply may make; the rest are answered with an error.
    pub max_calls_per_round: usize,
}

/// Decision: 8 rounds (ReAct's HotpotQA traces need at most 7 steps), 60 s per call (the
/// `python` tool's own wall limit is below it), 16 KiB per result (about 4k tokens, a small
/// model's whole context at most), 16 calls per reply.
impl Default for ToolLimits {
    fn default() -> Self {
        Self {
            max_tool_rounds: 8,
            call_timeout: Duration::from_secs(60),
            max_output_bytes: 16 * 1024,
            max_calls_per_round: 16,
        }
    }
}

/// Most tool rounds a run may ask for (`max_tool_rounds`).
pub const MAX_TOOL_ROUNDS: u32 = 64;

/// The tools of a run, by wire name (see [`colony_llm::wire_tool_name`]).
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    tools: Vec<SharedTool>,
    /// The specs sent to the model, made once: every request of a tool-using run carries them.
    wire: Vec<ToolSpec>,
    by_wire: HashMap<String, usize>,
}

/// Errors of building a [`ToolSet`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSetError {
    /// Two tools would have the same wire name.
    #[error("tools {first:?} and {second:?} have the same wire name {wire:?}")]
    Duplicate {
        /// The first tool.
        first: String,
        /// The second tool.
        second: String,
        /// Their shared wire name.
        wire: String,
    },
}

impl ToolSet {
    /// The set of `tools`, in order; two with the same wire name are an error.
    pub fn new(tools: Vec<SharedTool>) -> Result<Self, ToolSetError> {
        let mut by_wire = HashMap::new();
        let mut wire = Vec::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            let spec = t.spec();
            let name = wire_tool_name(&spec.name);
            if let Some(&j) = by_wire.get(&name) {
                let first: &SharedTool = &tools[j];
                return Err(ToolSetError::Duplicate {
                    first: first.spec().name.clone(),
                    second: spec.name.clone(),
                    wire: name,
                });
            }
            by_wire.insert(name.clone(), i);
            wire.push(ToolSpec {
                name,
                description: spec.description.clone(),
                parameters: spec.parameters.clone(),
            });
        }
        Ok(Self {
            tools,
            wire,
            by_wire,
        })
    }

    /// True when there is no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools, in order.
    pub fn tools(&self) -> &[SharedTool] {
        &self.tools
    }

    /// The tool called `wire` on the wire.
    pub fn by_wire_name(&self, wire: &str) -> Option<&SharedTool> {
        self.by_wire.get(wire).map(|&i| &self.tools[i])
    }

    /// The specs sent to the model (wire names), in order.
    pub fn wire_specs(&self) -> &[ToolSpec] {
        &self.wire
    }

    /// The readable names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.spec().name.as_str()).collect()
    }
}
