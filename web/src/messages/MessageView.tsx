// One message in the conversation: its header (role, status, "branch from here") and the card
// for its kind. Any kind this build does not know, or data that breaks a card, falls back to text.

import { Component, memo, useState, type ReactNode } from "react";
import type { KindName, Message } from "../generated/protocol";
import { visibleText, type Entry } from "../conversation/reducer";
import { useCardActions } from "./actions";
import { BranchHereForm } from "./BranchHere";
import { TextCard } from "./TextCard";
import { McpToolRequestCard, McpToolResultCard, ToolRequestCard, ToolResultCard } from "./ToolCards";
import { PlanCard } from "./PlanCard";
import { QuestionCard } from "./QuestionCard";
import { FileReferenceCard, ImageCard, McpResourceCard, ProjectStructureCard } from "./ContentCards";
import { ProcessingNote, SystemControlDivider, WorkflowCard } from "./NoticeCards";
import { UnknownCard } from "./UnknownCard";
import { EditBox, MessageToolbar, isPinned } from "./MessageToolbar";
import { useBranching } from "../branches/branching";

/** Kinds this build renders with their own card (`unknown` goes to the fallback). */
export const KNOWN_KINDS: ReadonlySet<string> = new Set<KindName>([
  "text",
  "image",
  "file_reference",
  "project_structure",
  "tool_request",
  "tool_result",
  "mcp_tool_request",
  "mcp_tool_result",
  "mcp_resource",
  "workflow_execution",
  "system_control",
  "processing",
  "plan",
  "question",
]);

/** Where a summary merge's marked message came from (`metadata.merged_from`). */
export function mergedFrom(message: Message): { branch: string; count: number } | null {
  const from = message.metadata?.merged_from as { branch?: unknown; count?: unknown } | undefined;
  if (!from || typeof from.branch !== "string") return null;
  return { branch: from.branch, count: typeof from.count === "number" ? from.count : 0 };
}

/** The link from a summary merge's marked message back to its branch. */
function MergedFromLink({ message }: { message: Message }) {
  const branching = useBranching();
  const from = mergedFrom(message);
  if (!from) return null;
  return (
    <span className="merged-from">
      <span className="badge">
        conclusions of {from.branch} · {from.count} message{from.count === 1 ? "" : "s"}
      </span>
      {branching && (
        <button type="button" className="btn btn-link" disabled={branching.busy} onClick={() => branching.switchTo(from.branch)}>
          Open branch {from.branch}
        </button>
      )}
    </span>
  );
}

/** Options that come from the conversation around a message. */
export interface MessageViewOptions {
  /** Switches the view to the full history (offered by a summary marker). */
  onShowFullHistory?: () => void;
}

/** The card for a loaded message. */
function KindCard({ entry, message, options }: { entry: Entry; message: Message; options: MessageViewOptions }) {
  switch (message.kind) {
    case "text": {
      const streaming = entry.status === "streaming" && !entry.final;
      const text = visibleText(entry);
      const reasoning = message.data.parts.filter((p) => p.type === "reasoning");
      // The person's long pastes start folded; the model's answers never do.
      return <TextCard parts={[...reasoning, { type: "text", text }]} streaming={streaming} collapseLong={entry.role === "user"} />;
    }
    case "image":
      return <ImageCard id={message.id} data={message.data} />;
    case "file_reference":
      return <FileReferenceCard data={message.data} />;
    case "project_structure":
      return <ProjectStructureCard data={message.data} />;
    case "tool_request":
      return <ToolRequestCard calls={message.data.calls} />;
    case "tool_result":
      return <ToolResultCard data={message.data} />;
    case "mcp_tool_request":
      return <McpToolRequestCard data={message.data} />;
    case "mcp_tool_result":
      return <McpToolResultCard data={message.data} />;
    case "mcp_resource":
      return <McpResourceCard data={message.data} />;
    case "workflow_execution":
      return <WorkflowCard data={message.data} />;
    case "system_control":
      return <SystemControlDivider data={message.data} message={message} {...options} />;
    case "processing":
      return <ProcessingNote data={message.data} />;
    case "plan":
      return <PlanCard id={message.id} plan={message.data} />;
    case "question":
      return <QuestionCard id={message.id} question={message.data} />;
    default: {
      const raw = message as unknown as { kind: unknown; data: unknown };
      return <UnknownCard id={entry.id} kind={String(raw.kind)} data={raw.data} />;
    }
  }
}

/** Catches a card that throws on malformed data and shows the message as text instead. */
class CardBoundary extends Component<{ entry: Entry; children: ReactNode }, { failed: string | null }> {
  override state = { failed: null as string | null };
  static getDerivedStateFromError(err: unknown) {
    return { failed: err instanceof Error ? err.message : String(err) };
  }
  override render() {
    if (this.state.failed !== null) {
      const raw = this.props.entry.message as unknown as { data?: unknown } | undefined;
      return (
        <UnknownCard
          id={this.props.entry.id}
          kind={this.props.entry.kind}
          data={raw?.data}
          reason={`data its "${this.props.entry.kind}" card cannot show (${this.state.failed})`}
        />
      );
    }
    return this.props.children;
  }
}

