// Following the conversation as it grows: the list stays at its newest message unless the person
// scrolled up to read, in which case new content raises a "↓ latest" button instead of moving
// the page under them. Sending always goes back to the bottom.

import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import "./follow.css";

/** Within this many pixels of the bottom the list counts as following. */
export const FOLLOW_SLACK_PX = 80;

/** Whether the list is following its newest message right now. */
export interface Follow {
  /** True while the person has not scrolled up. */
  isFollowing: () => boolean;
}

const Ctx = createContext<Follow>({ isFollowing: () => true });

/** Tells cards below whether they may bring themselves into view. */
export const FollowProvider = Ctx.Provider;

/** The list's follow state, for a card that arrives (an approval) and wants to be seen. */
export function useFollow(): Follow {
  return useContext(Ctx);
}

/**
 * Follows `list` when `content` changes; `reset` (the open conversation) starts following again.
 * Gives the scroll handler for the list, whether newer content is below the view, a way back
 * to the bottom, and the state for [`FollowProvider`].
 */
export function useFollowList(list: RefObject<HTMLElement | null>, content: readonly unknown[], reset: unknown) {
  const following = useRef(true);
  const [behind, setBehind] = useState(false);
  const onScroll = useCallback(() => {
    const el = list.current;
    if (!el) return;
    following.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK_PX;
    if (following.current) setBehind(false);
  }, [list]);
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    if (following.current) el.scrollTop = el.scrollHeight;
    else setBehind(true);
    // The content's parts are the dependencies: any of them changing is new content.
  }, content);
  useEffect(() => {
    following.current = true;
    setBehind(false);
  }, [reset]);
  const toLatest = useCallback(() => {
    following.current = true;
    setBehind(false);
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [list]);
  const follow = useRef<Follow>({ isFollowing: () => following.current }).current;
  return { onScroll, behind, toLatest, follow };
}

/** The "↓ latest" button shown over the list's bottom while newer content is out of view. */
export function LatestButton({ shown, onClick }: { shown: boolean; onClick: () => void }) {
  if (!shown) return null;
  return (
    <div className="latest-anchor">
      <button type="button" className="btn btn-primary latest-button" onClick={onClick}>
        ↓ latest
      </button>
    </div>
  );
}
