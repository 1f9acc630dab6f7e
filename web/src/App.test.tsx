import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HISTORY_VIEW_KEY } from "./conversation/historyView";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "./App";
import { FakeServer, summary } from "./test/server";
import { msg, textMsg } from "./test/fixtures";

const T = "2026-11-22T05:00:00Z";
let server: FakeServer;

beforeEach(() => {
  server = new FakeServer();
  server.contexts = [summary("c1", "Parser refactor"), summary("c2", "Release notes")];
  server.branches.c1 = { active: "main", branches: [{ name: "main", message_count: 1, created_at: T }, { name: "alt", message_count: 1, created_at: T, system_prompt: "Be terse." }] };
  server.messages.c1 = [textMsg("m1", "Hello there", { role: "user" })];
  window.history.replaceState(null, "", "/contexts/c1");
});
afterEach(() => {
  window.history.replaceState(null, "", "/");
});

describe("App", () => {
  it("opens the context named by the address with its messages", async () => {
    render(<App api={server.api} />);
    expect(await screen.findByText("Hello there")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Parser refactor");
    expect(screen.getByRole("link", { name: "Parser refactor" }).getAttribute("aria-current")).toBe("page");
    // The newest page, not the whole history from its start.
    expect(server.requests.some((r) => r.path === "/v1/contexts/c1/messages?view=full&from=end&limit=100")).toBe(true);
  });

  it("offers the workspace's files in the file picker", async () => {
    server.contexts[0]!.config.workspace = "/home/me/project";
    server.files.c1 = ["src/main.rs", "README.md"];
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    await waitFor(() => {
      const options = [...document.querySelectorAll("datalist option")].map((o) => o.getAttribute("value"));
      expect(options).toEqual(["README.md", "src/main.rs"]);
    });
    expect(server.requests.some((r) => r.path.startsWith("/v1/contexts/c1/files"))).toBe(true);
  });

  it("streams a reply chunk by chunk and shows the state indicator", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    await waitFor(() => expect(server.streamCount).toBe(1));
    act(() => {
      server.push(1, "context_update", { context_id: "c1", current_state: { type: "streaming_llm_response", chunks: 1, chars: 5 }, message_update: { type: "created", message_id: "a1", kind: "text", role: "assistant" }, timestamp: T, metadata: {} });
      server.push(2, "content_delta", { context_id: "c1", message_id: "a1", sequence: 1, delta: "Hi, ", is_final: false });
    });
    expect(await screen.findByText("Hi,")).toBeTruthy();
    expect(screen.getByText("Streaming… 1 chunk, 5 characters")).toBeTruthy();
    act(() => server.push(3, "content_delta", { context_id: "c1", message_id: "a1", sequence: 2, delta: "how can I help?", is_final: false }));
    expect(await screen.findByText("Hi, how can I help?")).toBeTruthy();
  });

  it("reconnects after the stream drops, sending Last-Event-ID", async () => {
    render(<App api={server.api} />);
    await waitFor(() => expect(server.streamCount).toBe(1));
    act(() => server.push(5, "heartbeat", { timestamp: T }));
    act(() => server.drop());
    await waitFor(() => expect(server.streamCount).toBe(2));
    const reconnect = server.requests.filter((r) => r.path.startsWith("/v1/contexts/c1/events")).at(-1);
    expect(reconnect?.headers["last-event-id"]).toBe("5");
  });

  it("shows an error event with what to do", async () => {
    render(<App api={server.api} />);
    await waitFor(() => expect(server.streamCount).toBe(1));
    act(() => server.push(1, "error", { context_id: "c1", code: "llm_unavailable", message: "connection refused", recoverable: true }));
    const alert = await screen.findByText("connection refused");
    expect(alert.closest("li")?.textContent).toMatch(/Check that it is running/);
  });

  it("loads a tool request announced by the stream and approves it", async () => {
    render(<App api={server.api} />);
    await waitFor(() => expect(server.streamCount).toBe(1));
    server.messages.c1 = [...server.messages.c1!, msg("t1", "tool_request", { calls: [{ id: "call_1", name: "read_file", arguments: { path: "a.rs" }, approval_status: "pending" }] })];
    act(() => server.push(1, "context_update", { context_id: "c1", current_state: { type: "awaiting_tool_approval", pending_requests: ["call_1"], tool_names: ["read_file"] }, message_update: { type: "created", message_id: "t1", kind: "tool_request", role: "assistant" }, timestamp: T, metadata: {} }));
    expect(await screen.findByText("Awaiting your approval: read_file")).toBeTruthy();
    await screen.findByRole("button", { name: "Approve" });
    await userEvent.click(screen.getByRole("button", { name: "Review" }));
    expect(document.activeElement?.textContent).toBe("Approve");
    await userEvent.click(await screen.findByRole("button", { name: "Approve" }));
    expect(server.requests.at(-1)).toMatchObject({ method: "POST", path: "/v1/contexts/c1/approvals", body: { decisions: [{ call_id: "call_1", decision: "approve" }] } });
  });

  it("sends a message from the composer with Enter", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    await userEvent.type(screen.getByLabelText("Message"), "Explain lib.rs{Enter}");
    await waitFor(() => expect(server.requests.some((r) => r.method === "POST" && r.path === "/v1/contexts/c1/messages")).toBe(true));
    expect(server.requests.find((r) => r.method === "POST" && r.path === "/v1/contexts/c1/messages")?.body).toEqual({ payload: { type: "text", text: "Explain lib.rs" } });
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("");
  });

  it("moves to another context's address when it is opened", async () => {
    render(<App api={server.api} />);
    await userEvent.click(await screen.findByRole("link", { name: "Release notes" }));
    expect(window.location.pathname).toBe("/contexts/c2");
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Release notes"));
  });

  it("switches branch and shows its system prompt override", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    server.branches.c1 = { ...server.branches.c1!, active: "alt" };
    await userEvent.selectOptions(screen.getByLabelText("Branch"), "alt");
    expect(server.requests.some((r) => r.method === "POST" && r.path === "/v1/contexts/c1/branches/alt/activate")).toBe(true);
    expect(await screen.findByText("Be terse.")).toBeTruthy();
  });

  it("branches from a message", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    await userEvent.click(screen.getByRole("button", { name: "Branch from here" }));
    // The form opens at the message, its name filled with a free one.
    const dialog = screen.getByRole("form", { name: "Branch from this message" });
    expect(dialog.closest("li.message")?.getAttribute("data-id")).toBe("m1");
    const name = within(dialog).getByLabelText(/New branch from here/) as HTMLInputElement;
    expect(name.value).toBe("branch-1");
    await userEvent.clear(name);
    await userEvent.type(name, "try-2");
    await userEvent.click(within(dialog).getByText("System prompt for this branch (optional)"));
    await userEvent.type(within(dialog).getByLabelText("System prompt for this branch"), "Answer in French.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create branch" }));
    await waitFor(() => expect(server.requests.some((r) => r.path === "/v1/contexts/c1/branches/try-2/activate")).toBe(true));
    expect(server.requests.find((r) => r.method === "POST" && r.path === "/v1/contexts/c1/branches")?.body).toEqual({ name: "try-2", from_message: "m1", system_prompt: "Answer in French." });
  });

  it("marks an optimized history and switches to the full one", async () => {
    window.localStorage.setItem(HISTORY_VIEW_KEY, "optimized");
    server.messages.c1 = [msg("s1", "system_control", { type: "summary", text: "Earlier talk.", replaces: ["x", "y"], tokens_before: 900, tokens_after: 90 }), textMsg("m2", "Latest", { role: "user" })];
    render(<App api={server.api} />);
    await screen.findByText("Latest");
    const marker = screen.getByText("History optimized: 2 earlier messages summarized (900 → 90 tokens)");
    await userEvent.click(within(marker.closest(".divider") as HTMLElement).getByRole("button", { name: "Show full history" }));
    await waitFor(() => expect(server.requests.some((r) => r.path === "/v1/contexts/c1/messages?view=full&from=end&limit=100")).toBe(true));
    expect((screen.getByLabelText("Full history") as HTMLInputElement).checked).toBe(true);
    window.localStorage.removeItem(HISTORY_VIEW_KEY);
  });

  it("refreshes the context when a turn ends, e.g. for the title the model wrote", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    await waitFor(() => expect(server.streamCount).toBe(1));
    server.contexts = [summary("c1", "Parser refactor, part 2"), server.contexts[1]!];
    act(() => server.push(1, "context_update", { context_id: "c1", current_state: { type: "processing_llm_response" }, timestamp: T, metadata: {} }));
    act(() => server.push(2, "context_update", { context_id: "c1", current_state: { type: "idle" }, timestamp: T, metadata: {} }));
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Parser refactor, part 2"));
    expect(screen.getByRole("link", { name: "Parser refactor, part 2" })).toBeTruthy();
  });

  it("opens the MCP panel, adds a resource to the context, and closes with Escape", async () => {
    render(<App api={server.api} />);
    await screen.findByText("Hello there");
    const fetchResources = server.api.listMcpResources.bind(server.api);
    server.api.listMcpResources = async () => ({ ...(await fetchResources()), resources: [{ server_name: "docs", uri: "doc://intro", name: "Intro" }] });
    server.api.listMcpServers = async () => ({ servers: [{ name: "docs", status: "ready", tools: [] }] });
    await userEvent.click(screen.getByRole("button", { name: "MCP" }));
    await userEvent.click(await screen.findByText("1 resources"));
    await userEvent.click(screen.getByRole("button", { name: "Add Intro to context" }));
    await waitFor(() => expect(server.requests.at(-1)).toMatchObject({ method: "POST", path: "/v1/contexts/c1/messages", body: { payload: { type: "mcp_resource", server_name: "docs", resource_uri: "doc://intro" } } }));
    expect(screen.getByRole("region", { name: "MCP servers" })).toBeTruthy();
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("region", { name: "MCP servers" })).toBeNull();
  });
});
