"""A small MCP server on the official Python SDK (installed by install.sh) that tries what a
sandbox refuses: `write_file` creates a file at a path, `read_file` reads one, `connect` opens
a TCP connection to a port on 127.0.0.1. Each tool answers what happened (`ok` or the error),
so the braid-mcp tests can see what a server's configured sandbox lets it do."""

import socket

from mcp.server.mcpserver import MCPServer

server = MCPServer("braid-sandbox-probe")


@server.tool()
def write_file(path: str) -> str:
    """Creates (or truncates) the file at `path`."""
    try:
        with open(path, "w") as f:
            f.write("written by the probe\n")
        return "ok"
    except OSError as e:
        return f"error: {e}"


@server.tool()
def read_file(path: str) -> str:
    """Reads the file at `path`."""
    try:
        with open(path) as f:
            return "ok: " + f.read()
    except OSError as e:
        return f"error: {e}"


@server.tool()
def connect(port: int) -> str:
    """Opens a TCP connection to 127.0.0.1:`port`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            return "ok"
    except OSError as e:
        return f"error: {e}"


if __name__ == "__main__":
    server.run()
