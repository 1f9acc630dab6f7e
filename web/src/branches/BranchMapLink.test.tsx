// The branch map links a summary merge's marked message back to its source branch: following
// the link switches there and closes the map.
import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { BranchMap } from "./BranchMap";
import { msg, textMsg } from "../test/fixtures";
import type { BranchList, Message } from "../generated/protocol";

const T = "2026-11-22T05:00:00Z";

describe("branch map summary link", () => {
  it("goes to the branch a summary merge came from", async () => {
    const branches: BranchList = {
      active: "main",
      branches: [
        { name: "main", message_count: 3, created_at: T },
        { name: "explore", message_count: 31, parent: "main", fork_point: "q1", created_at: T },
      ],
    };
    const marked = textMsg("m1", "What exploring found.", { role: "user", metadata: { merged_from: { branch: "explore", from: "x1", to: "x30", count: 30 } } });
    const notice = msg("n1", "system_control", { type: "branch_merge", source: "explore", strategy: "summary", moved: [], skipped: [], resolutions: [] } as never);
    const messages: Record<string, Message[]> = { main: [textMsg("q1", "q"), marked, notice], explore: [textMsg("q1", "q")] };
    const onSwitch = vi.fn();
    const onClose = vi.fn();
    render(<BranchMap branches={branches} loadMessages={async (b) => messages[b] ?? []} onSwitch={onSwitch} onMerge={() => {}} onClose={onClose} />);
    const link = await screen.findByRole("button", { name: "Go to explore, the branch whose 30 messages main's summary stands for" });
    expect(link.parentElement?.textContent).toBe("conclusions of explore summarized here (30 messages)");
    await userEvent.click(link);
    expect(onSwitch).toHaveBeenCalledWith("explore");
    expect(onClose).toHaveBeenCalled();
  });
});
