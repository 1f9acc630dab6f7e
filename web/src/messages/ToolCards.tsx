// Tool calls and their results, built-in and MCP. Each call is one card holding its request,
// approval and result (see messages/toolcards); a result whose call is not in the list stands
// alone. MCP ones carry their server's name and a plug icon so they are never mistaken for
// built-in tools.

import { useState } from "react";
import type { Decision, McpToolRequestMessage, McpToolResultMessage, ToolCall, ToolResultMessage } from "../generated/protocol";
import { useCardActions } from "./actions";
import { formatDuration } from "./json";
import { Icon } from "../ui/Icon";
import { ToolCallCard } from "./toolcards/ToolCallCard";
import { useToolPairing } from "./toolcards/pairing";
import { ToolErrorView, ToolOutputView } from "./toolcards/outputs";

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

/** A built-in tool request: one card per call with what it does, its approval and its result. */
export function ToolRequestCard({ calls }: { calls: ToolCall[] }) {
  const { results, hiddenCalls } = useToolPairing();
  const shown = calls.filter((c) => !hiddenCalls.has(c.id));
  const pending = shown.filter((c) => c.approval_status === "pending" && !results.has(c.id));
  const firstPending = pending[0]?.id;
  return (
    <div className="card tool-request">
      <div className="card-title">{shown.length === 1 ? "Tool call" : `${shown.length} tool calls`}</div>
      <ul className="plain">
        {shown.map((c) => (
          <ToolCallCard
            key={c.id}
            call={{ id: c.id, name: c.name, args: c.arguments, status: c.approval_status }}
            result={results.get(c.id)}
            focusOnArrival={c.id === firstPending}
          />
        ))}
      </ul>
      {pending.length > 1 && <DecideAll pending={pending} />}
    </div>
  );
}

/** An MCP tool request: the server's name and a plug icon, its arguments, approval and result. */
export function McpToolRequestCard({ data }: { data: McpToolRequestMessage }) {
  const { results } = useToolPairing();
  return (
    <div className="card tool-request mcp">
      <ul className="plain">
        <ToolCallCard
          call={{ id: data.request_id, name: data.tool_name, args: data.arguments, status: data.approval_status, server: data.server_name }}
          result={results.get(data.request_id)}
          focusOnArrival
        />
      </ul>
    </div>
  );
}

/** A built-in tool's result whose call is not in the list, collapsed, with status and duration. */
export function ToolResultCard({ data }: { data: ToolResultMessage }) {
  const ok = data.status === "success";
  return (
    <details className={`card tool-result ${ok ? "ok" : "failed"}`}>
      <summary>
        <span aria-hidden="true">{ok ? "✓" : "✗"}</span> <strong>{data.tool_name || "tool"}</strong>{" "}
        <span className="muted">built-in</span> · {ok ? "succeeded" : "failed"} · {formatDuration(data.duration_ms)}
      </summary>
      {data.status === "success" ? (
        <ToolOutputView name={data.tool_name} args={{}} output={data.output} />
      ) : (
        <ToolErrorView name={data.tool_name} args={{}} error={data.error} />
      )}
    </details>
  );
}

/** An MCP tool's result whose call is not in the list, collapsed, with server, status and duration. */
export function McpToolResultCard({ data }: { data: McpToolResultMessage }) {
  const ok = data.status === "success";
  return (
    <details className={`card tool-result mcp ${ok ? "ok" : "failed"}`}>
      <summary>
        <Icon name="plug" className="mcp-icon" /> <span className="badge mcp-badge">MCP · {data.server_name}</span>{" "}
        <strong>{data.tool_name}</strong> · {ok ? "succeeded" : "failed"} · {formatDuration(data.duration_ms)}
      </summary>
      {data.status === "success" ? (
        <ToolOutputView name="" args={{}} output={data.result} />
      ) : (
        <ToolErrorView name="" args={{}} error={data.error} />
      )}
    </details>
  );
}
