// Builders of protocol values for tests, typed by the generated protocol so they cannot drift.
import type { ContextEvent, ContextState, Message, MessageUpdate } from "../generated/protocol";
import type { ReceivedEvent } from "../api/events";

const T = "2026-11-22T05:00:00Z";

/** A complete message of the given kind and data. */
export function msg<K extends Message["kind"]>(
  id: string,
  kind: K,
  data: Extract<Message, { kind: K }>["data"],
  extra: Partial<Pick<Message, "role" | "status" | "metadata">> = {},
): Message {
  return {
    schema_version: 2,
    id,
    role: extra.role ?? "assistant",
    status: extra.status ?? "complete",
    created_at: T,
    updated_at: T,
    metadata: extra.metadata ?? {},
    kind,
    data,
  } as Message;
}

/** A text message. */
export function textMsg(id: string, text: string, extra: Partial<Pick<Message, "role" | "status" | "metadata">> = {}): Message {
  return msg(id, "text", { parts: [{ type: "text", text }] }, extra);
}

/** A `context_update` event. */
export function update(id: number | undefined, current_state: ContextState, message_update?: MessageUpdate): ReceivedEvent {
  const event: ContextEvent = {
    type: "context_update",
    context_id: "c1",
    current_state,
    timestamp: T,
    metadata: {},
    ...(message_update ? { message_update } : {}),
  };
  return { id, event };
}

/** A `content_delta` event. */
export function delta(id: number | undefined, message_id: string, sequence: number, text: string): ReceivedEvent {
  return { id, event: { type: "content_delta", context_id: "c1", message_id, sequence, delta: text, is_final: false } };
}

/** A `content_final` event. */
export function final(id: number | undefined, message_id: string, sequence: number): ReceivedEvent {
  return { id, event: { type: "content_final", context_id: "c1", message_id, sequence, is_final: true } };
}
