// The messages of a long conversation, rendered from the newest back: only the last WINDOW at
// first, and more as the person scrolls up (the scroll position stays where it was). Each
// message also skips layout and painting while off screen (`content-visibility`), so a history
// of thousands of messages opens as fast as a short one.

import { useLayoutEffect, useRef, useState, type RefObject } from "react";
import type { Entry } from "../conversation/reducer";
import { MessageView, type MessageViewOptions } from "./MessageView";

/** Messages rendered at first, and added each time the person reaches the top. */
export const WINDOW = 40;
/** How close to the top (in pixels) scrolling brings in the earlier messages. */
const NEAR_TOP_PX = 300;

/** The last messages of `entries`, growing upwards inside the scrolling list `list`. */
export function MessageWindow({ entries, options, list }: { entries: Entry[]; options: MessageViewOptions; list: RefObject<HTMLOListElement | null> }) {
  const [count, setCount] = useState(WINDOW);
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
      el.scrollTop = el.scrollHeight - grownFrom.current;
      grownFrom.current = null;
    }
  }, [count, list]);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el || earlier === 0) return;
    const onScroll = () => {
      if (el.scrollTop < NEAR_TOP_PX && grownFrom.current === null) showEarlier();
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  });
  return (
    <>
      {earlier > 0 && (
        <li className="earlier">
          <button type="button" className="btn btn-link" onClick={showEarlier}>
            Show {Math.min(WINDOW, earlier)} earlier messages ({earlier} not shown)
          </button>
        </li>
      )}
      {entries.slice(start).map((e) => (
        <MessageView key={e.id} entry={e} options={options} />
      ))}
    </>
  );
}
