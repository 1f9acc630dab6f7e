// The typed HTTP client for Braid's `/v1` API. One method per route of DESIGN.md's table; every
// request and answer body is a type generated from the Rust protocol crate.

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
  McpResourceList,
  McpElicitationList,
  McpElicitationReply,
  McpPromptList,
  McpPromptText,
  McpServerList,
  MergeHeld,
  MergeOutcome,
  MergeRequest,
  ServerSettings,
  MessageList,
  MessageView,
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
  /** Only messages after this id (paging). */
  after?: string;
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

/** The typed client for Braid's HTTP API. */
export class ApiClient {
  readonly baseUrl: string;
  readonly token: string | undefined;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.token = options.token;
    // Bound so that `window.fetch` is not called with another `this`.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** `GET /health`: whether the server answers. */
  async health(): Promise<boolean> {
    try {
      await this.request("GET", "/health", undefined, "text");
      return true;
    } catch {
      return false;
    }
  }

  /** `GET /v1/contexts`: every context, newest first. */
  listContexts(): Promise<ContextList> {
    return this.request("GET", "/v1/contexts");
  }

  /** `POST /v1/contexts`: a new context. */
  createContext(body: CreateContextRequest): Promise<ContextSummary> {
    return this.request("POST", "/v1/contexts", body);
  }

  /** `GET /v1/contexts/{id}`. */
  getContext(id: string): Promise<ContextSummary> {
    return this.request("GET", `/v1/contexts/${enc(id)}`);
  }

  /** `PATCH /v1/contexts/{id}`: rename or reconfigure. */
  updateContext(id: string, body: UpdateContextRequest): Promise<ContextSummary> {
    return this.request("PATCH", `/v1/contexts/${enc(id)}`, body);
  }

  /** `DELETE /v1/contexts/{id}`. */
  async deleteContext(id: string): Promise<void> {
    await this.request("DELETE", `/v1/contexts/${enc(id)}`);
  }

  /** `GET /v1/contexts/{id}/messages`: one page of a branch's messages. */
  listMessages(id: string, query: MessageQuery = {}): Promise<MessageList> {
    return this.request("GET", `/v1/contexts/${enc(id)}/messages${search(query)}`);
  }

  /** `POST /v1/contexts/{id}/messages`: queue a message; progress arrives as events. */
  sendMessage(id: string, body: SendMessageRequest): Promise<SendMessageResponse> {
    return this.request("POST", `/v1/contexts/${enc(id)}/messages`, body);
  }

  /** `POST /v1/contexts/{id}/messages/{message_id}/retry`: run a failed send's pipeline again. */
  retryMessage(id: string, messageId: string): Promise<SendMessageResponse> {
    return this.request("POST", `/v1/contexts/${enc(id)}/messages/${enc(messageId)}/retry`);
  }

  /** `POST /v1/contexts/{id}/plans/{message_id}/execute`: switch to act mode and run a plan (409 once it ran). */
  executePlan(id: string, planId: string): Promise<SendMessageResponse> {
    return this.request("POST", `/v1/contexts/${enc(id)}/plans/${enc(planId)}/execute`);
  }

  /** `DELETE /v1/contexts/{id}/messages/{message_id}`: delete failed (or still queued) input with the rest of its send. */
  async deleteMessage(id: string, messageId: string): Promise<void> {
    await this.request("DELETE", `/v1/contexts/${enc(id)}/messages/${enc(messageId)}`);
  }

  /** The URL of `GET /v1/contexts/{id}/events`, replaying after `after` when given. */
  eventsUrl(id: string, after?: number): string {
    const q = after === undefined ? "" : `?after=${after}`;
    return `${this.baseUrl}/v1/contexts/${enc(id)}/events${q}`;
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
    return this.request("GET", `/v1/contexts/${enc(id)}/state${history ? "?history=true" : ""}`);
  }

  /** `GET /v1/contexts/{id}/files`: the workspace's files (gitignored ones left out), for the file picker. */
  listWorkspaceFiles(id: string, query = "", limit = 1000): Promise<WorkspaceFileList> {
    const q = new URLSearchParams({ limit: String(limit) });
    if (query) q.set("query", query);
    return this.request("GET", `/v1/contexts/${enc(id)}/files?${q.toString()}`);
  }

  /** `POST /v1/contexts/{id}/approvals`: decide pending tool calls. */
  async approve(id: string, body: ApprovalRequest): Promise<void> {
    await this.request("POST", `/v1/contexts/${enc(id)}/approvals`, body);
  }

  /** `POST /v1/contexts/{id}/interrupt`: stop after the running tool. */
  async interrupt(id: string): Promise<void> {
    await this.request("POST", `/v1/contexts/${enc(id)}/interrupt`);
  }

  /** `GET /v1/workflows?context={id}`: the workflows a context can use, with their errors. */
  listWorkflows(contextId: string): Promise<WorkflowList> {
    return this.request("GET", `/v1/workflows?context=${enc(contextId)}`);
  }

  /** `POST /v1/contexts/{id}/workflows/{name}/run`: starts a run with these parameters. */
  runWorkflow(contextId: string, name: string, parameters: Record<string, unknown>): Promise<WorkflowRunResponse> {
    return this.request("POST", `/v1/contexts/${enc(contextId)}/workflows/${enc(name)}/run`, { parameters });
  }

  /** `POST /v1/contexts/{id}/workflows/executions/{eid}/{pause|resume|cancel}`. */
  async controlWorkflow(contextId: string, executionId: string, action: WorkflowAction): Promise<void> {
    await this.request("POST", `/v1/contexts/${enc(contextId)}/workflows/executions/${enc(executionId)}/${action}`);
  }

