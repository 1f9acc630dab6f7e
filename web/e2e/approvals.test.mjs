// Tool calls under the manual approval policy: the approval card's Approve, Deny and
// "Approve for this session" buttons, against the real engine.

import { test } from "node:test";
import assert from "node:assert/strict";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

const files = { "README.md": "# Demo\nThe demo project's readme.\n" };

test("approving a tool call runs it and the model answers with its result", async () => {
  const script = {
    responses: [
      toolCallReply("call_read_1", "read_file", { path: "README.md" }, "Let me read it."),
      textReply(["The readme ", "says: Demo."]),
    ],
  };
  await withWorld("approve-tool-call", { script, files }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("What does the readme say?");

    const card = w.page.getByRole("group", { name: "Approval for read_file" });
    await card.waitFor();
    await w.page.locator(".tool-request").getByText("README.md").first().waitFor();
    await w.screenshot("approve-tool-call-pending");
    await card.getByRole("button", { name: "Approve", exact: true }).click();

    // The result fills in the call's own card: no separate result message.
    const call = w.page.locator("li.tool-call[data-call-id=call_read_1].ok");
    await call.waitFor();
    assert.match(await call.getAttribute("aria-label"), /read_file call, succeeded/);
    await call.locator("figure.code-view").getByText("The demo project's readme.", { exact: false }).waitFor();
    assert.equal(await w.page.locator("li.message[data-kind=tool_result]").count(), 0);
    await w.page.getByText("The readme says: Demo.").waitFor();
    // The decided call no longer offers buttons.
    assert.equal(await w.page.getByRole("group", { name: "Approval for read_file" }).count(), 0);
  });
});

test("denying a tool call gives the model an error result and it answers", async () => {
  const script = {
    responses: [
      toolCallReply("call_read_1", "read_file", { path: "README.md" }),
      textReply(["Understood, ", "I will not read it."]),
    ],
  };
  await withWorld("deny-tool-call", { script, files }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("Read the readme");

    const card = w.page.getByRole("group", { name: "Approval for read_file" });
    await card.getByRole("button", { name: "Deny" }).click();

    await w.page.getByText("Understood, I will not read it.").waitFor();
    // The denial reads as the person's decision, not as a failure.
    const call = w.page.locator("li.tool-call[data-call-id=call_read_1].denied");
    await call.waitFor();
    assert.match(await call.getAttribute("aria-label"), /read_file call, denied by you/);
    assert.equal(await call.locator(".call-denied").innerText(), "You denied this call. The model was told and did not run it.");
    assert.equal(await call.getByText(/failed/).count(), 0);
    // The file was never read: its content is nowhere on the page.
    assert.ok(!(await w.page.locator("main").innerText()).includes("The demo project's readme."));
  });
});

