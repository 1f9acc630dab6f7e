// Braid's TypeScript SDK: the types openapi-typescript generates from the server's OpenAPI
// document (generated/api.ts, made by scripts/clients.sh), the HTTP calls through openapi-fetch,
// and what agent code needs on top: sends that are safe to retry (an Idempotency-Key made for
// each), turns to wait for, and an event stream that reconnects by itself with Last-Event-ID.
import createClient, { type Client } from "openapi-fetch";
import { createParser } from "eventsource-parser";
import type { components, paths } from "../generated/api.js";

/** The schemas of the API, by name. */
export type Schemas = components["schemas"];
/** A message as the server answers it. */
export type Message = Schemas["Message"];
/** A send's answer: the message's id, its turn, and where to stream the turn from. */
export type SendMessageResponse = Schemas["SendMessageResponse"];
/** An approval's answer: the turn the decisions start, once no call waits any more. */
export type ApprovalResponse = Schemas["ApprovalResponse"];
/** A resume's answer: the turn it runs as, and where to stream it from. */
export type ResumeResponse = Schemas["ResumeResponse"];
/** Where a turn is, and how it ended. */
export type TurnView = Schemas["TurnView"];

/** One event of a context's stream: its log sequence (`id`, absent on heartbeats), its name,
 * and its payload. */
export interface BraidEvent {
  id: number | undefined;
  name: string;
  data: Record<string, unknown>;
}

/** The server's `{error: {code, message, field?}}` with the HTTP status. */
export class BraidError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(`${status} ${code}: ${message}${field ? ` (field ${field})` : ""}`);
  }
}

/** Options of a {@link Braid} client. */
export interface BraidOptions {
  /** BRAID_API_TOKEN, when the server has one. */
  token?: string;
  /** The fetch to use (the global one by default). */
  fetch?: typeof fetch;
}

/** Options of {@link Braid.stream}. */
export interface StreamOptions {
  /** Start after this event sequence (0: everything logged); live from now when absent. */
  after?: number;
  /** Wait this long before reconnecting after a drop (ms). */
  reconnectDelayMs?: number;
  /** Yield heartbeats too. */
  includeHeartbeats?: boolean;
  /** Stops the stream. */
  signal?: AbortSignal;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** A Braid server. */
export class Braid {
  /** The generated client, for calls this layer does not wrap. */
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly fetcher: typeof fetch;

