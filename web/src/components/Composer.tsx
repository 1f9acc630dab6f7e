// The composer: text, file references (path and optional line range), images by upload, paste
// or drop, and interrupt while the context is running.

import { useEffect, useId, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from "react";
import type { FileReferencePayload, ImagePayload, JsonValue, McpPromptInfo, Message, SendMessageRequest, WorkflowInfo } from "../generated/protocol";
import { PromptArguments, SlashMenu, matchingEntries, slashQuery, type SlashEntry } from "./SlashMenu";
import { WorkflowParameters } from "./WorkflowForm";

/** A file reference being written: the range fields stay text until sent. */
export interface DraftReference {
  /** Workspace-relative path. */
  path: string;
  /** First line, or empty for the whole file. */
  start: string;
  /** Last line, or empty. */
  end: string;
}

/** An attached image, already read as base64. */
export interface DraftImage {
  /** The file's name, for the list. */
  name: string;
  /** Its MIME type. */
  mediaType: string;
  /** Base64 of its bytes. */
  data: string;
}

/** Turns a draft reference into a payload, or says what is wrong with it. */
export function toReference(r: DraftReference): FileReferencePayload | string {
  const path = r.path.trim();
  if (!path) return "a file reference needs a path";
  if (r.start.trim() === "" && r.end.trim() === "") return { path };
  const start = Number(r.start);
  const end = r.end.trim() === "" ? start : Number(r.end);
  if (!Number.isInteger(start) || start < 1) return `${path}: the first line must be a whole number from 1`;
  if (!Number.isInteger(end) || end < start) return `${path}: the last line must be at least the first (${start})`;
  return { path, range: { start_line: start, end_line: end }, display_text: `@${path}:${start}-${end}` };
}

/**
 * The request one send makes: the text with its file references and images, so the model gets
 * the images and the question together in one turn (the server stores each image and file
 * before the text). Returns the problem when a draft is invalid.
 */
export function composeRequests(text: string, refs: DraftReference[], images: DraftImage[]): SendMessageRequest[] | string {
  const references: FileReferencePayload[] = [];
  for (const r of refs) {
    const p = toReference(r);
    if (typeof p === "string") return p;
    references.push(p);
  }
  const attached: ImagePayload[] = images.map((img) => ({
    source: { type: "base64", media_type: img.mediaType, data: img.data },
    recognition_mode: "auto",
  }));
  const trimmed = text.trim();
  if (!trimmed && references.length === 0 && attached.length === 0) {
    return "write a message, reference a file or attach an image first";
  }
  return [
    {
      payload: {
        type: "text",
        text: trimmed || (references.length ? "See the referenced files." : ""),
        ...(references.length ? { file_references: references } : {}),
        ...(attached.length ? { images: attached } : {}),
      },
    },
  ];
}

/** Reads a file as base64 (without the data-URL prefix). */
export function readAsBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error("could not read the file"));
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.readAsDataURL(file);
  });
}

/** A failed send put back into the composer to be edited; sending replaces it. */
export interface EditedSend {
  /** The failed message it replaces (with the rest of its send). */
  messageId: string;
  /** Its text. */
  text: string;
  /** Its file references. */
  refs: DraftReference[];
}

/**
 * A failed send as the composer edits it: the text and file references of every message that
 * was sent with `failed` (they share `metadata.send_id`), in order.
 */
export function editedSend(failed: Message, messages: Message[]): EditedSend {
  const sendId = failed.metadata["send_id"];
  const group = typeof sendId === "string" ? messages.filter((m) => m.metadata["send_id"] === sendId) : [failed];
  const texts: string[] = [];
  const refs: DraftReference[] = [];
  for (const m of group.length ? group : [failed]) {
    if (m.kind === "text") {
      texts.push(m.data.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""));
    } else if (m.kind === "file_reference") {
      const range = m.data.range;
      refs.push({ path: m.data.path, start: range ? String(range.start_line) : "", end: range ? String(range.end_line) : "" });
    }
  }
  return { messageId: failed.id, text: texts.join("\n\n"), refs };
}

