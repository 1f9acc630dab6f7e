// The first screen of a new conversation and the settings a person meets first: what Braid can
// do, where it works, example prompts sent with one click, the composer ready; the model's
// discovered window shown and the context window settable; the model picked from the model
// server's list.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

test("a new conversation offers example prompts, and the settings show the discovered window and set another", async () => {
  const script = { responses: [textReply(["This project is a demo."])] };
  await withWorld("first-run", { script, files: { "README.md": "# Demo\n" } }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    const start = w.page.getByRole("listitem", { name: "Start here" });
    await start.getByText("What can Braid do for you?").waitFor();
    await start.getByText(w.workspace, { exact: false }).waitFor();
    await w.page.waitForFunction(() => document.activeElement?.closest(".composer") !== null);
    await w.screenshot("first-run-empty");

    await start.getByRole("button", { name: /Get to know the project/ }).click();
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("This project is a demo.").waitFor();
    await messages.locator("li.message.role-user", { hasText: "Give me an overview of this project" }).waitFor();
    assert.equal(await w.page.getByRole("listitem", { name: "Start here" }).count(), 0);

    await w.page.getByRole("button", { name: "Settings" }).click();
    const facts = w.page.getByLabel("What the model can do");
    assert.match(await facts.innerText(), /mock: 32,768-token window \(reported by the model server\)/);
    await w.page.getByLabel("Context window (tokens)").fill("16384");
    await w.page.getByRole("button", { name: "Save settings" }).click();
    await w.page.getByText("Saved").first().waitFor();
    const saved = await w.api("GET", `/v1/contexts/${ctx.id}`);
    assert.equal(saved.config.context_window, 16384);
    await w.screenshot("first-run-settings");
  });
});

test("the model picker lists the model server's models with their discovered figures", async () => {
  const script = { responses: [textReply(["Done."])] };
  await withWorld("model-picker", { script }, async (w) => {
    const ctx = await w.createContext();
    await w.open(ctx.id);
    await w.page.getByRole("button", { name: "Settings" }).click();
    const picker = w.page.getByLabel("Model", { exact: true });
    // The list comes from the mock's `/v1/models` (through `GET /v1/models`), each model with
    // the window its `/props` reported.
    await w.page.waitForFunction(() => [...document.querySelectorAll("select option")].some((o) => o.textContent?.startsWith("mock — ")));
    const options = await picker.locator("option").allInnerTexts();
    assert.ok(options.some((o) => /^mock — 32,768 tokens/.test(o)), options.join(" | "));
    assert.ok(options.some((o) => /^Server default \(mock — 32,768 tokens/.test(o)), options.join(" | "));
    const listed = await w.api("GET", "/v1/models");
    assert.deepEqual(listed.models.map((m) => m.model), ["mock"]);

    await picker.selectOption("mock");
    await w.page.getByRole("button", { name: "Save settings" }).click();
    await w.page.getByText("Saved").first().waitFor();
    assert.equal((await w.api("GET", `/v1/contexts/${ctx.id}`)).config.model, "mock");
    await w.screenshot("model-picker");
  });
});
