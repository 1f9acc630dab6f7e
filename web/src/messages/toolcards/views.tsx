// The building blocks of tool cards: a numbered code view, a terminal block, a diff, a file tree.

import { useMemo } from "react";
import { Highlighted } from "./Highlighted";
import { diffLines, type DiffLine } from "./diff";
import { languageOf } from "./language";

/** A line of a file as a tool returned it. */
export interface NumberedLine {
  /** Its 1-based number in the file. */
  number: number;
  /** Its text. */
  text: string;
}

/**
 * Lines in the tools' numbered form (`     12\tcode`, as `read_file` and `find_references`
 * return them). A line without a number continues the one before (never happens for a well
 * formed answer, but nothing is lost).
 */
export function parseNumbered(content: string): NumberedLine[] {
  const out: NumberedLine[] = [];
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    const m = /^\s*(\d+)\t(.*)$/s.exec(line);
    if (m) {
      out.push({ number: Number(m[1]), text: m[2] ?? "" });
    } else {
      const last = out[out.length - 1];
      if (last) last.text += `\n${line}`;
      else out.push({ number: 1, text: line });
    }
  }
  return out;
}

/** A file's lines with their numbers in a gutter, highlighted in the file's language. */
export function CodeView({ path, lines, language = languageOf(path), title }: { path: string; lines: NumberedLine[]; language?: string | undefined; title?: string }) {
  const code = lines.map((l) => l.text).join("\n");
  return (
    <figure className="code-view" data-language={language ?? "text"}>
      <figcaption className="code-head">
        <code className="code-path">{title ?? path}</code>
        <span className="code-lang">{language ?? "text"}</span>
      </figcaption>
      <div className="code-body">
        <pre className="code-gutter" aria-hidden="true">
          {lines.map((l) => l.number).join("\n")}
        </pre>
        <pre className="code-text">
          <code className={`hljs${language ? ` language-${language}` : ""}`}>
            <Highlighted code={code} language={language} />
          </code>
        </pre>
      </div>
    </figure>
  );
}

/** A program's arguments as a person would type them in a shell. */
export function commandLine(program: string, args: readonly string[]): string {
  const quote = (s: string) => (s !== "" && /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [program, ...args].map(quote).join(" ");
}

/** A command as a terminal shows it: the prompt line with its folder, its output and exit code. */
export function Terminal({
  program,
  args,
  cwd,
  stdout,
  stderr,
  exitCode,
  note,
}: {
  program: string;
  args: readonly string[];
  cwd: string | undefined;
  stdout?: string | undefined;
  stderr?: string | undefined;
  exitCode?: number | null | undefined;
  note?: string | undefined;
}) {
  const ran = exitCode !== undefined;
  return (
    <figure className="terminal">
      <figcaption className="terminal-head">
        <span className="terminal-cwd">{cwd ?? "."}</span>
        {ran && (
          <span className={`badge exit-code ${exitCode === 0 ? "exit-ok" : "exit-failed"}`}>
            {exitCode === null ? "killed by a signal" : `exit ${exitCode}`}
          </span>
        )}
      </figcaption>
      <pre className="terminal-body" aria-label="Terminal">
        <span className="terminal-prompt">$ </span>
        <span className="terminal-command">{commandLine(program, args)}</span>
        {"\n"}
        {stdout && <span className="terminal-stdout">{stdout.endsWith("\n") ? stdout : `${stdout}\n`}</span>}
        {stderr && <span className="terminal-stderr">{stderr.endsWith("\n") ? stderr : `${stderr}\n`}</span>}
        {ran && !stdout && !stderr && <span className="muted">(no output)</span>}
      </pre>
      {note && <div className="muted terminal-note">{note}</div>}
    </figure>
  );
}

const OP_MARK: Record<DiffLine["op"], string> = { same: " ", del: "-", add: "+" };

/** A row of a shown diff: a line, or a run of unchanged lines folded into one row. */
export type DiffRow = DiffLine | { op: "fold"; count: number };

/**
 * The diff's lines with every run of unchanged lines longer than `context` lines on each side of
 * a change folded into one row, as `git diff` shows hunks. `context` undefined shows every line.
 */
export function foldUnchanged(lines: DiffLine[], context: number | undefined): DiffRow[] {
  if (context === undefined) return lines;
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op === "same") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) near[k] = true;
  });
  const out: DiffRow[] = [];
  let folded = 0;
  lines.forEach((l, i) => {
    if (near[i]) {
      if (folded > 0) out.push({ op: "fold", count: folded });
      folded = 0;
      out.push(l);
    } else folded++;
  });
  if (folded > 0) out.push({ op: "fold", count: folded });
  return out;
}

