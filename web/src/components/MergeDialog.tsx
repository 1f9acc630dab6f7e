// The merge dialog: choose the source, the target and a strategy (ticking messages for a
// cherry-pick), preview what would move with a dry run, settle each conflict and accept or
// refuse missing dependencies, then merge. Everything it shows comes from the server's answer.

import { useEffect, useId, useMemo, useState } from "react";
import type { MergeAnswer } from "../api/client";
import type {
  BranchList,
  ConflictResolution,
  MergeOutcome,
  MergeRequest,
  MergeStrategy,
  Message,
  Resolution,
} from "../generated/protocol";

import { describeMessage } from "../messages/describe";

export { describeMessage };

type StrategyName = MergeStrategy["type"];

/** What the dialog needs from the app. */
export interface MergeDialogProps {
  /** The branches; the active one is the default target. */
  branches: BranchList;
  /** The source branch to start with. */
  initialSource?: string;
  /** Loads a branch's messages (for ticking messages to cherry-pick). */
  loadMessages: (branch: string) => Promise<Message[]>;
  /** Sends the merge (or its dry run). */
  merge: (source: string, request: MergeRequest) => Promise<MergeAnswer>;
  /** Called once a merge went through, with its outcome. */
  onMerged: (outcome: MergeOutcome) => void;
  /** Closes the dialog without merging. */
  onClose: () => void;
}

const STRATEGIES: { name: StrategyName; label: string; help: string }[] = [
  { name: "rebase", label: "Rebase", help: "Replay the source's messages since the branches split after the target's own." },
  { name: "append", label: "Append", help: "Add every source message the target lacks (same id or same content counts as present)." },
  { name: "cherry_pick", label: "Cherry-pick", help: "Copy only the messages you tick, checking what they depend on." },
  {
    name: "summary",
    label: "Summary",
    help: "Bring the source's conclusions back as one marked message: the model summarizes its messages since the split (you can edit the summary in the preview), with the paths and commands they touched appended.",
  },
];

const RESOLUTION_LABELS: Record<Resolution, string> = {
  keep_target: "Keep the target's side",
  take_source: "Take the source's side",
  keep_both: "Keep both",
  skip: "Drop both sides",
};

