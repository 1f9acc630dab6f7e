// Merging branches from the UI against the real server: a rebase of a branch that wrote the same
// file as the target, previewed, its conflict settled by taking the source's side, then merged.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

test("a rebase with one conflict is previewed, resolved and merged from the dialog", async () => {
  const script = {
    responses: [
      textReply(["Hello."]),
      toolCallReply("w_main", "write_file", { path: "notes.txt", content: "from main" }),
      textReply(["Main wrote the notes."]),
      toolCallReply("w_alt", "write_file", { path: "notes.txt", content: "from alt" }),
      textReply(["Alt wrote the notes."]),
    ],
  };
  await withWorld("merge-rebase-conflict", { script }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "auto_all" } });
    await w.open(ctx.id);
    await w.send("Hi");
    await w.page.getByText("Hello.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await w.api("POST", `/v1/contexts/${ctx.id}/branches`, { name: "alt" });

    await w.send("Write the notes on main");
    await w.page.getByText("Main wrote the notes.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    const branch = w.page.getByLabel("Branch", { exact: true });
    await branch.selectOption("alt");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("Main wrote the notes.").waitFor({ state: "detached" });
    await w.send("Write the notes on alt");
    await w.page.getByText("Alt wrote the notes.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await branch.selectOption("main");
    await messages.getByText("Main wrote the notes.").waitFor();

    await w.page.getByRole("button", { name: "Merge…" }).click();
    const dialog = w.page.getByRole("form", { name: "Merge branches" });
    assert.equal(await dialog.getByLabel("Merge from").inputValue(), "alt");
    assert.equal(await dialog.getByLabel("into").inputValue(), "main");
    await dialog.getByLabel("Rebase").check();
    await dialog.getByRole("button", { name: "Preview" }).click();
    const conflict = dialog.getByRole("group", { name: "Conflict file_write:notes.txt" });
    await conflict.waitFor();
    await conflict.getByText("notes.txt", { exact: false }).first().waitFor();
    // The preview names the messages that would move, not only their count.
    const moving = dialog.getByRole("list", { name: "Messages that would move" });
    await moving.getByText("user: Write the notes on alt").waitFor();
    assert.equal(await dialog.getByRole("button", { name: "Merge", exact: true }).isDisabled(), true);
    await w.screenshot("merge-rebase-conflict-preview");
    // Previewing changed nothing.
    const before = await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=main&limit=1000`);
    assert.ok(before.messages.some((m) => m.kind === "tool_request" && m.data.calls[0].id === "w_main"));

    await conflict.getByLabel("Take the source's side").check();
    await dialog.getByRole("button", { name: "Merge", exact: true }).click();
    await dialog.waitFor({ state: "detached" });

    // The merged history appears: the source's exchange, the merge notice, and not main's write.
    await messages.getByText("Alt wrote the notes.").waitFor();
    await messages.getByText("Merged branch alt (rebase)", { exact: false }).waitFor();
    await messages.getByText("Main wrote the notes.").waitFor();
    const after = await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=main&limit=1000`);
    const calls = after.messages.filter((m) => m.kind === "tool_request").map((m) => m.data.calls[0].id);
    assert.deepEqual(calls, ["w_alt"]);
    const notice = after.messages.at(-1);
    assert.equal(notice.data.type, "branch_merge");
    assert.deepEqual(notice.data.resolutions, [{ conflict: "file_write:notes.txt", resolution: "take_source" }]);
  });
});