  constructor(baseUrl = "http://127.0.0.1:8787", options: BraidOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.headers = options.token ? { Authorization: `Bearer ${options.token}` } : {};
    this.fetcher = options.fetch ?? fetch;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, headers: this.headers, fetch: this.fetcher });
  }

  // Contexts.

  /** Creates a context (`config` as ContextConfigInput's JSON: every field has a default and may be left out). */
  async createContext(request: Schemas["CreateContextRequest"] = {}, idempotencyKey = newKey()) {
    return answer(
      await this.api.POST("/v1/contexts", {
        params: { header: { "Idempotency-Key": idempotencyKey } },
        body: request,
      }),
    );
  }

  /** Contexts, most recently changed first; pass `next_before` as `before` for the next page. */
  async listContexts(query: { limit?: number; before?: string } = {}) {
    return answer(await this.api.GET("/v1/contexts", { params: { query } }));
  }

  /** One context. */
  async getContext(id: string) {
    return answer(await this.api.GET("/v1/contexts/{id}", { params: { path: { id } } }));
  }

  /** Deletes a context and everything it holds. */
  async deleteContext(id: string): Promise<void> {
    await answer(await this.api.DELETE("/v1/contexts/{id}", { params: { path: { id } } }));
  }

  /** What the context is doing. */
  async state(id: string) {
    return answer(await this.api.GET("/v1/contexts/{id}/state", { params: { path: { id } } }));
  }

  // Messages and turns.

  /** Sends text to the context's active branch. The Idempotency-Key (one is made when none is
   * given) makes the SDK's own retry after a lost answer safe: it is answered the first answer. */
  async send(id: string, text: string, idempotencyKey = newKey()): Promise<SendMessageResponse> {
    const payload: Schemas["TextPayload"] = { type: "text", text };
    for (let attempt = 0; ; attempt++) {
      try {
        return answer(
          await this.api.POST("/v1/contexts/{id}/messages", {
            params: { path: { id }, header: { "Idempotency-Key": idempotencyKey } },
            body: { payload },
          }),
        );
      } catch (e) {
        // A transport failure, or the first request with this key still running: ask again.
        const retry = !(e instanceof BraidError) || (e.status === 409 && e.field === "Idempotency-Key");
        if (!retry || attempt === 2) throw e;
        await sleep(200 * (attempt + 1));
      }
    }
  }

  /** A branch's messages, oldest first: page forward with `after` (`next_after`), or back from
   * the end with `before` (`next_before`). */
  async messages(id: string, query: { branch?: string; after?: string; before?: string; limit?: number } = {}) {
    return answer(await this.api.GET("/v1/contexts/{id}/messages", { params: { path: { id }, query } }));
  }

  /** One message. */
  async message(id: string, messageId: string): Promise<Message> {
    return answer(
      await this.api.GET("/v1/contexts/{id}/messages/{message_id}", {
        params: { path: { id, message_id: messageId } },
      }),
    );
  }

  /** Where a turn is: `queued`, `running`, or `completed` with its `outcome`. */
  async turn(id: string, turnId: string): Promise<TurnView> {
    return answer(
      await this.api.GET("/v1/contexts/{id}/turns/{turn_id}", {
        params: { path: { id, turn_id: turnId } },
      }),
    );
  }

  /** Waits until turn `turnId` (a send's answer names it) is over; answers how it ended
   * (`answered`, `failed`, `paused`, `interrupted`, `awaiting_approval`, `awaiting_answer`). */
  async waitTurn(id: string, turnId: string, timeoutMs = 60_000, pollMs = 50): Promise<TurnView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const turn = await this.turn(id, turnId);
      if (turn.status === "completed") return turn;
      if (Date.now() > deadline) throw new Error(`turn ${turnId} still ${turn.status} after ${timeoutMs} ms`);
      await sleep(pollMs);
    }
  }

  // Events.

  /** The context's events. A dropped connection is reconnected with Last-Event-ID, so no logged
   * event is missed or repeated. Runs until the caller stops iterating or `signal` aborts. */
  async *stream(id: string, options: StreamOptions = {}): AsyncGenerator<BraidEvent> {
    let last = options.after;
    const url = `${this.baseUrl}/v1/contexts/${encodeURIComponent(id)}/events`;
    while (!options.signal?.aborted) {
      const headers: Record<string, string> = { ...this.headers, Accept: "text/event-stream" };
      if (last !== undefined) headers["Last-Event-ID"] = String(last);
      const ready: BraidEvent[] = [];
      const parser = createParser({
        onEvent: (m) => {
          if (m.event === "heartbeat" && !options.includeHeartbeats) return;
          const event: BraidEvent = { id: m.id ? Number(m.id) : undefined, name: m.event ?? "message", data: parse(m.data) };
          ready.push(event);
        },
      });
      try {
        const response = await this.fetcher(url, { headers, signal: options.signal });
        if (response.status !== 200) throw await errorOf(response);
        if (!response.body) throw new Error("the event stream has no body");
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (ready.length > 0) {
            const event = ready.shift() as BraidEvent;
            if (event.id !== undefined) last = event.id;
            yield event;
          }
        }
      } catch (e) {
        // The server's refusal ends the stream; a dropped connection is reconnected.
        if (e instanceof BraidError || options.signal?.aborted) throw e;
      }
      await sleep(options.reconnectDelayMs ?? 500);
    }
  }

  // Approvals.

  /** Approves pending tool calls (for the rest of the session with `forSession`). Answers the
   * turn the decisions start (`turn_id`, to `waitTurn` for) once no call waits any more; while
   * others still wait, the answer names no turn. */
  async approve(id: string, callIds: string[], forSession = false): Promise<ApprovalResponse> {
    const decision = forSession ? "approve_for_session" : "approve";
    return this.decide(id, callIds.map((call_id) => ({ call_id, decision })));
  }

  /** Denies pending tool calls; the model is told `reason`. Answers as `approve` does. */
  async deny(id: string, callIds: string[], reason?: string): Promise<ApprovalResponse> {
    return this.decide(id, callIds.map((call_id) => ({ call_id, decision: "deny", reason })));
  }

  private async decide(id: string, decisions: Schemas["ApprovalRequest"]["decisions"]): Promise<ApprovalResponse> {
    return answer(
      await this.api.POST("/v1/contexts/{id}/approvals", {
        params: { path: { id }, header: { "Idempotency-Key": newKey() } },
        body: { decisions },
      }),
    );
  }

  /** Stops the loop after the running tool (a streaming answer stops at once); the turn ends
   * `interrupted` and the context waits, paused, for `resume` or a new message. */
  async interrupt(id: string): Promise<void> {
    await answer(await this.api.POST("/v1/contexts/{id}/interrupt", { params: { path: { id } } }));
  }

  /** Continues a paused or failed loop; answers the turn it runs as (`turn_id`, to `waitTurn`
   * for, and `stream_after`). */
  async resume(id: string): Promise<ResumeResponse> {
    return answer(await this.api.POST("/v1/contexts/{id}/resume", { params: { path: { id } } }));
  }

  // Branches.

  /** The branches and the active one. */
  async branches(id: string) {
    return answer(await this.api.GET("/v1/contexts/{id}/branches", { params: { path: { id } } }));
  }

  /** A new branch (from the active one, up to `from_message` when given). */
  async createBranch(id: string, request: Schemas["CreateBranchRequest"], idempotencyKey = newKey()) {
    return answer(
      await this.api.POST("/v1/contexts/{id}/branches", {
        params: { path: { id }, header: { "Idempotency-Key": idempotencyKey } },
        body: request,
      }),
    );
  }

  /** Makes `name` the branch new messages go to. */
  async activateBranch(id: string, name: string): Promise<void> {
    await answer(
      await this.api.POST("/v1/contexts/{id}/branches/{name}/activate", { params: { path: { id, name } } }),
    );
  }

  /** Merges branch `source` into the request's target (the active branch by default). */
  async merge(id: string, source: string, request: Schemas["MergeRequest"], idempotencyKey = newKey()) {
    return answer(
      await this.api.POST("/v1/contexts/{id}/branches/{name}/merge", {
        params: { path: { id, name: source }, header: { "Idempotency-Key": idempotencyKey } },
        body: request,
      }),
    );
  }

  // Workflows.

  /** Workflow definitions (the context's workspace's too, when given). */
  async workflows(context?: string) {
    return answer(await this.api.GET("/v1/workflows", { params: { query: { context } } }));
  }

  /** Starts a workflow run. The answer names the run (`execution_id`) and the turn it goes as
   * (`turn_id`, to `waitTurn` for, and `stream_after`): the turn ends `answered` when the run
   * completes, `failed`, `interrupted` when it is cancelled, `paused`, or `awaiting_approval` at
   * an approval step (`resumeWorkflow` approves, as a new turn). */
  async runWorkflow(id: string, name: string, parameters: Record<string, unknown> = {}, idempotencyKey = newKey()) {
    return answer(
      await this.api.POST("/v1/contexts/{id}/workflows/{name}/run", {
        params: { path: { id, name }, header: { "Idempotency-Key": idempotencyKey } },
        body: { parameters },
      }),
    );
  }

  /** Resumes a paused run from its current step (also past an approval step); answers the new
   * turn it goes on as (`turn_id`, to `waitTurn` for, and `stream_after`). */
  async resumeWorkflow(id: string, executionId: string): Promise<ResumeResponse> {
    return answer(
      await this.api.POST("/v1/contexts/{id}/workflows/executions/{eid}/resume", {
        params: { path: { id, eid: executionId } },
      }),
    );
  }

  /** Pauses a run when its running step ends (its turn then ends `paused`). */
  async pauseWorkflow(id: string, executionId: string): Promise<void> {
    await answer(
      await this.api.POST("/v1/contexts/{id}/workflows/executions/{eid}/pause", {
        params: { path: { id, eid: executionId } },
      }),
    );
  }

  /** Cancels a run (also: declines an approval step); a running run's turn ends `interrupted`
   * once its step ends. */
  async cancelWorkflow(id: string, executionId: string): Promise<void> {
    await answer(
      await this.api.POST("/v1/contexts/{id}/workflows/executions/{eid}/cancel", {
        params: { path: { id, eid: executionId } },
      }),
    );
  }
}

/** A new Idempotency-Key. */
export function newKey(): string {
  return crypto.randomUUID();
}

async function answer<T>(reply: Answer<T>): Promise<T> {
  if (!reply.response.ok) throw errorFrom(reply.response.status, reply.error);
  return reply.data as T;
}

async function errorOf(response: Response): Promise<BraidError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return errorFrom(response.status, body);
}

function errorFrom(status: number, body: unknown): BraidError {
  const error = (body as { error?: { code?: string; message?: string; field?: string } } | undefined)?.error;
  return new BraidError(status, error?.code ?? "unknown", error?.message ?? JSON.stringify(body), error?.field ?? undefined);
}

function parse(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text: data };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
