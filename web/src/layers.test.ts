// The source's layers import downwards only: `ui/` (markdown, scrolling, icons) knows nothing of
// the conversation; `messages/` (one card per message kind, tool cards included) uses `ui/` but
// never `components/` (the shell's panels, sidebar and composer), which may use both.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const src = resolve(__dirname);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Every relative import of the files under `dir`, as `file -> layer/path` of what it names. */
function importsOf(dir: string): { file: string; target: string }[] {
  return sources(join(src, dir)).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => ({
      file: relative(src, file),
      target: relative(src, resolve(file, "..", m[1] ?? "")),
    }));
  });
}

describe("layers", () => {
  it("messages/ never imports from components/", () => {
    expect(importsOf("messages").filter((i) => i.target.startsWith("components/"))).toEqual([]);
  });

  it("ui/ imports neither messages/ nor components/", () => {
    expect(importsOf("ui").filter((i) => /^(messages|components)\//.test(i.target))).toEqual([]);
  });
});
