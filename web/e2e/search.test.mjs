// Search through what was written (issue 46): a word of an answer in another conversation,
// typed in the sidebar's search, is found by the server's full-text index and opens that
// conversation at the answer, scrolled into view, even with later messages below it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { textReply, withWorld } from "./harness.mjs";

/** A long answer, so a few of them fill more than the window. */
const filler = (i) => `Answer ${i}. ${"The formatter writes every token back in the order it was read. ".repeat(12)}`;

test("search finds a word from a message body and opens the conversation at that message", async () => {
  const responses = [textReply(["The cursor lives in the ", "Zebrafish struct of src/lexer.rs."])];
  for (let i = 1; i <= 5; i++) responses.push(textReply([filler(i)]));
  responses.push(textReply(["Unrelated answer."]));
  await withWorld("search", { script: { responses } }, async (w) => {
    const lexer = await w.createContext({}, "Lexer notes");
    await w.open(lexer.id);
    await w.send("Where is the cursor kept?");
    const messages = w.page.getByRole("list", { name: "Messages" });
    await messages.getByText("Zebrafish struct", { exact: false }).waitFor();
    for (let i = 1; i <= 5; i++) {
      await w.send(`Question ${i}`);
      await messages.getByText(`Answer ${i}.`, { exact: false }).waitFor();
    }
    const stored = await w.api("GET", `/v1/contexts/${lexer.id}/messages?view=full`);
    const answer = stored.messages.find((m) => m.role === "assistant" && JSON.stringify(m.data).includes("Zebrafish"));
    assert.ok(answer, "the answer is stored");

    const other = await w.createContext({}, "Something else");
    await w.open(other.id);
    await w.send("Hello");
    await messages.getByText("Unrelated answer.").waitFor();

    // The title does not hold the word: only the message text does.
    await w.page.getByLabel("Search conversations").fill("zebra");
    const found = w.page.getByRole("region", { name: "Messages found" });
    const hit = found.getByRole("button", { name: /Lexer notes/ });
    await hit.waitFor();
    assert.equal(await found.locator("mark").first().innerText(), "Zebrafish");
    await w.screenshot("search-found");

    await hit.click();
    await w.page.waitForURL(`**/contexts/${lexer.id}`);
    const target = messages.locator(`li[data-id="${answer.id}"]`);
    await target.waitFor();
    // Scrolled to the middle of the list, with later answers below it.
    await w.page.waitForFunction((id) => {
      const list = document.querySelector('[aria-label="Messages"]');
      const el = list?.querySelector(`li[data-id="${id}"]`);
      if (!list || !el) return false;
      const box = list.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return r.top >= box.top && r.bottom <= box.bottom && list.scrollHeight - list.scrollTop - list.clientHeight > 50;
    }, answer.id);
    await w.screenshot("search-opened");
    assert.deepEqual(w.pageErrors, []);
  });
});
