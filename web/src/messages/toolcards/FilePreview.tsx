// What a pending write, creation, replacement or deletion would do to the file as it is on disk
// now, asked of the server (`POST /v1/contexts/{id}/files/preview`): the UI never guesses a file
// it cannot see. An overwrite shows every line it removes; a replacement shows the file's real
// line numbers with a few lines of context around the change.

import { useEffect, useState } from "react";
import type { ApiClient } from "../../api/client";
import type { FileChangePreview } from "../../generated/protocol";
import { DiffView } from "./views";

/** The tools whose calls change a file, previewed against the disk. */
export const PREVIEWED_TOOLS: ReadonlySet<string> = new Set(["write_file", "create_file", "replace_in_file", "delete_file"]);

/** Unchanged lines kept on each side of a change; the rest folds. */
const CONTEXT_LINES = 3;

/**
 * Previews by context and call id, kept for the page's life: once the call ran, the file on
 * disk is the one after it, so the diff the person approved is the one shown from then on.
 */
const previews = new Map<string, FileChangePreview>();
/** Previews kept at most; the oldest go first. */
const MAX_KEPT = 200;

function keep(key: string, preview: FileChangePreview) {
  previews.set(key, preview);
  while (previews.size > MAX_KEPT) {
    const oldest = previews.keys().next().value;
    if (oldest === undefined) break;
    previews.delete(oldest);
  }
}

const CHANGE_TYPES = new Set(["creates", "overwrites", "replaces", "deletes", "unshowable"]);

function isPreview(p: unknown): p is FileChangePreview {
  const change = (p as { change?: { type?: unknown } } | null)?.change;
  return typeof (p as { path?: unknown } | null)?.path === "string" && typeof change?.type === "string" && CHANGE_TYPES.has(change.type);
}

/** What loading the preview of a call came to. */
export type PreviewState = { type: "none" } | { type: "loading" } | { type: "ready"; preview: FileChangePreview } | { type: "failed"; message: string };

/**
 * The preview of a call: asked of the server while the call waits for approval, and remembered
 * afterwards for as long as the page lives. `none` for a call that changes no file, or one
 * decided before this page saw it.
 */
export function useFilePreview(api: ApiClient, contextId: string, callId: string, name: string, args: unknown, pending: boolean): PreviewState {
  const key = `${contextId}/${callId}`;
  const known = previews.get(key);
  const [state, setState] = useState<PreviewState>(known ? { type: "ready", preview: known } : pending && PREVIEWED_TOOLS.has(name) ? { type: "loading" } : { type: "none" });
  useEffect(() => {
    if (!pending || !PREVIEWED_TOOLS.has(name) || previews.has(key)) return;
    let live = true;
    setState({ type: "loading" });
    api.previewFileChange(contextId, { tool: name, arguments: args }).then(
      (preview) => {
        // An answer without a known change (an older server) shows the arguments instead.
        if (!isPreview(preview)) {
          if (live) setState({ type: "failed", message: "the server's preview has a shape this page does not know" });
          return;
        }
        keep(key, preview);
        if (live) setState({ type: "ready", preview });
      },
      (err: unknown) => {
        if (live) setState({ type: "failed", message: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => {
      live = false;
    };
    // The arguments of a call never change: its id and state decide when to ask.
  }, [api, contextId, key, name, pending]);
  return state;
}

function lines(n: number): string {
  return `${n} ${n === 1 ? "line" : "lines"}`;
}

/** The diff of a call against the file as it was when the call waited for approval. */
export function FilePreview({ preview }: { preview: FileChangePreview }) {
  const { path, change } = preview;
  switch (change.type) {
    case "creates":
      return <DiffView path={path} before="" after={change.after} caption="creates a new file" />;
    case "overwrites":
      return <DiffView path={path} before={change.before} after={change.after} caption={`overwrites a ${change.before_lines}-line file`} context={CONTEXT_LINES} />;
    case "replaces":
      return <DiffView path={path} before={change.before} after={change.after} caption={`replaces text at line ${change.at_line}`} context={CONTEXT_LINES} />;
    case "deletes":
      return <DiffView path={path} before={change.before} after="" caption={`deletes the file (${lines(change.before_lines)})`} context={CONTEXT_LINES} />;
    case "unshowable":
      return (
        <p className="call-effect file-preview-note">
          <code>{path}</code>: {change.reason}
        </p>
      );
  }
}
