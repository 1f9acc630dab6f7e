// What a built-in tool call will do and what it returned, each result shape in its own readable
// form: file contents as numbered code, command output as a terminal, writes as a diff,
// listings as a tree. Shapes this build does not recognize fall back to JSON.

import type { ReactNode } from "react";
import type { ErrorDetail } from "../../generated/protocol";
import { JsonBlock } from "../json";
import { CodeView, DiffView, FileTree, Terminal, commandLine, parseNumbered, type NumberedLine } from "./views";
import { splitLines } from "./diff";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}
function objects(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** A one-line summary of a call: its tool and main argument (`read_file src/lib.rs`). */
export function callSummary(name: string, args: unknown): string {
  const a = isObject(args) ? args : {};
  switch (name) {
    case "run_command":
      return str(a.program) !== undefined ? commandLine(str(a.program) ?? "", strings(a.args)) : name;
    case "glob":
      return str(a.pattern) ?? "";
    case "codebase_search":
      return str(a.query) ?? "";
    case "find_definition":
    case "find_references":
      return str(a.symbol) ?? "";
    case "list_directory":
      return str(a.path) ?? ".";
    default:
      return str(a.path) ?? "";
  }
}

/** What a call will do, shown while it waits for approval (and kept above its result). */
export function CallPreview({ name, args }: { name: string; args: unknown }) {
  const a = isObject(args) ? args : {};
  const path = str(a.path);
  switch (name) {
    case "run_command": {
      const program = str(a.program);
      if (program === undefined) break;
      const timeout = num(a.timeout_secs);
      return <Terminal program={program} args={strings(a.args)} cwd={str(a.cwd) ?? "."} note={timeout ? `times out after ${timeout} s` : undefined} />;
    }
    case "write_file":
    case "create_file": {
      const content = str(a.content);
      if (path === undefined || content === undefined) break;
      return <DiffView path={path} before="" after={content} caption={name === "create_file" ? "new file" : "new content (not compared with the file on disk)"} />;
    }
    case "replace_in_file": {
      const oldText = str(a.old_text);
      const newText = str(a.new_text);
      if (path === undefined || oldText === undefined || newText === undefined) break;
      return <DiffView path={path} before={oldText} after={newText} caption="replacement" />;
    }
    case "delete_file":
      if (path === undefined) break;
      return (
        <p className="call-effect">
          Deletes <code>{path}</code>
        </p>
      );
    case "read_file": {
      if (path === undefined) break;
      const start = num(a.start_line);
      const end = num(a.end_line);
      return (
        <p className="call-effect">
          Reads <code>{path}</code>
          {(start !== undefined || end !== undefined) && ` lines ${start ?? 1}–${end ?? "end"}`}
        </p>
      );
    }
  }
  return <JsonBlock value={args} label={`Arguments of ${name}`} />;
}

function ReadFileOutput({ out }: { out: Json }) {
  const path = str(out.path) ?? "";
  const lines = parseNumbered(str(out.content) ?? "");
  const total = num(out.total_lines);
  const truncated = str(out.truncated);
  return (
    <>
      {lines.length === 0 ? (
        <p className="muted">
          <code>{path}</code> is empty.
        </p>
      ) : (
        <CodeView path={path} lines={lines} />
      )}
      <div className="muted result-note">
        {lines.length > 0 && `lines ${out.start_line as number}–${out.end_line as number}`}
        {total !== undefined && ` of ${total}`}
        {truncated && ` · ${truncated}`}
      </div>
    </>
  );
}

function ListDirectoryOutput({ out }: { out: Json }) {
  const dir = str(out.directory) ?? ".";
  const entries = objects(out.entries).map((e) => ({ path: str(e.path) ?? "", size: num(e.size) }));
  return (
    <>
      {entries.length === 0 ? <p className="muted">The directory is empty.</p> : <FileTree root={dir === "." ? "./" : `${dir}/`} paths={entries} base={dir} label={`Listing of ${dir}`} />}
      {out.truncated === true && <div className="muted result-note">The listing was cut at its limit.</div>}
    </>
  );
}

function GlobOutput({ out }: { out: Json }) {
  const matches = strings(out.matches);
  return (
    <>
      <div className="muted result-note">
        {matches.length} {matches.length === 1 ? "file matches" : "files match"} <code>{str(out.pattern)}</code>
        {out.truncated === true && " (cut at the limit)"}
      </div>
      {matches.length > 0 && <FileTree root="./" paths={matches.map((path) => ({ path }))} label={`Files matching ${str(out.pattern) ?? ""}`} />}
    </>
  );
}

function WriteOutput({ name, out, args, diff }: { name: string; out: Json; args: Json; diff: ReactNode }) {
  const path = str(out.path) ?? str(args.path) ?? "";
  const bytes = num(out.bytes_written);
  const content = str(args.content);
  return (
    <>
      <p className="call-effect">
        {out.created === true ? "Created" : "Wrote"} <code>{path}</code>
        {bytes !== undefined && ` (${bytes} bytes, ${content !== undefined ? splitLines(content).length : "?"} lines)`}
      </p>
      {diff ?? (content !== undefined && <DiffView path={path} before="" after={content} caption={name === "create_file" || out.created === true ? "new file" : "new content (the file before the write was not seen by this page)"} />)}
    </>
  );
}

function ReplaceOutput({ out, args, diff }: { out: Json; args: Json; diff: ReactNode }) {
  const path = str(out.path) ?? str(args.path) ?? "";
  const line = num(out.replaced_at_line);
  const oldText = str(args.old_text);
  const newText = str(args.new_text);
  return (
    <>
      <p className="call-effect">
        Replaced text in <code>{path}</code>
        {line !== undefined && ` at line ${line}`}
      </p>
      {diff ?? (oldText !== undefined && newText !== undefined && <DiffView path={path} before={oldText} after={newText} firstLine={line ?? 1} caption="replacement" />)}
    </>
  );
}

function CommandOutput({ out }: { out: Json }) {
  const exit = out.exit_code === null ? null : num(out.exit_code);
  const signal = num(out.signal);
  const cut = [out.stdout_truncated === true && "stdout", out.stderr_truncated === true && "stderr"].filter(Boolean);
  const duration = num(out.duration_ms);
  const notes = [
    duration !== undefined ? `took ${duration} ms` : null,
    signal !== undefined ? `stopped by signal ${signal}` : null,
    cut.length > 0 ? `${cut.join(" and ")} cut in the middle` : null,
  ].filter((n): n is string => n !== null);
  return (
    <Terminal
      program={str(out.program) ?? ""}
      args={strings(out.args)}
      cwd={str(out.cwd)}
      stdout={str(out.stdout)}
      stderr={str(out.stderr)}
      exitCode={exit ?? null}
      note={notes.join(" · ") || undefined}
    />
  );
}

function SearchOutput({ out }: { out: Json }) {
  const hits = objects(out.results);
  return (
    <>
      <div className="muted result-note">
        {num(out.total_matches) ?? hits.length} matches for <code>{str(out.query)}</code> in {num(out.files_searched) ?? "?"} files searched
        {out.truncated === true && `, ${hits.length} shown`}
      </div>
      <ul className="plain hit-list">
        {hits.map((h, i) => (
          <li key={i} className="hit">
            <code className="hit-place">
              {str(h.path)}:{num(h.line)}
            </code>
            <pre className="hit-snippet">
              <code>{str(h.snippet)}</code>
            </pre>
          </li>
        ))}
      </ul>
    </>
  );
}

function DefinitionOutput({ out }: { out: Json }) {
  const defs = objects(out.definitions);
  return (
    <>
      <div className="muted result-note">
        {defs.length} {defs.length === 1 ? "definition" : "definitions"} of <code>{str(out.symbol)}</code>
      </div>
      <ul className="plain hit-list">
        {defs.map((d, i) => (
          <li key={i} className="hit">
            <span className="badge">{str(d.kind)}</span>{" "}
            <code className="hit-place">
              {str(d.path)}:{num(d.line)}
            </code>
            <pre className="hit-snippet">
              <code>{str(d.signature)}</code>
            </pre>
          </li>
        ))}
      </ul>
    </>
  );
}

function ReferencesOutput({ out }: { out: Json }) {
  const files = objects(out.files);
  return (
    <>
      <div className="muted result-note">
        {num(out.total_count)} uses of <code>{str(out.symbol)}</code> in {num(out.file_count)} files
        {out.truncated === true && `, ${num(out.shown)} shown`}
      </div>
      {files.map((f, i) => {
        const path = str(f.path) ?? "";
        return (
          <div key={i} className="reference-file">
            {objects(f.references).map((r, j) => {
              const lines: NumberedLine[] = parseNumbered(str(r.context) ?? "");
              return <CodeView key={j} path={path} lines={lines} title={`${path}:${num(r.line)}${r.is_definition === true ? " (definition)" : ""}`} />;
            })}
          </div>
        );
      })}
    </>
  );
}

function OverviewOutput({ out }: { out: Json }) {
  const languages = isObject(out.languages) ? Object.entries(out.languages) : [];
  const directories = isObject(out.directories) ? Object.entries(out.directories) : [];
  const deps = strings(out.key_dependencies);
  const more = num(out.more_dependencies) ?? 0;
  return (
    <div className="overview">
      <div className="muted result-note">
        {num(out.total_files)} files, {num(out.total_lines)} lines in <code>{str(out.root)}</code>
      </div>
      {languages.length > 0 && (
        <table className="overview-table" aria-label="Languages">
          <thead>
            <tr>
              <th>Language</th>
              <th>Files</th>
              <th>Lines</th>
            </tr>
          </thead>
          <tbody>
            {languages.map(([lang, s]) => (
              <tr key={lang}>
                <td>{lang}</td>
                <td>{isObject(s) ? num(s.files) : ""}</td>
                <td>{isObject(s) ? num(s.lines) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {directories.length > 0 && (
        <p>
          Directories: {directories.map(([d, n]) => `${d} (${String(n)})`).join(", ")}
        </p>
      )}
      {strings(out.entry_points).length > 0 && (
        <p>
          Entry points: {strings(out.entry_points).map((e) => <code key={e}>{e} </code>)}
        </p>
      )}
      {deps.length > 0 && (
        <p>
          Key dependencies: {deps.join(", ")}
          {more > 0 && ` and ${more} more`}
        </p>
      )}
    </div>
  );
}

function StructureOutput({ out }: { out: Json }) {
  return (
    <p className="call-effect">
      Project structure of <code>{str(out.root_path)}</code> ({str(out.structure_type)?.replace("_", " ")}
      {out.truncated === true && ", cut at its limit"}), shown in its own card.
    </p>
  );
}

/** Whether `output` has the shape `name` returns, so its readable view can show it. */
function readable(name: string, out: unknown): out is Json {
  if (!isObject(out)) return false;
  switch (name) {
    case "read_file":
      return typeof out.content === "string" && typeof out.path === "string";
    case "list_directory":
      return Array.isArray(out.entries);
    case "glob":
      return Array.isArray(out.matches);
    case "write_file":
    case "create_file":
      return typeof out.path === "string" && "bytes_written" in out;
    case "replace_in_file":
      return typeof out.path === "string";
    case "delete_file":
      return typeof out.path === "string" && out.deleted === true;
    case "run_command":
      return typeof out.program === "string" && "exit_code" in out;
    case "codebase_search":
      return Array.isArray(out.results);
    case "find_definition":
      return Array.isArray(out.definitions);
    case "find_references":
      return Array.isArray(out.files);
    case "get_project_overview":
      return typeof out.root === "string" && isObject(out.languages);
    case "project_structure":
      return typeof out.structure_type === "string";
    default:
      return false;
  }
}

/**
 * A successful call's output in the form that fits its tool; JSON for anything else. `diff` is
 * the change as previewed against the file on disk before the call (a write's or replacement's
 * own arguments cannot show what it removed).
 */
export function ToolOutputView({ name, args, output, diff }: { name: string; args: unknown; output: unknown; diff?: ReactNode }) {
  if (!readable(name, output)) return <JsonBlock value={output} label="Output" />;
  const a = isObject(args) ? args : {};
  switch (name) {
    case "read_file":
      return <ReadFileOutput out={output} />;
    case "list_directory":
      return <ListDirectoryOutput out={output} />;
    case "glob":
      return <GlobOutput out={output} />;
    case "write_file":
    case "create_file":
      return <WriteOutput name={name} out={output} args={a} diff={diff} />;
    case "replace_in_file":
      return <ReplaceOutput out={output} args={a} diff={diff} />;
    case "delete_file":
      return (
        <p className="call-effect">
          Deleted <code>{str(output.path)}</code>
        </p>
      );
    case "run_command":
      return <CommandOutput out={output} />;
    case "codebase_search":
      return <SearchOutput out={output} />;
    case "find_definition":
      return <DefinitionOutput out={output} />;
    case "find_references":
      return <ReferencesOutput out={output} />;
    case "get_project_overview":
      return <OverviewOutput out={output} />;
    case "project_structure":
      return <StructureOutput out={output} />;
    default:
      return <JsonBlock value={output} label="Output" />;
  }
}

/**
 * A failed call: its code and message; a command that timed out also shows the output it had
 * produced (the error's details), and other details fold away.
 */
export function ToolErrorView({ name, args, error }: { name: string; args: unknown; error: ErrorDetail | undefined }) {
  const details = error?.details;
  const a = isObject(args) ? args : {};
  const streams = name === "run_command" && isObject(details) && (typeof details.stdout === "string" || typeof details.stderr === "string");
  if (error?.code === "denied") {
    // The person's decision, in their words when they gave a note.
    const note = (error.message ?? "").replace(/^denied by the person:?\s*/, "").trim();
    return (
      <p className="call-denied" role="note">
        You denied this call{note ? <>: “{note}”</> : "."} The model was told and did not run it.
      </p>
    );
  }
  return (
    <div className="tool-error">
      <div className="error-text" role="note">
        {error?.code && <code className="error-code">{error.code}</code>} {error?.message ?? "the call failed"}
      </div>
      {streams && isObject(details) && (
        <Terminal program={str(a.program) ?? ""} args={strings(a.args)} cwd={str(a.cwd) ?? "."} stdout={str(details.stdout)} stderr={str(details.stderr)} />
      )}
      {!streams && details !== undefined && details !== null && (
        <details className="error-details">
          <summary>Details</summary>
          <JsonBlock value={details} label="Error details" />
        </details>
      )}
    </div>
  );
}
