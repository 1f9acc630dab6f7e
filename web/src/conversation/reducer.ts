// The conversation view state, and the pure reducer that builds it from loaded messages and the
// event stream. The stream may replay events after a reconnect, so everything here is idempotent
// per event id and per delta sequence.

import type {
  ContextEvent,
  ContextState,
  ErrorCode,
  Message,
  MessageId,
  MessageStatus,
  MessageUpdate,
  ViewMarker,
} from "../generated/protocol";
import type { ReceivedEvent, StreamStatus } from "../api/events";
import { hintFor } from "./indicator";

/** One message in the view: what is known of it so far. */
export interface Entry {
  /** Its id. */
  id: MessageId;
  /** Its kind as sent; may be a kind this build does not know. */
  kind: string;
  /** Its role as sent. */
  role: string;
  /** Its lifecycle status. */
  status: MessageStatus;
  /** The full message, once loaded from the server. */
  message: Message | undefined;
  /** Text that arrived by `content_delta`, in order. */
  streamed: string;
  /** The last delta sequence applied (0 before any). */
  lastDelta: number;
  /** Whether `content_final` arrived. */
  final: boolean;
}

/** An error shown to the person, with what they can do. */
export interface ShownError {
  /** The server's code. */
  code: ErrorCode | string;
  /** What happened. */
  message: string;
  /** Whether retrying or continuing can succeed. */
  recoverable: boolean;
  /** What the person can do. */
  hint: string;
  /** The event id it came with, so replays do not repeat it. */
  eventId: number | undefined;
  /**
   * Where it came from: the event stream (a turn's failure, resolved by a later successful
   * turn) or an action of this page (stays until dismissed). Absent means an action.
   */
  source?: "stream" | "action";
}

/** The conversation as the UI shows it. */
export interface ConversationState {
  /** The messages, oldest first. */
  entries: Entry[];
  /** The context's current state. */
  state: ContextState;
  /** The last event id applied; events at or below it are replays and are ignored. */
  lastEventId: number | undefined;
  /** Errors not yet dismissed, oldest first. */
  errors: ShownError[];
  /** The event stream's connection. */
  connection: StreamStatus | undefined;
  /**
   * Counts the times the view lost its place (a resume point the server does not know): the
   * view reloads all its messages whenever it changes.
   */
  changes: number;
  /**
   * Messages the event stream announced or changed without their content (a new tool request,
   * a completed answer, a delta gap), each with the number of the announcement: the view fetches
   * these (and what follows them), not the whole history.
   */
  wanted: Readonly<Record<MessageId, number>>;
  /** Numbers the announcements in `wanted`, so a fetch clears only what it was asked for. */
  wantCount: number;
  /** Counts the returns to `idle` (ends of turns): the context's title and budget may have changed. */
  settled: number;
  /** Whether `state` came from the event stream, which is newer than any snapshot read before. */
  stateIsLive: boolean;
  /** The last optimization report a turn's `context_update` carried, when one did. */
  optimization: OptimizationReport | undefined;
  /**
   * Where the optimized view leaves messages out (dropped or summarized), each before the
   * listed message it names (at the end without one); none in the full view.
   */
  markers: ViewMarker[];
  /**
   * Where the server's history goes on before the first loaded message (the listing's
   * `next_before`: page back from it); none once the list reaches the start. A long
   * conversation opens with its newest page, and the older ones come as the person scrolls up.
   */
  older: MessageId | undefined;
}

/** What the history optimizer did to the last request (the `optimization` metadata of a
 * `context_update`): tokens before and after, what was dropped or summarized, and tool
 * definitions withheld from a window too small for them. */
export interface OptimizationReport {
  strategy: string | undefined;
  tokensBefore: number | undefined;
  tokensAfter: number | undefined;
  limit: number | undefined;
  dropped: number;
  summarized: number;
  /** Tool definitions left out of the request, with what they needed and what the window left. */
  toolsWithheld: { tools: number; needed: number; limit: number } | undefined;
}

