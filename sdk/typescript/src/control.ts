// Approvals and resume through the SDK, against a real `braid serve` (BRAID_CONTROL_URL) whose
// mock model follows a script made for these checks, in this order (scripts/clients.sh writes
// it): a `read_file` call, the answer after it; another `read_file` call, the answer after its
// denial; two rounds of calls (the second over the depth limit: the loop pauses), the answer
// after the resume; a slow answer, interrupted.
import { Braid } from "./index.js";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** The calls waiting for a decision, each as `id:tool`. */
async function pending(braid: Braid, id: string): Promise<string[]> {
  const state = (await braid.state(id)).state;
  if (state.type !== "awaiting_tool_approval") return [];
  return state.pending_requests.map((call, i) => `${call}:${state.tool_names[i]}`);
}

/** The context's tool results, as JSON, oldest first. */
async function toolResults(braid: Braid, id: string): Promise<string[]> {
  const { messages } = await braid.messages(id);
  return messages.filter((m) => m.kind === "tool_result").map((m) => JSON.stringify(m.data));
}

async function approveACall(braid: Braid): Promise<void> {
  const ctx = await braid.createContext({ title: "approve", config: { approval_policy: { type: "manual" } } });
  const sent = await braid.send(ctx.id, "Read my notes.");
  const waiting = await braid.waitTurn(ctx.id, sent.turn_id);
  check(waiting.outcome === "awaiting_approval", `the turn waits for approval: ${JSON.stringify(waiting)}`);
  check((await pending(braid, ctx.id)).join() === "call_notes:read_file", "the call waits");
  const approved = await braid.approve(ctx.id, ["call_notes"]);
  check(approved.turn_id !== undefined && approved.turn_id !== sent.turn_id, `a new turn: ${JSON.stringify(approved)}`);
  const done = await braid.waitTurn(ctx.id, approved.turn_id as string);
  check(done.status === "completed" && done.outcome === "answered", `approved turn: ${JSON.stringify(done)}`);
  check((await braid.state(ctx.id)).state.type === "idle", "the context rests");
  const results = await toolResults(braid, ctx.id);
  check(results.length === 1 && results[0].includes("hello from the notes"), `the approved call ran: ${results}`);
}

async function denyACall(braid: Braid): Promise<void> {
  const ctx = await braid.createContext({ title: "deny", config: { approval_policy: { type: "manual" } } });
  const sent = await braid.send(ctx.id, "Read the secret.");
  check((await braid.waitTurn(ctx.id, sent.turn_id)).outcome === "awaiting_approval", "the turn waits");
  check((await pending(braid, ctx.id)).join() === "call_secret:read_file", "the call waits");
  const denied = await braid.deny(ctx.id, ["call_secret"], "not that file");
  check(denied.turn_id !== undefined, `the denial names the turn that goes on: ${JSON.stringify(denied)}`);
  const done = await braid.waitTurn(ctx.id, denied.turn_id as string);
  check(done.outcome === "answered", `denied turn: ${JSON.stringify(done)}`);
  const results = await toolResults(braid, ctx.id);
  check(results.length === 1 && results[0].includes("not that file"), `the model is told why: ${results}`);
  check(!results[0].includes("top secret"), "the denied call did not run");
}

async function resumeAPausedContext(braid: Braid): Promise<void> {
  const policy = { type: "limited_auto" as const, max_depth: 1 };
  const ctx = await braid.createContext({ title: "resume", config: { approval_policy: policy } });
  const sent = await braid.send(ctx.id, "Read the notes twice.");
  const stopped = await braid.waitTurn(ctx.id, sent.turn_id);
  check(stopped.outcome === "paused", `the second round is over the depth limit: ${JSON.stringify(stopped)}`);
  check((await braid.state(ctx.id)).state.type === "paused", "the context is paused");
  check((await toolResults(braid, ctx.id)).length === 1, "the second round's call waits");
  const resumed = await braid.resume(ctx.id);
  check(resumed.turn_id !== sent.turn_id, "the resume runs a turn of its own");
  const done = await braid.waitTurn(ctx.id, resumed.turn_id);
  check(done.outcome === "answered", `resumed turn: ${JSON.stringify(done)}`);
  check((await toolResults(braid, ctx.id)).length === 2, "the resume ran the waiting call");
  const { messages } = await braid.messages(ctx.id);
  const last = messages[messages.length - 1];
  const text = last.kind === "text" ? last.data.parts.map((p) => (p.type === "text" ? p.text : "")).join("") : "";
  check(text === "Resumed where I stopped.", `the answer after the resume: ${JSON.stringify(last)}`);
}

async function interruptAStreamingAnswer(braid: Braid): Promise<void> {
  const ctx = await braid.createContext({ title: "interrupt" });
  const sent = await braid.send(ctx.id, "Talk slowly.");
  const stop = new AbortController();
  for await (const event of braid.stream(ctx.id, { after: sent.stream_after ?? undefined, signal: stop.signal })) {
    if (event.name === "content_delta") break;
  }
  stop.abort();
  await braid.interrupt(ctx.id);
  const stopped = await braid.waitTurn(ctx.id, sent.turn_id);
  check(stopped.outcome === "interrupted", `interrupted turn: ${JSON.stringify(stopped)}`);
}

async function main(): Promise<void> {
  const url = process.env.BRAID_CONTROL_URL;
  if (!url) throw new Error("BRAID_CONTROL_URL must be set");
  const braid = new Braid(url);
  await approveACall(braid);
  await denyACall(braid);
  await resumeAPausedContext(braid);
  await interruptAStreamingAnswer(braid);
  console.log(
    "clients: the TypeScript SDK approved a call, denied one, resumed a paused context (each waited to its turn's end) and interrupted an answer",
  );
}

await main();
