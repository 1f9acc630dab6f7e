// The branch map: a compact tree of the branches with their fork points, merges, lengths and
// last activity, opened from the header; clicking a branch switches to it, and the merge
// dialog starts from it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

async function settle(w, id) {
  for (let i = 0; i < 150; i++) {
    const s = await w.api("GET", `/v1/contexts/${id}/state`);
    if (s.state.type === "idle") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the context never settled");
}

test("the branch map shows forks and merges, switches branches and starts a merge", async () => {
  const script = { responses: [textReply(["Answer one."]), textReply(["Answer two."]), textReply(["Answer on the side."])] };
  await withWorld("branch-map", { script }, async (w) => {
    const ctx = await w.createContext();
    const send = async (text) => {
      await w.api("POST", `/v1/contexts/${ctx.id}/messages`, { payload: { type: "text", text } });
      await new Promise((r) => setTimeout(r, 200));
      await settle(w, ctx.id);
    };
    await send("Question one");
    await send("Question two");
    const main = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
    const firstAnswer = main.messages.find((m) => m.role === "assistant");
    await w.api("POST", `/v1/contexts/${ctx.id}/branches`, { name: "side", from_message: firstAnswer.id });
    await w.api("POST", `/v1/contexts/${ctx.id}/branches/side/activate`);
    await send("Question on the side");
    await w.api("POST", `/v1/contexts/${ctx.id}/branches/main/activate`);
    await w.api("POST", `/v1/contexts/${ctx.id}/branches/side/merge`, { target: "main", strategy: { type: "append" } });
    await w.api("POST", `/v1/contexts/${ctx.id}/branches`, { name: "later", from_branch: "side" });

    await w.open(ctx.id);
    await w.page.getByRole("button", { name: "Branch map" }).click();
    const map = w.page.getByRole("dialog", { name: "Branch map" });
    await map.waitFor();
    await map.getByText("forked from main after message 2").waitFor();
    await map.getByText("merged from side").waitFor();
    await map.getByText("forked from side after message", { exact: false }).waitFor();
    await map.getByRole("button", { name: /^main \(active\), \d+ messages$/ }).waitFor();
    const branches = await w.api("GET", `/v1/contexts/${ctx.id}/branches`);
    const side = branches.branches.find((b) => b.name === "side");
    await map.getByRole("button", { name: `side, ${side.message_count} messages` }).waitFor();
    assert.equal(await map.locator("time").count(), 3);
    await w.screenshot("branch-map-tree");

    // Clicking a branch switches to it.
    await map.getByRole("button", { name: `side, ${side.message_count} messages` }).click();
    await map.waitFor({ state: "detached" });
    // The merge put "Answer on the side." on main too: the switch shows in the branch picker,
    // which follows the server's answer to the activation.
    const picker = w.page.getByLabel("Branch", { exact: true });
    const deadline = Date.now() + 10_000;
    while ((await picker.inputValue()) !== "side") {
      if (Date.now() > deadline) throw new Error(`the branch picker still shows ${await picker.inputValue()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await w.page.getByRole("list", { name: "Messages" }).getByText("Answer on the side.").waitFor();
    assert.equal((await w.api("GET", `/v1/contexts/${ctx.id}/branches`)).active, "side");

    // The merge dialog starts from the branch chosen in the map.
    await w.page.getByRole("button", { name: "Branch map" }).click();
    await map.getByRole("button", { name: "Merge later…" }).click();
    const dialog = w.page.getByRole("form", { name: "Merge branches" });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel("Merge from").inputValue(), "later");
    assert.equal(await dialog.getByLabel("into").inputValue(), "side");
    await w.screenshot("branch-map-merge");
    assert.deepEqual(w.pageErrors, []);
  });
});
