// The controls every chat UI has: stop (button and Esc), copy, timestamps with the model and
// tokens, dark mode following the system with a remembered toggle, and keyboard shortcuts
// listed in a help dialog.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("copy, timestamps, model facts, dark mode and shortcuts", async () => {
  const script = { responses: [textReply(["The **answer** is 42."])] };
  await withWorld("chat-controls", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: w.url });
    await w.open(ctx.id);
    await w.send("What is the answer?");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("is 42.", { exact: false }).waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // Copy puts the answer's text on the clipboard.
    const answer = messages.locator("li.message.role-assistant");
    await answer.hover();
    await answer.getByRole("button", { name: "Copy assistant message" }).click();
    await answer.getByRole("button", { name: "Copied assistant message" }).waitFor();
    assert.equal(await w.page.evaluate(() => navigator.clipboard.readText()), "The **answer** is 42.");
    await w.screenshot("copy");

    // Relative time with the exact one on hover; the model and the tokens it used.
    const time = answer.locator("time");
    assert.equal(await time.textContent(), "just now");
    assert.ok((await time.getAttribute("title")).length > 10);
    await answer.getByText("mock", { exact: true }).waitFor();
    await answer.getByText("100 in · 10 out").waitFor();

    // Dark mode follows the system; the toggle overrides it and is remembered.
    const background = () => w.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await w.page.emulateMedia({ colorScheme: "dark" });
    const dark = await background();
    assert.notEqual(dark, light);
    await w.screenshot("dark-mode");
    await w.page.getByRole("button", { name: "Theme: System" }).click();
    await w.page.getByRole("button", { name: "Theme: Dark" }).click();
    await w.page.getByRole("button", { name: "Theme: Light" }).waitFor();
    assert.equal(await background(), light);
    await w.page.reload();
    await w.page.getByRole("button", { name: "Theme: Light" }).waitFor();
    assert.equal(await background(), light);
    await w.page.getByRole("button", { name: "Theme: Light" }).click();
    await w.page.getByRole("button", { name: "Theme: System" }).waitFor();
    assert.equal(await background(), dark);
    await w.page.emulateMedia({ colorScheme: "light" });

    // `?` lists the shortcuts; Esc closes the list.
    await messages.getByText("is 42.", { exact: false }).waitFor();
    await w.page.locator("h1").click();
    await w.page.keyboard.press("?");
    const help = w.page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor();
    await help.getByText("Search conversations").waitFor();
    // The approval keys are listed too.
    for (const key of ["y", "n", "a"]) await help.locator("kbd", { hasText: new RegExp(`^${key}$`) }).waitFor();
    await w.screenshot("shortcuts-help");
    await w.page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });

    // Ctrl+K searches the conversations.
    await w.page.keyboard.press("Control+k");
    await w.page.waitForFunction(() => document.activeElement?.getAttribute("type") === "search");

    // Up in the empty message box edits the last message; Esc leaves it unchanged.
    await w.page.getByLabel("Message", { exact: true }).focus();
    await w.page.keyboard.press("ArrowUp");
    const box = w.page.getByLabel("Edited message");
    await box.waitFor();
    assert.equal(await box.inputValue(), "What is the answer?");
    await w.screenshot("shortcut-edit-last");
    await w.page.keyboard.press("Escape");
    await box.waitFor({ state: "detached" });
    assert.deepEqual(w.pageErrors, []);
  });
});

test("the Stop button and Esc stop a running turn", async () => {
  const pieces = Array.from({ length: 60 }, (_, i) => `part ${i}, `);
  const script = { responses: [textReply(pieces, 250), textReply(pieces, 250)] };
  await withWorld("stop", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });

    await w.send("Tell a long story");
    await messages.getByText("part 2,", { exact: false }).waitFor();
    const stop = w.page.getByRole("button", { name: "Stop" });
    await w.screenshot("stop-button");
    await stop.click();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    let shown = await messages.locator("li.message.role-assistant").last().textContent();
    assert.ok(!shown.includes("part 59"), `the answer ran to its end: ${shown}`);

    // Esc does the same.
    await w.send("Another long one");
    await messages.getByText("Another long one").waitFor();
    await stop.waitFor();
    await w.page.locator("h1").click();
    await w.page.keyboard.press("Escape");
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    shown = await messages.locator("li.message.role-assistant").last().textContent();
    assert.ok(!shown.includes("part 59"), `the answer ran to its end: ${shown}`);
    const state = await w.api("GET", `/v1/contexts/${ctx.id}/state`);
    assert.notEqual(state.state.type, "streaming_llm_response");
  });
});
