// A long conversation opens with its newest page only (one request from the end of the
// history), and older pages are read back as the person scrolls up, never the whole history.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../App";
import { FakeServer, summary } from "../test/server";
import { textMsg } from "../test/fixtures";
import { NEWEST_PAGE, OLDER_PAGE, newestQuery } from "./useConversation";
import { HISTORY_VIEW_KEY } from "./historyView";

const T = "2026-11-22T05:00:00Z";
/** Generous: the 2-core machine runs builds beside the tests. */
const SLOW = { timeout: 5000 };
const TOTAL = 2002;
let server: FakeServer;

beforeEach(() => {
  server = new FakeServer();
  server.contexts = [summary("c1", "Long talk")];
  server.branches.c1 = { active: "main", branches: [{ name: "main", message_count: TOTAL, created_at: T }] };
  server.messages.c1 = Array.from({ length: TOTAL }, (_, i) => textMsg(`m${String(i).padStart(4, "0")}`, `Message ${i}`, { role: i % 2 ? "assistant" : "user" }));
  window.history.replaceState(null, "", "/contexts/c1");
});
afterEach(() => {
  window.history.replaceState(null, "", "/");
});

/** The message listings the UI asked for. */
function listReads(): string[] {
  return server.requests.filter((r) => r.method === "GET" && /^\/v1\/contexts\/c1\/messages(\?|$)/.test(r.path)).map((r) => r.path);
}

describe("a long conversation", () => {
  it("opens with the newest page and reads older pages back as the person scrolls up", async () => {
    render(<App api={server.api} />);
    await screen.findByText(`Message ${TOTAL - 1}`, {}, SLOW);
    // The newest page first; besides it only the catch-up after its last message, when the
    // event stream opens.
    expect(listReads()[0]).toBe(`/v1/contexts/c1/messages?view=full&from=end&limit=${NEWEST_PAGE}`);
    expect(listReads().slice(1).every((p) => p.includes(`after=m${TOTAL - 1}`))).toBe(true);
    expect(screen.queryByText(`Message ${TOTAL - NEWEST_PAGE - 1}`)).toBeNull();
    const list = screen.getByRole("list", { name: "Messages" });
    // Scrolling to the top renders the loaded messages a window at a time, and reads the page
    // before them once they run low.
    const firstLoaded = `m${String(TOTAL - NEWEST_PAGE).padStart(4, "0")}`;
    await waitFor(() => {
      fireEvent.scroll(list);
      expect(listReads()).toContain(`/v1/contexts/c1/messages?view=full&before=${firstLoaded}&limit=${OLDER_PAGE}`);
    }, SLOW);
    await waitFor(() => {
      fireEvent.scroll(list);
      expect(screen.getByText(`Message ${TOTAL - NEWEST_PAGE - 1}`)).toBeTruthy();
    }, SLOW);
    // Never a read of the whole history from its start.
    expect(listReads().filter((p) => !p.includes("from=end") && !p.includes("before=") && !p.includes("after="))).toEqual([]);
    // The messages stay in order, each once.
    const ids = [...list.querySelectorAll<HTMLElement>("li[data-id]")].map((li) => li.dataset.id!);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe(`m${TOTAL - 1}`);
  });

  it("shows a newest page read ahead from the first render, without reading it again", async () => {
    await server.api.readAhead("c1", newestQuery("full"));
    render(<App api={server.api} />);
    // In the first render, before any effect has run.
    expect(screen.getByText(`Message ${TOTAL - 1}`)).toBeTruthy();
    await waitFor(() => expect(listReads().some((p) => p.includes("after="))).toBe(true), SLOW);
    // One read of the newest page (the read ahead), then only the catch-up after its last message.
    expect(listReads()[0]).toBe(`/v1/contexts/c1/messages?view=full&from=end&limit=${NEWEST_PAGE}`);
    expect(listReads().slice(1)).toEqual(listReads().slice(1).filter((p) => p.includes(`after=m${TOTAL - 1}`)));
    expect(listReads().slice(1).length).toBeGreaterThan(0);
  });

  it("reads the whole history once to reach a message further back than the pages read", async () => {
    // The optimized view leaves out all but the newest 50: its marker opens the full history
    // at the last message it hides, 1,952 messages back.
    window.localStorage.setItem(HISTORY_VIEW_KEY, "optimized");
    const all = server.messages.c1!;
    const hiddenLast = all[TOTAL - 51]!.id;
    server.optimized.c1 = {
      messages: all.slice(TOTAL - 50),
      markers: [{ kind: "dropped", count: TOTAL - 50, tokens: 99000, first: all[0]!.id, last: hiddenLast, before: all[TOTAL - 50]!.id }],
    };
    try {
      render(<App api={server.api} />);
      await screen.findByText(`Message ${TOTAL - 1}`, {}, SLOW);
      const list = screen.getByRole("list", { name: "Messages" });
      await waitFor(() => {
        fireEvent.scroll(list);
        expect(screen.getByRole("button", { name: "Open in full history" })).toBeTruthy();
      }, SLOW);
      await userEvent.click(screen.getByRole("button", { name: "Open in full history" }));
      await waitFor(() => expect(list.querySelector(`li[data-id="${hiddenLast}"]`)).not.toBeNull(), SLOW);
      // The newest page of the full history first, then the whole of it once.
      const full = listReads().filter((p) => p.includes("view=full"));
      expect(full[0]).toBe(`/v1/contexts/c1/messages?view=full&from=end&limit=${NEWEST_PAGE}`);
      expect(full.filter((p) => !p.includes("from=end") && !p.includes("before=")).length).toBeGreaterThan(0);
    } finally {
      window.localStorage.removeItem(HISTORY_VIEW_KEY);
    }
  });
});
