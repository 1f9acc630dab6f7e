// Approving a change to a file the person cannot see from the chat: the approval card shows the
// diff against the file as it is on disk now (the server reads it), so an overwrite shows every
// line it deletes, a replacement sits at the file's real line numbers, and after a mouse
// approval the keyboard stays on the next call of the batch.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

const kept = ["use std::env;", "", "fn main() {", "    let args: Vec<String> = env::args().collect();", "    println!(\"{}\", greeting(&args));", "}", "", "fn greeting(args: &[String]) -> String {", "    format!(\"hello {}\", args.len())", "}"];
const tests = ["", "#[cfg(test)]", "mod tests {", "    use super::*;", "", "    #[test]", "    fn greets() {", "        assert_eq!(greeting(&[]), \"hello 0\");", "    }", "}", "// end"];
const mainRs = `${[...kept, ...tests].join("\n")}\n`;
const files = { "src/main.rs": mainRs, "lib/a.txt": Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" };

/** A scripted answer calling several tools in one round. */
function callsReply(calls) {
  return {
    type: "stream",
    chunk_delay_ms: 10,
    chunks: [
      ...calls.flatMap(([id, name, args], index) => [
        { type: "tool_call_start", index, id, name },
        { type: "tool_call_args", index, delta: JSON.stringify(args) },
      ]),
      { type: "usage", prompt_tokens: 100, completion_tokens: 10 },
      { type: "finish", reason: "tool_calls" },
    ],
  };
}

test("an overwrite shows the lines it deletes, a replacement its real line numbers, and focus moves on after a mouse approval", async () => {
  assert.equal(mainRs.split("\n").length - 1, 21);
  const script = {
    responses: [
      callsReply([
        ["call_over", "write_file", { path: "src/main.rs", content: `${kept.join("\n")}\n` }],
        ["call_edit", "replace_in_file", { path: "lib/a.txt", old_text: "line 20\n", new_text: "line twenty\n" }],
        ["call_new", "write_file", { path: "docs/new.md", content: "# New\n" }],
      ]),
      textReply(["Done."]),
    ],
  };
  await withWorld("file-diffs", { script, files }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Shorten main.rs");

    // The overwrite: the caption says what it does to the file on disk, and the 11 lines of the
    // tests module it drops are shown removed.
    const over = w.page.locator("li.tool-call.pending[data-call-id=call_over]");
    await over.getByText("overwrites a 21-line file").waitFor();
    const removed = await over.locator("tr.diff-del .diff-text").allInnerTexts();
    assert.deepEqual(removed, tests, "every deleted line is shown");
    assert.equal(await over.locator("tr.diff-add").count(), 0, "the kept lines are not shown as added");
    assert.equal(await over.locator(".diff-removed").innerText(), "−11");
    assert.equal(await over.locator(".diff-added").innerText(), "+0");

    // The replacement: at line 20 of the file, with three lines of context and the rest folded.
    const edit = w.page.locator("li.tool-call.pending[data-call-id=call_edit]");
    await edit.getByText("replaces text at line 20").waitFor();
    const del = edit.locator("tr.diff-del");
    assert.equal(await del.locator(".diff-num").first().innerText(), "20");
    assert.equal(await del.locator(".diff-text").innerText(), "line 20");
    assert.deepEqual(await edit.locator("tr.diff-fold").allInnerTexts(), ["⋯ 16 unchanged lines", "⋯ 7 unchanged lines"]);

    // A write to a missing file says it creates one.
    await w.page.locator("li.tool-call.pending[data-call-id=call_new]").getByText("creates a new file").waitFor();
    await w.screenshot("file-diffs-pending");

    // Approve the first by mouse: the keyboard lands on the next waiting call, and `y` decides it.
    await over.getByRole("button", { name: "Approve", exact: true }).click();
    await w.page.waitForFunction(() => document.activeElement?.getAttribute("data-call-id") === "call_edit");
    await w.page.keyboard.press("y");
    await w.page.waitForFunction(() => document.activeElement?.getAttribute("data-call-id") === "call_new");
    await w.page.keyboard.press("y");
    await w.page.getByText("Done.").waitFor();

    // After the writes ran, the cards still show the diff the person approved.
    const done = w.page.locator("li.tool-call.ok[data-call-id=call_over]");
    await done.getByText("overwrites a 21-line file").waitFor();
    assert.equal(await done.locator("tr.diff-del").count(), 11);
  });
});
