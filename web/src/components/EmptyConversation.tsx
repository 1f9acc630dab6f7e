// A new conversation's first screen: what Braid can do here and a few prompts to start from,
// each sent with one click; where it works (the workspace) or how to give it one.

/** Prompts a person can start from; each shows a different thing Braid does. */
export const EXAMPLE_PROMPTS: readonly { title: string; text: string }[] = [
  { title: "Get to know the project", text: "Give me an overview of this project: its structure, main parts and how to build it." },
  { title: "Find something", text: "Where is the entry point of this program, and what does it do first?" },
  { title: "Plan a change", text: "Plan how to add a --verbose flag, step by step, before changing anything." },
  { title: "Fix a test", text: "Run the tests, and if one fails, find out why and propose a fix." },
];

/** The empty state of conversation with no messages yet. */
export function EmptyConversation({ workspace, onPick, onSettings }: { workspace: string | undefined; onPick: (text: string) => void; onSettings: () => void }) {
  return (
    <li className="empty-state" aria-label="Start here">
      <h2>What can Braid do for you?</h2>
      <p className="muted">
        It reads and searches your code, runs commands and edits files, asking before anything that changes your project. Branch
        any answer to try another way; plan first in plan mode.
      </p>
      <p className="empty-workspace">
        {workspace ? (
          <>
            Working in <code>{workspace}</code>.
          </>
        ) : (
          <>
            No workspace yet: file and command tools need one.{" "}
            <button type="button" className="btn btn-link" onClick={onSettings}>
              Set it in Settings
            </button>
          </>
        )}
      </p>
      <ul className="example-prompts" aria-label="Example prompts">
        {EXAMPLE_PROMPTS.map((p) => (
          <li key={p.title}>
            <button type="button" className="example-prompt" onClick={() => onPick(p.text)}>
              <strong>{p.title}</strong>
              <span className="muted">{p.text}</span>
            </button>
          </li>
        ))}
      </ul>
    </li>
  );
}
