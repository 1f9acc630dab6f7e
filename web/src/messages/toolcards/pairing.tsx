// One card per tool call: which result answers which call, and which messages the list leaves
// out because a card already shows them (a result under its call; the call that produced a plan,
// a question or a project structure, which shows as its own card).

import { createContext, useContext, useRef } from "react";
import type { McpToolResultMessage, PlanProgress, PlanStepStatus, ToolResultMessage } from "../../generated/protocol";
import type { Entry } from "../../conversation/reducer";

/** A built-in or MCP tool result. */
export type AnyToolResult = ({ mcp: false } & ToolResultMessage) | ({ mcp: true } & McpToolResultMessage);

/** What the list knows about tool calls, for the cards. */
export interface ToolPairing {
  /** The result of each call id that has one in the list. */
  results: ReadonlyMap<string, AnyToolResult>;
  /** Calls not shown because the message they produced is shown instead. */
  hiddenCalls: ReadonlySet<string>;
  /** How each executed plan (by its message id) is getting on. */
  plans: ReadonlyMap<string, PlanRun>;
}

/** A plan's execution as the list shows it. */
export interface PlanRun {
  /** The user message that executed it. */
  messageId: string;
  /** Tool calls made since. */
  calls: number;
  /** Of those, how many have a result. */
  finished: number;
  /** Of those, how many failed. */
  failed: number;
  /** Each step's status as the agent reported it with `update_plan` (steps it has not reported on are absent). */
  steps: ReadonlyMap<number, PlanStepStatus>;
}

/** The tool whose successful results record a plan's progress (the plan card ticks from them). */
export const UPDATE_PLAN = "update_plan";

/** The progress a successful `update_plan` result records, if `r` is one. */
export function recordedProgress(r: AnyToolResult | undefined): PlanProgress | null {
  if (!r || r.mcp || r.tool_name !== UPDATE_PLAN || r.status !== "success") return null;
  const o = r.output as Partial<PlanProgress> | null;
  if (!o || typeof o.plan_id !== "string" || typeof o.step_number !== "number" || typeof o.status !== "string") return null;
  return o as PlanProgress;
}

/** Tools whose successful call produces a message of its own kind, shown as its own card. */
export const MESSAGE_TOOLS: Readonly<Record<string, string>> = {
  propose_plan: "plan",
  ask_user: "question",
  project_structure: "project_structure",
};

const EMPTY: ToolPairing = { results: new Map(), hiddenCalls: new Set(), plans: new Map() };
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
  const plans = planRuns(entries, results);
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
        // A progress report shows as a tick on its plan's card when that card is in the list;
        // one that failed stays, as the model read it.
        if (c.name === UPDATE_PLAN && plans.size > 0) {
          const progress = recordedProgress(result);
          if (result === undefined || (progress && plans.has(progress.plan_id))) hiddenCalls.add(c.id);
        }
      }
      if (m.data.calls.length > 0 && m.data.calls.every((c) => hiddenCalls.has(c.id))) hiddenEntries.add(e.id);
    }
  });
  const key =
    [...results.entries()].map(([id, r]) => `${id}:${r.status}`).join(",") +
    "|" +
    [...hiddenCalls].join(",") +
    "|" +
    [...plans.entries()]
      .map(([id, r]) => `${id}:${r.messageId}:${r.calls}:${r.finished}:${r.failed}:${[...r.steps].map(([n, st]) => `${n}=${st}`).join(";")}`)
      .join(",");
  return { pairing: { results, hiddenCalls, plans }, visible: entries.filter((e) => !hiddenEntries.has(e.id)), key };
}

/** A plan run while it is being counted. */
type CountedRun = Omit<PlanRun, "steps"> & { steps: Map<number, PlanStepStatus> };

/**
 * Each executed plan: the message that executed it (the server marks it with `plan_id` and
 * `plan_action: "execute"`), the tool calls made after it until the next plan execution, and
 * its steps' statuses from the `update_plan` results that name it (the server checked each one
 * against the plan, so nothing is guessed here).
 */
function planRuns(entries: readonly Entry[], results: ReadonlyMap<string, AnyToolResult>): Map<string, PlanRun> {
  const runs = new Map<string, CountedRun>();
  let current: CountedRun | null = null;
  for (const e of entries) {
    const m = e.message;
    if (!m) continue;
    const planId = m.metadata?.plan_id;
    if (m.role === "user" && typeof planId === "string" && m.metadata?.plan_action === "execute") {
      current = { messageId: m.id, calls: 0, finished: 0, failed: 0, steps: new Map() };
      runs.set(planId, current);
      continue;
    }
    if (m.kind === "tool_result") {
      const progress = recordedProgress({ mcp: false, ...m.data });
      if (progress) runs.get(progress.plan_id)?.steps.set(progress.step_number, progress.status);
    }
    if (!current) continue;
    // Progress reports are the run's bookkeeping, not its work.
    const ids =
      m.kind === "tool_request"
        ? m.data.calls.filter((c) => c.name !== UPDATE_PLAN).map((c) => c.id)
        : m.kind === "mcp_tool_request"
          ? [m.data.request_id]
          : [];
    for (const id of ids) {
      current.calls += 1;
      const r = results.get(id);
      if (r) current.finished += 1;
      if (r?.status === "error") current.failed += 1;
    }
  }
  return runs;
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
