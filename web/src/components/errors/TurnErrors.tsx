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

/** A turn's failure in words a person understands, and whether retrying can help. */
export interface PlainFailure {
  /** One sentence saying what went wrong. */
  headline: string;
  /** What to do about it; names the setting when a setting is at fault. */
  hint: string | undefined;
  /** Whether the same request again can succeed (not with a refused key). */
  retryable: boolean;
}

/** The settings that hold the model server's key, named where a key is refused. */
export const API_KEY_SETTING = "BRAID_LLM_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY)";

/**
 * Plain words for the failures people meet: the model server refusing the key (401, 403; a
 * retry cannot help), not knowing the model, limiting the rate, failing, unreachable, or an
 * answer cut off. Anything else keeps its own first line.
 */
export function plainFailure(error: string): PlainFailure {
  const status = /\bHTTP (\d{3})\b/.exec(error)?.[1];
  if (status === "401" || status === "403") {
    return {
      headline: `The model server did not accept Braid's API key (HTTP ${status}).`,
      hint: `Set ${API_KEY_SETTING} for braid serve to a key this model server accepts, and restart it. Retrying will not help until then.`,
      retryable: false,
    };
  }
  if (status === "404") {
    return { headline: "The model server does not know this model (HTTP 404).", hint: "Choose another model in this conversation's settings.", retryable: false };
  }
  if (status === "429") {
    return { headline: "The model server is limiting requests right now (HTTP 429).", hint: "Wait a moment, then retry.", retryable: true };
  }
  if (status !== undefined && status.startsWith("5")) {
    return { headline: `The model server had a problem answering (HTTP ${status}).`, hint: "Retry in a moment; if it keeps failing, check the model server.", retryable: true };
  }
  if (/could not reach the model/i.test(error)) {
    return { headline: "Braid could not reach the model server.", hint: "Check that the model server is running at BRAID_LLM_BASE_URL, then retry.", retryable: true };
  }
  if (/stream ended before|no data from the model|reported an error mid-stream/i.test(error)) {
    return { headline: "The answer was cut off before it finished.", hint: "What arrived is kept. Retry to ask again.", retryable: true };
  }
  return { headline: shortError(error), hint: undefined, retryable: true };
}

/** The failure of the turn: one plain sentence, Retry when it can succeed, the detail folded. */
export function FailedTurn({ error, recoverable, related, onRetry }: { error: string; recoverable: boolean; related: ShownError | undefined; onRetry: () => void }) {
  const plain = plainFailure(error);
  const retry = recoverable && plain.retryable;
  return (
    <div className="turn-error" role="alert" aria-label="The turn failed">
      <div className="turn-error-line">
        <span className="turn-error-mark" aria-hidden="true">✗</span>
        <strong>{plain.headline}</strong>
        {retry && (
          <button type="button" className="btn btn-primary" onClick={onRetry}>
            Retry
          </button>
        )}
      </div>
      {!plain.retryable && plain.hint && <p className="hint turn-error-fix">{plain.hint}</p>}
      <details className="error-detail">
        <summary>Details</summary>
        {related?.code && <code className="error-code">{related.code}</code>}
        {plain.headline !== error && <pre className="error-full">{error}</pre>}
        <p className="hint">{plain.hint ?? related?.hint ?? (retry ? "Retry, or send a message to try again." : "This cannot be retried; see the server log.")}</p>
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
