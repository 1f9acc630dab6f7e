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
    assert.equal(await failed.locator("strong").innerText(), "The model server had a problem answering (HTTP 503).");
    assert.equal(await failed.locator("details").evaluate((d) => d.open), false, "the detail starts folded");
    assert.match(await failed.locator("details").textContent(), /overloaded/, "the server's own words are in the details");
    // Said once, on the failed turn in the conversation: no box above the composer repeats it.
    assert.equal(await w.page.getByRole("list", { name: "Messages" }).getByRole("alert", { name: "The turn failed" }).count(), 1);
    assert.equal(await w.page.locator(".status-area [role=alert]").count(), 0);
    await w.screenshot("turn-error-failed");

    await failed.getByRole("button", { name: "Retry" }).click();
    await w.page.getByText("Back again.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    assert.equal(await w.page.getByRole("alert", { name: "The turn failed" }).count(), 0);
    assert.equal(await w.page.locator("ul.errors li").count(), 0, "no stale error box");
    await w.screenshot("turn-error-resolved");
  });
});

test("a refused API key names the setting to fix and offers no Retry; a later good turn clears the card", async () => {
  const refused = { type: "error", status: 401, body: { error: { message: "Incorrect API key provided" } } };
  const script = { responses: [refused, textReply(["Working now."])] };
  await withWorld("turn-error-401", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Hello?");

    const failed = w.page.getByRole("alert", { name: "The turn failed" });
    await failed.waitFor({ timeout: 30_000 });
    assert.equal(await failed.locator("strong").innerText(), "The model server did not accept Braid's API key (HTTP 401).");
    assert.match(await failed.locator(".turn-error-fix").innerText(), /BRAID_LLM_API_KEY/);
    assert.equal(await failed.getByRole("button", { name: "Retry" }).count(), 0);
    assert.equal(await w.page.getByRole("button", { name: /^(Retry|Resume)$/ }).count(), 0);
    await w.screenshot("turn-error-401");

    // The key was fixed meanwhile: the next message succeeds and the card goes.
    await w.send("And now?");
    await w.page.getByText("Working now.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    assert.equal(await w.page.getByRole("alert", { name: "The turn failed" }).count(), 0);
    assert.equal(await w.page.locator("ul.errors li").count(), 0, "no stale error box");
  });
});