/** Reads the optimization report out of a `context_update`'s metadata; anything malformed is left out. */
export function optimizationFrom(metadata: unknown): OptimizationReport | undefined {
  const o = isObject(metadata) ? metadata.optimization : undefined;
  if (!isObject(o)) return undefined;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  const w = o.tools_withheld;
  const withheld =
    isObject(w) && typeof w.tools === "number" && typeof w.needed === "number" && typeof w.limit === "number"
      ? { tools: w.tools, needed: w.needed, limit: w.limit }
      : undefined;
  return {
    strategy: typeof o.strategy === "string" ? o.strategy : undefined,
    tokensBefore: num(o.tokens_before),
    tokensAfter: num(o.tokens_after),
    limit: num(o.limit),
    // A count since the request record lists them; events stored before then name each one.
    dropped: num(o.dropped_count) ?? (Array.isArray(o.dropped) ? o.dropped.length : 0),
    summarized: Array.isArray(o.summarized) ? o.summarized.length : 0,
    toolsWithheld: withheld,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What can happen to the conversation view. */
export type ConversationAction =
  | { type: "reset" }
  | { type: "branch_switched" }
  | { type: "messages_loaded"; messages: Message[]; markers?: ViewMarker[]; older?: MessageId }
  | { type: "messages_before_loaded"; before: MessageId; messages: Message[]; markers?: ViewMarker[]; older?: MessageId }
  | { type: "messages_after_loaded"; after: MessageId; messages: Message[]; asked: Readonly<Record<MessageId, number>>; markers?: ViewMarker[] }
  | { type: "state_loaded"; state: ContextState }
  | { type: "event"; received: ReceivedEvent }
  | { type: "connection"; status: StreamStatus }
  | { type: "error_dismissed"; index: number }
  | { type: "local_error"; code: string; message: string };

/** The view before anything is loaded. */
export const initialConversation: ConversationState = {
  entries: [],
  state: { type: "idle" },
  lastEventId: undefined,
  errors: [],
  connection: undefined,
  changes: 0,
  wanted: {},
  wantCount: 0,
  settled: 0,
  stateIsLive: false,
  optimization: undefined,
  markers: [],
  older: undefined,
};

const MAX_ERRORS = 5;

/** Applies one action; never mutates its input. */
export function conversationReducer(
  s: ConversationState,
  action: ConversationAction,
): ConversationState {
  switch (action.type) {
    case "reset":
      return initialConversation;
    case "branch_switched":
      // The old branch's entries, including those only announced by the stream and never
      // loaded, must not linger in the new branch's list; the stream itself continues.
      return { ...s, entries: [], wanted: {}, markers: [], older: undefined };
    case "messages_loaded":
      // What was announced stays wanted: the list may have been read before the announcement.
      return { ...s, entries: mergeLoaded(s.entries, action.messages), markers: action.markers ?? [], older: action.older };
    case "messages_before_loaded":
      return mergeBefore(s, action.before, action.messages, action.markers ?? [], action.older);
    case "messages_after_loaded":
      return mergeAfter(s, action.after, action.messages, action.asked, action.markers ?? []);
    case "state_loaded":
      // A snapshot may have been read before the stream's latest update: the stream wins.
      return s.stateIsLive ? s : { ...s, state: action.state };
    case "connection":
      return { ...s, connection: action.status };
    case "error_dismissed":
      return { ...s, errors: s.errors.filter((_, i) => i !== action.index) };
    case "local_error":
      return pushError(s, {
        code: action.code,
        message: action.message,
        recoverable: true,
        hint: hintFor(action.code),
        eventId: undefined,
      });
    case "event":
      return applyEvent(s, action.received);
  }
}

function applyEvent(s: ConversationState, received: ReceivedEvent): ConversationState {
  const { id, event } = received;
  if (id !== undefined && s.lastEventId !== undefined && id <= s.lastEventId) {
    return s;
  }
  const next = id === undefined ? s : { ...s, lastEventId: id };
  return applyContextEvent(next, event);
}

function applyContextEvent(s: ConversationState, event: ContextEvent): ConversationState {
  switch (event.type) {
    case "heartbeat":
    // Turns are for API clients; the conversation follows the state and the messages.
    case "turn_completed":
      return s;
    case "context_update": {
      const settledNow = event.current_state.type === "idle" && s.state.type !== "idle";
      const withState = {
        ...s,
        state: event.current_state,
        stateIsLive: true,
        settled: settledNow ? s.settled + 1 : s.settled,
        // A turn that ended well resolves the failures before it, and shows the server reachable.
        errors: settledNow ? s.errors.filter((e) => e.source !== "stream" && e.code !== "network_error") : s.errors,
        optimization: optimizationFrom(event.metadata) ?? s.optimization,
      };
      return event.message_update ? applyMessageUpdate(withState, event.message_update) : withState;
    }
    case "content_delta": {
      const existing = s.entries.find((e) => e.id === event.message_id);
      const entry = existing ?? newEntry(event.message_id, "text", "assistant", "streaming");
      if (event.sequence <= entry.lastDelta) {
        return s;
      }
      // A gap means pieces were lost: the final content will be reloaded from the server.
      const gap = event.sequence !== entry.lastDelta + 1;
      const updated: Entry = {
        ...entry,
        streamed: entry.streamed + event.delta,
        lastDelta: event.sequence,
        status: entry.status === "pending" || entry.status === "processing" ? "streaming" : entry.status,
      };
      return gap ? want(upsert(s, updated), event.message_id) : upsert(s, updated);
    }
    case "content_final": {
      const existing = s.entries.find((e) => e.id === event.message_id);
      const entry = existing ?? newEntry(event.message_id, "text", "assistant", "streaming");
      return want(upsert(s, { ...entry, final: true }), event.message_id);
    }
    case "error":
      if (event.code === "resume_point_unknown") {
        // The server cannot continue from what this view has seen: start over from its
        // messages and state (the view reloads both), and follow the stream from here.
        return pushError(
          { ...s, entries: [], wanted: {}, lastEventId: undefined, stateIsLive: false, changes: s.changes + 1, older: undefined },
          { code: event.code, message: event.message, recoverable: true, hint: hintFor(event.code), eventId: undefined, source: "stream" },
        );
      }
      return pushError(s, {
        code: event.code,
        message: event.message,
        recoverable: event.recoverable,
        hint: hintFor(event.code),
        eventId: s.lastEventId,
        source: "stream",
      });
    default:
      return unknownEvent(s, event);
  }
}

function unknownEvent(s: ConversationState, event: never): ConversationState {
  console.warn("braid: ignoring an event this version does not know", event);
  return s;
}

function applyMessageUpdate(s: ConversationState, u: MessageUpdate): ConversationState {
  const existing = s.entries.find((e) => e.id === u.message_id);
  switch (u.type) {
    case "created": {
      if (existing) {
        return s;
      }
      return want(upsert(s, newEntry(u.message_id, u.kind, u.role, "pending")), u.message_id);
    }
    case "status_changed": {
      const entry = existing ?? newEntry(u.message_id, u.kind, "assistant", u.status);
      return want(upsert(s, { ...entry, status: u.status }), u.message_id);
    }
    case "completed": {
      const entry = existing ?? newEntry(u.message_id, u.kind, "assistant", "complete");
      return want(upsert(s, { ...entry, status: "complete" }), u.message_id);
    }
    case "changed": {
      // Pinned, unpinned or corrected outside a turn: read again what is shown.
      return existing ? want(s, u.message_id) : s;
    }
    case "deleted": {
      const { [u.message_id]: _gone, ...wanted } = s.wanted;
      return { ...s, entries: s.entries.filter((e) => e.id !== u.message_id), wanted };
    }
  }
}

/** Marks message `id` as one to fetch. */
function want(s: ConversationState, id: MessageId): ConversationState {
  const wantCount = s.wantCount + 1;
  return { ...s, wanted: { ...s.wanted, [id]: wantCount }, wantCount };
}

/**
 * The messages after `after`, fetched because the stream announced some of them: the entries up
 * to `after` stay as they are (identical, so they do not re-render), the rest is the answer's.
 * An announced message the answer does not hold (on another branch, or left out of this view)
 * goes, unless text is streaming into it; one announced again since it was asked for stays
 * wanted.
 */
function mergeAfter(
  s: ConversationState,
  after: MessageId,
  messages: Message[],
  asked: Readonly<Record<MessageId, number>>,
  markers: ViewMarker[],
): ConversationState {
  const at = s.entries.findIndex((e) => e.id === after);
  if (at === -1) return s;
  const head = s.entries.slice(0, at + 1);
  // Markers before the kept head stay; the answer brings those of what follows.
  const kept = new Set(head.map((e) => e.id));
  const keptMarkers = s.markers.filter((m) => m.before !== undefined && kept.has(m.before));
  const returned = new Set(messages.map((m) => m.id));
  const tail = mergeLoaded(s.entries.slice(at + 1), messages).filter(
    (e) => returned.has(e.id) || !(e.id in asked) || e.streamed !== "" || s.wanted[e.id] !== asked[e.id],
  );
  const wanted: Record<MessageId, number> = {};
  for (const [id, n] of Object.entries(s.wanted)) {
    if (asked[id] !== n) wanted[id] = n;
  }
  return { ...s, entries: [...head, ...tail], wanted, markers: [...keptMarkers, ...markers] };
}

/**
 * An older page, read back from `before` (the `older` the view had): it goes in front of the
 * entries, unless the view moved on meanwhile (reloaded, another branch), when it is dropped.
 * A message already listed (it moved since) keeps its place.
 */
function mergeBefore(s: ConversationState, before: MessageId, messages: Message[], markers: ViewMarker[], older: MessageId | undefined): ConversationState {
  if (s.older !== before) return s;
  const listed = new Set(s.entries.map((e) => e.id));
  const front = mergeLoaded([], messages.filter((m) => !listed.has(m.id)));
  return { ...s, entries: [...front, ...s.entries], markers: [...markers, ...s.markers], older };
}

function newEntry(id: MessageId, kind: string, role: string, status: MessageStatus): Entry {
  return { id, kind, role, status, message: undefined, streamed: "", lastDelta: 0, final: false };
}

function upsert(s: ConversationState, entry: Entry): ConversationState {
  const i = s.entries.findIndex((e) => e.id === entry.id);
  if (i === -1) {
    return { ...s, entries: [...s.entries, entry] };
  }
  const entries = s.entries.slice();
  entries[i] = entry;
  return { ...s, entries };
}

/** Adds an error; the same error again replaces the one shown, so it is never listed twice. */
function pushError(s: ConversationState, e: ShownError): ConversationState {
  const others = s.errors.filter((o) => o.code !== e.code || o.message !== e.message);
  return { ...s, errors: [...others, e].slice(-MAX_ERRORS) };
}

/**
 * The loaded list is the server's truth for order and content. What streamed in is kept for
 * messages still streaming, and messages the stream announced but the answer does not hold yet
 * (created after the list was read) stay at the end.
 */
function mergeLoaded(current: Entry[], messages: Message[]): Entry[] {
  const byId = new Map(current.map((e) => [e.id, e]));
  const loadedIds = new Set<string>();
  const out: Entry[] = [];
  for (const m of messages) {
    const raw = m as unknown as Record<string, unknown>;
    if (typeof raw.id !== "string") {
      console.warn("braid: skipping a message without an id", m);
      continue;
    }
    loadedIds.add(m.id);
    const prev = byId.get(m.id);
    // Unchanged since it was loaded: the same entry, so its card does not render again.
    if (prev?.message && prev.message.updated_at === m.updated_at && prev.status === m.status && prev.message.status === m.status) {
      out.push(prev);
      continue;
    }
    out.push({
      id: m.id,
      kind: typeof raw.kind === "string" ? raw.kind : "unknown",
      role: typeof raw.role === "string" ? raw.role : "assistant",
      status: m.status,
      message: m,
      streamed: prev?.streamed ?? "",
      lastDelta: prev?.lastDelta ?? 0,
      final: prev?.final ?? false,
    });
  }
  for (const e of current) {
    if (!loadedIds.has(e.id) && e.message === undefined) {
      out.push(e);
    }
  }
  return out;
}

/** The text a `text` entry shows: the stored parts once complete, the streamed text before. */
export function visibleText(entry: Entry): string {
  const m = entry.message;
  const stored =
    m && m.kind === "text" && Array.isArray(m.data?.parts)
      ? m.data.parts
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join("\n\n")
      : "";
  if (entry.streamed === "") {
    return stored;
  }
  const settled = m !== undefined && (m.status === "complete" || m.status === "failed");
  return settled && stored.length > 0 ? stored : entry.streamed.length >= stored.length ? entry.streamed : stored;
}

/** Whether anything is running, i.e. the composer should offer "interrupt". */
export function isBusy(state: ContextState): boolean {
  return !["idle", "paused", "failed", "awaiting_tool_approval", "awaiting_user_answer"].includes(state.type);
}
