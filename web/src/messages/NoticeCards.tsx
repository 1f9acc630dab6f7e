// Small notices: system control dividers, processing notes, workflow progress.

import type {
  ProcessingMessage,
  SystemControlMessage,
  WorkflowExecutionMessage,
} from "../generated/protocol";
import { useState } from "react";
import type { WorkflowAction } from "../api/client";
import { stopReasonText } from "../conversation/indicator";
import { useCardActions } from "./actions";

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

/** A run's result as text: a string as it is, anything else as JSON. */
export function workflowResultText(result: unknown): string {
  if (result === undefined || result === null) return "";
  return typeof result === "string" ? result : JSON.stringify(result, null, 2);
}

/** Workflow progress: step n of m, status, the current step, live controls (pause while running;
 *  resume or cancel when paused; an approval step's question with Continue / Stop), and the
 *  result or the error with the step it failed at. */
export function WorkflowCard({ data }: { data: WorkflowExecutionMessage }) {
  const { api, contextId, reportError } = useCardActions();
  const [acting, setActing] = useState(false);
  const act = (action: WorkflowAction) => {
    setActing(true);
    api
      .controlWorkflow(contextId, data.execution_id, action)
      .catch(reportError)
      .finally(() => setActing(false));
  };
  const result = workflowResultText(data.result);
  const failedStep = (data.error?.details as { step?: string } | undefined)?.step;
  return (
    <section className={`card workflow wf-${data.status}`} aria-label={`Workflow ${data.workflow_name}`}>
      <div className="card-title">
        Workflow <strong>{data.workflow_name}</strong> · <span className="badge wf-status">{data.status}</span>
      </div>
      <div>
        Step {workflowStep(data)} of {data.total_steps}
        {data.current_step && <span className="muted wf-current"> · {data.current_step}</span>}
      </div>
      <progress max={data.total_steps || 1} value={data.completed_steps} aria-label="Workflow progress" />
      {data.awaiting_approval && (
        <p className="question-text" role="status">
          {data.awaiting_approval}
        </p>
      )}
      {(data.status === "running" || data.status === "paused" || data.status === "pending") && (
        <div className="actions" role="group" aria-label="Workflow controls">
          {data.status === "running" && (
            <button type="button" className="btn" disabled={acting} onClick={() => act("pause")}>
              Pause
            </button>
          )}
          {data.status === "paused" && (
            <button type="button" className="btn btn-primary" disabled={acting} onClick={() => act("resume")}>
              {data.awaiting_approval ? "Continue" : "Resume"}
            </button>
          )}
          <button type="button" className="btn" disabled={acting} onClick={() => act("cancel")}>
            {data.awaiting_approval ? "Stop" : "Cancel"}
          </button>
        </div>
      )}
      {data.status === "completed" && result && (
        <details open className="wf-result">
          <summary>Result</summary>
          <pre>{result}</pre>
        </details>
      )}
      {data.error && (
        <div className="error-text" role="alert">
          {failedStep && <strong>Step {failedStep}: </strong>}
          {data.error.message}
        </div>
      )}
    </section>
  );
}
