// Wires one context's conversation to the server: loads its newest messages and its state,
// follows its event stream, fetches the messages the stream announces without their content
// (only those, and what follows them), and reads older pages as the person scrolls up: never
// the whole history again on a change, nor all of it to show the newest.

import { useCallback, useEffect, useReducer, useRef } from "react";
import type { ApiClient, MessageQuery } from "../api/client";
import { EventStream } from "../api/events";
import type { Message, MessageList, MessageView, ViewMarker } from "../generated/protocol";
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
  /** Reads the page of messages before the first one loaded, if there is one (once at a time). */
  loadEarlier: () => void;
  /** Reads the whole history (to reach a message far back, e.g. one found by search). */
  loadAll: () => void;
}

/** Messages asked for per page: the server's largest page, so a long history takes few requests. */
const PAGE_SIZE = 1000;
/**
 * The newest messages read when a conversation opens: more than the window renders at first
 * (MessageWindow's 40), so the first scroll up needs no request, and few enough that the first
 * screen does not wait for the rest of a long history.
 */
export const NEWEST_PAGE = 100;
/** Older messages read per page as the person scrolls up. */
export const OLDER_PAGE = 200;
/** Pages read in one go at most: far more than any branch the server keeps in memory. */
const MAX_PAGES = 100;

/**
 * The query of the page a conversation opens with: its newest messages, at least `count` of
 * them (as many as one page holds), of `branch` (the active one when absent) in `view`.
 */
export function newestQuery(view: MessageView, branch?: string, count = 0): MessageQuery {
  return { ...(branch ? { branch } : {}), view, from: "end", limit: Math.min(PAGE_SIZE, Math.max(NEWEST_PAGE, count)) };
}

