//! `--tools`, `--mcp`, `--max-tool-rounds`, `--tool-timeout`: what agents can call.

use std::path::Path;
use std::time::Duration;

use crate::eval::tools::ToolsSpec;
use crate::llm::ModelsConfig;
use crate::runtime::{ToolLimits, MAX_TOOL_ROUNDS};
use crate::tools::{parse_tool_list, McpServerConfig};
use clap::Args;

/// The tools every agent of every policy is offered.
#[derive(Args, Debug, Clone, Default)]
pub struct ToolArgs {
    /// Tools offered to every agent, comma-separated: `python` (runs in --sandbox),
    /// `calculator`, a plugin's, `mcp:SERVER` (all of a server's tools) or `mcp:SERVER/TOOL`.
    #[arg(long, value_name = "T[,T2,…]", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// An MCP server: `NAME=COMMAND` (split like a shell word list, spoken to over stdio) or
    /// `NAME=http://…` (streamable HTTP); repeatable; also `[mcp.NAME]` tables in models.toml.
    #[arg(long, value_name = "NAME=COMMAND|URL")]
    pub mcp: Vec<String>,
    /// Model rounds that may call tools in one agent turn; the next round must answer.
    #[arg(long, default_value_t = ToolLimits::default().max_tool_rounds, value_name = "N")]
    pub max_tool_rounds: u32,
    /// Seconds one tool call may take; past it the model is told it timed out.
    #[arg(long, default_value_t = ToolLimits::default().call_timeout.as_secs_f64(), value_name = "SECS")]
    pub tool_timeout: f64,
}

/// Longest `--tool-timeout` accepted, in seconds.
const MAX_TOOL_TIMEOUT_SECS: f64 = 3600.0;

impl ToolArgs {
    /// The run's tool spec: these flags, the `[mcp.NAME]` tables of `models.toml` (a flag of
    /// the same name wins) and the sandbox `python` runs in.
    pub fn spec(&self, config: Option<&Path>, sandbox: &str) -> anyhow::Result<ToolsSpec> {
        let r = self.max_tool_rounds;
        anyhow::ensure!(
            (1..=MAX_TOOL_ROUNDS).contains(&r),
            "--max-tool-rounds must be in 1..={MAX_TOOL_ROUNDS}, got {r}"
        );
        let t = self.tool_timeout;
        anyhow::ensure!(
            t.is_finite() && t > 0.0 && t <= MAX_TOOL_TIMEOUT_SECS,
            "--tool-timeout must be a number of seconds in (0, {MAX_TOOL_TIMEOUT_SECS}], got {t}"
        );
        let names = parse_tool_list(&self.tools);
        let mut mcp: Vec<McpServerConfig> = self
            .mcp
            .iter()
            .map(|f| McpServerConfig::parse_flag(f))
            .collect::<Result<_, _>>()?;
        if names.iter().any(|n| n.starts_with("mcp:")) {
            let cfg = ModelsConfig::discover(config)?;
            let origin = cfg
                .path
                .as_ref()
                .map_or_else(|| "models.toml".to_string(), |p| p.display().to_string());
            for server in McpServerConfig::from_tables(cfg.mcp.clone(), &origin)? {
                if !mcp.iter().any(|m| m.name == server.name) {
                    mcp.push(server);
                }
            }
        }
        let limits = ToolLimits {
            max_tool_rounds: r,
            call_timeout: Duration::from_secs_f64(t),
            ..ToolLimits::default()
        };
        Ok(ToolsSpec::new(names, mcp, sandbox, limits))
    }
}
