// The typed HTTP client for Braid's `/v1` API: one method per route, each calling the route
// through openapi-fetch and the types generated from the server's OpenAPI document, so the UI
// cannot call a route the server lacks (`npm run typecheck` fails). Answer bodies are the types
// generated from the Rust protocol crate.

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../generated/api";

import type {
  ApiErrorBody,
  ApprovalRequest,
  BranchInfo,
  BranchList,
  ContextList,
  ContextSummary,
  CreateBranchRequest,
  CreateContextRequest,
  ErrorCode,
  FileChangePreview,
  FileChangePreviewRequest,
  McpResourceList,
  McpElicitationList,
  McpElicitationReply,
  McpPromptList,
  McpPromptText,
  McpServerDefinition,
  McpServerList,
  MergeHeld,
  MergeOutcome,
  MergeRequest,
  MessageSearchResults,
  ModelList,
  ServerSettings,
  Message,
  MessageList,
  MessageView,
  PageFrom,
  SendMessageRequest,
  SendMessageResponse,
  SetModeRequest,
  StateResponse,
  ToolList,
  UpdateContextRequest,
  KindName,
  WorkspaceFileList,
  WorkflowList,
  WorkflowRunResponse,
} from "../generated/protocol";

type Schemas = components["schemas"];
// The protocol crate's TypeScript export does not list these yet; the OpenAPI document does.
/** One request sent to the model, as recorded (`GET /v1/contexts/{id}/requests/{request_id}`). */
export type ModelRequestRecord = Schemas["ModelRequestRecord"];
/** One message of a recorded request, and how it was sent. */
export type SentMessage = Schemas["SentMessage"];
/** Body of `POST /v1/contexts/{id}/pins`. */
export type PinFactRequest = Schemas["PinFactRequest"];
/** Body of `PUT /v1/contexts/{id}/messages/{message_id}/summary`. */
export type CorrectSummaryRequest = Schemas["CorrectSummaryRequest"];

/** What the person does to a workflow run. */
export type WorkflowAction = "pause" | "resume" | "cancel";

/** Why a request failed when the server never gave a Braid error body. */
export type ClientFailure = "network_error" | "bad_response";

/** A failed API call: the server's `{error:{code,message,field?}}`, or what went wrong on the way. */
export class ApiRequestError extends Error {
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The server's error code, or the client's own reason when there was no error body. */
  readonly code: ErrorCode | ClientFailure;
  /** The request field at fault (`payload.path`), when the server named one. */
  readonly field: string | undefined;

