//! A real MCP reference server (`mcp-server-time` from PyPI, over stdio): its tools are
//! listed, an agent's tool loop calls one through the simulated model, a bad argument comes
//! back as a tool error, and an unconfigured or failing server is a clear error.
//!
//! `.ci/run` installs the server into `.cache/venv` and sets `COLONY_PYTHON` and
//! `COLONY_REQUIRE_MCP=1`; elsewhere the tests skip when the server is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use serde_json::json;

use colony_llm::{ChatModel, ChatRequest, Message, SimulatedConfig, SimulatedModel};
use colony_runtime::{ToolLimits, ToolLoop};
use colony_tools::{resolve, McpServerConfig, McpSession, ToolContext, ToolsError};

/// The Python with `mcp_server_time`, or `None` (skip) when it is missing outside CI.
fn python_with_server() -> Option<String> {
    let python = std::env::var("COLONY_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&python)
        .args(["-c", "import mcp_server_time"])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var_os("COLONY_REQUIRE_MCP").is_none(),
        "COLONY_REQUIRE_MCP is set but {python} cannot import mcp_server_time"
    );
    eprintln!("skipping: {python} has no mcp_server_time (pip install mcp-server-time)");
    None
}

fn context(python: &str) -> ToolContext {
    ToolContext {
        mcp: vec![
            McpServerConfig::parse_flag(&format!("time={python} -m mcp_server_time")).unwrap(),
        ],
        ..ToolContext::default()
    }
}

#[tokio::test]
async fn the_time_servers_tools_are_listed_and_called_by_an_agent() {
    let Some(python) = python_with_server() else {
        return;
    };
    let ctx = context(&python);
    let session = McpSession::connect(&ctx.mcp[0]).await.unwrap();
    let names: Vec<&str> = session
        .tool_specs()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert!(
        names.contains(&"get_current_time") && names.contains(&"convert_time"),
        "{names:?}"
    );

    let set = resolve(
        &["mcp:time/get_current_time".into()],
        &ctx,
        &colony_tools::builtin,
        &[],
    )
    .await
    .unwrap();
    assert_eq!(set.names(), ["mcp:time/get_current_time"]);
    assert_eq!(set.wire_specs()[0].name, "mcp__time__get_current_time");
    let model = ToolLoop::new(
        Arc::new(SimulatedModel::new(SimulatedConfig::default())),
        Arc::new(set),
        ToolLimits::default(),
        None,
    );
    let r = model
        .chat(&ChatRequest::new(vec![Message::user(
            "What time is it in New York?",
        )]))
        .await
        .unwrap();
    let ex = &r.tool_trace[0];
    assert_eq!(ex.tool.as_deref(), Some("mcp:time/get_current_time"));
    assert_eq!(ex.error, None, "{ex:?}");
    // The simulated model took the example its schema's description gives.
    assert_eq!(ex.call.arguments, r#"{"timezone":"America/New_York"}"#);
    let answer: serde_json::Value = serde_json::from_str(&ex.result).unwrap();
    assert_eq!(answer["timezone"], "America/New_York");
    assert!(
        answer["datetime"].as_str().is_some_and(|d| d.len() >= 19),
        "{answer}"
    );

    // The server's own refusal is a tool error, named in the message the model sees.
    let tool = session.tool("get_current_time").unwrap();
    let err = tool
        .call(json!({"timezone": "Not/AZone"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Invalid timezone"), "{err}");
    let err = session.tool("no_such_tool").unwrap_err();
    assert!(
        err.to_string().contains("it offers: get_current_time"),
        "{err}"
    );
}

#[tokio::test]
async fn unconfigured_and_broken_servers_are_clear_errors() {
    let ctx = ToolContext::default();
    let err = resolve(&["mcp:git".into()], &ctx, &colony_tools::builtin, &[])
        .await
        .unwrap_err();
    assert!(matches!(err, ToolsError::McpNotConfigured { .. }), "{err}");
    assert!(err.to_string().contains("--mcp git=COMMAND"), "{err}");
    let missing = McpServerConfig::parse_flag("x=/nonexistent/mcp-server").unwrap();
    let err = McpSession::connect(&missing).await.unwrap_err().to_string();
    assert!(err.starts_with("MCP server x: cannot start"), "{err}");
    // A program that is not an MCP server: the handshake fails and its output is quoted.
    let bogus =
        McpServerConfig::parse_flag("y=sh -c 'echo not-an-mcp-server >&2; exit 3'").unwrap();
    let err = McpSession::connect(&bogus).await.unwrap_err().to_string();
    assert!(err.starts_with("MCP server y: initialize failed"), "{err}");
    let err = resolve(
        &["frobnicate".into()],
        &ctx,
        &colony_tools::builtin,
        &["python".into()],
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("unknown tool \"frobnicate\" (known: python"),
        "{err}"
    );
}

/// A server over streamable HTTP (`--mcp NAME=http://…`): the official Python SDK's server
/// with one tool, started on a free loopback port.
#[tokio::test]
async fn a_streamable_http_server_is_reached_by_url() {
    let Some(python) = python_with_server() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_http_server.py");
    let mut server = std::process::Command::new(&python)
        .args([script, &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The server is up once its port accepts connections (at most 30 s).
    let up = (0..300).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let result = async {
        assert!(up, "the HTTP MCP server did not start on port {port}");
        let config =
            McpServerConfig::parse_flag(&format!("calc=http://127.0.0.1:{port}/mcp")).unwrap();
        let session = McpSession::connect(&config).await.unwrap();
        assert_eq!(session.tool_specs()[0].name, "add");
        let tool = session.tool("add").unwrap();
        assert_eq!(tool.spec().name, "mcp:calc/add");
        let sum = tool.call(json!({"a": 2, "b": 40})).await.unwrap();
        assert!(sum.contains("42"), "{sum}");
    }
    .await;
    let _ = server.kill();
    let _ = server.wait();
    result
}
