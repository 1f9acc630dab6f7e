// The composer's `/` menu: MCP prompts offered by the connected servers, filtered by what follows
// the slash; a prompt with arguments asks for them before it is sent.

import { useState } from "react";
import type { McpPromptInfo } from "../generated/protocol";

/** The prompts whose name, title or server contains `query` (case ignored). */
export function matchingPrompts(prompts: McpPromptInfo[], query: string): McpPromptInfo[] {
  const q = query.toLowerCase();
  return prompts.filter((p) => [p.name, p.title ?? "", p.server].some((s) => s.toLowerCase().includes(q)));
}

/** The query of a draft that opens the menu: `/` then no whitespace. */
export function slashQuery(draft: string): string | null {
  const m = /^\/(\S*)$/.exec(draft);
  return m ? m[1] : null;
}

/** The menu of matching prompts. */
export function SlashMenu({
  prompts,
  highlighted,
  onChoose,
}: {
  prompts: McpPromptInfo[];
  highlighted: number;
  onChoose: (p: McpPromptInfo) => void;
}) {
  if (prompts.length === 0) return <div className="slash-menu muted" role="status">No MCP prompt matches.</div>;
  return (
    <ul className="plain slash-menu" role="listbox" aria-label="Prompts">
      {prompts.map((p, i) => (
        <li
          key={`${p.server}/${p.name}`}
          role="option"
          aria-selected={i === highlighted}
          className={i === highlighted ? "highlighted" : ""}
          onMouseDown={(e) => {
            // Keeps the textarea's focus until the choice is made.
            e.preventDefault();
            onChoose(p);
          }}
        >
          <strong>/{p.name}</strong> <span className="badge">MCP · {p.server}</span>
          {p.description && <span className="muted"> — {p.description}</span>}
        </li>
      ))}
    </ul>
  );
}

/** The arguments of a chosen prompt. */
export function PromptArguments({
  prompt,
  onSubmit,
  onCancel,
}: {
  prompt: McpPromptInfo;
  onSubmit: (args: Record<string, string>) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [sending, setSending] = useState(false);
  return (
    <div className="prompt-arguments" role="group" aria-label={`Arguments of /${prompt.name}`}>
      <div>
        <strong>/{prompt.name}</strong> <span className="badge">MCP · {prompt.server}</span>
      </div>
      {prompt.arguments.map((a) => (
        <label key={a.name} className="field">
          <span>
            {a.name}
            {a.required && " *"}
          </span>
          <input
            value={values[a.name] ?? ""}
            required={a.required}
            placeholder={a.description}
            onChange={(e) => setValues({ ...values, [a.name]: e.target.value })}
          />
        </label>
      ))}
      <div className="actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={sending || prompt.arguments.some((a) => a.required && !(values[a.name] ?? "").trim())}
          onClick={() => {
            setSending(true);
            void onSubmit(values).finally(() => setSending(false));
          }}
        >
          Send prompt
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
