// Compaction people can trust (issue 42), against the real server: a pinned message survives the
// compactions of a small `recent_n` window, each compaction is a row that names what left, and
// "What the model saw" on an answer lists what was sent (the pinned message included) and what
// was left out, with the token bar; a summary merge is previewed, edited and merged from the
// merge dialog.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, toolCallReply, withWorld } from "./harness.mjs";

const ANSWERS = 5;
/** About 1,600 tokens: four of these and the fixed part are over an 8,192-token window. */
const FILLER = "alpha beta gamma delta ".repeat(400);
/** The start of how the UI lists a message (`role: text…`). */
const lineStart = (m) => `${m.role}: ${m.data.parts[0].text.slice(0, 24)}`;

test("a pinned message survives compaction, which shows as a row and in what the model saw", async () => {
  const script = { responses: Array.from({ length: ANSWERS }, (_, i) => textReply([`Answer ${i + 1}.`])) };
  await withWorld("compaction-what-the-model-saw", { script }, async (w) => {
    const ctx = await w.createContext({
      approval_policy: { type: "auto_all" },
      context_window: 8192,
      optimization: { strategy: { type: "recent_n", n: 3 }, reserve_output_tokens: 512, margin_tokens: 64, ledger_percent: 15 },
    });
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });
    await w.send("Question 1: the release branch is frozen.");
    await messages.getByText("Answer 1.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();

    // Pin the first question from its actions.
    const first = messages.locator("li.message.role-user").first();
    await first.hover();
    await first.getByRole("button", { name: "Pin message" }).click();
    await first.locator(".badge.pinned").waitFor();
    await first.getByRole("button", { name: "Unpin message" }).waitFor();

    // Pin a fact: listed with the pinned message, a row of its own.
    const pins = w.page.locator("details.pinned-facts");
    await pins.getByText("Pinned (1)").click();
    await pins.getByLabel("Fact every request carries").fill("Use metric units.");
    await pins.getByRole("button", { name: "Pin fact" }).click();
    await pins.getByText("Pinned (2)").waitFor();
    await pins.getByRole("list", { name: "Pinned" }).getByText("pinned fact: Use metric units.").waitFor();
    await messages.getByText("Pinned fact: Use metric units.").waitFor();

    for (let i = 2; i <= ANSWERS; i++) {
      await w.send(`Question ${i}. ${FILLER}`);
      await messages.getByText(`Answer ${i}.`).waitFor();
      await w.page.getByRole("button", { name: "Send" }).waitFor();
    }

    // The server's record of the last request: the pinned question went in, older answers did not.
    const all = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?limit=1000`)).messages;
    const question1 = all.find((m) => m.kind === "text" && m.role === "user" && m.data.parts[0].text.startsWith("Question 1"));
    const last = all.filter((m) => m.role === "assistant" && m.kind === "text").at(-1);
    const record = await w.api("GET", `/v1/contexts/${ctx.id}/requests/${last.metadata.model_request_id}`);
    assert.ok(record.messages.some((s) => s.id === question1.id), "the pinned question was sent");
    assert.ok(record.dropped.length > 0, "older messages were left out");
    const left = all.find((m) => m.id === record.dropped[0]);
    const fact = all.find((m) => m.kind === "system_control" && m.data.type === "pinned_fact");
    const summary = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.deepEqual(summary.pinned, [question1.id, fact.id]);
    assert.ok(record.ledger.text.includes("Use metric units."), record.ledger.text);

    // Every compaction is a row naming what left.
    const rows = messages.locator(".sc-compaction");
    await rows.first().waitFor();
    const headline = await rows.first().locator("span").first().textContent();
    assert.match(headline, /^[\d,]+ -> [\d,]+ tokens, \d+ dropped/);
    const notices = all.filter((m) => m.kind === "system_control" && m.data.type === "compaction");
    assert.equal(await rows.count(), notices.length);
    const dropping = rows.filter({ has: w.page.locator("summary", { hasText: "What left the request" }) }).first();
    await dropping.getByText("What left the request").click();
    await dropping.getByRole("list", { name: "Dropped messages" }).locator("li").first().waitFor();
    const droppedLines = await messages.getByRole("list", { name: "Dropped messages" }).allTextContents();
    const everDropped = notices.flatMap((n) => n.data.record.dropped);
    assert.ok(everDropped.includes(left.id), "what the last request left out was dropped by a recorded compaction");
    assert.ok(droppedLines.join("\n").length > 0);

    // What the model saw, on the last answer.
    const answer = messages.locator(`li[data-id="${last.id}"]`);
    await answer.hover();
    await answer.getByRole("button", { name: "What the model saw" }).click();
    const panel = answer.getByRole("region", { name: "What the model saw" });
    const sent = panel.getByRole("list", { name: "Messages sent, in order" });
    await sent.getByText("user: Question 1: the release branch is frozen.").waitFor();
    await sent.getByText(`assistant: Answer ${ANSWERS - 1}.`).waitFor();
    assert.equal(await sent.getByText(lineStart(left), { exact: false }).count(), 0);
    await panel.getByText(`Left out: ${record.dropped.length} message`, { exact: false }).click();
    await panel.getByRole("list", { name: "Messages left out" }).getByText(lineStart(left), { exact: false }).first().waitFor();
    const bar = panel.getByRole("img", { name: /tokens the prompt may take/ });
    const label = await bar.getAttribute("aria-label");
    assert.ok(label.startsWith(`${record.tokens.toLocaleString("en-US")} of ${record.budget.limit.toLocaleString("en-US")} tokens`), label);
    await panel.getByRole("list", { name: "Tokens by part" }).getByText(/^ ?System prompt: [\d,]+$/).waitFor();
    await panel.getByText("Ledger block").click();
    await panel.locator(".sent-ledger pre").getByText("Use metric units.", { exact: false }).waitFor();
    await w.screenshot("compaction-what-the-model-saw");
  });
});

test("a summary merge is previewed, its summary edited, and merged from the dialog", async () => {
  const script = {
    responses: [
      textReply(["On main."]),
      toolCallReply("b0", "read_file", { path: "notes.txt" }),
      textReply(["Finding 0."]),
      toolCallReply("b1", "run_command", { program: "echo", args: ["probe", "1"] }),
      textReply(["Finding 1."]),
      textReply(["SUMMARY: the branch found that notes.txt has two lines."]),
    ],
  };
  await withWorld("merge-summary", { script, files: { "notes.txt": "one\ntwo\n" } }, async (w) => {
    const ctx = await w.createContext({ approval_policy: { type: "auto_all" } });
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });
    await w.send("start");
    await messages.getByText("On main.").waitFor();
    await w.page.getByRole("button", { name: "Send" }).waitFor();
    await w.api("POST", `/v1/contexts/${ctx.id}/branches`, { name: "explore" });
    // The branch bar reads the branches when the conversation opens.
    await w.open(ctx.id);
    const branch = w.page.getByLabel("Branch", { exact: true });
    await branch.selectOption("explore");
    for (let i = 0; i < 2; i++) {
      await w.send(`explore ${i}`);
      await messages.getByText(`Finding ${i}.`).waitFor();
      await w.page.getByRole("button", { name: "Send" }).waitFor();
    }
    await branch.selectOption("main");
    await messages.getByText("Finding 1.").waitFor({ state: "detached" });
    const before = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=main&limit=1000`)).messages.length;

    await w.page.getByRole("button", { name: "Merge…" }).click();
    const dialog = w.page.getByRole("form", { name: "Merge branches" });
    assert.equal(await dialog.getByLabel("Merge from").inputValue(), "explore");
    await dialog.getByLabel("Summary", { exact: true }).check();
    await dialog.getByRole("button", { name: "Preview" }).click();
    const box = dialog.getByLabel("Summary (edit it before merging)");
    await waitForInput(box, "SUMMARY: the branch found that notes.txt has two lines.");
    const ledger = await dialog.getByLabel("Ledger appended").textContent();
    assert.ok(ledger.includes("notes.txt") && ledger.includes("echo probe 1"), ledger);
    await w.screenshot("merge-summary-preview");
    // The dry run stored nothing.
    const previewed = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=main&limit=1000`)).messages.length;
    assert.equal(previewed, before);

    const edited = "Edited: notes.txt has two lines; keep it.";
    await box.fill(edited);
    await dialog.getByRole("button", { name: "Merge", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await messages.getByText(edited, { exact: false }).waitFor();
    await messages.getByText("Merged branch explore (summary)", { exact: false }).waitFor();

    const after = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?branch=main&limit=1000`)).messages;
    assert.equal(after.length, before + 2, "the marked message and the notice");
    const marked = after[before];
    assert.equal(marked.metadata.merged_from.branch, "explore");
    const text = marked.data.parts[0].text;
    assert.ok(text.includes(edited) && text.includes("echo probe 1"), text);

    // The marked message links back to its branch.
    const row = messages.locator(`li[data-id="${marked.id}"]`);
    await row.getByText(`conclusions of explore · ${marked.metadata.merged_from.count} messages`).waitFor();
    await row.getByRole("button", { name: "Open branch explore" }).click();
    await messages.getByText("Finding 1.").waitFor();
    assert.equal(await branch.inputValue(), "explore");
  });
});

