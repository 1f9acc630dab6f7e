// Branching as people know it from chat UIs: editing a sent message and regenerating an answer
// each put a new version on a new branch, and `< n/m >` arrows switch between the versions.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("edit a message, regenerate an answer, and switch versions with the arrows", async () => {
  const script = {
    responses: [textReply(["Answer one."]), textReply(["Answer to the edit."]), textReply(["Answer once more."])],
  };
  await withWorld("edit-and-regenerate", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Question one");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("Answer one.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // Edit: the edited text goes on a new branch with its own answer.
    const question = messages.locator("li.message.role-user", { hasText: "Question one" });
    await question.hover();
    await question.getByRole("button", { name: "Edit message" }).click();
    const box = w.page.getByLabel("Edited message");
    await box.fill("Question one, edited");
    await w.screenshot("edit-to-branch-editing");
    await w.page.getByRole("button", { name: "Send edit" }).click();
    await messages.getByText("Answer to the edit.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await messages.getByText("Answer one.").waitFor({ state: "detached" });
    let branches = await w.api("GET", `/v1/contexts/${ctx.id}/branches`);
    assert.equal(branches.active, "edit-1");
    const edit = branches.branches.find((b) => b.name === "edit-1");
    assert.equal(edit.parent, "main");
    assert.equal(edit.fork_point, undefined, "the edited first message leaves nothing of main before it");
    // The edited message shows that it is version 2 of 2.
    const edited = messages.locator("li.message.role-user", { hasText: "Question one, edited" });
    await edited.getByLabel("Version 2 of 2").waitFor();
    await w.screenshot("edit-to-branch");

    // The arrows go back to the original, and forth again.
    await edited.getByRole("button", { name: "Previous version" }).click();
    await messages.getByText("Answer one.").waitFor();
    await messages.getByText("Answer to the edit.").waitFor({ state: "detached" });
    await messages.locator("li.message.role-user", { hasText: "Question one" }).getByLabel("Version 1 of 2").waitFor();
    branches = await w.api("GET", `/v1/contexts/${ctx.id}/branches`);
    assert.equal(branches.active, "main");
    await w.screenshot("sibling-arrows");
    // A switch leaves no line in the conversation, and nothing is left "Loading system control…".
    assert.equal(await messages.getByText(/Switched from branch/).count(), 0);
    assert.equal(await messages.getByText(/^Loading /).count(), 0);
    await messages.getByRole("button", { name: "Next version" }).click();
    await messages.getByText("Answer to the edit.").waitFor();
    await messages.getByRole("button", { name: "Previous version" }).click();
    await messages.getByText("Answer one.").waitFor();

    // Regenerate: the model answers the same question again on a new branch; the question is
    // not sent again, and the two answers are versions of each other with their own arrows.
    const answer = messages.locator("li.message.role-assistant", { hasText: "Answer one." });
    await answer.hover();
    await answer.getByRole("button", { name: "Regenerate" }).click();
    await messages.getByText("Answer once more.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await messages.getByText("Answer one.").waitFor({ state: "detached" });
    branches = await w.api("GET", `/v1/contexts/${ctx.id}/branches`);
    assert.equal(branches.active, "regenerate-1");
    const asked = await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=regenerate-1`);
    const texts = asked.messages.filter((m) => m.kind === "text" && m.role === "user").map((m) => m.data.parts[0].text);
    assert.deepEqual(texts, ["Question one"]);
    await messages.locator("li.message.role-user", { hasText: "Question one" }).getByLabel("Version 1 of 2").waitFor();
    const regenerated = messages.locator("li.message.role-assistant", { hasText: "Answer once more." });
    await regenerated.getByLabel("Version 2 of 2").waitFor();
    await w.screenshot("regenerate-to-branch");
    await regenerated.getByRole("button", { name: "Previous version" }).click();
    await messages.locator("li.message.role-assistant", { hasText: "Answer one." }).getByLabel("Version 1 of 2").waitFor();
    // No card waits for a pause in the event stream: nothing is left loading after the switches.
    assert.equal(await messages.getByText(/^Loading /).count(), 0);
    assert.deepEqual(w.pageErrors, []);
  });
});

test("after an edit and a regenerate of the edited answer, the arrows alone reach all three answers", async () => {
  const script = {
    responses: [textReply(["First answer."]), textReply(["Edited answer."]), textReply(["Regenerated answer."])],
  };
  await withWorld("three-answers", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });
    await w.send("Question");
    await messages.getByText("First answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    const question = messages.locator("li.message.role-user").first();
    await question.hover();
    await question.getByRole("button", { name: "Edit message" }).click();
    await w.page.getByLabel("Edited message").fill("Question, edited");
    await w.page.getByRole("button", { name: "Send edit" }).click();
    await messages.getByText("Edited answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    const edited = messages.locator("li.message.role-assistant", { hasText: "Edited answer." });
    await edited.hover();
    await edited.getByRole("button", { name: "Regenerate" }).click();
    await messages.getByText("Regenerated answer.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // The question has two versions, and the edited question's answer two of its own.
    await messages.locator("li.message.role-user").first().getByLabel("Version 2 of 2").waitFor();
    const answer = () => messages.locator("li.message.role-assistant").first();
    await answer().getByLabel("Version 2 of 2").waitFor();
    await w.screenshot("three-answers");
    const seen = new Set([await answer().locator(".card").first().innerText()]);
    await answer().getByRole("button", { name: "Previous version" }).click();
    await messages.getByText("Edited answer.").waitFor();
    await answer().getByLabel("Version 1 of 2").waitFor();
    seen.add(await answer().locator(".card").first().innerText());
    await messages.locator("li.message.role-user").first().getByRole("button", { name: "Previous version" }).click();
    await messages.getByText("First answer.").waitFor();
    seen.add(await answer().locator(".card").first().innerText());
    assert.deepEqual([...seen].map((t) => t.trim()).sort(), ["Edited answer.", "First answer.", "Regenerated answer."]);
    assert.equal(await messages.getByText(/Switched from branch/).count(), 0);
  });
});
