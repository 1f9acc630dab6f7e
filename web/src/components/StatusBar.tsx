// The live state line (what the context is doing, from the event stream), the connection, and
// the errors with what the person can do.

import type { ConversationState } from "../conversation/reducer";
import { indicatorFor } from "../conversation/indicator";

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
}

/** The state indicator, connection status and errors. */
export function StatusBar({ conversation, onResume, onDismiss, onJump }: StatusBarProps) {
  const ind = indicatorFor(conversation.state);
  const conn = conversation.connection;
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
      {ind && (
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
      {conversation.errors.length > 0 && (
        <ul className="errors" aria-label="Errors">
          {conversation.errors.map((e, i) => (
            <li key={i} className="error" role="alert">
              <strong>{e.message}</strong>
              <span className="hint">{e.hint}</span>
              <button type="button" className="btn btn-icon" aria-label="Dismiss error" onClick={() => onDismiss(i)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
