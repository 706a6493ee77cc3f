"""A small MCP server over streamable HTTP, for crates/colony-tools/tests/mcp.rs: one
deterministic tool, `add`, on 127.0.0.1:PORT/mcp (PORT is the first argument). It uses the
official Python SDK (`mcp`, installed with mcp-server-time): its `MCPServer`, or `FastMCP` in
the SDK's older releases."""
import sys

port = int(sys.argv[1])
try:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("colony-test-http")

    def serve():
        app.run("streamable-http", host="127.0.0.1", port=port)
except ImportError:
    from mcp.server.fastmcp import FastMCP

    app = FastMCP("colony-test-http", host="127.0.0.1", port=port)

    def serve():
        app.run(transport="streamable-http")


@app.tool(description="Adds two integers")
def add(a: int, b: int) -> int:
    return a + b


serve()
