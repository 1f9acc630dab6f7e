// A question an MCP server asks the person during a tool call: a form generated from its
// schema (defaults filled) or a link to open, answered with Submit, Decline or Cancel.

import { useState } from "react";
import type { ElicitationAction, McpElicitation } from "../generated/protocol";

/** One field of a form request's flat schema. */
interface Field {
  name: string;
  title: string;
  description?: string;
  type: string;
  choices?: string[];
  /** A multiple choice (`type: array` of enumerated items). */
  multiple: boolean;
  required: boolean;
  initial: unknown;
}

/** The values a property may take: its `enum`, or the `const` of each `oneOf`/`anyOf` entry. */
function choicesOf(p: Record<string, unknown> | undefined): string[] | undefined {
  if (!p) return undefined;
  if (Array.isArray(p.enum)) return (p.enum as unknown[]).map(String);
  const options = (p.oneOf ?? p.anyOf) as Record<string, unknown>[] | undefined;
  if (Array.isArray(options)) {
    const consts = options.filter((o) => o && "const" in o).map((o) => String(o.const));
    return consts.length > 0 ? consts : undefined;
  }
  return undefined;
}

/** The fields of a form schema, in its order. */
export function formFields(schema: Record<string, unknown> | undefined): Field[] {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, p]) => {
    const type = typeof p.type === "string" ? p.type : "string";
    const multiple = type === "array";
    const choices = multiple ? choicesOf(p.items as Record<string, unknown> | undefined) : choicesOf(p);
    const initial = p.default ?? (multiple ? [] : type === "boolean" ? false : choices ? choices[0] : "");
    return {
      name,
      title: typeof p.title === "string" ? p.title : name,
      description: typeof p.description === "string" ? p.description : undefined,
      type,
      choices,
      multiple,
      required: required.has(name),
      initial,
    };
  });
}

/** The content to send: numbers as numbers, empty optional fields left out. */
export function formContent(fields: Field[], values: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.type === "boolean") content[f.name] = Boolean(v);
    else if (f.multiple) content[f.name] = Array.isArray(v) ? v : [];
    else if (v === "" || v === undefined) {
      if (f.required) content[f.name] = "";
    } else if (f.type === "number" || f.type === "integer") content[f.name] = Number(v);
    else content[f.name] = v;
  }
  return content;
}

/** What the card asks of its owner. */
export interface ElicitationCardProps {
  question: McpElicitation;
  /** Sends the answer; rejects with the server's error (shown on the card). */
  onReply: (action: ElicitationAction, content?: Record<string, unknown>) => Promise<void>;
}

/** Renders a server's question. */
export function ElicitationCard({ question, onReply }: ElicitationCardProps) {
  const fields = formFields(question.requested_schema);
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, f.initial])),
  );
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const reply = async (action: ElicitationAction) => {
    setSending(true);
    setProblem(null);
    try {
      const content = action === "accept" && question.requested_schema ? formContent(fields, values) : undefined;
      await onReply(action, content);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
      setSending(false);
    }
  };

  return (
    <section className="card question-card elicitation-card" aria-label={`${question.server} asks`}>
      <div className="card-title">
        <span className="badge">MCP · {question.server}</span> asks
      </div>
      <p className="question-text">{question.message}</p>
      {question.url && (
        <p>
          <a href={question.url} target="_blank" rel="noopener noreferrer">
            {question.url}
          </a>
        </p>
      )}
      <form
        aria-label={`Answer ${question.server}`}
        onSubmit={(e) => {
          e.preventDefault();
          void reply("accept");
        }}
      >
        {fields.map((f) => (
          <label key={f.name} className="field">
            <span>
              {f.title}
              {f.required && " *"}
            </span>
            {f.type === "boolean" ? (
              <input
                type="checkbox"
                checked={Boolean(values[f.name])}
                onChange={(e) => setValues({ ...values, [f.name]: e.target.checked })}
              />
            ) : f.multiple && f.choices ? (
              <select
                multiple
                value={Array.isArray(values[f.name]) ? (values[f.name] as string[]) : []}
                onChange={(e) => setValues({ ...values, [f.name]: Array.from(e.target.selectedOptions, (o) => o.value) })}
              >
                {f.choices.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            ) : f.choices ? (
              <select value={String(values[f.name] ?? "")} onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}>
                {f.choices.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            ) : (
              <input
                type={f.type === "number" || f.type === "integer" ? "number" : "text"}
                required={f.required}
                value={String(values[f.name] ?? "")}
                onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
              />
            )}
            {f.description && <small className="muted">{f.description}</small>}
          </label>
        ))}
        {problem && (
          <p className="error-text" role="alert">
            {problem}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={sending}>
            {question.url ? "Done" : "Submit"}
          </button>
          <button type="button" className="btn" disabled={sending} onClick={() => void reply("decline")}>
            Decline
          </button>
          <button type="button" className="btn" disabled={sending} onClick={() => void reply("cancel")}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
