// The newest mode change in the list: what tells the shell its summary's mode is out of date.
import { describe, expect, it } from "vitest";
import type { Message } from "../generated/protocol";
import type { Entry } from "../conversation/reducer";
import { msg, textMsg } from "../test/fixtures";
import { newestModeChange } from "./useContextData";

function entryOf(m: Message): Entry {
  return { id: m.id, kind: m.kind, role: m.role, status: m.status, message: m, streamed: "", lastDelta: 0, final: false };
}

describe("newestModeChange", () => {
  it("names the last mode change notice and the mode it set", () => {
    const toAct = msg("n1", "system_control", { type: "mode_change", from: "plan", to: "act" }, { role: "user" });
    const toPlan = msg("n2", "system_control", { type: "mode_change", from: "act", to: "plan" }, { role: "user" });
    const entries = [textMsg("a", "hi"), toAct, textMsg("b", "go"), toPlan, textMsg("c", "ok")].map(entryOf);
    expect(newestModeChange(entries)).toEqual({ id: "n2", to: "plan" });
    expect(newestModeChange(entries.slice(0, 3))).toEqual({ id: "n1", to: "act" });
  });

  it("is undefined for a list without one", () => {
    expect(newestModeChange([textMsg("a", "hi")].map(entryOf))).toBeUndefined();
    expect(newestModeChange([])).toBeUndefined();
  });
});
