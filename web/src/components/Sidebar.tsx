// The list of contexts: search (titles here, message text on the server), create, open,
// rename, delete.

import { useId, useMemo, useState } from "react";
import type { ContextListEntry, MessageSearchHit } from "../generated/protocol";
import { Icon } from "../ui/Icon";
import { MessageHits } from "./MessageHits";

/** What the sidebar can ask for. */
export interface SidebarProps {
  /** The contexts, newest first. */
  contexts: ContextListEntry[];
  /** The open context. */
  activeId: string | null;
  /** Opens a context. */
  onOpen: (id: string) => void;
  /** Creates a context with an optional title. */
  onCreate: (title: string | undefined) => void;
  /** Renames a context. */
  onRename: (id: string, title: string) => void;
  /** Deletes a context (after the person confirmed). */
  onDelete: (id: string) => void;
  /** Searches every conversation's messages for the query's words. */
  searchMessages?: (q: string) => Promise<MessageSearchHit[]>;
  /** Opens a found message's conversation at the message. */
  onOpenMessage?: (hit: MessageSearchHit) => void;
}

/** A context's name in lists. */
export function contextTitle(c: Pick<ContextListEntry, "title">): string {
  return c.title?.trim() || "Untitled conversation";
}

/** The sidebar of contexts. */
export function Sidebar({ contexts, activeId, onOpen, onCreate, onRename, onDelete, searchMessages, onOpenMessage }: SidebarProps) {
  const [query, setQuery] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [confirming, setConfirming] = useState<string | null>(null);
  const searchId = useId();
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q ? contexts.filter((c) => contextTitle(c).toLowerCase().includes(q) || c.id.includes(q)) : contexts;
  }, [contexts, query]);

  return (
    <nav className="sidebar" aria-label="Conversations">
      <div className="sidebar-top">
        <button type="button" className="btn btn-primary" onClick={() => onCreate(undefined)}>
          New conversation
        </button>
        <label htmlFor={searchId} className="visually-hidden">
          Search conversations
        </label>
        <input id={searchId} type="search" placeholder="Search…" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      <ul className="context-list">
        {shown.map((c) => (
          <li key={c.id} className={c.id === activeId ? "active" : ""}>
            {editing === c.id ? (
              <form
                className="rename"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (draft.trim()) onRename(c.id, draft.trim());
                  setEditing(null);
                }}
              >
                <input
                  aria-label="New title"
                  value={draft}
                  autoFocus
                  onChange={(e) => setDraft(e.target.value)}
                  onKeyDown={(e) => e.key === "Escape" && setEditing(null)}
                />
                <button type="submit" className="btn">Save</button>
              </form>
            ) : (
              <>
                <a
                  href={`/contexts/${encodeURIComponent(c.id)}`}
                  aria-current={c.id === activeId ? "page" : undefined}
                  onClick={(e) => {
                    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                    e.preventDefault();
                    onOpen(c.id);
                  }}
                >
                  {contextTitle(c)}
                  {c.state.type !== "idle" && (
                    <>
                      <span className="dot" title={c.state.type.replace(/_/g, " ")} aria-hidden="true" />
                      {" "}
                      <span className="visually-hidden">({c.state.type.replace(/_/g, " ")})</span>
                    </>
                  )}
                </a>
                <span className="row-actions">
                  <button
                    type="button"
                    className="btn btn-icon"
                    aria-label={`Rename ${contextTitle(c)}`}
                    onClick={() => {
                      setDraft(c.title ?? "");
                      setEditing(c.id);
                    }}
                  >
                    ✎
                  </button>
                  {confirming === c.id ? (
                    <>
                      <button type="button" className="btn btn-danger" onClick={() => { setConfirming(null); onDelete(c.id); }}>
                        Delete
                      </button>
                      <button type="button" className="btn" onClick={() => setConfirming(null)}>Keep</button>
                    </>
                  ) : (
                    <button type="button" className="btn btn-icon" aria-label={`Delete ${contextTitle(c)}`} onClick={() => setConfirming(c.id)}>
                      <Icon name="trash" />
                    </button>
                  )}
                </span>
              </>
            )}
          </li>
        ))}
        {shown.length === 0 && <li className="muted">{contexts.length === 0 ? "No conversations yet" : "No title matches"}</li>}
      </ul>
      {searchMessages && onOpenMessage && <MessageHits query={query} search={searchMessages} onOpen={onOpenMessage} />}
    </nav>
  );
}
