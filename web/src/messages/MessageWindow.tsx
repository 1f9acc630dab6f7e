// The messages of a long conversation, rendered from the newest back: only the last WINDOW at
// first, and more as the person scrolls up (the scroll position stays where it was), reading
// older pages from the server when the loaded ones run out, so a history of thousands of
// messages opens as fast as a short one. (`content-visibility` is not
// used: its estimated heights move the bottom while "↓ latest" scrolls to it.)

import { useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from "react";
import { useFollow } from "../ui/scroll/follow";
import type { Entry } from "../conversation/reducer";
import type { ViewMarker } from "../generated/protocol";
import { MessageView, type MessageViewOptions } from "./MessageView";

/** Messages rendered at first, and added each time the person reaches the top. */
export const WINDOW = 40;
/** How close to the top (in pixels) scrolling brings in the earlier messages. */
const NEAR_TOP_PX = 300;

/** What the window shows besides the messages. */
export interface WindowExtras {
  /** The optimized view's markers, each before the message it names (at the end without one). */
  markers?: ViewMarker[];
  /**
   * Opens the full history where a marker stands: at the last message it hides, so the
   * window renders only from there on and scrolling up reads the rest.
   */
  onOpenFull?: (last: string) => void;
  /** A message to bring into view once it is listed (the window grows to it). */
  reveal?: string | null;
  /** Called once `reveal` is in view. */
  onRevealed?: () => void;
  /** Whether the server holds messages before the first of `entries`. */
  older?: boolean;
  /** Reads the page before the first of `entries` (when `older`). */
  onLoadEarlier?: () => void;
  /** Reads the whole history: `reveal` names a message not loaded yet. */
  onLoadAll?: () => void;
}

/** The last messages of `entries`, growing upwards inside the scrolling list `list`. */
export function MessageWindow({
  entries,
  options,
  list,
  markers = [],
  onOpenFull,
  reveal,
  onRevealed,
  older = false,
  onLoadEarlier,
  onLoadAll,
}: { entries: Entry[]; options: MessageViewOptions; list: RefObject<HTMLOListElement | null> } & WindowExtras) {
  const [count, setCount] = useState(WINDOW);
  const follow = useFollow();
  // Growing keeps what the person reads in place: the first message rendered before the
  // growth stays where it was on screen (its distance from the list's top edge, noted at each
  // scroll and growth), whether the growth came from the loaded entries or from a page read
  // later. Set absolutely, so the browser's own scroll anchoring cannot add to it.
  const anchor = useRef<{ id: string; fromTop: number } | null>(null);
  // Set while a growth waits for its render, so one scroll does not grow the window twice.
  const growing = useRef(false);
  const start = Math.max(0, entries.length - count);
  const earlier = start;
  const showEarlier = () => {
    growing.current = true;
    setCount((c) => c + WINDOW);
    // Running out of loaded messages: the next page is read before the reader gets there.
    if (older && earlier < 2 * WINDOW) onLoadEarlier?.();
  };
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    growing.current = false;
    const prev = anchor.current;
    // Only a change of the first message moves what is read; positions are read then alone
    // (reading one forces a layout, which a render for each streamed piece must not pay).
    if (!prev || el.querySelector<HTMLElement>("li[data-id]")?.dataset.id === prev.id) return;
    // Keep the reader's place, unless they went back to the newest message meanwhile (sent).
    if (!follow.isFollowing()) {
      const kept = [...el.querySelectorAll<HTMLElement>("li[data-id]")].find((li) => li.dataset.id === prev.id);
      if (kept) el.scrollTop = kept.offsetTop - prev.fromTop;
    }
    anchor.current = noteAnchor(el);
  });
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const onScroll = () => {
      anchor.current = noteAnchor(el);
      if ((earlier > 0 || older) && el.scrollTop < NEAR_TOP_PX && !growing.current) showEarlier();
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  });
  // After the commit's layout (and the follow hook's scroll to the bottom): grow the window to
  // the revealed message, then scroll it to the middle of the list.
  useEffect(() => {
    if (!reveal) return;
    const at = entries.findIndex((e) => e.id === reveal);
    if (at === -1) {
      // Further back than the pages read so far: read the whole history once to reach it.
      if (older) onLoadAll?.();
      return;
    }
    if (at < start) {
      setCount(entries.length - at);
      return;
    }
    const el = [...(list.current?.querySelectorAll<HTMLElement>("li[data-id]") ?? [])].find((li) => li.dataset.id === reveal);
    if (el) keepInView(el, list.current);
    onRevealed?.();
  }, [reveal, entries, start, list, onRevealed, older, onLoadAll]);
  const shownIds = new Set(entries.slice(start).map((e) => e.id));
  const before = new Map<string, ViewMarker[]>();
  const atTop: ViewMarker[] = [];
  const atEnd: ViewMarker[] = [];
  const listed = new Set(entries.map((e) => e.id));
  for (const m of markers) {
    if (m.before === undefined) atEnd.push(m);
    else if (shownIds.has(m.before)) before.set(m.before, [...(before.get(m.before) ?? []), m]);
    // Its message is not a card of its own (a paired tool result): shown above the window.
    else if (!listed.has(m.before) && start === 0) atTop.push(m);
  }
  const row = (m: ViewMarker) => <MarkerRow key={`${m.kind}-${m.first}`} marker={m} {...(onOpenFull ? { onOpenFull } : {})} />;
  return (
    <>
      {(earlier > 0 || older) && (
        <li className="earlier">
          <button type="button" className="btn btn-link" onClick={showEarlier}>
            {earlier === 0
              ? "Load earlier messages"
              : older
                ? `Show ${Math.min(WINDOW, earlier)} earlier messages`
                : `Show ${Math.min(WINDOW, earlier)} earlier messages (${earlier} not shown)`}
          </button>
        </li>
      )}
      {atTop.map(row)}
      {entries.slice(start).map((e) => (
        <MessageWithMarkers key={e.id} entry={e} options={options} markers={before.get(e.id)} row={row} />
      ))}
      {atEnd.map(row)}
    </>
  );
}

