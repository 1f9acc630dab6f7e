import { describe, expect, it } from "vitest";
import { ApiClient, ApiRequestError } from "./client";
import { recordingClient } from "../test/api";

describe("ApiClient", () => {
  it("calls every route with its method, path and body", async () => {
    const { api, calls } = recordingClient((c) => ({ status: c.method === "DELETE" ? 204 : 200, body: c.method === "DELETE" ? undefined : {} }));
    await api.listContexts();
    await api.createContext({ title: "t", config: { model: "", mode: "act", agent_role: "actor", approval_policy: { type: "manual" }, tool_timeout_secs: 30, optimization: { strategy: { type: "intelligent" }, reserve_output_tokens: 4096, margin_tokens: 0, ledger_percent: 15 } } });
    await api.getContext("c 1");
    await api.updateContext("c1", { title: "new" });
    await api.deleteContext("c1");
    await api.listMessages("c1", { branch: "main", view: "optimized", after: "m9", limit: 50 });
    await api.sendMessage("c1", { payload: { type: "text", text: "hi" } });
    await api.getState("c1", true);
    await api.approve("c1", { decisions: [{ call_id: "k", decision: "approve_for_session" }] });
    await api.interrupt("c1");
    await api.resume("c1");
    await api.setMode("c1", { mode: "plan" });
    await api.listBranches("c1");
    await api.createBranch("c1", { name: "alt", from_message: "m3" });
    await api.activateBranch("c1", "alt");
    await api.deleteBranch("c1", "alt");
    await api.listTools();
    await api.listMcpServers();
    await api.reloadMcpServers();
    await api.listMcpResources();
    await api.listMcpPrompts();
    await api.getMcpPrompt("everything", "args-prompt", { city: "Lyon" });
    await api.listMcpElicitations();
    await api.replyMcpElicitation("7", { action: "decline" });
    await api.listWorkspaceFiles("c1", "lib", 50);
    await api.getSettings();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      "GET /v1/contexts",
      "POST /v1/contexts",
      "GET /v1/contexts/c%201",
      "PATCH /v1/contexts/c1",
      "DELETE /v1/contexts/c1",
      "GET /v1/contexts/c1/messages?branch=main&view=optimized&after=m9&limit=50",
      "POST /v1/contexts/c1/messages",
      "GET /v1/contexts/c1/state?history=true",
      "POST /v1/contexts/c1/approvals",
      "POST /v1/contexts/c1/interrupt",
      "POST /v1/contexts/c1/resume",
      "PUT /v1/contexts/c1/mode",
      "GET /v1/contexts/c1/branches",
      "POST /v1/contexts/c1/branches",
      "POST /v1/contexts/c1/branches/alt/activate",
      "DELETE /v1/contexts/c1/branches/alt",
      "GET /v1/tools",
      "GET /v1/mcp/servers",
      "POST /v1/mcp/servers/reload",
      "GET /v1/mcp/resources",
      "GET /v1/mcp/prompts",
      "POST /v1/mcp/prompts/everything/args-prompt",
      "GET /v1/mcp/elicitations",
      "POST /v1/mcp/elicitations/7",
      "GET /v1/contexts/c1/files?limit=50&query=lib",
      "GET /v1/settings",
    ]);
    expect(calls[6]?.body).toEqual({ payload: { type: "text", text: "hi" } });
    expect(calls[8]?.body).toEqual({ decisions: [{ call_id: "k", decision: "approve_for_session" }] });
    expect(calls[13]?.body).toEqual({ name: "alt", from_message: "m3" });
    expect(calls[0]?.headers.authorization).toBe("Bearer tok");
    expect(api.eventsUrl("c1", 4)).toBe("/v1/contexts/c1/events?after=4");
  });

  it("adds, replaces and removes MCP servers with their definitions", async () => {
    const { api, calls } = recordingClient(() => ({ status: 200, body: { servers: [], editing: "editable" } }));
    await api.addMcpServer("everything", { command: "node", args: ["index.js"] });
    await api.replaceMcpServer("my server", { url: "http://h/mcp", headers: { Authorization: null } });
    const list = await api.removeMcpServer("everything");
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      "POST /v1/mcp/servers",
      "PUT /v1/mcp/servers/my%20server",
      "DELETE /v1/mcp/servers/everything",
    ]);
    expect(calls[0]?.body).toEqual({ name: "everything", server: { command: "node", args: ["index.js"] } });
    expect(calls[1]?.body).toEqual({ url: "http://h/mcp", headers: { Authorization: null } });
    expect(list).toEqual({ servers: [], editing: "editable" });
  });

  it("turns the server's error body into an ApiRequestError with code, message and field", async () => {
    const { api } = recordingClient(() => ({ status: 422, body: { error: { code: "invalid_input", message: "payload.path: contains ..", field: "payload.path" } } }));
    const err = await api.sendMessage("c1", { payload: { type: "file_reference", path: "../x" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect(err).toMatchObject({ status: 422, code: "invalid_input", field: "payload.path", message: "payload.path: contains .." });
  });

  it("reports an answer that is not a Braid error body with its status and text", async () => {
    const { api } = recordingClient(() => ({ status: 502, body: "Bad Gateway" }));
    await expect(api.listContexts()).rejects.toMatchObject({ status: 502, code: "bad_response", message: "The server answered 502: Bad Gateway" });
  });

  it("answers a merge held by conflicts as held, with the outcome, and other 409s as errors", async () => {
    const outcome = {
      source: "alt", target: "main", strategy: "rebase", merged: false, moved: ["m2"], removed: [], skipped: [], warnings: [], resolutions: [],
      conflicts: [{ id: "file_write:a.txt", kind: "file_write", messages: [], detail: "both wrote a.txt", suggestions: ["keep_target", "take_source"] }],
    };
    const { api, calls } = recordingClient(() => ({ status: 409, body: { error: { code: "conflict", message: "1 conflict without a resolution" }, ...outcome } }));
    const answer = await api.mergeBranch("c1", "alt", { strategy: { type: "rebase" } });
    expect(calls[0]).toMatchObject({ method: "POST", url: "/v1/contexts/c1/branches/alt/merge", body: { strategy: { type: "rebase" } } });
    expect(answer).toEqual({ kind: "held", outcome, message: "1 conflict without a resolution" });

    const { api: done } = recordingClient(() => ({ status: 200, body: { ...outcome, conflicts: [], merged: true } }));
    expect(await done.mergeBranch("c1", "alt", { strategy: { type: "append" } })).toMatchObject({ kind: "done", outcome: { merged: true } });

    const { api: busy } = recordingClient(() => ({ status: 409, body: { error: { code: "conflict", message: "the context is busy" } } }));
    await expect(busy.mergeBranch("c1", "alt", { strategy: { type: "append" } })).rejects.toMatchObject({ status: 409, message: "the context is busy" });
  });

  it("answers one read with a page read ahead with the same arguments, and reads anew after", async () => {
    let n = 0;
    const { api, calls } = recordingClient(() => ({ status: 200, body: { messages: [], markers: [], page: n++ } }));
    await api.readAhead("c1", { view: "full", from: "end", limit: 100 });
    expect(calls.length).toBe(1);
    // Another page of the same context is not the one read ahead.
    await api.listMessages("c1", { view: "optimized", from: "end", limit: 100 });
    expect(calls.length).toBe(2);
    // The same arguments in another order: answered by the read ahead, once.
    expect(api.takeReadAhead("c1", { limit: 100, from: "end", view: "full" })).toMatchObject({ page: 0 });
    expect(api.takeReadAhead("c1", { limit: 100, from: "end", view: "full" })).toBeUndefined();
    await api.readAhead("c2", { view: "full", from: "end", limit: 100 });
    expect(await api.listMessages("c2", { view: "full", from: "end", limit: 100 })).toMatchObject({ page: 2 });
    expect(await api.listMessages("c2", { view: "full", from: "end", limit: 100 })).toMatchObject({ page: 3 });
    expect(calls.map((c) => c.url)).toEqual([
      "/v1/contexts/c1/messages?view=full&from=end&limit=100",
      "/v1/contexts/c1/messages?view=optimized&from=end&limit=100",
      "/v1/contexts/c2/messages?view=full&from=end&limit=100",
      "/v1/contexts/c2/messages?view=full&from=end&limit=100",
    ]);
  });

  it("keeps a failed read ahead to itself until it is asked for", async () => {
    const { api } = recordingClient(() => ({ status: 404, body: { error: { code: "not_found", message: "no context c9" } } }));
    await api.readAhead("c9", { view: "full", from: "end", limit: 100 });
    expect(api.takeReadAhead("c9", { view: "full", from: "end", limit: 100 })).toBeUndefined();
    await expect(api.listMessages("c9", { view: "full", from: "end", limit: 100 })).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("reports a network failure as network_error", async () => {
    const api = new ApiClient({ fetch: (async () => { throw new TypeError("Failed to fetch"); }) as unknown as typeof fetch });
    await expect(api.listTools()).rejects.toMatchObject({ status: 0, code: "network_error" });
  });
});
