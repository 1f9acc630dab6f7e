// A message this build cannot show as its kind: shown as text, with a console warning, never a crash.

import { useEffect } from "react";
import { jsonText } from "./json";

/** The best text for an unknown message: a `text`/`content` field, else its data as JSON. */
export function unknownText(data: unknown): string {
  if (data && typeof data === "object") {
    const d = data as Record<string, unknown>;
    for (const key of ["text", "content", "message"]) {
      if (typeof d[key] === "string") return d[key];
    }
  }
  return jsonText(data);
}

/** Renders an unknown (or unrenderable) message as plain text and warns once in the console. */
export function UnknownCard({ id, kind, data, reason }: { id: string; kind: string; data: unknown; reason?: string }) {
  useEffect(() => {
    console.warn(`braid: message ${id} has ${reason ?? `a kind this UI does not know ("${kind}")`}; shown as text`);
  }, [id, kind, reason]);
  return (
    <div className="card unknown-card">
      <div className="muted">Unsupported message kind “{kind}”, shown as text</div>
      <pre className="unknown-text">{unknownText(data)}</pre>
    </div>
  );
}
