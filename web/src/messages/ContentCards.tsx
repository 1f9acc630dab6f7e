// Content the person or a server added: images, file references, MCP resources, project structure.

import { useState } from "react";
import type {
  FileReferenceMessage,
  ImageMessage,
  McpResourceMessage,
  ProjectStructureMessage,
  DirectoryNode,
} from "../generated/protocol";
import { useCardActions } from "./actions";
import { formatBytes } from "./json";
import { Icon } from "../ui/Icon";

/** What the card shows: the source itself, or the loaded (and possibly sized-down) copy. */
function imageSrc(data: ImageMessage): string | undefined {
  const source = data.source;
  switch (source.type) {
    case "url":
      return source.url;
    case "base64":
      return `data:${source.media_type};base64,${source.data}`;
    case "file_path":
      return data.prepared ? `data:${data.prepared.media_type};base64,${data.prepared.data}` : undefined;
  }
}

/** How the image was (to be) recognized, in words. */
function modeLabel(data: ImageMessage): string {
  const method = data.recognition?.method;
  const used = method === "vision" ? "vision" : method === "ocr" ? "OCR" : null;
  if (data.recognition_mode === "auto") return used ? `Mode: auto, used ${used}` : "Mode: auto";
  return `Mode: ${data.recognition_mode === "vision" ? "vision" : "OCR"}`;
}

/**
 * An image: the picture, the mode asked for and the method used, the recognized text, or its
 * error and Retry (the message's retry route, which runs its send again).
 */
export function ImageCard({ id, data }: { id: string; data: ImageMessage }) {
  const { api, contextId, reportError } = useCardActions();
  const [retrying, setRetrying] = useState(false);
  const src = imageSrc(data);
  const r = data.recognition;
  const retry = async () => {
    setRetrying(true);
    try {
      await api.retryMessage(contextId, id);
    } catch (err) {
      reportError(err);
    } finally {
      setRetrying(false);
    }
  };
  return (
    <figure className="card image-card">
      {src ? (
        <img src={src} alt={data.caption ?? (data.source.type === "file_path" ? data.source.path : "attached image")} />
      ) : (
        <div className="muted">Image file: {data.source.type === "file_path" ? data.source.path : ""}</div>
      )}
      {data.caption && <figcaption>{data.caption}</figcaption>}
      <div className="muted image-mode">{modeLabel(data)}</div>
      {r && (
        <div className="recognition">
          <div className="muted">
            {r.method === "vision" ? "Sent to the vision model" : "Read by OCR"}
            {r.confidence !== undefined && ` (${Math.round(r.confidence)}% confidence)`}
            {r.language && `, language ${r.language}`}
            {data.prepared?.resized && `, sized down to ${data.prepared.width}×${data.prepared.height}`}
          </div>
          {r.notice && <div className="notice">{r.notice}</div>}
          {r.vision_analysis && <p>{r.vision_analysis}</p>}
          {r.method === "ocr" && (r.recognized_text ? <pre className="ocr-text">{r.recognized_text}</pre> : <div className="muted">No text was found.</div>)}
        </div>
      )}
      {data.error && (
        <div className="error-text" role="alert">
          Recognition failed: {data.error.message}
          <button type="button" className="btn" disabled={retrying} onClick={() => void retry()}>
            Retry recognition
          </button>
        </div>
      )}
    </figure>
  );
}

/** How a reference is shown: its display text, else `path:start-end`. */
export function referenceLabel(data: FileReferenceMessage): string {
  if (data.display_text) return data.display_text;
  return data.range ? `${data.path}:${data.range.start_line}-${data.range.end_line}` : data.path;
}

/** A file reference: path, line range, and the resolved excerpt (collapsible). */
export function FileReferenceCard({ data }: { data: FileReferenceMessage }) {
  const res = data.resolution;
  return (
    <details className="card file-ref">
      <summary>
        <Icon name="file" /> <code>{referenceLabel(data)}</code>
        {data.range && (
          <span className="muted">
            {" "}lines {data.range.start_line}–{data.range.end_line}
          </span>
        )}
        {res.type === "pending" && <span className="muted"> · not read yet</span>}
        {res.type === "resolved" && (
          <span className="muted"> · {res.total_lines} lines, {formatBytes(res.size_bytes)}</span>
        )}
        {res.type === "failed" && <span className="error-text"> · {res.error}</span>}
      </summary>
      {res.type === "resolved" && (
        <pre className="excerpt">
          <code>{res.content}</code>
        </pre>
      )}
    </details>
  );
}

/** An MCP resource: server, URI, and its content. */
export function McpResourceCard({ data }: { data: McpResourceMessage }) {
  return (
    <details className="card mcp-resource mcp">
      <summary>
        <Icon name="plug" className="mcp-icon" /> <span className="badge mcp-badge">MCP · {data.server_name}</span>{" "}
        <strong>{data.name ?? data.resource_uri}</strong> <code className="muted">{data.resource_uri}</code>
        {data.mime_type && <span className="muted"> · {data.mime_type}</span>}
      </summary>
      {data.content.type === "text" ? (
        <pre className="excerpt">{data.content.text}</pre>
      ) : (
        <p className="muted">
          {data.content.summary} ({formatBytes(data.content.size_bytes)})
        </p>
      )}
    </details>
  );
}

/** Every file path a project structure snapshot names (for the composer's path suggestions). */
export function workspacePaths(data: ProjectStructureMessage): string[] {
  switch (data.structure_type) {
    case "file_list":
      return data.content.map((f) => f.path);
    case "tree": {
      const out: string[] = [];
      const walk = (n: DirectoryNode) => {
        n.files.forEach((f) => out.push(f.path));
        n.directories.forEach(walk);
      };
      walk(data.content);
      return out;
    }
    case "dependencies":
      return data.content.sources;
  }
}

function Tree({ node }: { node: DirectoryNode }) {
  return (
    <li>
      <span>{node.name}/</span>
      <ul>
        {node.directories.map((d) => <Tree key={d.path} node={d} />)}
        {node.files.map((f) => <li key={f.path}>{f.path.split("/").pop()}</li>)}
      </ul>
    </li>
  );
}

/** A project structure snapshot: tree, file list or dependency graph, collapsed. */
export function ProjectStructureCard({ data }: { data: ProjectStructureMessage }) {
  let summary: string;
  let body;
  switch (data.structure_type) {
    case "tree":
      summary = "directory tree";
      body = <ul className="tree"><Tree node={data.content} /></ul>;
      break;
    case "file_list":
      summary = `${data.content.length} files`;
      body = <ul className="tree">{data.content.map((f) => <li key={f.path}>{f.path}</li>)}</ul>;
      break;
    case "dependencies":
      summary = `${data.content.packages.length} packages`;
      body = (
        <ul className="tree">
          {data.content.packages.map((p) => (
            <li key={p.id}>
              {p.name} {p.version && <span className="muted">{p.version}</span>} <span className="muted">({p.relation})</span>
            </li>
          ))}
        </ul>
      );
      break;
  }
  return (
    <details className="card project-structure">
      <summary>
        <Icon name="folder" /> Project structure of <code>{data.root_path}</code>: {summary}
      </summary>
      {body}
    </details>
  );
}
