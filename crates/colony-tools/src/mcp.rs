//! Model Context Protocol servers' tools, through the official Rust SDK (`rmcp`).
//!
//! A server is configured by name, with a command (spoken to over its standard input and
//! output) or a streamable-HTTP URL: `--mcp NAME=COMMAND` / `--mcp NAME=http://…`, or a
//! `[mcp.NAME]` table with `command = [...]` or `url = "…"`. [`McpSession::connect`] starts
//! it, runs the initialize handshake and lists its tools; each becomes a [`McpTool`] named
//! `mcp:NAME/TOOL`. A call that the server answers with `isError` or that fails in transport
//! is a [`ToolError`], which the tool loop shows the model and counts.
//!
//! Decision: a server is a program the user chose (not model-written code), so it runs on the
//! host with the user's environment, as MCP clients run them; its standard error is kept (the
//! last lines name why it failed to start) and logged at debug level. It is stopped when the
//! last handle to its session is dropped.

use std::collections::{BTreeMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::ToolsError;
use colony_llm::ToolSpec;
use colony_runtime::{SharedTool, Tool, ToolError};

/// How long a server may take to start, answer `initialize` and list its tools.
pub const MCP_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Most tools one server may offer.
pub const MAX_MCP_TOOLS: usize = 256;
/// Lines of a server's standard error kept for error messages.
const STDERR_LINES: usize = 20;

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A program and its arguments, spoken to over stdio.
    Command(Vec<String>),
    /// A streamable-HTTP endpoint.
    Url(String),
}

/// One configured server: its name (the `NAME` of `mcp:NAME/TOOL`) and transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The server's name.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
}

/// A `[mcp.NAME]` table (read with `models.toml` or a suite).
pub use colony_llm::McpServerTable as McpTable;

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl McpServerConfig {
    /// Parses `--mcp NAME=COMMAND` (split like a shell word list) or `--mcp NAME=http://…`.
    pub fn parse_flag(flag: &str) -> Result<Self, ToolsError> {
        let bad = |message: &str| ToolsError::BadMcp {
            what: format!("--mcp {}", flag.chars().take(120).collect::<String>()),
            message: message.to_string(),
        };
        let (name, rest) = flag
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=COMMAND or NAME=http://URL"))?;
        let name = name.trim();
        if !valid_name(name) {
            return Err(bad("NAME must be 1-40 letters, digits, `_` or `-`"));
        }
        let rest = rest.trim();
        let transport = if rest.starts_with("http://") || rest.starts_with("https://") {
            McpTransport::Url(rest.to_string())
        } else {
            let words = shlex::split(rest).ok_or_else(|| bad("unbalanced quotes in COMMAND"))?;
            if words.is_empty() {
                return Err(bad("COMMAND is empty"));
            }
            McpTransport::Command(words)
        };
        Ok(Self {
            name: name.to_string(),
            transport,
        })
    }

    /// The server of a `[mcp.NAME]` table (`origin` names the file for errors).
    pub fn from_table(name: &str, table: McpTable, origin: &str) -> Result<Self, ToolsError> {
        let bad = |message: &str| ToolsError::BadMcp {
            what: format!("{origin}: [mcp.{name}]"),
            message: message.to_string(),
        };
        if !valid_name(name) {
            return Err(bad("the name must be 1-40 letters, digits, `_` or `-`"));
        }
        let transport = match (table.command, table.url) {
            (Some(c), None) if !c.is_empty() && !c[0].is_empty() => McpTransport::Command(c),
            (Some(_), None) => return Err(bad("`command` is empty")),
            (None, Some(u)) if u.starts_with("http://") || u.starts_with("https://") => {
                McpTransport::Url(u)
            }
            (None, Some(_)) => return Err(bad("`url` must start with http:// or https://")),
            (Some(_), Some(_)) => return Err(bad("give `command` or `url`, not both")),
            (None, None) => return Err(bad("needs `command = [...]` or `url = \"…\"`")),
        };
        Ok(Self {
            name: name.to_string(),
            transport,
        })
    }

    /// The servers of a `mcp` table of tables.
    pub fn from_tables(
        tables: BTreeMap<String, McpTable>,
        origin: &str,
    ) -> Result<Vec<Self>, ToolsError> {
        tables
            .into_iter()
            .map(|(name, t)| Self::from_table(&name, t, origin))
            .collect()
    }
}

type Service = RunningService<RoleClient, ClientConfig>;

/// A running, initialized server and its tools.
pub struct McpSession {
    name: String,
    service: Service,
    tools: Vec<ToolSpec>,
}

impl std::fmt::Debug for McpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSession")
            .field("name", &self.name)
            .field("tools", &self.tools.len())
            .finish()
    }
}

