// Versions of a conversation where its branches diverge, as people know them from chat UIs: at
// each fork point the branches that go on differently are the versions of what comes next, and
// the active branch's message there shows `< n/m >` arrows that switch between them.

import type { ApiClient } from "../api/client";
import type { BranchInfo, BranchList } from "../generated/protocol";
import type { Entry } from "../conversation/reducer";

/** Where a message of the active branch stands among the versions at its place. */
export interface MessageVersions {
  /** Its version, from 1. */
  index: number;
  /** How many versions there are. */
  total: number;
  /** The branch holding the previous version. */
  previous: string | undefined;
  /** The branch holding the next version. */
  next: string | undefined;
}

/** Branches looked at for versions at most: beyond this the branch map is the way to navigate. */
export const MAX_VERSION_BRANCHES = 30;

/** The start of the history, as a fork point of branches that share nothing. */
const ROOT = "";

/** Kinds that only note what happened (a branch switch, a summary): versions show on the message after them. */
const NOTICE_KINDS = new Set(["system_control", "processing"]);

/** One branch's first message after a fork point, or `null` when the branch ends there or does not hold it. */
export type FirstAfter = (branch: string, forkPoint: string) => Promise<string | null>;

/** Reads a branch's first message after a fork point through the message listing. */
export function firstAfterFrom(api: ApiClient, contextId: string): FirstAfter {
  return async (branch, forkPoint) => {
    try {
      const list = await api.listMessages(contextId, { branch, view: "full", limit: 1, ...(forkPoint === ROOT ? {} : { after: forkPoint }) });
      return list.messages[0]?.id ?? null;
    } catch (err) {
      // A branch that does not hold the fork point has no version there.
      if ((err as { code?: unknown }).code === "not_found") return null;
      throw err;
    }
  };
}

/**
 * The versions at every fork point the active branch passes through, keyed by the id of the
 * active branch's message that shows them (the first after the fork point that is not a notice).
 * `fromStart` says whether `entries` begin at the branch's start (a long history is loaded from
 * its newest page back).
 */
export async function findVersions(branches: BranchList, entries: Entry[], firstAfter: FirstAfter, fromStart = true): Promise<Map<string, MessageVersions>> {
  const out = new Map<string, MessageVersions>();
  const list = branches.branches.slice(0, MAX_VERSION_BRANCHES);
  if (list.length < 2) return out;
  const position = new Map(entries.map((e, i) => [e.id, i]));
  const forkPoints = new Set<string>();
  for (const b of list) {
    if (b.parent === undefined) continue;
    const at = b.fork_point ?? ROOT;
    // A fork at the start is placed only when the entries begin there (not a later page).
    if ((at === ROOT && fromStart) || position.has(at)) forkPoints.add(at);
  }
  for (const at of forkPoints) {
    const start = at === ROOT ? 0 : position.get(at)! + 1;
    let shownOn: string | undefined;
    for (let i = start; i < entries.length; i++) {
      if (!NOTICE_KINDS.has(entries[i]!.kind)) {
        shownOn = entries[i]!.id;
        break;
      }
    }
    if (shownOn === undefined || out.has(shownOn)) continue;
    const firsts = await Promise.all(list.map((b) => firstAfter(b.name, at)));
    const groups = groupVersions(list, firsts, branches.active);
    const index = groups.findIndex((g) => g.branches.includes(branches.active));
    if (groups.length < 2 || index === -1) continue;
    out.set(shownOn, {
      index: index + 1,
      total: groups.length,
      previous: index > 0 ? groups[index - 1]!.representative : undefined,
      next: index < groups.length - 1 ? groups[index + 1]!.representative : undefined,
    });
  }
  return out;
}

/** One version: the branches that share the message after the fork point. */
interface Version {
  branches: string[];
  representative: string;
  created: string;
}

/**
 * Groups branches by their first message after the fork point, oldest version first. A group
 * is reached through the active branch when it holds it, else through its oldest branch.
 */
function groupVersions(list: BranchInfo[], firsts: (string | null)[], active: string): Version[] {
  const byFirst = new Map<string, Version>();
  list.forEach((b, i) => {
    const first = firsts[i];
    if (!first) return;
    const v = byFirst.get(first);
    if (!v) {
      byFirst.set(first, { branches: [b.name], representative: b.name, created: b.created_at });
      return;
    }
    v.branches.push(b.name);
    if (b.name === active || (v.representative !== active && b.created_at < v.created)) {
      v.representative = b.name;
      v.created = b.created_at < v.created ? b.created_at : v.created;
    }
  });
  // Message ids are UUIDv7: sorting by them orders the versions by when they were written.
  return [...byFirst.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** A branch name not yet taken: `prefix-1`, `prefix-2`… */
export function freeBranchName(prefix: string, taken: string[]): string {
  const names = new Set(taken);
  for (let n = 1; ; n++) {
    const name = `${prefix}-${n}`;
    if (!names.has(name)) return name;
  }
}
