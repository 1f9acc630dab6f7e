// Branches: the switcher showing the active branch, its system prompt override, and the dialog
// that creates a branch (from the end, or from any message).

import { useId, useState } from "react";
import type { BranchList, CreateBranchRequest } from "../generated/protocol";

/** What the switcher can ask for. */
export interface BranchSwitcherProps {
  /** The branches, with the active one. */
  branches: BranchList | null;
  /** Activates a branch. */
  onSwitch: (name: string) => void;
  /** Creates (and then activates) a branch. */
  onCreate: (req: CreateBranchRequest) => Promise<void>;
  /** The message to branch from, when "branch from here" was chosen. */
  fromMessage: string | null;
  /** Closes the "branch from here" dialog. */
  onCancelFrom: () => void;
  /** Deletes branch `name` (never the active one). */
  onDelete?: (name: string) => void;
  /** Opens the merge dialog (shown when there are two branches or more). */
  onMerge?: () => void;
}

/** Branch names the server accepts: letters, digits, `-`, `_`, `.` and `/`. */
export function branchNameProblem(name: string, existing: string[]): string | null {
  if (!name.trim()) return "Give the branch a name";
  if (!/^[A-Za-z0-9._\/-]+$/.test(name)) return "Use letters, digits, -, _, . and / only";
  if (existing.includes(name)) return `A branch named ${name} already exists`;
  return null;
}

/** The branch switcher and the new-branch form. */
export function BranchSwitcher({ branches, onSwitch, onCreate, fromMessage, onCancelFrom, onDelete, onMerge }: BranchSwitcherProps) {
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const [prompt, setPrompt] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  // The branch whose deletion waits for the person to confirm it.
  const [confirming, setConfirming] = useState<string | null>(null);
  const selectId = useId();
  const nameId = useId();
  const promptId = useId();
  const open = creating || fromMessage !== null;
  const names = branches?.branches.map((b) => b.name) ?? [];
  const active = branches?.branches.find((b) => b.name === branches.active);

  const close = () => {
    setCreating(false);
    setName("");
    setPrompt("");
    setProblem(null);
    onCancelFrom();
  };
  const submit = async () => {
    const p = branchNameProblem(name, names);
    if (p) {
      setProblem(p);
      return;
    }
    const req: CreateBranchRequest = {
      name,
      ...(fromMessage ? { from_message: fromMessage } : {}),
      ...(prompt.trim() ? { system_prompt: prompt.trim() } : {}),
    };
    try {
      await onCreate(req);
      close();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <div className="branches">
      <label htmlFor={selectId}>Branch</label>
      <select id={selectId} value={branches?.active ?? ""} onChange={(e) => onSwitch(e.target.value)} disabled={!branches}>
        {names.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
      <button type="button" className="btn" onClick={() => setCreating(true)}>New branch</button>
      {onMerge && names.length > 1 && (
        <button type="button" className="btn" onClick={onMerge}>Merge…</button>
      )}
      {onDelete && names.length > 1 && (
        <details className="manage-branches">
          <summary>Manage branches</summary>
          <ul className="plain">
            {names.filter((n) => n !== branches?.active).map((n) => (
              <li key={n}>
                <code>{n}</code>{" "}
                {confirming !== n && (
                  <button type="button" className="btn btn-danger" aria-label={`Delete branch ${n}`} onClick={() => setConfirming(n)}>
                    Delete
                  </button>
                )}
                {confirming === n && (
                  <span className="confirm-delete" role="group" aria-label={`Delete branch ${n}?`}>
                    Delete <code>{n}</code> and the messages only it holds?{" "}
                    <button
                      type="button"
                      className="btn btn-danger"
                      onClick={() => {
                        setConfirming(null);
                        onDelete(n);
                      }}
                    >
                      Delete branch
                    </button>{" "}
                    <button type="button" className="btn" onClick={() => setConfirming(null)}>
                      Keep it
                    </button>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
      {active?.system_prompt && (
        <details className="branch-prompt">
          <summary>System prompt override</summary>
          <p>{active.system_prompt}</p>
        </details>
      )}
      {open && (
        <form
          className="dialog"
          aria-label="New branch"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <p>{fromMessage ? "Branch from this message: the new branch keeps the history up to it." : `Branch from the end of ${branches?.active ?? "the active branch"}.`}</p>
          <label htmlFor={nameId}>Name</label>
          <input id={nameId} value={name} autoFocus onChange={(e) => setName(e.target.value)} />
          <label htmlFor={promptId}>System prompt for this branch (optional)</label>
          <textarea id={promptId} rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
          {problem && <div className="error-text" role="alert">{problem}</div>}
          <div className="actions">
            <button type="submit" className="btn btn-primary">Create branch</button>
            <button type="button" className="btn" onClick={close}>Cancel</button>
          </div>
        </form>
      )}
    </div>
  );
}
