// Wires one context's conversation to the server: loads its messages and state, follows its
// event stream, and reloads the messages when the stream announces changes it does not carry.

import { useCallback, useEffect, useReducer, useRef } from "react";
import type { ApiClient } from "../api/client";
import { EventStream } from "../api/events";
import type { MessageView } from "../generated/protocol";
import { conversationReducer, initialConversation, type ConversationAction, type ConversationState } from "./reducer";

/** What a conversation view needs: the state and a way to act on it. */
export interface Conversation {
  /** The view state. */
  state: ConversationState;
  /** Dispatches an action (e.g. dismissing an error). */
  dispatch: (a: ConversationAction) => void;
  /** Reloads the messages now. */
  reload: () => void;
  /** Another branch became active: shows only its messages, ignoring loads still under way. */
  branchSwitched: () => void;
  /** Shows an error from a failed action. */
  reportError: (err: unknown) => void;
}

const RELOAD_DELAY_MS = 150;

/** Follows context `contextId` (none: an empty view), showing branch `branch` in `view`. */
export function useConversation(api: ApiClient, contextId: string | null, branch: string | undefined, view: MessageView): Conversation {
  const [state, dispatch] = useReducer(conversationReducer, initialConversation);
  const generation = useRef(0);

  const load = useCallback(async () => {
    if (!contextId) return;
    const gen = generation.current;
    try {
      const messages = [];
      let after: string | undefined;
      // Page through the branch; the server caps each page.
      for (let page = 0; page < 100; page++) {
        const list = await api.listMessages(contextId, { ...(branch ? { branch } : {}), view, ...(after ? { after } : {}) });
        messages.push(...list.messages);
        if (!list.next_after) break;
        after = list.next_after;
      }
      if (gen === generation.current) dispatch({ type: "messages_loaded", messages });
    } catch (err) {
      if (gen === generation.current) reportTo(dispatch, err);
    }
  }, [api, contextId, branch, view]);

  // A new context, branch or view starts from scratch.
  useEffect(() => {
    generation.current += 1;
    dispatch({ type: "reset" });
    if (!contextId) return;
    void load();
    const gen = generation.current;
    api.getState(contextId).then(
      (s) => gen === generation.current && dispatch({ type: "state_loaded", state: s.state }),
      (err: unknown) => gen === generation.current && reportTo(dispatch, err),
    );
    const stream = new EventStream({
      url: api.eventsUrl(contextId),
      headers: api.authHeaders(),
      fetch: api.fetcher,
      onEvent: (received) => {
        dispatch({ type: "event", received });
        // The server could not place this view's last event: read its state afresh too (the
        // reducer has dropped the old view and asks for the messages again).
        if (received.event.type === "error" && received.event.code === "resume_point_unknown") {
          api.getState(contextId).then(
            (s) => gen === generation.current && dispatch({ type: "state_loaded", state: s.state }),
            (err: unknown) => gen === generation.current && reportTo(dispatch, err),
          );
        }
      },
      onStatus: (status) => {
        dispatch({ type: "connection", status });
        // After a reconnect the replay covers events, but a reload also covers a stale list.
        if (status.type === "open") void load();
      },
      onProtocolWarning: (problem) => console.warn("braid: bad event from the server:", problem),
    });
    return () => stream.close();
  }, [api, contextId, load]);

  // The stream announced changes it does not carry: fetch the messages again, coalesced.
  useEffect(() => {
    if (state.changes === 0) return;
    const t = setTimeout(() => void load(), RELOAD_DELAY_MS);
    return () => clearTimeout(t);
  }, [state.changes, load]);

  const reportError = useCallback((err: unknown) => reportTo(dispatch, err), []);
  const reload = useCallback(() => void load(), [load]);
  const branchSwitched = useCallback(() => {
    // A load started before the switch would bring back the old branch's list.
    generation.current += 1;
    dispatch({ type: "branch_switched" });
    void load();
  }, [load]);
  return { state, dispatch, reload, branchSwitched, reportError };
}

function reportTo(dispatch: (a: ConversationAction) => void, err: unknown): void {
  const e = err as { code?: unknown; message?: unknown };
  dispatch({
    type: "local_error",
    code: typeof e?.code === "string" ? e.code : "internal",
    message: typeof e?.message === "string" ? e.message : String(err),
  });
}
