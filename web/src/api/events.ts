// The SSE client for `GET /v1/contexts/{id}/events`. It is fetch-based rather than EventSource so
// that it can send the bearer token, and so that reconnection is ours: it remembers the last
// `id:` it saw and, after any drop, reconnects by itself with `Last-Event-ID`, so the server
// replays what was missed.

import { createParser, type EventSourceParser } from "eventsource-parser";
import type { ContextEvent } from "../generated/protocol";

/** The SSE event names the server sends, one per `ContextEvent` variant. */
export const EVENT_NAMES = [
  "context_update",
  "content_delta",
  "content_final",
  "error",
  "heartbeat",
] as const satisfies readonly ContextEvent["type"][];

/** One event as received: its SSE `id:` (the context's event sequence) and the event. */
export interface ReceivedEvent {
  /** The `id:` line parsed as a number; undefined when the server sent none. */
  id: number | undefined;
  /** The event, tagged by `type` (the SSE event name). */
  event: ContextEvent;
}

/** Where the connection stands. */
export type StreamStatus =
  | { type: "connecting"; attempt: number }
  | { type: "open" }
  | { type: "reconnecting"; attempt: number; delayMs: number; reason: string }
  | { type: "closed"; reason: string };

/** One raw SSE message, before it is interpreted. */
export interface SseMessage {
  /** The `event:` name; `message` when absent. */
  event: string;
  /** The `data:` lines joined by newlines. */
  data: string;
  /** The `id:` value, when the message had one. */
  id: string | undefined;
  /** The `retry:` value in milliseconds, when given. */
  retry: number | undefined;
}

/** The most text one SSE line or event may hold before the stream is refused (and reconnected). */
export const MAX_SSE_BUFFER = 8 * 1024 * 1024;

/**
 * An incremental parser of the `text/event-stream` format over `eventsource-parser` (the
 * WHATWG rules: CR, LF and CRLF line ends split anywhere, comments, multi-line data, `retry:`):
 * feed it text in any pieces and it returns every message completed so far. A message's `id` is
 * the `id:` it carried itself (heartbeats carry none); the stream keeps the last one it saw.
 */
export class SseParser {
  private readonly parser: EventSourceParser;
  private completed: SseMessage[] = [];
  private retry: number | undefined;
  private failure: string | undefined;

  constructor(maxBuffer = MAX_SSE_BUFFER) {
    this.parser = createParser({
      maxBufferSize: maxBuffer,
      onEvent: (m) => {
        this.completed.push({ event: m.event ?? "message", data: m.data, id: m.id, retry: this.retry });
        this.retry = undefined;
      },
      onRetry: (ms) => {
        this.retry = ms;
      },
      onError: (e) => {
        this.failure = e.message;
      },
    });
  }

  /** Adds a piece of the stream; returns the messages it completed. Throws when the stream
   * breaks the format beyond repair (a line longer than the buffer bound). */
  push(chunk: string): SseMessage[] {
    if (this.failure === undefined) {
      try {
        this.parser.feed(chunk);
      } catch (e) {
        this.failure = e instanceof Error ? e.message : String(e);
      }
    }
    if (this.failure !== undefined) {
      throw new Error(`the event stream is malformed: ${this.failure}`);
    }
    const out = this.completed;
    this.completed = [];
    return out;
  }
}

/**
 * Interprets one SSE message as a `ContextEvent`. The data is the event's JSON, with or without
 * its `type` tag; the SSE event name is authoritative. Returns an error string for anything else.
 */
export function toContextEvent(msg: SseMessage): ReceivedEvent | string {
  const name = msg.event;
  if (!(EVENT_NAMES as readonly string[]).includes(name)) {
    return `unknown event name "${name}"`;
  }
  let data: unknown;
  try {
    data = msg.data === "" ? {} : JSON.parse(msg.data);
  } catch {
    return `event "${name}" has data that is not JSON`;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return `event "${name}" has data that is not a JSON object`;
  }
  const idNum = msg.id === undefined || msg.id === "" ? undefined : Number(msg.id);
  const event = { ...(data as Record<string, unknown>), type: name } as ContextEvent;
  return { id: idNum !== undefined && Number.isFinite(idNum) ? idNum : undefined, event };
}

/** Options of {@link EventStream}. */
export interface EventStreamOptions {
  /** The events URL without a replay position. */
  url: string;
  /** Replay after this event id on the first connection (`?after=`); live when absent. */
  after?: number;
  /** Extra headers (the bearer token). */
  headers?: Record<string, string>;
  /** Called with every event, in order. */
  onEvent: (e: ReceivedEvent) => void;
  /** Called whenever the connection's status changes. */
  onStatus?: (s: StreamStatus) => void;
  /** Called when the stream carries something that is not a valid event. */
  onProtocolWarning?: (problem: string) => void;
  /** The fetch to use (tests pass their own). */
  fetch?: typeof fetch;
  /** Delay before reconnect attempt n (1-based); exponential up to 10 s by default. */
  backoffMs?: (attempt: number) => number;
  /** How to wait (tests pass an immediate one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * A connection silent for this long is treated as dropped and reopened. The server sends a
   * heartbeat every 15 s, so the default of 45 s means three were missed: a network that vanished
   * without closing the connection.
   */
  idleTimeoutMs?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** A live subscription to a context's events that reconnects by itself until closed. */
export class EventStream {
  private readonly opts: EventStreamOptions;
  private readonly abort = new AbortController();
  private lastId: number | undefined;
  private serverRetryMs: number | undefined;
  /** Resolves when the stream has stopped for good (closed, or refused by the server). */
  readonly done: Promise<void>;

