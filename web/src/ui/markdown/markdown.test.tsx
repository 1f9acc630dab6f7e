// Markdown as GitHub renders it, code blocks in one frame with language and copy, long pastes folded.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Collapsible, Markdown, isLong } from "./Markdown";

describe("Markdown", () => {
  it("renders a GFM table with its header and cells", () => {
    const { container } = render(<Markdown text={"| Approach | Unicode-safe |\n| --- | --- |\n| bytes | no |\n| chars | yes |\n"} />);
    const table = container.querySelector(".table-scroll > table") as HTMLTableElement;
    expect([...table.querySelectorAll("th")].map((th) => th.textContent)).toEqual(["Approach", "Unicode-safe"]);
    expect([...table.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))).toEqual([
      ["bytes", "no"],
      ["chars", "yes"],
    ]);
    expect(container.textContent).not.toContain("|");
  });

  it("renders task lists, strikethrough and autolinks", () => {
    const { container } = render(<Markdown text={"- [x] done\n- [ ] todo\n\n~~old~~ see https://example.com/x"} />);
    const boxes = [...container.querySelectorAll<HTMLInputElement>("li.task-list-item input[type=checkbox]")];
    expect(boxes.map((b) => b.checked)).toEqual([true, false]);
    expect(boxes.every((b) => b.disabled)).toBe(true);
    expect(container.querySelector("del")?.textContent).toBe("old");
    const link = container.querySelector("a") as HTMLAnchorElement;
    expect(link.href).toBe("https://example.com/x");
    expect(link.rel).toBe("noopener noreferrer");
  });

  it("renders footnotes, and the same text the same way in every message (extensions built once)", () => {
    const text = "A claim.[^1]\n\n[^1]: Its source.";
    const { container } = render(
      <>
        <Markdown text={text} />
        <Markdown text={text} />
      </>,
    );
    const notes = [...container.querySelectorAll("section[data-footnotes] li")].map((li) => li.textContent?.trim());
    expect(notes).toEqual(["Its source. ↩", "Its source. ↩"]);
    expect(container.querySelectorAll("sup a").length).toBe(2);
  });

  it("frames each code block once with its language and highlights it", () => {
    const { container } = render(<Markdown text={"```python\ndef f():\n    return 1\n```\n\n```\nplain\n```"} />);
    const frames = container.querySelectorAll("figure.code-block");
    expect(frames).toHaveLength(2);
    expect(frames[0]?.querySelector(".code-block-lang")?.textContent).toBe("python");
    expect(frames[0]?.querySelectorAll("pre")).toHaveLength(1);
    expect(frames[0]?.querySelector(".hljs-keyword")?.textContent).toBe("def");
    expect(frames[1]?.querySelector(".code-block-lang")?.textContent).toBe("text");
    expect(container.querySelectorAll("pre pre")).toHaveLength(0);
  });

  it("copies a block's source without highlighting", async () => {
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, "writeText");
    render(<Markdown text={"```rust\nfn main() {}\n```"} />);
    await user.click(screen.getByRole("button", { name: "Copy code" }));
    expect(writeText).toHaveBeenCalledWith("fn main() {}");
    await waitFor(() => expect(screen.getByRole("button", { name: "Copied" })).toBeTruthy());
  });

  it("keeps raw HTML out", () => {
    const { container } = render(<Markdown text={"<script>alert(1)</script><b>x</b>"} />);
    expect(container.querySelector("script, b")).toBeNull();
  });
});

describe("Collapsible", () => {
  const long = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n");

  it("folds a long paste and unfolds it on request", async () => {
    const { container } = render(
      <Collapsible text={long}>
        <p>{long}</p>
      </Collapsible>,
    );
    expect(container.querySelector(".collapsible.folded")).not.toBeNull();
    await userEvent.click(screen.getByRole("button", { name: /Show all 60 lines/ }));
    expect(container.querySelector(".collapsible.open")).not.toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Show less" }));
    expect(container.querySelector(".collapsible.folded")).not.toBeNull();
  });

  it("leaves short text alone", () => {
    const { container } = render(<Collapsible text="short">short</Collapsible>);
    expect(container.querySelector(".collapsible")).toBeNull();
    expect(isLong("x".repeat(2001))).toBe(true);
    expect(isLong("a\nb")).toBe(false);
  });
});
