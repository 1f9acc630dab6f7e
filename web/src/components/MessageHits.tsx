// The sidebar's search through what was written: the server's full-text search over every
// conversation's messages (`GET /v1/search`), listed under the matching titles; a hit opens its
// conversation at the message.

import { useEffect, useState, type ReactNode } from "react";
import type { MessageSearchHit } from "../generated/protocol";

/** How long typing must pause before the server is asked. */
export const SEARCH_DEBOUNCE_MS = 250;
/** Queries shorter than this (in characters, trimmed) search titles only. */
export const MIN_QUERY_CHARS = 2;

/** The words of a query as the server reads them: runs of letters and digits. */
export function queryWords(query: string): string[] {
  return query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** `text` with every word starting with one of `words` marked. */
export function markWords(text: string, words: string[]): ReactNode[] {
  if (words.length === 0) return [text];
  const out: ReactNode[] = [];
  const word = /[\p{L}\p{N}]+/gu;
  let last = 0;
  for (const m of text.matchAll(word)) {
    const lower = m[0].toLowerCase();
    if (!words.some((w) => lower.startsWith(w))) continue;
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(<mark key={at}>{m[0]}</mark>);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

type Found =
  | { state: "idle" }
  | { state: "searching"; query: string }
  | { state: "done"; query: string; hits: MessageSearchHit[] }
  | { state: "failed"; query: string; reason: string };

/** The messages matching `query`, found by `search` once typing pauses. */
export function MessageHits({
  query,
  search,
  onOpen,
}: {
  query: string;
  search: (q: string) => Promise<MessageSearchHit[]>;
  onOpen: (hit: MessageSearchHit) => void;
}) {
  const [found, setFound] = useState<Found>({ state: "idle" });
  const q = query.trim();
  const searchable = queryWords(q).length > 0 && q.length >= MIN_QUERY_CHARS;
  useEffect(() => {
    if (!searchable) {
      setFound({ state: "idle" });
      return;
    }
    let current = true;
    const timer = window.setTimeout(() => {
      setFound({ state: "searching", query: q });
      search(q).then(
        (hits) => current && setFound({ state: "done", query: q, hits }),
        (err: unknown) => current && setFound({ state: "failed", query: q, reason: err instanceof Error ? err.message : String(err) }),
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [q, searchable, search]);

  if (!searchable || found.state === "idle") return null;
  const words = queryWords(found.query);
  return (
    <section className="message-hits" aria-label="Messages found">
      <h2 className="hits-heading">In messages</h2>
      {found.state === "searching" && <p className="muted" role="status">Searching…</p>}
      {found.state === "failed" && <p className="muted" role="status">Search failed: {found.reason}</p>}
      {found.state === "done" && found.hits.length === 0 && <p className="muted" role="status">No message holds “{found.query}”</p>}
      {found.state === "done" && found.hits.length > 0 && (
        <ul className="hit-list">
          {found.hits.map((hit) => (
            <li key={`${hit.context_id}-${hit.message_id}`}>
              <button type="button" className="hit" onClick={() => onOpen(hit)}>
                <span className="hit-title">
                  {hit.title?.trim() || "Untitled conversation"}
                  <span className="muted"> · {hit.role === "user" ? "you" : "assistant"}</span>
                </span>
                <span className="hit-snippet">{markWords(hit.snippet, words)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
