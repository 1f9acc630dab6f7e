// A turn whose model calls fail: the attempt count shows while the client retries, then the
// failure shows once with Retry and its detail folded, and Retry's success leaves no stale error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

const unavailable = { type: "error", status: 503, body: { error: { message: "the model server is overloaded" } } };

test("a failed turn shows one error with Retry; Retry's success clears it", async () => {
  // The first try and its three retries fail; Retry's call succeeds.
  const script = { responses: [unavailable, unavailable, unavailable, unavailable, textReply(["Back again."])] };
  await withWorld("turn-error-retry", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Hello?");

    // While the client retries, the status says which try runs.
    await w.page.getByText(/Connecting to the model \(attempt [2-4]\)/).waitFor();
    await w.screenshot("turn-error-retrying");

    const failed = w.page.getByRole("alert", { name: "The turn failed" });
    await failed.waitFor({ timeout: 30_000 });
    assert.match(await failed.locator("strong").innerText(), /overloaded|503/);
    assert.equal(await failed.locator("details").evaluate((d) => d.open), false, "the detail starts folded");
    // Said once: no second box repeats the failure.
    const text = await w.page.locator(".status-area").innerText();
    assert.equal(text.split("overloaded").length - 1, 1, text);
    await w.screenshot("turn-error-failed");

    await failed.getByRole("button", { name: "Retry" }).click();
    await w.page.getByText("Back again.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    assert.equal(await w.page.getByRole("alert", { name: "The turn failed" }).count(), 0);
    assert.equal(await w.page.locator("ul.errors li").count(), 0, "no stale error box");
    await w.screenshot("turn-error-resolved");
  });
});