/** What the composer can ask for. */
export interface ComposerProps {
  /** Whether a turn is running (offers interrupt; sends queue behind it). */
  busy: boolean;
  /** Sends the requests in order. Resolves when they were accepted. */
  onSend: (requests: SendMessageRequest[]) => Promise<void>;
  /** Stops the running turn after the current tool. */
  onInterrupt: () => void;
  /** Paths to suggest for file references (the workspace's files, when known). */
  pathSuggestions?: string[];
  /** A failed send being edited: loaded into the draft when it changes. */
  editing?: EditedSend | null;
  /** Stops editing (the draft is kept, and sends as a new message). */
  onCancelEdit?: () => void;
  /** MCP prompts for the `/` menu. */
  prompts?: McpPromptInfo[];
  /** Gets a prompt's text with its arguments (it is then sent like a typed message). */
  onPrompt?: (prompt: McpPromptInfo, args: Record<string, string>) => Promise<string>;
  /** The context's workflows for the `/` menu. */
  workflows?: WorkflowInfo[];
  /** Starts a workflow run with its parameters. */
  onRunWorkflow?: (workflow: WorkflowInfo, parameters: Record<string, JsonValue>) => Promise<void>;
  /** The `/` menu opened (the workflows may have changed on disk). */
  onMenuOpen?: () => void;
}

