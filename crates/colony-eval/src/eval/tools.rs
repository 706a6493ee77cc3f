//! The tools of a run: what `--tools`, `--mcp` and the tool limits (or a suite's `tools` and
//! `[mcp.NAME]` keys) resolve to, built once at the door and given to every agent of every
//! policy by wrapping each member's model in a [`ToolLoop`].
//!
//! Record/replay covers the tools too: under `--record DIR` every tool result is appended to
//! `DIR/tool-calls.jsonl`, under `--replay DIR` results come from there and no tool runs (an
//! unrecorded call is a counted `replay_miss` tool error). MCP servers are still started on
//! replay, to list their tools (the tool specs are part of every request's replay key); no
//! tool of theirs is called.

use std::sync::Arc;

use colony_llm::{ModelError, SharedModel, ToolReplay};
use colony_policy::reasoning::Roster;
use colony_policy::registry::Registry;
use colony_runtime::{ToolLimits, ToolLoop, ToolSet};
use colony_tools::{McpServerConfig, ToolContext, ToolsError};

use super::CallRouting;

/// What a run asks for: tool names, MCP servers, the sandbox of `python` and the limits.
#[derive(Debug, Clone, Default)]
pub struct ToolsSpec {
    /// `--tools` names, in order (`python`, `calculator`, `mcp:time/get_current_time`).
    pub names: Vec<String>,
    /// Where the tools are built from (sandbox, `python` limits, MCP servers).
    pub context: ToolContext,
    /// Bounds of each agent turn's tool loop.
    pub limits: ToolLimits,
}

impl ToolsSpec {
    /// The spec of `names` with the MCP servers `mcp`, sandbox `sandbox` and `limits`.
    pub fn new(
        names: Vec<String>,
        mcp: Vec<McpServerConfig>,
        sandbox: &str,
        limits: ToolLimits,
    ) -> Self {
        Self {
            names,
            context: ToolContext {
                sandbox: sandbox.to_string(),
                mcp,
                ..ToolContext::default()
            },
            limits,
        }
    }

    /// True when no tool is asked for.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Errors of building a run's tools.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunToolsError {
    /// A tool could not be resolved or started.
    #[error(transparent)]
    Tools(#[from] ToolsError),
    /// The tool-result cache could not be opened.
    #[error(transparent)]
    Replay(#[from] ModelError),
}

/// The built tools of a run (see the module docs).
#[derive(Debug, Clone)]
pub struct RunTools {
    /// The tools every agent is offered.
    pub set: Arc<ToolSet>,
    /// The loop's bounds.
    pub limits: ToolLimits,
    /// The tool-result cache under `--record`/`--replay`.
    pub replay: Option<Arc<ToolReplay>>,
}

impl RunTools {
    /// Resolves `spec` through `registry` (starting MCP servers) and opens the tool-result
    /// cache `calls` names; `None` when the run asks for no tool.
    pub async fn build(
        registry: &Registry,
        spec: &ToolsSpec,
        calls: CallRouting<'_>,
    ) -> Result<Option<Self>, RunToolsError> {
        if spec.is_empty() {
            return Ok(None);
        }
        let set = registry.tool_set(&spec.names, &spec.context).await?;
        let replay = match calls {
            CallRouting::Live => None,
            CallRouting::Record(dir) => Some(Arc::new(ToolReplay::record(dir)?)),
            CallRouting::Replay(dir) => Some(Arc::new(ToolReplay::replay(dir)?)),
        };
        Ok(Some(Self {
            set: Arc::new(set),
            limits: spec.limits,
            replay,
        }))
    }

    /// `model` running these tools.
    pub fn wrap(&self, model: SharedModel) -> SharedModel {
        Arc::new(ToolLoop::new(
            model,
            self.set.clone(),
            self.limits,
            self.replay.clone(),
        ))
    }

    /// `roster` with every member's model running these tools.
    pub fn roster(&self, mut roster: Roster) -> Roster {
        for m in &mut roster.members {
            m.model = self.wrap(m.model.clone());
        }
        roster
    }
}
