// What the message list can do with branches, given to messages through React context: edit a
// message or regenerate an answer (each on a new branch), and the versions where branches
// diverge.

import { createContext, useContext } from "react";
import type { MessageVersions } from "./versions";

/** Branching as the messages see it. */
export interface Branching {
  /** The versions at each fork point, by the id of the message that shows them. */
  versions: ReadonlyMap<string, MessageVersions>;
  /** The message being edited, if any. */
  editingId: string | null;
  /** Starts or stops editing a message. */
  setEditingId: (id: string | null) => void;
  /** Puts `text` on a new branch in place of message `messageId` and sends it. */
  editAndSend: (messageId: string, text: string) => Promise<void>;
  /** Asks again for answer `answerId` on a new branch. */
  regenerate: (answerId: string) => Promise<void>;
  /** Makes branch `name` the active one. */
  switchTo: (name: string) => void;
  /** Whether a turn runs (editing and regenerating wait for it). */
  busy: boolean;
}

const Ctx = createContext<Branching | null>(null);

/** Provides branching to every message below. */
export const BranchingProvider = Ctx.Provider;

/** Branching of the conversation this message is in, when it has any. */
export function useBranching(): Branching | null {
  return useContext(Ctx);
}
