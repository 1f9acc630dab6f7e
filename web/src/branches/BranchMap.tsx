// The branch map: a compact tree of the context's branches, each forking from its parent at a
// message, with its length, its last activity and the merges it received. Clicking a branch
// switches to it; "Merge…" opens the merge dialog with that branch as the source.

import { useEffect, useId, useRef, useState } from "react";
import type { BranchInfo, BranchList, Message } from "../generated/protocol";
import { exactTime, relativeTime, useNow } from "../messages/time";
import { mergedFrom } from "../messages/MessageView";

/** Branches the map reads at most: a context with more shows the first ones and says so. */
export const MAX_MAP_BRANCHES = 30;

/** What the map knows of one branch beyond its `BranchInfo`. */
export interface BranchFacts {
  /** When its last message last changed (its creation when it has none). */
  lastActivity: string;
  /** The branches merged into it, oldest first. */
  mergedFrom: string[];
  /** The summary merges it received (each a marked message standing for messages of its source
   * branch), oldest first: the map links each back to its branch. */
  summaries: { branch: string; count: number }[];
  /** The position (from 1) of its fork point in its parent, when it has one. */
  forkAt: number | undefined;
}

/** Works out the facts of every branch from its messages (all of them, in order). */
export function branchFacts(branches: BranchInfo[], messages: Map<string, Message[]>): Map<string, BranchFacts> {
  const out = new Map<string, BranchFacts>();
  for (const b of branches) {
    const own = messages.get(b.name) ?? [];
    let last = b.created_at;
    for (const m of own) if (m.updated_at > last) last = m.updated_at;
    const merged = own.flatMap((m) => (m.kind === "system_control" && m.data.type === "branch_merge" ? [m.data.source] : []));
    const summaries = own.flatMap((m) => {
      const from = mergedFrom(m);
      return from ? [from] : [];
    });
    const parent = b.parent ? messages.get(b.parent) : undefined;
    const at = b.fork_point && parent ? parent.findIndex((m) => m.id === b.fork_point) : -1;
    out.set(b.name, { lastActivity: last, mergedFrom: merged, summaries, forkAt: b.parent ? (b.fork_point ? (at >= 0 ? at + 1 : undefined) : 0) : undefined });
  }
  return out;
}

/** What the map needs from the app. */
export interface BranchMapProps {
  /** The branches, with the active one. */
  branches: BranchList;
  /** Reads all of a branch's messages. */
  loadMessages: (branch: string) => Promise<Message[]>;
  /** Switches to a branch. */
  onSwitch: (name: string) => void;
  /** Opens the merge dialog with this source. */
  onMerge: (source: string) => void;
  /** Closes the map. */
  onClose: () => void;
}

/** The branch map, as a dialog. */
export function BranchMap({ branches, loadMessages, onSwitch, onMerge, onClose }: BranchMapProps) {
  const shown = branches.branches.slice(0, MAX_MAP_BRANCHES);
  const [facts, setFacts] = useState<Map<string, BranchFacts> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const now = useNow();
  useEffect(() => {
    let current = true;
    Promise.all(shown.map(async (b) => [b.name, await loadMessages(b.name)] as const)).then(
      (read) => current && setFacts(branchFacts(shown, new Map(read))),
      (err: unknown) => current && setProblem(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      current = false;
    };
    // `shown` is derived from `branches`.
  }, [branches, loadMessages]);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    dialog.current?.querySelector<HTMLButtonElement>("button[aria-current=true], button")?.focus();
    return () => before?.focus?.();
  }, []);
  const names = new Set(shown.map((b) => b.name));
  const children = (parent: string | undefined) =>
    shown
      .filter((b) => (parent === undefined ? !b.parent || !names.has(b.parent) : b.parent === parent))
      .sort((a, b) => (facts?.get(a.name)?.forkAt ?? 0) - (facts?.get(b.name)?.forkAt ?? 0) || a.created_at.localeCompare(b.created_at));
  const node = (b: BranchInfo) => {
    const f = facts?.get(b.name);
    const active = b.name === branches.active;
    const kids = children(b.name);
    return (
      <li key={b.name} className={`map-node${active ? " map-active" : ""}`}>
        <div className="map-row">
          <button
            type="button"
            className="btn map-branch"
            aria-current={active}
            aria-label={`${b.name}${active ? " (active)" : ""}, ${b.message_count} messages`}
            onClick={() => {
              if (!active) onSwitch(b.name);
              onClose();
            }}
          >
            <span className="map-dot" aria-hidden="true" />
            {b.name}
          </button>
          <span className="map-facts">
            {b.message_count} {b.message_count === 1 ? "message" : "messages"}
            {b.parent && f?.forkAt !== undefined && (f.forkAt === 0 ? ` · forked from ${b.parent} before its first message` : ` · forked from ${b.parent} after message ${f.forkAt}`)}
            {f && (
              <>
                {" · last activity "}
                <time dateTime={f.lastActivity} title={exactTime(new Date(f.lastActivity))}>
                  {relativeTime(new Date(f.lastActivity), now)}
                </time>
              </>
            )}
            {active && " · active"}
          </span>
          {!active && (
            <button type="button" className="btn btn-tool" aria-label={`Merge ${b.name}…`} onClick={() => onMerge(b.name)}>
              Merge…
            </button>
          )}
        </div>
        {f && f.mergedFrom.length > 0 && <div className="map-merges">merged from {f.mergedFrom.join(", ")}</div>}
        {f?.summaries.map((s, i) => (
          <div key={`summary-${i}`} className="map-merges">
            {"conclusions of "}
            <button
              type="button"
              className="btn btn-link"
              aria-label={`Go to ${s.branch}, the branch whose ${s.count} messages ${b.name}'s summary stands for`}
              onClick={() => {
                onSwitch(s.branch);
                onClose();
              }}
            >
              {s.branch}
            </button>
            {` summarized here (${s.count} message${s.count === 1 ? "" : "s"})`}
          </div>
        ))}
        {kids.length > 0 && <ul className="map-children">{kids.map(node)}</ul>}
      </li>
    );
  };
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div
        ref={dialog}
        className="modal branch-map"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <h2 id={titleId}>Branch map</h2>
        {problem && (
          <div className="error-text" role="alert">
            The branches could not be read: {problem}
          </div>
        )}
        {!facts && !problem && <p className="muted">Reading the branches…</p>}
        <ul className="map-children map-root">{children(undefined).map(node)}</ul>
        {branches.branches.length > shown.length && (
          <p className="muted">The first {shown.length} of {branches.branches.length} branches are shown; the switcher lists them all.</p>
        )}
        <div className="actions">
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
