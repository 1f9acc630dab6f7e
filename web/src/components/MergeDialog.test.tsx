import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MergeDialog, describeMessage } from "./MergeDialog";
import type { MergeAnswer } from "../api/client";
import type { BranchList, MergeOutcome, MergeRequest } from "../generated/protocol";
import { msg } from "../test/fixtures";

const branches: BranchList = {
  active: "main",
  branches: [
    { name: "main", message_count: 4, created_at: "2026-01-01T00:00:00Z" },
    { name: "alt", message_count: 4, created_at: "2026-01-01T00:00:01Z" },
  ],
};

function outcome(over: Partial<MergeOutcome> = {}): MergeOutcome {
  return { source: "alt", target: "main", strategy: "rebase", merged: false, moved: ["m3", "m4"], removed: [], skipped: [], warnings: [], conflicts: [], resolutions: [], ...over };
}

const conflict = {
  id: "file_write:notes.txt",
  kind: "file_write" as const,
  messages: [
    { id: "m2", branch: "main", created_at: "2026-01-01T00:00:02Z" },
    { id: "m3", branch: "alt", created_at: "2026-01-01T00:00:03Z" },
  ],
  detail: "both branches wrote `notes.txt` after they diverged",
  suggestions: ["keep_target" as const, "take_source" as const, "keep_both" as const],
};

function setup(answer: (req: MergeRequest) => MergeAnswer) {
  const merge = vi.fn(async (_source: string, req: MergeRequest) => answer(req));
  const onMerged = vi.fn();
  render(
    <MergeDialog
      branches={branches}
      loadMessages={async () => [msg("m3", "text", { parts: [{ type: "text", text: "alt question" }] }, { role: "user" }), msg("m4", "text", { parts: [{ type: "text", text: "alt answer" }] })]}
      merge={merge}
      onMerged={onMerged}
      onClose={() => {}}
    />,
  );
  return { merge, onMerged };
}

