// The keyboard shortcuts, listed in a dialog opened with `?`.

import { useEffect, useId, useRef } from "react";

/** Every shortcut the UI has, as shown in the dialog. */
export const SHORTCUTS: { keys: string; what: string }[] = [
  { keys: "Enter", what: "Send the message (Shift+Enter: new line)" },
  { keys: "Esc", what: "Stop the running turn; close a panel or dialog" },
  { keys: "Ctrl+K / ⌘K", what: "Search conversations" },
  { keys: "↑ (in an empty message box)", what: "Edit your last message" },
  { keys: "y", what: "Approve the focused tool call (the focus then moves to the next one waiting)" },
  { keys: "n", what: "Deny the focused tool call, with an optional note to the model" },
  { keys: "a", what: "Approve the focused tool call and its tool for the rest of this session" },
  { keys: "?", what: "Show these shortcuts" },
];

/** The shortcuts dialog; Esc or Close closes it and focus returns to where it was. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    close.current?.focus();
    return () => before?.focus?.();
  }, []);
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onClose();
          }
        }}
      >
        <h2 id={titleId}>Keyboard shortcuts</h2>
        <table className="shortcuts">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.keys}>
                <th scope="row">
                  <kbd>{s.keys}</kbd>
                </th>
                <td>{s.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="actions">
          <button type="button" className="btn" ref={close} onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
