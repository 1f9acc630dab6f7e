// Structured answers: a plan proposed in plan mode, executed from its card and ticked step by
// step as the agent reports them (update_plan), and a question answered with one of its option
// buttons.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

const PLAN = {
  goal: "Add a changelog",
  steps: [
    { step_number: 1, action: "Read the readme", reason: "Learn the project's name", tools_needed: ["read_file"] },
    { step_number: 2, action: "Write CHANGELOG.md", reason: "Record the release", tools_needed: ["write_file"], risks: ["Overwrites an existing changelog"] },
  ],
};

test("a plan proposed in plan mode is executed from its card and the next answer appears", async () => {
  const planText = JSON.stringify(PLAN);
  const script = {
    responses: [
      // The plan as JSON text, in pieces as a model would stream it.
      textReply([planText.slice(0, 40), planText.slice(40, 120), planText.slice(120)], 20),
      textReply(["Executing step 1: ", "reading the readme."]),
    ],
  };
  await withWorld("plan-executed", { script }, async (w) => {
    const ctx = await w.createContext({ mode: "plan" });
    await w.open(ctx.id);
    await w.page.locator(".budget").getByText("plan ·", { exact: false }).waitFor();
    await w.send("Plan a changelog");

    const card = w.page.getByRole("region", { name: "Plan" });
    await card.getByText("Add a changelog").waitFor();
    await card.getByText("Write CHANGELOG.md").waitFor();
    await card.getByText("Overwrites an existing changelog", { exact: false }).waitFor();
    assert.equal(await card.locator("ol > li").count(), 2);
    await w.screenshot("plan-executed-card");

    await card.getByRole("button", { name: "Execute plan" }).click();
    await w.page.getByText("Executing step 1: reading the readme.").waitFor();
    await w.page.locator(".budget").getByText("act ·", { exact: false }).waitFor();
    // The execution is a notice of the run, not a message the person wrote; what the model was
    // sent for it is behind a disclosure.
    const notice = w.page.locator("li.message[data-kind=plan_execution]");
    await notice.getByText("Plan execution started").waitFor();
    assert.equal(await w.page.locator("li.message.role-user").filter({ hasText: "Execute the plan" }).count(), 0);
    await notice.getByText("What the model was asked").click();
    await notice.getByText("Execute the plan: Add a changelog", { exact: false }).waitFor();
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.equal(summary.config.mode, "act");
    // The mode switch's notice is in the list: no placeholder waits for it.
    await w.page.locator("li.message[data-kind=system_control]").first().waitFor();
    assert.equal(await w.page.getByText(/Loading system control/).count(), 0);

    // Executed: the card says so instead of offering Execute, also after a reload, and the
    // server refuses a second run.
    await card.getByRole("status").getByText(/^Execut/).waitFor();
    assert.equal(await card.getByRole("button", { name: "Execute plan" }).count(), 0);
    await w.page.reload();
    const again = w.page.getByRole("region", { name: "Plan" });
    await again.getByRole("status").getByText(/^Execut/).waitFor();
    assert.equal(await again.getByRole("button", { name: "Execute plan" }).count(), 0);
    assert.equal(await w.page.getByText(/Loading system control/).count(), 0);
    await w.screenshot("plan-executed-after-reload");
    const planId = await again.evaluate((el) => el.closest("li.message")?.getAttribute("data-id"));
    const second = await fetch(`${w.url}/v1/contexts/${ctx.id}/plans/${planId}/execute`, { method: "POST" });
    assert.equal(second.status, 409);
    assert.match((await second.json()).error.message, /already executed/);
  });
});

test("a plan proposed with the propose_plan tool is executed and switches to act mode", async () => {
  const script = {
    responses: [toolCallReply("call_plan_1", "propose_plan", PLAN), textReply(["Step 1 ", "is under way."])],
  };
  await withWorld("plan-tool-executed", { script }, async (w) => {
    // propose_plan needs no approval here: the white list names it.
    const ctx = await w.createContext({ mode: "plan", approval_policy: { type: "white_list", tools: ["propose_plan"] } });
    await w.open(ctx.id);
    await w.send("Plan a changelog");

    const card = w.page.getByRole("region", { name: "Plan" });
    await card.getByText("Add a changelog").waitFor();
    await card.getByText("Read the readme").waitFor();
    assert.equal((await card.locator(".chips").first().innerText()).trim(), "read_file");
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await card.getByRole("button", { name: "Execute plan" }).click();
    await w.page.getByText("Step 1 is under way.").waitFor();
    await w.page.locator(".budget").getByText("act ·", { exact: false }).waitFor();
  });
});