  constructor(status: number, code: ErrorCode | ClientFailure, message: string, field?: string) {
    super(message);
    this.name = "ApiRequestError";
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** What a merge request came to: done (merged, or previewed with `dry_run`), or held until the
 * person resolves its conflicts or accepts its warnings (the server's 409, with the same outcome). */
export type MergeAnswer =
  | { kind: "done"; outcome: MergeOutcome }
  | { kind: "held"; outcome: MergeOutcome; message: string };

/** Query of `GET /v1/contexts/{id}/messages`. */
export interface MessageQuery {
  /** The branch; the active one when absent. */
  branch?: string;
  /** `full` (everything stored) or `optimized` (what the model would be sent). */
  view?: MessageView;
  /** Only messages of this kind. */
  kind?: KindName;
  /** Only messages after this id (paging forward). */
  after?: string;
  /** Only the newest messages before this id (paging back: the previous page's `next_before`). */
  before?: string;
  /** Without `after`/`before`: the oldest messages (`start`, the default) or the newest (`end`). */
  from?: PageFrom;
  /** At most this many. */
  limit?: number;
}

/** Options of {@link ApiClient}. */
export interface ApiClientOptions {
  /** Prefix of every path: `""` for the same origin, or `http://host:port`. */
  baseUrl?: string;
  /** The bearer token, when the server requires one (`BRAID_API_TOKEN`). */
  token?: string;
  /** The fetch to use (tests pass their own). */
  fetch?: typeof fetch;
}

/** What an openapi-fetch call settles to. */
interface Settled {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The path of the event stream, checked against the server's routes like every other call. */
const EVENTS_PATH: keyof paths = "/v1/contexts/{id}/events";

/** The typed client for Braid's HTTP API: every call goes through openapi-fetch over the types
 * generated from the server's OpenAPI document (`src/generated/api.ts`), so a route, method,
 * parameter or body the server does not have is a type error. */
export class ApiClient {
  readonly baseUrl: string;
  readonly token: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly http: Client<paths>;
  /** Pages read ahead ({@link ApiClient.readAhead}), each waiting for its first caller. */
  private readonly ahead = new Map<string, ReadAhead>();

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.token = options.token;
    // Bound so that `window.fetch` is not called with another `this`.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    // openapi-fetch builds a `Request`, which needs an absolute URL outside a page.
    const origin = this.baseUrl || (typeof location === "undefined" ? "" : location.origin);
    this.http = createClient<paths>({
      baseUrl: origin,
      fetch: (request: Request) => this.fetchImpl(request),
      headers: { Accept: "application/json", ...this.authHeaders() },
    });
  }

  /** `GET /health`: whether the server answers. */
  async health(): Promise<boolean> {
    try {
      await this.run(this.http.GET("/health"), "GET /health");
      return true;
    } catch {
      return false;
    }
  }

  /** `GET /v1/contexts`: every context, newest first. */
  listContexts(): Promise<ContextList> {
    return this.run(this.http.GET("/v1/contexts"), "GET /v1/contexts");
  }

  /** `POST /v1/contexts`: a new context. */
  createContext(body: CreateContextRequest): Promise<ContextSummary> {
    return this.run(this.http.POST("/v1/contexts", { body }), "POST /v1/contexts");
  }

  /** `GET /v1/contexts/{id}`. */
  getContext(id: string): Promise<ContextSummary> {
    return this.run(this.http.GET("/v1/contexts/{id}", { params: { path: { id } } }), "GET /v1/contexts/{id}");
  }

  /** `PATCH /v1/contexts/{id}`: rename or reconfigure. */
  updateContext(id: string, body: UpdateContextRequest): Promise<ContextSummary> {
    return this.run(this.http.PATCH("/v1/contexts/{id}", { params: { path: { id } }, body }), "PATCH /v1/contexts/{id}");
  }

  /** `DELETE /v1/contexts/{id}`. */
  async deleteContext(id: string): Promise<void> {
    await this.run(this.http.DELETE("/v1/contexts/{id}", { params: { path: { id } } }), "DELETE /v1/contexts/{id}");
  }

  /**
   * `GET /v1/contexts/{id}/messages`: one page of a branch's messages. A page asked for ahead
   * ({@link ApiClient.readAhead}) with the same arguments, and not older than
   * {@link READ_AHEAD_MS}, is answered by that read instead of a new one.
   */
  listMessages(id: string, query: MessageQuery = {}): Promise<MessageList> {
    // Nearly always empty: no key is made for the reads after the first.
    const ahead = this.ahead.size > 0 ? this.takeAhead(pageKey(id, query), () => true) : undefined;
    if (ahead) return ahead.answer;
    return this.run(
      this.http.GET("/v1/contexts/{id}/messages", { params: { path: { id }, query: present(query) } }),
      "GET /v1/contexts/{id}/messages",
    );
  }

  /**
   * Starts reading a page of messages before anything asks for it, for the first
   * {@link ApiClient.listMessages} or {@link ApiClient.takeReadAhead} with the same arguments:
   * the page opening a conversation reads its newest messages while the UI is still being
   * built. Settles (never rejects) when the answer is in.
   */
  readAhead(id: string, query: MessageQuery): Promise<void> {
    const answer = this.listMessages(id, query);
    const entry: ReadAhead = { at: performance.now(), answer };
    this.ahead.set(pageKey(id, query), entry);
    // Nobody may ask for it (the view changed meanwhile): a failure is then nobody's to report.
    return answer.then(
      (list) => {
        entry.read = list;
      },
      () => undefined,
    );
  }

  /** The page read ahead with these arguments, if it has arrived and is fresh: taken, so it answers once. */
  takeReadAhead(id: string, query: MessageQuery): MessageList | undefined {
    return this.takeAhead(pageKey(id, query), (entry) => entry.read !== undefined)?.read;
  }

  /** The fresh page read ahead under `key`, taken when `wanted` says so; a stale one is dropped. */
  private takeAhead(key: string, wanted: (entry: ReadAhead) => boolean): ReadAhead | undefined {
    const entry = this.ahead.get(key);
    if (!entry) return undefined;
    if (performance.now() - entry.at >= READ_AHEAD_MS) {
      this.ahead.delete(key);
      return undefined;
    }
    if (!wanted(entry)) return undefined;
    this.ahead.delete(key);
    return entry;
  }

  /** `POST /v1/contexts/{id}/messages`: queue a message; progress arrives as events. */
  sendMessage(id: string, body: SendMessageRequest): Promise<SendMessageResponse> {
    return this.run(this.http.POST("/v1/contexts/{id}/messages", { params: { path: { id } }, body }), "POST /v1/contexts/{id}/messages");
  }

  /** `POST /v1/contexts/{id}/messages/{message_id}/retry`: run a failed send's pipeline again. */
  retryMessage(id: string, messageId: string): Promise<SendMessageResponse> {
    return this.run(
      this.http.POST("/v1/contexts/{id}/messages/{message_id}/retry", { params: { path: { id, message_id: messageId } } }),
      "POST /v1/contexts/{id}/messages/{message_id}/retry",
    );
  }

  /** `POST /v1/contexts/{id}/plans/{message_id}/execute`: switch to act mode and run a plan (409 once it ran). */
  executePlan(id: string, planId: string): Promise<SendMessageResponse> {
    return this.run(
      this.http.POST("/v1/contexts/{id}/plans/{message_id}/execute", { params: { path: { id, message_id: planId } } }),
      "POST /v1/contexts/{id}/plans/{message_id}/execute",
    );
  }

  /** `DELETE /v1/contexts/{id}/messages/{message_id}`: delete failed (or still queued) input with the rest of its send. */
  async deleteMessage(id: string, messageId: string): Promise<void> {
    await this.run(
      this.http.DELETE("/v1/contexts/{id}/messages/{message_id}", { params: { path: { id, message_id: messageId } } }),
      "DELETE /v1/contexts/{id}/messages/{message_id}",
    );
  }

  /** `GET /v1/contexts/{id}/messages/{message_id}`: one stored message. */
  getMessage(id: string, messageId: string): Promise<Message> {
    return this.run(
      this.http.GET("/v1/contexts/{id}/messages/{message_id}", { params: { path: { id, message_id: messageId } } }),
      "GET /v1/contexts/{id}/messages/{message_id}",
    );
  }

  /** `PUT`/`DELETE /v1/contexts/{id}/messages/{message_id}/pin`: pin a message (never dropped or
   * summarized to fit the window) or put it back under the strategy. Answers the message. */
  setPinned(id: string, messageId: string, pinned: boolean): Promise<Message> {
    const params = { params: { path: { id, message_id: messageId } } };
    return pinned
      ? this.run(this.http.PUT("/v1/contexts/{id}/messages/{message_id}/pin", params), "PUT /v1/contexts/{id}/messages/{message_id}/pin")
      : this.run(this.http.DELETE("/v1/contexts/{id}/messages/{message_id}/pin", params), "DELETE /v1/contexts/{id}/messages/{message_id}/pin");
  }

  /** `POST /v1/contexts/{id}/pins`: pin a fact every request carries. Answers its notice. */
  pinFact(id: string, body: PinFactRequest): Promise<Message> {
    return this.run(this.http.POST("/v1/contexts/{id}/pins", { params: { path: { id } }, body }), "POST /v1/contexts/{id}/pins");
  }

  /** `PUT /v1/contexts/{id}/messages/{message_id}/summary`: the person's correction of a summary. */
  correctSummary(id: string, messageId: string, body: CorrectSummaryRequest): Promise<Message> {
    return this.run(
      this.http.PUT("/v1/contexts/{id}/messages/{message_id}/summary", { params: { path: { id, message_id: messageId } }, body }),
      "PUT /v1/contexts/{id}/messages/{message_id}/summary",
    );
  }

  /** `GET /v1/contexts/{id}/requests/{request_id}`: what one model request held. */
  getModelRequest(id: string, requestId: string): Promise<ModelRequestRecord> {
    return this.run(
      this.http.GET("/v1/contexts/{id}/requests/{request_id}", { params: { path: { id, request_id: requestId } } }),
      "GET /v1/contexts/{id}/requests/{request_id}",
    );
  }

  /** The URL of `GET /v1/contexts/{id}/events`, replaying after `after` when given. */
  eventsUrl(id: string, after?: number): string {
    const q = after === undefined ? "" : `?after=${after}`;
    return `${this.baseUrl}${EVENTS_PATH.replace("{id}", enc(id))}${q}`;
  }

  /** Headers every request carries (the bearer token). */
  authHeaders(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  /** The fetch this client uses; the event stream shares it. */
  get fetcher(): typeof fetch {
    return this.fetchImpl;
  }

  /** `GET /v1/contexts/{id}/state`: the current state, with the transition history when asked. */
  getState(id: string, history = false): Promise<StateResponse> {
    return this.run(
      this.http.GET("/v1/contexts/{id}/state", { params: { path: { id }, query: history ? { history } : {} } }),
      "GET /v1/contexts/{id}/state",
    );
  }

  /** `GET /v1/contexts/{id}/files`: the workspace's files (gitignored ones left out), for the file picker. */
  listWorkspaceFiles(id: string, query = "", limit = 1000): Promise<WorkspaceFileList> {
    return this.run(
      this.http.GET("/v1/contexts/{id}/files", { params: { path: { id }, query: query ? { limit, query } : { limit } } }),
      "GET /v1/contexts/{id}/files",
    );
  }

  /** `POST /v1/contexts/{id}/files/preview`: what a file-changing call would do to the file as it is now. */
  previewFileChange(id: string, body: FileChangePreviewRequest): Promise<FileChangePreview> {
    return this.run(this.http.POST("/v1/contexts/{id}/files/preview", { params: { path: { id } }, body }), "POST /v1/contexts/{id}/files/preview");
  }

  /** `POST /v1/contexts/{id}/approvals`: decide pending tool calls. */
  async approve(id: string, body: ApprovalRequest): Promise<void> {
    await this.run(this.http.POST("/v1/contexts/{id}/approvals", { params: { path: { id } }, body }), "POST /v1/contexts/{id}/approvals");
  }

  /** `POST /v1/contexts/{id}/interrupt`: stop after the running tool. */
  async interrupt(id: string): Promise<void> {
    await this.run(this.http.POST("/v1/contexts/{id}/interrupt", { params: { path: { id } } }), "POST /v1/contexts/{id}/interrupt");
  }

  /** `GET /v1/workflows?context={id}`: the workflows a context can use, with their errors. */
  listWorkflows(contextId: string): Promise<WorkflowList> {
    return this.run(this.http.GET("/v1/workflows", { params: { query: { context: contextId } } }), "GET /v1/workflows");
  }

  /** `POST /v1/contexts/{id}/workflows/{name}/run`: starts a run with these parameters. */
  runWorkflow(contextId: string, name: string, parameters: Record<string, unknown>): Promise<WorkflowRunResponse> {
    return this.run(
      this.http.POST("/v1/contexts/{id}/workflows/{name}/run", { params: { path: { id: contextId, name } }, body: { parameters } }),
      "POST /v1/contexts/{id}/workflows/{name}/run",
    );
  }

  /** `POST /v1/contexts/{id}/workflows/executions/{eid}/{pause|resume|cancel}`. */
  async controlWorkflow(contextId: string, executionId: string, action: WorkflowAction): Promise<void> {
    const path = { params: { path: { id: contextId, eid: executionId } } };
    const call =
      action === "pause"
        ? this.http.POST("/v1/contexts/{id}/workflows/executions/{eid}/pause", path)
        : action === "resume"
          ? this.http.POST("/v1/contexts/{id}/workflows/executions/{eid}/resume", path)
          : this.http.POST("/v1/contexts/{id}/workflows/executions/{eid}/cancel", path);
    await this.run(call, `POST /v1/contexts/{id}/workflows/executions/{eid}/${action}`);
  }

  /** `POST /v1/contexts/{id}/resume`: continue a paused or failed loop. */
  async resume(id: string): Promise<void> {
    await this.run(this.http.POST("/v1/contexts/{id}/resume", { params: { path: { id } } }), "POST /v1/contexts/{id}/resume");
  }

  /** `PUT /v1/contexts/{id}/mode`: plan or act. */
  async setMode(id: string, body: SetModeRequest): Promise<void> {
    await this.run(this.http.PUT("/v1/contexts/{id}/mode", { params: { path: { id } }, body }), "PUT /v1/contexts/{id}/mode");
  }

  /** `GET /v1/contexts/{id}/branches`. */
  listBranches(id: string): Promise<BranchList> {
    return this.run(this.http.GET("/v1/contexts/{id}/branches", { params: { path: { id } } }), "GET /v1/contexts/{id}/branches");
  }

  /** `POST /v1/contexts/{id}/branches`: fork a branch, optionally from any message. */
  createBranch(id: string, body: CreateBranchRequest): Promise<BranchInfo> {
    return this.run(this.http.POST("/v1/contexts/{id}/branches", { params: { path: { id } }, body }), "POST /v1/contexts/{id}/branches");
  }

  /** `POST /v1/contexts/{id}/branches/{name}/activate`: switch to it. */
  async activateBranch(id: string, name: string): Promise<void> {
    await this.run(
      this.http.POST("/v1/contexts/{id}/branches/{name}/activate", { params: { path: { id, name } } }),
      "POST /v1/contexts/{id}/branches/{name}/activate",
    );
  }

  /** `POST /v1/contexts/{id}/branches/{name}/merge`: merge branch `source` into the request's
   * target, or preview it with `dry_run`. A 409 that holds the merge answers `held` with its
   * conflicts and warnings; any other failure throws. */
  async mergeBranch(id: string, source: string, body: MergeRequest): Promise<MergeAnswer> {
    try {
      const outcome = await this.run<MergeOutcome>(
        this.http.POST("/v1/contexts/{id}/branches/{name}/merge", { params: { path: { id, name: source } }, body }),
        "POST /v1/contexts/{id}/branches/{name}/merge",
      );
      return { kind: "done", outcome };
    } catch (err) {
      if (err instanceof HeldMerge) {
        return { kind: "held", outcome: err.outcome, message: err.message };
      }
      throw err;
    }
  }

  /** `DELETE /v1/contexts/{id}/branches/{name}`. */
  async deleteBranch(id: string, name: string): Promise<void> {
    await this.run(
      this.http.DELETE("/v1/contexts/{id}/branches/{name}", { params: { path: { id, name } } }),
      "DELETE /v1/contexts/{id}/branches/{name}",
    );
  }

  /** `GET /v1/tools`: every registered tool. */
  listTools(): Promise<ToolList> {
    return this.run(this.http.GET("/v1/tools"), "GET /v1/tools");
  }

  /** `GET /v1/models`: the model server's models with what each can do. */
  listModels(): Promise<ModelList> {
    return this.run(this.http.GET("/v1/models"), "GET /v1/models");
  }

  /** `GET /v1/search`: text messages of every conversation holding every word of `q`. */
  searchMessages(q: string, limit?: number): Promise<MessageSearchResults> {
    return this.run(
      this.http.GET("/v1/search", { params: { query: { q, ...(limit !== undefined ? { limit } : {}) } } }),
      "GET /v1/search",
    );
  }

  /** `GET /v1/settings`: the server's settings a client shows (the allowed workspace roots). */
  getSettings(): Promise<ServerSettings> {
    return this.run(this.http.GET("/v1/settings"), "GET /v1/settings");
  }

  /** `GET /v1/mcp/servers`: MCP servers with their status and tools. */
  listMcpServers(): Promise<McpServerList> {
    return this.run(this.http.GET("/v1/mcp/servers"), "GET /v1/mcp/servers");
  }

  /** `POST /v1/mcp/servers`: add a server to `mcp_servers.json` and connect to it. */
  addMcpServer(name: string, server: McpServerDefinition): Promise<McpServerList> {
    return this.run(this.http.POST("/v1/mcp/servers", { body: { name, server } }), "POST /v1/mcp/servers");
  }

  /** `PUT /v1/mcp/servers/{name}`: replace a server's definition (a `null` env or header value keeps it). */
  replaceMcpServer(name: string, server: McpServerDefinition): Promise<McpServerList> {
    return this.run(
      this.http.PUT("/v1/mcp/servers/{name}", { params: { path: { name } }, body: server }),
      "PUT /v1/mcp/servers/{name}",
    );
  }

  /** `DELETE /v1/mcp/servers/{name}`: remove a server from `mcp_servers.json` and stop it. */
  removeMcpServer(name: string): Promise<McpServerList> {
    return this.run(
      this.http.DELETE("/v1/mcp/servers/{name}", { params: { path: { name } } }),
      "DELETE /v1/mcp/servers/{name}",
    );
  }

  /** `POST /v1/mcp/servers/reload`: re-read the MCP configuration. */
  async reloadMcpServers(): Promise<void> {
    await this.run(this.http.POST("/v1/mcp/servers/reload"), "POST /v1/mcp/servers/reload");
  }

  /** `GET /v1/mcp/prompts`: the prompts of every ready MCP server. */
  listMcpPrompts(): Promise<McpPromptList> {
    return this.run(this.http.GET("/v1/mcp/prompts"), "GET /v1/mcp/prompts");
  }

  /** `POST /v1/mcp/prompts/{server}/{name}`: a prompt with its arguments, as text to send. */
  getMcpPrompt(server: string, name: string, args: Record<string, string>): Promise<McpPromptText> {
    return this.run(
      this.http.POST("/v1/mcp/prompts/{server}/{name}", { params: { path: { server, name } }, body: { arguments: args } }),
      "POST /v1/mcp/prompts/{server}/{name}",
    );
  }

  /** `GET /v1/mcp/elicitations`: questions MCP servers ask the person during tool calls. */
  listMcpElicitations(): Promise<McpElicitationList> {
    return this.run(this.http.GET("/v1/mcp/elicitations"), "GET /v1/mcp/elicitations");
  }

  /** `POST /v1/mcp/elicitations/{id}`: accept (with the form's values), decline or cancel. */
  async replyMcpElicitation(id: string, reply: McpElicitationReply): Promise<void> {
    await this.run(
      this.http.POST("/v1/mcp/elicitations/{id}", { params: { path: { id } }, body: reply }),
      "POST /v1/mcp/elicitations/{id}",
    );
  }

  /** `GET /v1/mcp/resources`: resources of every ready server. */
  listMcpResources(): Promise<McpResourceList> {
    return this.run(this.http.GET("/v1/mcp/resources"), "GET /v1/mcp/resources");
  }

  /** The answer's body, or the failure as an {@link ApiRequestError} (a held merge as {@link HeldMerge}). */
  private async run<T>(call: Promise<Settled>, what: string): Promise<T> {
    let settled: Settled;
    try {
      settled = await call;
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new ApiRequestError(200, "bad_response", `${what} answered with a body that is not JSON`);
      }
      throw new ApiRequestError(0, "network_error", `Cannot reach the server: ${describe(err)}`);
    }
    const { response } = settled;
    if (!response.ok) {
      throw (response.status === 409 && heldMerge(settled.error)) || errorFrom(response.status, settled.error);
    }
    return settled.data as T;
  }
}

/** Turns a failed answer into an {@link ApiRequestError}, reading Braid's error body when there
 * is one (`body` as openapi-fetch gives it: parsed JSON, or the text when it was not JSON). */
export function errorFrom(status: number, body: unknown): ApiRequestError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error && typeof error.code === "string" && typeof error.message === "string") {
    const e = error as unknown as ApiErrorBody;
    return new ApiRequestError(status, e.code, e.message, e.field);
  }
  const text = typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body);
  const snippet = text.trim().slice(0, 200);
  return new ApiRequestError(
    status,
    "bad_response",
    `The server answered ${status}${snippet ? `: ${snippet}` : ""}`,
  );
}

