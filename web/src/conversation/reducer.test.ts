import { describe, expect, it, vi } from "vitest";
import { conversationReducer, initialConversation, isBusy, visibleText, type ConversationAction, type ConversationState } from "./reducer";
import { delta, final, textMsg, update } from "../test/fixtures";

function run(actions: ConversationAction[], from: ConversationState = initialConversation): ConversationState {
  return actions.reduce(conversationReducer, from);
}
const ev = (received: ReturnType<typeof delta>): ConversationAction => ({ type: "event", received });

describe("streaming", () => {
  it("appends deltas chunk by chunk to the message they name", () => {
    const s = run([
      ev(update(1, { type: "awaiting_llm_first_chunk" }, { type: "created", message_id: "m1", kind: "text", role: "assistant" })),
      ev(delta(2, "m1", 1, "Hel")),
      ev(delta(3, "m1", 2, "lo, ")),
      ev(delta(4, "m2", 1, "other")),
      ev(delta(5, "m1", 3, "world")),
    ]);
    expect(s.entries.map((e) => [e.id, e.streamed])).toEqual([
      ["m1", "Hello, world"],
      ["m2", "other"],
    ]);
    expect(s.entries[0]?.status).toBe("streaming");
    expect(visibleText(s.entries[0]!)).toBe("Hello, world");
  });

  it("keeps every other message identical when one streams, so only that one re-renders", () => {
    const before = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("a", "old"), textMsg("b", "older")] });
    const after = run([ev(delta(1, "m1", 1, "x"))], before);
    expect(after.entries[0]).toBe(before.entries[0]);
    expect(after.entries[1]).toBe(before.entries[1]);
  });

  it("shows streamed text until the stored content is loaded, then the stored content", () => {
    let s = run([ev(delta(1, "m1", 1, "partial")), ev(final(2, "m1", 1))]);
    expect(s.entries[0]?.final).toBe(true);
    expect(visibleText(s.entries[0]!)).toBe("partial");
    s = conversationReducer(s, { type: "messages_loaded", messages: [textMsg("m1", "partial and complete")] });
    expect(visibleText(s.entries[0]!)).toBe("partial and complete");
  });

  it("asks for the message when a delta sequence has a gap", () => {
    const s = run([ev(delta(1, "m1", 1, "a")), ev(delta(2, "m1", 3, "c"))]);
    expect(Object.keys(s.wanted)).toEqual(["m1"]);
    expect(s.changes).toBe(0);
    expect(s.entries[0]?.streamed).toBe("ac");
  });
});

describe("reconnect", () => {
  it("ignores replayed events at or below the last event id", () => {
    const first = [ev(delta(7, "m1", 1, "one ")), ev(delta(8, "m1", 2, "two "))];
    // After a reconnect with Last-Event-ID the server may resend 8; 9 is new.
    const s = run([...first, ev(delta(8, "m1", 2, "two ")), ev(delta(9, "m1", 3, "three"))]);
    expect(s.entries[0]?.streamed).toBe("one two three");
    expect(s.lastEventId).toBe(9);
  });

  it("ignores a delta whose sequence was already applied even without event ids", () => {
    const s = run([ev(delta(undefined, "m1", 1, "x")), ev(delta(undefined, "m1", 1, "x")), ev(delta(undefined, "m1", 2, "y"))]);
    expect(s.entries[0]?.streamed).toBe("xy");
  });

  it("does not repeat a replayed error", () => {
    const err = { id: 4, event: { type: "error" as const, context_id: "c1", code: "llm_unavailable" as const, message: "down", recoverable: true } };
    const s = run([ev(err), ev(err)]);
    expect(s.errors).toHaveLength(1);
    expect(s.errors[0]?.hint).toMatch(/could not be reached/);
  });
});

