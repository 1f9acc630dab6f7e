// The page's keyboard shortcuts (listed by `?`): Escape closes the overlays first and stops a
// running turn when none is open, Ctrl+K searches the conversations, `?` opens the list, Up in
// an empty composer edits the last message sent.

import { useEffect, useRef } from "react";
import type { ShellAction } from "./shellState";

/** What the shortcuts read of the page as it is now. */
export interface ShortcutTargets {
  /** Whether a side panel or the narrow-window sidebar is open. */
  overlay: boolean;
  /** Whether a turn is running (Escape stops it). */
  busy: boolean;
  interrupt: () => void;
  /** Starts editing the last message sent; false when there is none. */
  editLast: () => boolean;
}

/** Registers the shortcuts once; `targets` is read at each key press. */
export function useShortcuts(targets: ShortcutTargets, dispatch: (a: ShellAction) => void): void {
  const keys = useRef(targets);
  keys.current = targets;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      const typing = !!target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
      if (e.key === "Escape") {
        if (keys.current.overlay) {
          dispatch({ type: "escape" });
        } else if (keys.current.busy) {
          e.preventDefault();
          keys.current.interrupt();
        }
      } else if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        dispatch({ type: "nav", open: true });
        window.setTimeout(() => document.querySelector<HTMLInputElement>(".sidebar input[type=search]")?.focus(), 0);
      } else if (e.key === "?" && !typing && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        dispatch({ type: "help", open: true });
      } else if (e.key === "ArrowUp" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
        const composer = target instanceof HTMLTextAreaElement && target.closest(".composer") !== null;
        if (composer && (target as HTMLTextAreaElement).value === "" && keys.current.editLast()) e.preventDefault();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [dispatch]);
}
