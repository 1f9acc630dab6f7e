// Shows JSON values (tool arguments, outputs) readably.

/** Pretty JSON, or the string itself when the value is a string. */
export function jsonText(value: unknown): string {
  if (typeof value === "string") {
    return value;
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A block of JSON. */
export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label}>
      <code>{jsonText(value)}</code>
    </pre>
  );
}

/** `1.2 s` or `340 ms`. */
export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `12.3 KiB` etc. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
