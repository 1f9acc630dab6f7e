// Edit and Regenerate through the App: each creates a branch before the message (keeping the
// active branch's system prompt) and activates it; Edit sends the edited text there, Regenerate
// has the model answer the question again.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "../App";
import { FakeServer, summary } from "../test/server";
import { textMsg } from "../test/fixtures";

const T = "2026-11-22T05:00:00Z";
let server: FakeServer;

beforeEach(() => {
  server = new FakeServer();
  server.contexts = [summary("c1", "Edits")];
  server.branches.c1 = {
    active: "alt",
    branches: [
      { name: "main", message_count: 2, created_at: T },
      { name: "alt", message_count: 2, parent: "main", created_at: T, system_prompt: "Be terse." },
      { name: "edit-1", message_count: 0, parent: "main", created_at: T },
    ],
  };
  server.messages.c1 = [textMsg("m1", "Hello there", { role: "user" }), textMsg("a1", "General Kenobi.")];
  window.history.replaceState(null, "", "/contexts/c1");
});
afterEach(() => {
  window.history.replaceState(null, "", "/");
});

const posts = () => server.requests.filter((r) => r.method === "POST").map((r) => [r.path, r.body]);

describe("edit and regenerate", () => {
  it("puts an edited message on a new branch before it, keeping the branch's system prompt, and sends it", async () => {
    render(<App api={server.api} />);
    await screen.findByText("General Kenobi.");
    await userEvent.click(screen.getByRole("button", { name: "Edit message" }));
    const box = screen.getByLabelText("Edited message");
    await userEvent.clear(box);
    await userEvent.type(box, "Hello again{Enter}");
    await waitFor(() =>
      expect(posts()).toEqual([
        ["/v1/contexts/c1/branches", { name: "edit-2", before_message: "m1", system_prompt: "Be terse." }],
        ["/v1/contexts/c1/branches/edit-2/activate", undefined],
        ["/v1/contexts/c1/messages", { payload: { type: "text", text: "Hello again" } }],
      ]),
    );
  });

  it("answers the same question again on a new branch from before the answer, without sending it again", async () => {
    render(<App api={server.api} />);
    await screen.findByText("General Kenobi.");
    await userEvent.click(screen.getByRole("button", { name: "Regenerate" }));
    await waitFor(() =>
      expect(posts()).toEqual([
        ["/v1/contexts/c1/branches", { name: "regenerate-1", before_message: "a1", system_prompt: "Be terse." }],
        ["/v1/contexts/c1/branches/regenerate-1/activate", undefined],
        ["/v1/contexts/c1/resume", undefined],
      ]),
    );
  });
});
