// Wires one context's conversation to the server: loads its messages and state, follows its
// event stream, and fetches the messages the stream announces without their content (only
// those, and what follows them), never the whole history again on a change.

import { useCallback, useEffect, useReducer, useRef } from "react";
import type { ApiClient } from "../api/client";
import { EventStream } from "../api/events";
import type { Message, MessageView, ViewMarker } from "../generated/protocol";
import { conversationReducer, initialConversation, type ConversationAction, type ConversationState, type Entry } from "./reducer";

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

/** Messages asked for per page: the server's largest page, so a long history takes few requests. */
const PAGE_SIZE = 1000;
/** Pages read in one go at most: far more than any branch the server keeps in memory. */
const MAX_PAGES = 100;

/** Follows context `contextId` (none: an empty view), showing branch `branch` in `view`. */
export function useConversation(api: ApiClient, contextId: string | null, branch: string | undefined, view: MessageView): Conversation {
  const [state, dispatch] = useReducer(conversationReducer, initialConversation);
  const generation = useRef(0);
  // The newest state, for fetches that start from what is shown right now.
  const latest = useRef(state);
  latest.current = state;
  const fetching = useRef(false);

  /** Every message of the branch after `after` (all of them without it), page by page, with the optimized view's markers. */
  const readAfter = useCallback(
    async (after: string | undefined): Promise<Read> => {
      if (!contextId) return { messages: [], markers: [] };
      const messages: Message[] = [];
      const markers: ViewMarker[] = [];
      let from = after;
      for (let page = 0; page < MAX_PAGES; page++) {
        const list = await api.listMessages(contextId, { ...(branch ? { branch } : {}), view, ...(from ? { after: from } : {}), limit: PAGE_SIZE });
        messages.push(...list.messages);
        markers.push(...(list.markers ?? []));
        if (!list.next_after) break;
        from = list.next_after;
      }
      return { messages, markers };
    },
    [api, contextId, branch, view],
  );

  /** Reads every message again; answers the id of the last one read. */
  const load = useCallback(async (): Promise<string | undefined> => {
    if (!contextId) return undefined;
    const gen = generation.current;
    try {
      const { messages, markers } = await readAfter(undefined);
      if (gen === generation.current) dispatch({ type: "messages_loaded", messages, markers });
      return messages.at(-1)?.id;
    } catch (err) {
      if (gen === generation.current) reportTo(dispatch, err);
      return undefined;
    }
  }, [contextId, readAfter]);

  /**
   * Fetches what the stream announced: the messages after the last loaded one before the first
   * wanted message. A new message at the end is fetched by itself; an earlier change brings
   * what follows it. When that anchor is gone from the listing, everything is read again.
   */
  const fetchWanted = useCallback(async () => {
    if (!contextId || fetching.current) return;
    const s = latest.current;
    const asked = s.wanted;
    const first = s.entries.findIndex((e) => e.id in asked);
    if (first === -1) return;
    let anchor: string | undefined;
    for (let i = first - 1; i >= 0; i--) {
      if (s.entries[i]!.message) {
        anchor = s.entries[i]!.id;
        break;
      }
    }
    const gen = generation.current;
    fetching.current = true;
    try {
      if (anchor === undefined) {
        const { messages, markers } = await readAfter(undefined);
        if (gen === generation.current) dispatch({ type: "messages_loaded", messages, markers });
        return;
      }
      try {
        const { messages, markers } = await readAfter(anchor);
        if (gen === generation.current) dispatch({ type: "messages_after_loaded", after: anchor, messages, asked, markers });
      } catch (err) {
        if ((err as { code?: unknown }).code !== "not_found") throw err;
        const { messages, markers } = await readAfter(undefined);
        if (gen === generation.current) dispatch({ type: "messages_loaded", messages, markers });
      }
    } catch (err) {
      if (gen === generation.current) reportTo(dispatch, err);
    } finally {
      fetching.current = false;
    }
  }, [contextId, readAfter]);

  // A new context, branch or view starts from scratch.
  useEffect(() => {
    generation.current += 1;
    fetching.current = false;
    dispatch({ type: "reset" });
    if (!contextId) return;
    const gen = generation.current;
    // The messages are read at once, beside the stream's connection; when the stream opens,
    // what was created between that read and the stream is read after it (below).
    const initial = load();
    let opened = false;
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
        // After the first read, and after a reconnect (the replay covers events), what changed
        // while no stream was open is read after the last message shown, not from the start.
        if (status.type !== "open") return;
        // The view may not have rendered the first read yet: its last id comes along.
        const catchUp = (read?: string) => {
          if (gen !== generation.current) return;
          const last = lastLoaded(latest.current.entries)?.id ?? read;
          if (!last) {
            void load();
            return;
          }
          readAfter(last).then(
            ({ messages, markers }) => gen === generation.current && dispatch({ type: "messages_after_loaded", after: last, messages, asked: {}, markers }),
            () => gen === generation.current && void load(),
          );
        };
        if (opened) catchUp();
        else void initial.then(catchUp);
        opened = true;
      },
      onProtocolWarning: (problem) => console.warn("braid: bad event from the server:", problem),
    });
    return () => stream.close();
  }, [api, contextId, load, readAfter]);

  // The stream announced messages it does not carry: fetch those at once.
  useEffect(() => {
    if (Object.keys(state.wanted).length > 0) void fetchWanted();
  }, [state.wanted, state.entries, fetchWanted]);

  // The view lost its place: read everything again.
  useEffect(() => {
    if (state.changes > 0) void load();
  }, [state.changes, load]);

  // The optimized view is what the next request would send, which a finished turn may have
  // cut or summarized at the front: read it again once per turn (it is bounded by the model's
  // window), never on each change.
  useEffect(() => {
    if (state.settled > 0 && view === "optimized") void load();
  }, [state.settled, view, load]);

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

/** What a read of the listing brought. */
interface Read {
  messages: Message[];
  markers: ViewMarker[];
}

/** The last entry the server's listing gave, if any. */
function lastLoaded(entries: Entry[]): Entry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.message !== undefined) return entries[i];
  }
  return undefined;
}

function reportTo(dispatch: (a: ConversationAction) => void, err: unknown): void {
  const e = err as { code?: unknown; message?: unknown };
  dispatch({
    type: "local_error",
    code: typeof e?.code === "string" ? e.code : "internal",
    message: typeof e?.message === "string" ? e.message : String(err),
  });
}
