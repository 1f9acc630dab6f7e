// The messages of a long conversation, rendered from the newest back: only the last WINDOW at
// first, and more as the person scrolls up (the scroll position stays where it was), so a
// history of thousands of messages opens as fast as a short one. (`content-visibility` is not
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
}: { entries: Entry[]; options: MessageViewOptions; list: RefObject<HTMLOListElement | null> } & WindowExtras) {
  const [count, setCount] = useState(WINDOW);
  const follow = useFollow();
  // Growing keeps what the person reads in place: the height added above is scrolled past.
  const grownFrom = useRef<number | null>(null);
  const start = Math.max(0, entries.length - count);
  const earlier = start;
  const showEarlier = () => {
    const el = list.current;
    grownFrom.current = el ? el.scrollHeight - el.scrollTop : null;
    setCount((c) => c + WINDOW);
  };
  useLayoutEffect(() => {
    const el = list.current;
    if (grownFrom.current !== null && el) {
      // Keep the reader's place, unless they went back to the newest message meanwhile (sent).
      if (!follow.isFollowing()) el.scrollTop = el.scrollHeight - grownFrom.current;
      grownFrom.current = null;
    }
  }, [count, list, follow]);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el || earlier === 0) return;
    const onScroll = () => {
      if (el.scrollTop < NEAR_TOP_PX && grownFrom.current === null) showEarlier();
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  });
  // After the commit's layout (and the follow hook's scroll to the bottom): grow the window to
  // the revealed message, then scroll it to the middle of the list.
  useEffect(() => {
    if (!reveal) return;
    const at = entries.findIndex((e) => e.id === reveal);
    if (at === -1) return;
    if (at < start) {
      setCount(entries.length - at);
      return;
    }
    const el = [...(list.current?.querySelectorAll<HTMLElement>("li[data-id]") ?? [])].find((li) => li.dataset.id === reveal);
    if (el) keepInView(el, list.current);
    onRevealed?.();
  }, [reveal, entries, start, list, onRevealed]);
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
      {earlier > 0 && (
        <li className="earlier">
          <button type="button" className="btn btn-link" onClick={showEarlier}>
            Show {Math.min(WINDOW, earlier)} earlier messages ({earlier} not shown)
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
