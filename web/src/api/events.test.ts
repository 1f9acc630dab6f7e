import { describe, expect, it, vi } from "vitest";
import { EventStream, SseParser, toContextEvent, type ReceivedEvent, type StreamStatus } from "./events";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(enc.encode(c));
      controller.close();
    },
  });
}

/**
 * A server that answers each connection with the next body, then refuses; the stream given to
 * `closeWhenDone` is closed once the bodies run out.
 */
function connections(bodies: string[][]) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  let stream: EventStream | undefined;
  const fetchImpl = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), headers: { ...(init?.headers as Record<string, string>) } });
    const body = bodies.shift();
    if (!body) {
      stream?.close();
      throw new Error("closed");
    }
    return new Response(streamOf(body), { status: 200, headers: { "Content-Type": "text/event-stream" } });
  });
  return {
    calls,
    fetch: fetchImpl as unknown as typeof fetch,
    closeWhenDone: (s: EventStream) => {
      stream = s;
    },
  };
}

describe("SseParser", () => {
  it("parses named events with ids across arbitrary chunk boundaries", () => {
    const p = new SseParser();
    const text = 'id: 1\nevent: content_delta\ndata: {"a":1}\n\n: comment\r\nid: 2\r\nevent: heartbeat\r\ndata: {}\r\n\r\n';
    const out = [];
    for (let i = 0; i < text.length; i += 3) out.push(...p.push(text.slice(i, i + 3)));
    expect(out).toEqual([
      { event: "content_delta", data: '{"a":1}', id: "1", retry: undefined },
      { event: "heartbeat", data: "{}", id: "2", retry: undefined },
    ]);
  });

  it("joins multi-line data and reads retry", () => {
    const p = new SseParser();
    expect(p.push("retry: 250\ndata: a\ndata: b\n\n")).toEqual([{ event: "message", data: "a\nb", id: undefined, retry: 250 }]);
  });

  it("refuses a line longer than its bound instead of buffering it", () => {
    const p = new SseParser(64);
    expect(() => p.push(`data: ${"x".repeat(100)}`)).toThrow(/malformed/);
    expect(() => p.push("\n\n")).toThrow(/malformed/);
  });
});

describe("toContextEvent", () => {
  it("tags the data with the event name and reads the id as a number", () => {
    const r = toContextEvent({ event: "content_final", data: '{"context_id":"c","message_id":"m","sequence":3,"is_final":true}', id: "17", retry: undefined });
    expect(r).toEqual({ id: 17, event: { type: "content_final", context_id: "c", message_id: "m", sequence: 3, is_final: true } });
  });

  it("names what is wrong with a bad event", () => {
    expect(toContextEvent({ event: "nope", data: "{}", id: undefined, retry: undefined })).toMatch(/unknown event name "nope"/);
    expect(toContextEvent({ event: "error", data: "{oops", id: undefined, retry: undefined })).toMatch(/not JSON/);
  });
});

