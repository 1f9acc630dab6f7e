// The composer's `/` menu: the context's workflows, then the MCP prompts offered by the connected
// servers, filtered by what follows the slash. A workflow with parameters asks for them in a form
// generated from its schema; a prompt with arguments asks for them before it is sent.

import { useState } from "react";
import type { McpPromptInfo, WorkflowInfo } from "../generated/protocol";

/** One choice of the menu. */
export type SlashEntry = { type: "workflow"; workflow: WorkflowInfo } | { type: "prompt"; prompt: McpPromptInfo };

/** The workflows, then the prompts, whose name, description (or title, or server) contains `query`. */
export function matchingEntries(workflows: WorkflowInfo[], prompts: McpPromptInfo[], query: string): SlashEntry[] {
  const q = query.toLowerCase();
  const flows: SlashEntry[] = workflows
    .filter((w) => [w.name, w.description].some((s) => s.toLowerCase().includes(q)))
    .map((workflow) => ({ type: "workflow", workflow }));
  return [...flows, ...matchingPrompts(prompts, query).map((prompt): SlashEntry => ({ type: "prompt", prompt }))];
}

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

/** The menu of matching workflows and prompts. A workflow whose file has errors is shown with
 *  them and cannot be chosen. */
export function SlashMenu({
  entries,
  highlighted,
  onChoose,
}: {
  entries: SlashEntry[];
  highlighted: number;
  onChoose: (e: SlashEntry) => void;
}) {
  if (entries.length === 0) return <div className="slash-menu muted" role="status">No workflow or MCP prompt matches.</div>;
  return (
    <ul className="plain slash-menu" role="listbox" aria-label="Workflows and prompts">
      {entries.map((e, i) => {
        const broken = e.type === "workflow" && e.workflow.errors.length > 0;
        return (
          <li
            key={e.type === "workflow" ? `workflow/${e.workflow.name}` : `${e.prompt.server}/${e.prompt.name}`}
            role="option"
            aria-selected={i === highlighted}
            aria-disabled={broken}
            className={i === highlighted ? "highlighted" : ""}
            onMouseDown={(ev) => {
              // Keeps the textarea's focus until the choice is made.
              ev.preventDefault();
              if (!broken) onChoose(e);
            }}
          >
            {e.type === "workflow" ? (
              <>
                <strong>/{e.workflow.name}</strong> <span className="badge">workflow</span>
                {e.workflow.description && <span className="muted"> — {e.workflow.description}</span>}
                {broken && (
                  <span className="error-text">
                    {" "}
                    — cannot run: {e.workflow.errors.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ")} ({e.workflow.source})
                  </span>
                )}
              </>
            ) : (
              <>
                <strong>/{e.prompt.name}</strong> <span className="badge">MCP · {e.prompt.server}</span>
                {e.prompt.description && <span className="muted"> — {e.prompt.description}</span>}
              </>
            )}
          </li>
        );
      })}
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
