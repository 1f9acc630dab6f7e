import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Message } from "../generated/protocol";
import type { Entry } from "../conversation/reducer";
import { MessageView } from "./MessageView";
import { msg, textMsg } from "../test/fixtures";
import { renderCard } from "../test/render";
import { runText } from "./PlanCard";
import { ToolPairingProvider, pairTools } from "./toolcards/pairing";
import { workspacePaths } from "./ContentCards";
import { ElicitationCard, formContent, formFields } from "./ElicitationCard";

function entryOf(m: Message, extra: Partial<Entry> = {}): Entry {
  const raw = m as unknown as { kind: string };
  return { id: m.id, kind: raw.kind, role: m.role, status: m.status, message: m, streamed: "", lastDelta: 0, final: false, ...extra };
}
function view(m: Message, opts: Parameters<typeof renderCard>[1] = {}, extra: Partial<Entry> = {}) {
  return renderCard(<ul><MessageView entry={entryOf(m, extra)} /></ul>, opts);
}

describe("text", () => {
  it("renders Markdown with highlighted code", () => {
    const { container } = view(textMsg("m1", "Some **bold** text\n\n```rust\nfn main() { let x = 1; }\n```"));
    expect(screen.getByText("bold").tagName).toBe("STRONG");
    const code = container.querySelector("pre code.language-rust");
    expect(code).not.toBeNull();
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("fn");
  });

  it("folds the person's long paste but never the model's long answer", () => {
    const long = Array.from({ length: 50 }, (_, i) => `row ${i}`).join("\n");
    const user = view(textMsg("u1", long, { role: "user" }));
    expect(user.container.querySelector(".collapsible.folded")).not.toBeNull();
    user.unmount();
    const answer = view(textMsg("a1", long));
    expect(answer.container.querySelector(".collapsible")).toBeNull();
  });

  it("does not render raw HTML from the model", () => {
    const { container } = view(textMsg("m1", "<img src=x onerror=alert(1)> hi"));
    expect(container.querySelector("img")).toBeNull();
  });

  it("shows streamed text with a streaming marker before the message is loaded", () => {
    renderCard(<ul><MessageView entry={{ id: "s", kind: "text", role: "assistant", status: "streaming", message: undefined, streamed: "Hello wor", lastDelta: 2, final: false }} /></ul>);
    expect(screen.getByText("Hello wor")).toBeTruthy();
    expect(screen.getByLabelText("streaming")).toBeTruthy();
  });
});

