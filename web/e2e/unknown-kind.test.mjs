// A message of a kind this UI does not know (written by a newer server, say) is shown as text
// with a console warning, and the rest of the conversation still renders.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { textReply, withWorld } from "./harness.mjs";

/**
 * Appends a message of kind `kind` to the end of `branch` of context `contextId`, straight into
 * the SQLite file (the server must be stopped), the way a newer Braid would have stored it.
 */
function insertMessage(dbPath, contextId, branch, kind, data) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const payload = JSON.stringify({
    schema_version: 2,
    id,
    role: "assistant",
    kind,
    data,
    status: "complete",
    created_at: now,
    updated_at: now,
    metadata: {},
  });
  const program = `
import sqlite3, sys, uuid
db, ctx, branch, mid, kind, payload, now = sys.argv[1:]
c = sqlite3.connect(db)
ctx_b, mid_b = uuid.UUID(ctx).bytes, uuid.UUID(mid).bytes
c.execute("INSERT INTO messages (context_id, id, role, kind, status, payload, created_at, updated_at) VALUES (?, ?, 'assistant', ?, 'complete', ?, ?, ?)", (ctx_b, mid_b, kind, payload, now, now))
(pos,) = c.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM branch_messages WHERE context_id = ? AND branch = ?", (ctx_b, branch)).fetchone()
c.execute("INSERT INTO branch_messages (context_id, branch, position, message_id) VALUES (?, ?, ?, ?)", (ctx_b, branch, pos, mid_b))
c.commit()
`;
  execFileSync("python3", ["-c", program, dbPath, contextId, branch, id, kind, payload, now]);
  return id;
}

test("a message of an unknown kind is shown as text with a console warning", async () => {
  const script = { responses: [textReply(["A known answer."])] };
  await withWorld("unknown-kind", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.api("POST", `/v1/contexts/${ctx.id}/messages`, { payload: { type: "text", text: "Hello" } });
    await waitForIdle(w, ctx.id);

    await w.stopServer();
    const id = insertMessage(join(w.dataDir, "braid.db"), ctx.id, "main", "hologram", {
      text: "A hologram from the future",
      depth: 3,
    });
    await w.startServer();
    const stored = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    assert.ok(stored.messages.some((m) => m.id === id && m.kind === "hologram"), "the server serves the unknown kind");

    await w.open(ctx.id);
    await w.page.getByText("A known answer.").waitFor();
    // The optimized view is what the model would be sent, which leaves out a kind the server
    // cannot convert; the full history shows every stored message.
    await w.page.getByLabel("Full history").check();
    const card = w.page.locator(`li.message[data-id="${id}"]`);
    await card.waitFor();
    assert.equal(await card.getAttribute("data-kind"), "hologram");
    await card.getByText("A hologram from the future", { exact: false }).waitFor();
    // Everything else still renders, and nothing crashed.
    await w.page.getByText("A known answer.").waitFor();
    await w.page.getByText("Hello").first().waitFor();
    assert.deepEqual(w.pageErrors, []);
    assert.ok(
      w.console.some((line) => line.startsWith("warning:") && line.includes("hologram")),
      `expected a console warning naming the kind, saw:\n${w.console.join("\n")}`,
    );
  });
});

async function waitForIdle(w, contextId) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { messages } = await w.api("GET", `/v1/contexts/${contextId}/messages`);
    const { state } = await w.api("GET", `/v1/contexts/${contextId}/state`);
    if (state.type === "idle" && messages.some((m) => m.role === "assistant" && m.status === "complete")) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out waiting for the first exchange to finish");
}
