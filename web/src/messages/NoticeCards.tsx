// Small notices: system control dividers, processing notes, workflow progress.

import type {
  CompactionRecord,
  Message,
  ProcessingMessage,
  SystemControlMessage,
  WorkflowExecutionMessage,
} from "../generated/protocol";
import { useEffect, useState } from "react";
import type { WorkflowAction } from "../api/client";
import { stopReasonText } from "../conversation/indicator";
import { useCardActions } from "./actions";
import { messageLine } from "./describe";

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
    case "compaction":
      return compactionHeadline(c.record);
    case "pinned_fact":
      return `Pinned fact: ${c.text}`;
  }
}

/** `38400` as `38,400`. */
const grouped = (n: number) => n.toLocaleString("en-US");

/** The one-line account of a compaction ("38,400 -> 9,100 tokens, 12 messages summarized, 4
 *  dropped"), from its `CompactionRecord`. */
export function compactionHeadline(r: CompactionRecord): string {
  const parts = [`${grouped(r.tokens_before)} -> ${grouped(r.tokens_after)} tokens`];
  if (r.summarized.length > 0) parts.push(`${r.summarized.length} ${r.summarized.length === 1 ? "message" : "messages"} summarized`);
  if (r.dropped.length > 0) parts.push(`${r.dropped.length} dropped`);
  const elided = r.elided ?? [];
  if (elided.length > 0) parts.push(`${elided.length} ${elided.length === 1 ? "tool output" : "tool outputs"} elided`);
  return parts.join(", ");
}

/** The most messages a compaction's details read to name what left. */
const MAX_NAMED = 50;

/** What a compaction left out, read when the person opens it. */
function CompactionDetails({ record }: { record: CompactionRecord }) {
  const { api, contextId } = useCardActions();
  const [open, setOpen] = useState(false);
  const [named, setNamed] = useState<Map<string, Message> | null>(null);
  const groups: [string, string[]][] = [
    ["Summarized", record.summarized],
    ["Dropped", record.dropped],
    ["Tool outputs elided", record.elided ?? []],
  ];
  useEffect(() => {
    if (!open || named) return;
    let live = true;
    const ids = groups.flatMap(([, g]) => g).slice(0, MAX_NAMED);
    Promise.all(ids.map((id) => api.getMessage(contextId, id).catch(() => null))).then((ms) => {
      if (!live) return;
      setNamed(new Map(ms.filter((m): m is Message => m !== null).map((m) => [m.id, m])));
    });
    return () => {
      live = false;
    };
    // The record of a stored notice does not change: read once, when first opened.
  }, [open, named, api, contextId]);
  const line = (id: string) => {
    const m = named?.get(id);
    return m ? messageLine(m) : `message ${id.slice(0, 8)}…`;
  };
  const over = record.tokens_before - record.limit;
  return (
    <details className="compaction-details" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>What left the request</summary>
      <p className="muted">
        {record.strategy.replace(/_/g, " ")} · over the {grouped(record.limit)}-token limit by {grouped(Math.max(0, over))} · took{" "}
        {grouped(record.duration_ms)} ms
        {record.fallback && ` · summary not used: ${record.fallback}`}
      </p>
      {groups
        .filter(([, g]) => g.length > 0)
        .map(([name, g]) => (
          <div key={name}>
            <h4>
              {name} ({g.length})
            </h4>
            <ol aria-label={`${name} messages`}>
              {g.map((id) => (
                <li key={id}>{line(id)}</li>
              ))}
            </ol>
          </div>
        ))}
    </details>
  );
}

/** A summary's text, with the person's correction (what later requests get). */
function SummaryText({ message, text }: { message?: Message; text: string }) {
  const { api, contextId, reportError } = useCardActions();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const corrected = typeof message?.metadata?.corrected_at === "string";
  const save = async () => {
    if (!message || !draft.trim()) return;
    setBusy(true);
    try {
      await api.correctSummary(contextId, message.id, { text: draft.trim() });
      setEditing(false);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details>
      <summary>Summary{corrected && " (corrected)"}</summary>
      {editing ? (
        <form
          className="summary-edit"
          aria-label="Correct the summary"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <textarea aria-label="Summary text" rows={6} value={draft} onChange={(e) => setDraft(e.target.value)} />
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={busy || !draft.trim()}>
              Save correction
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <p className="summary-text">{text}</p>
          {message && (
            <button
              type="button"
              className="btn btn-link"
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            >
              Correct
            </button>
          )}
        </>
      )}
    </details>
  );
}

/** A pinned fact's unpin control. */
function UnpinFact({ message }: { message: Message }) {
  const { api, contextId, reportError } = useCardActions();
  const [busy, setBusy] = useState(false);
  const pinned = message.metadata?.pinned === true;
  const toggle = () => {
    setBusy(true);
    api
      .setPinned(contextId, message.id, !pinned)
      .catch(reportError)
      .finally(() => setBusy(false));
  };
  return (
    <>
      {!pinned && <span className="muted"> (unpinned)</span>}
      <button type="button" className="btn btn-link" disabled={busy} onClick={toggle}>
        {pinned ? "Unpin fact" : "Pin again"}
      </button>
    </>
  );
}

/** A system control notice as a small divider; a summary also offers its text and the full history. */
export function SystemControlDivider({
  data,
  message,
  onShowFullHistory,
}: {
  data: SystemControlMessage;
  /** The notice's message (its id and metadata), for the controls that act on it. */
  message?: Message;
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
          <SummaryText message={message} text={data.text} />
        </>
      )}
      {data.type === "compaction" && <CompactionDetails record={data.record} />}
      {data.type === "pinned_fact" && message && <UnpinFact message={message} />}
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
  return Math.min(w.total_steps, w.completed_steps + (workflowLive(w) ? 1 : 0));
}

/** A run's result as text: a string as it is, anything else as JSON. */
export function workflowResultText(result: unknown): string {
  if (result === undefined || result === null) return "";
  return typeof result === "string" ? result : JSON.stringify(result, null, 2);
}

/** Whether a run is still going (it can be paused, resumed or cancelled). */
export function workflowLive(w: WorkflowExecutionMessage): boolean {
  return w.status === "running" || w.status === "paused" || w.status === "pending";
}

/** A live run's controls: Pause while running; Resume (Continue at an approval step) when
 *  paused; Cancel (Stop) until it ends. Nothing once it ended. */
export function WorkflowControls({ data }: { data: WorkflowExecutionMessage }) {
  const { api, contextId, reportError } = useCardActions();
  const [acting, setActing] = useState(false);
  const act = (action: WorkflowAction) => {
    setActing(true);
    api
      .controlWorkflow(contextId, data.execution_id, action)
      .catch(reportError)
      .finally(() => setActing(false));
  };
  if (!workflowLive(data)) return null;
  return (
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
  );
}

/** Workflow progress: step n of m, status, the current step, live controls (pause while running;
 *  resume or cancel when paused; an approval step's question with Continue / Stop), and the
 *  result or the error with the step it failed at. */
export function WorkflowCard({ data }: { data: WorkflowExecutionMessage }) {
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
      <WorkflowControls data={data} />
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
