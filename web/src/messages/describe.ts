// One-line descriptions of stored messages, for lists (the merge dialog's cherry-pick, what the
// model saw, what a compaction left out).

import type { Message } from "../generated/protocol";

/** A one-line description of a message, for lists. */
export function describeMessage(m: Message): string {
  switch (m.kind) {
    case "text": {
      const text = m.data.parts
        .map((p) => (p.type === "text" ? p.text : ""))
        .join("")
        .trim();
      return `${m.role}: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
    }
    case "tool_request":
      return `assistant calls ${m.data.calls.map((c) => c.name).join(", ")}`;
    case "tool_result":
      return `result of ${m.data.tool_name}`;
    case "mcp_tool_request":
      return `assistant calls ${m.data.server_name}/${m.data.tool_name}`;
    case "mcp_tool_result":
      return `result of ${m.data.server_name}/${m.data.tool_name}`;
    default:
      return `${m.role}: ${m.kind.replace(/_/g, " ")}`;
  }
}

/** A one-line description of a stored message, the notices a request can carry included. */
export function messageLine(m: Message): string {
  if (m.kind === "system_control") {
    if (m.data.type === "summary") return `summary: ${m.data.text}`;
    if (m.data.type === "pinned_fact") return `pinned fact: ${m.data.text}`;
  }
  return describeMessage(m);
}
