// One tool call as one card: what it will do, its approval (by button or by key: y, n, a), and
// its result once it ran, with the raw JSON one click away.

import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { ApprovalStatus, CommandRule, Decision } from "../../generated/protocol";
import { useCardActions } from "../actions";
import { JsonBlock, formatDuration } from "../json";
import { Icon } from "../../ui/Icon";
import { useFollow } from "../../ui/scroll/follow";
import { FilePreview, useFilePreview } from "./FilePreview";
import { CallPreview, ToolErrorView, ToolOutputView, callSummary } from "./outputs";
import { riskOf } from "./risk";
import type { AnyToolResult } from "./pairing";
import "./toolcards.css";

/** The words of each decision on its button. */
export const DECISION_WORDS: Record<Decision, string> = {
  approve: "Approve",
  deny: "Deny",
  approve_for_session: "Approve for this session",
};

/** The key that takes each decision on a focused pending call. */
export const DECISION_KEYS: Record<string, Decision | "deny_with_note"> = {
  y: "approve",
  a: "approve_for_session",
  n: "deny_with_note",
};

/** Why a `run_command` call asks to run outside the sandbox, when it does. */
export function outsideSandbox(name: string, args: unknown): string | null {
  if (name !== "run_command" || typeof args !== "object" || args === null) return null;
  const why = (args as { outside_sandbox?: unknown }).outside_sandbox;
  return typeof why === "string" ? why : null;
}

/** A command rule as it reads: the program and the arguments it starts with. */
export function commandRuleText(rule: CommandRule): string {
  return [rule.program, ...(rule.args_prefix ?? [])].join(" ");
}

/** A call as the card needs it, built-in or MCP. */
export interface CallInfo {
  /** The call id (an MCP request id for MCP calls). */
  id: string;
  /** The tool's name (on its server, for MCP). */
  name: string;
  /** Its arguments. */
  args: unknown;
  /** Its approval. */
  status: ApprovalStatus;
  /** The MCP server that owns the tool; absent for built-in tools. */
  server?: string | undefined;
}

/** Whether the person is typing somewhere, so a new approval must not take the focus away. */
function typingElsewhere(): boolean {
  const el = document.activeElement;
  return (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) && el.value !== "";
}

