// State shown truthfully: a message queued while the model streams shows as queued at once, and
// settings refuse a workspace that does not exist instead of saying "Saved".

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { textReply, withWorld } from "./harness.mjs";

test("a message sent while the model streams shows at once, marked as waiting", async () => {
  const script = {
    responses: [
      textReply(Array.from({ length: 20 }, (_, i) => `part ${i + 1} `), 200),
      textReply(["Second answer."]),
    ],
  };
  await withWorld("queued-message", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("First question");
    await w.page.getByText("part 1", { exact: false }).waitFor();
    await w.send("A follow-up while you write");
    const queued = w.page.locator("li.role-user", { hasText: "A follow-up while you write" });
    // At once: long before the first answer's 20 parts (4 s) are done.
    await queued.waitFor({ timeout: 2000 });
    await queued.getByText(/Queued/).waitFor({ timeout: 2000 });
    assert.ok(!(await w.page.locator("li.role-assistant").first().innerText()).includes("part 20"), "the first answer still streams");
    await w.screenshot("queued-message");
    await w.page.getByText("Second answer.").waitFor();
    assert.equal(await queued.getByText(/Queued/).count(), 0);
  });
});

test("settings refuse a workspace that does not exist, naming the problem", async () => {
  await withWorld("invalid-workspace", { script: { responses: [] } }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.page.getByRole("button", { name: "Settings" }).click();
    const panel = w.page.getByRole("region", { name: "Settings" });
    const missing = join(w.dir, "no-such-dir");
    await panel.getByLabel("Workspace path").fill(missing);
    await panel.getByRole("button", { name: "Save settings" }).click();
    const alert = panel.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /not an existing directory/);
    assert.equal(await panel.getByRole("status").count(), 0, "never says Saved");
    await w.screenshot("invalid-workspace");
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.equal(summary.config.workspace, w.workspace, "the stored workspace stays");
    const r = await fetch(`${w.url}/v1/contexts/${ctx.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ config: { workspace: missing } }),
    });
    assert.equal(r.status, 422);
    assert.equal((await r.json()).error.field, "config.workspace");
  });
});
