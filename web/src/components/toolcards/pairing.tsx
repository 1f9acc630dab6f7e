// One card per tool call: which result answers which call, and which messages the list leaves
// out because a card already shows them (a result under its call; the call that produced a plan,
// a question or a project structure, which shows as its own card).

import { createContext, useContext, useRef } from "react";
import type { McpToolResultMessage, ToolResultMessage } from "../../generated/protocol";
import type { Entry } from "../../conversation/reducer";

/** A built-in or MCP tool result. */
export type AnyToolResult = ({ mcp: false } & ToolResultMessage) | ({ mcp: true } & McpToolResultMessage);

/** What the list knows about tool calls, for the cards. */
export interface ToolPairing {
  /** The result of each call id that has one in the list. */
  results: ReadonlyMap<string, AnyToolResult>;
  /** Calls not shown because the message they produced is shown instead. */
  hiddenCalls: ReadonlySet<string>;
}

/** Tools whose successful call produces a message of its own kind, shown as its own card. */
export const MESSAGE_TOOLS: Readonly<Record<string, string>> = {
  propose_plan: "plan",
  ask_user: "question",
  project_structure: "project_structure",
};

const EMPTY: ToolPairing = { results: new Map(), hiddenCalls: new Set() };
const Ctx = createContext<ToolPairing>(EMPTY);

/** Gives the pairing to the tool cards below. */
export const ToolPairingProvider = Ctx.Provider;

/** The pairing of the list this card is in (empty outside one: every card stands alone). */
export function useToolPairing(): ToolPairing {
  return useContext(Ctx);
}

/** The pairing of `entries`, and the entries the list shows. */
export function pairTools(entries: readonly Entry[]): { pairing: ToolPairing; visible: Entry[]; key: string } {
  const results = new Map<string, AnyToolResult>();
  const requested = new Set<string>();
  // Where each produced kind last appears, so a call is hidden only when its card is there.
  const lastOfKind = new Map<string, number>();
  entries.forEach((e, i) => {
    const m = e.message;
    if (!m) return;
    if (m.kind === "tool_result") results.set(m.data.call_id, { mcp: false, ...m.data });
    if (m.kind === "mcp_tool_result") results.set(m.data.request_id, { mcp: true, ...m.data });
    if (m.kind === "tool_request") m.data.calls.forEach((c) => requested.add(c.id));
    if (m.kind === "mcp_tool_request") requested.add(m.data.request_id);
    lastOfKind.set(m.kind, i);
  });
  const hiddenCalls = new Set<string>();
  const hiddenEntries = new Set<string>();
  entries.forEach((e, i) => {
    const m = e.message;
    if (!m) return;
    if (m.kind === "tool_result" && requested.has(m.data.call_id)) hiddenEntries.add(e.id);
    if (m.kind === "mcp_tool_result" && requested.has(m.data.request_id)) hiddenEntries.add(e.id);
    if (m.kind === "tool_request") {
      for (const c of m.data.calls) {
        const produced = MESSAGE_TOOLS[c.name];
        const result = results.get(c.id);
        if (produced && c.approval_status !== "pending" && result?.status !== "error" && (lastOfKind.get(produced) ?? -1) > i) {
          hiddenCalls.add(c.id);
        }
      }
      if (m.data.calls.length > 0 && m.data.calls.every((c) => hiddenCalls.has(c.id))) hiddenEntries.add(e.id);
    }
  });
  const key = [...results.entries()].map(([id, r]) => `${id}:${r.status}`).join(",") + "|" + [...hiddenCalls].join(",");
  return { pairing: { results, hiddenCalls }, visible: entries.filter((e) => !hiddenEntries.has(e.id)), key };
}

/**
 * The pairing of `entries` for a list; the same object while no result or hidden call changes,
 * so a streamed chunk does not re-render every tool card.
 */
export function useListPairing(entries: readonly Entry[]): { pairing: ToolPairing; visible: Entry[] } {
  const last = useRef<{ key: string; pairing: ToolPairing } | null>(null);
  const { pairing, visible, key } = pairTools(entries);
  if (last.current?.key !== key) last.current = { key, pairing };
  return { pairing: last.current.pairing, visible };
}
