// Errors on the turn: shown once, short with the detail folded, Retry on a recoverable failure,
// gone once a later turn succeeds.
import { describe, expect, it, vi } from "vitest";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReceivedEvent } from "../../api/events";
import { conversationReducer, initialConversation, type ConversationState } from "../../conversation/reducer";
import { update } from "../../test/fixtures";
import { StatusBar } from "../StatusBar";
import { plainFailure, shortError } from "./TurnErrors";

function errorEvent(id: number, code: string, message: string): ReceivedEvent {
  return { id, event: { type: "error", context_id: "c1", code, message, recoverable: true } } as ReceivedEvent;
}
const run = (events: ReceivedEvent[], start: ConversationState = initialConversation) =>
  events.reduce((s, received) => conversationReducer(s, { type: "event", received }), start);

describe("errors in the conversation state", () => {
  it("lists the same error once however often it comes", () => {
    let s = run([errorEvent(1, "llm_unavailable", "connection refused"), errorEvent(2, "llm_unavailable", "connection refused")]);
    s = conversationReducer(s, { type: "local_error", code: "network_error", message: "Failed to fetch" });
    s = conversationReducer(s, { type: "local_error", code: "network_error", message: "Failed to fetch" });
    expect(s.errors.map((e) => e.message)).toEqual(["connection refused", "Failed to fetch"]);
  });

  it("drops the stream's errors and network failures when a later turn settles, keeps other action errors", () => {
    let s = run([update(1, { type: "connecting_to_llm", attempt: 1 }), errorEvent(2, "llm_unavailable", "connection refused"), update(3, { type: "failed", error: "connection refused", recoverable: true })]);
    s = conversationReducer(s, { type: "local_error", code: "conflict", message: "call_1 is not pending" });
    s = conversationReducer(s, { type: "local_error", code: "network_error", message: "Failed to fetch" });
    expect(s.errors).toHaveLength(3);
    s = run([update(4, { type: "connecting_to_llm", attempt: 1 })], s);
    expect(s.errors).toHaveLength(3);
    s = run([update(5, { type: "idle" })], s);
    expect(s.errors.map((e) => e.code)).toEqual(["conflict"]);
  });
});

describe("the failed turn in the status bar", () => {
  const failed = (error: string, recoverable = true): ConversationState =>
    run([update(1, { type: "connecting_to_llm", attempt: 1 }), errorEvent(2, "llm_unavailable", error), update(3, { type: "failed", error, recoverable })]);

  it("shows one short message with Retry, the event's duplicate folded into it", async () => {
    const onResume = vi.fn();
    render(<StatusBar conversation={failed("connection refused")} onResume={onResume} onDismiss={() => {}} />);
    expect(screen.getAllByText("connection refused")).toHaveLength(1);
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    const turn = screen.getByRole("alert", { name: "The turn failed" });
    const details = turn.querySelector("details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(within(details).getByText("llm_unavailable")).toBeTruthy();
    expect(details.textContent).toContain("model server could not be reached");
    await userEvent.click(within(turn).getByRole("button", { name: "Retry" }));
    expect(onResume).toHaveBeenCalledOnce();
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
  });

  it("offers no Retry for a failure that cannot be retried", () => {
    render(<StatusBar conversation={failed("the store is corrupt", false)} onResume={() => {}} onDismiss={() => {}} />);
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("says a refused key in plain words, names the setting to fix and offers no Retry", () => {
    render(<StatusBar conversation={failed("the model provider answered HTTP 401: Incorrect API key provided", true)} onResume={() => {}} onDismiss={() => {}} />);
    const turn = screen.getByRole("alert", { name: "The turn failed" });
    expect(turn.querySelector("strong")?.textContent).toBe("The model server did not accept Braid's API key (HTTP 401).");
    expect(turn.querySelector(".turn-error-fix")?.textContent).toContain("BRAID_LLM_API_KEY");
    expect(turn.querySelector("details pre")?.textContent).toContain("Incorrect API key provided");
    expect(screen.queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("puts transport failures in plain words with the server's own words behind Details", () => {
    expect(plainFailure("the model provider answered HTTP 503: overloaded")).toEqual(expect.objectContaining({ headline: "The model server had a problem answering (HTTP 503).", retryable: true }));
    expect(plainFailure("could not reach the model at http://x: connection refused").headline).toBe("Braid could not reach the model server.");
    expect(plainFailure("the model's stream ended before the answer was finished: eof").headline).toBe("The answer was cut off before it finished.");
    expect(plainFailure("HTTP 403 from the gateway").retryable).toBe(false);
    expect(plainFailure("something else\nwith a trace")).toEqual({ headline: "something else", hint: undefined, retryable: true });
  });

  it("cuts a long error to one line and folds the rest", () => {
    const long = `${"x".repeat(300)}\nstack line`;
    render(<StatusBar conversation={failed(long)} onResume={() => {}} onDismiss={() => {}} />);
    const turn = screen.getByRole("alert", { name: "The turn failed" });
    expect(turn.querySelector("strong")?.textContent).toBe(shortError(long));
    expect(shortError(long)).toHaveLength(140);
    expect(turn.querySelector("details pre")?.textContent).toBe(long);
  });

  it("keeps other errors as their own short lines with a dismiss button", async () => {
    const onDismiss = vi.fn();
    const s = conversationReducer(failed("connection refused"), { type: "local_error", code: "conflict", message: "call_1 is not pending" });
    render(<StatusBar conversation={s} onResume={() => {}} onDismiss={onDismiss} />);
    const list = screen.getByRole("list", { name: "Errors" });
    expect(within(list).getAllByRole("alert")).toHaveLength(1);
    await userEvent.click(within(list).getByRole("button", { name: "Dismiss error" }));
    expect(onDismiss).toHaveBeenCalledWith(1);
  });
});