describe("EventStream", () => {
  it("reconnects after a drop with Last-Event-ID and delivers every event once", async () => {
    const server = connections([
      ['id: 1\nevent: content_delta\ndata: {"context_id":"c","message_id":"m","sequence":1,"delta":"a","is_final":false}\n\n',
       'id: 2\nevent: content_delta\ndata: {"context_id":"c","message_id":"m","sequence":2,"delta":"b","is_final":false}\n\n'],
      ['id: 3\nevent: content_final\ndata: {"context_id":"c","message_id":"m","sequence":2,"is_final":true}\n\n'],
    ]);
    const calls = server.calls;
    const events: ReceivedEvent[] = [];
    const statuses: StreamStatus["type"][] = [];
    const stream = new EventStream({
      url: "/v1/contexts/c/events",
      fetch: server.fetch,
      onEvent: (e) => events.push(e),
      onStatus: (s) => statuses.push(s.type),
      sleep: async () => {},
    });
    server.closeWhenDone(stream);
    await stream.done;
    expect(events.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(calls[0]?.headers["Last-Event-ID"]).toBeUndefined();
    expect(calls[1]?.headers["Last-Event-ID"]).toBe("2");
    expect(calls[2]?.headers["Last-Event-ID"]).toBe("3");
    expect(statuses).toContain("reconnecting");
    expect(statuses.at(-1)).toBe("closed");
  });

  it("forgets a resume id the server cannot place, so the next reconnect starts afresh", async () => {
    const server = connections([
      ['id: 40\nevent: content_delta\ndata: {"context_id":"c","message_id":"m","sequence":1,"delta":"a","is_final":false}\n\n'],
      ['event: error\ndata: {"context_id":"c","code":"resume_point_unknown","message":"event 40 is not in the log (it ends at 7)","recoverable":true}\n\n'],
      [],
    ]);
    const events: ReceivedEvent[] = [];
    const stream = new EventStream({
      url: "/v1/contexts/c/events",
      fetch: server.fetch,
      onEvent: (e) => events.push(e),
      sleep: async () => {},
    });
    server.closeWhenDone(stream);
    await stream.done;
    expect(events.map((e) => e.event.type)).toEqual(["content_delta", "error"]);
    expect(server.calls[1]?.headers["Last-Event-ID"]).toBe("40");
    expect(server.calls[2]?.headers["Last-Event-ID"]).toBeUndefined();
    expect(stream.lastEventId).toBeUndefined();
  });

  it("replays from ?after= on the first connection when asked", async () => {
    const urls: string[] = [];
    const stream = new EventStream({
      url: "/v1/contexts/c/events",
      after: 0,
      fetch: (async (url: string) => {
        urls.push(url);
        return new Response("not found", { status: 404 });
      }) as unknown as typeof fetch,
      onEvent: () => {},
      sleep: async () => {},
    });
    await stream.done;
    expect(urls).toEqual(["/v1/contexts/c/events?after=0"]);
  });

  it("stops on a 4xx answer instead of retrying, and retries a 5xx", async () => {
    const answers = [503, 401];
    const statuses: StreamStatus[] = [];
    const stream = new EventStream({
      url: "/e",
      fetch: (async () => new Response("x", { status: answers.shift() ?? 500 })) as unknown as typeof fetch,
      onEvent: () => {},
      onStatus: (s) => statuses.push(s),
      sleep: async () => {},
    });
    await stream.done;
    expect(answers).toEqual([]);
    const last = statuses.at(-1);
    expect(last?.type).toBe("closed");
    expect(last && "reason" in last ? last.reason : "").toMatch(/401/);
  });

  it("reports data that is not a valid event without stopping", async () => {
    const warnings: string[] = [];
    const events: ReceivedEvent[] = [];
    let n = 0;
    const stream: EventStream = new EventStream({
      url: "/e",
      fetch: (async () => {
        if (n++ > 0) {
          stream.close();
          throw new Error("closed");
        }
        return new Response(streamOf(["event: error\ndata: {bad\n\nid: 5\nevent: heartbeat\ndata: {\"timestamp\":\"t\"}\n\n"]));
      }) as unknown as typeof fetch,
      onEvent: (e) => events.push(e),
      onProtocolWarning: (w) => warnings.push(w),
      sleep: async () => {},
    });
    await stream.done;
    expect(warnings).toHaveLength(1);
    expect(events.map((e) => e.event.type)).toEqual(["heartbeat"]);
    expect(stream.lastEventId).toBe(5);
  });

  it("treats a silent connection as dropped and reconnects with Last-Event-ID", async () => {
    const enc = new TextEncoder();
    const calls: Record<string, string>[] = [];
    let stream: EventStream | undefined;
    const statuses: StreamStatus[] = [];
    stream = new EventStream({
      url: "/e",
      idleTimeoutMs: 50,
      fetch: (async (_url: string, init?: RequestInit) => {
        calls.push({ ...(init?.headers as Record<string, string>) });
        if (calls.length > 1) {
          stream?.close();
          throw new Error("closed");
        }
        // One event, then silence without closing: a vanished network.
        return new Response(new ReadableStream({ start(c) { c.enqueue(enc.encode('id: 4\nevent: heartbeat\ndata: {"timestamp":"t"}\n\n')); } }));
      }) as unknown as typeof fetch,
      onEvent: () => {},
      onStatus: (st) => statuses.push(st),
      sleep: async () => {},
    });
    await stream.done;
    expect(calls).toHaveLength(2);
    expect(calls[1]?.["Last-Event-ID"]).toBe("4");
    const reconnecting = statuses.find((st) => st.type === "reconnecting");
    expect(reconnecting && "reason" in reconnecting ? reconnecting.reason : "").toMatch(/too long/);
  });
});
