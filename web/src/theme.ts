// The colour theme: the system's setting unless the person picked light or dark, remembered in
// this browser. Forced themes set `data-theme` on <html>; the stylesheet follows the system's
// `prefers-color-scheme` otherwise.

import { useCallback, useEffect, useState } from "react";

/** What the person chose. */
export type ThemeChoice = "system" | "light" | "dark";

/** Where the choice is kept. */
export const THEME_KEY = "braid.theme";

const ORDER: ThemeChoice[] = ["system", "dark", "light"];

/** The remembered choice; `system` when there is none or storage is unavailable. */
export function storedTheme(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(THEME_KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

/** Applies a choice to the document. */
export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === "system") delete root.dataset.theme;
  else root.dataset.theme = choice;
}

/** The theme choice and a way to go to the next one (system → dark → light → system). */
export function useTheme(): [ThemeChoice, () => void] {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  useEffect(() => {
    applyTheme(choice);
    try {
      if (choice === "system") window.localStorage.removeItem(THEME_KEY);
      else window.localStorage.setItem(THEME_KEY, choice);
    } catch {
      // Private windows may refuse storage: the choice then lasts until the tab closes.
    }
  }, [choice]);
  const next = useCallback(() => setChoice((c) => ORDER[(ORDER.indexOf(c) + 1) % ORDER.length]!), []);
  return [choice, next];
}