/** Follows context `contextId` (none: an empty view), showing branch `branch` in `view`. */
export function useConversation(api: ApiClient, contextId: string | null, branch: string | undefined, view: MessageView): Conversation {
  // The context whose newest page was read ahead and is shown from the first render (the
  // effect below then neither clears nor reads it again).
  const seeded = useRef<string | null>(null);
  const [state, dispatch] = useReducer(conversationReducer, initialConversation, (init) => {
    const page = contextId ? api.takeReadAhead(contextId, newestQuery(view, branch)) : undefined;
    if (!page) return init;
    seeded.current = contextId;
    return conversationReducer(init, loaded(newestRead([page])));
  });
  const generation = useRef(0);
  // The newest state, for fetches that start from what is shown right now.
  const latest = useRef(state);
  latest.current = state;
  const fetching = useRef(false);
  /** How many messages are loaded now: a reload reads as many again, so the view keeps them. */
  const shown = () => latest.current.entries.length;
  const readingEarlier = useRef(false);

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

  /**
   * The newest messages, at least `count` of them when the branch has as many (the page from
   * the end, then pages back), with the id to page back from when older ones remain.
   */
  const readNewest = useCallback(
    async (count: number): Promise<Read & { older: string | undefined }> => {
      if (!contextId) return { messages: [], markers: [], older: undefined };
      const base = { ...(branch ? { branch } : {}), view };
      let list = await api.listMessages(contextId, newestQuery(view, branch, count));
      const pages = [list];
      let read = list.messages.length;
      for (let page = 1; page < MAX_PAGES && read < count && list.next_before; page++) {
        list = await api.listMessages(contextId, { ...base, before: list.next_before, limit: Math.min(PAGE_SIZE, count - read) });
        pages.unshift(list);
        read += list.messages.length;
      }
      return newestRead(pages);
    },
    [api, contextId, branch, view],
  );

  /**
   * Reads the newest messages, at least `count` (0: the newest page), or the whole history
   * (`all`); answers the id of the last one read.
   */
  const load = useCallback(async (count: number | "all"): Promise<string | undefined> => {
    if (!contextId) return undefined;
    const gen = generation.current;
    try {
      const { messages, markers, older } = count === "all"
        ? { ...(await readAfter(undefined)), older: undefined }
        : await readNewest(count);
      if (gen === generation.current) dispatch(loaded({ messages, markers, older }));
      return messages.at(-1)?.id;
    } catch (err) {
      if (gen === generation.current) reportTo(dispatch, err);
      return undefined;
    }
  }, [contextId, readAfter, readNewest]);

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
        await load(shown());
        return;
      }
      try {
        const { messages, markers } = await readAfter(anchor);
        if (gen === generation.current) dispatch({ type: "messages_after_loaded", after: anchor, messages, asked, markers });
      } catch (err) {
        if ((err as { code?: unknown }).code !== "not_found") throw err;
        await load(shown());
      }
    } catch (err) {
      if (gen === generation.current) reportTo(dispatch, err);
    } finally {
      fetching.current = false;
    }
  }, [contextId, readAfter, load]);

  const loadEarlier = useCallback(() => {
    const before = latest.current.older;
    if (!contextId || !before || readingEarlier.current) return;
    const gen = generation.current;
    readingEarlier.current = true;
    api
      .listMessages(contextId, { ...(branch ? { branch } : {}), view, before, limit: OLDER_PAGE })
      .then(
        (list) =>
          gen === generation.current &&
          dispatch({ type: "messages_before_loaded", before, messages: list.messages, markers: list.markers ?? [], ...(list.next_before ? { older: list.next_before } : {}) }),
        // Gone meanwhile (deleted, or the list changed): read the newest again, as many as shown.
        (err: unknown) => gen === generation.current && ((err as { code?: unknown }).code === "not_found" ? void load(shown()) : reportTo(dispatch, err)),
      )
      .finally(() => {
        readingEarlier.current = false;
      });
  }, [api, contextId, branch, view, load]);

  // A new context, branch or view starts from scratch.
  useEffect(() => {
    generation.current += 1;
    fetching.current = false;
    readingEarlier.current = false;
    const shownAlready = contextId !== null && seeded.current === contextId;
    seeded.current = null;
    if (!shownAlready) dispatch({ type: "reset" });
    if (!contextId) return;
    const gen = generation.current;
    // The messages are read at once, beside the stream's connection; when the stream opens,
    // what was created between that read and the stream is read after it (below).
    const initial = shownAlready ? Promise.resolve(undefined) : load(0);
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
            void load(0);
            return;
          }
          readAfter(last).then(
            ({ messages, markers }) => gen === generation.current && dispatch({ type: "messages_after_loaded", after: last, messages, asked: {}, markers }),
            () => gen === generation.current && void load(shown()),
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
    if (state.changes > 0) void load(0);
  }, [state.changes, load]);

  // The optimized view is what the next request would send, which a finished turn may have
  // cut or summarized at the front: read it again once per turn (it is bounded by the model's
  // window), never on each change.
  useEffect(() => {
    if (state.settled > 0 && view === "optimized") void load(shown());
  }, [state.settled, view, load]);

  const reportError = useCallback((err: unknown) => reportTo(dispatch, err), []);
  const reload = useCallback(() => void load(shown()), [load]);
  const loadAll = useCallback(() => void load("all"), [load]);
  const branchSwitched = useCallback(() => {
    // A load started before the switch would bring back the old branch's list.
    generation.current += 1;
    readingEarlier.current = false;
    dispatch({ type: "branch_switched" });
    void load(0);
  }, [load]);
  return { state, dispatch, reload, branchSwitched, reportError, loadEarlier, loadAll };
}

/** What a read of the listing brought. */
interface Read {
  messages: Message[];
  markers: ViewMarker[];
}

/** The newest messages read as `pages` (oldest page first), and the id to page back from. */
function newestRead(pages: MessageList[]): Read & { older: string | undefined } {
  return {
    messages: pages.flatMap((p) => p.messages),
    markers: pages.flatMap((p) => p.markers ?? []),
    older: pages[0]?.next_before ?? undefined,
  };
}

/** The action showing `read` as the newest messages. */
function loaded({ messages, markers, older }: Read & { older: string | undefined }): ConversationAction {
  return { type: "messages_loaded", messages, markers, ...(older ? { older } : {}) };
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