impl McpSession {
    /// Starts (or reaches) `config`'s server, initializes it and lists its tools, within
    /// [`MCP_CONNECT_TIMEOUT`].
    pub async fn connect(config: &McpServerConfig) -> Result<Arc<Self>, ToolsError> {
        let stderr: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let fail = |message: String, stderr: &Arc<Mutex<VecDeque<String>>>| {
            let tail: Vec<String> = stderr
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .cloned()
                .collect();
            let message = if tail.is_empty() {
                message
            } else {
                format!("{message}; its last output: {}", tail.join(" | "))
            };
            ToolsError::McpStart {
                server: config.name.clone(),
                message,
            }
        };
        let info = ClientConfig::new(
            Default::default(),
            Implementation::new("colony", env!("CARGO_PKG_VERSION")),
        );
        let connecting = async {
            match &config.transport {
                McpTransport::Command(words) => {
                    let mut cmd = tokio::process::Command::new(&words[0]);
                    cmd.args(&words[1..]);
                    let (transport, err) = TokioChildProcess::builder(cmd)
                        .stderr(Stdio::piped())
                        .spawn()
                        .map_err(|e| format!("cannot start {:?}: {e}", words[0]))?;
                    if let Some(err) = err {
                        keep_stderr(&config.name, err, stderr.clone());
                    }
                    info.clone()
                        .serve(transport)
                        .await
                        .map_err(|e| format!("initialize failed: {e}"))
                }
                McpTransport::Url(url) => {
                    // colony's one HTTP client setup (rustls on ring), shared with the models.
                    let client = colony_llm::http::client()
                        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
                    let transport = StreamableHttpClientTransport::with_client(
                        client,
                        StreamableHttpClientTransportConfig::with_uri(url.as_str()),
                    );
                    info.clone()
                        .serve(transport)
                        .await
                        .map_err(|e| format!("initialize failed: {e}"))
                }
            }
        };
        let service = match tokio::time::timeout(MCP_CONNECT_TIMEOUT, connecting).await {
            Err(_) => {
                return Err(fail(
                    format!("no answer within {} s", MCP_CONNECT_TIMEOUT.as_secs()),
                    &stderr,
                ))
            }
            Ok(Err(message)) => return Err(fail(message, &stderr)),
            Ok(Ok(s)) => s,
        };
        let listed = tokio::time::timeout(MCP_CONNECT_TIMEOUT, service.list_all_tools())
            .await
            .map_err(|_| fail("tools/list did not answer".into(), &stderr))?
            .map_err(|e| fail(format!("tools/list failed: {e}"), &stderr))?;
        if listed.len() > MAX_MCP_TOOLS {
            return Err(fail(
                format!("offers {} tools, more than {MAX_MCP_TOOLS}", listed.len()),
                &stderr,
            ));
        }
        let tools = listed
            .into_iter()
            .map(|t| ToolSpec {
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                parameters: Value::Object((*t.input_schema).clone()),
            })
            .collect();
        Ok(Arc::new(Self {
            name: config.name.clone(),
            service,
            tools,
        }))
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tools it offers, under their own names.
    pub fn tool_specs(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// Its tool `tool` as `mcp:NAME/TOOL`.
    pub fn tool(self: &Arc<Self>, tool: &str) -> Result<SharedTool, ToolsError> {
        let spec = self.tools.iter().find(|t| t.name == tool).ok_or_else(|| {
            ToolsError::McpNoSuchTool {
                server: self.name.clone(),
                tool: tool.chars().take(80).collect(),
                available: self
                    .tools
                    .iter()
                    .map(|t| t.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?;
        Ok(Arc::new(McpTool {
            spec: ToolSpec {
                name: format!("mcp:{}/{}", self.name, spec.name),
                ..spec.clone()
            },
            tool: spec.name.clone(),
            session: self.clone(),
        }))
    }

    /// All its tools.
    pub fn all_tools(self: &Arc<Self>) -> Vec<SharedTool> {
        self.tools
            .iter()
            .filter_map(|t| self.tool(&t.name).ok())
            .collect()
    }
}

/// Reads a server's standard error line by line: logged, and the last lines kept.
fn keep_stderr(server: &str, err: tokio::process::ChildStderr, tail: Arc<Mutex<VecDeque<String>>>) {
    let server = server.to_string();
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(err).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let line: String = line.chars().take(400).collect();
            tracing::debug!(server = %server, "mcp stderr: {line}");
            let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
            if t.len() == STDERR_LINES {
                t.pop_front();
            }
            t.push_back(line);
        }
    });
}

/// One tool of an MCP server, `mcp:NAME/TOOL`.
pub struct McpTool {
    spec: ToolSpec,
    tool: String,
    session: Arc<McpSession>,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.spec.name)
            .finish()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<String, ToolError> {
        let Value::Object(args) = arguments else {
            return Err(ToolError::InvalidArguments {
                message: "MCP tool arguments must be a JSON object".into(),
            });
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(args);
        let result =
            self.session
                .service
                .call_tool(params)
                .await
                .map_err(|e| ToolError::Unavailable {
                    message: format!("MCP server {}: {e}", self.session.name),
                })?;
        let mut parts: Vec<String> = result
            .content
            .iter()
            .map(|block| match block.as_text() {
                Some(t) => t.text.clone(),
                None => serde_json::to_string(block).unwrap_or_default(),
            })
            .collect();
        if parts.is_empty() {
            if let Some(structured) = &result.structured_content {
                parts.push(structured.to_string());
            }
        }
        let text = parts.join("\n");
        if result.is_error == Some(true) {
            return Err(ToolError::failed(text));
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn flags_and_tables_parse() {
        let c =
            McpServerConfig::parse_flag("time=python -m 'mcp_server_time' --local-timezone UTC")
                .unwrap();
        assert_eq!(c.name, "time");
        assert_eq!(
            c.transport,
            McpTransport::Command(
                ["python", "-m", "mcp_server_time", "--local-timezone", "UTC"]
                    .map(String::from)
                    .to_vec()
            )
        );
        let u = McpServerConfig::parse_flag("web=http://127.0.0.1:9/mcp").unwrap();
        assert_eq!(
            u.transport,
            McpTransport::Url("http://127.0.0.1:9/mcp".into())
        );
        for bad in ["time", "=x", "t t=x", "time=", "time=python 'unclosed"] {
            let err = McpServerConfig::parse_flag(bad).unwrap_err().to_string();
            assert!(err.starts_with("--mcp "), "{bad}: {err}");
        }
        let both = McpTable {
            command: Some(vec!["x".into()]),
            url: Some("http://x".into()),
        };
        let err = McpServerConfig::from_table("t", both, "models.toml").unwrap_err();
        assert!(err.to_string().contains("models.toml: [mcp.t]"), "{err}");
    }
}
