// A plan: the goal, numbered steps with their tools and highlighted risks, and Execute / Refine.
// Once executed, each step ticks as the agent reports it done (its `update_plan` calls).

import { useId, useState } from "react";
import type { PlanMessage, PlanStepStatus } from "../generated/protocol";
import { useCardActions } from "./actions";
import { useToolPairing, type PlanRun } from "./toolcards/pairing";

/** How an executed plan is getting on, in words; `total` is the plan's number of steps. */
export function runText(run: PlanRun | undefined, total: number): string {
  const reported = run !== undefined && run.steps.size > 0;
  if (!run || (run.calls === 0 && !reported)) return "Executing…";
  const open = run.calls - run.finished;
  const done = [...run.steps.values()].filter((s) => s === "completed" || s === "skipped").length;
  const steps = reported ? `${done} of ${total} ${total === 1 ? "step" : "steps"} done` : "";
  const calls = run.calls > 0 ? `${run.calls} tool ${run.calls === 1 ? "call" : "calls"}` : "";
  const failed = run.failed > 0 ? `, ${run.failed} failed` : "";
  const finished = open > 0 ? `, ${run.finished} finished` : "";
  const executing = open > 0 || (reported && done < total);
  const parts = [steps, calls && `${calls}${finished}${failed}`].filter((p) => p !== "");
  return `${executing ? "Executing" : "Executed"}: ${parts.join(" · ")}`;
}

/** What each reported status looks like beside its step. */
const MARKS: Record<Exclude<PlanStepStatus, "pending">, { mark: string; label: string }> = {
  completed: { mark: "✓", label: "Done" },
  in_progress: { mark: "◐", label: "In progress" },
  skipped: { mark: "⤼", label: "Skipped" },
};

/** A step's status mark (nothing for a step not reported on). */
function StepMark({ status }: { status: PlanStepStatus | undefined }) {
  if (!status || status === "pending") return null;
  const { mark, label } = MARKS[status];
  return (
    <span className={`step-mark step-${status}`} role="img" aria-label={label} title={label}>
      {mark}
    </span>
  );
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
          <li key={s.step_number} value={s.step_number} data-status={run?.steps.get(s.step_number) ?? "pending"}>
            <div className="step-action">
              <StepMark status={run?.steps.get(s.step_number)} />
              {s.action}
            </div>
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
            {runText(run, plan.steps.length)}
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
