import { describe, expect, it } from "vitest";
import { branchFacts } from "./BranchMap";
import { msg, textMsg } from "../test/fixtures";
import type { BranchInfo } from "../generated/protocol";

const T = "2026-11-22T05:00:00Z";

describe("branch map facts", () => {
  it("finds each fork point's place in the parent, the merges received and the last activity", () => {
    const branches: BranchInfo[] = [
      { name: "main", message_count: 4, created_at: T },
      { name: "side", message_count: 3, parent: "main", fork_point: "a1", created_at: T },
      { name: "edit-1", message_count: 1, parent: "main", created_at: T },
    ];
    const later = { ...textMsg("s1", "side"), updated_at: "2026-11-22T07:00:00Z" };
    const merge = msg("n1", "system_control", { type: "branch_merge", source: "side", strategy: "append", moved: [], skipped: [], resolutions: [] } as never);
    const facts = branchFacts(
      branches,
      new Map([
        ["main", [textMsg("q1", "q"), textMsg("a1", "a"), textMsg("q2", "q"), merge]],
        ["side", [textMsg("q1", "q"), textMsg("a1", "a"), later]],
        ["edit-1", [textMsg("e1", "e")]],
      ]),
    );
    expect(facts.get("main")).toEqual({ lastActivity: T, mergedFrom: ["side"], summaries: [], forkAt: undefined });
    expect(facts.get("side")).toEqual({ lastActivity: "2026-11-22T07:00:00Z", mergedFrom: [], summaries: [], forkAt: 2 });
    expect(facts.get("edit-1")?.forkAt).toBe(0);
  });

  it("links a summary merge's marked message back to the branch and range it stands for", () => {
    const branches: BranchInfo[] = [
      { name: "main", message_count: 3, created_at: T },
      { name: "explore", message_count: 32, parent: "main", fork_point: "q1", created_at: T },
    ];
    const marked = textMsg("m1", "What exploring found.", { role: "user", metadata: { merged_from: { branch: "explore", from: "x1", to: "x30", count: 30 } } });
    const notice = msg("n1", "system_control", { type: "branch_merge", source: "explore", strategy: "summary", moved: [], skipped: [], resolutions: [] } as never);
    const facts = branchFacts(
      branches,
      new Map([
        ["main", [textMsg("q1", "q"), marked, notice]],
        ["explore", [textMsg("q1", "q"), textMsg("x1", "look")]],
      ]),
    );
    expect(facts.get("main")?.summaries).toEqual([{ branch: "explore", count: 30 }]);
    expect(facts.get("main")?.mergedFrom).toEqual(["explore"]);
    expect(facts.get("explore")?.summaries).toEqual([]);
  });
});
