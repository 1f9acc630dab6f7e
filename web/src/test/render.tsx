// Renders message cards inside a conversation whose API calls are recorded.
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { CardActionsProvider, type CardActions } from "../messages/actions";
import { recordingClient, type Call } from "./api";
import type { Message } from "../generated/protocol";

/** Renders `ui` with card actions over a recording API client for context `c1`. */
export function renderCard(
  ui: ReactElement,
  opts: { answer?: (c: Call) => { status: number; body?: unknown }; branchFrom?: (id: string) => void; editFailed?: (m: Message) => void } = {},
) {
  const { api, calls } = recordingClient(opts.answer ?? (() => ({ status: 202, body: { message_id: "new", queued: false } })));
  const errors: unknown[] = [];
  const actions: CardActions = {
    api,
    contextId: "c1",
    reportError: (e) => errors.push(e),
    ...(opts.branchFrom ? { branchFrom: opts.branchFrom } : {}),
    ...(opts.editFailed ? { editFailed: opts.editFailed } : {}),
  };
  const result = render(<CardActionsProvider value={actions}>{ui}</CardActionsProvider>);
  return { ...result, calls, errors };
}