test("approve for this session runs the same tool next time without asking", async () => {
  const script = {
    responses: [
      toolCallReply("call_read_1", "read_file", { path: "README.md" }),
      textReply(["First read done."]),
      toolCallReply("call_read_2", "read_file", { path: "README.md" }),
      textReply(["Second read done."]),
    ],
  };
  await withWorld("approve-for-session", { script, files }, async (w) => {
    const ctx = await w.createContext();
    const approvals = [];
    w.page.on("request", (r) => {
      if (r.method() === "POST" && r.url().endsWith("/approvals")) approvals.push(r.postData());
    });
    await w.open(ctx.id);
    await w.send("Read the readme");
    await w.page
      .getByRole("group", { name: "Approval for read_file" })
      .getByRole("button", { name: "Approve for this session" })
      .click();
    await w.page.getByText("First read done.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    await w.send("Read it again");
    await w.page.getByText("Second read done.").waitFor();
    // Two successful results (the second card fills in once the turn settles)...
    await w.page.locator("li.tool-call[data-call-id=call_read_2].ok").waitFor();
    // ...and the second call was never put to the person: one decision was ever sent.
    assert.equal(approvals.length, 1, `decisions sent: ${approvals.join(", ")}`);
    assert.equal(await w.page.getByRole("group", { name: "Approval for read_file" }).count(), 0);
    const page = await w.api("GET", `/v1/contexts/${ctx.id}/messages`);
    const second = page.messages.find((m) => m.kind === "tool_request" && m.data.calls[0].id === "call_read_2");
    assert.equal(second.data.calls[0].approval_status, "approved");
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.deepEqual(summary.config.approved_tools, ["read_file"]);
  });
});

test("approve for this session on a command names the rule it adds; the rule is listed in Settings and removing it asks again", async () => {
  const script = {
    responses: [
      toolCallReply("call_git_1", "run_command", { program: "git", args: ["status", "--short"] }),
      textReply(["First status done."]),
      toolCallReply("call_git_2", "run_command", { program: "git", args: ["status"] }),
      textReply(["Second status done."]),
      toolCallReply("call_git_3", "run_command", { program: "git", args: ["status"] }),
      textReply(["Third status done."]),
    ],
  };
  await withWorld("approve-command-rule", { script, files }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.send("What is the status?");
    const card = w.page.getByRole("group", { name: "Approval for run_command" });
    // The card names the rule before the person chooses.
    const forSession = card.getByRole("button", { name: "Approve for this session" });
    await card.getByText("Approve for this session adds the rule").waitFor();
    assert.match(await card.locator(".session-rule").innerText(), /adds the rule git status: always allow git status in this conversation/);
    assert.equal(await forSession.getAttribute("aria-describedby"), "session-rule-call_git_1");
    await w.screenshot("approve-command-rule-pending");
    await forSession.click();
    await w.page.getByText("First status done.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // The rule runs the next `git status` without asking.
    await w.send("Again");
    await w.page.getByText("Second status done.").waitFor();
    await w.page.locator("li.tool-call[data-call-id=call_git_2]:not(.pending)").waitFor();
    assert.equal(await w.page.getByRole("group", { name: "Approval for run_command" }).count(), 0);
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.deepEqual(summary.config.command_rules, [{ program: "git", args_prefix: ["status"], origin: "session_approval" }]);

    // Settings lists the rule with where it came from; removing it makes the command ask again.
    await w.page.getByRole("button", { name: "Settings" }).click();
    const rules = w.page.getByRole("region", { name: "Commands that run without asking" });
    await rules.getByText("git status").waitFor();
    assert.match(await rules.innerText(), /git status\s*approved for this session/);
    await rules.getByRole("button", { name: "Remove the rule git status" }).click();
    await w.page.waitForFunction(async (id) => {
      const r = await fetch(`/v1/contexts/${id}`);
      return ((await r.json()).config.command_rules ?? []).length === 0;
    }, ctx.id);
    await w.send("Once more");
    await w.page.getByRole("group", { name: "Approval for run_command" }).waitFor();
  });
});

test("a command asking to run outside the sandbox names it, and cannot be approved for the session", async () => {
  const script = {
    responses: [
      toolCallReply("call_out_1", "run_command", { program: "touch", args: ["../planted"], outside_sandbox: "it writes beside the workspace" }),
      textReply(["Planted."]),
    ],
  };
  // The operator allows unsandboxed commands: leaving the sandbox is then the person's decision.
  await withWorld("approve-outside-sandbox", { script, files, serverArgs: ["--allow-unsandboxed"] }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "auto_all" } });
    await w.open(ctx.id);
    await w.send("Plant a file next to the workspace");
    // Even under "run everything without asking", leaving the sandbox waits for the person.
    const card = w.page.getByRole("group", { name: "Approval for run_command" });
    await card.waitFor();
    const call = w.page.locator("li.tool-call[data-call-id=call_out_1]");
    assert.match(await call.getByRole("note").innerText(), /Runs outside the sandbox.*it writes beside the workspace/);
    assert.equal(await card.getByRole("button", { name: "Approve for this session" }).count(), 0);
    await w.screenshot("approve-outside-sandbox-pending");
    await card.getByRole("button", { name: "Approve outside the sandbox" }).click();
    await w.page.getByText("Planted.").waitFor();
    assert.equal(await w.page.locator("li.tool-call[data-call-id=call_out_1].failed").count(), 0);
    await access(join(w.dir, "planted"));
  });
});

test("without the operator's permission, a command asking to leave the sandbox is refused without asking", async () => {
  const script = {
    responses: [
      toolCallReply("call_out_2", "run_command", { program: "touch", args: ["../planted"], outside_sandbox: "it writes beside the workspace" }),
      textReply(["Not allowed here."]),
    ],
  };
  await withWorld("outside-sandbox-refused", { script, files }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "manual" } });
    await w.open(ctx.id);
    await w.send("Plant a file next to the workspace");
    await w.page.getByText("Not allowed here.").waitFor();
    // No card asked the person for what the operator refuses; the call's error says how to allow it.
    assert.equal(await w.page.getByRole("group", { name: "Approval for run_command" }).count(), 0);
    const call = w.page.locator("li.tool-call[data-call-id=call_out_2].failed");
    await call.waitFor();
    assert.match(await call.innerText(), /--allow-unsandboxed/);
  });
});
