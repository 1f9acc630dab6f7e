// "What the model saw" for one answer: the stored record of the request that produced it
// (`ModelRequestRecord`), shown as the messages in the order sent (the ledger block first, a
// summary standing in for what it replaced, elided and truncated ones marked, the left-out ones
// listed) and a token bar by part against the prompt's limit and the window.

import { useEffect, useState } from "react";
import type { Message } from "../generated/protocol";
import type { ModelRequestRecord, SentMessage } from "../api/client";
import { messageLine } from "./describe";
import { useCardActions } from "./actions";

/** The most messages of a branch read to name what a request held (pages of 1,000). */
const MAX_PAGES = 20;

/** One part of a request's tokens. */
export interface TokenPart {
  /** What the part is. */
  name: string;
  /** Its tokens. */
  tokens: number;
}

/** A request's tokens by part: system prompt, tools, ledger, messages. */
export function tokenParts(record: ModelRequestRecord): TokenPart[] {
  return [
    { name: "System prompt", tokens: record.system_prompt_tokens },
    { name: "Tools", tokens: record.tools.tokens },
    { name: "Ledger", tokens: record.ledger?.tokens ?? 0 },
    { name: "Messages", tokens: record.messages.reduce((sum, m) => sum + m.tokens, 0) },
  ];
}

/** How a message went into the request, in words. */
export function sentAsText(sent: SentMessage): string {
  switch (sent.sent_as.type) {
    case "whole":
      return "whole";
    case "truncated":
      return `truncated from ${sent.sent_as.tokens_before.toLocaleString("en-US")} tokens`;
    case "elided":
      return `output elided (${sent.sent_as.tokens_before.toLocaleString("en-US")} tokens whole)`;
    case "summary":
      return `summary standing in for ${sent.sent_as.replaces.length} message${sent.sent_as.replaces.length === 1 ? "" : "s"}`;
  }
}

/** Every message of a branch, by id, read page by page (bounded). */
async function branchMessages(
  load: (after: string | undefined) => Promise<{ messages: Message[]; next_after?: string | null }>,
): Promise<Map<string, Message>> {
  const out = new Map<string, Message>();
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await load(after);
    for (const m of list.messages) out.set(m.id, m);
    if (!list.next_after) break;
    after = list.next_after;
  }
  return out;
}

/** The token bar: each part's share of the window, with the prompt's limit marked. */
export function TokenBar({ record }: { record: ModelRequestRecord }) {
  const parts = tokenParts(record);
  const { window, limit, reserve_output, margin } = record.budget;
  const scale = Math.max(window, record.tokens, 1);
  const n = (x: number) => x.toLocaleString("en-US");
  const summary = `${n(record.tokens)} of ${n(limit)} tokens the prompt may take (window ${n(window)}, ${n(reserve_output)} kept for the answer, ${n(margin)} margin)`;
  return (
    <div className="token-bar-wrap">
      <div className="token-bar" role="img" aria-label={summary}>
        {parts.map((p) => (
          <span
            key={p.name}
            className={`token-part part-${p.name.toLowerCase().replace(/ /g, "-")}`}
            style={{ width: `${(100 * p.tokens) / scale}%` }}
            title={`${p.name}: ${n(p.tokens)} tokens`}
          />
        ))}
        <span className="token-limit" style={{ left: `${(100 * limit) / scale}%` }} title={`Limit: ${n(limit)} tokens`} />
      </div>
      <p className="muted token-summary">{summary}</p>
      <ul className="plain token-legend" aria-label="Tokens by part">
        {parts.map((p) => (
          <li key={p.name}>
            <span className={`token-swatch part-${p.name.toLowerCase().replace(/ /g, "-")}`} aria-hidden="true" /> {p.name}: {n(p.tokens)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The panel for one request record. */
export function ModelSawPanel({ requestId, onClose }: { requestId: string; onClose: () => void }) {
  const { api, contextId } = useCardActions();
  const [record, setRecord] = useState<ModelRequestRecord | null>(null);
  const [named, setNamed] = useState<Map<string, Message> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    (async () => {
      const r = await api.getModelRequest(contextId, requestId);
      if (!live) return;
      setRecord(r);
      const messages = await branchMessages((after) =>
        api.listMessages(contextId, { branch: r.branch, view: "full", limit: 1000, ...(after ? { after } : {}) }),
      );
      if (live) setNamed(messages);
    })().catch((err: unknown) => live && setProblem(err instanceof Error ? err.message : String(err)));
    return () => {
      live = false;
    };
  }, [api, contextId, requestId]);

  const line = (id: string) => {
    const m = named?.get(id);
    return m ? messageLine(m) : named ? `message ${id.slice(0, 8)}…` : "…";
  };

  return (
    <section className="card model-saw" aria-label="What the model saw">
      <div className="card-title">
        What the model saw
        <button type="button" className="btn btn-link" onClick={onClose}>
          Close
        </button>
      </div>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      {!record && !problem && <p className="muted">Loading the request…</p>}
      {record && (
        <>
          <p className="muted">
            {record.model} · {record.encoding} · {new Date(record.created_at).toLocaleString()}
          </p>
          <TokenBar record={record} />
          <ol className="sent-messages" aria-label="Messages sent, in order">
            {record.ledger && (
              <li className="sent sent-ledger" data-sent-as="ledger">
                <span className="badge">ledger</span> {record.ledger.listed} entries listed
                {record.ledger.collapsed > 0 && `, ${record.ledger.collapsed} older counted`} ·{" "}
                {record.ledger.tokens.toLocaleString("en-US")} tokens
                <details>
                  <summary>Ledger block</summary>
                  <pre>{record.ledger.text}</pre>
                </details>
              </li>
            )}
            {record.messages.map((sent) => (
              <li key={sent.id} className={`sent sent-${sent.sent_as.type}`} data-sent-as={sent.sent_as.type}>
                {sent.sent_as.type !== "whole" && <span className="badge">{sentAsText(sent)}</span>} {line(sent.id)}{" "}
                <span className="muted">· {sent.tokens.toLocaleString("en-US")} tokens</span>
                {sent.sent_as.type === "summary" && (
                  <details>
                    <summary>Summarized messages ({sent.sent_as.replaces.length})</summary>
                    <ol aria-label="Summarized messages">
                      {sent.sent_as.replaces.map((id) => (
                        <li key={id}>{line(id)}</li>
                      ))}
                    </ol>
                  </details>
                )}
              </li>
            ))}
          </ol>
          {record.dropped.length > 0 ? (
            <details className="sent-dropped">
              <summary>
                Left out: {record.dropped.length} message{record.dropped.length === 1 ? "" : "s"}
              </summary>
              <ol aria-label="Messages left out">
                {record.dropped.map((id) => (
                  <li key={id}>{line(id)}</li>
                ))}
              </ol>
            </details>
          ) : (
            <p className="muted">Nothing was left out.</p>
          )}
          {record.tools.names.length > 0 && (
            <p className="muted">Tools offered: {record.tools.names.join(", ")}</p>
          )}
        </>
      )}
    </section>
  );
}
