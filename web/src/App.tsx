// The application shell: sidebar of contexts, the conversation with its live state, the
// composer, branches, settings and MCP panels. Everything here is layout and wiring: each action
// is one API call; the conversation comes from its reducer (useConversation), the shell's own
// state (panels, dialogs, editing) from shellReducer, the rest from the hooks in app/.

import { useCallback, useEffect, useMemo, useReducer, useRef } from "react";
import type { ApiClient } from "./api/client";
import type { ContextConfig, McpResourceInfo, Message, MessageSearchHit, Mode, OfferedRule, SendMessageRequest } from "./generated/protocol";
import { navigate, useRoute } from "./router";
import { useConversation } from "./conversation/useConversation";
import { isBusy } from "./conversation/reducer";
import { CardActionsProvider, type CardActions } from "./messages/actions";
import { ToolPairingProvider, useListPairing } from "./messages/toolcards/pairing";
import { FollowProvider, LatestButton, useFollowList } from "./ui/scroll/follow";
import { MessageList } from "./components/MessageList";
import { isPlanExecution } from "./messages/MessageView";
import { useHistoryView } from "./conversation/historyView";
import { Sidebar } from "./components/Sidebar";
import { StatusBar } from "./components/StatusBar";
import { Composer, editedSend } from "./components/Composer";
import { ElicitationCard } from "./messages/ElicitationCard";
import { BranchSwitcher } from "./components/BranchSwitcher";
import { MergeDialog } from "./components/MergeDialog";
import { PinnedFacts } from "./messages/PinnedFacts";
import { workspacePaths } from "./messages/ContentCards";
import { BranchingProvider, type Branching } from "./branches/branching";
import { freeBranchName } from "./branches/versions";
import { ShortcutsDialog } from "./components/ShortcutsDialog";
import { BranchMap } from "./branches/BranchMap";
import { useTheme } from "./theme";
import { BranchHereProvider, type BranchHere } from "./messages/BranchHere";
import { Header } from "./components/Header";
import { HeaderActions } from "./components/HeaderActions";
import { SidePanel } from "./components/SidePanel";
import { WorkflowRunBar } from "./components/WorkflowRunBar";
import { useMcpState } from "./app/useMcpState";
import { useComposerMenus, useElicitations } from "./app/useComposerMenus";
import { initialShell, overlayOpen, shellReducer } from "./app/shellState";
import { useShortcuts } from "./app/useShortcuts";
import { newestModeChange, useContextData } from "./app/useContextData";
import { useBranchActions } from "./app/useBranchActions";

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
  const [shell, dispatch] = useReducer(shellReducer, initialShell);
  const { panel, navOpen, moreOpen, branchesOpen, branchFromId, merge, helpOpen, mapOpen, editing, editingId, reveal } = shell;
  const [view, setView] = useHistoryView();
  const conv = useConversation(api, contextId, undefined, view);
  const { reportError } = conv;
  const modeChange = useMemo(() => newestModeChange(conv.state.entries), [conv.state.entries]);
  const data = useContextData(api, contextId, panel === "settings", conv.state.settled, reportError, modeChange);
  const { contexts, setContexts, summary, setSummary, branches, refreshContext, models, workspaceRoots, workspaceFiles } = data;
  const mcp = useMcpState(api, panel === "mcp", reportError);
  const turnRunning = contextId !== null && isBusy(conv.state.state);
  const { elicitations, replyElicitation } = useElicitations(api, turnRunning);
  const { prompts, workflows, refreshWorkflows, runWorkflow, promptText } = useComposerMenus(api, contextId);
  const [theme, nextTheme] = useTheme();

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
    dispatch({ type: "nav", open: false });
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
      dispatch({ type: "editing", editing: null });
      await api.deleteMessage(contextId, editing.messageId).catch(reportError);
    }
  };
  useEffect(() => dispatch({ type: "editing", editing: null }), [contextId]);
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
    dispatch({ type: "editing", editing: editedSend(m, loaded) });
  }, []);
  const interrupt = () => {
    if (contextId) api.interrupt(contextId).catch(reportError);
  };
  const resume = () => {
    if (contextId) api.resume(contextId).catch(reportError);
  };
  const branchOps = useBranchActions(api, contextId, branches, conv, entries, refreshContext);
  const { switchBranch, createBranch } = branchOps;
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
    dispatch({ type: "reveal", id: hit.message_id });
    open(hit.context_id);
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
              dispatch({ type: "branch_from", messageId: null });
            },
            cancel: () => dispatch({ type: "branch_from", messageId: null }),
          },
    // createBranch is remade each render; the form only needs it when submitted.
    [branchFromId, branches, contextId],
  );
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
  useEffect(() => dispatch({ type: "editing_id", id: null }), [contextId, branches?.active]);
  const branching: Branching = {
    versions: branchOps.versions,
    editingId,
    setEditingId: (id) => dispatch({ type: "editing_id", id }),
    editAndSend: branchOps.editAndSend,
    regenerate: branchOps.regenerate,
    switchTo: (name) => void switchBranch(name),
    busy: isBusy(conv.state.state),
  };
  useShortcuts(
    {
      overlay: overlayOpen(shell),
      busy: contextId !== null && isBusy(conv.state.state),
      interrupt,
      editLast: () => {
        const list = entries.current;
        for (let i = list.length - 1; i >= 0; i--) {
          const m = list[i]!.message;
          if (list[i]!.role === "user" && m?.kind === "text" && m.status === "complete" && !isPlanExecution(m)) {
            dispatch({ type: "editing_id", id: m.id });
            return true;
          }
        }
        return false;
      },
    },
    dispatch,
  );

  // Compared as text, so the cards re-render when the offered rules change, not on every state.
  const offeredJson = conv.state.state.type === "awaiting_tool_approval" ? JSON.stringify(conv.state.state.offered_rules ?? []) : "[]";
  const branchFrom = useCallback((id: string) => dispatch({ type: "branch_from", messageId: id }), []);
  const actions: CardActions | null = useMemo(
    () => (contextId ? { api, contextId, reportError, branchFrom, editFailed, offeredRules: JSON.parse(offeredJson) as OfferedRule[] } : null),
    [api, contextId, reportError, branchFrom, editFailed, offeredJson],
  );
  const messageOptions = useMemo(() => ({ onShowFullHistory: () => setView("full") }), []);
  // One card per tool call: results show inside their call's card, not as entries of their own.
  const tooling = useListPairing(conv.state.entries);
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
        onToggleNav={() => dispatch({ type: "toggle_nav" })}
        moreOpen={moreOpen}
        onToggleMore={() => dispatch({ type: "toggle_more" })}
        onChosen={() => dispatch({ type: "close_more" })}
        onWorkspace={() => dispatch({ type: "panel", panel: "settings" })}
      >
        <HeaderActions
          open={contextId !== null}
          activeBranch={branches?.active}
          branchesOpen={branchesOpen}
          onToggleBranches={() => dispatch({ type: "toggle_branches" })}
          view={view}
          onView={setView}
          onBranchMap={() => dispatch({ type: "map", open: true })}
          settingsOpen={panel === "settings"}
          onToggleSettings={() => dispatch({ type: "toggle_panel", panel: "settings" })}
          mcpOpen={panel === "mcp"}
          onToggleMcp={() => dispatch({ type: "toggle_panel", panel: "mcp" })}
          theme={theme}
          onNextTheme={nextTheme}
          onHelp={() => dispatch({ type: "help", open: true })}
        />
      </Header>
      {helpOpen && <ShortcutsDialog onClose={() => dispatch({ type: "help", open: false })} />}
      {mapOpen && branches && contextId && (
        <BranchMap
          branches={branches}
          loadMessages={branchOps.loadAllBranchMessages}
          onSwitch={(n) => void switchBranch(n)}
          onMerge={(source) => {
            dispatch({ type: "map", open: false });
            dispatch({ type: "merge_open", source });
          }}
          onClose={() => dispatch({ type: "map", open: false })}
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
              onCancelFrom={() => dispatch({ type: "branch_from", messageId: null })}
              onDelete={(n) => void branchOps.deleteBranch(n)}
              onMerge={() => dispatch({ type: "merge_open" })}
            />
            <PinnedFacts entries={conv.state.entries} {...(summary?.id === contextId ? { pinnedIds: summary.pinned } : {})} />
            {merge.open && branches && (
              <MergeDialog
                branches={branches}
                {...(merge.source ? { initialSource: merge.source } : {})}
                loadMessages={branchOps.loadBranchMessages}
                merge={branchOps.mergeBranch}
                onMerged={() => {
                  dispatch({ type: "merge_closed" });
                  branchOps.afterMerge();
                }}
                onClose={() => dispatch({ type: "merge_closed" })}
              />
            )}
            <MessageList
              list={list}
              onScroll={scroll.onScroll}
              contextId={contextId}
              conversation={conv.state}
              entries={tooling.visible}
              options={messageOptions}
              view={view}
              onOpenFull={(at) => {
                setView("full");
                dispatch({ type: "reveal", id: at });
              }}
              reveal={reveal}
              onRevealed={() => dispatch({ type: "reveal", id: null })}
              onLoadEarlier={conv.loadEarlier}
              onLoadAll={conv.loadAll}
              empty={summary?.id === contextId && summary.message_count === 0 ? { workspace: summary.config.workspace } : null}
              onPick={(text) => void send([{ payload: { type: "text", text } }]).catch(() => {})}
              onSettings={() => dispatch({ type: "panel", panel: "settings" })}
              onResume={resume}
            />
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
              onCancelEdit={() => dispatch({ type: "editing", editing: null })}
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
        <SidePanel
          panel={panel}
          onClose={() => dispatch({ type: "panel", panel: "none" })}
          api={api}
          summary={summary}
          contextOpen={contextId !== null}
          onSaveSettings={saveSettings}
          onMode={setMode}
          workspaceRoots={workspaceRoots}
          models={models}
          mcp={mcp}
          onAddResource={addResource}
          reportError={reportError}
        />
      )}
    </div>
  );
}
