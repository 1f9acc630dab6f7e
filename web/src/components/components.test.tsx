import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Composer, composeRequests, editedSend, toReference } from "./Composer";
import { Sidebar } from "./Sidebar";
import { SettingsPanel, contextWindowFrom, instructionsText, llmTimeoutFrom, policyFrom, strategyFrom, timeoutFrom } from "./SettingsPanel";
import { McpPanel, definitionFrom, editingNote, formFrom, problemFrom } from "./McpPanel";
import { ApiRequestError } from "../api/client";
import { BranchSwitcher, branchNameProblem } from "./BranchSwitcher";
import { StatusBar } from "./StatusBar";
import { matchingPrompts, slashQuery } from "./SlashMenu";
import { parameterFields, parameterValues } from "./WorkflowForm";
import type { MessageSearchHit, ModelCapabilitiesView, ModelList, WorkflowInfo } from "../generated/protocol";
import { SEARCH_DEBOUNCE_MS } from "./MessageHits";
import { summary } from "../test/server";
import { msg } from "../test/fixtures";
import { initialConversation } from "../conversation/reducer";
import { parseRoute, routePath } from "../router";
import { CrashScreen } from "./CrashScreen";

/** A model's figures as `GET /v1/models` describes them. */
function described(model: string, window: number, vision: boolean, tools: "native" | "prompted"): ModelCapabilitiesView {
  return {
    model,
    context_window: { value: window, source: "server" },
    max_output_tokens: { value: 4096, source: "default" },
    vision: { value: vision, source: "server" },
    tool_calling: { value: tools, source: "server" },
  };
}

const modelList: ModelList = {
  default_model: "mock",
  models: [described("mock", 32_768, false, "native"), described("qwen2.5", 131_072, true, "prompted")],
};

describe("composer", () => {
  it("turns references into payloads and names what is wrong", () => {
    expect(toReference({ path: " src/a.rs ", start: "", end: "" })).toEqual({ path: "src/a.rs" });
    expect(toReference({ path: "a.rs", start: "3", end: "9" })).toEqual({ path: "a.rs", range: { start_line: 3, end_line: 9 }, display_text: "@a.rs:3-9" });
    expect(toReference({ path: "a.rs", start: "4", end: "" })).toMatchObject({ range: { start_line: 4, end_line: 4 } });
    expect(toReference({ path: "a.rs", start: "9", end: "3" })).toBe("a.rs: the last line must be at least the first (9)");
    expect(toReference({ path: "a.rs", start: "0", end: "" })).toMatch(/first line must be a whole number/);
    expect(toReference({ path: "", start: "", end: "" })).toBe("a file reference needs a path");
  });

  it("sends the text with its references and images in one request", () => {
    const r = composeRequests("look", [{ path: "a.rs", start: "", end: "" }], [{ name: "x.png", mediaType: "image/png", data: "AA==" }]);
    expect(r).toEqual([
      {
        payload: {
          type: "text",
          text: "look",
          file_references: [{ path: "a.rs" }],
          images: [{ source: { type: "base64", media_type: "image/png", data: "AA==" }, recognition_mode: "auto" }],
        },
      },
    ]);
    expect(composeRequests("  ", [], [])).toMatch(/write a message/);
  });

  it("adds a file reference with a line range and sends it", async () => {
    const onSend = vi.fn(async () => {});
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Reference a file" }));
    await userEvent.type(screen.getByLabelText("Path of reference 1"), "src/lib.rs");
    await userEvent.type(screen.getByLabelText("First line of reference 1"), "10");
    await userEvent.type(screen.getByLabelText("Last line of reference 1"), "20");
    await userEvent.type(screen.getByLabelText("Message"), "What does this do?");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onSend).toHaveBeenCalledWith([{ payload: { type: "text", text: "What does this do?", file_references: [{ path: "src/lib.rs", range: { start_line: 10, end_line: 20 }, display_text: "@src/lib.rs:10-20" }] } }]);
    expect(screen.queryByLabelText("Path of reference 1")).toBeNull();
  });

  it("refuses a bad range without sending, and keeps the draft when the send fails", async () => {
    const onSend = vi.fn(async () => { throw new Error("down"); });
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Reference a file" }));
    await userEvent.type(screen.getByLabelText("Path of reference 1"), "a.rs");
    await userEvent.type(screen.getByLabelText("First line of reference 1"), "5");
    await userEvent.type(screen.getByLabelText("Last line of reference 1"), "2");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(screen.getByRole("alert").textContent).toMatch(/last line must be at least the first/);
    expect(onSend).not.toHaveBeenCalled();
    await userEvent.clear(screen.getByLabelText("Last line of reference 1"));
    await userEvent.type(screen.getByLabelText("Message"), "keep me");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() => expect(onSend).toHaveBeenCalled());
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("keep me");
  });

  it("attaches a pasted image", async () => {
    const onSend = vi.fn(async () => {});
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} />);
    const file = new File([new Uint8Array([1, 2, 3])], "shot.png", { type: "image/png" });
    fireEvent.paste(screen.getByLabelText("Message"), { clipboardData: { files: [file], getData: () => "" } });
    expect(await screen.findByAltText("shot.png")).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onSend).toHaveBeenCalledWith([{ payload: { type: "text", text: "", images: [{ source: { type: "base64", media_type: "image/png", data: "AQID" }, recognition_mode: "auto" }] } }]);
  });

  it("attaches a dropped image and sends it with the question", async () => {
    const onSend = vi.fn(async () => {});
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} />);
    const file = new File([new Uint8Array([4, 5])], "drop.png", { type: "image/png" });
    fireEvent.drop(screen.getByRole("form", { name: "Message composer" }), { dataTransfer: { files: [file], types: ["Files"] } });
    expect(await screen.findByAltText("drop.png")).toBeTruthy();
    await userEvent.type(screen.getByLabelText("Message"), "What is this?");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onSend).toHaveBeenCalledWith([{ payload: { type: "text", text: "What is this?", images: [{ source: { type: "base64", media_type: "image/png", data: "BAU=" }, recognition_mode: "auto" }] } }]);
  });

  it("attaches an uploaded image", async () => {
    render(<Composer busy={false} onSend={async () => {}} onInterrupt={() => {}} />);
    const file = new File([new Uint8Array([9])], "up.jpg", { type: "image/jpeg" });
    await userEvent.upload(screen.getByLabelText("Image files"), file);
    expect(await screen.findByAltText("up.jpg")).toBeTruthy();
  });

  it("offers interrupt only while busy, and Shift+Enter makes a new line", async () => {
    const onInterrupt = vi.fn();
    const onSend = vi.fn(async () => {});
    const { rerender } = render(<Composer busy={false} onSend={onSend} onInterrupt={onInterrupt} />);
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    rerender(<Composer busy onSend={onSend} onInterrupt={onInterrupt} />);
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(onInterrupt).toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText("Message"), "a{Shift>}{Enter}{/Shift}b");
    expect(onSend).not.toHaveBeenCalled();
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("a\nb");
  });
});

