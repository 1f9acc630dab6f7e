// The runs still going in this conversation, above the composer: their Pause, Resume and Cancel
// stay reachable however far the conversation has scrolled from the run's card (issue 46).

import type { Entry } from "../conversation/reducer";
import type { WorkflowExecutionMessage } from "../generated/protocol";
import { WorkflowControls, workflowLive, workflowStep } from "../messages/NoticeCards";

/** The live runs of `entries`, in order. */
export function liveRuns(entries: Entry[]): WorkflowExecutionMessage[] {
  return entries.flatMap((e) => (e.message?.kind === "workflow_execution" && workflowLive(e.message.data) ? [e.message.data] : []));
}

/** One row per live run: its name, status and step, and its controls. */
export function WorkflowRunBar({ entries }: { entries: Entry[] }) {
  const runs = liveRuns(entries);
  if (runs.length === 0) return null;
  return (
    <section className="workflow-bar" aria-label="Running workflows">
      {runs.map((w) => (
        <div key={w.execution_id} className="workflow-bar-row">
          <span>
            Workflow <strong>{w.workflow_name}</strong> · {w.status} · step {workflowStep(w)} of {w.total_steps}
          </span>
          <WorkflowControls data={w} />
        </div>
      ))}
    </section>
  );
}
