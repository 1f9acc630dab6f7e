// The top bar: the conversations menu, the title with the token meter, and the actions (history
// view, branches, branch map, settings, MCP, theme, shortcuts). On a phone the actions fold into
// a "More" menu so the bar stays one row.

import type { ReactNode } from "react";
import type { ContextSummary, TokenBudget } from "../generated/protocol";
import { contextTitle } from "./Sidebar";

/** How full the context window is: below 80 %, from 80 %, from 95 %. */
export type BudgetLevel = "ok" | "warn" | "critical";

/** The level of a token budget (80 % warns, 95 % is critical). */
export function budgetLevel(budget: TokenBudget): BudgetLevel {
  if (budget.limit <= 0) return "ok";
  const share = budget.used / budget.limit;
  return share >= 0.95 ? "critical" : share >= 0.8 ? "warn" : "ok";
}

/** The tokens the next request would use, of the limit, coloured as the window fills. */
export function TokenMeter({ summary }: { summary: ContextSummary }) {
  const { used, limit } = summary.token_budget;
  const level = budgetLevel(summary.token_budget);
  const percent = limit > 0 ? Math.round((used / limit) * 100) : 0;
  const words = level === "critical" ? "The context window is almost full: older messages will be summarized or left out." : level === "warn" ? "The context window is filling up." : "Tokens the next request would use, of the limit";
  return (
    <span className={`muted budget budget-${level}`} title={words} data-level={level}>
      {summary.config.mode} · {used.toLocaleString()} / {limit.toLocaleString()} tokens
      {level !== "ok" && <span className="budget-percent"> ({percent} %)</span>}
    </span>
  );
}

/** What the header shows and asks for. */
export interface HeaderProps {
  summary: ContextSummary | null;
  navOpen: boolean;
  onToggleNav: () => void;
  moreOpen: boolean;
  onToggleMore: () => void;
  /** Called when an action of the "More" menu was chosen (the menu closes). */
  onChosen: () => void;
  /** The header's actions, folded into "More" on a phone. */
  children: ReactNode;
  /** Opens the settings, where the workspace is changed. */
  onWorkspace?: () => void;
}

/** The last part of a path: what a workspace is called in the header. */
export function workspaceName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts.at(-1) ?? path;
}

/** Where the conversation works, as a button that opens the settings to change it. */
export function WorkspaceChip({ workspace, onClick }: { workspace: string | undefined; onClick: () => void }) {
  return (
    <button
      type="button"
      className="btn btn-link workspace-chip"
      title={workspace ? `Works in ${workspace} (change it in Settings)` : "No workspace: file tools cannot run (set one in Settings)"}
      aria-label={workspace ? `Workspace: ${workspace}` : "No workspace"}
      onClick={onClick}
    >
      {workspace ? `in ${workspaceName(workspace)}` : "no workspace"}
    </button>
  );
}

/** The top bar. */
export function Header({ summary, navOpen, onToggleNav, moreOpen, onToggleMore, onChosen, children, onWorkspace }: HeaderProps) {
  return (
    <header className="topbar">
      <button type="button" className="btn btn-icon nav-toggle" aria-label="Conversations" aria-expanded={navOpen} onClick={onToggleNav}>
        ☰
      </button>
      <h1 className="title">{summary ? contextTitle(summary) : "Braid"}</h1>
      {summary && <TokenMeter summary={summary} />}
      {summary && onWorkspace && <WorkspaceChip workspace={summary.config.workspace} onClick={onWorkspace} />}
      <span className="spacer" />
      <button type="button" className="btn btn-icon more-toggle" aria-label="More" aria-expanded={moreOpen} onClick={onToggleMore}>
        ⋯
      </button>
      <div className="header-actions" onClick={(e) => e.target instanceof HTMLButtonElement && onChosen()}>
        {children}
      </div>
    </header>
  );
}
