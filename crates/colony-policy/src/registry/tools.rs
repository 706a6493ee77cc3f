//! Tools in the registry: named constructors of the [`colony_runtime::Tool`]s agents may be
//! offered (`--tools NAME`, a suite's `tools`), registered like policies so a plugin crate
//! adds its own; `mcp:SERVER[/TOOL]` names are resolved against the run's MCP servers.

use std::sync::Arc;

use colony_runtime::{SharedTool, ToolSet};
use colony_tools::{ToolContext, ToolsError};

use super::Registry;

/// A tool constructor: what the run configured (sandbox, limits, servers) to the tool.
pub type ToolCtor = Arc<dyn Fn(&ToolContext) -> Result<SharedTool, ToolsError> + Send + Sync>;

/// One registered tool.
#[derive(Clone)]
pub struct ToolEntry {
    /// The name `--tools` uses.
    pub name: String,
    /// One line: what it does.
    pub help: String,
    build: ToolCtor,
}

impl Registry {
    /// Adds a tool `name` built by `build` for each run that names it.
    pub fn tool<F>(mut self, name: &str, help: &str, build: F) -> Self
    where
        F: Fn(&ToolContext) -> Result<SharedTool, ToolsError> + Send + Sync + 'static,
    {
        if self.tools.iter().any(|t| t.name == name) {
            self.note_duplicate("tool", name);
        }
        self.tools.push(ToolEntry {
            name: name.to_string(),
            help: help.to_string(),
            build: Arc::new(build),
        });
        self
    }

    /// The registered tools, in registration order.
    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    /// The tool set of a run's `--tools` names (see [`colony_tools::resolve`]): registered
    /// tools by name, MCP servers' tools from `ctx.mcp` (each server started once).
    pub async fn tool_set(
        &self,
        names: &[String],
        ctx: &ToolContext,
    ) -> Result<ToolSet, ToolsError> {
        let known: Vec<String> = self.tools.iter().map(|t| t.name.clone()).collect();
        let lookup = |name: &str, ctx: &ToolContext| {
            self.tools
                .iter()
                .find(|t| t.name == name)
                .map(|t| (t.build)(ctx))
        };
        colony_tools::resolve(names, ctx, &lookup, &known).await
    }
}