describe("tool request", () => {
  const req = msg("t1", "tool_request", {
    calls: [
      { id: "call_1", name: "read_file", arguments: { path: "src/lib.rs" }, approval_status: "pending" },
      { id: "call_2", name: "list_dir", arguments: { path: "." }, approval_status: "approved" },
    ],
  });

  it("shows each call's arguments and approval buttons only for pending calls", () => {
    view(req);
    expect(screen.getByText("Reads", { exact: false }).textContent).toBe("Reads src/lib.rs");
    expect(screen.getByLabelText("Arguments of list_dir").textContent).toContain('"path": "."');
    expect(document.querySelector('[data-icon="wrench"]')).not.toBeNull();
    expect(screen.getByRole("group", { name: "Approval for read_file" })).toBeTruthy();
    expect(screen.queryByRole("group", { name: "Approval for list_dir" })).toBeNull();
    expect(screen.getByLabelText("list_dir call, running")).toBeTruthy();
  });

  it.each([
    ["Approve", "approve"],
    ["Deny", "deny"],
    ["Approve for this session", "approve_for_session"],
  ])("%s posts the %s decision for that call and disables the buttons", async (label, decision) => {
    const { calls } = view(req);
    const group = screen.getByRole("group", { name: "Approval for read_file" });
    await userEvent.click(within(group).getByRole("button", { name: label }));
    expect(calls).toEqual([expect.objectContaining({ method: "POST", url: "/v1/contexts/c1/approvals", body: { decisions: [{ call_id: "call_1", decision }] } })]);
    for (const b of within(group).getAllByRole("button")) expect((b as HTMLButtonElement).disabled).toBe(true);
  });

  it("decides every pending call at once when several wait", async () => {
    const two = msg("t2", "tool_request", {
      calls: [
        { id: "a", name: "read_file", arguments: {}, approval_status: "pending" },
        { id: "b", name: "grep", arguments: {}, approval_status: "pending" },
        { id: "c", name: "ls", arguments: {}, approval_status: "denied" },
      ],
    });
    const { calls } = view(two);
    await userEvent.click(screen.getByRole("button", { name: "Deny all 2" }));
    expect(calls[0]?.body).toEqual({ decisions: [{ call_id: "a", decision: "deny" }, { call_id: "b", decision: "deny" }] });
    expect(screen.queryByRole("group", { name: "All pending calls" })).not.toBeNull();
  });

  it("offers no approve-all for a single pending call", () => {
    view(req);
    expect(screen.queryByRole("group", { name: "All pending calls" })).toBeNull();
  });

  it("re-enables the buttons and reports the error when the server refuses", async () => {
    const { errors } = view(req, { answer: () => ({ status: 409, body: { error: { code: "conflict", message: "call_1 is not pending" } } }) });
    await userEvent.click(screen.getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatchObject({ code: "conflict" });
    expect((screen.getByRole("button", { name: "Approve" }) as HTMLButtonElement).disabled).toBe(false);
  });
});

describe("tool result", () => {
  it("is collapsed by default and shows status and duration", () => {
    const { container } = view(msg("r1", "tool_result", { call_id: "call_1", tool_name: "read_file", duration_ms: 12, status: "success", output: { lines: 3 } }, { role: "tool" }));
    const details = container.querySelector("details.tool-result") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toMatch(/read_file.*succeeded.*12 ms/);
  });

  it("shows a failure's error", () => {
    view(msg("r2", "tool_result", { call_id: "c", tool_name: "run", duration_ms: 1500, status: "error", error: { message: "exit 1", code: "failed", recoverable: false } }, { role: "tool" }));
    expect(screen.getByText(/failed · 1.5 s/)).toBeTruthy();
    expect(screen.getByText(/exit 1/)).toBeTruthy();
  });
});

describe("MCP", () => {
  it("shows an MCP tool call with its server, a plug icon and approval by request id", async () => {
    const { container, calls } = view(msg("m1", "mcp_tool_request", { server_name: "github", tool_name: "search_issues", called_as: "mcp__github__search_issues", arguments: { q: "bug" }, request_id: "req_9", approval_status: "pending", requested_at: "t" }));
    expect(screen.getByText("MCP · github")).toBeTruthy();
    expect(container.querySelector(".tool-request.mcp")).not.toBeNull();
    expect(container.querySelector('[data-icon="plug"]')).not.toBeNull();
    expect(container.querySelector('[data-icon="wrench"]')).toBeNull();
    expect(container.textContent).not.toContain("built-in");
    await userEvent.click(screen.getByRole("button", { name: "Deny" }));
    expect(calls[0]?.body).toEqual({ decisions: [{ call_id: "req_9", decision: "deny" }] });
  });

  it("distinguishes an MCP result from a built-in one", () => {
    const { container } = view(msg("m2", "mcp_tool_result", { server_name: "fs", tool_name: "read", request_id: "r", executed_at: "t", duration_ms: 4, status: "success", result: { content: [] } }, { role: "tool" }));
    expect(container.querySelector("details.tool-result.mcp summary")?.textContent).toMatch(/MCP · fs.*read.*succeeded/);
  });

  it("shows an MCP resource with server and URI", () => {
    view(msg("m3", "mcp_resource", { server_name: "docs", resource_uri: "file:///readme.md", name: "Readme", content: { type: "text", text: "# hello" }, retrieved_at: "t" }, { role: "user" }));
    expect(screen.getByText("MCP · docs")).toBeTruthy();
    expect(screen.getByText("file:///readme.md")).toBeTruthy();
    expect(screen.getByText("# hello")).toBeTruthy();
  });
});

describe("plan", () => {
  const plan = msg("p1", "plan", {
    goal: "Add input validation",
    steps: [
      { step_number: 1, action: "Read the parser", reason: "to learn it", tools_needed: ["read_file"] },
      { step_number: 2, action: "Edit it", reason: "to validate", tools_needed: ["write_file", "run_tests"], risks: ["may break callers"] },
    ],
  });

  it("shows the goal, numbered steps, tools and highlighted risks", () => {
    const { container } = view(plan);
    expect(screen.getByRole("heading", { name: "Add input validation" })).toBeTruthy();
    const items = container.querySelectorAll("ol.plan-steps > li");
    expect([...items].map((li) => li.getAttribute("value"))).toEqual(["1", "2"]);
    expect(screen.getByText("write_file")).toBeTruthy();
    expect(container.querySelector(".risk")?.textContent).toContain("may break callers");
  });

  it("Execute asks the server to run the plan once and then shows it running", async () => {
    const { calls } = view(plan);
    await userEvent.click(screen.getByRole("button", { name: "Execute plan" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toMatchObject({ method: "POST", url: "/v1/contexts/c1/plans/p1/execute" });
    expect(screen.queryByRole("button", { name: "Execute plan" })).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("Executing…");
    expect((screen.getByRole("button", { name: "Refine plan" }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("keeps Execute when the server refuses, and reports why", async () => {
    const { errors } = view(plan, { answer: () => ({ status: 409, body: { error: { code: "conflict", message: "plan p1 was already executed" } } }) });
    await userEvent.click(screen.getByRole("button", { name: "Execute plan" }));
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(screen.getByRole("button", { name: "Execute plan" })).toBeTruthy();
  });

  it("shows the execution as a notice of the run, not as a message the person wrote", async () => {
    const run = textMsg("u9", "Execute the plan: Add input validation\n1. Read the form (to find the fields)", { role: "user", metadata: { plan_id: "p1", plan_action: "execute" } });
    const { container } = view(run);
    const li = container.querySelector("li.message")!;
    expect(li.classList.contains("notice")).toBe(true);
    expect(li.classList.contains("role-user")).toBe(false);
    expect(within(li as HTMLElement).getByRole("note").textContent).toContain("Plan execution started");
    await userEvent.click(screen.getByText("What the model was asked"));
    expect(screen.getByText(/1\. Read the form/)).toBeTruthy();
    // The person's own text stays theirs.
    const own = view(textMsg("u1", "Execute the plan, please", { role: "user" }));
    expect(own.container.querySelector("li.message.role-user")).not.toBeNull();
  });

  it("an executed plan in the history shows its progress and no Execute button", () => {
    const run = textMsg("u9", "Execute the plan: Add input validation", { role: "user", metadata: { plan_id: "p1", plan_action: "execute" } });
    const req = msg("t9", "tool_request", {
      calls: [
        { id: "k1", name: "read_file", arguments: { path: "a" }, approval_status: "approved" },
        { id: "k2", name: "write_file", arguments: { path: "a", content: "" }, approval_status: "approved" },
      ],
    });
    const res = msg("r9", "tool_result", { call_id: "k1", tool_name: "read_file", duration_ms: 1, status: "error", error: { message: "gone", recoverable: true } }, { role: "tool" });
    const { pairing, visible } = pairTools([plan, run, req, res].map((m) => entryOf(m)));
    renderCard(
      <ToolPairingProvider value={pairing}>
        <ul>{visible.map((e) => <MessageView key={e.id} entry={e} />)}</ul>
      </ToolPairingProvider>,
    );
    expect(screen.queryByRole("button", { name: "Execute plan" })).toBeNull();
    expect(within(screen.getByRole("region", { name: "Plan" })).getByRole("status").textContent).toBe("Executing: 2 tool calls, 1 finished, 1 failed");
    expect(runText({ messageId: "u", calls: 2, finished: 2, failed: 0, steps: new Map() }, 2)).toBe("Executed: 2 tool calls");
  });

  it("ticks each step from the agent's update_plan results, and hides those calls while the card shows them", () => {
    const run = textMsg("u9", "Execute the plan: Add input validation", { role: "user", metadata: { plan_id: "p1", plan_action: "execute" } });
    const update = (id: string, step: number, status: string) => [
      msg(`t${id}`, "tool_request", { calls: [{ id, name: "update_plan", arguments: { step_number: step, status }, approval_status: "approved" }] }),
      msg(`r${id}`, "tool_result", { call_id: id, tool_name: "update_plan", duration_ms: 0, status: "success", output: { plan_id: "p1", step_number: step, status, steps: [] } }, { role: "tool" }),
    ];
    const write = msg("tw", "tool_request", { calls: [{ id: "w1", name: "write_file", arguments: { path: "a", content: "" }, approval_status: "approved" }] });
    const written = msg("rw", "tool_result", { call_id: "w1", tool_name: "write_file", duration_ms: 1, status: "success", output: {} }, { role: "tool" });
    // A report the server refused stays visible, as the model read it.
    const refused = [
      msg("tx", "tool_request", { calls: [{ id: "x", name: "update_plan", arguments: { step_number: 9, status: "completed" }, approval_status: "approved" }] }),
      msg("rx", "tool_result", { call_id: "x", tool_name: "update_plan", duration_ms: 0, status: "error", error: { message: 'the plan "Add input validation" has no step 9', recoverable: true } }, { role: "tool" }),
    ];
    const messages = [plan, run, ...update("a", 1, "in_progress"), write, written, ...update("b", 1, "completed"), ...update("c", 2, "in_progress"), ...refused];
    const { pairing, visible } = pairTools(messages.map((m) => entryOf(m)));
    const { container } = renderCard(
      <ToolPairingProvider value={pairing}>
        <ul>{visible.map((e) => <MessageView key={e.id} entry={e} />)}</ul>
      </ToolPairingProvider>,
    );
    const card = screen.getByRole("region", { name: "Plan" });
    const steps = card.querySelectorAll("ol.plan-steps > li");
    expect([...steps].map((li) => li.getAttribute("data-status"))).toEqual(["completed", "in_progress"]);
    expect(within(steps[0] as HTMLElement).getByRole("img", { name: "Done" }).textContent).toBe("✓");
    expect(within(steps[1] as HTMLElement).getByRole("img", { name: "In progress" })).toBeTruthy();
    // Only the work counts as the run's tool calls.
    expect(within(card).getByRole("status").textContent).toBe("Executing: 1 of 2 steps done · 1 tool call");
    const shown = [...container.querySelectorAll("li.tool-call")].map((li) => li.getAttribute("data-call-id"));
    expect(shown).toEqual(["w1", "x"]);
  });

  it("says the plan is executed once every step is done or skipped", () => {
    const steps = new Map([
      [1, "completed" as const],
      [2, "skipped" as const],
    ]);
    expect(runText({ messageId: "u", calls: 0, finished: 0, failed: 0, steps }, 2)).toBe("Executed: 2 of 2 steps done");
    expect(runText({ messageId: "u", calls: 3, finished: 2, failed: 0, steps }, 2)).toBe("Executing: 2 of 2 steps done · 3 tool calls, 2 finished");
    expect(runText(undefined, 2)).toBe("Executing…");
  });

  it("Refine sends the person's feedback", async () => {
    const { calls } = view(plan);
    await userEvent.click(screen.getByRole("button", { name: "Refine plan" }));
    await userEvent.type(screen.getByLabelText("What should change?"), "skip step 2");
    await userEvent.click(screen.getByRole("button", { name: "Send refinement" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toEqual({ payload: { type: "text", text: "Refine the plan: skip step 2" } });
  });
});

describe("question", () => {
  const q = (severity: "critical" | "major" | "minor", answer?: string) =>
    msg("q1", "question", {
      question: "Overwrite the file?",
      options: [{ label: "Yes", value: "yes" }, { label: "No", value: "no" }],
      severity,
      default: "no",
      ...(answer ? { answer: { value: answer, answered_at: "t" } } : {}),
    });

  it.each(["critical", "major", "minor"] as const)("is styled by its %s severity", (severity) => {
    const { container } = view(q(severity));
    expect(container.querySelector(`.question-card.severity-${severity}`)).not.toBeNull();
  });

  it("sends the chosen option and disables every button after answering", async () => {
    const { calls } = view(q("critical"));
    await userEvent.click(screen.getByRole("button", { name: "Yes" }));
    expect(calls[0]).toMatchObject({ method: "POST", url: "/v1/contexts/c1/messages", body: { payload: { type: "question_answer", question_id: "q1", value: "yes" } } });
    for (const b of within(screen.getByRole("group", { name: "Answers" })).getAllByRole("button")) expect((b as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("Answered: Yes")).toBeTruthy();
  });

  it("shows a stored answer with the buttons disabled", () => {
    view(q("minor", "no"));
    expect(screen.getByText("Answered: No")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Yes" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("image", () => {
  it("shows the recognition result", () => {
    view(msg("i1", "image", { source: { type: "url", url: "http://x/a.png" }, recognition_mode: "auto", caption: "a chart", recognition: { method: "ocr", recognized_text: "Total: 42", confidence: 91.4, recognized_at: "t", notice: "vision unavailable, used OCR" } }, { role: "user" }));
    expect(screen.getByAltText("a chart")).toBeTruthy();
    expect(screen.getByText("Total: 42")).toBeTruthy();
    expect(screen.getByText(/Read by OCR \(91% confidence\)/)).toBeTruthy();
    expect(screen.getByText("Mode: auto, used OCR")).toBeTruthy();
    expect(screen.getByText("vision unavailable, used OCR")).toBeTruthy();
  });

  it("shows a workspace image from its loaded copy, and the vision mode", () => {
    view(msg("i3", "image", { source: { type: "file_path", path: "shots/a.png" }, recognition_mode: "vision", prepared: { media_type: "image/png", data: "AAAA", width: 1568, height: 784, resized: true }, recognition: { method: "vision", recognized_at: "t" } }, { role: "user" }));
    expect((screen.getByAltText("shots/a.png") as HTMLImageElement).src).toBe("data:image/png;base64,AAAA");
    expect(screen.getByText("Mode: vision")).toBeTruthy();
    expect(screen.getByText(/sized down to 1568×784/)).toBeTruthy();
  });

  it("shows a recognition error once, and Retry calls the message's retry route", async () => {
    const failed = msg("i2", "image", { source: { type: "base64", media_type: "image/png", data: "AAAA" }, recognition_mode: "ocr", error: { message: "tesseract missing", recoverable: true } }, { role: "user", status: "failed" });
    const { calls } = view({ ...failed, error: { message: "tesseract missing", recoverable: true } });
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    expect(screen.getByRole("alert").textContent).toContain("tesseract missing");
    await userEvent.click(screen.getByRole("button", { name: "Retry recognition" }));
    expect(calls[0]?.url).toMatch(/\/v1\/contexts\/c1\/messages\/i2\/retry$/);
  });
});

describe("file reference", () => {
  it("shows path and range and the resolved excerpt, collapsed", () => {
    const { container } = view(msg("f1", "file_reference", { path: "src/lib.rs", range: { start_line: 10, end_line: 12 }, resolution: { type: "resolved", content: "10| fn a() {}", total_lines: 80, size_bytes: 2048, resolved_at: "t" } }, { role: "user" }));
    const details = container.querySelector("details.file-ref") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toMatch(/src\/lib.rs:10-12.*lines 10–12.*80 lines, 2.0 KiB/);
    expect(details.querySelector("pre")?.textContent).toBe("10| fn a() {}");
  });

  it("shows why a reference could not be read", () => {
    view(msg("f2", "file_reference", { path: "nope.rs", resolution: { type: "failed", error: "no such file" } }, { role: "user" }));
    expect(screen.getByText(/no such file/)).toBeTruthy();
  });
});

describe("notices", () => {
  it("shows a mode change as a divider", () => {
    const { container } = view(msg("s1", "system_control", { type: "mode_change", from: "plan", to: "act" }, { role: "user" }));
    expect(container.querySelector(".divider")?.textContent).toBe("Mode changed from plan to act");
  });

  it("marks where history was optimized", () => {
    view(msg("s2", "system_control", { type: "summary", text: "They talked.", replaces: ["a", "b", "c"], tokens_before: 5200, tokens_after: 800 }));
    expect(screen.getByText("History optimized: 3 earlier messages summarized (5200 → 800 tokens)")).toBeTruthy();
  });

  it("shows a processing note with progress", () => {
    view(msg("p", "processing", { activity: "Recognizing image", progress: { done: 1, total: 3 } }));
    expect(screen.getByRole("status").textContent).toContain("1/3");
  });

  it("shows workflow progress as step n of m and pauses a running run", async () => {
    const { calls } = view(
      msg("w", "workflow_execution", { workflow_name: "deploy", execution_id: "e7", status: "running", current_step: "build", total_steps: 5, completed_steps: 1, started_at: "t", updated_at: "t" }),
      { answer: () => ({ status: 204 }) },
    );
    expect(screen.getByText(/Step 2 of 5/)).toBeTruthy();
    expect(screen.getByText(/build/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Pause" }));
    await waitFor(() => expect(calls[0]).toMatchObject({ method: "POST", url: "/v1/contexts/c1/workflows/executions/e7/pause" }));
  });

  it("offers resume and cancel for a paused run, and Continue / Stop at an approval step", async () => {
    const { calls } = view(
      msg("w", "workflow_execution", { workflow_name: "review", execution_id: "e8", status: "paused", current_step: "confirm", awaiting_approval: "Save it?", total_steps: 4, completed_steps: 2, started_at: "t", updated_at: "t" }),
      { answer: () => ({ status: 204 }) },
    );
    expect(screen.getByText("Save it?")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Pause" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Continue" }));
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    await waitFor(() => expect(calls.map((c) => c.url)).toEqual(["/v1/contexts/c1/workflows/executions/e8/resume", "/v1/contexts/c1/workflows/executions/e8/cancel"]));
  });

  it("shows a finished run's result, or the step it failed at, without controls", () => {
    view(msg("w1", "workflow_execution", { workflow_name: "greet", execution_id: "e1", status: "completed", total_steps: 1, completed_steps: 1, started_at: "t", updated_at: "t", result: "Hello, Ada!" }));
    expect(screen.getByText("Hello, Ada!")).toBeTruthy();
    // Only the message's own copy and pin buttons, no run controls.
    expect(screen.getAllByRole("button").map((b) => b.getAttribute("aria-label"))).toEqual(["Copy assistant message", "Pin message"]);
    view(msg("w2", "workflow_execution", { workflow_name: "tests", execution_id: "e2", status: "failed", current_step: "run", total_steps: 2, completed_steps: 0, started_at: "t", updated_at: "t", error: { message: "step `run` failed: no such program", recoverable: true, details: { step: "run" } } }));
    expect(screen.getByRole("alert").textContent).toBe("Step run: step `run` failed: no such program");
  });
});

describe("unknown and malformed", () => {
  it("shows an unknown kind as text with a console warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const odd = { ...textMsg("u1", "x"), kind: "hologram", data: { text: "beam me up" } } as unknown as Message;
    view(odd);
    expect(screen.getByText("beam me up")).toBeTruthy();
    expect(screen.getByText(/Unsupported message kind “hologram”/)).toBeTruthy();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("hologram"));
    warn.mockRestore();
  });

  it("falls back to text instead of crashing when a known kind has broken data", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const broken = { ...textMsg("b1", "x"), kind: "plan", data: { goal: "g", steps: null } } as unknown as Message;
    view(broken);
    expect(screen.getByText(/Unsupported message kind “plan”/)).toBeTruthy();
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    err.mockRestore();
  });

  it("offers branch from here on a message", async () => {
    const branchFrom = vi.fn();
    view(textMsg("m5", "hi", { role: "user" }), { branchFrom });
    await userEvent.click(screen.getByRole("button", { name: "Branch from here" }));
    expect(branchFrom).toHaveBeenCalledWith("m5");
  });
});

describe("project structure", () => {
  const tree = msg("ps", "project_structure", {
    root_path: "/w",
    generated_at: "t",
    excluded_patterns: [".git"],
    structure_type: "tree",
    content: { name: ".", path: "", directories: [{ name: "src", path: "src", directories: [], files: [{ path: "src/lib.rs", size: 10, mime_type: "text/x-rust" }] }], files: [{ path: "Cargo.toml", size: 5, mime_type: "text/plain" }] },
  });

  it("shows the tree collapsed with the root", () => {
    const { container } = view(tree);
    expect((container.querySelector("details.project-structure") as HTMLDetailsElement).open).toBe(false);
    expect(container.textContent).toContain("Project structure of /w: directory tree");
    expect(container.textContent).toContain("lib.rs");
  });

  it("lists every file path for the composer's suggestions", () => {
    const m = tree as Extract<Message, { kind: "project_structure" }>;
    expect(workspacePaths(m.data).sort()).toEqual(["Cargo.toml", "src/lib.rs"]);
  });
});

describe("the person's input", () => {
  const failed: Message = {
    ...textMsg("u1", "explain src/later.rs", { role: "user", status: "failed", metadata: { send_id: "u1" } }),
    error: { message: "file reference `src/later.rs` could not be resolved: not found", code: "file_reference", recoverable: true },
  };

  it("shows why a failed send was not sent, and Retry calls the retry route", async () => {
    const { calls } = view(failed, { answer: () => ({ status: 202, body: { message_id: "u1", queued: false } }) });
    expect(screen.getByText("failed")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toBe("Not sent: file reference `src/later.rs` could not be resolved: not found");
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.method).toBe("POST");
    expect(calls[0]?.url).toMatch(/\/v1\/contexts\/c1\/messages\/u1\/retry$/);
  });

  it("reports a refused retry and enables Retry again", async () => {
    const { errors } = view(failed, { answer: () => ({ status: 409, body: { error: { code: "conflict", message: "message u1 is complete" } } }) });
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(errors).toHaveLength(1));
    expect((screen.getByRole("button", { name: "Retry" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("Edit hands the failed message to the composer", async () => {
    const editFailed = vi.fn();
    view(failed, { editFailed });
    await userEvent.click(screen.getByRole("button", { name: "Edit" }));
    expect(editFailed).toHaveBeenCalledWith(failed);
  });

  it("offers no Edit where nothing can edit, and nothing on an answer", () => {
    view(failed);
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
    view({ ...textMsg("a1", "an answer", { status: "failed" }) });
    expect(screen.getAllByRole("button", { name: "Retry" })).toHaveLength(1);
  });

  it("shows input that waits as pending at once, before it is loaded", () => {
    renderCard(<ul><MessageView entry={{ id: "u2", kind: "text", role: "user", status: "pending", message: undefined, streamed: "", lastDelta: 0, final: false }} /></ul>);
    expect(screen.getByText("pending")).toBeTruthy();
    expect(screen.getByText("Queued: waits for its turn…")).toBeTruthy();
  });
});

describe("MCP elicitation card", () => {
  const question = {
    id: "7",
    server: "everything",
    message: "Please provide inputs",
    asked_at: "2026-11-24T00:00:00Z",
    requested_schema: {
      type: "object",
      properties: {
        name: { type: "string", title: "Name" },
        age: { type: "integer" },
        tier: { type: "string", enum: ["free", "pro"], default: "pro" },
        agree: { type: "boolean", default: true },
        note: { type: "string" },
      },
      required: ["name"],
    },
  };

  it("builds the form from the schema with defaults filled and sends typed values", async () => {
    const onReply = vi.fn(async () => {});
    render(<ElicitationCard question={question} onReply={onReply} />);
    const form = screen.getByRole("form", { name: "Answer everything" });
    expect((within(form).getByLabelText(/tier/) as HTMLSelectElement).value).toBe("pro");
    expect((within(form).getByLabelText(/agree/) as HTMLInputElement).checked).toBe(true);
    await userEvent.type(within(form).getByLabelText(/Name/), "Ada");
    await userEvent.type(within(form).getByLabelText(/age/), "36");
    await userEvent.click(within(form).getByRole("button", { name: "Submit" }));
    expect(onReply).toHaveBeenCalledWith("accept", { name: "Ada", age: 36, tier: "pro", agree: true });
  });

  it("declines, and shows the server's refusal of an answer", async () => {
    const onReply = vi.fn(async (action: string) => {
      if (action === "accept") throw new Error("field `name` is required");
    });
    render(<ElicitationCard question={question} onReply={onReply} />);
    await userEvent.click(screen.getByRole("button", { name: "Decline" }));
    expect(onReply).toHaveBeenCalledWith("decline", undefined);
  });

  it("shows a URL request as a link", () => {
    render(
      <ElicitationCard
        question={{ id: "8", server: "pay", message: "Confirm the payment", url: "https://pay.example/confirm", asked_at: "t" }}
        onReply={async () => {}}
      />,
    );
    expect(screen.getByRole("link", { name: "https://pay.example/confirm" }).getAttribute("target")).toBe("_blank");
    expect(screen.getByRole("button", { name: "Done" })).toBeTruthy();
  });

  it("leaves empty optional fields out and keeps numbers numeric", () => {
    const fields = formFields(question.requested_schema);
    expect(fields.map((f) => f.name)).toEqual(["name", "age", "tier", "agree", "note"]);
    expect(formContent(fields, { name: "", age: "", tier: "free", agree: false, note: "" })).toEqual({
      name: "",
      tier: "free",
      agree: false,
    });
  });
});
