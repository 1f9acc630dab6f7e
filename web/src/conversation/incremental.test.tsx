// The conversation fetches only what the event stream announces (by `after`), never the whole
// history again on a change, and no card is left "Loading" once a turn settles.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { act, render, screen, waitFor } from "@testing-library/react";
import { App } from "../App";
import { FakeServer, summary } from "../test/server";
import { msg, textMsg } from "../test/fixtures";
import type { Message, MessageUpdate, ContextState } from "../generated/protocol";

const T = "2026-11-22T05:00:00Z";
/** Generous: the 2-core machine runs builds beside the tests. */
const SLOW = { timeout: 5000 };
let server: FakeServer;

beforeEach(() => {
  server = new FakeServer();
  server.contexts = [summary("c1", "Long talk")];
  server.branches.c1 = { active: "main", branches: [{ name: "main", message_count: 40, created_at: T }] };
  server.messages.c1 = Array.from({ length: 40 }, (_, i) => textMsg(`m${String(i).padStart(3, "0")}`, `Message ${i}`, { role: i % 2 ? "assistant" : "user" }));
  window.history.replaceState(null, "", "/contexts/c1");
});
afterEach(() => {
  window.history.replaceState(null, "", "/");
});

let eventId = 0;
function announce(state: ContextState, u?: MessageUpdate) {
  eventId += 1;
  server.push(eventId, "context_update", { context_id: "c1", current_state: state, ...(u ? { message_update: u } : {}), timestamp: T, metadata: {} });
}

/** Requests for the message list, split into full reads and reads after a message. */
function listReads() {
  const reads = server.requests.filter((r) => r.method === "GET" && /^\/v1\/contexts\/c1\/messages(\?|$)/.test(r.path));
  return { full: reads.filter((r) => !r.path.includes("after=")), after: reads.filter((r) => r.path.includes("after=")) };
}

/** Plays one turn: the person's message, a tool request, a notice, a streamed answer; the
 * server's list grows as the real one does, before each announcement. */
async function playTurn() {
  const add = (m: Message) => server.messages.c1!.push(m);
  act(() => {
    add(textMsg("u1", "Read the file", { role: "user" }));
    announce({ type: "processing_user_message" }, { type: "created", message_id: "u1", kind: "text", role: "user" });
  });
  await screen.findByText("Read the file");
  act(() => {
    add(msg("t1", "tool_request", { calls: [{ id: "call_1", name: "read_file", arguments: { path: "a.txt" }, approval_status: "approved" }] }));
    announce({ type: "parsing_tool_calls" }, { type: "created", message_id: "t1", kind: "tool_request", role: "assistant" });
    add(msg("s1", "system_control", { type: "mode_change", from: "plan", to: "act" }, { role: "user" }));
    announce({ type: "parsing_tool_calls" }, { type: "created", message_id: "s1", kind: "system_control", role: "user" });
    announce({ type: "awaiting_llm_first_chunk" }, { type: "created", message_id: "a1", kind: "text", role: "assistant" });
    eventId += 1;
    server.push(eventId, "content_delta", { context_id: "c1", message_id: "a1", sequence: 1, delta: "The file says hi.", is_final: false });
  });
  await screen.findByText("The file says hi.");
  act(() => {
    add(textMsg("a1", "The file says hi."));
    eventId += 1;
    server.push(eventId, "content_final", { context_id: "c1", message_id: "a1", sequence: 1, is_final: true });
    announce({ type: "idle" }, { type: "completed", message_id: "a1", kind: "text" });
  });
}

describe("incremental fetch", () => {
  it("reads only the messages after the last one shown on each change, never the whole history", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Message 39", {}, SLOW);
    // The full history (the default), where the optimized view's once-per-turn reread does not
    // apply.
    expect((screen.getByLabelText("Full history") as HTMLInputElement).checked).toBe(true);
    await waitFor(() => expect(listReads().full.some((r) => r.path.includes("view=full"))).toBe(true), SLOW);
    await screen.findByText("Message 39", {}, SLOW);
    await waitFor(() => expect(server.streamCount).toBeGreaterThan(0), SLOW);
    const fullBefore = listReads().full.length;
    await playTurn();
    await waitFor(() => expect(screen.getByText("read_file")).toBeTruthy(), SLOW);
    await waitFor(() => expect(document.querySelector('[data-id="a1"]')?.textContent).toContain("The file says hi."), SLOW);
    expect(listReads().full.length).toBe(fullBefore);
    const after = listReads().after;
    expect(after.length).toBeGreaterThan(0);
    // Every read starts at a message already shown: the first after the last of the history.
    expect(after[0]!.path).toContain("after=m039");
    expect(after.every((r) => /after=(m039|u1|t1|s1)/.test(r.path))).toBe(true);
  }, 60_000);

  it("leaves no card saying Loading once a turn settles", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Message 39", {}, SLOW);
    await waitFor(() => expect(server.streamCount).toBeGreaterThan(0), SLOW);
    await playTurn();
    await waitFor(() => expect(document.querySelector('[data-id="s1"]')).not.toBeNull(), SLOW);
    await waitFor(() => expect(screen.queryByText(/Loading/)).toBeNull(), SLOW);
    expect(document.querySelector('[data-id="t1"]')?.textContent).toContain("read_file");
  }, 60_000);

  it("drops a message announced on another branch instead of leaving it loading", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Message 39", {}, SLOW);
    await waitFor(() => expect(server.streamCount).toBeGreaterThan(0), SLOW);
    // The stream's opening catch-up read (after the last message) comes first; only the read the
    // announcement causes may count below.
    await waitFor(() => expect(listReads().after.length).toBeGreaterThan(0), SLOW);
    const readsBefore = listReads().after.length;
    act(() => announce({ type: "idle" }, { type: "created", message_id: "other", kind: "system_control", role: "user" }));
    await waitFor(() => expect(listReads().after.length).toBeGreaterThan(readsBefore), SLOW);
    // The announced entry goes once the read that does not hold it has been applied.
    await waitFor(() => {
      expect(document.querySelector('[data-id="other"]')).toBeNull();
      expect(screen.queryByText(/Loading/)).toBeNull();
    }, SLOW);
  });
});
