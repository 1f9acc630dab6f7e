// A workflow from the composer's `/` menu: its parameter filled in the form generated from its
// schema, run, paused while its first step (a command) runs, resumed, and its result shown.

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
