// The settings' model picker (issue 46): the models the model server lists (`GET /v1/models`),
// each with its window, vision and tool calling as discovered, the server's default, and a
// name typed in for a model the server does not list.

import { useId, useState } from "react";
import type { ModelCapabilitiesView, ModelList } from "../generated/protocol";

/** The select's value for "a name typed in". */
const OTHER = "\u0000other";

/** A model's figures in a few words: `32,768 tokens · vision · tools`. */
export function modelFacts(m: ModelCapabilitiesView): string {
  const facts = [`${m.context_window.value.toLocaleString("en-US")} tokens`];
  if (m.vision.value) facts.push("vision");
  facts.push(m.tool_calling.value === "native" ? "tools" : "tools as text");
  return facts.join(" · ");
}

/** Picks the context's model: `value` is the configured name, empty for the server's default. */
export function ModelPicker({
  id,
  value,
  onChange,
  list,
}: {
  id: string;
  value: string;
  onChange: (model: string) => void;
  list: ModelList | undefined;
}) {
  const models = list?.models ?? [];
  const listed = models.some((m) => m.model === value);
  // A configured name the server does not list is shown typed in; so is "Another model" once picked.
  const [chose, setChose] = useState(false);
  const typing = chose || (value.trim() !== "" && !listed);
  const otherId = useId();
  const selected = typing ? OTHER : value.trim() === "" ? "" : value;
  const defaultFacts = models.find((m) => m.model === list?.default_model);
  const defaultLabel = list?.default_model
    ? `Server default (${list.default_model}${defaultFacts ? ` — ${modelFacts(defaultFacts)}` : ""})`
    : "Server default";
  return (
    <>
      <select
        id={id}
        value={selected}
        onChange={(e) => {
          const next = e.target.value;
          setChose(next === OTHER);
          if (next !== OTHER) onChange(next);
        }}
      >
        <option value="">{defaultLabel}</option>
        {models.map((m) => (
          <option key={m.model} value={m.model}>
            {m.model} — {modelFacts(m)}
          </option>
        ))}
        <option value={OTHER}>Another model (type its name)…</option>
      </select>
      {typing && (
        <>
          <label htmlFor={otherId}>Model name</label>
          <input id={otherId} value={value} placeholder="as the model server names it" onChange={(e) => onChange(e.target.value)} />
        </>
      )}
      {list === undefined && <p className="hint">Asking the model server for its models…</p>}
      {list?.list_error && <p className="hint">The model server's list could not be read ({list.list_error}); pick the default or type a name.</p>}
    </>
  );
}
