// An MCP server asks the person in the middle of a tool call (elicitation): server-everything's
// real elicitation tool. The question appears as a form built from its schema, the person
// fills it in, and the tool's result carries the answer back to the model.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, textReply, toolCallReply, waitForMcpServer, withWorld } from "./harness.mjs";

const everythingJs = join(
  repoRoot,
  "crates/braid-mcp/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

test("a server's question is answered from the UI and its answer reaches the tool result", async () => {
  assert.ok(existsSync(everythingJs), `${everythingJs} is missing: run crates/braid-mcp/tests/servers/install.sh`);
  const tool = "mcp__everything__trigger-elicitation-request";
  const script = {
    responses: [toolCallReply("call_ask_1", tool, {}), textReply(["Thanks, ", "noted."])],
  };
  const mcpServers = {
    everything: { command: "node", args: [everythingJs, "stdio"], autoApprove: ["trigger-elicitation-request"] },
  };
  await withWorld("mcp-elicitation", { script, mcpServers }, async (w) => {
    await waitForMcpServer(w, "everything");
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Ask me for my details");

    const card = w.page.getByRole("region", { name: "everything asks" });
    await card.waitFor({ timeout: 30_000 });
    await card.getByText("Please provide inputs for the following fields:").waitFor();
    const form = card.getByRole("form", { name: "Answer everything" });
    // Defaults from the schema are filled in.
    assert.equal(await form.getByLabel(/String with default/).inputValue(), "It was a dark and stormy night.");
    await form.getByLabel(/^String \*/).fill("Ada Lovelace");
    await w.screenshot("mcp-elicitation-form");
    await form.getByRole("button", { name: "Submit" }).click();

    await w.page.getByText("Thanks, noted.").waitFor();
    assert.equal(await card.count(), 0, "the answered question is gone");
    const { messages } = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    const result = messages.find((m) => m.kind === "mcp_tool_result");
    assert.ok(result, JSON.stringify(messages.map((m) => m.kind)));
    assert.match(JSON.stringify(result), /Ada Lovelace/);
    await w.screenshot("mcp-elicitation-answered");
  });
});
