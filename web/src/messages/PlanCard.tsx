// A plan: the goal, numbered steps with their tools and highlighted risks, and Execute / Refine.

import { useId, useState } from "react";
import type { PlanMessage } from "../generated/protocol";
import { useCardActions } from "./actions";
import { useToolPairing, type PlanRun } from "./toolcards/pairing";

/** How an executed plan is getting on, in words. */
export function runText(run: PlanRun | undefined): string {
  if (!run || run.calls === 0) return "Executing…";
  const open = run.calls - run.finished;
  const calls = `${run.calls} tool ${run.calls === 1 ? "call" : "calls"}`;
  const failed = run.failed > 0 ? `, ${run.failed} failed` : "";
  return open > 0 ? `Executing: ${calls}, ${run.finished} finished${failed}` : `Executed: ${calls}${failed}`;
}

/** Renders a plan and lets the person execute it or ask for changes. */
export function PlanCard({ id, plan }: { id: string; plan: PlanMessage }) {
  const { api, contextId, reportError } = useCardActions();
  const [refining, setRefining] = useState(false);
  const [feedback, setFeedback] = useState("");
  const [busy, setBusy] = useState(false);
  const feedbackId = useId();

  const run = useToolPairing().plans.get(id);
  const [started, setStarted] = useState(false);
  const executed = run !== undefined || started;

  const execute = async () => {
    setBusy(true);
    try {
      // One call: the server switches to act mode and runs the plan, and refuses a second run.
      await api.executePlan(contextId, id);
      setStarted(true);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const refine = async () => {
    const text = feedback.trim();
    if (!text) return;
    setBusy(true);
    try {
      await api.sendMessage(contextId, { payload: { type: "text", text: `Refine the plan: ${text}` } });
      setRefining(false);
      setFeedback("");
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card plan-card" aria-label="Plan">
      <div className="card-title">Plan</div>
      <h3 className="plan-goal">{plan.goal}</h3>
      <ol className="plan-steps">
        {plan.steps.map((s) => (
          <li key={s.step_number} value={s.step_number}>
            <div className="step-action">{s.action}</div>
            <div className="muted">{s.reason}</div>
            {(s.tools_needed?.length ?? 0) > 0 && (
              <div className="chips" aria-label="Tools">
                {s.tools_needed?.map((t) => <code key={t} className="chip">{t}</code>)}
              </div>
            )}
            {s.estimated_time && <div className="muted">≈ {s.estimated_time}</div>}
            {(s.risks?.length ?? 0) > 0 && (
              <ul className="risks" aria-label="Risks">
                {s.risks?.map((r) => <li key={r} className="risk">⚠ {r}</li>)}
              </ul>
            )}
          </li>
        ))}
      </ol>
      <div className="actions">
        {executed ? (
          <span className="badge plan-run" role="status">
            {runText(run)}
          </span>
        ) : (
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void execute()}>
            Execute plan
          </button>
        )}
        <button type="button" className="btn" disabled={busy || executed} aria-expanded={refining} onClick={() => setRefining((r) => !r)}>
          Refine plan
        </button>
      </div>
      {refining && (
        <form
          className="refine"
          onSubmit={(e) => {
            e.preventDefault();
            void refine();
          }}
        >
          <label htmlFor={feedbackId}>What should change?</label>
          <textarea id={feedbackId} value={feedback} onChange={(e) => setFeedback(e.target.value)} rows={2} />
          <button type="submit" className="btn btn-primary" disabled={busy || feedback.trim() === ""}>
            Send refinement
          </button>
        </form>
      )}
    </section>
  );
}
