// The parameters of a chosen workflow, as a form generated from its JSON Schema: a text field
// for strings (a menu for an `enum`), a number field for numbers, a checkbox for booleans, a
// comma-separated list for arrays of strings, and JSON for anything else. Defaults are filled in;
// required fields are marked. The server checks the values again against the schema.

import { useState } from "react";
import type { JsonValue, WorkflowInfo } from "../generated/protocol";

/** One field of the form, read from the schema's `properties`. */
export interface ParameterField {
  name: string;
  kind: "string" | "number" | "integer" | "boolean" | "list" | "json";
  required: boolean;
  description?: string;
  options?: string[];
  initial: string;
}

type Schema = { [key: string]: JsonValue | undefined };

function asSchema(v: JsonValue | undefined): Schema {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Schema) : {};
}

/** The fields of a parameter schema, in the schema's order. */
export function parameterFields(schema: JsonValue): ParameterField[] {
  const root = asSchema(schema);
  const properties = asSchema(root.properties);
  const required = Array.isArray(root.required) ? root.required.filter((r): r is string => typeof r === "string") : [];
  return Object.entries(properties).map(([name, raw]) => {
    const p = asSchema(raw);
    const type = typeof p.type === "string" ? p.type : "";
    const items = asSchema(p.items);
    const options = Array.isArray(p.enum) ? p.enum.map((e) => String(e)) : undefined;
    const kind: ParameterField["kind"] =
      type === "string" || options
        ? "string"
        : type === "number" || type === "integer" || type === "boolean"
          ? type
          : type === "array" && (items.type === "string" || items.type === undefined)
            ? "list"
            : "json";
    const d = p.default;
    const initial =
      d === undefined || d === null
        ? kind === "boolean"
          ? "false"
          : ""
        : kind === "list" && Array.isArray(d)
          ? d.map(String).join(", ")
          : kind === "json"
            ? JSON.stringify(d)
            : String(d);
    return {
      name,
      kind,
      required: required.includes(name),
      description: typeof p.description === "string" ? p.description : undefined,
      options,
      initial,
    };
  });
}

/** The values to send: empty optional fields are left out (the schema's defaults apply). */
export function parameterValues(fields: ParameterField[], values: Record<string, string>): Record<string, JsonValue> | string {
  const out: Record<string, JsonValue> = {};
  for (const f of fields) {
    const v = (values[f.name] ?? f.initial).trim();
    if (v === "" && f.kind !== "boolean") {
      if (f.required) return `${f.name} is required`;
      continue;
    }
    switch (f.kind) {
      case "string":
        out[f.name] = values[f.name] ?? f.initial;
        break;
      case "number":
      case "integer": {
        const n = Number(v);
        if (!Number.isFinite(n) || (f.kind === "integer" && !Number.isInteger(n))) return `${f.name} must be ${f.kind === "integer" ? "a whole number" : "a number"}`;
        out[f.name] = n;
        break;
      }
      case "boolean":
        out[f.name] = v === "true";
        break;
      case "list":
        out[f.name] = v.split(",").map((s) => s.trim()).filter((s) => s !== "");
        break;
      case "json":
        try {
          out[f.name] = JSON.parse(v) as JsonValue;
        } catch {
          return `${f.name} must be JSON`;
        }
    }
  }
  return out;
}

/** The form of a chosen workflow; `onRun` starts it. */
export function WorkflowParameters({
  workflow,
  onRun,
  onCancel,
}: {
  workflow: WorkflowInfo;
  onRun: (parameters: Record<string, JsonValue>) => Promise<void>;
  onCancel: () => void;
}) {
  const fields = parameterFields(workflow.parameters);
  const [values, setValues] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const value = (f: ParameterField) => values[f.name] ?? f.initial;
  const set = (name: string, v: string) => setValues({ ...values, [name]: v });
  const run = () => {
    const parameters = parameterValues(fields, values);
    if (typeof parameters === "string") {
      setProblem(parameters);
      return;
    }
    setProblem(null);
    setRunning(true);
    onRun(parameters)
      .catch((err: unknown) => setProblem(err instanceof Error ? err.message : String(err)))
      .finally(() => setRunning(false));
  };
  return (
    <div className="prompt-arguments workflow-parameters" role="group" aria-label={`Parameters of /${workflow.name}`}>
      <div>
        <strong>/{workflow.name}</strong> <span className="badge">workflow · {workflow.steps.length} steps</span>
        {workflow.description && <span className="muted"> — {workflow.description}</span>}
      </div>
      {fields.map((f) => (
        <label key={f.name} className="field">
          <span>
            {f.name}
            {f.required && " *"}
            {f.kind === "list" && <span className="muted"> (comma-separated)</span>}
            {f.kind === "json" && <span className="muted"> (JSON)</span>}
          </span>
          {f.kind === "boolean" ? (
            <input type="checkbox" checked={value(f) === "true"} onChange={(e) => set(f.name, String(e.target.checked))} />
          ) : f.options ? (
            <select value={value(f)} onChange={(e) => set(f.name, e.target.value)}>
              {!f.required && <option value="">—</option>}
              {f.options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          ) : (
            <input
              type={f.kind === "number" || f.kind === "integer" ? "number" : "text"}
              value={value(f)}
              required={f.required}
              placeholder={f.description}
              onChange={(e) => set(f.name, e.target.value)}
            />
          )}
        </label>
      ))}
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      <div className="actions">
        <button type="button" className="btn btn-primary" disabled={running} onClick={run}>
          Run workflow
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
