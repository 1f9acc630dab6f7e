// The live state line (what the context is doing, from the event stream), the connection, and
// the errors with what the person can do.

import type { ConversationState, OptimizationReport } from "../conversation/reducer";
import type { ModelCapabilitiesView } from "../generated/protocol";
import { indicatorFor } from "../conversation/indicator";
import { ErrorList, FailedTurn, sameFailure } from "./errors/TurnErrors";

/** What the status bar can ask for. */
export interface StatusBarProps {
  /** The conversation. */
  conversation: ConversationState;
  /** Continues a paused or failed loop. */
  onResume: () => void;
  /** Dismisses error `index`. */
  onDismiss: (index: number) => void;
  /** Moves focus to what waits for the person (the first pending approval or open question). */
  onJump?: (to: "approve" | "answer") => void;
  /** What the context's model can do (from `GET /v1/contexts/{id}`), when known. */
  capabilities?: ModelCapabilitiesView | null;
  /**
   * Whether the failed turn shows here; false where the conversation shows it on the failed
   * turn itself ([`TurnFailure`]).
   */
  showFailure?: boolean;
}

/** The turn's failure and the error that says the same (folded into it), apart from the rest. */
function splitErrors(conversation: ConversationState) {
  const failure = conversation.state.type === "failed" ? conversation.state : null;
  const indexed = conversation.errors.map((error, index) => ({ error, index }));
  const related = failure ? indexed.find((e) => sameFailure(e.error, failure.error)) : undefined;
  const others = indexed.filter((e) => e !== related);
  return { failure, related, others };
}

/** The failed turn as the last item of the conversation, under the reply that failed. */
export function TurnFailure({ conversation, onResume }: { conversation: ConversationState; onResume: () => void }) {
  const { failure, related } = splitErrors(conversation);
  if (!failure) return null;
  return (
    <li className="message turn-failure" data-kind="turn_failure">
      <FailedTurn error={failure.error} recoverable={failure.recoverable} related={related?.error} onRetry={onResume} />
    </li>
  );
}

/** The state indicator, connection status, errors and the last optimization report. */
export function StatusBar({ conversation, onResume, onDismiss, onJump, capabilities, showFailure = true }: StatusBarProps) {
  const ind = indicatorFor(conversation.state);
  const conn = conversation.connection;
  // The failed turn is shown once: the error event that says the same folds into it.
  const { failure, related, others } = splitErrors(conversation);
  return (
    <div className="status-area">
      {conn && conn.type === "reconnecting" && (
        <div className="connection" role="status">
          Connection lost ({conn.reason}); reconnecting in {Math.round(conn.delayMs / 100) / 10} s…
        </div>
      )}
      {conn && conn.type === "closed" && conn.reason !== "closed by the page" && (
        <div className="connection error-text" role="alert">
          Live updates stopped: {conn.reason}. Reload the page to retry.
        </div>
      )}
      {failure && showFailure && <FailedTurn error={failure.error} recoverable={failure.recoverable} related={related?.error} onRetry={onResume} />}
      {ind && !failure && (
        <div className={`indicator tone-${ind.tone}`} role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" />
          <span className="indicator-label">{ind.label}</span>
          {onJump && (ind.action === "approve" || ind.action === "answer") && (
            <button type="button" className="btn btn-primary" onClick={() => onJump(ind.action as "approve" | "answer")}>
              {ind.action === "approve" ? "Review" : "Answer"}
            </button>
          )}
          {(ind.action === "resume" || ind.action === "retry") && (
            <button type="button" className="btn btn-primary" onClick={onResume}>Resume</button>
          )}
        </div>
      )}
      <ErrorList errors={others} onDismiss={onDismiss} />
      {toolCallingText(capabilities) && (
        <div className="tool-calling hint" role="note">
          {toolCallingText(capabilities)}
        </div>
      )}
      {optimizationText(conversation.optimization) && (
        <div className="optimization hint" role="note">
          {optimizationText(conversation.optimization)}
        </div>
      )}
    </div>
  );
}

/** Says that the model's tool calls are written as text, and who decided it; nothing for native calls. */
export function toolCallingText(capabilities: ModelCapabilitiesView | null | undefined): string | undefined {
  const figure = capabilities?.tool_calling;
  if (!figure || figure.value !== "prompted") return undefined;
  const why = {
    server: "the model server reports no tool calling of its own",
    table: "Braid's model table lists no tool calling of its own",
    override: "set for this model in BRAID_MODEL_CAPABILITIES",
    default: "Braid's default",
  }[figure.source];
  return `Tool calls are prompted: ${capabilities.model} gets the tools in its system prompt and writes its calls as text (${why}).`;
}

/** The last optimization report in words, or nothing when the request went as it was. */
export function optimizationText(report: OptimizationReport | undefined): string | undefined {
  if (!report) return undefined;
  const parts: string[] = [];
  const changed = report.dropped > 0 || report.summarized > 0 || (report.tokensBefore !== undefined && report.tokensAfter !== undefined && report.tokensAfter < report.tokensBefore);
  if (changed && report.tokensBefore !== undefined && report.tokensAfter !== undefined) {
    const what = [
      report.summarized > 0 ? `${report.summarized} summarized` : "",
      report.dropped > 0 ? `${report.dropped} left out` : "",
    ].filter(Boolean);
    const strategy = report.strategy ? ` (${report.strategy.replace(/_/g, " ")})` : "";
    parts.push(`Last request optimized${strategy}: ${report.tokensBefore.toLocaleString()} → ${report.tokensAfter.toLocaleString()} tokens${what.length ? `, ${what.join(", ")}` : ""}.`);
  }
  if (report.toolsWithheld) {
    const w = report.toolsWithheld;
    parts.push(`Tools withheld: the window leaves ${w.limit.toLocaleString()} tokens for the prompt and the ${w.tools} tool definitions need ${w.needed.toLocaleString()}, so the model cannot call tools.`);
  }
  return parts.length ? parts.join(" ") : undefined;
}
