// Following the list: stays at the bottom while following; after scrolling up, new content shows
// "↓ latest" instead of moving; the button (or a send) goes back down.
import { describe, expect, it } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { LatestButton, useFollowList } from "./follow";

/** A list whose layout jsdom cannot compute: its heights are set by the test. */
function Harness({ content, reset = "c1" }: { content: number; reset?: string }) {
  const list = useRef<HTMLOListElement>(null);
  const scroll = useFollowList(list, [content], reset);
  return (
    <>
      <ol aria-label="list" ref={list} onScroll={scroll.onScroll} />
      <LatestButton shown={scroll.behind} onClick={scroll.toLatest} />
      <span data-testid="following">{String(scroll.follow.isFollowing())}</span>
    </>
  );
}

function sized(el: HTMLElement, scrollHeight: number, clientHeight = 100) {
  Object.defineProperty(el, "scrollHeight", { configurable: true, value: scrollHeight });
  Object.defineProperty(el, "clientHeight", { configurable: true, value: clientHeight });
}

describe("following the list", () => {
  it("keeps to the bottom while the person has not scrolled up", () => {
    const { rerender } = render(<Harness content={1} />);
    const el = screen.getByLabelText("list");
    sized(el, 1000);
    rerender(<Harness content={2} />);
    expect(el.scrollTop).toBe(1000);
    expect(screen.queryByRole("button", { name: "↓ latest" })).toBeNull();
  });

  it("shows ↓ latest for new content after the person scrolled up, and goes down on click", () => {
    const { rerender } = render(<Harness content={1} />);
    const el = screen.getByLabelText("list");
    sized(el, 1000);
    el.scrollTop = 200;
    fireEvent.scroll(el);
    sized(el, 1400);
    rerender(<Harness content={2} />);
    expect(el.scrollTop).toBe(200);
    act(() => screen.getByRole("button", { name: "↓ latest" }).click());
    expect(el.scrollTop).toBe(1400);
    expect(screen.queryByRole("button", { name: "↓ latest" })).toBeNull();
  });

  it("hides the button once the person scrolls back down themselves", () => {
    const { rerender } = render(<Harness content={1} />);
    const el = screen.getByLabelText("list");
    sized(el, 1000);
    el.scrollTop = 0;
    fireEvent.scroll(el);
    rerender(<Harness content={2} />);
    expect(screen.getByRole("button", { name: "↓ latest" })).toBeTruthy();
    el.scrollTop = 890;
    fireEvent.scroll(el);
    expect(screen.queryByRole("button", { name: "↓ latest" })).toBeNull();
  });

  it("follows again in another conversation", () => {
    const { rerender } = render(<Harness content={1} />);
    const el = screen.getByLabelText("list");
    sized(el, 1000);
    el.scrollTop = 0;
    fireEvent.scroll(el);
    rerender(<Harness content={1} reset="c2" />);
    rerender(<Harness content={2} reset="c2" />);
    expect(el.scrollTop).toBe(1000);
  });
});
