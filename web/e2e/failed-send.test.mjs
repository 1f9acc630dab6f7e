// A send whose pipeline fails (a file reference to a file that does not exist yet) stays in the
// conversation with its error, survives a reload, and Retry after creating the file runs the
// turn. Edit puts a failed send back into the composer, and sending replaces it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { textReply, waitForValue, withWorld } from "./harness.mjs";

async function sendWithReference(w, text, path) {
  await w.page.getByRole("button", { name: "Reference a file" }).click();
  await w.page.getByLabel("Path of reference 1").fill(path);
  await w.send(text);
}

test("a failed send keeps its error and Retry runs it once the file exists", async () => {
  const script = { responses: [textReply(["The plan ", "is short."])] };
  await withWorld("failed-send-retry", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await sendWithReference(w, "Summarize the plan", "plan.md");

    const failed = w.page.locator("li.message.role-user", { hasText: "Summarize the plan" });
    const alert = failed.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /Not sent: .*plan\.md/);

    // Stored: a reload shows it again, with its error.
    await w.page.reload();
    await w.page.getByRole("list", { name: "Messages" }).waitFor();
    await failed.getByRole("alert").waitFor();
    const stored = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    assert.deepEqual(
      stored.messages.map((m) => m.status),
      ["failed", "failed"],
      "the file reference and the text are stored, failed",
    );

    await writeFile(join(w.workspace, "plan.md"), "1. Write it.\n2. Ship it.\n");
    await failed.getByRole("button", { name: "Retry" }).click();
    await w.page.locator("li.message.role-assistant").getByText("The plan is short.").waitFor();
    await failed.getByRole("alert").waitFor({ state: "detached" });
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    const after = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    const user = after.messages.filter((m) => m.role === "user" && m.kind !== "system_control");
    assert.deepEqual(
      user.map((m) => m.status),
      ["complete", "complete"],
    );
    assert.equal(user[0].data.resolution.type, "resolved");
  });
});

test("Edit puts a failed send back into the composer and sending replaces it", async () => {
  const script = { responses: [textReply(["Hello ", "again."])] };
  await withWorld("failed-send-edit", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await sendWithReference(w, "Read the missing file", "missing.md");
    const failed = w.page.locator("li.message.role-user", { hasText: "Read the missing file" });
    await failed.getByRole("alert").waitFor();

    await failed.getByRole("button", { name: "Edit" }).click();
    const box = w.page.getByLabel("Message", { exact: true });
    // The draft is filled in by React after the click: wait for it rather than read at once.
    await waitForValue(box, "Read the missing file");
    await waitForValue(w.page.getByLabel("Path of reference 1"), "missing.md");
    await w.page.getByRole("status").getByText("sending replaces it", { exact: false }).waitFor();
    await w.page.getByRole("button", { name: "Remove reference 1" }).click();
    await w.send("Just say hello");

    await w.page.locator("li.message.role-assistant").getByText("Hello again.").waitFor();
    await failed.waitFor({ state: "detached" });
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    const after = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    const texts = after.messages
      .filter((m) => m.kind === "text")
      .map((m) => m.data.parts.map((p) => p.text).join(""));
    assert.deepEqual(texts, ["Just say hello", "Hello again."], "the failed send is gone");
  });
});
