import { describe, expect, it } from "vitest";
import { conversationReducer, initialConversation, optimizationFrom } from "./reducer";
import { optimizationText } from "../components/StatusBar";

describe("the last optimization report", () => {
  const metadata = {
    optimization: {
      strategy: "intelligent", tokens_before: 30_000, tokens_after: 7_800, limit: 8_000,
      dropped_count: 2, request_id: "r1", summarized: ["m3", "m4", "m5"],
      tools_withheld: { tools: 12, needed: 1_432, limit: 900 },
    },
  };

  it("is read from a context_update's metadata and kept until the next one", () => {
    const event = { type: "context_update", context_id: "c", current_state: { type: "preparing_llm_request" }, metadata } as const;
    const s = conversationReducer(initialConversation, { type: "event", received: { id: 1, event: event as never } });
    expect(s.optimization).toEqual({
      strategy: "intelligent", tokensBefore: 30_000, tokensAfter: 7_800, limit: 8_000, dropped: 2, summarized: 3,
      toolsWithheld: { tools: 12, needed: 1_432, limit: 900 },
    });
    const next = { type: "context_update", context_id: "c", current_state: { type: "idle" }, metadata: {} } as const;
    expect(conversationReducer(s, { type: "event", received: { id: 2, event: next as never } }).optimization).toEqual(s.optimization);
  });

  it("is said in words, and not at all when nothing was changed", () => {
    const text = optimizationText(optimizationFrom(metadata));
    expect(text).toMatch(/Last request optimized \(intelligent\): 30,000 → 7,800 tokens, 3 summarized, 2 left out\./);
    expect(text).toMatch(/Tools withheld: the window leaves 900 tokens .* 12 tool definitions need 1,432/);
    expect(optimizationText(optimizationFrom({ optimization: { tokens_before: 10, tokens_after: 10, dropped_count: 0 } }))).toBeUndefined();
    expect(optimizationFrom({ optimization: "nonsense" })).toBeUndefined();
  });

  it("counts the ids an event stored before the count named", () => {
    expect(optimizationFrom({ optimization: { dropped: ["m1", "m2", "m3"] } })?.dropped).toBe(3);
  });
});
