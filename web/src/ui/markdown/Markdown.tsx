// Markdown as GitHub renders it: tables, task lists, strikethrough and autolinks (GFM), each code
// block in one frame with its language and a copy button. Raw HTML from the text is never rendered.

import { memo, useState, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import rehypeHighlight from "rehype-highlight";
import "./markdown.css";

/** A node of the HTML tree react-markdown hands to components. */
interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/** The text under a node (a code block's source, without highlighting). */
export function hastText(node: HastNode | undefined): string {
  if (!node) return "";
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(hastText).join("");
}

/** The language a fenced block names (`language-rust` on its code element). */
export function blockLanguage(pre: HastNode | undefined): string | undefined {
  const code = pre?.children?.find((c) => c.type === "element" && c.tagName === "code");
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : typeof classes === "string" ? classes.split(" ") : [];
  const lang = list.find((c): c is string => typeof c === "string" && c.startsWith("language-"));
  return lang?.slice("language-".length);
}

/** Copies `text` and says so for a moment. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 1500);
  };
  return (
    <button type="button" className="btn btn-link copy-button" onClick={() => void copy()} aria-live="polite">
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label}
    </button>
  );
}

/** A fenced or indented code block: one frame, its language, a copy button. */
function CodeFrame({ node, children }: { node?: unknown; children?: ReactNode }) {
  const hast = node as HastNode | undefined;
  const language = blockLanguage(hast);
  return (
    <figure className="code-block" data-language={language ?? "text"}>
      <figcaption className="code-block-head">
        <span className="code-block-lang">{language ?? "text"}</span>
        <CopyButton text={hastText(hast).replace(/\n$/, "")} label="Copy code" />
      </figcaption>
      <pre>{children}</pre>
    </figure>
  );
}

const COMPONENTS: Components = {
  pre: CodeFrame,
  table: ({ children }) => (
    <div className="table-scroll">
      <table>{children}</table>
    </div>
  ),
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
};

// rehype-highlight builds a highlighter with all its languages each time a processor uses it,
// and react-markdown makes a processor for every message it renders: 110 ms of the first screen
// of a long conversation went there (profiled). One highlighter serves them all instead.
const highlightCode = rehypeHighlight({ detect: false });
// GitHub's extensions (tables, task lists, strikethrough, autolinks, footnotes), built once:
// built for each processor (react-markdown makes one per message, remark-gfm builds them
// anew each time) they were an eighth of a long conversation's first render (profiled). Only
// reading is needed, so their Markdown writers are not built at all.
const GFM_SYNTAX = gfm();
const GFM_TREE = gfmFromMarkdown();
/** The parser's part of GitHub's extensions, sharing the ones built above. */
function gfmReading(this: { data(): object }) {
  // Where remark-parse looks for extensions (its own typing of unified's `Data`).
  const data = this.data() as { micromarkExtensions?: unknown[]; fromMarkdownExtensions?: unknown[] };
  (data.micromarkExtensions ??= []).push(GFM_SYNTAX);
  (data.fromMarkdownExtensions ??= []).push(GFM_TREE);
}
const REMARK_PLUGINS = [gfmReading];
const REHYPE_PLUGINS = [() => highlightCode];

/**
 * Renders Markdown safely (no raw HTML) with GitHub's extensions and highlighted code blocks.
 * Memoized on its text: parsing is the costliest part of a message's render, and a message
 * re-renders whenever the conversation's shared state (actions, branching) changes.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={REMARK_PLUGINS} rehypePlugins={REHYPE_PLUGINS} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

/** Text longer than this many lines, or characters, starts collapsed. */
export const COLLAPSE_LINES = 20;
/** See [`COLLAPSE_LINES`]. */
export const COLLAPSE_CHARS = 2000;

/** Whether a text is long enough to start collapsed. */
export function isLong(text: string): boolean {
  return text.length > COLLAPSE_CHARS || text.split("\n").length > COLLAPSE_LINES;
}

/** Long text (a paste) shown folded to its first lines, with a button to show all of it. */
export function Collapsible({ text, children }: { text: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  if (!isLong(text)) return <>{children}</>;
  const lines = text.split("\n").length;
  return (
    <div className={`collapsible ${open ? "open" : "folded"}`}>
      <div className="collapsible-body">{children}</div>
      <button type="button" className="btn btn-link collapsible-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "Show less" : `Show all ${lines} lines (${text.length.toLocaleString("en")} characters)`}
      </button>
    </div>
  );
}
