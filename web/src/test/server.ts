// A scripted stand-in for `braid serve` inside tests: answers the API routes from in-memory data
// and lets a test push SSE events down an open event stream, or drop it.
import { ApiClient } from "../api/client";
import { readRequest } from "./api";
import type { BranchList, ContextState, ContextSummary, Message, ViewMarker } from "../generated/protocol";

/** One recorded request. */
export interface Req { method: string; path: string; body: unknown; headers: Record<string, string> }

/** The fake server's data and controls. */
export class FakeServer {
  contexts: ContextSummary[] = [];
  messages: Record<string, Message[]> = {};
  /** What `view=optimized` lists per context, when it differs from the stored messages. */
  optimized: Record<string, { messages: Message[]; markers: ViewMarker[] }> = {};
  branches: Record<string, BranchList> = {};
  state: ContextState = { type: "idle" };
  /** Workspace file paths per context, for `GET .../files`. */
  files: Record<string, string[]> = {};
  requests: Req[] = [];
  private streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  private encoder = new TextEncoder();
  readonly api: ApiClient;

  constructor() {
    this.api = new ApiClient({ fetch: this.fetch as unknown as typeof fetch });
  }

  /** Event streams opened so far (a reconnect opens another). */
  get streamCount(): number {
    return this.streams.length;
  }

  /** Sends one SSE event on the newest stream. */
  push(id: number, event: string, data: unknown): void {
    const c = this.streams.at(-1);
    if (!c) throw new Error("no event stream is open");
    c.enqueue(this.encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
  }

  /** Ends the newest stream, as a dropped connection does. */
  drop(): void {
    this.streams.at(-1)?.close();
  }

  private json(status: number, body: unknown): Response {
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  }

  private fetch = async (input: Request | string, init?: RequestInit): Promise<Response> => {
    const call = await readRequest(input, init);
    const u = new URL(call.url, "http://braid.test");
    const method = call.method;
    this.requests.push({ method, path: call.url, body: call.body, headers: call.headers });
    const p = u.pathname;
    let m: RegExpExecArray | null;
    if (p === "/v1/contexts" && method === "GET") return this.json(200, { contexts: this.contexts });
    if ((m = /^\/v1\/contexts\/([^/]+)\/events$/.exec(p))) {
      const stream = new ReadableStream<Uint8Array>({ start: (c) => void this.streams.push(c) });
      return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    }
    if ((m = /^\/v1\/contexts\/([^/]+)\/messages$/.exec(p)) && method === "GET") {
      // Pages as the server does: after a message id (404 when it is not listed), or back from
      // one (`before`) or from the end (`from=end`), at most `limit`.
      const optimized = u.searchParams.get("view") === "optimized" ? this.optimized[m[1]!] : undefined;
      let list = optimized?.messages ?? this.messages[m[1]!] ?? [];
      const after = u.searchParams.get("after");
      const before = u.searchParams.get("before");
      const limit = Number(u.searchParams.get("limit") ?? 100);
      const notListed = (id: string) => this.json(404, { error: { code: "not_found", message: `message ${id} is not in this listing` } });
      if (before !== null || u.searchParams.get("from") === "end") {
        if (before !== null) {
          const at = list.findIndex((x) => x.id === before);
          if (at === -1) return notListed(before);
          list = list.slice(0, at);
        }
        const start = Math.max(0, list.length - limit);
        const page = list.slice(start);
        // A page back is never the last: only the newest page carries the markers at the end.
        const markers = (optimized?.markers ?? []).filter((k) => (k.before === undefined ? before === null : page.some((x) => x.id === k.before)));
        return this.json(200, { messages: page, ...(start > 0 ? { next_before: page[0]!.id } : {}), ...(markers.length > 0 ? { markers } : {}) });
      }
      if (after !== null) {
        const at = list.findIndex((x) => x.id === after);
        if (at === -1) return notListed(after);
        list = list.slice(at + 1);
      }
      const page = list.slice(0, limit);
      const more = list.length > limit;
      // A page carries the markers before its messages, and the last one those at the end.
      const markers = (optimized?.markers ?? []).filter((k) => (k.before === undefined ? !more : page.some((x) => x.id === k.before)));
      return this.json(200, { messages: page, ...(more ? { next_after: page.at(-1)!.id } : {}), ...(markers.length > 0 ? { markers } : {}) });
    }
    if ((m = /^\/v1\/contexts\/([^/]+)\/messages$/.exec(p))) return this.json(202, { message_id: "new", queued: false });
    if ((m = /^\/v1\/contexts\/([^/]+)\/files$/.exec(p))) {
      const files = (this.files[m[1]!] ?? []).map((path) => ({ path, size: 1, mime_type: "text/plain" }));
      return this.json(200, { files, truncated: false });
    }
    if ((m = /^\/v1\/contexts\/([^/]+)\/state$/.exec(p))) return this.json(200, { state: this.state });
    if ((m = /^\/v1\/contexts\/([^/]+)\/branches$/.exec(p)) && method === "GET") return this.json(200, this.branches[m[1]!] ?? { active: "main", branches: [] });
    if ((m = /^\/v1\/contexts\/([^/]+)$/.exec(p)) && method === "GET") {
      const c = this.contexts.find((x) => x.id === decodeURIComponent(m![1]!));
      return c ? this.json(200, c) : this.json(404, { error: { code: "not_found", message: "no such context" } });
    }
    if (p === "/v1/mcp/servers") return this.json(200, { servers: [] });
    if (p === "/v1/settings") return this.json(200, { workspace_roots: ["/home/me"] });
    if (p === "/v1/mcp/resources") return this.json(200, { resources: [] });
    if (p === "/v1/tools") return this.json(200, { tools: [] });
    if (method !== "GET") return this.json(200, undefined);
    return this.json(404, { error: { code: "not_found", message: `no route ${method} ${p}` } });
  };
}

/** A context summary for tests. */
export function summary(id: string, title: string, state: ContextState = { type: "idle" }): ContextSummary {
  return {
    id,
    title,
    config: { model: "mock", mode: "act", agent_role: "actor", approval_policy: { type: "manual" }, tool_timeout_secs: 30, optimization: { strategy: { type: "intelligent" }, reserve_output_tokens: 4096, margin_tokens: 256, ledger_percent: 15 } },
    state,
    active_branch: "main",
    branches: ["main"],
    message_count: 0,
    pinned: [],
    token_budget: { used: 100, limit: 1000 },
    created_at: "2026-11-22T05:00:00Z",
    updated_at: "2026-11-22T05:00:00Z",
  };
}
