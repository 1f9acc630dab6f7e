// The TypeScript types openapi-typescript generates from the served document (generated/api.ts,
// made by scripts/clients.sh), used through openapi-fetch against a real `braid serve` with the
// mock model: create a context, send (with an Idempotency-Key), wait for the answer, list the
// messages. It type-checks only if the document's types fit these calls.
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/api.js";

type Message = components["schemas"]["Message"];
const RESTING = new Set(["idle", "failed", "paused", "awaiting_tool_approval", "awaiting_user_answer"]);

async function main(): Promise<void> {
  const baseUrl = process.env.BRAID_URL;
  if (!baseUrl) throw new Error("BRAID_URL is not set");
  const api = createClient<paths>({ baseUrl });
  const created = await api.POST("/v1/contexts", { body: { title: "typescript client" } });
  if (!created.data) throw new Error(`create: ${JSON.stringify(created.error)}`);
  const id = created.data.id;
  const payload: components["schemas"]["TextPayload"] = { type: "text", text: "Hello?" };
  const sent = await api.POST("/v1/contexts/{id}/messages", {
    params: { path: { id }, header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { payload },
  });
  if (!sent.data) throw new Error(`send: ${JSON.stringify(sent.error)}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await api.GET("/v1/contexts/{id}/state", { params: { path: { id } } });
    if (!state.data) throw new Error(`state: ${JSON.stringify(state.error)}`);
    if (RESTING.has(state.data.state.type)) break;
    if (Date.now() > deadline) throw new Error(`no rest: ${state.data.state.type}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const listed = await api.GET("/v1/contexts/{id}/messages", { params: { path: { id } } });
  if (!listed.data) throw new Error(`list: ${JSON.stringify(listed.error)}`);
  const messages: Message[] = listed.data.messages;
  const last = messages[messages.length - 1];
  if (last?.kind !== "text") throw new Error(`last message: ${JSON.stringify(last)}`);
  const answer = last.data.parts.map((p) => ("text" in p ? p.text : "")).join("");
  if (answer !== "Hello from the mock.") throw new Error(`answer: ${answer}`);
  if (messages[0]?.id !== sent.data.message_id) throw new Error("the first message is not the one sent");
  console.log(`clients: the generated TypeScript types created, sent, read the answer (${JSON.stringify(answer)}) and listed ${messages.length} messages`);
}

await main();
