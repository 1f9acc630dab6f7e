// Branching from a message keeps the history up to it; switching back shows the original line.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("branching from a message and switching back", async () => {
  const script = {
    responses: [textReply(["Answer one."]), textReply(["Answer two."]), textReply(["Answer on the side branch."])],
  };
  await withWorld("branch-and-switch-back", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Question one");
    await w.page.getByText("Answer one.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await w.send("Question two");
    await w.page.getByText("Answer two.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    const messages = w.page.getByRole("list", { name: "Messages" });
    const firstAnswer = messages.locator("li.message", { hasText: "Answer one." });
    await firstAnswer.getByRole("button", { name: "Branch from here" }).click();
    // The form opens under the message itself, a free name filled in.
    const dialog = firstAnswer.getByRole("form", { name: "Branch from this message" });
    const name = dialog.getByLabel(/New branch from here/);
    assert.equal(await name.inputValue(), "branch-1");
    await name.fill("side");
    await dialog.getByRole("button", { name: "Create branch" }).click();

    const branch = w.page.getByLabel("Branch", { exact: true });
    await w.page.waitForFunction(() => document.querySelector(".branches select")?.value === "side");
    // The side branch holds the history up to the chosen message, not after it.
    await messages.getByText("Answer one.").waitFor();
    await messages.getByText("Answer two.").waitFor({ state: "detached" });
    assert.equal(await messages.getByText("Question two").count(), 0);

    await w.send("Question on the side");
    await w.page.getByText("Answer on the side branch.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await w.screenshot("branch-and-switch-back-side");

    await branch.selectOption("main");
    await messages.getByText("Answer two.").waitFor();
    await messages.getByText("Answer on the side branch.").waitFor({ state: "detached" });
    assert.equal(await messages.getByText("Question on the side").count(), 0);
    const branches = await w.api("GET", `/v1/contexts/${ctx.id}/branches`);
    assert.equal(branches.active, "main");

    // And back to the side branch once more: its own exchange is still there.
    await branch.selectOption("side");
    await messages.getByText("Answer on the side branch.").waitFor();
    await branch.selectOption("main");
    await messages.getByText("Answer two.").waitFor();
  });
});
