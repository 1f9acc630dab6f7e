// MCP: servers with their status and error, "Authorize" for a server waiting on OAuth, their tools,
// and their resources with "add to context". Servers are added, edited and removed in
// `mcp_servers.json` through the server (which validates and reloads), and an open context
// switches a server or a single tool off for itself.

import { useState, type FormEvent } from "react";
import type { McpConfigEditing, McpResourceInfo, McpServerDefinition, McpServerInfo, ToolInfo } from "../generated/protocol";
import { ApiRequestError } from "../api/client";
import { Icon } from "../ui/Icon";

/** The context's MCP switches and how to change them. */
export interface McpSwitches {
  /** Servers switched off in the open context. */
  disabledServers: string[];
  /** Tools (as the model calls them) switched off in the open context. */
  disabledTools: string[];
  /** Saves new lists (only the ones given change). */
  onChange: (changes: { disabled_mcp_servers?: string[]; disabled_mcp_tools?: string[] }) => Promise<void>;
}

/** What the panel shows and can ask for. */
export interface McpPanelProps {
  /** Configured servers. */
  servers: McpServerInfo[];
  /** Resources of the ready servers. */
  resources: McpResourceInfo[];
  /** Every tool (MCP ones carry their server). */
  tools: ToolInfo[];
  /** Re-reads the MCP configuration. */
  onReload: () => void;
  /** Adds a resource to the open context; absent when none is open. */
  onAddResource?: (r: McpResourceInfo) => void;
  /** Adds a server to the configuration file; rejects with the server's error. */
  onAddServer?: (name: string, server: McpServerDefinition) => Promise<void>;
  /** Replaces a server's definition; rejects with the server's error. */
  onReplaceServer?: (name: string, server: McpServerDefinition) => Promise<void>;
  /** Removes a server from the configuration file. */
  onRemoveServer?: (name: string) => Promise<void>;
  /** The open context's switches; absent when no context is open. */
  switches?: McpSwitches;
  /** Whether the server lets the API edit its configuration file (says why not when it does not). */
  editing?: McpConfigEditing;
}

/** Why the panel cannot add or edit servers, when it cannot. */
export function editingNote(editing: McpConfigEditing | undefined): string | null {
  switch (editing) {
    case "editable":
      return null;
    case "read_only":
      return "The MCP configuration file is read-only here (braid serve --mcp-config-readonly): servers are changed in the file on the server, then reloaded.";
    default:
      return "Braid runs without an MCP configuration file: start braid serve with --mcp-config PATH to add servers here.";
  }
}

/** The server form's fields, as typed. */
export interface ServerFormValues {
  name: string;
  transport: "command" | "url";
  command: string;
  /** One argument per line. */
  args: string;
  /** `KEY=value` per line; a line with only `KEY` keeps the current (hidden) value. */
  env: string;
  url: string;
  /** `Name: value` per line; a line with only `Name` keeps the current (hidden) value. */
  headers: string;
  /** Tool names (on the server) run without asking, separated by commas or spaces. */
  autoApprove: string;
  /** Seconds; empty for the default. */
  timeout: string;
  disabled: boolean;
}

/** The form's fields a problem can be shown beside. */
type FormField = "name" | "command" | "args" | "env" | "url" | "headers" | "autoApprove" | "timeout" | "disabled";
const FORM_FIELDS: FormField[] = ["name", "command", "args", "env", "url", "headers", "autoApprove", "timeout", "disabled"];

/** A problem with the form: the field at fault (when known) and what is wrong. */
export interface FormProblem {
  field?: FormField;
  message: string;
}

