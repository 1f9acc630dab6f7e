// The model's Markdown as GitHub renders it: a table, a task list, strikethrough and a code block
// in one frame with its language and a copy button; the person's long paste starts folded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

const answer = [
  "Two ways:\n\n",
  "| Approach | Unicode-safe |\n| --- | --- |\n",
  "| bytes | no |\n| chars | yes |\n\n",
  "- [x] compare\n- [ ] ~~guess~~ measure\n\n",
  "```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n",
];

test("a table, a task list and a framed code block; a long paste folded", async () => {
  const script = { responses: [textReply(answer)] };
  await withWorld("markdown", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    const paste = Array.from({ length: 80 }, (_, i) => `pasted log line ${i + 1}`).join("\n");
    await w.send(paste);

    const table = w.page.locator("li.role-assistant .markdown table");
    await table.waitFor();
    assert.deepEqual(await table.locator("th").allInnerTexts(), ["Approach", "Unicode-safe"]);
    assert.deepEqual(await table.locator("tbody td").allInnerTexts(), ["bytes", "no", "chars", "yes"]);
    assert.ok(!(await w.page.locator("li.role-assistant").innerText()).includes("| Approach"), "no raw pipes");
    assert.equal(await w.page.locator("li.role-assistant .task-list-item input[type=checkbox]").count(), 2);
    assert.equal(await w.page.locator("li.role-assistant del").innerText(), "guess");

    const frame = w.page.locator("li.role-assistant figure.code-block");
    assert.equal(await frame.count(), 1);
    assert.equal(await frame.locator(".code-block-lang").innerText(), "rust");
    assert.equal(await frame.locator("pre").count(), 1);
    await frame.getByRole("button", { name: "Copy code" }).waitFor();

    const folded = w.page.locator("li.role-user .collapsible.folded");
    await folded.waitFor();
    const height = await folded.locator(".collapsible-body").evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height < 400, `a folded paste is short (${height}px)`);
    await w.screenshot("markdown-table");
    await folded.getByRole("button", { name: /Show all 80 lines/ }).click();
    await w.page.locator("li.role-user .collapsible.open").waitFor();
  });
});
