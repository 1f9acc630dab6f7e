// The SDK against a real `braid serve` with the mock model (BRAID_URL; run by scripts/clients.sh):
// a send's turn waited for, its events streamed through a proxy that drops the connection
// (reconnected with Last-Event-ID: no gap, no duplicate), messages paged back, the README example.
import net from "node:net";
import { Braid, BraidError } from "./index.js";

/** A TCP proxy to the server whose open connections can be cut, as a network drop would. */
class CuttableProxy {
  private readonly open = new Set<net.Socket>();
  connections = 0;
  private readonly server: net.Server;

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      this.connections += 1;
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.open.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => this.open.delete(socket));
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve) => this.server.listen(port, "127.0.0.1", resolve));
  }

  cut(): void {
    for (const socket of this.open) socket.destroy();
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

async function main(): Promise<void> {
  const url = process.env.BRAID_URL;
  const proxyPort = Number(process.env.BRAID_PROXY_PORT);
  if (!url || !proxyPort) throw new Error("BRAID_URL and BRAID_PROXY_PORT must be set");
  const braid = new Braid(url);

  // A turn: waited for, and every event of it carries its id.
  const ctx = await braid.createContext({ title: "typescript sdk" });
  const sent = await braid.send(ctx.id, "hello");
  const turn = await braid.waitTurn(ctx.id, sent.turn_id);
  check(turn.status === "completed" && turn.outcome === "answered", `turn: ${JSON.stringify(turn)}`);
  check(turn.message_id === sent.message_id, "the turn names the message sent");

  // The stream through a proxy that drops it after three events, while a second turn runs.
  const upstream = new URL(url);
  const proxy = new CuttableProxy({ host: upstream.hostname, port: Number(upstream.port) });
  await proxy.listen(proxyPort);
  const through = new Braid(`http://127.0.0.1:${proxyPort}`);
  const ids: number[] = [];
  let second: string | undefined;
  const stop = new AbortController();
  for await (const event of through.stream(ctx.id, { after: 0, reconnectDelayMs: 50, signal: stop.signal })) {
    if (event.id === undefined) continue;
    ids.push(event.id);
    if (ids.length === 3) {
      proxy.cut();
      second = (await braid.send(ctx.id, "again")).turn_id;
    }
    if (event.name === "turn_completed" && second !== undefined && event.data.turn_id === second) break;
  }
  stop.abort();
  proxy.close();
  check(ids[0] === 1, `the stream starts at the first event: ${ids[0]}`);
  check(ids.every((id, i) => id === ids[0] + i), `no gap and no duplicate: ${ids.join(",")}`);
  check(proxy.connections >= 2, "the stream reconnected");

  // Messages paged back from the end.
  const every = (await braid.messages(ctx.id)).messages.map((m) => m.id);
  check(every.length === 4, `four messages: ${every.length}`);
  const back = await braid.messages(ctx.id, { before: every[3], limit: 2 });
  check(back.messages.map((m) => m.id).join() === every.slice(1, 3).join(), "the newest two before the last");
  check(back.next_before === every[1], "older messages remain");

  // A workflow run is a turn (scripts/clients.sh puts `greet`, a prompt then an approval step,
  // in the workspace); resuming it past the approval is another.
  const flow = await braid.createContext({ title: "typescript workflow" });
  const started = await braid.runWorkflow(flow.id, "greet", { who: "Ada" });
  const waiting = await braid.waitTurn(flow.id, started.turn_id);
  check(waiting.outcome === "awaiting_approval", `the run waits at its approval: ${JSON.stringify(waiting)}`);
  check(waiting.message_id === started.message_id, "the run's turn names its message");
  const resumed = await braid.resumeWorkflow(flow.id, started.execution_id);
  check(resumed.turn_id !== started.turn_id, "the resume is a turn of its own");
  const finished = await braid.waitTurn(flow.id, resumed.turn_id);
  check(finished.outcome === "answered", `the resumed run completes: ${JSON.stringify(finished)}`);

  // The server's refusal is a BraidError naming the field.
  try {
    await braid.createContext({ config: { worksapce: "/nowhere" } as never });
    throw new Error("a misspelled field was accepted");
  } catch (e) {
    check(e instanceof BraidError && e.status === 422 && e.field === "config.worksapce", `refusal: ${e}`);
  }
  console.log(
    `clients: the TypeScript SDK waited for a turn (${turn.outcome}) and a workflow run's (${waiting.outcome}, then ${finished.outcome}), streamed ${ids.length} events across ${proxy.connections} connections without gap or duplicate, and paged messages back`,
  );
}

await main();
