import { describe, expect, it } from "vitest";
import { findVersions, freeBranchName, type FirstAfter } from "./versions";
import type { BranchList } from "../generated/protocol";
import type { Entry } from "../conversation/reducer";

const T = "2026-11-22T05:00:00Z";
const T2 = "2026-11-22T06:00:00Z";
const entry = (id: string, kind = "text"): Entry => ({ id, kind, role: "user", status: "complete", message: undefined, streamed: "", lastDelta: 0, final: false });

/** Each branch's messages, in order; the first after a fork point is read from them. */
function firstAfter(lines: Record<string, string[]>): FirstAfter {
  return async (branch, at) => {
    const ids = lines[branch] ?? [];
    if (at === "") return ids[0] ?? null;
    const i = ids.indexOf(at);
    return i === -1 ? null : ids[i + 1] ?? null;
  };
}

describe("versions", () => {
  it("numbers the versions at a fork point and names the branches holding the others", async () => {
    // main: p q1 a1; edit-1 forked before q1: p x0 (its switch notice) x1 x2, written later; side
    // forked at a1 (so it shares q1 with main).
    const lines = { main: ["p", "q1", "a1"], "edit-1": ["p", "x0", "x1", "x2"], side: ["p", "q1", "a1", "s"] };
    const branches: BranchList = {
      active: "edit-1",
      branches: [
        { name: "main", message_count: 3, created_at: T },
        { name: "edit-1", message_count: 4, parent: "main", fork_point: "p", created_at: T2 },
        { name: "side", message_count: 4, parent: "main", fork_point: "a1", created_at: T2 },
      ],
    };
    const v = await findVersions(branches, ["p", "x0", "x1", "x2"].map((id) => entry(id, id === "x0" ? "system_control" : "text")), firstAfter(lines));
    // Shown on the first message after the notice, numbered by when each version was written.
    expect([...v.keys()]).toEqual(["x1"]);
    expect(v.get("x1")).toEqual({ index: 2, total: 2, previous: "main", next: undefined });
  });

  it("counts a branch that shares nothing as a version from the start", async () => {
    const lines = { main: ["q1", "a1"], "edit-1": ["q2", "a2"] };
    const branches: BranchList = {
      active: "main",
      branches: [
        { name: "main", message_count: 2, created_at: T },
        { name: "edit-1", message_count: 2, parent: "main", created_at: T2 },
      ],
    };
    const v = await findVersions(branches, [entry("q1"), entry("a1")], firstAfter(lines));
    expect(v.get("q1")).toEqual({ index: 1, total: 2, previous: undefined, next: "edit-1" });
  });

  it("shows nothing with one branch, or where the branches do not diverge", async () => {
    const one: BranchList = { active: "main", branches: [{ name: "main", message_count: 1, created_at: T }] };
    expect((await findVersions(one, [entry("a")], firstAfter({ main: ["a"] }))).size).toBe(0);
    const ahead: BranchList = {
      active: "main",
      branches: [
        { name: "main", message_count: 2, created_at: T },
        { name: "copy", message_count: 2, parent: "main", fork_point: "b", created_at: T2 },
      ],
    };
    expect((await findVersions(ahead, [entry("a"), entry("b")], firstAfter({ main: ["a", "b"], copy: ["a", "b"] }))).size).toBe(0);
  });

  it("names new branches with the first free number", () => {
    expect(freeBranchName("edit", ["main", "edit-1", "edit-3"])).toBe("edit-2");
  });
});
