// Scrolling: sending goes to the bottom; a pending approval arriving while the person follows is
// brought into view and focused; after scrolling up, new content raises "↓ latest" and the view
// stays where the person reads.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

const long = (tag) => Array.from({ length: 60 }, (_, i) => `${tag} line ${i + 1}\n`).join("\n");

/** How far the message list is from its bottom, in pixels. */
const distanceFromBottom = (w) =>
  w.page.getByRole("list", { name: "Messages" }).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

test("following, ↓ latest after scrolling up, and an approval brought into view", async () => {
  const script = {
    responses: [
      textReply([long("first")]),
      // Slow enough to scroll up while it streams.
      textReply(Array.from({ length: 25 }, (_, i) => `streamed ${i + 1}\n\n`), 250),
      toolCallReply("call_read", "read_file", { path: "README.md" }),
      textReply(["Read."]),
    ],
  };
  await withWorld("scrolling", { script, files: { "README.md": "# Demo\n" } }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Say a lot");
    await w.page.getByText("first line 60").waitFor();
    await w.page.waitForFunction(() => {
      const el = document.querySelector("ol.messages");
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    });

    // Scrolled up while the next answer streams: the view stays, "↓ latest" appears.
    await w.send("And more");
    await w.page.getByText("streamed 1", { exact: true }).waitFor();
    const list = w.page.getByRole("list", { name: "Messages" });
    await list.evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event("scroll"));
    });
    const latest = w.page.getByRole("button", { name: "↓ latest" });
    await latest.waitFor();
    assert.equal(await list.evaluate((el) => el.scrollTop), 0, "the view stays where the person reads");
    await w.screenshot("scroll-latest-button");
    await latest.click();
    assert.ok((await distanceFromBottom(w)) < 80, "↓ latest goes to the bottom");
    await w.page.getByText("streamed 25", { exact: true }).waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // Scrolled up again, then sending goes back down; the approval arrives in view and focused.
    await list.evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event("scroll"));
    });
    await w.send("Read the readme");
    const pending = w.page.locator("li.tool-call.pending[data-call-id=call_read]");
    await pending.waitFor();
    await w.page.waitForFunction(() => document.activeElement?.getAttribute("data-call-id") === "call_read");
    assert.ok(await pending.isVisible());
    const box = await pending.boundingBox();
    const view = await list.boundingBox();
    assert.ok(box && view && box.y >= view.y - 1 && box.y + box.height <= view.y + view.height + 1, "the pending call is within the list's view");
    assert.equal(await latest.count(), 0);
    await w.screenshot("scroll-approval-in-view");
    await w.page.keyboard.press("y");
    await w.page.getByText("Read.", { exact: true }).waitFor();
  });
});
