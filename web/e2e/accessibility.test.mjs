// Accessibility and the phone layout: axe-core finds no serious or critical violation on any
// main screen (light and dark), and at 390 px wide the sidebar folds away while sending,
// editing, the versions, the branch map and the shortcuts all still work.

import { test } from "node:test";
import assert from "node:assert/strict";
import { AxeBuilder } from "@axe-core/playwright";
import { textReply, withWorld } from "./harness.mjs";

/** Runs axe on the page; fails listing every serious or critical violation. */
async function axe(w, screen) {
  const results = await new AxeBuilder({ page: w.page }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const described = bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.slice(0, 5).map((n) => n.target.join(" ")).join("\n  ")}`);
  assert.deepEqual(described, [], `axe on ${screen}:\n${described.join("\n")}`);
}

test("axe finds no serious or critical violation on the main screens", async () => {
  const script = { responses: [textReply(["Here is `code`, a list and a block:\n\n- one\n- two\n\n```rust\n// The answer\nfn answer() -> u32 {\n    let s = \"forty-two\";\n    42\n}\n```"]), textReply(["Edited answer."])] };
  await withWorld("axe", { script }, async (w) => {
    await w.page.goto(w.url);
    await w.page.getByRole("button", { name: "New conversation" }).first().waitFor();
    await axe(w, "the start screen");

    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Show me something");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("Here is", { exact: false }).waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await axe(w, "a conversation");
    await w.page.emulateMedia({ colorScheme: "dark" });
    await axe(w, "a conversation in dark mode");
    await w.screenshot("axe-conversation-dark");
    await w.page.emulateMedia({ colorScheme: "light" });

    await w.page.getByRole("button", { name: "Settings" }).click();
    await w.page.locator(".side-panel").waitFor();
    await axe(w, "the settings panel");
    await w.page.getByRole("button", { name: "MCP" }).click();
    await axe(w, "the MCP panel");
    await w.page.getByRole("button", { name: "Close panel" }).click();

    await w.page.getByRole("button", { name: "Keyboard shortcuts" }).click();
    await w.page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    await axe(w, "the shortcuts dialog");
    await w.page.keyboard.press("Escape");

    await w.page.getByRole("button", { name: "Branch map" }).click();
    await w.page.getByRole("dialog", { name: "Branch map" }).getByText("last activity", { exact: false }).waitFor();
    await axe(w, "the branch map");
    await w.page.keyboard.press("Escape");

    await messages.locator("li.message.role-user").getByRole("button", { name: "Edit message" }).click();
    await w.page.getByLabel("Edited message").waitFor();
    await axe(w, "editing a message");
    await w.page.getByRole("button", { name: "Send edit" }).click();
    await messages.getByText("Edited answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await messages.getByLabel("Version 2 of 2").waitFor();
    await axe(w, "a message with versions");

    await w.page.getByRole("button", { name: "Merge…" }).click();
    await w.page.getByRole("form", { name: "Merge branches" }).waitFor();
    await axe(w, "the merge dialog");
  });
});

test("at 390 px the sidebar folds away and the flows still work", async () => {
  const script = { responses: [textReply(["Phone answer."]), textReply(["Phone edit answer."])] };
  await withWorld("mobile", { script }, async (w) => {
    await w.page.setViewportSize({ width: 390, height: 844 });
    const ctx = await w.createContext({}, "On the phone");
    await w.open(ctx.id);
    // The sidebar is folded; the menu button opens it over the conversation.
    const sidebar = w.page.locator(".sidebar");
    assert.equal(await sidebar.isVisible(), false);
    await w.page.getByRole("button", { name: "Conversations" }).click();
    await sidebar.waitFor();
    await w.screenshot("mobile-sidebar-open");
    await w.page.getByRole("button", { name: "Conversations" }).click();
    await sidebar.waitFor({ state: "hidden" });

    await w.send("Hello from a phone");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("Phone answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    // Nothing is wider than the screen.
    const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    await axe(w, "a conversation at 390 px");
    await w.screenshot("mobile-conversation");

    // One header row: the menu, the title and "More"; the branch bar and the actions folded.
    const header = await w.page.locator("header.topbar").boundingBox();
    assert.ok(header.height <= 52, `the header is ${header.height} px high`);
    assert.equal(await w.page.locator(".conversation > .branches").isVisible(), false);
    assert.equal(await w.page.getByRole("button", { name: "Settings" }).isVisible(), false);
    const userMessage = messages.locator("li.message.role-user");
    assert.equal(await userMessage.getByRole("button", { name: "Edit message" }).isVisible(), false, "actions wait for a tap");
    await w.page.getByRole("button", { name: "More" }).click();
    await w.page.getByRole("button", { name: "Settings" }).waitFor();
    await w.screenshot("mobile-more-menu");
    await w.page.getByRole("button", { name: /^Branches/ }).click();
    await w.page.locator(".conversation > .branches").waitFor();
    assert.equal(await w.page.getByRole("button", { name: "Settings" }).isVisible(), false, "choosing closes the menu");
    await w.page.getByRole("button", { name: "More" }).click();
    await w.page.getByRole("button", { name: /^Branches/ }).click();
    await w.page.locator(".conversation > .branches").waitFor({ state: "hidden" });

    // Edit to a branch, and the versions, on the phone: a tap on the message shows its actions.
    await userMessage.locator(".card").first().click();
    await userMessage.getByRole("button", { name: "Edit message" }).click();
    await w.page.getByLabel("Edited message").fill("Hello again from a phone");
    await w.page.getByRole("button", { name: "Send edit" }).click();
    await messages.getByText("Phone edit answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await messages.getByRole("button", { name: "Previous version" }).click();
    await messages.getByText("Phone answer.").waitFor();
    await messages.getByLabel("Version 1 of 2").waitFor();
    await w.screenshot("mobile-versions");

    // The branch map and the shortcuts fit too, from the "More" menu.
    await w.page.getByRole("button", { name: "More" }).click();
    await w.page.getByRole("button", { name: "Branch map" }).click();
    const map = w.page.getByRole("dialog", { name: "Branch map" });
    await map.getByText("last activity", { exact: false }).first().waitFor();
    await axe(w, "the branch map at 390 px");
    await w.screenshot("mobile-branch-map");
    await w.page.keyboard.press("Escape");
    await w.page.getByRole("button", { name: "More" }).click();
    await w.page.getByRole("button", { name: "Keyboard shortcuts" }).click();
    await w.page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    await w.screenshot("mobile-shortcuts");
    assert.deepEqual(w.pageErrors, []);
  });
});