/**
 * The lines a change removes and adds, with the line numbers on both sides. With `context`,
 * unchanged lines further than that from a change are folded ("12 unchanged lines").
 */
export function DiffView({
  path,
  before,
  after,
  firstLine = 1,
  caption,
  context,
}: {
  path: string;
  before: string;
  after: string;
  firstLine?: number;
  caption?: string | undefined;
  context?: number | undefined;
}) {
  const lines = useMemo(() => diffLines(before, after, firstLine), [before, after, firstLine]);
  const rows = useMemo(() => foldUnchanged(lines, context), [lines, context]);
  const added = lines.filter((l) => l.op === "add").length;
  const removed = lines.filter((l) => l.op === "del").length;
  const language = languageOf(path);
  return (
    <figure className="diff-view" data-language={language ?? "text"}>
      <figcaption className="code-head">
        <code className="code-path">{path}</code>
        {caption && <span className="muted diff-caption">{caption}</span>}
        <span className="diff-stat">
          <span className="diff-added">+{added}</span> <span className="diff-removed">−{removed}</span>
        </span>
      </figcaption>
      <table className="diff-table" aria-label={`Changes to ${path}`}>
        <tbody>
          {rows.map((l, i) =>
            l.op === "fold" ? (
              <tr key={i} className="diff-fold">
                <td colSpan={4} className="muted">
                  ⋯ {l.count} unchanged {l.count === 1 ? "line" : "lines"}
                </td>
              </tr>
            ) : (
              <tr key={i} className={`diff-${l.op}`}>
                <td className="diff-num">{l.oldNumber ?? ""}</td>
                <td className="diff-num">{l.newNumber ?? ""}</td>
                <td className="diff-mark" aria-hidden="true">
                  {OP_MARK[l.op]}
                </td>
                <td className="diff-text">
                  <code>
                    <Highlighted code={l.text} language={language} />
                  </code>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </figure>
  );
}

/** One node of a file tree. */
interface TreeNode {
  name: string;
  dirs: Map<string, TreeNode>;
  files: { name: string; size?: number | undefined }[];
}

/**
 * Paths (relative, directories ending in `/`) as a tree. `base` is taken off each path first
 * (the listed directory), so the tree starts inside it.
 */
export function buildTree(paths: { path: string; size?: number | null | undefined }[], base = ""): TreeNode {
  const root: TreeNode = { name: "", dirs: new Map(), files: [] };
  const prefix = base && base !== "." ? (base.endsWith("/") ? base : `${base}/`) : "";
  for (const p of paths) {
    const rel = prefix && p.path.startsWith(prefix) ? p.path.slice(prefix.length) : p.path;
    const isDir = rel.endsWith("/");
    const parts = rel.split("/").filter((s) => s !== "");
    let node = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (last && !isDir) {
        node.files.push({ name: part, size: p.size ?? undefined });
        return;
      }
      let next = node.dirs.get(part);
      if (!next) {
        next = { name: part, dirs: new Map(), files: [] };
        node.dirs.set(part, next);
      }
      node = next;
    });
  }
  return root;
}

function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function TreeItems({ node }: { node: TreeNode }) {
  const dirs = [...node.dirs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const files = [...node.files].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      {dirs.map((d) => (
        <li key={`d:${d.name}`} className="tree-dir">
          <span className="tree-name">{d.name}/</span>
          {(d.dirs.size > 0 || d.files.length > 0) && (
            <ul>
              <TreeItems node={d} />
            </ul>
          )}
        </li>
      ))}
      {files.map((f) => (
        <li key={`f:${f.name}`} className="tree-file">
          <span className="tree-name">{f.name}</span>
          {f.size !== undefined && <span className="muted tree-size"> {sizeText(f.size)}</span>}
        </li>
      ))}
    </>
  );
}

/** A file tree with its root's name. */
export function FileTree({ root, paths, base, label }: { root: string; paths: { path: string; size?: number | null | undefined }[]; base?: string; label: string }) {
  const tree = useMemo(() => buildTree(paths, base), [paths, base]);
  return (
    <div className="file-tree" aria-label={label}>
      <div className="tree-root">{root}</div>
      <ul className="tree">
        <TreeItems node={tree} />
      </ul>
    </div>
  );
}
