// Tool cards people can read, approved from the keyboard: a read shown as numbered code, a
// replacement as a diff, a command as a terminal with its exit code, and a write denied with a
// note to the model, each decided by `y`, `a` or `n` on the focused pending call.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

const files = { "README.md": "# Demo\nThe demo project's readme.\n" };

/** Waits for the call to be pending and focused, then presses `key`. */
async function decideByKey(w, callId, key) {
  const card = w.page.locator(`li.tool-call.pending[data-call-id=${callId}]`);
  await card.waitFor();
  await w.page.waitForFunction((id) => document.activeElement?.getAttribute("data-call-id") === id, callId);
  await w.page.keyboard.press(key);
  return w.page.locator(`li.tool-call[data-call-id=${callId}]`);
}

test("read, replace, command and write calls as readable cards, decided by y, a and n", async () => {
  const script = {
    responses: [
      toolCallReply("call_read", "read_file", { path: "README.md" }, "Reading first."),
      toolCallReply("call_edit", "replace_in_file", { path: "README.md", old_text: "# Demo\n", new_text: "# Demo project\n" }),
      toolCallReply("call_cmd", "run_command", { program: "echo", args: ["hello", "from echo"] }),
      toolCallReply("call_write", "write_file", { path: "notes.txt", content: "one\ntwo\n" }),
      textReply(["All done."]),
    ],
  };
  await withWorld("tool-cards", { script, files }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Tidy up the readme");

    // The read: `y` approves; its content shows as numbered, highlighted code.
    const read = await decideByKey(w, "call_read", "y");
    const code = w.page.locator("li.tool-call[data-call-id=call_read].ok figure.code-view");
    await code.waitFor();
    assert.equal(await code.getAttribute("data-language"), "markdown");
    assert.equal(await code.locator(".code-gutter").innerText(), "1\n2");
    assert.match(await code.locator(".code-text").innerText(), /^# Demo\nThe demo project's readme\.$/);
    assert.ok(!(await read.innerText()).includes("\\t"), "no escaped tabs");
    await w.screenshot("tool-card-read");

    // The replacement: pending, it shows the path and a diff with a write badge; `a` approves it
    // for the session.
    const edit = w.page.locator("li.tool-call.pending[data-call-id=call_edit]");
    await edit.getByLabel("Changes to README.md").waitFor();
    assert.equal(await edit.locator(".risk-badge").innerText(), "WRITE");
    await w.screenshot("tool-card-diff-pending");
    await decideByKey(w, "call_edit", "a");
    const edited = w.page.locator("li.tool-call[data-call-id=call_edit].ok");
    await edited.locator(".call-effect").getByText("at line 1").waitFor();
    await edited.getByText("replaces text at line 1").waitFor();
    assert.deepEqual(await edited.locator(".diff-table tr").evaluateAll((rows) => rows.map((r) => r.className)), ["diff-del", "diff-add", "diff-same"]);

    // The command: its command line and folder before it runs, then its output and exit code.
    const cmd = w.page.locator("li.tool-call.pending[data-call-id=call_cmd]");
    assert.equal(await cmd.locator(".terminal-command").innerText(), "echo hello 'from echo'");
    assert.equal(await cmd.locator(".risk-badge").innerText(), "COMMAND");
    await decideByKey(w, "call_cmd", "y");
    const term = w.page.locator("li.tool-call[data-call-id=call_cmd].ok figure.terminal");
    await term.waitFor();
    assert.equal(await term.locator(".terminal-stdout").innerText(), "hello from echo\n");
    assert.equal(await term.locator(".exit-code").innerText(), "exit 0");
    await w.screenshot("tool-card-terminal");

    // The write: `n` asks for a note; Enter denies with it, and the model is told why.
    await decideByKey(w, "call_write", "n");
    const note = w.page.getByLabel("Note to the model (optional)");
    await note.fill("keep notes in the readme");
    await w.screenshot("tool-card-deny-note");
    await note.press("Enter");
    const deniedCard = w.page.locator("li.tool-call[data-call-id=call_write].denied");
    await deniedCard.waitFor();
    assert.equal(await deniedCard.locator(".call-denied").innerText(), "You denied this call: “keep notes in the readme” The model was told and did not run it.");
    await w.page.getByText("All done.").waitFor();
    const page = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    const denied = page.messages.find((m) => m.kind === "tool_result" && m.data.call_id === "call_write");
    assert.equal(denied.data.status, "error");
    assert.match(JSON.stringify(denied), /keep notes in the readme/);
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.deepEqual(summary.config.approved_tools, ["replace_in_file"]);
    // One card per call: no result message stands on its own.
    assert.equal(await w.page.locator("li.message[data-kind=tool_result]").count(), 0);
  });
});
