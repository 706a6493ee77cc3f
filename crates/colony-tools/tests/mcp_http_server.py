"""A small MCP server over streamable HTTP, for crates/colony-tools/tests/mcp.rs: one
deterministic tool, `add`, on 127.0.0.1:PORT/mcp (PORT is the first argument). It uses the
official Python SDK (`mcp`, installed with mcp-server-time)."""
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("colony-test-http")


@app.tool(description="Adds two integers")
def add(a: int, b: int) -> int:
    return a + b


app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
