import { describe, expect, it } from "vitest";
import { initialShell, overlayOpen, shellReducer, type ShellAction, type ShellState } from "./shellState";

function run(actions: ShellAction[], from: ShellState = initialShell): ShellState {
  return actions.reduce(shellReducer, from);
}

describe("the shell's state", () => {
  it("toggles a side panel, and another panel replaces it", () => {
    expect(run([{ type: "toggle_panel", panel: "settings" }]).panel).toBe("settings");
    expect(run([{ type: "toggle_panel", panel: "settings" }, { type: "toggle_panel", panel: "settings" }]).panel).toBe("none");
    expect(run([{ type: "toggle_panel", panel: "settings" }, { type: "toggle_panel", panel: "mcp" }]).panel).toBe("mcp");
  });

  it("Escape closes the side panel and the sidebar, which count as overlays", () => {
    const open = run([{ type: "panel", panel: "mcp" }, { type: "nav", open: true }]);
    expect(overlayOpen(open)).toBe(true);
    const closed = shellReducer(open, { type: "escape" });
    expect(closed.panel).toBe("none");
    expect(closed.navOpen).toBe(false);
    expect(overlayOpen(closed)).toBe(false);
    // Escape leaves the rest as it was.
    expect(shellReducer(run([{ type: "help", open: true }]), { type: "escape" }).helpOpen).toBe(true);
  });

  it("opens the merge dialog with the source the branch map chose, and forgets it on close", () => {
    const fromMap = run([{ type: "map", open: true }, { type: "map", open: false }, { type: "merge_open", source: "alt" }]);
    expect(fromMap.merge).toEqual({ open: true, source: "alt" });
    expect(shellReducer(fromMap, { type: "merge_closed" }).merge).toEqual({ open: false, source: undefined });
    expect(run([{ type: "merge_open" }]).merge).toEqual({ open: true, source: undefined });
  });

  it("never changes the state it is given", () => {
    const before = structuredClone(initialShell);
    run([{ type: "toggle_more" }, { type: "branch_from", messageId: "m1" }, { type: "reveal", id: "m2" }, { type: "editing_id", id: "m3" }]);
    expect(initialShell).toEqual(before);
  });
});
