// The optimized view marks where messages were left out ("N earlier messages hidden/summarized
// (T tokens)"), a marker opens the full history where it stood, and the chosen view is
// remembered in this browser.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { App } from "../App";
import { FakeServer, summary } from "../test/server";
import { textMsg } from "../test/fixtures";
import { HISTORY_VIEW_KEY } from "../conversation/historyView";
import { conversationReducer, initialConversation } from "../conversation/reducer";
import type { ViewMarker } from "../generated/protocol";

const T = "2026-11-24T05:00:00Z";
const SLOW = { timeout: 5000 };
let server: FakeServer;

const all = Array.from({ length: 12 }, (_, i) => textMsg(`m${String(i).padStart(2, "0")}`, `Message ${i}`, { role: i % 2 ? "assistant" : "user" }));

beforeEach(() => {
  // The person chose the view the model is sent (the full transcript is the default).
  window.localStorage.setItem(HISTORY_VIEW_KEY, "optimized");
  server = new FakeServer();
  server.contexts = [summary("c1", "Long talk")];
  server.branches.c1 = { active: "main", branches: [{ name: "main", message_count: 12, created_at: T }] };
  server.messages.c1 = all;
  // The request sends a summary of m00-m03, then m06 on: m04 and m05 are dropped.
  const summaryMsg = textMsg("s1", "Summary of the start", { role: "assistant" });
  server.optimized.c1 = {
    messages: [summaryMsg, ...all.slice(6)],
    markers: [
      { kind: "summarized", count: 4, tokens: 1234, first: "m00", last: "m03", before: "s1", summary: "s1" },
      { kind: "dropped", count: 2, tokens: 56, first: "m04", last: "m05", before: "m06" },
    ],
  };
  window.history.replaceState(null, "", "/contexts/c1");
});
afterEach(() => {
  window.history.replaceState(null, "", "/");
  window.localStorage.removeItem(HISTORY_VIEW_KEY);
});

describe("markers of the optimized view", () => {
  it("say how many messages were summarized or hidden, with their tokens, where they were", async () => {
    render(<App api={server.api} />);
    const summarized = await screen.findByText("4 earlier messages summarized (1,234 tokens)", {}, SLOW);
    const dropped = screen.getByText("2 earlier messages hidden (56 tokens)");
    const rows = [...document.querySelectorAll(".messages > li")];
    const at = (el: Element) => rows.indexOf(el.closest("li")!);
    const messageRow = (id: string) => rows.indexOf(document.querySelector(`li[data-id="${id}"]`)!);
    expect(at(summarized)).toBe(messageRow("s1") - 1);
    expect(at(dropped)).toBe(messageRow("m06") - 1);
    expect(screen.queryByText("Message 4")).toBeNull();
  });

  it("open the full history where they stand, and the choice is remembered", async () => {
    const scrolled: string[] = [];
    // jsdom does not lay out, so it has no scrollIntoView: record the calls instead.
    const proto = Element.prototype as { scrollIntoView?: unknown };
    const had = proto.scrollIntoView;
    proto.scrollIntoView = vi.fn(function (this: Element) {
      scrolled.push(this.getAttribute("data-id") ?? "");
    });
    try {
      const { unmount } = render(<App api={server.api} />);
      await screen.findByText("2 earlier messages hidden (56 tokens)", {}, SLOW);
      const buttons = screen.getAllByRole("button", { name: "Open in full history" });
      fireEvent.click(buttons[1]!);
      await screen.findByText("Message 4", {}, SLOW);
      expect((screen.getByLabelText("Full history") as HTMLInputElement).checked).toBe(true);
      // At the last message the marker stood for: what it hid is just above.
      await waitFor(() => expect(scrolled).toContain("m05"), SLOW);
      expect(screen.queryByText(/earlier messages hidden/)).toBeNull();
      expect(window.localStorage.getItem(HISTORY_VIEW_KEY)).toBe("full");
      unmount();

      // Opened again, the conversation shows the full history at once.
      server.requests = [];
      render(<App api={server.api} />);
      await screen.findByText("Message 4", {}, SLOW);
      expect((screen.getByLabelText("Full history") as HTMLInputElement).checked).toBe(true);
      const reads = server.requests.filter((r) => r.method === "GET" && r.path.startsWith("/v1/contexts/c1/messages"));
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.every((r) => r.path.includes("view=full"))).toBe(true);
    } finally {
      proto.scrollIntoView = had;
    }
  });

  it("of the messages read again after one stay; the rest come with the answer", () => {
    const marker = (first: string, before?: string): ViewMarker => ({ kind: "dropped", count: 1, tokens: 5, first, last: first, ...(before ? { before } : {}) });
    const loaded = conversationReducer(initialConversation, {
      type: "messages_loaded",
      messages: [textMsg("a", "A"), textMsg("b", "B"), textMsg("c", "C")],
      markers: [marker("x", "a"), marker("y", "c"), marker("z")],
    });
    expect(loaded.markers.map((m) => m.first)).toEqual(["x", "y", "z"]);
    const after = conversationReducer(loaded, {
      type: "messages_after_loaded",
      after: "b",
      messages: [textMsg("c", "C"), textMsg("d", "D")],
      asked: {},
      markers: [marker("w", "d")],
    });
    expect(after.markers.map((m) => m.first)).toEqual(["x", "w"]);
    expect(conversationReducer(after, { type: "branch_switched" }).markers).toEqual([]);
  });
});
