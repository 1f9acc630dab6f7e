// What the person does with branches: switch, create (from a message too), delete, merge, and
// the versions of a message (edit and regenerate make a branch each), with the versions found
// where the active branch's history forks.

import { useCallback, useEffect, useState, type RefObject } from "react";
import type { ApiClient } from "../api/client";
import type { BranchList, CreateBranchRequest, Message, MergeRequest } from "../generated/protocol";
import type { Conversation } from "../conversation/useConversation";
import type { Entry } from "../conversation/reducer";
import { findVersions, firstAfterFrom, freeBranchName, type MessageVersions } from "../branches/versions";

/** The branch actions of the open context. */
export interface BranchActions {
  switchBranch: (name: string) => Promise<void>;
  createBranch: (req: CreateBranchRequest) => Promise<void>;
  deleteBranch: (name: string) => Promise<void>;
  /** Runs a merge (for the merge dialog). */
  mergeBranch: (source: string, request: MergeRequest) => ReturnType<ApiClient["mergeBranch"]>;
  /** After a merge: the branches and messages are read again. */
  afterMerge: () => void;
  /** The first page of a branch's messages (the merge preview). */
  loadBranchMessages: (branch: string) => Promise<Message[]>;
  /** Every message of a branch, page by page (the branch map). */
  loadAllBranchMessages: (branch: string) => Promise<Message[]>;
  /** Sends `text` as a new version of message `messageId` (a branch from just before it). */
  editAndSend: (messageId: string, text: string) => Promise<void>;
  /** Asks the model again for the answer `answerId` belongs to, on a branch of its own. */
  regenerate: (answerId: string) => Promise<void>;
  /** The versions at each fork point the active branch passes through. */
  versions: ReadonlyMap<string, MessageVersions>;
}

/** The branch actions of context `contextId`, whose branches are `branches`. */
export function useBranchActions(
  api: ApiClient,
  contextId: string | null,
  branches: BranchList | null,
  conv: Conversation,
  entries: RefObject<Entry[]>,
  refreshContext: () => void,
): BranchActions {
  const { reportError, branchSwitched } = conv;
  /** Activates a branch, throwing on failure (edit and regenerate report it in place). */
  const activate = async (name: string) => {
    if (!contextId) return;
    await api.activateBranch(contextId, name);
    refreshContext();
    branchSwitched();
  };
  const switchBranch = async (name: string) => {
    try {
      await activate(name);
    } catch (err) {
      reportError(err);
    }
  };
  const createBranch = async (req: CreateBranchRequest) => {
    if (!contextId) return;
    await api.createBranch(contextId, req);
    await switchBranch(req.name);
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
  const mergeBranch = useCallback(
    (source: string, request: MergeRequest) => {
      if (!contextId) return Promise.reject(new Error("no conversation is open"));
      return api.mergeBranch(contextId, source, request);
    },
    [api, contextId],
  );
  const afterMerge = () => {
    refreshContext();
    branchSwitched();
  };
  const loadBranchMessages = useCallback(
    async (branch: string) => {
      if (!contextId) return [];
      return (await api.listMessages(contextId, { branch, limit: 1000 })).messages;
    },
    [api, contextId],
  );
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
  const editAndSend = async (messageId: string, text: string) => {
    if (!contextId) return;
    await branchBefore("edit", messageId);
    await api.sendMessage(contextId, { payload: { type: "text", text } });
  };
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
  const [versions, setVersions] = useState<ReadonlyMap<string, MessageVersions>>(new Map());
  const shown = conv.state.entries;
  let lastLoaded = shown.length - 1;
  while (lastLoaded >= 0 && shown[lastLoaded]!.message === undefined) lastLoaded--;
  const historyKey = `${shown.length}:${lastLoaded >= 0 ? shown[lastLoaded]!.id : ""}`;
  const fromStart = conv.state.older === undefined;
  useEffect(() => {
    if (!contextId || !branches || branches.branches.length < 2) {
      setVersions(new Map());
      return;
    }
    let current = true;
    findVersions(branches, entries.current, firstAfterFrom(api, contextId), fromStart).then(
      (v) => current && setVersions(v),
      (err: unknown) => console.warn("braid: versions could not be read", err),
    );
    return () => {
      current = false;
    };
  }, [api, contextId, branches, historyKey, fromStart, entries]);
  return {
    switchBranch,
    createBranch,
    deleteBranch,
    mergeBranch,
    afterMerge,
    loadBranchMessages,
    loadAllBranchMessages,
    editAndSend,
    regenerate,
    versions,
  };
}
