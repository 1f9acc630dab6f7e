// Small inline SVG icons, so that they look the same on every system (emoji fonts vary).

/** The icons the UI uses. */
export type IconName = "plug" | "wrench" | "file" | "folder" | "trash";

const PATHS: Record<IconName, string> = {
  // A two-pronged plug: MCP, i.e. something from an outside server.
  plug: "M9 2v5M15 2v5M6 7h12v4a6 6 0 0 1-12 0zM12 17v5",
  wrench: "M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.4-.6-.6-2.4z",
  file: "M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8zM14 2v6h6",
  folder: "M3 6a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z",
  trash: "M3 6h18M8 6V4h8v2M6 6l1 14h10l1-14",
};

/** An icon; decorative (hidden from screen readers), so give its button a label. */
export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg
      className={`icon icon-${name}${className ? ` ${className}` : ""}`}
      data-icon={name}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
