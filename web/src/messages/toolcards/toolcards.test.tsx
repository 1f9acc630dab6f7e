// The tool cards: every result shape the built-in tools produce, shown readably; one card per
// call holding its request, approval and result; approval by keyboard.
import { describe, expect, it } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactElement } from "react";
import type { Message, ToolCall } from "../../generated/protocol";
import type { Entry } from "../../conversation/reducer";
import { MessageView } from "../MessageView";
import { msg } from "../../test/fixtures";
import { renderCard } from "../../test/render";
import { ToolPairingProvider, pairTools } from "./pairing";
import { diffLines, splitLines } from "./diff";
import { buildTree, commandLine, foldUnchanged, parseNumbered } from "./views";
import type { Call } from "../../test/api";
import { languageOf } from "./language";
import { riskOf } from "./risk";

function entryOf(m: Message): Entry {
  const raw = m as unknown as { kind: string };
  return { id: m.id, kind: raw.kind, role: m.role, status: m.status, message: m, streamed: "", lastDelta: 0, final: false };
}

/** Renders a list the way the app does: results paired with their calls. */
function list(messages: Message[], opts: Parameters<typeof renderCard>[1] = {}) {
  const { pairing, visible } = pairTools(messages.map(entryOf));
  const ui: ReactElement = (
    <ToolPairingProvider value={pairing}>
      <ul>
        {visible.map((e) => (
          <MessageView key={e.id} entry={e} />
        ))}
      </ul>
    </ToolPairingProvider>
  );
  return renderCard(ui, opts);
}

function call(id: string, name: string, args: Record<string, unknown>, approval_status: ToolCall["approval_status"] = "approved"): ToolCall {
  return { id, name, arguments: args, approval_status };
}
function request(id: string, ...calls: ToolCall[]): Message {
  return msg(id, "tool_request", { calls });
}
function ok(id: string, callId: string, tool: string, output: unknown): Message {
  return msg(id, "tool_result", { call_id: callId, tool_name: tool, duration_ms: 7, status: "success", output }, { role: "tool" });
}
function failed(id: string, callId: string, tool: string, code: string, message: string, details?: unknown): Message {
  return msg(id, "tool_result", { call_id: callId, tool_name: tool, duration_ms: 30_001, status: "error", error: { code, message, recoverable: true, ...(details ? { details } : {}) } }, { role: "tool" });
}
/** Runs one call with its result and gives the card. */
function one(name: string, args: Record<string, unknown>, output: unknown) {
  const r = list([request("t", call("c", name, args)), ok("r", "c", name, output)]);
  const card = r.container.querySelector(`li.tool-call[data-call-id="c"]`) as HTMLElement;
  return { ...r, card };
}

describe("one card per call", () => {
  it("puts the result inside its call's card and leaves the result message out of the list", () => {
    const { container } = one("read_file", { path: "a.rs" }, { path: "a.rs", content: "     1\tfn a() {}\n", start_line: 1, end_line: 1, total_lines: 1, size_bytes: 10 });
    expect(container.querySelectorAll("li.message")).toHaveLength(1);
    expect(container.querySelector("details.tool-result")).toBeNull();
    expect(screen.getByLabelText("read_file call, succeeded · 7 ms")).toBeTruthy();
  });

  it("shows a result whose call is not in the list on its own", () => {
    const { container } = list([ok("r", "gone", "glob", { pattern: "*.md", matches: ["README.md"], truncated: false })]);
    expect(container.querySelector("details.tool-result")).not.toBeNull();
    expect(within(container.querySelector(".file-tree") as HTMLElement).getByText("README.md")).toBeTruthy();
  });

  it("shows a plan and a question once, as their cards, not as calls and results", () => {
    const plan = { goal: "Ship it", steps: [{ step_number: 1, action: "Do it", reason: "because" }] };
    const question = { question: "Which one?", options: [{ label: "A", value: "a" }], severity: "minor" as const };
    const { container } = list([
      request("t1", call("p", "propose_plan", plan)),
      ok("r1", "p", "propose_plan", plan),
      msg("pl", "plan", plan),
      request("t2", call("q", "ask_user", question)),
      ok("r2", "q", "ask_user", question),
      msg("qu", "question", question),
    ]);
    expect([...container.querySelectorAll("li.message")].map((li) => li.getAttribute("data-kind"))).toEqual(["plan", "question"]);
    expect(screen.getAllByText("Ship it")).toHaveLength(1);
    expect(screen.getAllByText("Which one?")).toHaveLength(1);
  });

  it("keeps a plan call that failed (no plan card to show it)", () => {
    const { container } = list([request("t1", call("p", "propose_plan", { goal: "" })), failed("r1", "p", "propose_plan", "invalid_arguments", "goal is empty")]);
    expect(container.querySelector('li.tool-call[data-tool="propose_plan"]')).not.toBeNull();
    expect(screen.getByText("goal is empty")).toBeTruthy();
  });

  it("shows the raw JSON of arguments and output one click away", async () => {
    one("glob", { pattern: "*.rs" }, { pattern: "*.rs", matches: ["a.rs"], truncated: false });
    await userEvent.click(screen.getByRole("button", { name: "Raw JSON" }));
    const raw = JSON.parse(screen.getByLabelText("Raw JSON of glob").textContent ?? "");
    expect(raw).toEqual({ arguments: { pattern: "*.rs" }, output: { pattern: "*.rs", matches: ["a.rs"], truncated: false } });
    await userEvent.click(screen.getByRole("button", { name: "Hide JSON" }));
    expect(screen.queryByLabelText("Raw JSON of glob")).toBeNull();
  });
});

