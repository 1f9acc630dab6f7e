// The application shell: sidebar of contexts, the conversation with its live state, the
// composer, branches, settings and MCP panels. Everything here is wiring: each action is one
// API call, and the view state comes from the conversation reducer.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ApiClient } from "./api/client";
import type {
  BranchList,
  ContextConfig,
  ContextListEntry,
  ContextSummary,
  CreateBranchRequest,
  MergeRequest,
  McpResourceInfo,
  McpServerDefinition,
  Message,
  MessageSearchHit,
  ModelList,
  Mode,
  OfferedRule,
  SendMessageRequest,
} from "./generated/protocol";
import { navigate, useRoute } from "./router";
import { useConversation } from "./conversation/useConversation";
import { isBusy } from "./conversation/reducer";
import { CardActionsProvider, type CardActions } from "./messages/actions";
import { ToolPairingProvider, useListPairing } from "./messages/toolcards/pairing";
import { FollowProvider, LatestButton, useFollowList } from "./ui/scroll/follow";
import { MessageWindow } from "./messages/MessageWindow";
import { isPlanExecution } from "./messages/MessageView";
import { useHistoryView } from "./conversation/historyView";
import { Sidebar } from "./components/Sidebar";
import { StatusBar, TurnFailure } from "./components/StatusBar";
import { Composer, editedSend, type EditedSend } from "./components/Composer";
import { ElicitationCard } from "./messages/ElicitationCard";
import { BranchSwitcher } from "./components/BranchSwitcher";
import { MergeDialog } from "./components/MergeDialog";
import { PinnedFacts } from "./messages/PinnedFacts";
import { SettingsPanel } from "./components/SettingsPanel";
import { McpPanel } from "./components/McpPanel";
import { workspacePaths } from "./messages/ContentCards";
import { BranchingProvider, type Branching } from "./branches/branching";
import { findVersions, firstAfterFrom, freeBranchName, type MessageVersions } from "./branches/versions";
import { ShortcutsDialog } from "./components/ShortcutsDialog";
import { BranchMap } from "./branches/BranchMap";
import { useTheme } from "./theme";
import { BranchHereProvider, type BranchHere } from "./messages/BranchHere";
import { Header } from "./components/Header";
import { EmptyConversation } from "./components/EmptyConversation";
import { WorkflowRunBar } from "./components/WorkflowRunBar";
import { useMcpState } from "./app/useMcpState";
import { useComposerMenus, useElicitations } from "./app/useComposerMenus";

type Panel = "none" | "settings" | "mcp";

/** Rounds in which a new conversation's read-only calls run without asking (the engine's loop limit). */
export const NEW_CONTEXT_AUTO_ROUNDS = 25;

/** The default config of a new context; the server fills what it does not set. */
export const NEW_CONTEXT_CONFIG: ContextConfig = {
  model: "",
  mode: "act",
  agent_role: "actor",
  // Reading runs without asking (the built-in read-only tools); writes and commands ask. No
  // workspace: the server starts the conversation in its default one.
  approval_policy: { type: "limited_auto", max_depth: NEW_CONTEXT_AUTO_ROUNDS },
  tool_timeout_secs: 30,
  optimization: { strategy: { type: "intelligent" }, reserve_output_tokens: 4096, margin_tokens: 256, ledger_percent: 15 },
};

