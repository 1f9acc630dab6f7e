// The event stream drops when `braid serve` restarts; the UI reconnects by itself with
// Last-Event-ID and shows what happened while it was away.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("the UI reconnects after the server's stream drops and shows what it missed", async () => {
  const script = { responses: [textReply(["First answer."]), textReply(["Answer you ", "missed."])] };
  await withWorld("reconnect", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Hello");
    await w.page.getByText("First answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    // The settled turn's messages are loaded (the UI reloads them shortly after the stream).
    await w.page.locator("li.message.role-user").getByText("Hello").waitFor();

    // Hold every new event-stream request in the browser until released, so that the UI
    // cannot see the server again until the missed exchange is over.
    const held = [];
    let release;
    const released = new Promise((r) => (release = r));
    await w.page.route("**/v1/contexts/*/events*", async (route) => {
      held.push(route.request().headers());
      await released;
      await route.continue().catch(() => {});
    });

    await w.stopServer();
    await waitUntil(() => held.length > 0, "the UI to try to reconnect");
    await w.startServer();

    await w.api("POST", `/v1/contexts/${ctx.id}/messages`, { payload: { type: "text", text: "Sent while you were away" } });
    await waitUntil(async () => {
      const page = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
      return page.messages.some((m) => m.kind === "text" && m.status === "complete" && JSON.stringify(m.data).includes("missed."));
    }, "the missed exchange to complete on the server");
    assert.equal(await w.page.getByText("Answer you missed.").count(), 0, "the UI cannot have seen it yet");
    await w.screenshot("reconnect-while-away");

    release();
    await w.page.unroute("**/v1/contexts/*/events*");
    await w.page.getByText("Sent while you were away").waitFor();
    await w.page.getByText("Answer you missed.").waitFor();
    const lastEventId = held[0]["last-event-id"];
    assert.match(String(lastEventId), /^\d+$/, `the reconnect sends Last-Event-ID, headers: ${JSON.stringify(held[0])}`);
    assert.ok(Number(lastEventId) > 0);
  });
});

async function waitUntil(check, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
