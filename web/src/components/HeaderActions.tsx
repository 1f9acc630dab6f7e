// The header's actions: the branch bar's toggle, the history view, the branch map, settings,
// MCP, the colour theme and the shortcuts (folded into "More" on a phone by the header).

import type { MessageView } from "../generated/protocol";
import type { ThemeChoice } from "../theme";

/** What the actions show and do. */
export interface HeaderActionsProps {
  /** Whether a conversation is open (most actions are about it). */
  open: boolean;
  /** The active branch, once the branches are read. */
  activeBranch: string | undefined;
  branchesOpen: boolean;
  onToggleBranches: () => void;
  view: MessageView;
  onView: (view: MessageView) => void;
  onBranchMap: () => void;
  settingsOpen: boolean;
  onToggleSettings: () => void;
  mcpOpen: boolean;
  onToggleMcp: () => void;
  theme: ThemeChoice;
  onNextTheme: () => void;
  onHelp: () => void;
}

/** The header's buttons, in the order they show. */
export function HeaderActions(p: HeaderActionsProps) {
  return (
    <>
      {p.open && p.activeBranch !== undefined && (
        <button type="button" className="btn branches-toggle" aria-pressed={p.branchesOpen} onClick={p.onToggleBranches}>
          Branches ({p.activeBranch})
        </button>
      )}
      {p.open && (
        <label className="toggle">
          <input type="checkbox" checked={p.view === "full"} onChange={(e) => p.onView(e.target.checked ? "full" : "optimized")} />
          Full history
        </label>
      )}
      {p.open && p.activeBranch !== undefined && (
        <button type="button" className="btn" onClick={p.onBranchMap}>
          Branch map
        </button>
      )}
      {p.open && (
        <button type="button" className="btn" aria-pressed={p.settingsOpen} onClick={p.onToggleSettings}>
          Settings
        </button>
      )}
      <button type="button" className="btn" aria-pressed={p.mcpOpen} onClick={p.onToggleMcp}>
        MCP
      </button>
      <button type="button" className="btn" onClick={p.onNextTheme} title="Colour theme: follow the system, dark or light">
        Theme: {p.theme === "system" ? "System" : p.theme === "dark" ? "Dark" : "Light"}
      </button>
      <button type="button" className="btn btn-icon" aria-label="Keyboard shortcuts" onClick={p.onHelp}>
        ?
      </button>
    </>
  );
}