/** The form's values for a server's definition (a new server when absent). */
export function formFrom(name: string, definition?: McpServerDefinition): ServerFormValues {
  const d = definition ?? {};
  const pairs = (map: Record<string, string | null> | undefined, sep: string) =>
    Object.entries(map ?? {})
      .map(([k, v]) => (v === null || v === undefined ? k : `${k}${sep}${v}`))
      .join("\n");
  return {
    name,
    transport: d.url !== undefined && d.command === undefined ? "url" : "command",
    command: d.command ?? "",
    args: (d.args ?? []).join("\n"),
    env: pairs(d.env as Record<string, string | null> | undefined, "="),
    url: d.url ?? "",
    headers: pairs(d.headers as Record<string, string | null> | undefined, ": "),
    autoApprove: (d.autoApprove ?? []).join(", "),
    timeout: d.timeout === undefined ? "" : String(d.timeout),
    disabled: d.disabled ?? false,
  };
}

/** Reads `KEY<sep>value` lines; a bare key means "keep the current value" (`null`). */
function pairsFrom(text: string, sep: string, field: FormField): { pairs: Record<string, string | null> } | { problem: FormProblem } {
  const pairs: Record<string, string | null> = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(sep);
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    if (!key) return { problem: { field, message: `line ${i + 1} needs a name before "${sep}"` } };
    pairs[key] = at < 0 ? null : line.slice(at + sep.length).trim();
  }
  return { pairs };
}

/** The definition the form describes, or the first problem the browser can see by itself (the
 *  server checks everything else and names the field). */
export function definitionFrom(v: ServerFormValues): { definition: McpServerDefinition } | { problem: FormProblem } {
  const definition: McpServerDefinition = {};
  if (v.transport === "command") {
    definition.command = v.command.trim();
    const args = v.args.split("\n").map((a) => a.trim()).filter((a) => a !== "");
    if (args.length) definition.args = args;
    const env = pairsFrom(v.env, "=", "env");
    if ("problem" in env) return env;
    if (Object.keys(env.pairs).length) definition.env = env.pairs;
  } else {
    definition.url = v.url.trim();
    const headers = pairsFrom(v.headers, ":", "headers");
    if ("problem" in headers) return headers;
    if (Object.keys(headers.pairs).length) definition.headers = headers.pairs;
  }
  const approve = v.autoApprove.split(/[\s,]+/).filter((t) => t !== "");
  if (approve.length) definition.autoApprove = approve;
  if (v.timeout.trim()) {
    const secs = Number(v.timeout.trim());
    if (!Number.isFinite(secs)) return { problem: { field: "timeout", message: "the timeout must be a number of seconds" } };
    definition.timeout = secs;
  }
  if (v.disabled) definition.disabled = true;
  return { definition };
}

/** The server's refusal as a problem beside the form field it names (`server.url`, `env.K`...). */
export function problemFrom(err: unknown): FormProblem {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiRequestError && err.field) {
    const head = err.field.replace(/^server\.?/, "").split(/[.[]/)[0] ?? "";
    const field = FORM_FIELDS.find((f) => f === head);
    if (field) return { field, message };
  }
  return { message };
}

