// Errors as the person meets them: one short line each, with Retry where retrying can help and
// the full detail folded away; the failure of the current turn shown once.

import type { ShownError } from "../../conversation/reducer";
import "./errors.css";

/** The longest error line shown before the detail is folded. */
export const SHORT_ERROR_CHARS = 140;

/** The first line of an error, cut to [`SHORT_ERROR_CHARS`]. */
export function shortError(message: string): string {
  const first = message.split("\n")[0]?.trim() ?? "";
  return first.length > SHORT_ERROR_CHARS ? `${first.slice(0, SHORT_ERROR_CHARS - 1)}…` : first;
}

/** Whether an error says the same as the turn's failure (the event and the state both carry it). */
export function sameFailure(e: ShownError, failure: string): boolean {
  return e.message !== "" && (failure.includes(e.message) || e.message.includes(failure));
}

/** The failure of the turn: a short line, Retry when it can succeed, the detail folded. */
export function FailedTurn({ error, recoverable, related, onRetry }: { error: string; recoverable: boolean; related: ShownError | undefined; onRetry: () => void }) {
  return (
    <div className="turn-error" role="alert" aria-label="The turn failed">
      <div className="turn-error-line">
        <span className="turn-error-mark" aria-hidden="true">✗</span>
        <strong>{shortError(error)}</strong>
        {recoverable && (
          <button type="button" className="btn btn-primary" onClick={onRetry}>
            Retry
          </button>
        )}
      </div>
      <details className="error-detail">
        <summary>Details</summary>
        {related?.code && <code className="error-code">{related.code}</code>}
        {shortError(error) !== error && <pre className="error-full">{error}</pre>}
        <p className="hint">{related?.hint ?? (recoverable ? "Retry, or send a message to try again." : "This cannot be retried; see the server log.")}</p>
      </details>
    </div>
  );
}

/** Other errors: each a short line with its detail folded and a dismiss button. */
export function ErrorList({ errors, onDismiss }: { errors: readonly { error: ShownError; index: number }[]; onDismiss: (index: number) => void }) {
  if (errors.length === 0) return null;
  return (
    <ul className="errors" aria-label="Errors">
      {errors.map(({ error: e, index }) => (
        <li key={`${index}:${e.code}:${e.message}`} className="error" role="alert">
          <strong>{shortError(e.message)}</strong>
          <details className="error-detail">
            <summary>Details</summary>
            <code className="error-code">{e.code}</code>
            {shortError(e.message) !== e.message && <pre className="error-full">{e.message}</pre>}
            <span className="hint">{e.hint}</span>
          </details>
          <button type="button" className="btn btn-icon" aria-label="Dismiss error" onClick={() => onDismiss(index)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
