// The row under a message: its versions (`< 2/3 >`), when it was written, which model wrote it
// with its tokens and duration, and what the person can do with it (copy, edit, regenerate).

import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { Message } from "../generated/protocol";
import { visibleText, type Entry } from "../conversation/reducer";
import { useBranching } from "../branches/branching";
import { exactTime, relativeTime, shortDuration, useNow } from "./time";
import { useCardActions } from "./actions";
import { ModelSawPanel } from "./ModelSaw";

/** Kinds an answer can be regenerated from. */
const ANSWER_KINDS = new Set(["text", "plan", "question"]);

/** The text "copy" puts on the clipboard: what the card shows for text, the data as JSON otherwise. */
export function copyText(entry: Entry): string {
  if (entry.kind === "text") return visibleText(entry);
  const data = (entry.message as unknown as { data?: unknown } | undefined)?.data;
  return data === undefined ? entry.streamed : JSON.stringify(data, null, 2);
}

/** The text of a user's text message, for editing. */
export function editableText(message: Message): string | null {
  if (message.kind !== "text") return null;
  return message.data.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n\n");
}

/** Model, tokens and duration, where the message's metadata has them. */
export function answerFacts(message: Message): { model?: string; tokens?: string; duration?: number } {
  const meta = message.metadata ?? {};
  const out: { model?: string; tokens?: string; duration?: number } = {};
  if (typeof meta.model === "string" && meta.model) out.model = meta.model;
  const usage = meta.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; cached_prompt_tokens?: unknown } | undefined;
  if (usage && typeof usage.prompt_tokens === "number" && typeof usage.completion_tokens === "number") {
    // Cached prompt tokens (read from the provider's prompt cache) are part of the prompt's count.
    const cached = typeof usage.cached_prompt_tokens === "number" && usage.cached_prompt_tokens > 0 ? ` (${usage.cached_prompt_tokens.toLocaleString()} cached)` : "";
    out.tokens = `${usage.prompt_tokens.toLocaleString()} in${cached} · ${usage.completion_tokens.toLocaleString()} out`;
  }
  if (message.role === "assistant" && message.status === "complete") {
    const ms = Date.parse(message.updated_at) - Date.parse(message.created_at);
    if (Number.isFinite(ms) && ms > 0) out.duration = ms;
  }
  return out;
}

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Without the async clipboard (an insecure origin), a selected textarea and the old command.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy");
}

/** Copies a message's text, saying so for a moment. */
function CopyButton({ entry }: { entry: Entry }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = window.setTimeout(() => setState("idle"), 1500);
    return () => window.clearTimeout(t);
  }, [state]);
  const copy = () => writeClipboard(copyText(entry)).then(() => setState("copied"), () => setState("failed"));
  return (
    <button
      type="button"
      className="btn btn-tool"
      aria-label={state === "copied" ? `Copied ${entry.role} message` : state === "failed" ? `Copying the ${entry.role} message failed` : `Copy ${entry.role} message`}
      onClick={() => void copy()}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
    </button>
  );
}

/** The record of the request an answer came from (`metadata.model_request_id`). */
export function modelRequestId(message: Message): string | null {
  const id = message.metadata?.model_request_id;
  return typeof id === "string" && id ? id : null;
}

/** Whether the person pinned the message (`metadata.pinned`). */
export function isPinned(message: Message): boolean {
  return message.metadata?.pinned === true;
}