/** The form that adds a server (with a name) or edits one. */
function ServerForm({
  initial,
  adding,
  onSubmit,
  onCancel,
}: {
  initial: ServerFormValues;
  adding: boolean;
  onSubmit: (name: string, definition: McpServerDefinition) => Promise<void>;
  onCancel: () => void;
}) {
  const [v, setV] = useState(initial);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof ServerFormValues>(key: K, value: ServerFormValues[K]) => setV((cur) => ({ ...cur, [key]: value }));
  const id = `mcp-form-${adding ? "new" : initial.name}`;
  const problemAt = (field: FormField) =>
    problem?.field === field ? (
      <span className="error-text" id={`${id}-${field}-problem`} role="alert">
        {problem.message}
      </span>
    ) : null;
  const described = (field: FormField) => (problem?.field === field ? { "aria-invalid": true, "aria-describedby": `${id}-${field}-problem` } : {});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const read = definitionFrom(v);
    if ("problem" in read) {
      setProblem(read.problem);
      return;
    }
    setBusy(true);
    try {
      await onSubmit(v.name.trim(), read.definition);
    } catch (err) {
      setProblem(problemFrom(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="mcp-server-form" aria-label={adding ? "Add MCP server" : `Edit ${initial.name}`} onSubmit={(e) => void submit(e)}>
      {adding && (
        <label>
          Name
          <input value={v.name} onChange={(e) => set("name", e.target.value)} placeholder="everything" {...described("name")} />
          {problemAt("name")}
        </label>
      )}
      <fieldset>
        <legend>Runs as</legend>
        <label>
          <input type="radio" name={`${id}-transport`} checked={v.transport === "command"} onChange={() => set("transport", "command")} /> a command (stdio)
        </label>
        <label>
          <input type="radio" name={`${id}-transport`} checked={v.transport === "url"} onChange={() => set("transport", "url")} /> a URL (streamable HTTP)
        </label>
      </fieldset>
      {v.transport === "command" ? (
        <>
          <label>
            Command
            <input value={v.command} onChange={(e) => set("command", e.target.value)} placeholder="npx" {...described("command")} />
            {problemAt("command")}
          </label>
          <label>
            Arguments (one per line)
            <textarea rows={3} value={v.args} onChange={(e) => set("args", e.target.value)} {...described("args")} />
            {problemAt("args")}
          </label>
          <label>
            Environment (KEY=value per line; a line with only KEY keeps its current value)
            <textarea rows={2} value={v.env} onChange={(e) => set("env", e.target.value)} {...described("env")} />
            {problemAt("env")}
          </label>
        </>
      ) : (
        <>
          <label>
            URL
            <input value={v.url} onChange={(e) => set("url", e.target.value)} placeholder="http://127.0.0.1:3001/mcp" {...described("url")} />
            {problemAt("url")}
          </label>
          <label>
            Headers (Name: value per line; a line with only Name keeps its current value)
            <textarea rows={2} value={v.headers} onChange={(e) => set("headers", e.target.value)} {...described("headers")} />
            {problemAt("headers")}
          </label>
        </>
      )}
      <label>
        Run without asking (tool names on the server)
        <input value={v.autoApprove} onChange={(e) => set("autoApprove", e.target.value)} {...described("autoApprove")} />
        {problemAt("autoApprove")}
      </label>
      <label>
        Tool call timeout (seconds; empty for 60)
        <input inputMode="decimal" value={v.timeout} onChange={(e) => set("timeout", e.target.value)} {...described("timeout")} />
        {problemAt("timeout")}
      </label>
      <label>
        <input type="checkbox" checked={v.disabled} onChange={(e) => set("disabled", e.target.checked)} /> Switched off for everyone (not connected)
      </label>
      {problem && !problem.field && (
        <div className="error-text" role="alert">
          {problem.message}
        </div>
      )}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {adding ? "Add server" : "Save server"}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The MCP panel. */
export function McpPanel({
  servers,
  resources,
  tools,
  onReload,
  onAddResource,
  onAddServer,
  onReplaceServer,
  onRemoveServer,
  switches,
  editing: fileEditing,
}: McpPanelProps) {
  const note = editingNote(fileEditing);
  // Which form is open: a new server's, or the edit form of the server named.
  const [editing, setEditing] = useState<{ adding: true } | { name: string } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const report = (err: unknown) => setProblem(err instanceof Error ? err.message : String(err));
  const toggle = (list: string[], item: string, on: boolean) => (on ? list.filter((x) => x !== item) : [...list.filter((x) => x !== item), item]);
  return (
    <section className="panel mcp-panel" aria-label="MCP servers">
      <div className="panel-head">
        <h2>MCP servers</h2>
        {onAddServer && (
          <button type="button" className="btn" onClick={() => setEditing({ adding: true })} disabled={editing !== null && "adding" in editing}>
            Add server
          </button>
        )}
        <button type="button" className="btn" onClick={onReload}>Reload</button>
      </div>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      {note && <p className="muted">{note}</p>}
      {onAddServer && editing !== null && "adding" in editing && (
        <ServerForm
          initial={formFrom("")}
          adding
          onSubmit={async (name, definition) => {
            await onAddServer(name, definition);
            setEditing(null);
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {servers.length === 0 && <p className="muted">No MCP servers are configured.</p>}
      <ul className="plain">
        {servers.map((s) => {
          const described = tools.filter((t) => t.source === "mcp" && t.server === s.name);
          const own = resources.filter((r) => r.server_name === s.name);
          const serverOn = !switches?.disabledServers.includes(s.name);
          const isEditing = editing !== null && "name" in editing && editing.name === s.name;
          return (
            <li key={s.name} className={`mcp-server status-${s.status}`}>
              <div className="tool-head">
                <Icon name="plug" /> <strong>{s.name}</strong>{" "}
                <span className={`badge server-${s.status}`}>{s.status.replace("_", " ")}</span>
                {onReplaceServer && s.definition && (
                  <button type="button" className="btn btn-link" aria-label={`Edit ${s.name}`} onClick={() => setEditing({ name: s.name })}>
                    Edit
                  </button>
                )}
                {onRemoveServer && (
                  <button type="button" className="btn btn-link" aria-label={`Remove ${s.name}`} onClick={() => setRemoving(s.name)}>
                    Remove
                  </button>
                )}
              </div>
              {s.error && <div className="error-text">{s.error}</div>}
              {removing === s.name && onRemoveServer && (
                <div className="row" role="group" aria-label={`Confirm removing ${s.name}`}>
                  <span>Remove {s.name} from mcp_servers.json?</span>
                  <button
                    type="button"
                    className="btn btn-danger"
                    onClick={() => {
                      setRemoving(null);
                      onRemoveServer(s.name).then(() => setProblem(null), report);
                    }}
                  >
                    Remove
                  </button>
                  <button type="button" className="btn" onClick={() => setRemoving(null)}>
                    Keep
                  </button>
                </div>
              )}
              {isEditing && onReplaceServer && (
                <ServerForm
                  initial={formFrom(s.name, s.definition)}
                  adding={false}
                  onSubmit={async (_, definition) => {
                    await onReplaceServer(s.name, definition);
                    setEditing(null);
                  }}
                  onCancel={() => setEditing(null)}
                />
              )}
              {switches && (
                <label className="mcp-switch">
                  <input
                    type="checkbox"
                    checked={serverOn}
                    aria-label={`Use ${s.name} in this context`}
                    onChange={(e) => switches.onChange({ disabled_mcp_servers: toggle(switches.disabledServers, s.name, e.target.checked) }).catch(report)}
                  />{" "}
                  Use in this context
                </label>
              )}
              {s.status === "needs_authorization" && s.authorization_url && (
                <p>
                  <a
                    className="btn"
                    href={s.authorization_url}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={`Authorize ${s.name}`}
                  >
                    Authorize
                  </a>{" "}
                  <span className="muted">Sign in at the server&apos;s authorization page; this list updates when you come back.</span>
                </p>
              )}
              {s.tools.length > 0 && (
                <details>
                  <summary>{s.tools.length} tools</summary>
                  <ul>
                    {s.tools.map((name) => {
                      const info = described.find((t) => t.name === name);
                      const toolOn = !switches?.disabledTools.includes(name);
                      return (
                        <li key={name}>
                          {switches && (
                            <input
                              type="checkbox"
                              checked={serverOn && toolOn}
                              disabled={!serverOn}
                              aria-label={`Use ${name} in this context`}
                              onChange={(e) => switches.onChange({ disabled_mcp_tools: toggle(switches.disabledTools, name, e.target.checked) }).catch(report)}
                            />
                          )}{" "}
                          <code>{name}</code>
                          {info?.description && <span className="muted"> — {info.description}</span>}
                        </li>
                      );
                    })}
                  </ul>
                </details>
              )}
              {own.length > 0 && (
                <details>
                  <summary>{own.length} resources</summary>
                  <ul>
                    {own.map((r) => (
                      <li key={r.uri}>
                        <span>{r.name}</span> <code className="muted">{r.uri}</code>
                        {onAddResource && (
                          <button type="button" className="btn btn-link" aria-label={`Add ${r.name} to context`} onClick={() => onAddResource(r)}>
                            Add to context
                          </button>
                        )}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
