import { describe, expect, it } from "vitest";
import { exactTime, relativeTime, shortDuration } from "./time";

describe("message times", () => {
  const at = new Date("2026-11-22T05:00:00Z");
  const later = (s: number) => at.getTime() + s * 1000;
  it("says how long ago, coarser as time passes", () => {
    expect(relativeTime(at, later(10))).toBe("just now");
    expect(relativeTime(at, later(5 * 60))).toBe("5 min ago");
    expect(relativeTime(at, later(3 * 3600))).toBe("3 h ago");
    expect(relativeTime(at, later(26 * 3600))).toBe("yesterday");
    expect(relativeTime(at, later(4 * 86400))).toBe("4 days ago");
    expect(relativeTime(at, later(40 * 86400))).toMatch(/2026/);
  });
  it("writes the exact time as the browser's full date and time, and a bad one as invalid", () => {
    expect(exactTime(at)).toBe(at.toLocaleString(undefined, { dateStyle: "full", timeStyle: "medium" }));
    expect(exactTime(new Date("not a date"))).toBe("Invalid Date");
  });
  it("writes durations short", () => {
    expect(shortDuration(850)).toBe("850 ms");
    expect(shortDuration(4200)).toBe("4.2 s");
    expect(shortDuration(125_000)).toBe("2 min 5 s");
  });
});