describe("sidebar", () => {
  const contexts = [summary("c1", "Parser refactor"), summary("c2", "Release notes", { type: "streaming_llm_response", chunks: 1, chars: 1 })];
  const props = () => ({ contexts, activeId: "c1", onOpen: vi.fn(), onCreate: vi.fn(), onRename: vi.fn(), onDelete: vi.fn() });

  it("tells screen readers which conversations are busy", () => {
    render(<Sidebar {...props()} />);
    expect(screen.getByRole("link", { name: "Release notes (streaming llm response)" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Parser refactor" })).toBeTruthy();
  });

  it("filters by search", async () => {
    render(<Sidebar {...props()} />);
    await userEvent.type(screen.getByLabelText("Search conversations"), "release");
    expect(screen.queryByText("Parser refactor")).toBeNull();
    expect(screen.getByText("Release notes")).toBeTruthy();
  });

  it("searches message text on the server once typing pauses and opens a hit", async () => {
    const hit: MessageSearchHit = {
      context_id: "c1",
      title: "Parser refactor",
      message_id: "m7",
      branch: "main",
      role: "assistant",
      snippet: "The Zebrafish struct keeps the zebra cursor.",
      created_at: "2026-01-01T00:00:00Z",
    };
    const searchMessages = vi.fn(async (_q: string) => [hit]);
    const onOpenMessage = vi.fn();
    render(<Sidebar {...props()} searchMessages={searchMessages} onOpenMessage={onOpenMessage} />);
    await userEvent.type(screen.getByLabelText("Search conversations"), "ZEBRA fish");
    const found = await screen.findByRole("region", { name: "Messages found" });
    const button = await within(found).findByRole("button", { name: /Parser refactor/ });
    // One request for the whole typed query, not one per key.
    expect(searchMessages).toHaveBeenCalledTimes(1);
    expect(searchMessages).toHaveBeenCalledWith("ZEBRA fish");
    expect([...found.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["Zebrafish", "zebra"]);
    await userEvent.click(button);
    expect(onOpenMessage).toHaveBeenCalledWith(hit);
  });

  it("says when no message matches, and does not ask for a query without words", async () => {
    const searchMessages = vi.fn(async (_q: string) => [] as MessageSearchHit[]);
    render(<Sidebar {...props()} searchMessages={searchMessages} onOpenMessage={vi.fn()} />);
    const input = screen.getByLabelText("Search conversations");
    await userEvent.type(input, "?!");
    await new Promise((r) => setTimeout(r, SEARCH_DEBOUNCE_MS + 50));
    expect(searchMessages).not.toHaveBeenCalled();
    await userEvent.clear(input);
    await userEvent.type(input, "narwhal");
    expect(await screen.findByText("No message holds “narwhal”")).toBeTruthy();
  });

  it("creates, opens and renames", async () => {
    const p = props();
    render(<Sidebar {...p} />);
    await userEvent.click(screen.getByRole("button", { name: "New conversation" }));
    expect(p.onCreate).toHaveBeenCalled();
    await userEvent.click(screen.getByRole("link", { name: /^Release notes/ }));
    expect(p.onOpen).toHaveBeenCalledWith("c2");
    await userEvent.click(screen.getByRole("button", { name: "Rename Parser refactor" }));
    const input = screen.getByLabelText("New title");
    await userEvent.clear(input);
    await userEvent.type(input, "Lexer refactor{Enter}");
    expect(p.onRename).toHaveBeenCalledWith("c1", "Lexer refactor");
  });

  it("deletes only after confirmation", async () => {
    const p = props();
    render(<Sidebar {...p} />);
    await userEvent.click(screen.getByRole("button", { name: "Delete Release notes" }));
    expect(p.onDelete).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    expect(p.onDelete).toHaveBeenCalledWith("c2");
  });
});

describe("settings", () => {
  it("builds approval policies and rejects a bad depth", () => {
    expect(policyFrom("white_list", "read_file, grep  ls", "")).toEqual({ type: "white_list", tools: ["read_file", "grep", "ls"] });
    expect(policyFrom("limited_auto", "", "3")).toEqual({ type: "limited_auto", max_depth: 3 });
    expect(policyFrom("limited_auto", "", "0")).toMatch(/whole number from 1/);
    expect(policyFrom("auto_all", "", "")).toEqual({ type: "auto_all" });
  });

  it("lists tools approved for this session and revokes one", async () => {
    const onSave = vi.fn(async () => {});
    const config = { ...summary("c1", "x").config, approved_tools: ["read_file", "grep"] };
    render(<SettingsPanel config={config} onSave={onSave} onMode={async () => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Ask again before read_file" }));
    expect(onSave).toHaveBeenCalledWith({ approved_tools: ["grep"] });
  });

  it("shows the server's allowed workspace roots beside the workspace field", () => {
    render(<SettingsPanel config={summary("c1", "x").config} onSave={async () => {}} onMode={async () => {}} workspaceRoots={["/home/me", "/srv/code"]} />);
    const field = screen.getByLabelText("Workspace path");
    const hint = document.getElementById(field.getAttribute("aria-describedby") ?? "");
    expect(hint?.textContent).toMatch(/Allowed in: \/home\/me, \/srv\/code/);
    expect(hint?.textContent).toMatch(/--workspace-root/);
  });

  it("sets the context window, shows what was discovered, and clears it back to the server's", async () => {
    expect(contextWindowFrom("")).toBeNull();
    expect(contextWindowFrom("32,768")).toBe(32768);
    expect(contextWindowFrom("100")).toMatch(/from 1024/);
    const onSave = vi.fn(async () => {});
    const capabilities = {
      model: "mock",
      context_window: { value: 32768, source: "server" as const },
      max_output_tokens: { value: 4096, source: "default" as const },
      vision: { value: false, source: "default" as const },
      tool_calling: { value: "native" as const, source: "table" as const },
    };
    const { rerender } = render(<SettingsPanel config={summary("c1", "x").config} onSave={onSave} onMode={async () => {}} capabilities={capabilities} />);
    expect(screen.getByLabelText("What the model can do").textContent).toMatch(/32,768-token window \(reported by the model server\)/);
    const field = screen.getByLabelText("Context window (tokens)");
    await userEvent.type(field, "16384");
    await userEvent.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenLastCalledWith(expect.objectContaining({ context_window: 16384 }));
    rerender(<SettingsPanel config={{ ...summary("c1", "x").config, context_window: 16384 }} onSave={onSave} onMode={async () => {}} capabilities={capabilities} />);
    await userEvent.clear(screen.getByLabelText("Context window (tokens)"));
    await userEvent.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenLastCalledWith(expect.objectContaining({ context_window: null }));
  });

  it("refuses a bad timeout or strategy with a message", async () => {
    const onSave = vi.fn(async () => {});
    render(<SettingsPanel config={summary("c1", "x").config} onSave={onSave} onMode={async () => {}} />);
    await userEvent.clear(screen.getByLabelText("Tool timeout (seconds)"));
    await userEvent.type(screen.getByLabelText("Tool timeout (seconds)"), "0");
    await userEvent.click(screen.getByRole("button", { name: "Save settings" }));
    expect(screen.getByRole("alert").textContent).toMatch(/whole seconds from 1 to 3600/);
    expect(onSave).not.toHaveBeenCalled();
    expect(strategyFrom("recent_n", "x", { type: "intelligent" })).toMatch(/whole number from 1/);
    expect(strategyFrom("importance_scoring", "", { type: "importance_scoring", weights: { recency: 2 } })).toEqual({ type: "importance_scoring", weights: { recency: 2 } });
    expect(timeoutFrom("30")).toBe(30);
    expect(llmTimeoutFrom("0")).toMatch(/model call limit/);
    expect(llmTimeoutFrom("300")).toBe(300);
  });

  it("says which instructions file the system prompt carries, and when it was cut", () => {
    const config = { ...summary("c1", "x").config, workspace: "/srv/repo" };
    const info = { path: "AGENTS.md", file_bytes: 12_000, included_bytes: 8192, tokens: 1900, truncated: true };
    render(<SettingsPanel config={config} onSave={async () => {}} onMode={async () => {}} instructions={info} />);
    expect(screen.getByText(/ends with AGENTS\.md \(1900 tokens, cut to 8192 of 12000 bytes\)/)).toBeTruthy();
    expect(instructionsText(undefined)).toMatch(/No AGENTS\.md, CLAUDE\.md or \.braid\/instructions\.md/);
  });

  it("picks the model from the server's list, showing each one's figures, or a name typed in", async () => {
    const onSave = vi.fn(async () => {});
    const config = { ...summary("c1", "x").config, model: "" };
    render(<SettingsPanel config={config} onSave={onSave} onMode={async () => {}} models={modelList} />);
    const picker = screen.getByLabelText("Model") as HTMLSelectElement;
    expect([...picker.options].map((o) => o.textContent)).toEqual([
      "Server default (mock — 32,768 tokens · tools)",
      "mock — 32,768 tokens · tools",
      "qwen2.5 — 131,072 tokens · vision · tools as text",
      "Another model (type its name)…",
    ]);
    expect(picker.value).toBe("");
    await userEvent.selectOptions(picker, "Another model (type its name)…");
    await userEvent.type(screen.getByLabelText("Model name"), "llama-4");
    await userEvent.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith(expect.objectContaining({ model: "llama-4" }));
  });

  it("says why the model list could not be read, and keeps a configured name the server does not list", () => {
    const config = { ...summary("c1", "x").config, model: "gpt-oss" };
    render(<SettingsPanel config={config} onSave={async () => {}} onMode={async () => {}} models={{ models: [], list_error: "HTTP 404" }} />);
    expect(screen.getByText(/list could not be read \(HTTP 404\)/)).toBeTruthy();
    expect((screen.getByLabelText("Model name") as HTMLInputElement).value).toBe("gpt-oss");
  });

  it("saves model, role, workspace and policy, and switches mode", async () => {
    const onSave = vi.fn(async () => {});
    const onMode = vi.fn(async () => {});
    render(<SettingsPanel config={summary("c1", "x").config} onSave={onSave} onMode={onMode} models={modelList} />);
    await userEvent.selectOptions(screen.getByLabelText("Model"), "qwen2.5");
    await userEvent.selectOptions(screen.getByLabelText("Agent role"), "planner");
    await userEvent.type(screen.getByLabelText("Workspace path"), "/srv/repo");
    await userEvent.selectOptions(screen.getByLabelText("Approval policy"), "white_list");
    await userEvent.type(screen.getByLabelText("Tools that need no approval"), "read_file");
    await userEvent.clear(screen.getByLabelText("Tool timeout (seconds)"));
    await userEvent.type(screen.getByLabelText("Tool timeout (seconds)"), "60");
    await userEvent.clear(screen.getByLabelText("Model call limit (seconds)"));
    await userEvent.type(screen.getByLabelText("Model call limit (seconds)"), "120");
    await userEvent.selectOptions(screen.getByLabelText("History optimization"), "recent_n");
    await userEvent.clear(screen.getByLabelText("Messages to keep"));
    await userEvent.type(screen.getByLabelText("Messages to keep"), "12");
    await userEvent.type(screen.getByLabelText("System prompt"), "You review Rust.");
    await userEvent.click(screen.getByRole("button", { name: "Save settings" }));
    expect(onSave).toHaveBeenCalledWith({
      model: "qwen2.5",
      agent_role: "planner",
      workspace: "/srv/repo",
      approval_policy: { type: "white_list", tools: ["read_file"] },
      tool_timeout_secs: 60,
      llm_timeout_secs: 120,
      optimization: { strategy: { type: "recent_n", n: 12 }, reserve_output_tokens: 4096, margin_tokens: 256, ledger_percent: 15 },
      system_prompt: "You review Rust.",
    });
    await userEvent.click(screen.getByLabelText("Plan (read-only)"));
    expect(onMode).toHaveBeenCalledWith("plan");
  });
});

describe("MCP panel", () => {
  it("shows servers with status, error, tools and resources, and adds a resource", async () => {
    const onAdd = vi.fn();
    render(
      <McpPanel
        servers={[{ name: "fs", status: "ready", tools: ["mcp__fs__read"] }, { name: "gh", status: "failed", error: "spawn gh-mcp ENOENT", tools: [] }]}
        resources={[{ server_name: "fs", uri: "file:///notes.md", name: "notes" }]}
        tools={[{ name: "mcp__fs__read", description: "Reads a file", source: "mcp", server: "fs", read_only: true, parameters: {} }]}
        onReload={() => {}}
        onAddResource={onAdd}
      />,
    );
    expect(screen.getByText("ready")).toBeTruthy();
    expect(screen.getByText("spawn gh-mcp ENOENT")).toBeTruthy();
    expect(screen.getByText(/Reads a file/)).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Add notes to context" }));
    expect(onAdd).toHaveBeenCalledWith({ server_name: "fs", uri: "file:///notes.md", name: "notes" });
  });
});

describe("MCP server management", () => {
  const noop = () => {};

  it("reads the form into a definition and back, hidden values kept as null", () => {
    const form = formFrom("remote", { url: "https://h/mcp", headers: { Authorization: null, "X-Team": "core" }, timeout: 9, autoApprove: ["echo", "add"] });
    expect(form.transport).toBe("url");
    expect(form.headers).toBe("Authorization\nX-Team: core");
    expect(definitionFrom(form)).toEqual({
      definition: { url: "https://h/mcp", headers: { Authorization: null, "X-Team": "core" }, timeout: 9, autoApprove: ["echo", "add"] },
    });
    const stdio = { ...formFrom(""), command: " node ", args: "a.js\n\nstdio", env: "A=1\nB = two=2" };
    expect(definitionFrom(stdio)).toEqual({ definition: { command: "node", args: ["a.js", "stdio"], env: { A: "1", B: "two=2" } } });
    expect(definitionFrom({ ...stdio, env: "=x" })).toEqual({ problem: { field: "env", message: 'line 1 needs a name before "="' } });
    expect(definitionFrom({ ...stdio, timeout: "soon" })).toMatchObject({ problem: { field: "timeout" } });
  });

  it("puts the server's refusal beside the field it names", () => {
    expect(problemFrom(new ApiRequestError(422, "invalid_input", "`url` must start with http://", "server.url"))).toEqual({ field: "url", message: "`url` must start with http://" });
    expect(problemFrom(new ApiRequestError(422, "invalid_input", "bad", "env.TOKEN"))).toMatchObject({ field: "env" });
    expect(problemFrom(new ApiRequestError(409, "conflict", "taken", "name"))).toMatchObject({ field: "name" });
    expect(problemFrom(new ApiRequestError(409, "conflict", "no file"))).toEqual({ message: "no file" });
  });

  it("adds a server from the form and shows the server's 422 at the field", async () => {
    const onAddServer = vi
      .fn<(name: string, server: object) => Promise<void>>()
      .mockRejectedValueOnce(new ApiRequestError(422, "invalid_input", "`command` must be a non-empty string naming the program", "server.command"))
      .mockResolvedValueOnce(undefined);
    render(<McpPanel servers={[]} resources={[]} tools={[]} onReload={noop} onAddServer={onAddServer} />);
    await userEvent.click(screen.getByRole("button", { name: "Add server" }));
    const form = screen.getByRole("form", { name: "Add MCP server" });
    await userEvent.type(within(form).getByLabelText("Name"), "everything");
    await userEvent.click(within(form).getByRole("button", { name: "Add server" }));
    const command = within(form).getByLabelText(/^Command/);
    await waitFor(() => expect(command.getAttribute("aria-invalid")).toBe("true"));
    expect(within(form).getByRole("alert").textContent).toMatch(/non-empty string/);
    await userEvent.type(command, "node");
    fireEvent.change(within(form).getByLabelText(/^Arguments/), { target: { value: "index.js\nstdio" } });
    fireEvent.change(within(form).getByLabelText(/^Environment/), { target: { value: "TOKEN=t" } });
    await userEvent.click(within(form).getByRole("button", { name: "Add server" }));
    await waitFor(() => expect(screen.queryByRole("form", { name: "Add MCP server" })).toBeNull());
    expect(onAddServer).toHaveBeenLastCalledWith("everything", { command: "node", args: ["index.js", "stdio"], env: { TOKEN: "t" } });
  });

  it("edits a server from its hidden definition, removes one after asking, and shows status and error", async () => {
    const onReplaceServer = vi.fn(async () => {});
    const onRemoveServer = vi.fn(async () => {});
    render(
      <McpPanel
        servers={[
          { name: "remote", status: "failed", error: "connection refused", tools: [], definition: { url: "http://h/mcp", headers: { Authorization: null } } },
          { name: "fs", status: "ready", tools: [], definition: { command: "fs-mcp" } },
        ]}
        resources={[]}
        tools={[]}
        onReload={noop}
        onReplaceServer={onReplaceServer}
        onRemoveServer={onRemoveServer}
      />,
    );
    expect(screen.getByText("failed")).toBeTruthy();
    expect(screen.getByText("connection refused")).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Edit remote" }));
    const form = screen.getByRole("form", { name: "Edit remote" });
    expect((within(form).getByLabelText(/^Headers/) as HTMLTextAreaElement).value).toBe("Authorization");
    const url = within(form).getByLabelText(/^URL/);
    await userEvent.clear(url);
    await userEvent.type(url, "http://h2/mcp");
    await userEvent.click(within(form).getByRole("button", { name: "Save server" }));
    expect(onReplaceServer).toHaveBeenCalledWith("remote", { url: "http://h2/mcp", headers: { Authorization: null } });

    await userEvent.click(screen.getByRole("button", { name: "Remove fs" }));
    expect(onRemoveServer).not.toHaveBeenCalled();
    await userEvent.click(within(screen.getByRole("group", { name: "Confirm removing fs" })).getByRole("button", { name: "Remove" }));
    expect(onRemoveServer).toHaveBeenCalledWith("fs");
  });

  it("switches a server or one tool off for the open context", async () => {
    const onChange = vi.fn(async () => {});
    const { rerender } = render(
      <McpPanel
        servers={[{ name: "fs", status: "ready", tools: ["mcp__fs__read", "mcp__fs__delete"] }]}
        resources={[]}
        tools={[]}
        onReload={noop}
        switches={{ disabledServers: [], disabledTools: [], onChange }}
      />,
    );
    await userEvent.click(screen.getByText("2 tools"));
    await userEvent.click(screen.getByRole("checkbox", { name: "Use mcp__fs__delete in this context" }));
    expect(onChange).toHaveBeenLastCalledWith({ disabled_mcp_tools: ["mcp__fs__delete"] });
    await userEvent.click(screen.getByRole("checkbox", { name: "Use fs in this context" }));
    expect(onChange).toHaveBeenLastCalledWith({ disabled_mcp_servers: ["fs"] });
    rerender(
      <McpPanel
        servers={[{ name: "fs", status: "ready", tools: ["mcp__fs__read", "mcp__fs__delete"] }]}
        resources={[]}
        tools={[]}
        onReload={noop}
        switches={{ disabledServers: ["fs"], disabledTools: ["mcp__fs__delete"], onChange }}
      />,
    );
    const read = screen.getByRole("checkbox", { name: "Use mcp__fs__read in this context" }) as HTMLInputElement;
    expect(read.checked).toBe(false);
    expect(read.disabled).toBe(true);
    await userEvent.click(screen.getByRole("checkbox", { name: "Use fs in this context" }));
    expect(onChange).toHaveBeenLastCalledWith({ disabled_mcp_servers: [] });
  });

  it("offers no edit controls without their routes' callbacks, and says why the file cannot be edited", () => {
    render(<McpPanel servers={[{ name: "fs", status: "ready", tools: [], definition: { command: "x" } }]} resources={[]} tools={[]} onReload={noop} editing="read_only" />);
    expect(screen.queryByRole("button", { name: "Add server" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Edit fs" })).toBeNull();
    expect(screen.queryByRole("checkbox")).toBeNull();
    expect(screen.getByText(/--mcp-config-readonly/)).toBeTruthy();
    expect(editingNote(undefined)).toMatch(/--mcp-config PATH/);
    expect(editingNote("editable")).toBeNull();
  });
});

describe("MCP authorization", () => {
  it("offers Authorize for a server waiting on OAuth, opening its authorization page in a new tab", () => {
    render(
      <McpPanel
        servers={[
          { name: "linear", status: "needs_authorization", tools: [], authorization_url: "https://auth.example/authorize?state=s" },
          { name: "fs", status: "ready", tools: [] },
        ]}
        resources={[]}
        tools={[]}
        onReload={() => {}}
      />,
    );
    expect(screen.getByText("needs authorization")).toBeTruthy();
    const link = screen.getByRole("link", { name: "Authorize linear" });
    expect(link.getAttribute("href")).toBe("https://auth.example/authorize?state=s");
    expect(link.getAttribute("target")).toBe("_blank");
    expect(link.getAttribute("rel")).toContain("noopener");
    expect(screen.getAllByRole("link")).toHaveLength(1);
  });
});

describe("branches", () => {
  it("validates branch names", () => {
    expect(branchNameProblem("", [])).toMatch(/name/);
    expect(branchNameProblem("a b", [])).toMatch(/letters/);
    expect(branchNameProblem("main", ["main"])).toMatch(/already exists/);
    expect(branchNameProblem("feature/x-1", ["main"])).toBeNull();
  });

  it("creates a branch from the end with a system prompt", async () => {
    const onCreate = vi.fn(async () => {});
    render(<BranchSwitcher branches={{ active: "main", branches: [{ name: "main", message_count: 2, created_at: "t" }] }} onSwitch={() => {}} onCreate={onCreate} fromMessage={null} onCancelFrom={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "New branch" }));
    const form = screen.getByRole("form", { name: "New branch" });
    await userEvent.type(within(form).getByLabelText("Name"), "main");
    await userEvent.click(within(form).getByRole("button", { name: "Create branch" }));
    expect(within(form).getByRole("alert").textContent).toMatch(/already exists/);
    await userEvent.type(within(form).getByLabelText("Name"), "-2");
    await userEvent.click(within(form).getByRole("button", { name: "Create branch" }));
    expect(onCreate).toHaveBeenCalledWith({ name: "main-2" });
  });
});

describe("branch management", () => {
  it("deletes another branch, never the active one, and offers no merge until the server can", async () => {
    const onDelete = vi.fn();
    render(
      <BranchSwitcher
        branches={{ active: "main", branches: [{ name: "main", message_count: 2, created_at: "t" }, { name: "alt", message_count: 3, created_at: "t", parent: "main" }] }}
        onSwitch={() => {}}
        onCreate={async () => {}}
        fromMessage={null}
        onCancelFrom={() => {}}
        onDelete={onDelete}
      />,
    );
    await userEvent.click(screen.getByText("Manage branches"));
    expect(screen.queryByRole("button", { name: "Delete branch main" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Merge/ })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Delete branch alt" }));
    // It asks first; "Keep it" keeps the branch.
    const ask = screen.getByRole("group", { name: "Delete branch alt?" });
    await userEvent.click(within(ask).getByRole("button", { name: "Keep it" }));
    expect(onDelete).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole("button", { name: "Delete branch alt" }));
    await userEvent.click(within(screen.getByRole("group", { name: "Delete branch alt?" })).getByRole("button", { name: "Delete branch" }));
    expect(onDelete).toHaveBeenCalledWith("alt");
  });
});

describe("status bar", () => {
  it("shows the indicator, and resume when paused", async () => {
    const onResume = vi.fn();
    const { rerender } = render(<StatusBar conversation={{ ...initialConversation, state: { type: "executing_tool", tool_name: "read_file", index: 2, total: 5, attempt: 1 } }} onResume={onResume} onDismiss={() => {}} />);
    expect(screen.getByRole("status").textContent).toBe("Executing tool 2/5: read_file");
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
    rerender(<StatusBar conversation={{ ...initialConversation, state: { type: "paused", reason: "interrupted", depth: 1, tools_executed: 2 } }} onResume={onResume} onDismiss={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Resume" }));
    expect(onResume).toHaveBeenCalled();
  });

  it("shows errors with their hint and dismisses them", async () => {
    const onDismiss = vi.fn();
    render(<StatusBar conversation={{ ...initialConversation, errors: [{ code: "timeout", message: "took 31 s", recoverable: true, hint: "Resume to continue", eventId: 3 }] }} onResume={() => {}} onDismiss={onDismiss} />);
    expect(screen.getByRole("alert").textContent).toContain("Resume to continue");
    await userEvent.click(screen.getByRole("button", { name: "Dismiss error" }));
    expect(onDismiss).toHaveBeenCalledWith(0);
  });

  it("says when the model's tool calls are prompted, and why; nothing for native calls", () => {
    const capabilities = (value: "native" | "prompted", source: "server" | "override") => ({
      model: "smollm2",
      context_window: { value: 8192, source: "server" as const },
      max_output_tokens: { value: 4096, source: "default" as const },
      vision: { value: false, source: "server" as const },
      tool_calling: { value, source },
    });
    const { rerender } = render(<StatusBar conversation={initialConversation} onResume={() => {}} onDismiss={() => {}} capabilities={capabilities("prompted", "server")} />);
    expect(screen.getByRole("note").textContent).toBe(
      "Tool calls are prompted: smollm2 gets the tools in its system prompt and writes its calls as text (the model server reports no tool calling of its own).",
    );
    rerender(<StatusBar conversation={initialConversation} onResume={() => {}} onDismiss={() => {}} capabilities={capabilities("prompted", "override")} />);
    expect(screen.getByRole("note").textContent).toContain("BRAID_MODEL_CAPABILITIES");
    rerender(<StatusBar conversation={initialConversation} onResume={() => {}} onDismiss={() => {}} capabilities={capabilities("native", "server")} />);
    expect(screen.queryByRole("note")).toBeNull();
  });

  it("tells the person when the connection is being re-established", () => {
    render(<StatusBar conversation={{ ...initialConversation, connection: { type: "reconnecting", attempt: 1, delayMs: 1000, reason: "the stream ended" } }} onResume={() => {}} onDismiss={() => {}} />);
    expect(screen.getByRole("status").textContent).toMatch(/reconnecting in 1 s/);
  });
});

describe("router", () => {
  it("reads and writes context addresses", () => {
    expect(parseRoute("/contexts/abc-1")).toEqual({ type: "context", contextId: "abc-1" });
    expect(parseRoute("/contexts/a%20b/")).toEqual({ type: "context", contextId: "a b" });
    expect(parseRoute("/")).toEqual({ type: "home" });
    expect(parseRoute("/contexts/%E0%A4%A")).toEqual({ type: "home" });
    expect(routePath({ type: "context", contextId: "a b" })).toBe("/contexts/a%20b");
  });
});

describe("crash screen", () => {
  it("shows a render failure with a reload button instead of a blank page", () => {
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const Boom = () => {
      throw new Error("summary.config is undefined");
    };
    render(<CrashScreen><Boom /></CrashScreen>);
    expect(screen.getByRole("alert").textContent).toContain("summary.config is undefined");
    expect(screen.getByRole("button", { name: "Reload" })).toBeTruthy();
    err.mockRestore();
  });
});

describe("editing a failed send", () => {
  const ref = msg("f1", "file_reference", { path: "src/later.rs", range: { start_line: 2, end_line: 4 }, resolution: { type: "pending" } }, { role: "user", status: "failed", metadata: { send_id: "t1" } });
  const text = msg("t1", "text", { parts: [{ type: "text", text: "explain it" }] }, { role: "user", status: "failed", metadata: { send_id: "t1" } });
  const other = msg("x1", "text", { parts: [{ type: "text", text: "another send" }] }, { role: "user", status: "failed", metadata: { send_id: "x1" } });

  it("gathers the text and file references of the whole send", () => {
    expect(editedSend(text, [ref, text, other])).toEqual({ messageId: "t1", text: "explain it", refs: [{ path: "src/later.rs", start: "2", end: "4" }] });
    expect(editedSend(other, [ref, text, other])).toEqual({ messageId: "x1", text: "another send", refs: [] });
  });

  it("loads the send into the draft, says that sending replaces it, and can be cancelled", async () => {
    const onSend = vi.fn(async () => {});
    const onCancelEdit = vi.fn();
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} editing={editedSend(text, [ref, text])} onCancelEdit={onCancelEdit} />);
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("explain it");
    expect((screen.getByLabelText("Path of reference 1") as HTMLInputElement).value).toBe("src/later.rs");
    expect(screen.getByRole("status").textContent).toContain("sending replaces it");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(onSend).toHaveBeenCalledWith([
      { payload: { type: "text", text: "explain it", file_references: [{ path: "src/later.rs", range: { start_line: 2, end_line: 4 }, display_text: "@src/later.rs:2-4" }] } },
    ]);
    await userEvent.click(screen.getByRole("button", { name: "Cancel edit" }));
    expect(onCancelEdit).toHaveBeenCalled();
  });
});

describe("the / menu of MCP prompts", () => {
  const prompts = [
    { server: "everything", name: "simple-prompt", description: "A prompt without arguments", arguments: [] },
    {
      server: "everything",
      name: "args-prompt",
      title: "Arguments Prompt",
      arguments: [
        { name: "city", required: true, description: "Name of the city" },
        { name: "state", required: false },
      ],
    },
  ];

  it("opens on a leading slash and filters by what follows", () => {
    expect(slashQuery("/")).toBe("");
    expect(slashQuery("/args")).toBe("args");
    expect(slashQuery("/args now")).toBeNull();
    expect(slashQuery("a /b")).toBeNull();
    expect(matchingPrompts(prompts, "ARG").map((p) => p.name)).toEqual(["args-prompt"]);
    expect(matchingPrompts(prompts, "everything")).toHaveLength(2);
  });

  it("asks for a prompt's arguments, then sends its text like a typed message", async () => {
    const onPrompt = vi.fn(async () => "What's weather in Lyon?");
    const onSend = vi.fn(async () => {});
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} prompts={prompts} onPrompt={onPrompt} />);
    await userEvent.type(screen.getByLabelText("Message"), "/arg");
    const menu = screen.getByRole("listbox", { name: "Workflows and prompts" });
    expect(within(menu).getAllByRole("option")).toHaveLength(1);
    await userEvent.keyboard("{Enter}");
    const group = screen.getByRole("group", { name: "Arguments of /args-prompt" });
    const send = within(group).getByRole("button", { name: "Send prompt" });
    expect((send as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(within(group).getByPlaceholderText("Name of the city"), "Lyon");
    await userEvent.click(send);
    await waitFor(() => expect(onSend).toHaveBeenCalled());
    expect(onPrompt).toHaveBeenCalledWith(prompts[1], { city: "Lyon" });
    expect(onSend).toHaveBeenCalledWith([{ payload: { type: "text", text: "What's weather in Lyon?" } }]);
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("");
  });

  it("sends a prompt without arguments at once when clicked", async () => {
    const onPrompt = vi.fn(async () => "Hello from a prompt");
    const onSend = vi.fn(async () => {});
    render(<Composer busy={false} onSend={onSend} onInterrupt={() => {}} prompts={prompts} onPrompt={onPrompt} />);
    await userEvent.type(screen.getByLabelText("Message"), "/");
    fireEvent.mouseDown(screen.getByRole("option", { name: /simple-prompt/ }));
    await waitFor(() => expect(onSend).toHaveBeenCalledWith([{ payload: { type: "text", text: "Hello from a prompt" } }]));
  });

  it("shows the server's refusal and keeps the draft", async () => {
    const onPrompt = vi.fn(async () => {
      throw new Error("prompt `args-prompt` needs argument `city`");
    });
    render(<Composer busy={false} onSend={async () => {}} onInterrupt={() => {}} prompts={prompts} onPrompt={onPrompt} />);
    await userEvent.type(screen.getByLabelText("Message"), "/simple");
    await userEvent.keyboard("{Enter}");
    expect((await screen.findByRole("alert")).textContent).toMatch(/needs argument/);
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("/simple");
  });
});

describe("workflows in the / menu", () => {
  const workflows: WorkflowInfo[] = [
    {
      name: "review-changes",
      description: "Review the uncommitted changes",
      parameters: {
        type: "object",
        required: ["focus"],
        properties: {
          focus: { type: "string", default: "correctness", description: "What to look for" },
          depth: { type: "integer" },
          strict: { type: "boolean" },
          files: { type: "array", items: { type: "string" } },
        },
      },
      steps: [{ name: "diff", type: "tool" }],
      source: "/w/.braid/workflows/review.yaml",
      origin: "workspace",
      errors: [],
    },
    {
      name: "broken",
      description: "",
      parameters: {},
      steps: [],
      source: "/w/.braid/workflows/broken.yaml",
      origin: "workspace",
      errors: [{ path: "steps", message: "is required" }],
    },
  ];

  it("reads a form from the parameter schema and sends typed values", () => {
    const fields = parameterFields(workflows[0].parameters);
    expect(fields.map((f) => [f.name, f.kind, f.required, f.initial])).toEqual([
      ["focus", "string", true, "correctness"],
      ["depth", "integer", false, ""],
      ["strict", "boolean", false, "false"],
      ["files", "list", false, ""],
    ]);
    expect(parameterValues(fields, { depth: "3", files: "a.rs, b.rs", strict: "true" })).toEqual({ focus: "correctness", depth: 3, strict: true, files: ["a.rs", "b.rs"] });
    expect(parameterValues(fields, { depth: "2.5" })).toBe("depth must be a whole number");
    expect(parameterValues(fields, { focus: " " })).toBe("focus is required");
  });

  it("lists workflows before prompts, shows a broken one's errors, and runs a chosen one", async () => {
    const onRunWorkflow = vi.fn(async () => {});
    render(
      <Composer busy={false} onSend={async () => {}} onInterrupt={() => {}} workflows={workflows} onRunWorkflow={onRunWorkflow} prompts={[{ server: "s", name: "review-prompt", arguments: [] }]} onPrompt={async () => ""} />,
    );
    await userEvent.type(screen.getByLabelText("Message"), "/");
    const options = within(screen.getByRole("listbox", { name: "Workflows and prompts" })).getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "/review-changes workflow — Review the uncommitted changes",
      "/broken workflow — cannot run: steps: is required (/w/.braid/workflows/broken.yaml)",
      "/review-prompt MCP · s",
    ]);
    fireEvent.mouseDown(options[1]);
    expect(screen.queryByRole("group", { name: "Parameters of /broken" })).toBeNull();
    fireEvent.mouseDown(options[0]);
    const form = screen.getByRole("group", { name: "Parameters of /review-changes" });
    await userEvent.clear(within(form).getByDisplayValue("correctness"));
    await userEvent.type(within(form).getByPlaceholderText("What to look for"), "speed");
    await userEvent.click(within(form).getByRole("button", { name: "Run workflow" }));
    await waitFor(() => expect(onRunWorkflow).toHaveBeenCalledWith(workflows[0], { focus: "speed", strict: false }));
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("");
  });

  it("shows the server's refusal in the form", async () => {
    const onRunWorkflow = vi.fn(async () => {
      throw new Error("parameters.focus: must be one of ...");
    });
    render(<Composer busy={false} onSend={async () => {}} onInterrupt={() => {}} workflows={workflows} onRunWorkflow={onRunWorkflow} />);
    await userEvent.type(screen.getByLabelText("Message"), "/review");
    await userEvent.keyboard("{Enter}");
    await userEvent.click(screen.getByRole("button", { name: "Run workflow" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/parameters.focus/);
  });
});
