// What the shell reads about the conversations besides their messages: the list, the open
// one's summary and branches (again when a turn ends), the model list while the settings are
// open, the server's workspace roots, and the open workspace's files for the file picker.

import { useCallback, useEffect, useRef, useState, type Dispatch, type SetStateAction } from "react";
import type { ApiClient } from "../api/client";
import type { Entry } from "../conversation/reducer";
import type { BranchList, ContextListEntry, ContextSummary, Mode, ModelList } from "../generated/protocol";

/** The shell's data, and how to read it again. */
export interface ContextData {
  contexts: ContextListEntry[];
  setContexts: Dispatch<SetStateAction<ContextListEntry[]>>;
  /** The open context's summary (null while none is open or it is being read). */
  summary: ContextSummary | null;
  setSummary: (s: ContextSummary) => void;
  branches: BranchList | null;
  /** Reads the list of contexts again. */
  refreshContexts: () => void;
  /** Reads the open context's summary and branches again. */
  refreshContext: () => void;
  /** The model server's models, read each time the settings open. */
  models: ModelList | undefined;
  /** Where the server lets workspaces be. */
  workspaceRoots: string[] | undefined;
  /** The open workspace's files. */
  workspaceFiles: string[];
}

/**
 * Reads the shell's data for context `contextId`; `settled` counts its finished turns, and
 * `modeChange` is the newest mode change notice in its list (its id and the mode it set).
 */
export function useContextData(
  api: ApiClient,
  contextId: string | null,
  settingsOpen: boolean,
  settled: number,
  reportError: (err: unknown) => void,
  modeChange?: { id: string; to: Mode },
): ContextData {
  const [contexts, setContexts] = useState<ContextListEntry[]>([]);
  const [summary, setSummaryState] = useState<ContextSummary | null>(null);
  const [branches, setBranches] = useState<BranchList | null>(null);
  const refreshContexts = useCallback(() => {
    api.listContexts().then((l) => setContexts(l.contexts), reportError);
  }, [api, reportError]);
  // Answers for a context the person already left must not overwrite the open one.
  const openId = useRef(contextId);
  openId.current = contextId;
  const refreshContext = useCallback(() => {
    if (!contextId) {
      setSummaryState(null);
      setBranches(null);
      return;
    }
    const forId = contextId;
    setSummaryState((cur) => (cur?.id === forId ? cur : null));
    api.getContext(forId).then((c) => openId.current === forId && setSummaryState(c), reportError);
    api.listBranches(forId).then((b) => openId.current === forId && setBranches(b), reportError);
  }, [api, contextId, reportError]);
  // The model picker's list, asked each time the settings open (the server may load others).
  const [models, setModels] = useState<ModelList | undefined>(undefined);
  useEffect(() => {
    if (!settingsOpen) return;
    api.listModels().then(setModels, (err: unknown) => setModels({ models: [], list_error: err instanceof Error ? err.message : String(err) }));
  }, [api, settingsOpen]);
  const [workspaceRoots, setWorkspaceRoots] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    api.getSettings().then((s) => setWorkspaceRoots(s.workspace_roots), () => setWorkspaceRoots(undefined));
  }, [api]);

  useEffect(refreshContexts, [refreshContexts]);
  useEffect(refreshContext, [refreshContext]);
  // A finished turn may have renamed the context or changed its branches and budget.
  useEffect(() => {
    if (settled > 0) {
      refreshContext();
      refreshContexts();
    }
  }, [settled, refreshContext, refreshContexts]);
  // A mode change inside a turn (executing a plan switches to act) shows in the header at once,
  // not when the turn ends: a notice that disagrees with the summary makes it read again (once
  // per notice, so an older branch's notice cannot make it read again and again).
  const readFor = useRef<string | undefined>(undefined);
  const shownMode = summary?.id === contextId ? summary?.config.mode : undefined;
  useEffect(() => {
    if (!modeChange || shownMode === undefined || shownMode === modeChange.to || readFor.current === modeChange.id) return;
    readFor.current = modeChange.id;
    refreshContext();
  }, [modeChange, shownMode, refreshContext]);

  // The workspace's files for the composer's file picker, read again when the workspace changes.
  const [workspaceFiles, setWorkspaceFiles] = useState<string[]>([]);
  const workspace = summary?.config.workspace;
  useEffect(() => {
    setWorkspaceFiles([]);
    if (!contextId || !workspace) return;
    let current = true;
    api
      .listWorkspaceFiles(contextId)
      .then((list) => current && setWorkspaceFiles(list.files.map((f) => f.path)))
      .catch((e: unknown) => console.warn("workspace files could not be listed", e));
    return () => {
      current = false;
    };
  }, [api, contextId, workspace]);

  const setSummary = useCallback((s: ContextSummary) => setSummaryState(s), []);
  return { contexts, setContexts, summary, setSummary, branches, refreshContexts, refreshContext, models, workspaceRoots, workspaceFiles };
}

/** The newest mode change notice among `entries` (its id and the mode it set), if any. */
export function newestModeChange(entries: readonly Entry[]): { id: string; to: Mode } | undefined {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const m = entries[i]?.message;
    if (m?.kind === "system_control" && m.data.type === "mode_change") return { id: m.id, to: m.data.to };
  }
  return undefined;
}