/**
 * The person's input whose pipeline failed: the error, Retry (runs the send's pipeline again)
 * and Edit (puts it back into the composer). Input still waiting says so.
 */
function InputStatus({ entry }: { entry: Entry }) {
  const { api, contextId, reportError, editFailed } = useCardActions();
  const [busy, setBusy] = useState(false);
  if (entry.role === "assistant") return null;
  if (entry.status === "pending") {
    return <div className="input-status muted">Queued: waits for its turn…</div>;
  }
  const message = entry.message;
  if (entry.status !== "failed" || !message) return null;
  // An image whose recognition failed shows its error and Retry in its own card.
  if (message.kind === "image" && message.data.error) return null;
  const retry = async () => {
    setBusy(true);
    try {
      await api.retryMessage(contextId, message.id);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="input-status input-failed">
      <div role="alert">Not sent: {message.error?.message ?? "processing failed"}</div>
      <div className="input-actions">
        <button type="button" className="btn" disabled={busy} onClick={() => void retry()}>
          Retry
        </button>
        {editFailed && (message.kind === "text" || message.kind === "file_reference") && (
          <button type="button" className="btn" disabled={busy} onClick={() => editFailed(message)}>
            Edit
          </button>
        )}
      </div>
    </div>
  );
}

const NOTICE_KINDS = new Set(["system_control", "processing"]);
const NO_OPTIONS: MessageViewOptions = {};

/**
 * One message: header and card. Memoized: the reducer keeps unchanged entries identical, so a
 * streamed chunk re-renders only the message it belongs to, not the whole history.
 */
export const MessageView = memo(function MessageView({ entry, options = NO_OPTIONS }: { entry: Entry; options?: MessageViewOptions }) {
  const { branchFrom } = useCardActions();
  const editing = useBranching()?.editingId === entry.id;
  const [actionsShown, setActionsShown] = useState(false);
  // A branch switch is the person moving around, not part of the conversation: the branch map
  // shows that history.
  if (entry.message?.kind === "system_control" && entry.message.data.type === "branch_switch") return null;
  let body: ReactNode;
  if (entry.message) {
    body = KNOWN_KINDS.has(entry.kind) ? (
      <KindCard entry={entry} message={entry.message} options={options} />
    ) : (
      <UnknownCard id={entry.id} kind={entry.kind} data={(entry.message as unknown as { data?: unknown }).data} />
    );
  } else if (entry.kind === "text" || entry.streamed !== "") {
    body = <TextCard parts={[{ type: "text", text: entry.streamed }]} streaming={!entry.final} />;
  } else {
    body = <div className="card muted">Loading {entry.kind.replace(/_/g, " ")}…</div>;
  }
  // Executing a plan from its card is a step of the run, not something the person typed: the
  // text the server sent the model for it stays behind a disclosure.
  if (entry.message && isPlanExecution(entry.message)) {
    return (
      <li className="message notice" data-kind="plan_execution" data-id={entry.id}>
        <PlanExecutionNotice message={entry.message} />
      </li>
    );
  }
  if (NOTICE_KINDS.has(entry.kind) && entry.message) {
    return (
      <li className="message notice" data-kind={entry.kind} data-id={entry.id}>
        <CardBoundary entry={entry}>{body}</CardBoundary>
      </li>
    );
  }
  return (
    <li
      className={`message role-${entry.role}${actionsShown ? " show-actions" : ""}`}
      data-kind={entry.kind}
      data-id={entry.id}
      aria-label={`${entry.role} message`}
      onClick={(e) => {
        // On a phone a tap on the message shows its actions; a tap on a control is the control's.
        if (!(e.target instanceof Element) || e.target.closest("button, a, input, textarea, select, summary, label")) return;
        setActionsShown((shown) => !shown);
      }}
    >
      <div className="message-head">
        <span className="role">{entry.role}</span>
        {entry.status !== "complete" && <span className={`badge status-${entry.status}`}>{entry.status}</span>}
        {entry.message && <MergedFromLink message={entry.message} />}
        {entry.message && isPinned(entry.message) && (
          <span className="badge pinned" title="Pinned: never dropped or summarized to fit the window">
            pinned
          </span>
        )}
        {branchFrom && entry.message && (
          <button type="button" className="btn btn-link branch-here" onClick={() => branchFrom(entry.id)}>
            Branch from here
          </button>
        )}
      </div>
      {editing ? <EditBox entry={entry} /> : <CardBoundary entry={entry}>{body}</CardBoundary>}
      <InputStatus entry={entry} />
      <MessageToolbar entry={entry} />
      <BranchHereForm messageId={entry.id} />
    </li>
  );
});

/** Whether `m` is the message the server stores when a plan is executed from its card. */
export function isPlanExecution(m: Message): boolean {
  return m.role === "user" && m.kind === "text" && typeof m.metadata?.plan_id === "string" && m.metadata?.plan_action === "execute";
}

/** "Plan execution started", with what the model was sent for it. */
function PlanExecutionNotice({ message }: { message: Message }) {
  const text = message.kind === "text" ? message.data.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") : "";
  return (
    <div className="divider plan-execution" role="note">
      <span>Plan execution started</span>
      <details>
        <summary>What the model was asked</summary>
        <pre className="plan-execution-text">{text}</pre>
      </details>
    </div>
  );
}
