// "Branch from here" at the message itself: a small form under it with a free default name, so
// branching never sends the person to the top of the page.

import { createContext, useContext, useId, useState } from "react";

/** A branch being made from a message. */
export interface BranchHere {
  /** The message the branch keeps the history up to. */
  messageId: string;
  /** A name not yet taken, filled in. */
  defaultName: string;
  /**
   * Creates the branch with this name (and system prompt, when given) and switches to it;
   * throws with the server's reason.
   */
  create: (name: string, systemPrompt: string | undefined) => Promise<void>;
  /** Closes the form. */
  cancel: () => void;
}

const Ctx = createContext<BranchHere | null>(null);

/** Provides the branch being made, if any. */
export const BranchHereProvider = Ctx.Provider;

/** The form under message `messageId` when the person chose "Branch from here" on it. */
export function BranchHereForm({ messageId }: { messageId: string }) {
  const here = useContext(Ctx);
  if (!here || here.messageId !== messageId) return null;
  return <Form here={here} />;
}

function Form({ here }: { here: BranchHere }) {
  const [name, setName] = useState(here.defaultName);
  const [prompt, setPrompt] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const promptId = useId();
  return (
    <form
      className="branch-here-form"
      aria-label="Branch from this message"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setProblem(null);
        here.create(name.trim(), prompt.trim() || undefined).then(
          () => setBusy(false),
          (err: unknown) => {
            setBusy(false);
            setProblem(err instanceof Error ? err.message : String(err));
          },
        );
      }}
    >
      <label htmlFor={id}>New branch from here, keeping the history up to this message</label>
      <div className="branch-here-row">
        <input id={id} value={name} autoFocus onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === "Escape" && here.cancel()} />
        <button type="submit" className="btn btn-primary" disabled={busy || name.trim() === ""}>
          Create branch
        </button>
        <button type="button" className="btn" onClick={here.cancel}>
          Cancel
        </button>
      </div>
      <details>
        <summary>System prompt for this branch (optional)</summary>
        <label htmlFor={promptId} className="visually-hidden">
          System prompt for this branch
        </label>
        <textarea id={promptId} rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
      </details>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
    </form>
  );
}
