// Small notices: system control dividers, processing notes, workflow progress.

import type {
  ProcessingMessage,
  SystemControlMessage,
  WorkflowExecutionMessage,
} from "../generated/protocol";
import { stopReasonText } from "../conversation/indicator";

/** The words of a system control notice. */
export function systemControlText(c: SystemControlMessage): string {
  switch (c.type) {
    case "mode_change":
      return `Mode changed from ${c.from} to ${c.to}`;
    case "role_change":
      return `Agent role changed from ${c.from} to ${c.to}`;
    case "branch_switch":
      return `Switched from branch ${c.from} to ${c.to}`;
    case "branch_merge": {
      const how = c.strategy.replace(/_/g, "-");
      const parts = [`${c.moved} message${c.moved === 1 ? "" : "s"} added`];
      if (c.removed > 0) parts.push(`${c.removed} taken off`);
      if (c.skipped > 0) parts.push(`${c.skipped} already here or left out`);
      const settled = c.resolutions.length
        ? `; ${c.resolutions.length} conflict${c.resolutions.length === 1 ? "" : "s"} settled (${c.resolutions
            .map((r) => `${r.conflict}: ${r.resolution.replace(/_/g, " ")}`)
            .join(", ")})`
        : "";
      return `Merged branch ${c.source} (${how}): ${parts.join(", ")}${settled}`;
    }
    case "summary":
      return `History optimized: ${c.replaces.length} earlier messages summarized (${c.tokens_before} → ${c.tokens_after} tokens)`;
    case "loop_stopped":
      return `Tool loop stopped after ${c.depth} rounds and ${c.tools_executed} tools: ${stopReasonText(c.reason)}. ${c.detail}`;
    case "recovered":
      return `Recovered after a restart interrupted ${c.interrupted_state.replace(/_/g, " ")}: ${c.detail}`;
    case "failure_resolved":
      return `Earlier failure resolved: ${c.error}`;
  }
}

/** A system control notice as a small divider; a summary also offers its text and the full history. */
export function SystemControlDivider({
  data,
  onShowFullHistory,
}: {
  data: SystemControlMessage;
  onShowFullHistory?: () => void;
}) {
  return (
    <div className={`divider system-control sc-${data.type}`} role="note">
      <span>{systemControlText(data)}</span>
      {data.type === "summary" && (
        <>
          {onShowFullHistory && (
            <button type="button" className="btn btn-link" onClick={onShowFullHistory}>
              Show full history
            </button>
          )}
          <details>
            <summary>Summary</summary>
            <p>{data.text}</p>
          </details>
        </>
      )}
    </div>
  );
}

/** A processing note: what is being done, with progress when countable. */
export function ProcessingNote({ data }: { data: ProcessingMessage }) {
  return (
    <div className="divider processing" role="status">
      <span>{data.activity}</span>
      {data.detail && <span className="muted"> · {data.detail}</span>}
      {data.progress && (
        <>
          {" "}
          <progress max={data.progress.total} value={data.progress.done} aria-label={data.activity} />{" "}
          <span className="muted">
            {data.progress.done}/{data.progress.total}
          </span>
        </>
      )}
    </div>
  );
}

/** The step a run is on, counting from 1, for "step n of m". */
export function workflowStep(w: WorkflowExecutionMessage): number {
  const running = w.status === "running" || w.status === "paused" || w.status === "pending";
  return Math.min(w.total_steps, w.completed_steps + (running ? 1 : 0));
}

/** Workflow progress: step n of m, status, the current step and the error. (Pause, resume and
 *  cancel come with the server's workflow routes.) */
export function WorkflowCard({ data }: { data: WorkflowExecutionMessage }) {
  return (
    <section className={`card workflow wf-${data.status}`} aria-label={`Workflow ${data.workflow_name}`}>
      <div className="card-title">
        Workflow <strong>{data.workflow_name}</strong> · <span className="badge">{data.status}</span>
      </div>
      <div>
        Step {workflowStep(data)} of {data.total_steps}
        {data.current_step && <span className="muted"> · {data.current_step}</span>}
      </div>
      <progress max={data.total_steps || 1} value={data.completed_steps} aria-label="Workflow progress" />
      {data.error && <div className="error-text">{data.error.message}</div>}
    </section>
  );
}
