// A text message: Markdown with highlighted code, reasoning parts folded away.

import type { TextPart } from "../generated/protocol";
import { Collapsible, Markdown } from "../ui/markdown/Markdown";

export { Markdown };

/** A text message's parts; while streaming, the text streamed so far. */
export function TextCard({ parts, streaming, collapseLong = false }: { parts: TextPart[]; streaming: boolean; collapseLong?: boolean }) {
  return (
    <div className="card text-card" aria-busy={streaming}>
      {parts.map((p, i) =>
        p.type === "reasoning" ? (
          <details key={i} className="reasoning">
            <summary>Reasoning</summary>
            <Markdown text={p.text} />
          </details>
        ) : collapseLong ? (
          <Collapsible key={i} text={p.text}>
            <Markdown text={p.text} />
          </Collapsible>
        ) : (
          <Markdown key={i} text={p.text} />
        ),
      )}
      {streaming && <span className="caret" aria-label="streaming" />}
    </div>
  );
}