/** The first message rendered in `list`, and how far below the list's visible top it is. */
function noteAnchor(list: HTMLElement): { id: string; fromTop: number } | null {
  const first = list.querySelector<HTMLElement>("li[data-id]");
  return first?.dataset.id ? { id: first.dataset.id, fromTop: first.offsetTop - list.scrollTop } : null;
}

/** How long a revealed message stays marked. */
const REVEAL_MARK_MS = 2500;
/** Frames during which a revealed message is brought back into view. */
const REVEAL_FRAMES = 30;

/**
 * Scrolls `el` to the middle of `list`, and again over the next frames while the heights of
 * messages laid out for the first time (`content-visibility`) move it away.
 */
function keepInView(el: HTMLElement, list: HTMLElement | null): void {
  el.scrollIntoView?.({ block: "center" });
  // Marked for a moment, so the eye finds the message that was asked for.
  el.classList.add("revealed");
  window.setTimeout(() => el.classList.remove("revealed"), REVEAL_MARK_MS);
  let frames = 0;
  const check = () => {
    if (!el.isConnected || !list || ++frames > REVEAL_FRAMES) return;
    const box = list.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) el.scrollIntoView?.({ block: "center" });
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

function MessageWithMarkers({
  entry,
  options,
  markers,
  row,
}: {
  entry: Entry;
  options: MessageViewOptions;
  markers: ViewMarker[] | undefined;
  row: (m: ViewMarker) => ReactNode;
}) {
  return (
    <>
      {markers?.map(row)}
      <MessageView entry={entry} options={options} />
    </>
  );
}

/** "N earlier messages summarized/hidden (T tokens)", with a way to read them in the full history. */
export function MarkerRow({ marker, onOpenFull }: { marker: ViewMarker; onOpenFull?: (last: string) => void }) {
  const what = marker.kind === "summarized" ? "summarized" : "hidden";
  const noun = marker.count === 1 ? "message" : "messages";
  return (
    <li className={`view-marker marker-${marker.kind}`} data-first={marker.first}>
      <span>
        {marker.count.toLocaleString()} earlier {noun} {what} ({marker.tokens.toLocaleString()} tokens)
      </span>
      {onOpenFull && (
        <button type="button" className="btn btn-link" onClick={() => onOpenFull(marker.last)}>
          Open in full history
        </button>
      )}
    </li>
  );
}
