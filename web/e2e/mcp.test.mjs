// An MCP tool call (from a real MCP server, server-everything over stdio) is shown apart from
// built-in tools: its server's name and the plug icon, on the approval card and on the result.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, textReply, toolCallReply, waitForMcpServer, withWorld } from "./harness.mjs";

const everythingJs = join(
  repoRoot,
  "crates/braid-mcp/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

test("an MCP tool call is shown with its server, approved, and its result too", async () => {
  assert.ok(existsSync(everythingJs), `${everythingJs} is missing: run crates/braid-mcp/tests/servers/install.sh`);
  const script = {
    responses: [
      toolCallReply("call_echo_1", "mcp__everything__echo", { message: "over the wire" }),
      textReply(["The server ", "echoed it back."]),
    ],
  };
  const mcpServers = { everything: { command: "node", args: [everythingJs, "stdio"] } };
  await withWorld("mcp-tool-call", { script, mcpServers }, async (w) => {
    await waitForMcpServer(w, "everything");
    const ctx = await w.createContext();
    await w.open(ctx.id);

    // The MCP panel lists the server, ready, with its echo tool.
    await w.page.getByRole("button", { name: "MCP" }).click();
    const panel = w.page.locator("aside.side-panel");
    const server = panel.locator("li.mcp-server.status-ready", { hasText: "everything" });
    await server.waitFor();
    await server.locator("summary", { hasText: /\d+ tools/ }).click();
    await server.locator("code", { hasText: /echo$/ }).first().waitFor();
    await w.page.getByRole("button", { name: "Close panel" }).click();

    await w.send("Echo something");
    const request = w.page.locator("li.message[data-kind=mcp_tool_request]");
    await request.getByText("MCP · everything").waitFor();
    await request.locator(".mcp-icon").first().waitFor();
    await request.getByText("over the wire").waitFor();
    await w.screenshot("mcp-tool-call-pending");
    await request.getByRole("group", { name: "Approval for echo" }).getByRole("button", { name: "Approve", exact: true }).click();

    // The result fills in the call's card.
    const call = request.locator("li.tool-call.ok");
    await call.waitFor();
    assert.match(await call.getAttribute("aria-label"), /echo call, succeeded/);
    await call.getByText("MCP · everything").waitFor();
    assert.equal(await w.page.locator("li.message[data-kind=mcp_tool_result]").count(), 0);
    await w.page.getByText("The server echoed it back.").waitFor();
    // Built-in cards say "built-in"; the MCP ones never do.
    assert.equal(await w.page.locator("li.message[data-kind^=mcp_tool]").getByText("built-in").count(), 0);
  });
});