/** The merge dialog. */
export function MergeDialog({ branches, initialSource, loadMessages, merge, onMerged, onClose }: MergeDialogProps) {
  const names = branches.branches.map((b) => b.name);
  const [target, setTarget] = useState(branches.active);
  const [source, setSource] = useState(initialSource ?? names.find((n) => n !== branches.active) ?? "");
  const [strategy, setStrategy] = useState<StrategyName>("rebase");
  const [sourceMessages, setSourceMessages] = useState<Message[] | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [preview, setPreview] = useState<MergeOutcome | null>(null);
  const [held, setHeld] = useState<string | null>(null);
  const [choices, setChoices] = useState<Record<string, Resolution>>({});
  const [acceptWarnings, setAcceptWarnings] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // The summary as the person edited it (a summary merge's dry run fills it in).
  const [summaryText, setSummaryText] = useState("");
  const ids = { source: useId(), target: useId(), accept: useId(), summary: useId() };

  // The source's messages: picked from for a cherry-pick, and named in the preview's list.
  useEffect(() => {
    if (!source) return;
    let live = true;
    setSourceMessages(null);
    loadMessages(source).then(
      (ms) => live && setSourceMessages(ms),
      (err) => live && setProblem(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [source, loadMessages]);

  // Any change of what is merged makes the preview stale.
  useEffect(() => {
    setPreview(null);
    setHeld(null);
    setChoices({});
    setAcceptWarnings(false);
  }, [source, target, strategy, picked]);

  const request = (dryRun: boolean): MergeRequest => {
    const strat: MergeStrategy =
      strategy === "cherry_pick"
        ? { type: "cherry_pick", message_ids: picked }
        : strategy === "summary"
          ? dryRun
            ? { type: "summary" }
            : { type: "summary", text: summaryText.trim() }
          : { type: strategy };
    const resolutions: ConflictResolution[] = Object.entries(choices).map(([conflict, resolution]) => ({ conflict, resolution }));
    return {
      target,
      strategy: strat,
      ...(dryRun ? { dry_run: true } : {}),
      ...(acceptWarnings ? { accept_warnings: true } : {}),
      ...(resolutions.length ? { resolutions } : {}),
    };
  };

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await merge(source, request(dryRun));
      if (answer.kind === "held") {
        setPreview(answer.outcome);
        setHeld(answer.message);
      } else if (answer.outcome.merged) {
        onMerged(answer.outcome);
      } else {
        setPreview(answer.outcome);
        setHeld(null);
        if (answer.outcome.summary) setSummaryText(answer.outcome.summary.text);
      }
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const unresolved = useMemo(
    () => (preview?.conflicts ?? []).filter((c) => !choices[c.id]).length,
    [preview, choices],
  );
  const sameBranch = source === target;
  const nothingPicked = strategy === "cherry_pick" && picked.length === 0;
  // A merge that would move nothing (and take nothing off the target) is not offered.
  const nothingMoves = preview !== null && preview.moved.length === 0 && preview.removed.length === 0;
  // A summary merge lands one message: what it needs is a summary to store.
  const summaryReady = strategy === "summary" && preview?.summary != null && summaryText.trim() !== "";
  const canMerge =
    preview !== null &&
    unresolved === 0 &&
    (preview.warnings.length === 0 || acceptWarnings) &&
    !sameBranch &&
    (strategy === "summary" ? summaryReady : !nothingMoves);

  return (
    <form
      className="dialog merge-dialog"
      aria-label="Merge branches"
      onSubmit={(e) => {
        e.preventDefault();
        void run(false);
      }}
    >
      <div className="merge-branches">
        <label htmlFor={ids.source}>Merge from</label>
        <select id={ids.source} value={source} onChange={(e) => setSource(e.target.value)}>
          {names.map((n) => (
            <option key={n} value={n}>{n}</option>
          ))}
        </select>
        <label htmlFor={ids.target}>into</label>
        <select id={ids.target} value={target} onChange={(e) => setTarget(e.target.value)}>
          {names.map((n) => (
            <option key={n} value={n}>{n}</option>
          ))}
        </select>
      </div>
      {sameBranch && <div className="error-text" role="alert">Choose two different branches.</div>}
      <fieldset className="merge-strategy">
        <legend>Strategy</legend>
        {STRATEGIES.map((s) => (
          <label key={s.name} title={s.help}>
            <input
              type="radio"
              name="merge-strategy"
              value={s.name}
              checked={strategy === s.name}
              onChange={() => setStrategy(s.name)}
            />{" "}
            {s.label}
          </label>
        ))}
        <p className="muted">{STRATEGIES.find((s) => s.name === strategy)?.help}</p>
      </fieldset>
      {strategy === "cherry_pick" && (
        <fieldset className="merge-pick">
          <legend>Messages of {source} to copy</legend>
          {sourceMessages === null ? (
            <p className="muted">Loading {source}…</p>
          ) : (
            <ul className="plain">
              {sourceMessages.map((m) => (
                <li key={m.id}>
                  <label>
                    <input
                      type="checkbox"
                      checked={picked.includes(m.id)}
                      onChange={(e) =>
                        setPicked((p) => (e.target.checked ? [...p, m.id] : p.filter((id) => id !== m.id)))
                      }
                    />{" "}
                    {describeMessage(m)}
                  </label>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
      )}
      {preview?.summary && (
        <section className="merge-preview merge-summary" aria-label="Summary preview">
          <p>
            One marked message would stand on {preview.target} for {preview.summary.count} message
            {preview.summary.count === 1 ? "" : "s"} of {preview.source}.
          </p>
          <label htmlFor={ids.summary}>Summary (edit it before merging)</label>
          <textarea id={ids.summary} rows={8} value={summaryText} onChange={(e) => setSummaryText(e.target.value)} />
          {!summaryText.trim() && <div className="error-text" role="alert">Write the summary first.</div>}
          {preview.summary.ledger && (
            <>
              <h4>Ledger appended verbatim</h4>
              <pre className="merge-ledger" aria-label="Ledger appended">{preview.summary.ledger}</pre>
            </>
          )}
        </section>
      )}
      {preview && !preview.summary && (
        <section className="merge-preview" aria-label="Merge preview">
          <p>
            {preview.moved.length} message{preview.moved.length === 1 ? "" : "s"} would move to {preview.target}
            {preview.removed.length > 0 && `, ${preview.removed.length} would leave it`}
            {preview.skipped.length > 0 && `; ${preview.skipped.length} already there or left out`}.
          </p>
          {preview.moved.length > 0 && (
            <ol className="merge-moved" aria-label="Messages that would move">
              {preview.moved.map((id) => {
                const m = sourceMessages?.find((x) => x.id === id);
                return <li key={id}>{m ? describeMessage(m) : <span className="muted">message {id.slice(0, 8)}…</span>}</li>;
              })}
            </ol>
          )}
          {held && <div className="error-text" role="alert">{held}</div>}
          {preview.warnings.length > 0 && (
            <div className="merge-warnings">
              <h4>Missing dependencies</h4>
              <ul>
                {preview.warnings.map((w) => (
                  <li key={`${w.kind}-${w.message_id}`}>{w.detail}</li>
                ))}
              </ul>
              <label htmlFor={ids.accept}>
                <input
                  id={ids.accept}
                  type="checkbox"
                  checked={acceptWarnings}
                  onChange={(e) => setAcceptWarnings(e.target.checked)}
                />{" "}
                Merge anyway
              </label>
            </div>
          )}
          {preview.conflicts.map((c) => (
            <fieldset key={c.id} className="merge-conflict" aria-label={`Conflict ${c.id}`}>
              <legend>Conflict: {c.kind.replace(/_/g, " ")}</legend>
              <p>{c.detail}</p>
              <ul className="plain muted">
                {c.messages.map((m) => (
                  <li key={m.id}>
                    {m.branch} · <time dateTime={m.created_at} title={m.created_at}>{new Date(m.created_at).toLocaleString()}</time>
                  </li>
                ))}
              </ul>
              {c.suggestions.map((r, i) => (
                <label key={r}>
                  <input
                    type="radio"
                    name={`resolution-${c.id}`}
                    value={r}
                    checked={choices[c.id] === r}
                    onChange={() => setChoices((all) => ({ ...all, [c.id]: r }))}
                  />{" "}
                  {RESOLUTION_LABELS[r]}
                  {i === 0 && " (suggested)"}
                </label>
              ))}
            </fieldset>
          ))}
        </section>
      )}
      {problem && <div className="error-text" role="alert">{problem}</div>}
      <div className="actions">
        <button type="button" className="btn" disabled={busy || sameBranch || nothingPicked} onClick={() => void run(true)}>
          Preview
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !canMerge}>
          Merge
        </button>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
