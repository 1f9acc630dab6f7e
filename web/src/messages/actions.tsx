// What a message card may do, given to cards through React context so that they stay thin: each
// action is one API call on the conversation's context.

import { createContext, useContext } from "react";
import type { ApiClient } from "../api/client";
import type { Message, OfferedRule } from "../generated/protocol";

/** The conversation a card lives in, and how it acts on it. */
export interface CardActions {
  /** The API client. */
  api: ApiClient;
  /** The context the messages belong to. */
  contextId: string;
  /** Shows a failed action to the person. */
  reportError: (err: unknown) => void;
  /** Starts "branch from here" on a message. */
  branchFrom?: (messageId: string) => void;
  /** Puts a failed send back into the composer; sending it replaces the failed one. */
  editFailed?: (message: Message) => void;
  /** The rule "approve for this session" would add, for each waiting command a rule can describe. */
  offeredRules?: readonly OfferedRule[];
}

const Ctx = createContext<CardActions | null>(null);

/** Provides the actions to every card below. */
export const CardActionsProvider = Ctx.Provider;

/** The actions of the conversation this card is in. */
export function useCardActions(): CardActions {
  const a = useContext(Ctx);
  if (!a) {
    throw new Error("message cards must be rendered inside a CardActionsProvider");
  }
  return a;
}
