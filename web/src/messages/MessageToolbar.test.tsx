import { describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MessageView } from "./MessageView";
import { BranchingProvider, type Branching } from "../branches/branching";
import { renderCard } from "../test/render";
import { textMsg } from "../test/fixtures";
import { answerFacts, copyText } from "./MessageToolbar";
import type { Entry } from "../conversation/reducer";
import type { Message } from "../generated/protocol";

const entryOf = (m: Message): Entry => ({ id: m.id, kind: m.kind, role: m.role, status: m.status, message: m, streamed: "", lastDelta: 0, final: false });

function branching(over: Partial<Branching> = {}): Branching {
  return {
    versions: new Map(),
    editingId: null,
    setEditingId: vi.fn(),
    editAndSend: vi.fn(async () => {}),
    regenerate: vi.fn(async () => {}),
    switchTo: vi.fn(),
    busy: false,
    ...over,
  };
}

describe("message toolbar", () => {
  it("offers copy and edit on the person's message, copy and regenerate on an answer", async () => {
    const b = branching();
    renderCard(
      <BranchingProvider value={b}>
        <ol>
          <MessageView entry={entryOf(textMsg("q", "Question?", { role: "user" }))} />
          <MessageView entry={entryOf(textMsg("a", "Answer.", { metadata: { model: "mock-1", usage: { prompt_tokens: 1200, completion_tokens: 30, cached_prompt_tokens: 1024 } } }))} />
        </ol>
      </BranchingProvider>,
    );
    expect(screen.getByRole("button", { name: "Copy user message" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Copy assistant message" })).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Edit message" }));
    expect(b.setEditingId).toHaveBeenCalledWith("q");
    await userEvent.click(screen.getByRole("button", { name: "Regenerate" }));
    expect(b.regenerate).toHaveBeenCalledWith("a");
    expect(screen.getByText("mock-1")).toBeTruthy();
    expect(screen.getByText(/1,200 in \(1,024 cached\) · 30 out/)).toBeTruthy();
    expect(screen.getAllByText(/ago|yesterday|just now|2026/).length).toBe(2);
  });

  it("edits in place and sends the edited text", async () => {
    const b = branching({ editingId: "q" });
    renderCard(
      <BranchingProvider value={b}>
        <ol>
          <MessageView entry={entryOf(textMsg("q", "Question?", { role: "user" }))} />
        </ol>
      </BranchingProvider>,
    );
    const box = screen.getByLabelText("Edited message");
    await userEvent.clear(box);
    await userEvent.type(box, "Better question?{Enter}");
    expect(b.editAndSend).toHaveBeenCalledWith("q", "Better question?");
  });

  it("shows the versions and switches with the arrows", async () => {
    const b = branching({ versions: new Map([["q", { index: 2, total: 3, previous: "main", next: "edit-2" }]]) });
    renderCard(
      <BranchingProvider value={b}>
        <ol>
          <MessageView entry={entryOf(textMsg("q", "Question?", { role: "user" }))} />
        </ol>
      </BranchingProvider>,
    );
    expect(screen.getByLabelText("Version 2 of 3").textContent).toBe("2/3");
    await userEvent.click(screen.getByRole("button", { name: "Previous version" }));
    expect(b.switchTo).toHaveBeenCalledWith("main");
    await userEvent.click(screen.getByRole("button", { name: "Next version" }));
    expect(b.switchTo).toHaveBeenCalledWith("edit-2");
  });

  it("copies text as shown and other kinds as their data", () => {
    expect(copyText(entryOf(textMsg("a", "Hello")))).toBe("Hello");
    expect(answerFacts(textMsg("q", "x", { role: "user" }))).toEqual({});
  });
});