describe("message lifecycle", () => {
  it("adds a created message, changes its status, completes it, and asks for that message each time", () => {
    let s = run([ev(update(1, { type: "parsing_tool_calls" }, { type: "created", message_id: "t1", kind: "tool_request", role: "assistant" }))]);
    expect(s.entries).toMatchObject([{ id: "t1", kind: "tool_request", status: "pending" }]);
    expect(s.wanted).toEqual({ t1: 1 });
    s = run([ev(update(2, { type: "awaiting_tool_approval", pending_requests: ["call_1"], tool_names: ["read_file"] }, { type: "status_changed", message_id: "t1", kind: "tool_request", status: "processing" }))], s);
    expect(s.entries[0]?.status).toBe("processing");
    expect(s.state.type).toBe("awaiting_tool_approval");
    s = run([ev(update(3, { type: "idle" }, { type: "completed", message_id: "t1", kind: "tool_request" }))], s);
    expect(s.entries[0]?.status).toBe("complete");
    expect(s.wanted).toEqual({ t1: 3 });
    expect(s.changes).toBe(0);
    expect(s.state).toEqual({ type: "idle" });
  });

  it("does not add a created message twice", () => {
    const created = { type: "created" as const, message_id: "m1", kind: "text" as const, role: "user" as const };
    const s = run([ev(update(1, { type: "processing_user_message" }, created)), ev(update(2, { type: "processing_user_message" }, created))]);
    expect(s.entries).toHaveLength(1);
  });

  it("keeps a live message the loaded list does not hold yet, after the loaded ones", () => {
    let s = run([ev(delta(1, "live", 1, "streaming"))]);
    s = conversationReducer(s, { type: "messages_loaded", messages: [textMsg("a", "first", { role: "user" })] });
    expect(s.entries.map((e) => e.id)).toEqual(["a", "live"]);
  });

  it("keeps an unknown kind from the server as an entry with that kind", () => {
    const odd = { ...textMsg("u1", "x"), kind: "hologram", data: { beams: 3 } } as unknown as ReturnType<typeof textMsg>;
    const s = conversationReducer(initialConversation, { type: "messages_loaded", messages: [odd] });
    expect(s.entries[0]?.kind).toBe("hologram");
  });

  it("ignores an event type it does not know, with a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const odd = { id: 1, event: { type: "teleport" } } as unknown as ReturnType<typeof delta>;
    const s = run([ev(odd)]);
    expect(s.entries).toEqual([]);
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});

describe("branch switch", () => {
  it("drops the old branch's entries, even those only streamed and never loaded, and keeps following the stream", () => {
    const onSide = run([
      { type: "messages_loaded", messages: [textMsg("a", "shared")] },
      ev(update(1, { type: "processing_user_message" }, { type: "created", message_id: "u2", kind: "text", role: "user" })),
      ev(delta(2, "m2", 1, "Answer on the side")),
      ev(final(3, "m2", 1)),
    ]);
    expect(onSide.entries.map((e) => e.id)).toEqual(["a", "u2", "m2"]);

    const switched = run([{ type: "branch_switched" }, { type: "messages_loaded", messages: [textMsg("a", "shared"), textMsg("b", "main only")] }], onSide);
    expect(switched.entries.map((e) => e.id)).toEqual(["a", "b"]);
    expect(switched.lastEventId).toBe(3);

    // Events already seen stay ignored; new ones still arrive.
    const next = run([ev(delta(3, "m2", 2, "late")), ev(delta(4, "m3", 1, "new"))], switched);
    expect(next.entries.map((e) => e.id)).toEqual(["a", "b", "m3"]);
  });
});

describe("state", () => {
  it("takes a state snapshot only until the stream has said something newer", () => {
    let s = conversationReducer(initialConversation, { type: "state_loaded", state: { type: "processing_user_message" } });
    expect(s.state.type).toBe("processing_user_message");
    s = run([ev(update(1, { type: "streaming_llm_response", chunks: 1, chars: 2 }))], s);
    s = conversationReducer(s, { type: "state_loaded", state: { type: "idle" } });
    expect(s.state.type).toBe("streaming_llm_response");
  });

  it("counts the returns to idle, even when they come in one batch", () => {
    const s = run([
      ev(update(1, { type: "processing_llm_response" })),
      ev(update(2, { type: "idle" })),
      ev(update(3, { type: "idle" })),
      ev(update(4, { type: "failed", error: "x", recoverable: true })),
      ev(update(5, { type: "idle" })),
    ]);
    expect(s.settled).toBe(2);
  });


  it("tracks the current state from each update and reports whether it is busy", () => {
    const s = run([ev(update(1, { type: "executing_tool", tool_name: "read_file", index: 2, total: 5, attempt: 1 }))]);
    expect(s.state.type).toBe("executing_tool");
    expect(isBusy(s.state)).toBe(true);
    expect(isBusy({ type: "awaiting_tool_approval", pending_requests: [], tool_names: [] })).toBe(false);
    expect(isBusy({ type: "idle" })).toBe(false);
  });

  it("starts over when the server cannot place the last event it saw", () => {
    const before = run([
      { type: "messages_loaded", messages: [textMsg("a", "old")] },
      ev(update(40, { type: "streaming_llm_response", chunks: 1, chars: 1 })),
      ev(delta(41, "m1", 1, "partial")),
    ]);
    const after = conversationReducer(before, {
      type: "event",
      received: { id: undefined, event: { type: "error", context_id: "c1", code: "resume_point_unknown", message: "event 41 is not in the log", recoverable: true } },
    });
    expect(after.entries).toEqual([]);
    expect(after.lastEventId).toBeUndefined();
    expect(after.stateIsLive).toBe(false);
    expect(after.changes).toBe(before.changes + 1);
    expect(after.errors.at(-1)?.code).toBe("resume_point_unknown");
    // The server's events continue with lower ids than the view had seen; they apply.
    const next = conversationReducer(after, ev(update(8, { type: "idle" })));
    expect(next.state).toEqual({ type: "idle" });
  });

  it("keeps at most five errors and lets one be dismissed", () => {
    let s = initialConversation;
    for (let i = 1; i <= 7; i++) {
      s = conversationReducer(s, { type: "event", received: { id: i, event: { type: "error", context_id: "c1", code: "timeout", message: `e${i}`, recoverable: true } } });
    }
    expect(s.errors.map((e) => e.message)).toEqual(["e3", "e4", "e5", "e6", "e7"]);
    s = conversationReducer(s, { type: "error_dismissed", index: 0 });
    expect(s.errors[0]?.message).toBe("e4");
  });
});

describe("fetching what the stream announced", () => {
  const created = (id: number, message_id: string, kind: "text" | "system_control" = "text") =>
    ev(update(id, { type: "processing_user_message" }, { type: "created", message_id, kind, role: "user" }));

  it("replaces only what follows the anchor, keeping earlier entries identical", () => {
    const loaded = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("a", "one"), textMsg("b", "two")] });
    const announced = run([created(1, "c")], loaded);
    expect(announced.wanted).toEqual({ c: 1 });
    const after = conversationReducer(announced, { type: "messages_after_loaded", after: "b", messages: [textMsg("c", "three")], asked: announced.wanted });
    expect(after.entries.map((e) => e.id)).toEqual(["a", "b", "c"]);
    expect(after.entries[0]).toBe(loaded.entries[0]);
    expect(after.entries[1]).toBe(loaded.entries[1]);
    expect(after.entries[2]?.message).toBeDefined();
    expect(after.wanted).toEqual({});
  });

  it("drops an announced message the listing does not hold, so no card waits for it", () => {
    const loaded = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("a", "one")] });
    const announced = run([created(1, "elsewhere", "system_control")], loaded);
    const after = conversationReducer(announced, { type: "messages_after_loaded", after: "a", messages: [], asked: announced.wanted });
    expect(after.entries.map((e) => e.id)).toEqual(["a"]);
  });

  it("keeps a message announced again while it was being fetched wanted", () => {
    const loaded = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("a", "one")] });
    const first = run([created(1, "t")], loaded);
    const asked = first.wanted;
    const again = run([ev(update(2, { type: "idle" }, { type: "completed", message_id: "t", kind: "text" }))], first);
    const after = conversationReducer(again, { type: "messages_after_loaded", after: "a", messages: [textMsg("t", "x", { status: "processing" })], asked });
    expect(after.wanted).toEqual({ t: 2 });
  });

  it("forgets what was wanted when the branch changes", () => {
    const s = run([created(1, "x"), { type: "branch_switched" }]);
    expect(s.wanted).toEqual({});
  });
});

describe("paging back", () => {
  it("puts an older page in front of the newest one and notes where the history goes on", () => {
    let s = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("c", "3"), textMsg("d", "4")], older: "c" });
    expect(s.older).toBe("c");
    const kept = s.entries;
    s = conversationReducer(s, { type: "messages_before_loaded", before: "c", messages: [textMsg("a", "1"), textMsg("b", "2")] });
    expect(s.entries.map((e) => e.id)).toEqual(["a", "b", "c", "d"]);
    expect(s.older).toBeUndefined();
    // The newer entries are the same objects: they do not render again.
    expect(s.entries[2]).toBe(kept[0]);
  });

  it("drops an older page read for a view that moved on (a reload or another branch)", () => {
    let s = conversationReducer(initialConversation, { type: "messages_loaded", messages: [textMsg("c", "3")], older: "c" });
    s = conversationReducer(s, { type: "branch_switched" });
    s = conversationReducer(s, { type: "messages_loaded", messages: [textMsg("x", "other")] });
    const after = conversationReducer(s, { type: "messages_before_loaded", before: "c", messages: [textMsg("a", "1")], older: "a" });
    expect(after).toBe(s);
  });
});
