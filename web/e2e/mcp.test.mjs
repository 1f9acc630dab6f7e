// An MCP tool call (from a real MCP server, server-everything over stdio) is shown apart from
// built-in tools: its server's name and the plug icon, on the approval card and on the result.
// The MCP panel adds that server to mcp_servers.json, switches one of its tools and then the
// whole server off for a context, and removes it again.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
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

/** Polls the context until `check(config)` holds. */
async function waitForConfig(w, id, check) {
  const deadline = Date.now() + 10_000;
  let config;
  while (Date.now() < deadline) {
    config = (await w.api("GET", `/v1/contexts/${id}`)).config;
    if (check(config)) return config;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the context's config never changed as expected: ${JSON.stringify(config)}`);
}

test("an MCP server is added from the panel, switched off with one of its tools for a context, and removed", async () => {
  assert.ok(existsSync(everythingJs), `${everythingJs} is missing: run crates/braid-mcp/tests/servers/install.sh`);
  const script = {
    responses: [
      // The model calls the tool the person switched off (it may remember it from earlier).
      toolCallReply("call_echo_off", "mcp__everything__echo", { message: "should not run" }),
      textReply(["The echo tool is off in this conversation."]),
    ],
  };
  // An empty configuration file: Braid knows where to write, and no server runs yet.
  await withWorld("mcp-manage-servers", { script, mcpServers: {} }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "manual" } });
    await w.open(ctx.id);
    await w.page.getByRole("button", { name: "MCP" }).click();
    const panel = w.page.locator("aside.side-panel");
    await panel.getByText("No MCP servers are configured.").waitFor();

    // A URL the server refuses: its 422 appears beside the field, and nothing is written.
    await panel.getByRole("button", { name: "Add server" }).click();
    const form = panel.getByRole("form", { name: "Add MCP server" });
    await form.getByLabel("Name", { exact: true }).fill("everything");
    await form.getByLabel("a URL (streamable HTTP)").check();
    await form.getByLabel(/^URL/).fill("ftp://nowhere/mcp");
    await form.getByRole("button", { name: "Add server" }).click();
    await form.getByRole("alert").filter({ hasText: "http://" }).waitFor();
    assert.equal(await form.getByLabel(/^URL/).getAttribute("aria-invalid"), "true");
    assert.deepEqual(JSON.parse(await readFile(w.mcpConfig, "utf8")), { mcpServers: {} });
    await w.screenshot("mcp-add-server-refused");

    // The real server: written to the file, connected, its tools listed.
    await form.getByLabel("a command (stdio)").check();
    await form.getByLabel(/^Command/).fill("node");
    await form.getByLabel(/^Arguments/).fill(`${everythingJs}\nstdio`);
    await form.getByRole("button", { name: "Add server" }).click();
    await form.waitFor({ state: "detached" });
    const server = panel.locator("li.mcp-server.status-ready", { hasText: "everything" });
    await server.waitFor({ timeout: 30_000 });
    const written = JSON.parse(await readFile(w.mcpConfig, "utf8"));
    assert.deepEqual(written.mcpServers.everything, { command: "node", args: [everythingJs, "stdio"] });
    await server.locator("summary", { hasText: /\d+ tools/ }).click();
    await w.screenshot("mcp-server-added");

    // One tool off for this context: the model's call to it gets an error result, unasked.
    // The box follows the saved setting, so it is clicked and then awaited, not "unchecked".
    const echoBox = server.getByRole("checkbox", { name: "Use mcp__everything__echo in this context" });
    await echoBox.click();
    await waitForConfig(w, ctx.id, (c) => (c.disabled_mcp_tools ?? []).includes("mcp__everything__echo"));
    await w.page.waitForFunction((el) => !el.checked, await echoBox.elementHandle());
    await w.page.getByRole("button", { name: "Close panel" }).click();
    await w.send("Echo something");
    await w.page.getByText("The echo tool is off in this conversation.").waitFor();
    const refused = w.page.locator("li.message[data-kind=mcp_tool_request] li.tool-call.failed");
    await refused.waitFor();
    await refused.getByText(/switched off in this context/).first().waitFor();
    assert.equal(await w.page.getByRole("group", { name: "Approval for echo" }).count(), 0);
    await w.screenshot("mcp-tool-switched-off");

    // The whole server off for this context: every one of its tools shows off.
    await w.page.getByRole("button", { name: "MCP" }).click();
    const again = panel.locator("li.mcp-server", { hasText: "everything" });
    const serverBox = again.getByRole("checkbox", { name: "Use everything in this context" });
    await serverBox.click();
    await waitForConfig(w, ctx.id, (c) => (c.disabled_mcp_servers ?? []).includes("everything"));
    await w.page.waitForFunction((el) => !el.checked, await serverBox.elementHandle());
    await again.locator("summary", { hasText: /\d+ tools/ }).click();
    const anyTool = again.getByRole("checkbox", { name: /Use mcp__everything__.* in this context/ }).first();
    assert.equal(await anyTool.isDisabled(), true);
    assert.equal(await anyTool.isChecked(), false);
    await w.screenshot("mcp-server-switched-off");

    // Removed after asking: gone from the panel and from the file.
    await again.getByRole("button", { name: "Remove everything" }).click();
    await again.getByRole("group", { name: "Confirm removing everything" }).getByRole("button", { name: "Remove" }).click();
    await panel.getByText("No MCP servers are configured.").waitFor();
    assert.deepEqual(JSON.parse(await readFile(w.mcpConfig, "utf8")).mcpServers, {});
  });
});
