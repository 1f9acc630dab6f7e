import { describe, expect, it } from "vitest";
import type { CompactionRecord } from "../generated/protocol";
import type { ModelRequestRecord } from "../api/client";
import { compactionHeadline } from "./NoticeCards";
import { sentAsText, tokenParts } from "./ModelSaw";
import { mergedFrom } from "./MessageView";
import { msg } from "../test/fixtures";

const record: CompactionRecord = {
  strategy: "intelligent",
  tokens_before: 38_400,
  tokens_after: 9_100,
  limit: 10_000,
  duration_ms: 12,
  dropped: ["d1", "d2", "d3", "d4"],
  summarized: Array.from({ length: 12 }, (_, i) => `s${i}`),
};

describe("compaction", () => {
  it("words its headline as the server does", () => {
    expect(compactionHeadline(record)).toBe("38,400 -> 9,100 tokens, 12 messages summarized, 4 dropped");
    expect(compactionHeadline({ ...record, summarized: [], dropped: [], elided: ["e1", "e2"] })).toBe("38,400 -> 9,100 tokens, 2 tool outputs elided");
  });
});

describe("what the model saw", () => {
  const request: ModelRequestRecord = {
    id: "r1",
    branch: "main",
    created_at: "2026-11-27T00:00:00Z",
    model: "mock",
    encoding: "o200k_base",
    budget: { window: 8192, reserve_output: 512, margin: 64, limit: 7616 },
    tokens: 1000,
    calibrated_tokens: 1000,
    system_prompt_tokens: 300,
    tools: { names: ["read_file"], tokens: 200 },
    ledger: { tokens: 100, listed: 3, collapsed: 0, text: "- read: a.rs" },
    messages: [
      { id: "m1", sent_as: { type: "summary", replaces: ["a", "b"] }, tokens: 150 },
      { id: "m2", sent_as: { type: "elided", tokens_before: 2000 }, tokens: 50 },
      { id: "m3", sent_as: { type: "whole" }, tokens: 200 },
    ],
    dropped: ["x"],
  };
  it("splits the tokens by part", () => {
    expect(tokenParts(request)).toEqual([
      { name: "System prompt", tokens: 300 },
      { name: "Tools", tokens: 200 },
      { name: "Ledger", tokens: 100 },
      { name: "Messages", tokens: 400 },
    ]);
    expect(tokenParts({ ...request, ledger: null })[2]).toEqual({ name: "Ledger", tokens: 0 });
  });
  it("says how each message was sent", () => {
    expect(request.messages.map(sentAsText)).toEqual(["summary standing in for 2 messages", "output elided (2,000 tokens whole)", "whole"]);
  });
});

describe("a summary merge's marked message", () => {
  it("names the branch and the count it stands for, and nothing for other messages", () => {
    const text = { parts: [{ type: "text" as const, text: "Conclusions of branch `explore`" }] };
    expect(mergedFrom(msg("m1", "text", text, { metadata: { merged_from: { branch: "explore", from: "a", to: "b", count: 30 } } }))).toEqual({ branch: "explore", count: 30 });
    expect(mergedFrom(msg("m2", "text", text))).toBeNull();
  });
});