describe("result renderers", () => {
  it("read_file: numbered code view in the file's language, with the range it covers", () => {
    const { card } = one(
      "read_file",
      { path: "src/lib.rs", start_line: 2 },
      { path: "src/lib.rs", content: "     2\tpub fn add(a: i32) -> i32 {\n     3\t    a + 1\n     4\t}\n", start_line: 2, end_line: 4, total_lines: 9, size_bytes: 120, truncated: "stopped at line 4" },
    );
    const view = card.querySelector("figure.code-view") as HTMLElement;
    expect(view.getAttribute("data-language")).toBe("rust");
    expect(view.querySelector(".code-gutter")?.textContent).toBe("2\n3\n4");
    expect(view.querySelector(".code-text")?.textContent).toBe("pub fn add(a: i32) -> i32 {\n    a + 1\n}");
    expect(view.querySelector(".code-text .hljs-keyword")?.textContent).toBe("pub");
    expect(card.textContent).toContain("lines 2–4 of 9");
    expect(card.textContent).toContain("stopped at line 4");
    expect(card.textContent).not.toContain("\\t");
  });

  it("read_file: an empty file says so", () => {
    const { card } = one("read_file", { path: "e.txt" }, { path: "e.txt", content: "", start_line: 0, end_line: 0, total_lines: 0, size_bytes: 0 });
    expect(card.textContent).toContain("e.txt is empty");
  });

  it("list_directory: a tree with directories first and file sizes", () => {
    const { card } = one("list_directory", { path: "src", depth: 2 }, {
      directory: "src",
      entries: [
        { path: "src/main.rs", type: "file", size: 2048 },
        { path: "src/api/", type: "directory", size: null },
        { path: "src/api/mod.rs", type: "file", size: 10 },
      ],
      truncated: false,
    });
    const tree = within(card).getByLabelText("Listing of src");
    expect(tree.querySelector(".tree-root")?.textContent).toBe("src/");
    const top = [...tree.querySelectorAll(":scope > ul.tree > li > .tree-name")].map((n) => n.textContent);
    expect(top).toEqual(["api/", "main.rs"]);
    expect(tree.querySelector(".tree-dir ul .tree-name")?.textContent).toBe("mod.rs");
    expect(tree.textContent).toContain("2.0 KiB");
  });

  it("glob: the matching files as a tree and their count", () => {
    const { card } = one("glob", { pattern: "**/*.ts" }, { pattern: "**/*.ts", matches: ["web/a.ts", "web/b/c.ts"], truncated: true });
    expect(card.textContent).toContain("2 files match **/*.ts (cut at the limit)");
    expect(within(card).getByText("c.ts")).toBeTruthy();
  });

  it("write_file: the written lines as a diff", () => {
    const { card } = one("write_file", { path: "notes.md", content: "# Title\nbody\n" }, { path: "notes.md", bytes_written: 13, created: false });
    expect(card.textContent).toContain("Wrote notes.md (13 bytes, 2 lines)");
    const rows = [...within(card).getByLabelText("Changes to notes.md").querySelectorAll("tr")];
    expect(rows.map((r) => r.className)).toEqual(["diff-add", "diff-add"]);
    expect(rows[1]?.textContent).toContain("body");
    expect(card.querySelector(".diff-stat")?.textContent).toBe("+2 −0");
  });

  it("create_file: says the file was created", () => {
    const { card } = one("create_file", { path: "new.py", content: "print(1)\n" }, { path: "new.py", bytes_written: 9, created: true });
    expect(card.textContent).toContain("Created new.py");
    expect(card.querySelector(".diff-view")?.getAttribute("data-language")).toBe("python");
  });

  it("replace_in_file: removed and added lines numbered from the line of the replacement", () => {
    const { card } = one("replace_in_file", { path: "a.rs", old_text: "let x = 1;\nlet y = 2;\n", new_text: "let x = 10;\nlet y = 2;\n" }, { path: "a.rs", replaced_at_line: 40 });
    expect(card.textContent).toContain("Replaced text in a.rs at line 40");
    const rows = [...card.querySelectorAll(".diff-table tr")].map((r) => [r.className, ...[...r.querySelectorAll(".diff-num")].map((td) => td.textContent)]);
    expect(rows).toEqual([
      ["diff-del", "40", ""],
      ["diff-add", "", "40"],
      ["diff-same", "41", "41"],
    ]);
  });

  it("delete_file: names the deleted file", () => {
    const { card } = one("delete_file", { path: "old.txt" }, { path: "old.txt", deleted: true });
    expect(card.textContent).toContain("Deleted old.txt");
  });

  it("run_command: a terminal with the command line, folder, output and exit code", () => {
    const { card } = one("run_command", { program: "cargo", args: ["test", "--", "a b"], cwd: "crates" }, {
      program: "cargo",
      args: ["test", "--", "a b"],
      cwd: "crates",
      exit_code: 101,
      success: false,
      duration_ms: 900,
      signal: null,
      stdout: "running 1 test\n",
      stderr: "error: 1 failed\n",
      stdout_bytes: 15,
      stderr_bytes: 16,
      stdout_truncated: false,
      stderr_truncated: true,
    });
    const term = card.querySelector("figure.terminal") as HTMLElement;
    expect(term.querySelector(".terminal-command")?.textContent).toBe("cargo test -- 'a b'");
    expect(term.querySelector(".terminal-cwd")?.textContent).toBe("crates");
    expect(term.querySelector(".exit-code")?.textContent).toBe("exit 101");
    expect(term.querySelector(".exit-code")?.classList.contains("exit-failed")).toBe(true);
    expect(term.querySelector(".terminal-stdout")?.textContent).toBe("running 1 test\n");
    expect(term.querySelector(".terminal-stderr")?.textContent).toBe("error: 1 failed\n");
    expect(term.textContent).toContain("stderr cut in the middle");
  });

  it("run_command: a program with no output says so, exit 0 is shown as success", () => {
    const { card } = one("run_command", { program: "true" }, { program: "true", args: [], cwd: ".", exit_code: 0, success: true, duration_ms: 2, stdout: "", stderr: "", stdout_bytes: 0, stderr_bytes: 0, stdout_truncated: false, stderr_truncated: false });
    expect(card.querySelector(".exit-code.exit-ok")?.textContent).toBe("exit 0");
    expect(card.textContent).toContain("(no output)");
  });

  it("run_command: a timeout shows the error and the output it had produced", () => {
    const { container } = list([
      request("t", call("c", "run_command", { program: "sleep", args: ["100"] })),
      failed("r", "c", "run_command", "timeout", "`sleep` did not finish within 30 s and was killed", { stdout: "partial\n", stderr: "", stdout_bytes: 8, stderr_bytes: 0, stdout_truncated: false, stderr_truncated: false }),
    ]);
    expect(screen.getByText("timeout")).toBeTruthy();
    expect(container.textContent).toContain("did not finish within 30 s");
    expect(container.querySelector(".tool-error .terminal-stdout")?.textContent).toBe("partial\n");
    expect(screen.getByLabelText("run_command call, failed · 30.0 s")).toBeTruthy();
  });

  it("a failure's other details fold away", () => {
    list([request("t", call("c", "replace_in_file", { path: "a", old_text: "x", new_text: "y" })), failed("r", "c", "replace_in_file", "not_unique", "old_text occurs 2 times", { lines: [3, 9] })]);
    const details = screen.getByText("Details").closest("details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(within(details).getByLabelText("Error details").textContent).toContain("9");
  });

  it("codebase_search: each hit's place and snippet", () => {
    const { card } = one("codebase_search", { query: "parse" }, { results: [{ path: "src/a.rs", line: 12, snippet: "fn parse() {}", score: 90 }], total_matches: 1, files_searched: 30, truncated: false, query: "parse" });
    expect(card.textContent).toContain("1 matches for parse in 30 files searched");
    expect(within(card).getByText("src/a.rs:12")).toBeTruthy();
    expect(within(card).getByText("fn parse() {}")).toBeTruthy();
  });

  it("find_definition: each definition's kind, place and signature", () => {
    const { card } = one("find_definition", { symbol: "Parser" }, { symbol: "Parser", count: 1, definitions: [{ path: "src/p.rs", language: "rust", name: "Parser", kind: "struct", line: 4, column: 12, signature: "pub struct Parser {" }] });
    expect(card.textContent).toContain("1 definition of Parser");
    expect(within(card).getByText("struct")).toBeTruthy();
    expect(within(card).getByText("src/p.rs:4")).toBeTruthy();
    expect(within(card).getByText("pub struct Parser {")).toBeTruthy();
  });

  it("find_references: each use as numbered code around its line", () => {
    const { card } = one("find_references", { symbol: "run" }, {
      symbol: "run",
      total_count: 3,
      file_count: 1,
      shown: 1,
      truncated: true,
      files: [{ path: "src/m.rs", count: 3, references: [{ line: 8, column: 5, is_definition: true, context: "     7\t// go\n     8\tfn run() {\n     9\t}\n" }] }],
    });
    expect(card.textContent).toContain("3 uses of run in 1 files, 1 shown");
    const view = card.querySelector("figure.code-view") as HTMLElement;
    expect(view.querySelector(".code-path")?.textContent).toBe("src/m.rs:8 (definition)");
    expect(view.querySelector(".code-gutter")?.textContent).toBe("7\n8\n9");
  });

  it("get_project_overview: languages as a table and the totals", () => {
    const { card } = one("get_project_overview", {}, {
      root: "/ws",
      directories: { src: 4 },
      entry_points: ["src/main.rs"],
      languages: { rust: { files: 4, lines: 300 } },
      key_dependencies: ["serde"],
      more_dependencies: 2,
      total_files: 5,
      total_lines: 320,
      total_bytes: 9000,
    });
    const table = within(card).getByRole("table", { name: "Languages" });
    expect(within(table).getByText("rust")).toBeTruthy();
    expect(within(table).getByText("300")).toBeTruthy();
    expect(card.textContent).toContain("5 files, 320 lines in /ws");
    expect(card.textContent).toContain("Key dependencies: serde and 2 more");
  });

  it("project_structure: points to its own card", () => {
    const { card } = one("project_structure", {}, { root_path: "/ws", structure_type: "file_list", content: [], truncated: false });
    expect(card.textContent).toContain("Project structure of /ws (file list), shown in its own card.");
  });

  it("an output of a shape it does not know stays JSON", () => {
    const { card } = one("read_file", { path: "x" }, { unexpected: true });
    expect(within(card).getByLabelText("Output").textContent).toContain('"unexpected": true');
  });

  it("an MCP tool's text content shows as text, other content as JSON", () => {
    const req = msg("m", "mcp_tool_request", { server_name: "gh", tool_name: "search", called_as: "mcp__gh__search", arguments: { q: "x" }, request_id: "q1", approval_status: "approved", requested_at: "t" });
    const res = msg("mr", "mcp_tool_result", { server_name: "gh", tool_name: "search", request_id: "q1", executed_at: "t", duration_ms: 3, status: "success", result: { content: [{ type: "text", text: "found 2 issues" }] } }, { role: "tool" });
    const { container } = list([req, res]);
    expect(container.querySelectorAll("li.message")).toHaveLength(1);
    expect(container.querySelector("pre.mcp-text")?.textContent).toBe("found 2 issues");
    expect(container.querySelector(".risk-badge")?.textContent).toBe("network");
  });
});

describe("what a pending call will do", () => {
  it("a command: its command line and folder, with a command risk badge", () => {
    const { container } = list([request("t", call("c", "run_command", { program: "rm", args: ["-rf", "build"], cwd: "web" }, "pending"))]);
    expect(container.querySelector(".terminal-command")?.textContent).toBe("rm -rf build");
    expect(container.querySelector(".terminal-cwd")?.textContent).toBe("web");
    expect(container.querySelector(".risk-badge")?.textContent).toBe("command");
    expect(container.querySelector(".exit-code")).toBeNull();
  });

  it("a write: the path and a diff; a read: a read badge", async () => {
    const { container } = list([request("t", call("w", "replace_in_file", { path: "a.ts", old_text: "a", new_text: "b" }, "pending"), call("r", "read_file", { path: "b.ts" }, "pending"))]);
    expect(await within(container.querySelector('[data-call-id="w"]') as HTMLElement).findByLabelText("Changes to a.ts")).toBeTruthy();
    expect(container.querySelector('[data-call-id="w"] .risk-badge')?.textContent).toBe("write");
    expect(container.querySelector('[data-call-id="r"] .risk-badge')?.textContent).toBe("read");
  });
});

/** The approval requests among the recorded calls (previews are asked for too). */
const decisions = (calls: Call[]) => calls.filter((c) => c.url.endsWith("/approvals"));

describe("a pending file change, previewed against the disk", () => {
  const before = "fn main() {}\n\nmod tests {\n    fn t() {}\n}\n";
  const answer = (c: Call) =>
    c.url.endsWith("/files/preview")
      ? { status: 200, body: { path: "src/main.rs", change: { type: "overwrites", before, after: "fn main() {}\n", before_lines: 5 } } }
      : { status: 204 };

  it("asks the server for the file as it is now and shows every line an overwrite removes", async () => {
    const { container, calls } = list([request("t", call("w", "write_file", { path: "src/main.rs", content: "fn main() {}\n" }, "pending"))], { answer });
    await screen.findByText("overwrites a 5-line file");
    expect(calls[0]).toEqual(expect.objectContaining({ method: "POST", url: "/v1/contexts/c1/files/preview", body: { tool: "write_file", arguments: { path: "src/main.rs", content: "fn main() {}\n" } } }));
    expect([...container.querySelectorAll("tr.diff-del .diff-text")].map((td) => td.textContent)).toEqual(["", "mod tests {", "    fn t() {}", "}"]);
    expect(container.querySelectorAll("tr.diff-add")).toHaveLength(0);
  });

  it("falls back to the arguments, saying so, when the server cannot preview", async () => {
    const { container } = list([request("t", call("w-unpreviewed", "write_file", { path: "a.txt", content: "x\n" }, "pending"))], {
      answer: (c) => (c.url.endsWith("/files/preview") ? { status: 409, body: { error: { code: "conflict", message: "this context has no workspace" } } } : { status: 204 }),
    });
    expect((await screen.findByText(/cannot be previewed against the file on disk/)).textContent).toContain("no workspace");
    expect(within(container).getByLabelText("Changes to a.txt")).toBeTruthy();
  });

  it("moves the keyboard to the next waiting call after a mouse approval", async () => {
    list([request("t", call("c1", "read_file", { path: "a" }, "pending"), call("c2", "read_file", { path: "b" }, "pending"))], { answer: () => ({ status: 204 }) });
    const first = screen.getAllByRole("group", { name: "Approval for read_file" })[0] as HTMLElement;
    await userEvent.click(within(first).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(document.activeElement?.getAttribute("data-call-id")).toBe("c2"));
  });
});

describe("a denied call", () => {
  it("reads as the person's decision with their note, not as a failure", () => {
    const denied = failed("r", "d1", "write_file", "denied", "denied by the person: not now");
    const { container } = list([request("t", call("d1", "write_file", { path: "a.txt", content: "x" }, "denied")), denied]);
    const card = container.querySelector('[data-call-id="d1"]') as HTMLElement;
    expect(card.className).toContain("denied");
    expect(card.className).not.toContain("failed");
    expect(card.getAttribute("aria-label")).toBe("write_file call, denied by you");
    expect(card.querySelector(".call-denied")?.textContent).toBe("You denied this call: “not now” The model was told and did not run it.");
  });
});

describe("foldUnchanged", () => {
  it("keeps the context around each change and folds the rest into counted rows", () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
    const after = before.replace("l10", "ten");
    const rows = foldUnchanged(diffLines(before, after), 2);
    expect(rows.map((r) => (r.op === "fold" ? `fold ${r.count}` : `${r.op} ${r.text}`))).toEqual(["fold 7", "same l8", "same l9", "del l10", "add ten", "same l11", "same l12", "fold 8"]);
    expect(foldUnchanged(diffLines(before, after), undefined)).toHaveLength(21);
  });
});