/** The whole UI, talking to the server through `api`. */
export function App({ api }: { api: ApiClient }) {
  const route = useRoute();
  const contextId = route.type === "context" ? route.contextId : null;
  const [contexts, setContexts] = useState<ContextListEntry[]>([]);
  const [summary, setSummary] = useState<ContextSummary | null>(null);
  const [branches, setBranches] = useState<BranchList | null>(null);
  const [view, setView] = useHistoryView();
  // A message to bring into view once the full history shows it (opened from a marker).
  const [reveal, setReveal] = useState<string | null>(null);
  const [panel, setPanel] = useState<Panel>("none");
  const [navOpen, setNavOpen] = useState(false);
  // On a phone: the header's "More" menu, and the branch bar it folds away.
  const [moreOpen, setMoreOpen] = useState(false);
  const [branchesOpen, setBranchesOpen] = useState(false);
  const [branchFromId, setBranchFromId] = useState<string | null>(null);
  const [merging, setMerging] = useState(false);
  const [editing, setEditing] = useState<EditedSend | null>(null);
  const conv = useConversation(api, contextId, undefined, view);
  const { reportError } = conv;
  const { servers, mcpEditing, resources, tools, showServers, refreshMcp } = useMcpState(api, panel === "mcp", reportError);
  const turnRunning = contextId !== null && isBusy(conv.state.state);
  const { elicitations, replyElicitation } = useElicitations(api, turnRunning);
  const { prompts, workflows, refreshWorkflows, runWorkflow, promptText } = useComposerMenus(api, contextId);
  const [editingId, setEditingId] = useState<string | null>(null);
  const [versions, setVersions] = useState<ReadonlyMap<string, MessageVersions>>(new Map());
  const [helpOpen, setHelpOpen] = useState(false);
  const [mapOpen, setMapOpen] = useState(false);
  const [mergeSource, setMergeSource] = useState<string | undefined>(undefined);
  const [theme, nextTheme] = useTheme();

  const refreshContexts = useCallback(() => {
    api.listContexts().then((l) => setContexts(l.contexts), reportError);
  }, [api, reportError]);
  // Answers for a context the person already left must not overwrite the open one.
  const openId = useRef(contextId);
  openId.current = contextId;
  const refreshContext = useCallback(() => {
    if (!contextId) {
      setSummary(null);
      setBranches(null);
      return;
    }
    const forId = contextId;
    setSummary((cur) => (cur?.id === forId ? cur : null));
    api.getContext(forId).then((c) => openId.current === forId && setSummary(c), reportError);
    api.listBranches(forId).then((b) => openId.current === forId && setBranches(b), reportError);
  }, [api, contextId, reportError]);
  // The model picker's list, asked each time the settings open (the server may load others).
  const [models, setModels] = useState<ModelList | undefined>(undefined);
  useEffect(() => {
    if (panel !== "settings") return;
    api.listModels().then(setModels, (err: unknown) => setModels({ models: [], list_error: err instanceof Error ? err.message : String(err) }));
  }, [api, panel]);
  const [workspaceRoots, setWorkspaceRoots] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    api.getSettings().then((s) => setWorkspaceRoots(s.workspace_roots), () => setWorkspaceRoots(undefined));
  }, [api]);

  useEffect(refreshContexts, [refreshContexts]);
  useEffect(refreshContext, [refreshContext]);
  // A finished turn may have renamed the context or changed its branches and budget.
  const settled = conv.state.settled;
  useEffect(() => {
    if (settled > 0) {
      refreshContext();
      refreshContexts();
    }
  }, [settled, refreshContext, refreshContexts]);

  // Keyboard shortcuts (listed by `?`). Escape closes the overlays (side panel, narrow-window
  // sidebar) first, and stops a running turn when none is open. The handler reads the current
  // view through a ref, so it is registered once.
  const keys = useRef<{ overlay: boolean; busy: boolean; interrupt: () => void; editLast: () => boolean }>({
    overlay: false,
    busy: false,
    interrupt: () => {},
    editLast: () => false,
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      const typing = !!target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
      if (e.key === "Escape") {
        if (keys.current.overlay) {
          setPanel("none");
          setNavOpen(false);
        } else if (keys.current.busy) {
          e.preventDefault();
          keys.current.interrupt();
        }
      } else if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setNavOpen(true);
        window.setTimeout(() => document.querySelector<HTMLInputElement>(".sidebar input[type=search]")?.focus(), 0);
      } else if (e.key === "?" && !typing && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        setHelpOpen(true);
      } else if (e.key === "ArrowUp" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
        const composer = target instanceof HTMLTextAreaElement && target.closest(".composer") !== null;
        if (composer && (target as HTMLTextAreaElement).value === "" && keys.current.editLast()) e.preventDefault();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // Follow the conversation as it grows, unless the person scrolled up to read.
  const list = useRef<HTMLOListElement>(null);
  const last = conv.state.entries.at(-1);
  // Opening a conversation or switching between its full and optimized history starts following again.
  const scroll = useFollowList(list, [conv.state.entries.length, last?.streamed.length, last?.status, last?.message], `${contextId}|${view}`);

  const jump = (to: "approve" | "answer") => {
    const selector = to === "approve" ? ".approval button:not(:disabled)" : ".question-card button:not(:disabled)";
    const target = list.current?.querySelector<HTMLButtonElement>(selector);
    if (target) {
      target.scrollIntoView?.({ block: "center" });
      target.focus();
    }
  };
  const open = (id: string) => {
    setNavOpen(false);
    navigate({ type: "context", contextId: id });
  };
  const create = async (title: string | undefined) => {
    try {
      const c = await api.createContext({ ...(title ? { title } : {}), config: NEW_CONTEXT_CONFIG });
      setContexts((cur) => [c, ...cur]);
      open(c.id);
    } catch (err) {
      reportError(err);
    }
  };
  const rename = async (id: string, title: string) => {
    try {
      const c = await api.updateContext(id, { title });
      setContexts((cur) => cur.map((x) => (x.id === id ? c : x)));
      if (id === contextId) setSummary(c);
    } catch (err) {
      reportError(err);
    }
  };
  const remove = async (id: string) => {
    try {
      await api.deleteContext(id);
      setContexts((cur) => cur.filter((x) => x.id !== id));
      if (id === contextId) navigate({ type: "home" });
    } catch (err) {
      reportError(err);
    }
  };
  const send = async (requests: SendMessageRequest[]) => {
    if (!contextId) return;
    scroll.toLatest();
    try {
      for (const r of requests) await api.sendMessage(contextId, r);
    } catch (err) {
      reportError(err);
      throw err;
    }
    if (editing) {
      // The edited text is stored now: the failed send it replaces goes.
      setEditing(null);
      await api.deleteMessage(contextId, editing.messageId).catch(reportError);
    }
  };
  useEffect(() => setEditing(null), [contextId]);
  // A conversation opens ready to type in (not on a phone, where the keyboard would cover it).
  useEffect(() => {
    if (!contextId || window.matchMedia?.("(max-width: 600px)").matches) return;
    const timer = window.setTimeout(() => {
      if (document.activeElement === document.body || document.activeElement === null) document.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
    }, 0);
    return () => window.clearTimeout(timer);
  }, [contextId]);
  // Cards read the entries through a ref, so their actions stay the same while messages stream.
  const entries = useRef(conv.state.entries);
  entries.current = conv.state.entries;
  const editFailed = useCallback((m: Message) => {
    const loaded = entries.current.flatMap((e) => (e.message ? [e.message] : []));
    setEditing(editedSend(m, loaded));
  }, []);
  const interrupt = () => {
    if (contextId) api.interrupt(contextId).catch(reportError);
  };
  const resume = () => {
    if (contextId) api.resume(contextId).catch(reportError);
  };
  const switchBranch = async (name: string) => {
    if (!contextId) return;
    try {
      await api.activateBranch(contextId, name);
      refreshContext();
      conv.branchSwitched();
    } catch (err) {
      reportError(err);
    }
  };
  const searchMessages = useCallback(async (q: string) => (await api.searchMessages(q, 20)).hits, [api]);
  // A found message opens in its conversation, on a branch that shows it, in the full history.
  const openHit = async (hit: MessageSearchHit) => {
    try {
      if (hit.branch) {
        const here = hit.context_id === contextId && summary?.id === contextId ? summary : await api.getContext(hit.context_id);
        if (here.active_branch !== hit.branch) {
          await api.activateBranch(hit.context_id, hit.branch);
          if (hit.context_id === contextId) {
            refreshContext();
            conv.branchSwitched();
          }
        }
      }
    } catch (err) {
      reportError(err);
      return;
    }
    setView("full");
    setReveal(hit.message_id);
    open(hit.context_id);
  };
  const createBranch = async (req: CreateBranchRequest) => {
    if (!contextId) return;
    await api.createBranch(contextId, req);
    await switchBranch(req.name);
  };
  const branchHere: BranchHere | null = useMemo(
    () =>
      branchFromId === null
        ? null
        : {
            messageId: branchFromId,
            defaultName: freeBranchName("branch", branches?.branches.map((b) => b.name) ?? []),
            create: async (name: string, systemPrompt: string | undefined) => {
              await createBranch({ name, from_message: branchFromId, ...(systemPrompt ? { system_prompt: systemPrompt } : {}) });
              setBranchFromId(null);
            },
            cancel: () => setBranchFromId(null),
          },
    // createBranch is remade each render; the form only needs it when submitted.
    [branchFromId, branches, contextId],
  );
  const loadBranchMessages = useCallback(
    async (branch: string) => {
      if (!contextId) return [];
      return (await api.listMessages(contextId, { branch, limit: 1000 })).messages;
    },
    [api, contextId],
  );
  // The branch map reads every message of each branch, page by page.
  const loadAllBranchMessages = useCallback(
    async (branch: string) => {
      if (!contextId) return [];
      const out: Message[] = [];
      let after: string | undefined;
      for (let page = 0; page < 100; page++) {
        const list = await api.listMessages(contextId, { branch, view: "full", limit: 1000, ...(after ? { after } : {}) });
        out.push(...list.messages);
        if (!list.next_after) break;
        after = list.next_after;
      }
      return out;
    },
    [api, contextId],
  );
  const mergeBranch = useCallback(
    (source: string, request: MergeRequest) => {
      if (!contextId) return Promise.reject(new Error("no conversation is open"));
      return api.mergeBranch(contextId, source, request);
    },
    [api, contextId],
  );
  const merged = () => {
    setMerging(false);
    setMergeSource(undefined);
    refreshContext();
    conv.branchSwitched();
  };
  const deleteBranch = async (name: string) => {
    if (!contextId) return;
    try {
      await api.deleteBranch(contextId, name);
      refreshContext();
    } catch (err) {
      reportError(err);
    }
  };
  const saveSettings = async (changes: Partial<ContextConfig>) => {
    if (!contextId) return;
    const c = await api.updateContext(contextId, { config: changes });
    setSummary(c);
  };
  const setMode = async (mode: Mode) => {
    if (!contextId) return;
    await api.setMode(contextId, { mode });
    refreshContext();
  };
  const addResource = (r: McpResourceInfo) => {
    if (!contextId) return;
    api
      .sendMessage(contextId, { payload: { type: "mcp_resource", server_name: r.server_name, resource_uri: r.uri } })
      .catch(reportError);
  };

  /** Activates a branch, throwing on failure (edit and regenerate report it in place). */
  const activate = async (name: string) => {
    if (!contextId) return;
    await api.activateBranch(contextId, name);
    refreshContext();
    conv.branchSwitched();
  };
  // Edit and regenerate: a new branch from just before the message, made active, where the
  // (edited) text is sent again. The original stays on its branch, reachable by the arrows.
  // The new branch keeps the active branch's system prompt and pipeline, as a version of it.
  const branchBefore = async (prefix: string, messageId: string) => {
    if (!contextId) return;
    const list = await api.listBranches(contextId);
    const from = list.branches.find((b) => b.name === list.active);
    const name = freeBranchName(prefix, list.branches.map((b) => b.name));
    await api.createBranch(contextId, {
      name,
      before_message: messageId,
      ...(from?.system_prompt ? { system_prompt: from.system_prompt } : {}),
      ...(from?.pipeline ? { pipeline: from.pipeline } : {}),
    });
    await activate(name);
  };
  const sendInstead = async (prefix: string, messageId: string, text: string) => {
    if (!contextId) return;
    await branchBefore(prefix, messageId);
    await api.sendMessage(contextId, { payload: { type: "text", text } });
  };
  const editAndSend = (messageId: string, text: string) => sendInstead("edit", messageId, text);
  // Regenerate: a new branch from just before the reply the answer belongs to (the first
  // message after its question), where the model answers the same question again. The question
  // is not sent again, so the answers are versions of one another with their own arrows.
  const regenerate = async (answerId: string) => {
    if (!contextId) return;
    const list = entries.current;
    const at = list.findIndex((e) => e.id === answerId);
    let questionAt = -1;
    for (let i = at - 1; i >= 0; i--) {
      const m = list[i]!.message;
      if (list[i]!.role === "user" && m?.kind === "text") {
        questionAt = i;
        break;
      }
    }
    const replyStart = questionAt >= 0 ? list.slice(questionAt + 1).find((e) => e.message !== undefined && e.role !== "user") : undefined;
    if (!replyStart) {
      reportError(new Error("There is no question before this answer to answer again"));
      return;
    }
    try {
      await branchBefore("regenerate", replyStart.id);
      await api.resume(contextId);
    } catch (err) {
      reportError(err);
    }
  };
  // The versions where branches diverge, read again when the branches or the shown history
  // change (not on each streamed piece).
  let lastLoaded = conv.state.entries.length - 1;
  while (lastLoaded >= 0 && conv.state.entries[lastLoaded]!.message === undefined) lastLoaded--;
  const historyKey = `${conv.state.entries.length}:${lastLoaded >= 0 ? conv.state.entries[lastLoaded]!.id : ""}`;
  useEffect(() => {
    if (!contextId || !branches || branches.branches.length < 2) {
      setVersions(new Map());
      return;
    }
    let current = true;
    findVersions(branches, entries.current, firstAfterFrom(api, contextId), conv.state.older === undefined).then(
      (v) => current && setVersions(v),
      (err: unknown) => console.warn("braid: versions could not be read", err),
    );
    return () => {
      current = false;
    };
  }, [api, contextId, branches, historyKey, conv.state.older]);
  useEffect(() => setEditingId(null), [contextId, branches?.active]);
  const branching: Branching = {
    versions,
    editingId,
    setEditingId,
    editAndSend,
    regenerate,
    switchTo: (name) => void switchBranch(name),
    busy: isBusy(conv.state.state),
  };
  keys.current = {
    overlay: panel !== "none" || navOpen,
    busy: contextId !== null && isBusy(conv.state.state),
    interrupt,
    editLast: () => {
      const list = entries.current;
      for (let i = list.length - 1; i >= 0; i--) {
        const m = list[i]!.message;
        if (list[i]!.role === "user" && m?.kind === "text" && m.status === "complete" && !isPlanExecution(m)) {
          setEditingId(m.id);
          return true;
        }
      }
      return false;
    },
  };

  // Compared as text, so the cards re-render when the offered rules change, not on every state.
  const offeredJson = conv.state.state.type === "awaiting_tool_approval" ? JSON.stringify(conv.state.state.offered_rules ?? []) : "[]";
  const actions: CardActions | null = useMemo(
    () => (contextId ? { api, contextId, reportError, branchFrom: setBranchFromId, editFailed, offeredRules: JSON.parse(offeredJson) as OfferedRule[] } : null),
    [api, contextId, reportError, editFailed, offeredJson],
  );
  const messageOptions = useMemo(() => ({ onShowFullHistory: () => setView("full") }), []);
  // One card per tool call: results show inside their call's card, not as entries of their own.
  const tooling = useListPairing(conv.state.entries);
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
  const pathSuggestions = useMemo(() => {
    const paths = new Set<string>(workspaceFiles);
    for (const e of conv.state.entries) {
      const m = e.message;
      if (m?.kind === "file_reference") paths.add(m.data.path);
      if (m?.kind === "project_structure") workspacePaths(m.data).forEach((p) => paths.add(p));
    }
    return [...paths].sort();
  }, [conv.state.entries, workspaceFiles]);

  return (
    <div className={`app ${navOpen ? "nav-open" : ""} ${panel !== "none" ? "panel-open" : ""} ${moreOpen ? "more-open" : ""} ${branchesOpen ? "branches-open" : ""}`}>
      <Header
        summary={summary}
        navOpen={navOpen}
        onToggleNav={() => setNavOpen((o) => !o)}
        moreOpen={moreOpen}
        onToggleMore={() => setMoreOpen((o) => !o)}
        onChosen={() => setMoreOpen(false)}
        onWorkspace={() => setPanel("settings")}
      >
        {contextId && branches && (
          <button type="button" className="btn branches-toggle" aria-pressed={branchesOpen} onClick={() => setBranchesOpen((o) => !o)}>
            Branches ({branches.active})
          </button>
        )}
        {contextId && (
          <label className="toggle">
            <input type="checkbox" checked={view === "full"} onChange={(e) => setView(e.target.checked ? "full" : "optimized")} />
            Full history
          </label>
        )}
        {contextId && branches && (
          <button type="button" className="btn" onClick={() => setMapOpen(true)}>
            Branch map
          </button>
        )}
        {contextId && (
          <button type="button" className="btn" aria-pressed={panel === "settings"} onClick={() => setPanel((p) => (p === "settings" ? "none" : "settings"))}>
            Settings
          </button>
        )}
        <button type="button" className="btn" aria-pressed={panel === "mcp"} onClick={() => setPanel((p) => (p === "mcp" ? "none" : "mcp"))}>
          MCP
        </button>
        <button type="button" className="btn" onClick={nextTheme} title="Colour theme: follow the system, dark or light">
          Theme: {theme === "system" ? "System" : theme === "dark" ? "Dark" : "Light"}
        </button>
        <button type="button" className="btn btn-icon" aria-label="Keyboard shortcuts" onClick={() => setHelpOpen(true)}>
          ?
        </button>
      </Header>
      {helpOpen && <ShortcutsDialog onClose={() => setHelpOpen(false)} />}
      {mapOpen && branches && contextId && (
        <BranchMap
          branches={branches}
          loadMessages={loadAllBranchMessages}
          onSwitch={(n) => void switchBranch(n)}
          onMerge={(source) => {
            setMapOpen(false);
            setMergeSource(source);
            setMerging(true);
          }}
          onClose={() => setMapOpen(false)}
        />
      )}
      <Sidebar
        contexts={contexts}
        activeId={contextId}
        onOpen={open}
        onCreate={(t) => void create(t)}
        onRename={(id, t) => void rename(id, t)}
        onDelete={(id) => void remove(id)}
        searchMessages={searchMessages}
        onOpenMessage={(hit) => void openHit(hit)}
      />
      <main className="conversation" aria-label="Conversation">
        {!contextId || !actions ? (
          <div className="empty">
            <p>Open a conversation on the left, or start a new one.</p>
            <button type="button" className="btn btn-primary" onClick={() => void create(undefined)}>New conversation</button>
          </div>
        ) : (
          <CardActionsProvider value={actions}>
            <ToolPairingProvider value={tooling.pairing}>
            <FollowProvider value={scroll.follow}>
            <BranchingProvider value={branching}>
            <BranchHereProvider value={branchHere}>
            <BranchSwitcher
              branches={branches}
              onSwitch={(n) => void switchBranch(n)}
              onCreate={createBranch}
              fromMessage={null}
              onCancelFrom={() => setBranchFromId(null)}
              onDelete={(n) => void deleteBranch(n)}
              onMerge={() => setMerging(true)}
            />
            <PinnedFacts entries={conv.state.entries} {...(summary?.id === contextId ? { pinnedIds: summary.pinned } : {})} />
            {merging && branches && (
              <MergeDialog
                branches={branches}
                {...(mergeSource ? { initialSource: mergeSource } : {})}
                loadMessages={loadBranchMessages}
                merge={mergeBranch}
                onMerged={merged}
                onClose={() => {
                  setMerging(false);
                  setMergeSource(undefined);
                }}
              />
            )}
            <ol
              className="messages"
              aria-label="Messages"
              ref={list}
              onScroll={scroll.onScroll}
            >
              <MessageWindow
                key={contextId}
                entries={tooling.visible}
                options={messageOptions}
                list={list}
                markers={view === "optimized" ? conv.state.markers : []}
                onOpenFull={(at) => {
                  setView("full");
                  setReveal(at);
                }}
                reveal={view === "full" ? reveal : null}
                onRevealed={() => setReveal(null)}
                older={conv.state.older !== undefined}
                onLoadEarlier={conv.loadEarlier}
                onLoadAll={conv.loadAll}
              />
              {summary?.id === contextId && summary.message_count === 0 && conv.state.entries.length === 0 && (
                <EmptyConversation
                  workspace={summary.config.workspace}
                  onPick={(text) => void send([{ payload: { type: "text", text } }]).catch(() => {})}
                  onSettings={() => setPanel("settings")}
                />
              )}
              <TurnFailure conversation={conv.state} onResume={resume} />
            </ol>
            <LatestButton shown={scroll.behind} onClick={scroll.toLatest} />
            <WorkflowRunBar entries={conv.state.entries} />
            <StatusBar
              conversation={conv.state}
              onResume={resume}
              onDismiss={(index) => conv.dispatch({ type: "error_dismissed", index })}
              onJump={jump}
              capabilities={summary?.capabilities}
              showFailure={false}
            />
            {elicitations.map((q) => (
              <ElicitationCard key={q.id} question={q} onReply={(action, content) => replyElicitation(q.id, action, content)} />
            ))}
            <Composer
              busy={isBusy(conv.state.state)}
              onSend={send}
              onInterrupt={interrupt}
              pathSuggestions={pathSuggestions}
              editing={editing}
              onCancelEdit={() => setEditing(null)}
              prompts={prompts}
              onPrompt={promptText}
              workflows={workflows}
              onRunWorkflow={runWorkflow}
              onMenuOpen={refreshWorkflows}
            />
            </BranchHereProvider>
            </BranchingProvider>
            </FollowProvider>
            </ToolPairingProvider>
          </CardActionsProvider>
        )}
        {!contextId && conv.state.errors.length > 0 && (
          <StatusBar conversation={conv.state} onResume={resume} onDismiss={(index) => conv.dispatch({ type: "error_dismissed", index })} />
        )}
      </main>
      {panel !== "none" && (
        <aside className="side-panel">
          <button type="button" className="btn btn-icon close-panel" aria-label="Close panel" onClick={() => setPanel("none")}>×</button>
          {panel === "settings" && summary && <SettingsPanel config={summary.config} onSave={saveSettings} onMode={setMode} workspaceRoots={workspaceRoots} instructions={summary.instructions} capabilities={summary.capabilities} models={models} />}
          {panel === "mcp" && (
            <McpPanel
              servers={servers}
              resources={resources}
              tools={tools}
              onReload={() => api.reloadMcpServers().then(refreshMcp, reportError)}
              {...(contextId ? { onAddResource: addResource } : {})}
              editing={mcpEditing}
              {...(mcpEditing === "editable"
                ? {
                    onAddServer: async (name: string, server: McpServerDefinition) => showServers(await api.addMcpServer(name, server)),
                    onReplaceServer: async (name: string, server: McpServerDefinition) => showServers(await api.replaceMcpServer(name, server)),
                    onRemoveServer: async (name: string) => showServers(await api.removeMcpServer(name)),
                  }
                : {})}
              {...(contextId && summary
                ? {
                    switches: {
                      disabledServers: summary.config.disabled_mcp_servers ?? [],
                      disabledTools: summary.config.disabled_mcp_tools ?? [],
                      onChange: saveSettings,
                    },
                  }
                : {})}
            />
          )}
        </aside>
      )}
    </div>
  );
}
