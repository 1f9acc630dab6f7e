import { describe, expect, it } from "vitest";
import type { ContextState, ErrorCode } from "../generated/protocol";
import { hintFor, indicatorFor } from "./indicator";

describe("indicatorFor", () => {
  const cases: [ContextState, string, string | undefined][] = [
    [{ type: "processing_user_message" }, "Processing your message…", "interrupt"],
    [{ type: "resolving_file_references", total: 2 }, "Resolving 2 file references…", "interrupt"],
    [{ type: "recognizing_images", total: 1 }, "Recognizing 1 image…", "interrupt"],
    [{ type: "enhancing_system_prompt" }, "Preparing the system prompt…", "interrupt"],
    [{ type: "optimizing_context" }, "Optimizing the history to fit the context window…", "interrupt"],
    [{ type: "preparing_llm_request" }, "Preparing the request…", "interrupt"],
    [{ type: "connecting_to_llm", attempt: 1 }, "Connecting to the model…", "interrupt"],
    [{ type: "connecting_to_llm", attempt: 3 }, "Connecting to the model (attempt 3)…", "interrupt"],
    [{ type: "connecting_to_llm", attempt: 2, reason: "connection refused", wait_ms: 1500 }, "Connecting to the model (attempt 2) in 1.5 s, after: connection refused…", "interrupt"],
    [{ type: "awaiting_llm_first_chunk" }, "Waiting for the model…", "interrupt"],
    [{ type: "streaming_llm_response", chunks: 12, chars: 340 }, "Streaming… 12 chunks, 340 characters", "interrupt"],
    [{ type: "processing_llm_response" }, "Processing the answer…", "interrupt"],
    [{ type: "parsing_tool_calls" }, "Reading the tool calls…", "interrupt"],
    [{ type: "tool_auto_loop", depth: 2, tools_executed: 5 }, "Auto-processing (round 2, 5 tools executed)", "interrupt"],
    [{ type: "awaiting_tool_approval", pending_requests: ["a", "b"], tool_names: ["read_file", "write_file"] }, "Awaiting your approval: read_file, write_file", "approve"],
    [{ type: "executing_tool", tool_name: "read_file", index: 2, total: 5, attempt: 1 }, "Executing tool 2/5: read_file", "interrupt"],
    [{ type: "executing_tool", tool_name: "grep", index: 1, total: 1, attempt: 2 }, "Executing tool 1/1: grep (attempt 2)", "interrupt"],
    [{ type: "collecting_tool_results" }, "Collecting the tool results…", "interrupt"],
    [{ type: "processing_tool_results" }, "Processing the tool results…", "interrupt"],
    [{ type: "awaiting_user_answer", question_id: "q" }, "Waiting for your answer to the question", "answer"],
    [{ type: "executing_workflow", workflow_name: "deploy", execution_id: "e", step: 2, total: 4 }, "Running workflow deploy: step 2 of 4", "interrupt"],
    [{ type: "paused", reason: "depth_limit", depth: 3, tools_executed: 7 }, "Paused after 3 rounds and 7 tools: the round limit was reached", "resume"],
    [{ type: "failed", error: "model down", recoverable: true }, "Failed: model down. Resume or send a message to try again.", "retry"],
    [{ type: "failed", error: "corrupt", recoverable: false }, "Failed: corrupt", undefined],
  ];
  it.each(cases)("%j shows its label and action", (state, label, action) => {
    const ind = indicatorFor(state);
    expect(ind?.label).toBe(label);
    expect(ind?.action).toBe(action);
  });

  it("shows nothing when idle", () => {
    expect(indicatorFor({ type: "idle" })).toBeNull();
  });

  it("uses the streaming tone while streaming and the waiting tone for approvals", () => {
    expect(indicatorFor({ type: "streaming_llm_response", chunks: 1, chars: 1 })?.tone).toBe("streaming");
    expect(indicatorFor({ type: "awaiting_tool_approval", pending_requests: [], tool_names: [] })?.tone).toBe("waiting");
  });
});

describe("hintFor", () => {
  it("tells what to do for every code and falls back for unknown ones", () => {
    const codes: ErrorCode[] = ["llm_not_configured", "llm_unavailable", "unauthorized", "file_reference"];
    for (const c of codes) {
      expect(hintFor(c).length).toBeGreaterThan(10);
    }
    expect(hintFor("llm_not_configured")).toMatch(/BRAID_LLM_PROVIDER/);
    expect(hintFor("something_new")).toMatch(/server log/);
  });
});
