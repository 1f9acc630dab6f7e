// MCP prompts in the composer's `/` menu: server-everything's prompt with arguments is chosen,
// its argument filled in, and its text sent like a typed message.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, textReply, waitForMcpServer, withWorld } from "./harness.mjs";

const everythingJs = join(
  repoRoot,
  "crates/braid-mcp/tests/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

test("an MCP prompt is chosen from the / menu, given its argument and sent", async () => {
  assert.ok(existsSync(everythingJs), `${everythingJs} is missing: run crates/braid-mcp/tests/servers/install.sh`);
  const script = { responses: [textReply(["Sunny ", "in Lyon."])] };
  const mcpServers = { everything: { command: "node", args: [everythingJs, "stdio"] } };
  await withWorld("mcp-prompt", { script, mcpServers }, async (w) => {
    await waitForMcpServer(w, "everything");
    const ctx = await w.createContext();
    await w.open(ctx.id);
    const message = w.page.getByLabel("Message", { exact: true });
    await message.fill("/args");
    const menu = w.page.getByRole("listbox", { name: "Workflows and prompts" });
    await menu.getByRole("option", { name: /args-prompt/ }).waitFor();
    await w.screenshot("mcp-prompt-menu");
    await message.press("Enter");
    const args = w.page.getByRole("group", { name: "Arguments of /args-prompt" });
    await args.getByPlaceholder("Name of the city").fill("Lyon");
    await args.getByRole("button", { name: "Send prompt" }).click();

    await w.page.locator("li.message", { hasText: "What's weather in Lyon?" }).waitFor();
    await w.page.getByText("Sunny in Lyon.").waitFor();
    const { messages } = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    assert.ok(messages.some((m) => m.role === "user" && JSON.stringify(m).includes("What's weather in Lyon?")));
    await w.screenshot("mcp-prompt-sent");
  });
});