describe("approval by keyboard", () => {
  const pending = () => [request("t", call("c1", "write_file", { path: "a.txt", content: "hi" }, "pending"))];

  it("focuses the pending call when it arrives", () => {
    list(pending());
    expect(document.activeElement?.getAttribute("data-call-id")).toBe("c1");
  });

  it.each([
    ["y", "approve"],
    ["a", "approve_for_session"],
  ])("%s sends %s", async (key, decision) => {
    const { calls } = list(pending());
    await userEvent.keyboard(key);
    expect(decisions(calls)).toEqual([expect.objectContaining({ method: "POST", url: "/v1/contexts/c1/approvals", body: { decisions: [{ call_id: "c1", decision }] } })]);
  });

  it("n asks for an optional note and denies with it", async () => {
    const { calls } = list(pending());
    await userEvent.keyboard("n");
    const input = screen.getByLabelText("Note to the model (optional)");
    expect(document.activeElement).toBe(input);
    await userEvent.type(input, "use create_file{Enter}");
    expect(decisions(calls)[0]?.body).toEqual({ decisions: [{ call_id: "c1", decision: "deny", reason: "use create_file" }] });
  });

  it("n then Enter denies without a note; Escape cancels", async () => {
    const { calls } = list(pending());
    await userEvent.keyboard("n");
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByLabelText("Note to the model (optional)")).toBeNull();
    expect(decisions(calls)).toHaveLength(0);
    await userEvent.keyboard("n");
    await userEvent.keyboard("{Enter}");
    expect(decisions(calls)[0]?.body).toEqual({ decisions: [{ call_id: "c1", decision: "deny" }] });
  });

  it("ignores keys once decided and keys with modifiers", async () => {
    const { calls } = list(pending());
    fireEvent.keyDown(document.activeElement as Element, { key: "y", ctrlKey: true });
    expect(decisions(calls)).toHaveLength(0);
    await userEvent.keyboard("y");
    await userEvent.keyboard("a");
    await waitFor(() => expect(decisions(calls)).toHaveLength(1));
  });

  it("does not take the focus from a person typing", () => {
    const input = document.createElement("textarea");
    document.body.appendChild(input);
    input.value = "half a sentence";
    input.focus();
    list(pending());
    expect(document.activeElement).toBe(input);
    input.remove();
  });
});