test("a summary is shown standing in for what it replaced, and the person corrects it", async () => {
  // Every reply (the summary's included) is the same, so the order of calls does not matter.
  const script = { responses: Array.from({ length: 16 }, () => textReply(["Noted."])) };
  await withWorld("compaction-summary-correction", { script }, async (w) => {
    const ctx = await w.createContext({
      approval_policy: { type: "auto_all" },
      context_window: 8192,
      optimization: { strategy: { type: "intelligent" }, reserve_output_tokens: 512, margin_tokens: 64, ledger_percent: 15 },
    });
    await w.open(ctx.id);
    const messages = w.page.getByRole("list", { name: "Messages" });
    let summary = null;
    for (let i = 1; i <= 8 && !summary; i++) {
      await w.send(`Note ${i}. ${FILLER}`);
      await messages.locator("li.message.role-assistant").nth(i - 1).getByText("Noted.").waitFor();
      await w.page.getByRole("button", { name: "Send" }).waitFor();
      const all = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?limit=1000`)).messages;
      summary = all.find((m) => m.kind === "system_control" && m.data.type === "summary") ?? null;
    }
    assert.ok(summary, "the intelligent strategy summarized older notes");

    // What the model saw on the newest answer: the summary standing in for the notes.
    const all = (await w.api("GET", `/v1/contexts/${ctx.id}/messages?limit=1000`)).messages;
    const last = all.filter((m) => m.role === "assistant" && m.kind === "text").at(-1);
    const record = await w.api("GET", `/v1/contexts/${ctx.id}/requests/${last.metadata.model_request_id}`);
    const standing = record.messages.find((s) => s.sent_as.type === "summary");
    assert.ok(standing, JSON.stringify(record.messages));
    const answer = messages.locator(`li[data-id="${last.id}"]`);
    await answer.hover();
    await answer.getByRole("button", { name: "What the model saw" }).click();
    const panel = answer.getByRole("region", { name: "What the model saw" });
    const n = standing.sent_as.replaces.length;
    await panel.getByText(`summary standing in for ${n} message${n === 1 ? "" : "s"}`).waitFor();

    // The summary row opens, and the person's correction is stored.
    const row = messages.locator(`li[data-id="${summary.id}"]`);
    await row.getByText("Summary", { exact: true }).click();
    await row.getByRole("button", { name: "Correct" }).click();
    const corrected = "Notes 1 to 3 were filler; nothing to keep.";
    await row.getByLabel("Summary text").fill(corrected);
    await row.getByRole("button", { name: "Save correction" }).click();
    await row.getByText("Summary (corrected)").waitFor();
    await row.getByText(corrected).waitFor();
    const stored = await w.api("GET", `/v1/contexts/${ctx.id}/messages/${summary.id}`);
    assert.equal(stored.data.text, corrected);
    await w.screenshot("compaction-summary-correction");
  });
});

/** Waits until an input holds `expected`. */
async function waitForInput(locator, expected, timeout = 15_000) {
  const end = Date.now() + timeout;
  let value = "";
  while (Date.now() < end) {
    value = await locator.inputValue().catch(() => "");
    if (value === expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(value, expected);
}
