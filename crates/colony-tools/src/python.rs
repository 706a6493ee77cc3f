//! `python`: runs model-written Python in the sandbox and returns what it printed.
//!
//! Model-written code is hostile: the tool only runs it through a
//! [`colony_sandbox::Sandbox`] (bubblewrap by default: no network, no view of the host, the
//! output directory or the environment, bounded CPU, memory, processes and output). Each call
//! is a fresh interpreter (no state carries between calls, so replays are exact). The result
//! is standard output then standard error, each clipped with a marker, and the reason when
//! the program failed (`[exited with code 1]`, `[wall-clock time limit]`); a program that fails
//! is still a result the model reads, not a tool error. A sandbox that cannot start is.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use colony_llm::ToolSpec;
use colony_runtime::{Tool, ToolError};
use colony_sandbox::{Limits, Program, Sandbox};

/// Longest program accepted, in bytes.
pub const MAX_PROGRAM_BYTES: usize = 64 * 1024;

/// The `python` tool (see the module docs).
pub struct PythonTool {
    spec: ToolSpec,
    sandbox: Arc<dyn Sandbox>,
    limits: Limits,
}

impl std::fmt::Debug for PythonTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PythonTool")
            .field("sandbox", &self.sandbox.name())
            .field("limits", &self.limits)
            .finish()
    }
}

impl PythonTool {
    /// Runs programs in `sandbox` under `limits`.
    pub fn new(sandbox: Arc<dyn Sandbox>, limits: Limits) -> Self {
        Self {
            spec: ToolSpec {
                name: "python".into(),
                description: "Runs a Python 3 program in an isolated sandbox (no network, no \
                              files kept between calls) and returns what it printed. Use print()."
                    .into(),
                parameters: json!({
                    "type": "object",
                    "properties": {"code": {
                        "type": "string",
                        "description": "The whole program; its output is what it prints.",
                        "examples": ["print(sum(range(1, 11)))"],
                        "maxLength": MAX_PROGRAM_BYTES,
                    }},
                    "required": ["code"],
                    "additionalProperties": false,
                }),
            },
            sandbox,
            limits,
        }
    }

    /// Whether programs are isolated (false under `--sandbox none`).
    pub fn isolated(&self) -> bool {
        self.sandbox.isolated()
    }
}

#[async_trait]
impl Tool for PythonTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<String, ToolError> {
        let code = arguments
            .get("code")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::InvalidArguments {
                message: "`code` must be a string".into(),
            })?
            .to_string();
        let sandbox = self.sandbox.clone();
        let limits = self.limits.clone();
        let outcome =
            tokio::task::spawn_blocking(move || sandbox.run(&Program::python(code), &limits))
                .await
                .map_err(|e| ToolError::Unavailable {
                    message: format!("the sandbox worker stopped: {e}"),
                })?
                .map_err(|e| ToolError::Unavailable {
                    message: e.to_string(),
                })?;
        let text = outcome.combined_text();
        Ok(if text.is_empty() {
            "[no output: the program printed nothing]".into()
        } else {
            text
        })
    }
}
