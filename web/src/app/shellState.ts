// What the shell around the conversation shows: the open panel and dialogs, the narrow-window
// menus, the message being edited or branched from, and the message to bring into view. One
// reducer, so each change is a named action instead of a setter passed around.

import type { EditedSend } from "../components/Composer";

/** The side panel shown beside the conversation. */
export type Panel = "none" | "settings" | "mcp";

/** The shell's state. */
export interface ShellState {
  /** The side panel. */
  panel: Panel;
  /** The conversations sidebar on a narrow window. */
  navOpen: boolean;
  /** The header's "More" menu on a phone. */
  moreOpen: boolean;
  /** The branch bar, folded into "More" on a phone. */
  branchesOpen: boolean;
  /** The message whose "Branch from here" form is open. */
  branchFromId: string | null;
  /** The merge dialog, with the source branch it opened with (from the branch map). */
  merge: { open: boolean; source: string | undefined };
  /** The keyboard shortcuts dialog. */
  helpOpen: boolean;
  /** The branch map. */
  mapOpen: boolean;
  /** A failed send put back in the composer. */
  editing: EditedSend | null;
  /** The sent message being edited in place (a new version). */
  editingId: string | null;
  /** A message to bring into view once the full history shows it (a marker or search hit). */
  reveal: string | null;
}

/** What can happen to the shell. */
export type ShellAction =
  | { type: "panel"; panel: Panel }
  | { type: "toggle_panel"; panel: Exclude<Panel, "none"> }
  | { type: "nav"; open: boolean }
  | { type: "toggle_nav" }
  | { type: "toggle_more" }
  | { type: "close_more" }
  | { type: "toggle_branches" }
  | { type: "branch_from"; messageId: string | null }
  | { type: "merge_open"; source?: string }
  | { type: "merge_closed" }
  | { type: "help"; open: boolean }
  | { type: "map"; open: boolean }
  | { type: "editing"; editing: EditedSend | null }
  | { type: "editing_id"; id: string | null }
  | { type: "reveal"; id: string | null }
  | { type: "escape" };

/** The shell as a page opens. */
export const initialShell: ShellState = {
  panel: "none",
  navOpen: false,
  moreOpen: false,
  branchesOpen: false,
  branchFromId: null,
  merge: { open: false, source: undefined },
  helpOpen: false,
  mapOpen: false,
  editing: null,
  editingId: null,
  reveal: null,
};

/** Applies one action; never mutates its input. */
export function shellReducer(s: ShellState, a: ShellAction): ShellState {
  switch (a.type) {
    case "panel":
      return { ...s, panel: a.panel };
    case "toggle_panel":
      return { ...s, panel: s.panel === a.panel ? "none" : a.panel };
    case "nav":
      return { ...s, navOpen: a.open };
    case "toggle_nav":
      return { ...s, navOpen: !s.navOpen };
    case "toggle_more":
      return { ...s, moreOpen: !s.moreOpen };
    case "close_more":
      return { ...s, moreOpen: false };
    case "toggle_branches":
      return { ...s, branchesOpen: !s.branchesOpen };
    case "branch_from":
      return { ...s, branchFromId: a.messageId };
    case "merge_open":
      return { ...s, merge: { open: true, source: a.source ?? s.merge.source } };
    case "merge_closed":
      return { ...s, merge: { open: false, source: undefined } };
    case "help":
      return { ...s, helpOpen: a.open };
    case "map":
      return { ...s, mapOpen: a.open };
    case "editing":
      return { ...s, editing: a.editing };
    case "editing_id":
      return { ...s, editingId: a.id };
    case "reveal":
      return { ...s, reveal: a.id };
    case "escape":
      // Escape closes the overlays: the side panel and the narrow-window sidebar.
      return { ...s, panel: "none", navOpen: false };
  }
}

/** Whether an overlay is open, which Escape closes before it stops a running turn. */
export function overlayOpen(s: ShellState): boolean {
  return s.panel !== "none" || s.navOpen;
}