describe("pieces", () => {
  it("diffLines keeps common lines and numbers both sides", () => {
    expect(diffLines("a\nb\nc\n", "a\nB\nc\nd\n").map((l) => `${l.op}:${l.text}:${l.oldNumber ?? ""}:${l.newNumber ?? ""}`)).toEqual([
      "same:a:1:1",
      "del:b:2:",
      "add:B::2",
      "same:c:3:3",
      "add:d::4",
    ]);
    expect(diffLines("", "")).toEqual([]);
    expect(splitLines("x\r\ny")).toEqual(["x", "y"]);
  });

  it("parseNumbered reads the tools' numbered lines, tabs in the code kept", () => {
    expect(parseNumbered("    10\t\tindented\n    11\tx\n")).toEqual([
      { number: 10, text: "\tindented" },
      { number: 11, text: "x" },
    ]);
  });

  it("buildTree nests paths under the listed directory", () => {
    const t = buildTree([{ path: "d/x/" }, { path: "d/x/y.rs", size: 1 }, { path: "d/z" }], "d");
    expect([...t.dirs.keys()]).toEqual(["x"]);
    expect(t.files.map((f) => f.name)).toEqual(["z"]);
    expect(t.dirs.get("x")?.files).toEqual([{ name: "y.rs", size: 1 }]);
  });

  it("commandLine quotes what a shell would split", () => {
    expect(commandLine("echo", ["a b", "it's", "", "-x=1"])).toBe(`echo 'a b' 'it'\\''s' '' -x=1`);
  });

  it("languageOf and riskOf", () => {
    expect(languageOf("src/App.tsx")).toBe("typescript");
    expect(languageOf("Makefile")).toBe("makefile");
    expect(languageOf("LICENSE")).toBeUndefined();
    expect(riskOf("read_file")).toBe("read");
    // A plan progress report changes nothing but the plan card's ticks.
    expect(riskOf("update_plan")).toBe("read");
    expect(riskOf("delete_file")).toBe("write");
    expect(riskOf("run_command")).toBe("command");
    expect(riskOf("mystery")).toBe("command");
    expect(riskOf("read_file", true)).toBe("network");
  });
});
