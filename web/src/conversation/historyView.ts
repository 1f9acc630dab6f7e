// Which history the person reads (everything stored, or what the model is sent), remembered in
// this browser so a reload or another conversation opens the same one.

import { useCallback, useState } from "react";
import type { MessageView } from "../generated/protocol";

/** Where the choice is kept. */
export const HISTORY_VIEW_KEY = "braid.history-view";

/** The remembered view; the full transcript when none is remembered or storage is unavailable
 * (a person reads what was said; the optimized view is what the model is sent). */
export function storedHistoryView(): MessageView {
  try {
    return window.localStorage.getItem(HISTORY_VIEW_KEY) === "optimized" ? "optimized" : "full";
  } catch {
    return "full";
  }
}

/** The history view and a setter that remembers it. */
export function useHistoryView(): [MessageView, (view: MessageView) => void] {
  const [view, setView] = useState<MessageView>(storedHistoryView);
  const choose = useCallback((next: MessageView) => {
    setView(next);
    try {
      window.localStorage.setItem(HISTORY_VIEW_KEY, next);
    } catch {
      // Private windows may refuse storage: the choice then lasts until the tab closes.
    }
  }, []);
  return [view, choose];
}