/** The message composer. */
export function Composer({
  busy,
  onSend,
  onInterrupt,
  pathSuggestions = [],
  editing = null,
  onCancelEdit,
  prompts = [],
  onPrompt,
  workflows = [],
  onRunWorkflow,
  onMenuOpen,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [refs, setRefs] = useState<DraftReference[]>([]);
  const [images, setImages] = useState<DraftImage[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const textId = useId();
  const listId = useId();
  const textArea = useRef<HTMLTextAreaElement>(null);
  const [chosenPrompt, setChosenPrompt] = useState<McpPromptInfo | null>(null);
  const [highlighted, setHighlighted] = useState(0);
  const [chosenWorkflow, setChosenWorkflow] = useState<WorkflowInfo | null>(null);
  const menuWorkflows = onRunWorkflow ? workflows : [];
  const menuPrompts = onPrompt ? prompts : [];
  const query = onPrompt || onRunWorkflow ? slashQuery(text) : null;
  const choosing = chosenPrompt !== null || chosenWorkflow !== null;
  const menu = query === null || choosing ? [] : matchingEntries(menuWorkflows, menuPrompts, query);
  const menuOpen = query !== null;
  useEffect(() => {
    if (menuOpen) onMenuOpen?.();
  }, [menuOpen, onMenuOpen]);

  useEffect(() => {
    if (!editing) return;
    setText(editing.text);
    setRefs(editing.refs);
    setProblem(null);
    textArea.current?.focus();
  }, [editing]);

  const addImages = async (files: Iterable<File>) => {
    const added: DraftImage[] = [];
    for (const f of files) {
      if (!f.type.startsWith("image/")) {
        setProblem(`${f.name || "the pasted file"} is not an image`);
        continue;
      }
      added.push({ name: f.name || "pasted image", mediaType: f.type, data: await readAsBase64(f) });
    }
    if (added.length) setImages((cur) => [...cur, ...added]);
  };

  const send = async () => {
    const requests = composeRequests(text, refs, images);
    if (typeof requests === "string") {
      setProblem(requests);
      return;
    }
    setProblem(null);
    setSending(true);
    try {
      await onSend(requests);
      setText("");
      setRefs([]);
      setImages([]);
    } catch {
      // The caller showed the error; the draft is kept so nothing typed is lost.
    } finally {
      setSending(false);
    }
  };

  const sendPrompt = async (prompt: McpPromptInfo, args: Record<string, string>) => {
    if (!onPrompt) return;
    setProblem(null);
    try {
      const promptText = await onPrompt(prompt, args);
      const requests = composeRequests(promptText, [], []);
      if (typeof requests === "string") {
        setProblem(requests);
        return;
      }
      await onSend(requests);
      setText("");
      setChosenPrompt(null);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const choosePrompt = (prompt: McpPromptInfo) => {
    setHighlighted(0);
    if (prompt.arguments.length === 0) void sendPrompt(prompt, {});
    else setChosenPrompt(prompt);
  };
  const runWorkflow = async (workflow: WorkflowInfo, parameters: Record<string, JsonValue>) => {
    if (!onRunWorkflow) return;
    await onRunWorkflow(workflow, parameters);
    setText("");
    setChosenWorkflow(null);
  };
  const choose = (entry: SlashEntry) => {
    setHighlighted(0);
    if (entry.type === "prompt") choosePrompt(entry.prompt);
    else setChosenWorkflow(entry.workflow);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (query !== null && menu.length > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : menu.length - 1;
        setHighlighted((h) => (h + step) % menu.length);
        return;
      }
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        const entry = menu[Math.min(highlighted, menu.length - 1)];
        if (entry.type === "prompt" || entry.workflow.errors.length === 0) choose(entry);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...e.clipboardData.files].filter((f) => f.type.startsWith("image/"));
    if (files.length) {
      e.preventDefault();
      void addImages(files);
    }
  };
  const onDrop = (e: DragEvent<HTMLFormElement>) => {
    const files = [...e.dataTransfer.files];
    if (files.length === 0) return;
    e.preventDefault();
    void addImages(files);
  };
  const setRef = (i: number, patch: Partial<DraftReference>) =>
    setRefs((cur) => cur.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <form
      className="composer"
      aria-label="Message composer"
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes("Files")) e.preventDefault();
      }}
      onDrop={onDrop}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {editing && (
        <div className="composer-editing" role="status">
          <span>Editing a message that was not sent: sending replaces it.</span>
          <button type="button" className="btn btn-link" onClick={onCancelEdit}>
            Cancel edit
          </button>
        </div>
      )}
      {refs.length > 0 && (
        <ul className="plain draft-refs" aria-label="File references">
          {refs.map((r, i) => (
            <li key={i} className="draft-ref">
              <input aria-label={`Path of reference ${i + 1}`} placeholder="src/lib.rs" list={listId} value={r.path} onChange={(e) => setRef(i, { path: e.target.value })} />
              <input aria-label={`First line of reference ${i + 1}`} placeholder="from" inputMode="numeric" size={5} value={r.start} onChange={(e) => setRef(i, { start: e.target.value })} />
              <input aria-label={`Last line of reference ${i + 1}`} placeholder="to" inputMode="numeric" size={5} value={r.end} onChange={(e) => setRef(i, { end: e.target.value })} />
              <button type="button" className="btn btn-icon" aria-label={`Remove reference ${i + 1}`} onClick={() => setRefs((cur) => cur.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <datalist id={listId}>
        {pathSuggestions.map((p) => <option key={p} value={p} />)}
      </datalist>
      {images.length > 0 && (
        <ul className="plain draft-images" aria-label="Attached images">
          {images.map((img, i) => (
            <li key={i}>
              <img src={`data:${img.mediaType};base64,${img.data}`} alt={img.name} />
              <button type="button" className="btn btn-icon" aria-label={`Remove ${img.name}`} onClick={() => setImages((cur) => cur.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {query !== null && !choosing && menuPrompts.length + menuWorkflows.length > 0 && (
        <SlashMenu entries={menu} highlighted={Math.min(highlighted, Math.max(menu.length - 1, 0))} onChoose={choose} />
      )}
      {chosenWorkflow && (
        <WorkflowParameters
          workflow={chosenWorkflow}
          onRun={(parameters) => runWorkflow(chosenWorkflow, parameters)}
          onCancel={() => setChosenWorkflow(null)}
        />
      )}
      {chosenPrompt && (
        <PromptArguments prompt={chosenPrompt} onSubmit={(args) => sendPrompt(chosenPrompt, args)} onCancel={() => setChosenPrompt(null)} />
      )}
      <label htmlFor={textId} className="visually-hidden">Message</label>
      <textarea
        ref={textArea}
        id={textId}
        rows={3}
        placeholder="Write a message (Enter sends, Shift+Enter for a new line, / for workflows and MCP prompts; paste or drop an image to attach it)"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      {problem && <div className="error-text" role="alert">{problem}</div>}
      <div className="composer-actions">
        <button type="button" className="btn" onClick={() => setRefs((cur) => [...cur, { path: "", start: "", end: "" }])}>
          Reference a file
        </button>
        <button type="button" className="btn" onClick={() => fileInput.current?.click()}>
          Attach image
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="image/*"
          multiple
          hidden
          aria-label="Image files"
          onChange={(e) => {
            if (e.target.files) void addImages([...e.target.files]);
            e.target.value = "";
          }}
        />
        <span className="spacer" />
        {busy && (
          <button type="button" className="btn btn-danger" onClick={onInterrupt} title="Stop after the running tool (Esc)">
            Stop
          </button>
        )}
        <button type="submit" className="btn btn-primary" disabled={sending}>
          {busy ? "Queue" : "Send"}
        </button>
      </div>
    </form>
  );
}
