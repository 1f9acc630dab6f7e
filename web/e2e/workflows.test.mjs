// A workflow from the composer's `/` menu: its parameter filled in the form generated from its
// schema, run, paused while its first step (a command) runs, resumed, and its result shown; and
// the run bar above the composer, whose controls stay at hand while the person reads back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

const GREET = `
name: greet
description: Naps, then greets someone
parameters:
  type: object
  required: [name]
  properties:
    name: { type: string, description: Who to greet }
steps:
  - name: nap
    tool: run_command
    arguments: { program: sleep, args: ["3"] }
  - name: hello
    prompt: "Say hello to {{ params.name }}"
`;

test("a workflow runs from the / menu with a parameter, pauses, resumes and shows its result", async () => {
  const script = { responses: [textReply(["Hello, ", "Ada!"])] };
  const files = { ".braid/workflows/greet.yaml": GREET };
  await withWorld("workflow", { script, files }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "auto_all" } });
    await w.open(ctx.id);
    const message = w.page.getByLabel("Message", { exact: true });
    await message.fill("/gre");
    const menu = w.page.getByRole("listbox", { name: "Workflows and prompts" });
    await menu.getByRole("option", { name: /greet.*Naps, then greets someone/ }).waitFor();
    await w.screenshot("workflow-menu");
    await message.press("Enter");
    const form = w.page.getByRole("group", { name: "Parameters of /greet" });
    await form.getByPlaceholder("Who to greet").fill("Ada");
    await form.getByRole("button", { name: "Run workflow" }).click();

    const card = w.page.getByRole("region", { name: "Workflow greet" });
    await card.getByRole("button", { name: "Pause" }).click();
    // The pause takes effect when the running command ends.
    await card.locator(".wf-status", { hasText: "paused" }).waitFor();
    await card.getByText("Step 2 of 2").waitFor();
    await card.getByText("hello").waitFor();
    await w.screenshot("workflow-paused");
    let { messages } = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    let run = messages.find((m) => m.kind === "workflow_execution").data;
    assert.equal(run.status, "paused");
    assert.equal(run.completed_steps, 1);

    await card.getByRole("button", { name: "Resume" }).click();
    await card.locator(".wf-status", { hasText: "completed" }).waitFor();
    await card.locator(".wf-result", { hasText: "Hello, Ada!" }).waitFor();
    await w.screenshot("workflow-completed");
    ({ messages } = await w.api("GET", `/v1/contexts/${ctx.id}/messages`));
    run = messages.find((m) => m.kind === "workflow_execution").data;
    assert.equal(run.status, "completed");
    assert.equal(run.result, "Hello, Ada!");
    assert.ok(messages.some((m) => m.kind === "tool_result" && m.data.tool_name === "workflow__greet"));
  });
});

test("a running workflow's Pause stays reachable above the composer while the person reads back", async () => {
  const long = (i) => `Answer ${i}. ${"Each step of the build is logged with its duration and its outcome. ".repeat(14)}`;
  const script = { responses: [1, 2, 3, 4].map((i) => textReply([long(i)])).concat([textReply(["Hello, Ada!"])]) };
  const files = { ".braid/workflows/greet.yaml": GREET };
  await withWorld("workflow-bar", { script, files }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "auto_all" } });
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });
    for (let i = 1; i <= 4; i++) {
      await w.send(`Question ${i}`);
      await messages.getByText(`Answer ${i}.`, { exact: false }).waitFor();
    }
    await w.api("POST", `/v1/contexts/${ctx.id}/workflows/greet/run`, { parameters: { name: "Ada" } });
    const bar = w.page.getByRole("region", { name: "Running workflows" });
    const pause = bar.getByRole("button", { name: "Pause" });
    await pause.waitFor();
    // The person scrolls back to the start of the conversation: the run's card is far below,
    // its controls are still at hand.
    await messages.evaluate((list) => {
      list.scrollTop = 0;
    });
    assert.equal(await messages.evaluate((list) => list.scrollTop), 0);
    const box = await pause.boundingBox();
    const viewport = w.page.viewportSize();
    assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `Pause at ${JSON.stringify(box)}`);
    assert.equal(await messages.getByRole("region", { name: "Running workflows" }).count(), 0, "the bar is outside the list");
    await w.screenshot("workflow-bar-running");

    await pause.click();
    await bar.getByRole("button", { name: "Resume" }).waitFor();
    let run = (await w.api("GET", `/v1/contexts/${ctx.id}/messages`)).messages.find((m) => m.kind === "workflow_execution").data;
    assert.equal(run.status, "paused");
    await bar.getByRole("button", { name: "Resume" }).click();
    // Once the run ends the bar goes; the result stays on the run's card.
    await bar.waitFor({ state: "detached" });
    await w.page.getByRole("region", { name: "Workflow greet" }).locator(".wf-result", { hasText: "Hello, Ada!" }).waitFor();
    run = (await w.api("GET", `/v1/contexts/${ctx.id}/messages`)).messages.find((m) => m.kind === "workflow_execution").data;
    assert.equal(run.status, "completed");
  });
});
