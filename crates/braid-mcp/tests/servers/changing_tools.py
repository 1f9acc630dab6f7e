"""A small MCP server on the official Python SDK (installed by install.sh) whose tool list
changes at runtime: calling `add_tool` registers `added_<name>` and sends
`notifications/tools/list_changed`. server-everything's tool list never changes after the
handshake, so this is how the braid-mcp tests exercise the refresh."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("braid-changing-tools")


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Adds a tool named `added_<name>` and tells the client the list changed."""

    def added() -> str:
        return f"I am {name}"

    server.add_tool(added, name=f"added_{name}", description=f"Added at runtime: {name}")
    await ctx.session.send_tool_list_changed()
    return f"added added_{name}"


if __name__ == "__main__":
    server.run()