  constructor(opts: EventStreamOptions) {
    this.opts = opts;
    this.lastId = opts.after;
    this.done = this.run();
  }

  /** The last event id seen (what a reconnect sends as `Last-Event-ID`). */
  get lastEventId(): number | undefined {
    return this.lastId;
  }

  /** Stops the stream; no more events or reconnects. */
  close(): void {
    this.abort.abort();
  }

  private status(s: StreamStatus): void {
    this.opts.onStatus?.(s);
  }

  private async run(): Promise<void> {
    const fetchImpl = this.opts.fetch ?? ((i, init) => globalThis.fetch(i, init));
    const sleep = this.opts.sleep ?? abortableSleep;
    const backoff = this.opts.backoffMs ?? ((n: number) => Math.min(10_000, 500 * 2 ** (n - 1)));
    let failures = 0;
    let first = true;
    while (!this.abort.signal.aborted) {
      this.status({ type: "connecting", attempt: failures + 1 });
      let reason: string;
      try {
        const headers: Record<string, string> = {
          Accept: "text/event-stream",
          ...(this.opts.headers ?? {}),
        };
        let url = this.opts.url;
        if (first && this.lastId !== undefined) {
          url += `${url.includes("?") ? "&" : "?"}after=${this.lastId}`;
        } else if (this.lastId !== undefined) {
          headers["Last-Event-ID"] = String(this.lastId);
        }
        first = false;
        // One controller per connection, so the watchdog can drop it without closing the stream.
        const conn = new AbortController();
        const stop = () => conn.abort();
        this.abort.signal.addEventListener("abort", stop, { once: true });
        let res: Response;
        try {
          res = await fetchImpl(url, { headers, signal: conn.signal });
        } catch (err) {
          this.abort.signal.removeEventListener("abort", stop);
          throw err;
        }
        if (!res.ok || !res.body) {
          // 4xx will not get better by retrying (unknown context, bad token): stop.
          if (res.status >= 400 && res.status < 500) {
            const text = await res.text().catch(() => "");
            this.status({ type: "closed", reason: `the server refused the stream (${res.status}) ${text}`.trim() });
            return;
          }
          reason = `the server answered ${res.status}`;
        } else {
          this.status({ type: "open" });
          const outcome = await this.consume(res.body, conn);
          if (outcome.gotAny) {
            failures = 0;
          }
          reason = outcome.idle ? "no data or heartbeat arrived for too long" : "the stream ended";
        }
        this.abort.signal.removeEventListener("abort", stop);
      } catch (err) {
        if (this.abort.signal.aborted) {
          break;
        }
        reason = err instanceof Error ? err.message : String(err);
      }
      if (this.abort.signal.aborted) {
        break;
      }
      failures += 1;
      const delayMs = this.serverRetryMs ?? backoff(failures);
      this.status({ type: "reconnecting", attempt: failures, delayMs, reason });
      try {
        await sleep(delayMs, this.abort.signal);
      } catch {
        break;
      }
    }
    this.status({ type: "closed", reason: "closed by the page" });
  }

  /** Reads one connection to its end, or until it has been silent too long. */
  private async consume(
    body: ReadableStream<Uint8Array>,
    conn: AbortController,
  ): Promise<{ gotAny: boolean; idle: boolean }> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const idleMs = this.opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    let gotAny = false;
    let idle = false;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        idle = true;
        conn.abort();
        void reader.cancel().catch(() => {});
      }, idleMs);
    };
    try {
      arm();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (idle) break;
          throw err;
        }
        const { value, done } = chunk;
        if (done) {
          break;
        }
        arm();
        for (const msg of parser.push(decoder.decode(value, { stream: true }))) {
          gotAny = true;
          if (msg.retry !== undefined) {
            this.serverRetryMs = msg.retry;
          }
          const parsed = toContextEvent(msg);
          if (typeof parsed === "string") {
            this.opts.onProtocolWarning?.(parsed);
            continue;
          }
          if (parsed.id !== undefined) {
            this.lastId = parsed.id;
          } else if (parsed.event.type === "error" && parsed.event.code === "resume_point_unknown") {
            // The server's log does not hold our last id (restored data, recreated context): it
            // goes on live from its log's end, and a later reconnect must not send that id again.
            this.lastId = undefined;
          }
          this.opts.onEvent(parsed);
        }
      }
    } finally {
      clearTimeout(watchdog);
      reader.releaseLock();
    }
    return { gotAny, idle };
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error("aborted"));
      return;
    }
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
