// Syntax highlighting as React elements (no HTML strings), for code views and diffs.

import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { common, createLowlight } from "lowlight";
import { toJsxRuntime } from "hast-util-to-jsx-runtime";

const lowlight = createLowlight(common);

/** Above this many characters code is shown plain: highlighting it would stall the page. */
export const MAX_HIGHLIGHT_CHARS = 200_000;

/** Whether `language` can be highlighted. */
export function canHighlight(language: string | undefined): language is string {
  return language !== undefined && lowlight.registered(language);
}

/** `code` highlighted as `language`, or plain when the language is unknown or the code too long. */
export function Highlighted({ code, language }: { code: string; language: string | undefined }) {
  if (!canHighlight(language) || code.length > MAX_HIGHLIGHT_CHARS) return <>{code}</>;
  return toJsxRuntime(lowlight.highlight(language, code), { Fragment, jsx, jsxs });
}
