// What the UI shows for each `ContextState`, and what a person can do about each error code.
// Both are exhaustive over the generated unions, so a new state or code fails the typecheck
// until it has words here.

import type { ContextState, ErrorCode, LoopStopReason } from "../generated/protocol";

/** How an indicator looks. */
export type IndicatorTone = "busy" | "streaming" | "waiting" | "paused" | "error";

/** What the person can do from the indicator. */
export type IndicatorAction = "interrupt" | "approve" | "answer" | "resume" | "retry";

/** The status line for one state. */
export interface Indicator {
  /** The look: a spinner, a streaming animation, a call to act, a warning. */
  tone: IndicatorTone;
  /** The words, e.g. `Executing tool 2/5: read_file`. */
  label: string;
  /** What the person can do now, if anything. */
  action?: IndicatorAction;
}

const STOP_REASONS: Record<LoopStopReason, string> = {
  depth_limit: "the round limit was reached",
  timeout: "an iteration took too long",
  interrupted: "you interrupted it",
  cycle_detected: "the same call kept repeating",
};

/** Words for why a tool loop stopped. */
export function stopReasonText(reason: LoopStopReason): string {
  return STOP_REASONS[reason];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The indicator for a state; `null` when idle (nothing to show). */
export function indicatorFor(state: ContextState): Indicator | null {
  switch (state.type) {
    case "idle":
      return null;
    case "processing_user_message":
      return { tone: "busy", label: "Processing your message…", action: "interrupt" };
    case "resolving_file_references":
      return { tone: "busy", label: `Resolving ${plural(state.total, "file reference")}…`, action: "interrupt" };
    case "recognizing_images":
      return { tone: "busy", label: `Recognizing ${plural(state.total, "image")}…`, action: "interrupt" };
    case "enhancing_system_prompt":
      return { tone: "busy", label: "Preparing the system prompt…", action: "interrupt" };
    case "optimizing_context":
      return { tone: "busy", label: "Optimizing the history to fit the context window…", action: "interrupt" };
    case "preparing_llm_request":
      return { tone: "busy", label: "Preparing the request…", action: "interrupt" };
    case "connecting_to_llm":
      return {
        tone: "busy",
        label: connectingLabel(state.attempt, state.reason, state.wait_ms),
        action: "interrupt",
      };
    case "awaiting_llm_first_chunk":
      return { tone: "busy", label: "Waiting for the model…", action: "interrupt" };
    case "streaming_llm_response":
      return {
        tone: "streaming",
        label: `Streaming… ${plural(state.chunks, "chunk")}, ${plural(state.chars, "character")}`,
        action: "interrupt",
      };
    case "processing_llm_response":
      return { tone: "busy", label: "Processing the answer…", action: "interrupt" };
    case "parsing_tool_calls":
      return { tone: "busy", label: "Reading the tool calls…", action: "interrupt" };
    case "tool_auto_loop":
      return {
        tone: "busy",
        label: `Auto-processing (round ${state.depth}, ${plural(state.tools_executed, "tool")} executed)`,
        action: "interrupt",
      };
    case "awaiting_tool_approval":
      return {
        tone: "waiting",
        label: `Awaiting your approval: ${state.tool_names.join(", ") || plural(state.pending_requests.length, "call")}`,
        action: "approve",
      };
    case "executing_tool":
      return {
        tone: "busy",
        label:
          `Executing tool ${state.index}/${state.total}: ${state.tool_name}` +
          (state.attempt > 1 ? ` (attempt ${state.attempt})` : ""),
        action: "interrupt",
      };
    case "collecting_tool_results":
      return { tone: "busy", label: "Collecting the tool results…", action: "interrupt" };
    case "processing_tool_results":
      return { tone: "busy", label: "Processing the tool results…", action: "interrupt" };
    case "awaiting_user_answer":
      return { tone: "waiting", label: "Waiting for your answer to the question", action: "answer" };
    case "executing_workflow":
      return {
        tone: "busy",
        label: `Running workflow ${state.workflow_name}: step ${state.step} of ${state.total}`,
        action: "interrupt",
      };
    case "paused":
      return {
        tone: "paused",
        label: `Paused after ${plural(state.depth, "round")} and ${plural(state.tools_executed, "tool")}: ${stopReasonText(state.reason)}`,
        action: "resume",
      };
    case "failed":
      return {
        tone: "error",
        label: state.recoverable
          ? `Failed: ${state.error}. Resume or send a message to try again.`
          : `Failed: ${state.error}`,
        ...(state.recoverable ? { action: "retry" as const } : {}),
      };
    default:
      return unknownState(state);
  }
}

function unknownState(state: never): Indicator {
  // A state this build does not know (a newer server): show its name rather than nothing.
  const type = (state as { type?: unknown }).type;
  console.warn("braid: unknown context state", state);
  return { tone: "busy", label: `Working (${String(type)})…` };
}

const HINTS: Record<ErrorCode, string> = {
  llm_not_configured: "No model is configured: set BRAID_LLM_PROVIDER and BRAID_MODEL (or braid.toml) and restart the server.",
  llm_unavailable: "The model server could not be reached. Check that it is running, then send again.",
  llm_rejected: "The model refused the request. Check the model name in this context's settings and the API key.",
  stream_interrupted: "The answer was cut off; what arrived is kept. Send again or resume to retry.",
  tool_failed: "A tool failed and the model was told. Resume to let it continue, or send a message.",
  timeout: "It took too long. Resume to continue, or raise the tool timeout in settings.",
  invalid_input: "Fix the input named in the message and send again.",
  file_reference: "Check the file path and line range, and that the workspace is set in settings.",
  image_recognition: "Check the image (PNG, JPEG, GIF or WebP, inside the workspace), or install what the message names, then press Retry on the image.",
  storage_failed: "The server could not save. Check its disk and log; nothing already saved is lost.",
  not_found: "It no longer exists. Reload the page.",
  conflict: "Something changed meanwhile. Reload and try again.",
  unauthorized: "The server needs an API token: open the UI once as /#token=<BRAID_API_TOKEN>.",
  forbidden: "The server refused this page's address: open the UI at the address braid serve prints (or list this host with --allowed-host).",
  unsupported_media_type: "The server accepts only JSON request bodies.",
  payload_too_large: "That is too large for the server (10 MiB a request and 1 MiB of message text by default). Send something smaller.",
  method_not_allowed: "This version of the UI called the server in a way it does not accept. Reload the page; if it stays, the UI and server versions differ.",
  internal: "An internal error. The server log has the details.",
  interrupted: "You stopped it before the model was asked. Retry the message to send it again, or delete it.",
  resume_point_unknown: "The server's history no longer matches what this page had seen (its data was restored); the conversation was reloaded.",
};

const CLIENT_HINTS: Record<string, string> = {
  network_error: "The server did not answer. Check that `braid serve` is running, then try again.",
  bad_response: "The server answered something unexpected. Check its version and log.",
};

/** What the person can do about an error with this code (a server code or a client failure). */
export function hintFor(code: string): string {
  return (HINTS as Record<string, string>)[code] ?? CLIENT_HINTS[code] ?? "Try again; if it persists, see the server log.";
}

/** What connecting says: on a retry, the attempt, the wait before it and why the previous one failed. */
export function connectingLabel(attempt: number, reason?: string, waitMs?: number): string {
  if (attempt <= 1) return "Connecting to the model…";
  const wait = waitMs === undefined ? "" : ` in ${(waitMs / 1000).toFixed(1)} s`;
  const why = reason ? `, after: ${reason}` : "";
  return `Connecting to the model (attempt ${attempt})${wait}${why}…`;
}
