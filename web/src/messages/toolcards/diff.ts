// A line diff of two texts, for showing what a write or replacement changes.

/** One line of a diff. */
export interface DiffLine {
  /** Kept, removed or added. */
  op: "same" | "del" | "add";
  /** The line's text, without its ending. */
  text: string;
  /** Its number in the old text (kept and removed lines). */
  oldNumber?: number;
  /** Its number in the new text (kept and added lines). */
  newNumber?: number;
}

/**
 * Above this many line pairs the diff is not searched for common lines: every old line is shown
 * removed and every new line added (the table would take too much memory).
 */
export const MAX_DIFF_CELLS = 4_000_000;

/** The lines of a text; a final line ending does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The lines removed from `before` and added in `after`, with the kept lines between them
 * (longest common subsequence). `firstLine` numbers the first line of both texts (a replacement
 * inside a file starts at its line).
 */
export function diffLines(before: string, after: string, firstLine = 1): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Common start and end need no table.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: "same", text: a[i] ?? "", oldNumber: firstLine + i, newNumber: firstLine + i });
  let oldN = firstLine + start;
  let newN = firstLine + start;
  if (midA.length * midB.length > MAX_DIFF_CELLS) {
    for (const text of midA) out.push({ op: "del", text, oldNumber: oldN++ });
    for (const text of midB) out.push({ op: "add", text, newNumber: newN++ });
  } else {
    // lcs[i][j]: the longest common subsequence of midA[i..] and midB[j..].
    const w = midB.length + 1;
    const lcs = new Uint32Array((midA.length + 1) * w);
    for (let i = midA.length - 1; i >= 0; i--) {
      for (let j = midB.length - 1; j >= 0; j--) {
        lcs[i * w + j] = midA[i] === midB[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        out.push({ op: "same", text: midA[i] ?? "", oldNumber: oldN++, newNumber: newN++ });
        i++;
        j++;
      } else if (i < midA.length && (j >= midB.length || (lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0))) {
        // Removed lines come before the lines added in their place.
        out.push({ op: "del", text: midA[i] ?? "", oldNumber: oldN++ });
        i++;
      } else {
        out.push({ op: "add", text: midB[j] ?? "", newNumber: newN++ });
        j++;
      }
    }
  }
  for (let k = 0; k < a.length - endA; k++) {
    out.push({ op: "same", text: a[endA + k] ?? "", oldNumber: oldN++, newNumber: newN++ });
  }
  return out;
}
