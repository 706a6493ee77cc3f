//! colony-tools: what agents can call (docs/design/tools.md).
//!
//! - [`PythonTool`] (`python`): model-written code, run only in the sandbox of
//!   `colony-sandbox`.
//! - [`Calculator`] (`calculator`): exact rational arithmetic, no code execution.
//! - [`McpSession`] / [`McpTool`] (`mcp:NAME/TOOL`): any Model Context Protocol server's tools,
//!   through the official Rust SDK (`rmcp`).
//!
//! [`resolve`] turns a run's `--tools` list into the [`ToolSet`] every agent is offered (the
//! registry passes the tools plugins registered); `colony_runtime::ToolLoop` runs them.

mod calculator;
mod mcp;
mod python;

use std::collections::HashMap;
use std::sync::Arc;

pub use calculator::{evaluate, render, Calculator};
pub use mcp::{
    McpServerConfig, McpSession, McpTable, McpTool, McpTransport, MAX_MCP_TOOLS,
    MCP_CONNECT_TIMEOUT,
};
pub use python::{PythonTool, MAX_PROGRAM_BYTES};

use colony_runtime::{SharedTool, ToolSet, ToolSetError};
use colony_sandbox::Limits;

/// Errors of configuring and resolving tools: each names the flag, table or tool at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolsError {
    /// A name in `--tools` that no built-in, plugin or configured server provides.
    #[error("--tools: unknown tool {name:?} (known: {known}; MCP tools are mcp:SERVER or mcp:SERVER/TOOL)")]
    UnknownTool {
        /// The name.
        name: String,
        /// The known names.
        known: String,
    },
    /// `mcp:NAME` for a server that is not configured.
    #[error("--tools: mcp:{server} names no configured MCP server (add --mcp {server}=COMMAND or a [mcp.{server}] table; configured: {configured})")]
    McpNotConfigured {
        /// The server name.
        server: String,
        /// The configured names.
        configured: String,
    },
    /// A malformed `--mcp` flag or `[mcp.NAME]` table.
    #[error("{what}: {message}")]
    BadMcp {
        /// The flag or table.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A server that did not start, initialize or list its tools.
    #[error("MCP server {server}: {message}")]
    McpStart {
        /// The server name.
        server: String,
        /// Why.
        message: String,
    },
    /// `mcp:NAME/TOOL` for a tool the server does not offer.
    #[error("--tools: MCP server {server} has no tool {tool:?} (it offers: {available})")]
    McpNoSuchTool {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
        /// What it offers.
        available: String,
    },
    /// The `python` tool without a usable sandbox.
    #[error("--tools python: {0}")]
    Sandbox(#[from] colony_sandbox::SandboxError),
    /// Two tools with one wire name.
    #[error("--tools: {0}")]
    Set(#[from] ToolSetError),
}

/// What building tools needs: the sandbox `python` runs in and its limits, and the MCP
/// servers a run configured.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// `--sandbox` (`bubblewrap` or `none`).
    pub sandbox: String,
    /// Limits of one `python` call.
    pub python_limits: Limits,
    /// The configured MCP servers (`--mcp`, `[mcp.NAME]`).
    pub mcp: Vec<McpServerConfig>,
}

impl Default for ToolContext {
    fn default() -> Self {
        Self {
            sandbox: "bubblewrap".into(),
            python_limits: Limits::default(),
            mcp: Vec::new(),
        }
    }
}

/// The built-in tool names, in the order `--help` lists them.
pub const BUILTIN_TOOLS: [&str; 2] = ["python", "calculator"];

/// A built-in tool by name (`None`: not a built-in).
pub fn builtin(name: &str, ctx: &ToolContext) -> Option<Result<SharedTool, ToolsError>> {
    match name {
        "calculator" => Some(Ok(Arc::new(Calculator::default()))),
        "python" => Some(
            colony_sandbox::by_name(&ctx.sandbox)
                .map(|sandbox| {
                    Arc::new(PythonTool::new(
                        Arc::from(sandbox),
                        ctx.python_limits.clone(),
                    )) as SharedTool
                })
                .map_err(ToolsError::from),
        ),
        _ => None,
    }
}

/// Splits a `--tools` value (`python,calculator,mcp:time/get_current_time`) into names,
/// trimmed, empty ones dropped, first occurrence kept.
pub fn parse_tool_list(list: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in list.iter().flat_map(|l| l.split(',')).map(str::trim) {
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// A registered tool by name (the registry's lookup; `None`: no such tool).
pub type ToolLookup<'a> = &'a dyn Fn(&str, &ToolContext) -> Option<Result<SharedTool, ToolsError>>;

/// The tool set of `names`: `mcp:SERVER` (all of a server's tools) and `mcp:SERVER/TOOL`,
/// each server started once; any other name from `lookup` (the registry's tools: the
/// built-ins of [`builtin`] and what plugins registered). `known` lists those names for the
/// error of an unknown one.
pub async fn resolve(
    names: &[String],
    ctx: &ToolContext,
    lookup: ToolLookup<'_>,
    known: &[String],
) -> Result<ToolSet, ToolsError> {
    let mut sessions: HashMap<String, Arc<McpSession>> = HashMap::new();
    let mut tools: Vec<SharedTool> = Vec::new();
    for name in names {
        if let Some(rest) = name.strip_prefix("mcp:") {
            let (server, tool) = match rest.split_once('/') {
                Some((s, t)) => (s, Some(t)),
                None => (rest, None),
            };
            let session = match sessions.get(server) {
                Some(s) => s.clone(),
                None => {
                    let config = ctx.mcp.iter().find(|c| c.name == server).ok_or_else(|| {
                        ToolsError::McpNotConfigured {
                            server: server.chars().take(40).collect(),
                            configured: list_or_none(ctx.mcp.iter().map(|c| c.name.as_str())),
                        }
                    })?;
                    let s = McpSession::connect(config).await?;
                    sessions.insert(server.to_string(), s.clone());
                    s
                }
            };
            match tool {
                Some(t) => tools.push(session.tool(t)?),
                None => tools.extend(session.all_tools()),
            }
            continue;
        }
        let tool = lookup(name, ctx).ok_or_else(|| ToolsError::UnknownTool {
            name: name.chars().take(80).collect(),
            known: list_or_none(known.iter().map(String::as_str)),
        })??;
        tools.push(tool);
    }
    Ok(ToolSet::new(tools)?)
}

fn list_or_none<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
