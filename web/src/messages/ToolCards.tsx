// Tool calls and their results, built-in and MCP. MCP ones carry their server's name and a plug
// icon so they are never mistaken for built-in tools.

import { useState } from "react";
import type {
  ApprovalStatus,
  Decision,
  McpToolRequestMessage,
  McpToolResultMessage,
  ToolCall,
  ToolResultMessage,
} from "../generated/protocol";
import { useCardActions } from "./actions";
import { JsonBlock, formatDuration } from "./json";
import { Icon } from "../components/Icon";

const DECISION_WORDS: Record<Decision, string> = {
  approve: "Approve",
  deny: "Deny",
  approve_for_session: "Approve for this session",
};

/** The approve / deny / approve-for-session buttons of one pending call. */
function ApprovalButtons({ callId, toolName, status }: { callId: string; toolName: string; status: ApprovalStatus }) {
  const { api, contextId, reportError } = useCardActions();
  const [sent, setSent] = useState<Decision | null>(null);
  if (status !== "pending") {
    return <span className={`badge approval-${status}`}>{status}</span>;
  }
  const decide = async (decision: Decision) => {
    setSent(decision);
    try {
      await api.approve(contextId, { decisions: [{ call_id: callId, decision }] });
    } catch (err) {
      setSent(null);
      reportError(err);
    }
  };
  return (
    <div className="approval" role="group" aria-label={`Approval for ${toolName}`}>
      {(Object.keys(DECISION_WORDS) as Decision[]).map((d) => (
        <button
          key={d}
          type="button"
          className={`btn ${d === "deny" ? "btn-danger" : "btn-primary"}`}
          disabled={sent !== null}
          aria-pressed={sent === d}
          onClick={() => void decide(d)}
        >
          {DECISION_WORDS[d]}
        </button>
      ))}
      {sent && <span className="muted">Sent: {DECISION_WORDS[sent].toLowerCase()}</span>}
    </div>
  );
}

function CallView({ call }: { call: ToolCall }) {
  return (
    <li className="tool-call">
      <div className="tool-head">
        <Icon name="wrench" className="tool-icon" />
        <strong>{call.name}</strong>
        <span className="muted">built-in</span>
      </div>
      <JsonBlock value={call.arguments} label={`Arguments of ${call.name}`} />
      <ApprovalButtons callId={call.id} toolName={call.name} status={call.approval_status} />
    </li>
  );
}

/** One decision for every pending call of a request, in one approvals call. */
function DecideAll({ pending }: { pending: ToolCall[] }) {
  const { api, contextId, reportError } = useCardActions();
  const [sent, setSent] = useState(false);
  const decide = async (decision: Decision) => {
    setSent(true);
    try {
      await api.approve(contextId, { decisions: pending.map((c) => ({ call_id: c.id, decision })) });
    } catch (err) {
      setSent(false);
      reportError(err);
    }
  };
  return (
    <div className="approval approve-all" role="group" aria-label="All pending calls">
      <button type="button" className="btn btn-primary" disabled={sent} onClick={() => void decide("approve")}>
        Approve all {pending.length}
      </button>
      <button type="button" className="btn btn-danger" disabled={sent} onClick={() => void decide("deny")}>
        Deny all {pending.length}
      </button>
    </div>
  );
}

/** A built-in tool request: every call with its arguments and, while pending, its approval buttons. */
export function ToolRequestCard({ calls }: { calls: ToolCall[] }) {
  const pending = calls.filter((c) => c.approval_status === "pending");
  return (
    <div className="card tool-request">
      <div className="card-title">{calls.length === 1 ? "Tool call" : `${calls.length} tool calls`}</div>
      <ul className="plain">{calls.map((c) => <CallView key={c.id} call={c} />)}</ul>
      {pending.length > 1 && <DecideAll pending={pending} />}
    </div>
  );
}

/** An MCP tool request: the server's name and a plug icon, its arguments and approval buttons. */
export function McpToolRequestCard({ data }: { data: McpToolRequestMessage }) {
  return (
    <div className="card tool-request mcp">
      <div className="tool-head">
        <Icon name="plug" className="tool-icon mcp-icon" />
        <span className="badge mcp-badge">MCP · {data.server_name}</span>
        <strong>{data.tool_name}</strong>
      </div>
      <JsonBlock value={data.arguments} label={`Arguments of ${data.tool_name}`} />
      <ApprovalButtons callId={data.request_id} toolName={data.tool_name} status={data.approval_status} />
    </div>
  );
}

function ResultBody({ ok, output, error }: { ok: boolean; output: unknown; error?: { message: string; code?: string } }) {
  return ok ? (
    <JsonBlock value={output} label="Output" />
  ) : (
    <div className="error-text">
      {error?.code && <code>{error.code}</code>} {error?.message}
    </div>
  );
}

/** A built-in tool's result, collapsed by default, with its status and duration. */
export function ToolResultCard({ data }: { data: ToolResultMessage }) {
  const ok = data.status === "success";
  return (
    <details className={`card tool-result ${ok ? "ok" : "failed"}`}>
      <summary>
        <span aria-hidden="true">{ok ? "✓" : "✗"}</span> <strong>{data.tool_name || "tool"}</strong>{" "}
        <span className="muted">built-in</span> · {ok ? "succeeded" : "failed"} · {formatDuration(data.duration_ms)}
      </summary>
      <ResultBody ok={ok} output={ok ? data.output : undefined} {...(data.status === "error" ? { error: data.error } : {})} />
    </details>
  );
}

/** An MCP tool's result, collapsed by default, with its server, status and duration. */
export function McpToolResultCard({ data }: { data: McpToolResultMessage }) {
  const ok = data.status === "success";
  return (
    <details className={`card tool-result mcp ${ok ? "ok" : "failed"}`}>
      <summary>
        <Icon name="plug" className="mcp-icon" /> <span className="badge mcp-badge">MCP · {data.server_name}</span>{" "}
        <strong>{data.tool_name}</strong> · {ok ? "succeeded" : "failed"} · {formatDuration(data.duration_ms)}
      </summary>
      <ResultBody ok={ok} output={data.result} {...(data.status === "error" ? { error: data.error } : {})} />
    </details>
  );
}
