// A text message: Markdown with highlighted code, reasoning parts folded away.

import ReactMarkdown from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import type { TextPart } from "../generated/protocol";

/** Renders Markdown safely (no raw HTML) with syntax-highlighted code blocks. */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown rehypePlugins={[[rehypeHighlight, { detect: false, ignoreMissing: true }]]}>{text}</ReactMarkdown>
    </div>
  );
}

/** A text message's parts; while streaming, the text streamed so far. */
export function TextCard({ parts, streaming }: { parts: TextPart[]; streaming: boolean }) {
  return (
    <div className="card text-card" aria-busy={streaming}>
      {parts.map((p, i) =>
        p.type === "reasoning" ? (
          <details key={i} className="reasoning">
            <summary>Reasoning</summary>
            <Markdown text={p.text} />
          </details>
        ) : (
          <Markdown key={i} text={p.text} />
        ),
      )}
      {streaming && <span className="caret" aria-label="streaming" />}
    </div>
  );
}