  /** `POST /v1/contexts/{id}/resume`: continue a paused or failed loop. */
  async resume(id: string): Promise<void> {
    await this.request("POST", `/v1/contexts/${enc(id)}/resume`);
  }

  /** `PUT /v1/contexts/{id}/mode`: plan or act. */
  async setMode(id: string, body: SetModeRequest): Promise<void> {
    await this.request("PUT", `/v1/contexts/${enc(id)}/mode`, body);
  }

  /** `GET /v1/contexts/{id}/branches`. */
  listBranches(id: string): Promise<BranchList> {
    return this.request("GET", `/v1/contexts/${enc(id)}/branches`);
  }

  /** `POST /v1/contexts/{id}/branches`: fork a branch, optionally from any message. */
  createBranch(id: string, body: CreateBranchRequest): Promise<BranchInfo> {
    return this.request("POST", `/v1/contexts/${enc(id)}/branches`, body);
  }

  /** `POST /v1/contexts/{id}/branches/{name}/activate`: switch to it. */
  async activateBranch(id: string, name: string): Promise<void> {
    await this.request("POST", `/v1/contexts/${enc(id)}/branches/${enc(name)}/activate`);
  }

  /** `POST /v1/contexts/{id}/branches/{name}/merge`: merge branch `source` into the request's
   * target, or preview it with `dry_run`. A 409 that holds the merge answers `held` with its
   * conflicts and warnings; any other failure throws. */
  async mergeBranch(id: string, source: string, body: MergeRequest): Promise<MergeAnswer> {
    try {
      const outcome = await this.request<MergeOutcome>(
        "POST",
        `/v1/contexts/${enc(id)}/branches/${enc(source)}/merge`,
        body,
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
    await this.request("DELETE", `/v1/contexts/${enc(id)}/branches/${enc(name)}`);
  }

  /** `GET /v1/tools`: every registered tool. */
  listTools(): Promise<ToolList> {
    return this.request("GET", "/v1/tools");
  }

  /** `GET /v1/settings`: the server's settings a client shows (the allowed workspace roots). */
  getSettings(): Promise<ServerSettings> {
    return this.request("GET", "/v1/settings");
  }

  /** `GET /v1/mcp/servers`: MCP servers with their status and tools. */
  listMcpServers(): Promise<McpServerList> {
    return this.request("GET", "/v1/mcp/servers");
  }

  /** `POST /v1/mcp/servers/reload`: re-read the MCP configuration. */
  async reloadMcpServers(): Promise<void> {
    await this.request("POST", "/v1/mcp/servers/reload");
  }

  /** `GET /v1/mcp/prompts`: the prompts of every ready MCP server. */
  listMcpPrompts(): Promise<McpPromptList> {
    return this.request("GET", "/v1/mcp/prompts");
  }

  /** `POST /v1/mcp/prompts/{server}/{name}`: a prompt with its arguments, as text to send. */
  getMcpPrompt(server: string, name: string, args: Record<string, string>): Promise<McpPromptText> {
    return this.request("POST", `/v1/mcp/prompts/${enc(server)}/${enc(name)}`, { arguments: args });
  }

  /** `GET /v1/mcp/elicitations`: questions MCP servers ask the person during tool calls. */
  listMcpElicitations(): Promise<McpElicitationList> {
    return this.request("GET", "/v1/mcp/elicitations");
  }

  /** `POST /v1/mcp/elicitations/{id}`: accept (with the form's values), decline or cancel. */
  async replyMcpElicitation(id: string, reply: McpElicitationReply): Promise<void> {
    await this.request("POST", `/v1/mcp/elicitations/${enc(id)}`, reply);
  }

  /** `GET /v1/mcp/resources`: resources of every ready server. */
  listMcpResources(): Promise<McpResourceList> {
    return this.request("GET", "/v1/mcp/resources");
  }

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    expect: "json" | "text" = "json",
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json", ...this.authHeaders() };
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${path}`, init);
    } catch (err) {
      throw new ApiRequestError(0, "network_error", `Cannot reach the server: ${describe(err)}`);
    }
    const text = await res.text().catch(() => "");
    if (!res.ok) {
      throw (res.status === 409 && heldMerge(text)) || errorFrom(res.status, text);
    }
    if (expect === "text") {
      return text as T;
    }
    if (text.trim() === "") {
      return undefined as T;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiRequestError(
        res.status,
        "bad_response",
        `${method} ${path} answered ${res.status} with a body that is not JSON`,
      );
    }
  }
}

/** Turns a failed answer into an {@link ApiRequestError}, reading Braid's error body when there is one. */
export function errorFrom(status: number, text: string): ApiRequestError {
  try {
    const parsed: unknown = JSON.parse(text);
    const body = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
    if (body && typeof body.code === "string" && typeof body.message === "string") {
      const e = body as ApiErrorBody;
      return new ApiRequestError(status, e.code, e.message, e.field);
    }
  } catch {
    // Not JSON: fall through to a generic error that keeps the text.
  }
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
function heldMerge(text: string): HeldMerge | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed) && isRecord(parsed.error) && Array.isArray(parsed.conflicts) && Array.isArray(parsed.warnings)) {
      return new HeldMerge(parsed as unknown as MergeHeld);
    }
  } catch {
    // Not JSON: the generic error reads it.
  }
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function search(query: MessageQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") {
      params.set(key, String(value));
    }
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
