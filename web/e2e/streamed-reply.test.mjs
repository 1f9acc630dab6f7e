// A reply streams into the conversation piece by piece, then settles as one text message.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("a streamed reply appears chunk by chunk", async () => {
  const script = { responses: [textReply(["Rivers ", "braid ", "into ", "one ", "stream."], 400)] };
  await withWorld("streamed-reply", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Tell me about rivers");

    const user = w.page.locator("li.message.role-user");
    await user.getByText("Tell me about rivers").waitFor();
    const reply = w.page.locator("li.message.role-assistant").last();
    await reply.getByText("Rivers braid", { exact: false }).waitFor();
    // Seen before the end: the text is still growing.
    const partial = await reply.innerText();
    assert.ok(!partial.includes("one stream."), `expected a partial reply, saw: ${partial}`);

    await reply.getByText("Rivers braid into one stream.").waitFor();
    // Settled: the composer offers Send again rather than Queue.
    await w.page.getByRole("button", { name: "Send" }).waitFor();
  });
});
