// The pinned items of the conversation (messages and facts the person pinned: never dropped or
// summarized to fit the window), and the form that pins a new fact.

import { useEffect, useId, useState } from "react";
import type { Message } from "../generated/protocol";
import type { Entry } from "../conversation/reducer";
import { useCardActions } from "./actions";
import { isPinned } from "./MessageToolbar";
import { messageLine } from "./describe";

/** The longest fact the server takes. */
const MAX_FACT = 2000;

/**
 * "Pinned (n)": what is pinned, and a fact to pin. `pinnedIds` is the branch's pinned list as
 * the context summary gives it: those further back than the loaded `entries` (a long history
 * loads from its newest page) are read one by one; the loaded entries are the newer truth.
 */
export function PinnedFacts({ entries, pinnedIds = [] }: { entries: Entry[]; pinnedIds?: readonly string[] }) {
  const { api, contextId, reportError } = useCardActions();
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const id = useId();
  const loaded = new Set(entries.map((e) => e.id));
  const missing = pinnedIds.filter((p) => !loaded.has(p));
  const missingKey = missing.join(",");
  const [further, setFurther] = useState<Message[]>([]);
  useEffect(() => {
    if (missingKey === "") return;
    let current = true;
    Promise.all(missingKey.split(",").map((m) => api.getMessage(contextId, m))).then(
      (messages) => current && setFurther(messages),
      (err: unknown) => console.warn("braid: pinned messages could not be read", err),
    );
    return () => {
      current = false;
    };
  }, [api, contextId, missingKey]);
  const pinned = [
    ...further.filter((m) => !loaded.has(m.id) && missing.includes(m.id) && isPinned(m)),
    ...entries.flatMap((e) => (e.message && isPinned(e.message) ? [e.message] : [])),
  ];
  const pin = async () => {
    const fact = text.trim();
    if (!fact) return;
    setBusy(true);
    try {
      await api.pinFact(contextId, { text: fact });
      setText("");
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="pinned-facts">
      <summary>Pinned ({pinned.length})</summary>
      {pinned.length > 0 ? (
        <ul className="plain" aria-label="Pinned">
          {pinned.map((m) => (
            <li key={m.id}>{messageLine(m)}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing pinned: pin a message from its actions, or a fact here.</p>
      )}
      <form
        className="pin-fact"
        aria-label="Pin a fact"
        onSubmit={(e) => {
          e.preventDefault();
          void pin();
        }}
      >
        <label htmlFor={id}>Fact every request carries</label>
        <input id={id} type="text" maxLength={MAX_FACT} value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" className="btn" disabled={busy || !text.trim()}>
          Pin fact
        </button>
      </form>
    </details>
  );
}