function McpOutput({ result }: { result: unknown }) {
  const blocks = typeof result === "object" && result !== null && Array.isArray((result as { content?: unknown }).content) ? ((result as { content: unknown[] }).content) : null;
  const texts = blocks?.filter((b): b is { type: "text"; text: string } => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string");
  if (!texts || texts.length === 0 || texts.length !== blocks?.length) return <JsonBlock value={result} label="Output" />;
  return <pre className="mcp-text">{texts.map((t) => t.text).join("\n")}</pre>;
}

/**
 * The next call still waiting for a decision after `card` (or, when none follows it, the first
 * before it), so a decision by mouse or key keeps the keyboard on the batch.
 */
function nextWaiting(card: HTMLElement): HTMLElement | null {
  const waiting = Array.from(document.querySelectorAll<HTMLElement>("li.tool-call.pending")).filter((el) => el !== card && el.querySelector("button[aria-pressed=true]") === null);
  const after = waiting.find((el) => card.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  return after ?? waiting[0] ?? null;
}

/** The card of one call. `focusOnArrival` brings a pending call into view and focuses it. */
export function ToolCallCard({ call, result, focusOnArrival = false }: { call: CallInfo; result: AnyToolResult | undefined; focusOnArrival?: boolean }) {
  const { api, contextId, reportError, offeredRules } = useCardActions();
  const [sent, setSent] = useState<Decision | null>(null);
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState("");
  const [raw, setRaw] = useState(false);
  const ref = useRef<HTMLLIElement>(null);
  const noteRef = useRef<HTMLInputElement>(null);
  const pending = call.status === "pending" && !result;
  const mcp = call.server !== undefined;
  const risk = riskOf(call.name, mcp);
  // Leaving the sandbox is approved one call at a time, never for the session.
  const outside = mcp ? null : outsideSandbox(call.name, call.args);
  const offered = outside === null ? offeredRules?.find((o) => o.call_id === call.id)?.rule : undefined;
  const decisions: Decision[] = outside === null ? ["approve", "deny", "approve_for_session"] : ["approve", "deny"];
  const ruleId = `session-rule-${call.id}`;

  const follow = useFollow();
  useEffect(() => {
    // A person who scrolled up to read is not pulled down: the list offers "↓ latest" instead.
    if (!pending || !focusOnArrival || !ref.current || !follow.isFollowing()) return;
    ref.current.scrollIntoView?.({ block: "nearest" });
    if (!typingElsewhere()) ref.current.focus({ preventScroll: true });
  }, [pending, focusOnArrival, follow]);
  useEffect(() => {
    if (noting) noteRef.current?.focus();
  }, [noting]);

  const preview = useFilePreview(api, contextId, call.id, call.name, call.args, pending && !mcp);

  const decide = async (decision: Decision, reason?: string) => {
    setSent(decision);
    setNoting(false);
    const next = ref.current ? nextWaiting(ref.current) : null;
    if (next) {
      next.focus({ preventScroll: true });
      next.scrollIntoView?.({ block: "nearest" });
    }
    try {
      await api.approve(contextId, { decisions: [{ call_id: call.id, decision, ...(reason ? { reason } : {}) }] });
    } catch (err) {
      setSent(null);
      reportError(err);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLLIElement>) => {
    if (!pending || sent || noting || e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = DECISION_KEYS[e.key.toLowerCase()];
    if (!action || (action !== "deny_with_note" && !decisions.includes(action))) return;
    e.preventDefault();
    if (action === "deny_with_note") setNoting(true);
    else void decide(action);
  };

  // A call the person denied ended by their decision: it did not fail.
  const deniedByPerson = result?.status === "error" && result.error?.code === "denied";
  let state: string;
  if (deniedByPerson) state = "denied by you";
  else if (result) state = `${result.status === "success" ? "succeeded" : "failed"} · ${formatDuration(result.duration_ms)}`;
  else if (call.status === "pending") state = sent ? `sent: ${DECISION_WORDS[sent].toLowerCase()}` : "waiting for approval";
  else if (call.status === "approved") state = "running";
  else state = "denied";

  const output = result?.mcp === false ? (result.status === "success" ? result.output : undefined) : result?.result;
  return (
    <li
      ref={ref}
      className={`tool-call risk-${risk} ${pending ? "pending" : ""} ${deniedByPerson ? "denied" : result ? (result.status === "success" ? "ok" : "failed") : call.status}`}
      data-call-id={call.id}
      data-tool={call.name}
      tabIndex={pending ? 0 : -1}
      aria-label={`${call.name} call, ${state}`}
      onKeyDown={onKey}
    >
      <div className="tool-head">
        {mcp ? <Icon name="plug" className="tool-icon mcp-icon" /> : <Icon name="wrench" className="tool-icon" />}
        {mcp && <span className="badge mcp-badge">MCP · {call.server}</span>}
        <strong>{call.name}</strong>
        <code className="call-summary">{callSummary(call.name, call.args)}</code>
        <span className={`badge risk-badge risk-${risk}`} title={`This call ${risk === "read" ? "only reads" : risk === "write" ? "changes files" : risk === "command" ? "runs a program" : "runs on an MCP server"}`}>
          {risk}
        </span>
        {!mcp && <span className="muted">built-in</span>}
        <span className={`call-state ${result?.status === "error" && !deniedByPerson ? "error-text" : "muted"}`}>{state}</span>
        <button type="button" className="btn btn-link raw-toggle" aria-pressed={raw} onClick={() => setRaw((r) => !r)}>
          {raw ? "Hide JSON" : "Raw JSON"}
        </button>
      </div>
      {raw ? (
        <JsonBlock value={{ arguments: call.args, ...(result ? (result.status === "success" ? { output } : { error: result.error }) : {}) }} label={`Raw JSON of ${call.name}`} />
      ) : result?.status === "success" ? (
        mcp ? <McpOutput result={output} /> : <ToolOutputView name={call.name} args={call.args} output={output} diff={preview.type === "ready" ? <FilePreview preview={preview.preview} /> : undefined} />
      ) : (
        <>
          {mcp ? (
            <JsonBlock value={call.args} label={`Arguments of ${call.name}`} />
          ) : preview.type === "ready" ? (
            <FilePreview preview={preview.preview} />
          ) : preview.type === "loading" ? (
            <p className="muted call-effect">Reading the file as it is on disk now…</p>
          ) : (
            <>
              {preview.type === "failed" && <p className="error-text call-effect">The change cannot be previewed against the file on disk: {preview.message}</p>}
              <CallPreview name={call.name} args={call.args} />
            </>
          )}
          {result?.status === "error" && <ToolErrorView name={call.name} args={call.args} error={result.error} />}
        </>
      )}
      {pending && outside !== null && (
        <p className="error-text outside-sandbox" role="note">
          <strong>Runs outside the sandbox</strong>, with Braid's own rights (files, secrets, network): {outside || "no reason given"}
        </p>
      )}
      {pending && (
        <div className="approval" role="group" aria-label={`Approval for ${call.name}`}>
          {decisions.map((d) => (
            <button
              key={d}
              type="button"
              className={`btn ${d === "deny" ? "btn-danger" : "btn-primary"}`}
              disabled={sent !== null}
              aria-pressed={sent === d}
              aria-keyshortcuts={d === "approve" ? "y" : d === "approve_for_session" ? "a" : undefined}
              aria-describedby={d === "approve_for_session" && offered ? ruleId : undefined}
              onClick={() => void decide(d)}
            >
              {d === "approve" && outside !== null ? "Approve outside the sandbox" : DECISION_WORDS[d]}
            </button>
          ))}
          <span className="muted key-hint">
            <kbd>y</kbd> approve · <kbd>n</kbd> deny with a note{outside === null && <> · <kbd>a</kbd> approve for this session</>}
          </span>
          {offered && (
            <p id={ruleId} className="muted session-rule">
              Approve for this session adds the rule <code>{commandRuleText(offered)}</code>: always allow <code>{commandRuleText(offered)}</code> in this conversation.
            </p>
          )}
        </div>
      )}
      {pending && noting && (
        <form
          className="deny-note"
          onSubmit={(e) => {
            e.preventDefault();
            void decide("deny", note.trim() || undefined);
          }}
        >
          <label>
            Note to the model (optional)
            <input
              ref={noteRef}
              value={note}
              onChange={(e) => setNote(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Escape") {
                  setNoting(false);
                  ref.current?.focus();
                }
              }}
            />
          </label>
          <button type="submit" className="btn btn-danger">
            Deny with this note
          </button>
          <button type="button" className="btn" onClick={() => setNoting(false)}>
            Cancel
          </button>
        </form>
      )}
    </li>
  );
}