test("plan steps tick as the agent reports them, live and after a reload", async () => {
  const report = (id, step_number, status) => toolCallReply(id, "update_plan", { step_number, status });
  const script = {
    responses: [
      toolCallReply("call_plan_1", "propose_plan", PLAN),
      report("call_step_1", 1, "completed"),
      report("call_step_2_started", 2, "in_progress"),
      // Streamed slowly, so step 2 is seen in progress before it is done.
      { ...report("call_step_2_done", 2, "completed"), chunk_delay_ms: 600 },
      textReply(["Both steps ", "are done."]),
    ],
  };
  await withWorld("plan-steps-tick", { script }, async (w) => {
    // Manual asks before every call that changes something; a progress report changes nothing.
    const ctx = await w.createContext({ mode: "plan", approval_policy: { type: "manual" } });
    await w.open(ctx.id);
    await w.send("Plan a changelog");

    const card = w.page.getByRole("region", { name: "Plan" });
    await card.getByText("Write CHANGELOG.md").waitFor();
    const steps = card.locator("ol.plan-steps > li");
    assert.equal(await steps.count(), 2);
    assert.equal(await card.getByRole("img").count(), 0, "no step is marked before the plan runs");
    await card.getByRole("button", { name: "Execute plan" }).click();

    await steps.nth(0).getByRole("img", { name: "Done" }).waitFor();
    await steps.nth(1).getByRole("img", { name: "In progress" }).waitFor();
    // While the plan runs, the header already says act (the mode its execution switched to).
    await w.page.locator(".budget").getByText("act ·", { exact: false }).waitFor({ timeout: 1_000 });
    assert.equal(await card.getByRole("status").innerText(), "Executing: 1 of 2 steps done");
    await w.screenshot("plan-steps-tick-in-progress");
    await steps.nth(1).getByRole("img", { name: "Done" }).waitFor();
    await w.page.getByText("Both steps are done.").waitFor();
    await card.getByRole("status").getByText("Executed: 2 of 2 steps done").waitFor();
    // The reports are the card's ticks, not tool cards, and none asked for approval.
    assert.equal(await w.page.locator('li.tool-call[data-tool="update_plan"]').count(), 0);
    assert.equal(await w.page.getByRole("button", { name: "Approve", exact: true }).count(), 0);
    await w.screenshot("plan-steps-ticked");

    // The ticks are read back from what the server stored.
    await w.page.reload();
    const again = w.page.getByRole("region", { name: "Plan" });
    await again.getByRole("status").getByText("Executed: 2 of 2 steps done").waitFor();
    const reloaded = again.locator("ol.plan-steps > li");
    for (const i of [0, 1]) {
      assert.equal(await reloaded.nth(i).getAttribute("data-status"), "completed");
      await reloaded.nth(i).getByRole("img", { name: "Done" }).waitFor();
    }
    const messages = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    const reports = messages.messages.filter((m) => m.kind === "tool_result" && m.data.tool_name === "update_plan");
    assert.deepEqual(
      reports.map((m) => [m.data.status, m.data.output.step_number, m.data.output.status]),
      [
        ["success", 1, "completed"],
        ["success", 2, "in_progress"],
        ["success", 2, "completed"],
      ],
    );
  });
});

test("a question is answered with an option button, which then disables all options", async () => {
  const question = {
    question: "Which license should the project use?",
    options: [
      { label: "MIT", value: "mit" },
      { label: "Apache 2.0", value: "apache-2.0" },
    ],
    severity: "critical",
    default: "mit",
  };
  const script = {
    responses: [textReply([JSON.stringify(question)], 10), textReply(["Using the ", "Apache 2.0 license."])],
  };
  await withWorld("question-answered", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Add a license");

    const card = w.page.getByRole("region", { name: "Question (critical)" });
    await card.getByText("Which license should the project use?").waitFor();
    const options = card.getByRole("group", { name: "Answers" }).getByRole("button");
    assert.equal(await options.count(), 2);
    assert.ok(await card.evaluate((el) => el.classList.contains("severity-critical")));
    await w.screenshot("question-answered-asked");

    await card.getByRole("button", { name: "Apache 2.0" }).click();
    await card.getByText("Answered: Apache 2.0").waitFor();
    for (const b of await options.all()) assert.equal(await b.isDisabled(), true);
    await w.page.getByText("Using the Apache 2.0 license.").waitFor();

    // The answer is stored: after a reload the card still shows it, buttons still disabled.
    await w.page.reload();
    const again = w.page.getByRole("region", { name: "Question (critical)" });
    await again.getByText("Answered: Apache 2.0").waitFor();
    for (const b of await again.getByRole("group", { name: "Answers" }).getByRole("button").all()) {
      assert.equal(await b.isDisabled(), true);
    }
  });
});
