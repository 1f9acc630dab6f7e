// A new conversation made in the UI with no setup at all (issue 46): it works in the server's
// default workspace (the first --workspace-root, shown in the header), a read-only call runs
// without asking (the default policy, which the settings name), and a write still asks.

import { test } from "node:test";
import assert from "node:assert/strict";
import { basename } from "node:path";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

test("a new conversation reads a file without any setup, and a read-only call runs without asking", async () => {
  const script = {
    responses: [
      toolCallReply("call_read_1", "read_file", { path: "workspace/notes.txt" }),
      textReply(["The notes say: ship on Friday."]),
      toolCallReply("call_write_1", "write_file", { path: "workspace/notes.txt", content: "ship on Monday\n" }),
    ],
  };
  await withWorld("defaults", { script, files: { "notes.txt": "ship on Friday\n" } }, async (w) => {
    await w.page.goto(w.url);
    await w.page.getByRole("button", { name: "New conversation" }).first().click();
    await w.page.getByRole("list", { name: "Messages" }).waitFor();
    // The header names the default workspace: the first allowed root (the world's directory).
    const chip = w.page.getByRole("button", { name: `Workspace: ${w.dir}`, exact: true });
    assert.equal(await chip.innerText(), `in ${basename(w.dir)}`);

    await w.send("What do the notes say?");
    const call = w.page.locator("li.tool-call[data-call-id=call_read_1].ok");
    await call.waitFor();
    await w.page.getByText("The notes say: ship on Friday.").waitFor();
    assert.equal(await w.page.getByRole("group", { name: "Approval for read_file" }).count(), 0, "the read did not ask");

    // A write still asks.
    await w.send("Move it to Monday.");
    await w.page.getByRole("group", { name: "Approval for write_file" }).waitFor();

    // The settings say which policy is in force, and the chip opens them.
    await chip.click();
    const policy = w.page.getByLabel("Approval policy");
    assert.equal(await policy.locator("option:checked").innerText(), "Run read-only tools without asking (writes and commands ask)");
    assert.equal(await w.page.getByLabel("Workspace path").inputValue(), w.dir);
    await w.screenshot("defaults");
    assert.deepEqual(w.pageErrors, []);
  });
});