describe("merge dialog", () => {
  it("previews a rebase, asks for every conflict's resolution, then merges with them", async () => {
    const { merge, onMerged } = setup((req) =>
      req.dry_run
        ? { kind: "done", outcome: outcome({ conflicts: [conflict] }) }
        : { kind: "done", outcome: outcome({ merged: true, resolutions: req.resolutions ?? [] }) },
    );
    const dialog = screen.getByRole("form", { name: "Merge branches" });
    expect(within(dialog).getByLabelText("Merge from")).toHaveProperty("value", "alt");
    expect(within(dialog).getByLabelText("into")).toHaveProperty("value", "main");
    const mergeButton = within(dialog).getByRole("button", { name: "Merge" });
    expect(mergeButton).toHaveProperty("disabled", true);
    await userEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
    expect(merge).toHaveBeenLastCalledWith("alt", { target: "main", strategy: { type: "rebase" }, dry_run: true });
    const box = await screen.findByRole("group", { name: "Conflict file_write:notes.txt" });
    within(box).getByText(/both branches wrote/);
    within(box).getByText(/Keep the target's side \(suggested\)/);
    // Not before the conflict has a resolution.
    expect(mergeButton).toHaveProperty("disabled", true);
    await userEvent.click(within(box).getByLabelText(/Take the source's side/));
    expect(mergeButton).toHaveProperty("disabled", false);
    await userEvent.click(mergeButton);
    expect(merge).toHaveBeenLastCalledWith("alt", {
      target: "main",
      strategy: { type: "rebase" },
      resolutions: [{ conflict: "file_write:notes.txt", resolution: "take_source" }],
    });
    await waitFor(() => expect(onMerged).toHaveBeenCalledOnce());
  });

  it("cherry-picks ticked messages and merges anyway only when the person accepts the warnings", async () => {
    const warning = { kind: "result_without_request" as const, message_id: "m4", missing: ["m2"], detail: "the tool result for call `c1` is picked without the request that asked for it" };
    const { merge } = setup((req) =>
      req.accept_warnings
        ? { kind: "done", outcome: outcome({ merged: true, strategy: "cherry_pick" }) }
        : { kind: "held", outcome: outcome({ strategy: "cherry_pick", warnings: [warning] }), message: "leaves 1 dependency behind" },
    );
    await userEvent.click(screen.getByLabelText(/Cherry-pick/));
    const preview = screen.getByRole("button", { name: "Preview" });
    expect(preview).toHaveProperty("disabled", true);
    await userEvent.click(await screen.findByLabelText(/assistant: alt answer/));
    await userEvent.click(preview);
    expect(merge).toHaveBeenLastCalledWith("alt", { target: "main", strategy: { type: "cherry_pick", message_ids: ["m4"] }, dry_run: true });
    await screen.findByText(/picked without the request/);
    screen.getByRole("alert");
    const mergeButton = screen.getByRole("button", { name: "Merge" });
    expect(mergeButton).toHaveProperty("disabled", true);
    await userEvent.click(screen.getByLabelText("Merge anyway"));
    await userEvent.click(mergeButton);
    expect(merge.mock.calls.at(-1)?.[1]).toMatchObject({ accept_warnings: true });
  });

  it("describes messages for the cherry-pick list in a line", () => {
    expect(describeMessage(msg("m1", "text", { parts: [{ type: "text", text: "x".repeat(100) }] }, { role: "user" }))).toMatch(/^user: x{80}…$/);
    expect(describeMessage(msg("m2", "tool_request", { calls: [{ id: "c", name: "write_file", arguments: {}, approval_status: "approved" }] }))).toBe("assistant calls write_file");
  });

  it("lists the messages that would move, and offers no Merge when nothing would", async () => {
    let moved = ["m3", "m4"];
    setup(() => ({ kind: "done", outcome: outcome({ moved }) }));
    const dialog = screen.getByRole("form", { name: "Merge branches" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
    const list = await within(dialog).findByRole("list", { name: "Messages that would move" });
    await waitFor(() => expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["user: alt question", "assistant: alt answer"]));
    expect(within(dialog).getByRole("button", { name: "Merge" })).toHaveProperty("disabled", false);
    moved = [];
    await userEvent.click(within(dialog).getByRole("radio", { name: /Append/ }));
    await userEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
    await within(dialog).findByText(/0 messages would move/);
    expect(within(dialog).getByRole("button", { name: "Merge" })).toHaveProperty("disabled", true);
  });

  it("offers a summary merge: the dry run's summary is edited and merging sends the edit", async () => {
    const summary = { text: "The branch found two lines.", ledger: "- read: notes.txt", from: "m3", to: "m4", count: 2 };
    const { merge, onMerged } = setup((req) =>
      req.dry_run
        ? { kind: "done", outcome: outcome({ strategy: "summary", moved: [], summary }) }
        : { kind: "done", outcome: outcome({ strategy: "summary", merged: true, moved: ["s1"], summary }) },
    );
    const dialog = screen.getByRole("form", { name: "Merge branches" });
    await userEvent.click(within(dialog).getByLabelText("Summary"));
    await userEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
    expect(merge).toHaveBeenLastCalledWith("alt", { target: "main", strategy: { type: "summary" }, dry_run: true });
    const box = await within(dialog).findByLabelText("Summary (edit it before merging)");
    expect(box).toHaveProperty("value", "The branch found two lines.");
    expect(within(dialog).getByLabelText("Ledger appended").textContent).toBe("- read: notes.txt");
    await userEvent.clear(box);
    expect(within(dialog).getByRole("button", { name: "Merge" })).toHaveProperty("disabled", true);
    await userEvent.type(box, "Two lines, kept.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Merge" }));
    expect(merge).toHaveBeenLastCalledWith("alt", { target: "main", strategy: { type: "summary", text: "Two lines, kept." } });
    await waitFor(() => expect(onMerged).toHaveBeenCalled());
  });
});
