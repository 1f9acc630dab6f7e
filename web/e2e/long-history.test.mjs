// A conversation of 2,000 messages, seeded straight into the SQLite file (as a long-lived
// conversation would be stored) while `braid serve` is stopped, opened in Chromium with
// Playwright's tracing on: only its newest page is read (one request from the end, not the
// whole history) and only its newest messages are rendered; the time to the newest one on
// screen is printed and saved with the trace, both as the test sees it and as the page does
// (from navigation to the newest message in the document and painted).
//
// Issue 49's target is a first screen under 300 ms. On the shared 2-core machine these tests run
// on, ten interleaved runs of each UI (session 25, release server) measured from navigation to
// the newest message painted: 226-344 ms, median 245, 9 of 10 under 300 (the newest page is read
// while the UI is built and shown by its first render; each text's Markdown is parsed once, with
// GFM's extensions built once), against 318-412 ms, median 354, before. The time bound asserted
// is still a guard against a return to rendering everything (several seconds), not the target,
// as the machine's load varies it by a factor of two; the listings requested are the exact check.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { textReply, webDir, withWorld } from "./harness.mjs";

const SEEDED = 2000;
/** Messages the UI renders at first (MessageWindow's WINDOW). */
const WINDOW = 40;

/** Answers the rows of one query on the world's SQLite file (through Python's sqlite3). */
function query(db, statement) {
  const py = "import json, sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.row_factory = sqlite3.Row\nprint(json.dumps([dict(r) for r in c.execute(sys.stdin.read())]))";
  return JSON.parse(execFileSync("python3", ["-c", py, db], { input: statement, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
}

/** Runs statements on the world's SQLite file in one transaction. */
function execute(db, statements) {
  const py = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.executescript(sys.stdin.read())\nc.commit()";
  execFileSync("python3", ["-c", py, db], { input: statements, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

/** A UUIDv7-shaped id (time-ordered) for the i-th seeded message. */
function seededId(ms, i) {
  const hex = `${ms.toString(16).padStart(12, "0")}7${(i & 0xfff).toString(16).padStart(3, "0")}8${i.toString(16).padStart(15, "0")}`;
  return { hex, text: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

/** A message's text: paragraphs, and now and then a list or a code block. */
function body(i) {
  const para = `Message ${i}: the parser keeps every token of the line it reads, and the formatter writes them back in the same order, so nothing is lost on the way.`;
  if (i % 7 === 0) return `${para}\n\n\`\`\`rust\nfn step_${i}(input: &str) -> usize {\n    input.len() + ${i}\n}\n\`\`\``;
  if (i % 5 === 0) return `${para}\n\n- first point of ${i}\n- second point\n- third point`;
  return para;
}

test("a 2,000-message conversation opens with only its newest messages rendered", async () => {
  const script = { responses: [textReply(["Seed answer."])] };
  await withWorld("long-history", { script }, async (w) => {
    const ctx = await w.createContext({}, "Long history");
    await w.api("POST", `/v1/contexts/${ctx.id}/messages`, { payload: { type: "text", text: "Seed question" } });
    for (let i = 0; i < 100; i++) {
      const s = await w.api("GET", `/v1/contexts/${ctx.id}/state`);
      const list = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full`);
      if (s.state.type === "idle" && list.messages.length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await w.stopServer();

    // The seed exchange as the server stored it is the pattern of every seeded message.
    const db = join(w.dataDir, "braid.db");
    const rows = query(db, "SELECT hex(context_id) AS ctx, hex(id) AS id, role, kind, status, payload, created_at, updated_at FROM messages ORDER BY created_at;");
    const user = rows.find((r) => r.role === "user" && r.kind === "text");
    const answer = rows.find((r) => r.role === "assistant" && r.kind === "text");
    assert.ok(user && answer, `seed rows: ${JSON.stringify(rows)}`);
    const [{ top }] = query(db, `SELECT max(position) AS top FROM branch_messages WHERE context_id = X'${user.ctx}' AND branch = 'main';`);
    const start = Date.parse(answer.created_at) + 1000;
    const lines = ["BEGIN;"];
    for (let i = 0; i < SEEDED; i++) {
      const pattern = i % 2 === 0 ? user : answer;
      const at = new Date(start + i * 1000).toISOString();
      const id = seededId(start + i * 1000, i);
      const message = JSON.parse(pattern.payload);
      message.id = id.text;
      message.created_at = at;
      message.updated_at = at;
      message.data = { parts: [{ type: "text", text: body(i) }] };
      // One turn each: a shared turn id would make them one answer to the model.
      message.metadata = pattern.role === "assistant" ? { model: "mock" } : {};
      const payload = JSON.stringify(message).replaceAll("'", "''");
      lines.push(
        `INSERT INTO messages (context_id, id, role, kind, status, payload, created_at, updated_at) VALUES (X'${user.ctx}', X'${id.hex}', '${pattern.role}', 'text', 'complete', '${payload}', '${at}', '${at}');`,
        `INSERT INTO branch_messages (context_id, branch, position, message_id) VALUES (X'${user.ctx}', 'main', ${top + 1 + i}, X'${id.hex}');`,
      );
    }
    lines.push("COMMIT;");
    execute(db, lines.join("\n"));
    await w.startServer();
    const listed = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=full&limit=1000`);
    assert.equal(listed.messages.length, 1000);

    const timed = async (path) => {
      const t = Date.now();
      await w.api("GET", path);
      return Date.now() - t;
    };
    const api = {
      summaryMs: await timed(`/v1/contexts/${ctx.id}`),
      optimizedMs: await timed(`/v1/contexts/${ctx.id}/messages?view=optimized&limit=1000`),
      fullPageMs: await timed(`/v1/contexts/${ctx.id}/messages?view=full&limit=1000`),
      branchesMs: await timed(`/v1/contexts/${ctx.id}/branches`),
      listMs: await timed(`/v1/contexts`),
    };
    console.log(`long-history server figures: ${JSON.stringify(api)}`);
    // Open it in the default view (the full history of 2,002 messages, of which the newest are
    // laid out), tracing, and time it to the newest message on screen.
    await w.page.goto(`${w.url}/`);
    const traceDir = join(webDir, "test-results");
    await mkdir(traceDir, { recursive: true });
    await w.browser.tracing.start({ screenshots: true, snapshots: false, title: "open a 2,000-message conversation" });
    const last = `Message ${SEEDED - 1}:`;
    // The page's own clock: when the newest message enters the document, and the frame after.
    await w.page.addInitScript((text) => {
      const shown = () => [...document.querySelectorAll("li.message")].some((li) => li.textContent?.includes(text));
      const watch = new MutationObserver(() => {
        if (!shown()) return;
        watch.disconnect();
        window.__braidShownAt = performance.now();
        requestAnimationFrame(() => setTimeout(() => (window.__braidPaintedAt = performance.now()), 0));
      });
      document.addEventListener("DOMContentLoaded", () => watch.observe(document.body, { childList: true, subtree: true, characterData: true }));
    }, last);
    const listings = [];
    const onRequest = (r) => {
      if (/\/v1\/contexts\/[^/]+\/messages\?/.test(r.url())) listings.push(r.url().replace(/^.*\?/, ""));
    };
    w.page.on("request", onRequest);
    const t0 = Date.now();
    await w.page.goto(`${w.url}/contexts/${ctx.id}`);
    await w.page.getByText(last, { exact: false }).waitFor();
    const openMs = Date.now() - t0;
    w.page.off("request", onRequest);
    await w.page.waitForFunction(() => window.__braidPaintedAt !== undefined);
    const page = await w.page.evaluate(() => ({ shownMs: Math.round(window.__braidShownAt), paintedMs: Math.round(window.__braidPaintedAt) }));
    // The newest page, from the end: the first screen waits for nothing else of the history.
    assert.match(listings[0] ?? "", /^view=full&from=end&limit=100$/, `listings: ${JSON.stringify(listings)}`);
    assert.ok(listings.every((l) => l.startsWith("view=full&from=end") || l.includes("after=")), `listings: ${JSON.stringify(listings)}`);
    assert.ok(await w.page.getByLabel("Full history").isChecked(), "the full history is the default");
    // Only the newest page was read: the button shows what is loaded, not how much more exists.
    await w.page.getByRole("button", { name: `Show ${WINDOW} earlier messages`, exact: true }).waitFor();
    await w.browser.tracing.stop({ path: join(traceDir, "long-history-trace.zip") });
    const rendered = await w.page.locator("li.message").count();
    // The same three pages read by the page itself, without rendering: the network's share.
    const readMs = await w.page.evaluate(async (id) => {
      const t = performance.now();
      let after = "";
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`/v1/contexts/${id}/messages?view=full&limit=1000${after ? `&after=${after}` : ""}`);
        const list = await r.json();
        if (!list.next_after) break;
        after = list.next_after;
      }
      return Math.round(performance.now() - t);
    }, ctx.id);
    await w.screenshot("long-history-open");

    // Scrolling up brings the earlier messages in, keeping the place.
    const t1 = Date.now();
    const list = w.page.getByRole("list", { name: "Messages" });
    // From the bottom (the newest message) up to the top, as a reader scrolls.
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await w.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    await list.evaluate((el) => (el.scrollTop = 0));
    await w.page.waitForFunction((n) => document.querySelectorAll("li.message").length > n, rendered);
    const growMs = Date.now() - t1;
    const report = { messages: SEEDED + 2, openMs, pageShownMs: page.shownMs, pagePaintedMs: page.paintedMs, fullHistoryReadMs: readMs, rendered, growMs };
    console.log(`long-history figures: ${JSON.stringify(report)}`);
    await writeFile(join(traceDir, "long-history-figures.json"), JSON.stringify(report, null, 2));
    // The optimized view marks the messages the model is no longer sent; the marker opens the
    // full history where they end (the toggle is remembered through a reload).
    const optimizedList = await w.api("GET", `/v1/contexts/${ctx.id}/messages?view=optimized&limit=1000`);
    const [marker] = optimizedList.markers ?? [];
    assert.ok(marker && marker.kind === "dropped" && marker.count > 1000, `markers: ${JSON.stringify(optimizedList.markers)}`);
    await w.page.getByLabel("Full history").uncheck();
    const markerText = w.page.getByText(`${marker.count.toLocaleString("en-US")} earlier messages hidden (${marker.tokens.toLocaleString("en-US")} tokens)`);
    for (let i = 0; i < 20 && !(await markerText.isVisible()); i++) {
      await list.evaluate((el) => (el.scrollTop = 0));
      await w.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    }
    await markerText.scrollIntoViewIfNeeded();
    await w.screenshot("long-history-marker");
    await w.page.getByRole("button", { name: "Open in full history" }).click();
    const revealed = w.page.locator(`li[data-id="${marker.last}"]`);
    await revealed.waitFor({ state: "attached" });
    await w.page.waitForFunction((id) => {
      const el = document.querySelector(`li[data-id="${id}"]`);
      const box = document.querySelector("ol.messages")?.getBoundingClientRect();
      if (!el || !box) return false;
      const r = el.getBoundingClientRect();
      return r.bottom > box.top && r.top < box.bottom;
    }, marker.last);
    assert.ok(await w.page.getByLabel("Full history").isChecked());
    await w.screenshot("long-history-marker-opened");
    await w.page.reload();
    await w.page.getByText(last, { exact: false }).waitFor();
    assert.ok(await w.page.getByLabel("Full history").isChecked(), "the full history is remembered");

    assert.ok(openMs < 2000, `opening took ${openMs} ms`);
    assert.ok(rendered < 200, `rendered ${rendered} messages at once`);
  });
});
