// Tool calls under the manual approval policy: the approval card's Approve, Deny and
// "Approve for this session" buttons, against the real engine.

import { test } from "node:test";
import assert from "node:assert/strict";
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