/** Pins or unpins a message; the change comes back through the event stream. */
function PinButton({ message }: { message: Message }) {
  const { api, contextId, reportError } = useCardActions();
  const [busy, setBusy] = useState(false);
  const pinned = isPinned(message);
  const toggle = async () => {
    setBusy(true);
    try {
      await api.setPinned(contextId, message.id, !pinned);
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className="btn btn-tool"
      aria-label={pinned ? "Unpin message" : "Pin message"}
      title={pinned ? "Put it back under the optimization strategy" : "Never drop or summarize it to fit the window"}
      disabled={busy}
      onClick={() => void toggle()}
    >
      {pinned ? "Unpin" : "Pin"}
    </button>
  );
}

/** The toolbar under one message. */
export function MessageToolbar({ entry }: { entry: Entry }) {
  const branching = useBranching();
  const now = useNow();
  const [working, setWorking] = useState(false);
  const [sawOpen, setSawOpen] = useState(false);
  const message = entry.message;
  if (!message) return null;
  const at = new Date(message.created_at);
  const facts = answerFacts(message);
  const versions = branching?.versions.get(entry.id);
  const settled = message.status === "complete" || message.status === "incomplete";
  const canEdit = branching && entry.role === "user" && settled && editableText(message) !== null;
  const canRegenerate = branching && entry.role === "assistant" && ANSWER_KINDS.has(entry.kind) && settled;
  const requestId = modelRequestId(message);
  const regenerate = async () => {
    if (!branching) return;
    setWorking(true);
    try {
      await branching.regenerate(entry.id);
    } finally {
      setWorking(false);
    }
  };
  return (
    <>
    <div className="message-tools">
      {versions && branching && (
        <span className="versions" role="group" aria-label="Versions">
          <button
            type="button"
            className="btn btn-tool"
            aria-label="Previous version"
            disabled={!versions.previous || branching.busy}
            onClick={() => versions.previous && branching.switchTo(versions.previous)}
          >
            ‹
          </button>
          <span className="version-count" aria-label={`Version ${versions.index} of ${versions.total}`}>
            {versions.index}/{versions.total}
          </span>
          <button
            type="button"
            className="btn btn-tool"
            aria-label="Next version"
            disabled={!versions.next || branching.busy}
            onClick={() => versions.next && branching.switchTo(versions.next)}
          >
            ›
          </button>
        </span>
      )}
      <time className="when" dateTime={message.created_at} title={exactTime(at)}>
        {relativeTime(at, now)}
      </time>
      {facts.model && <span className="fact" title="The model that wrote it">{facts.model}</span>}
      {facts.tokens && <span className="fact" title="Tokens of the request and of the answer">{facts.tokens}</span>}
      {facts.duration !== undefined && (
        <span className="fact" title="From the answer's first piece to its end">
          {shortDuration(facts.duration)}
        </span>
      )}
      <span className="tool-buttons">
        <CopyButton entry={entry} />
        {canEdit && (
          <button
            type="button"
            className="btn btn-tool"
            aria-label="Edit message"
            disabled={branching.busy}
            onClick={() => branching.setEditingId(entry.id)}
          >
            Edit
          </button>
        )}
        {canRegenerate && (
          <button type="button" className="btn btn-tool" disabled={branching.busy || working} onClick={() => void regenerate()}>
            Regenerate
          </button>
        )}
        {settled && <PinButton message={message} />}
        {requestId && (
          <button type="button" className="btn btn-tool" aria-expanded={sawOpen} onClick={() => setSawOpen((o) => !o)}>
            What the model saw
          </button>
        )}
      </span>
    </div>
    {sawOpen && requestId && <ModelSawPanel requestId={requestId} onClose={() => setSawOpen(false)} />}
    </>
  );
}

/** Edits a sent message in place: sending puts the new text on a new branch. */
export function EditBox({ entry }: { entry: Entry }) {
  const branching = useBranching();
  const original = entry.message ? editableText(entry.message) ?? "" : "";
  const [text, setText] = useState(original);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  if (!branching) return null;
  const cancel = () => branching.setEditingId(null);
  const send = async () => {
    if (!text.trim()) {
      setProblem("Write the message first");
      return;
    }
    setSending(true);
    try {
      await branching.editAndSend(entry.id, text.trim());
      branching.setEditingId(null);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
      setSending(false);
    }
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      cancel();
    } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  return (
    <form
      className="card edit-box"
      aria-label="Edit message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Edited message
      </label>
      <textarea id={id} ref={area} rows={Math.min(10, Math.max(2, text.split("\n").length))} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKey} />
      <p className="muted edit-note">Sending puts the edited message and a new answer on a new branch; the original stays on its own.</p>
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="btn btn-primary" disabled={sending || branching.busy}>
          Send edit
        </button>
        <button type="button" className="btn" onClick={cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