/** A 409 that holds a merge: the server's error and the merge's outcome. */
class HeldMerge extends ApiRequestError {
  readonly outcome: MergeOutcome;

  constructor(body: MergeHeld) {
    super(409, body.error.code, body.error.message, body.error.field);
    const { error: _error, ...outcome } = body;
    this.outcome = outcome;
  }
}

/** The held merge a 409's body describes, when it is one (it lists `conflicts` and `warnings`). */
function heldMerge(body: unknown): HeldMerge | null {
  if (isRecord(body) && isRecord(body.error) && Array.isArray(body.conflicts) && Array.isArray(body.warnings)) {
    return new HeldMerge(body as unknown as MergeHeld);
  }
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/** A page read ahead ({@link ApiClient.readAhead}): when it started, and its answer. */
interface ReadAhead {
  at: number;
  answer: Promise<MessageList>;
  /** The answer, once it is in. */
  read?: MessageList;
}

/** How long a page read ahead may wait for its caller before it counts as stale. */
const READ_AHEAD_MS = 10_000;

/** The same string for the same page of the same context, whatever the query's key order. */
function pageKey(id: string, query: MessageQuery): string {
  const q = present(query) as Record<string, unknown>;
  return JSON.stringify([id, Object.keys(q).sort().map((k) => [k, q[k]])]);
}

/** The query's parameters that have a value. */
function present(query: MessageQuery): MessageQuery {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== "")) as MessageQuery;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
