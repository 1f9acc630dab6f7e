// A real ApiClient over a recording fetch, so tests assert on the exact HTTP calls.
import { ApiClient } from "../api/client";

/** One recorded request: its method, its path and query (without the origin), body and headers. */
export interface Call { method: string; url: string; body: unknown; headers: Record<string, string> }

/** What a fetch was asked, whether it got a `Request` (openapi-fetch) or a URL and init (the event stream). */
export async function readRequest(input: Request | string, init?: RequestInit): Promise<Call> {
  const request = typeof input === "string" ? new Request(new URL(input, location.origin), init) : input;
  const text = await request.text();
  const url = new URL(request.url);
  return {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    body: text ? JSON.parse(text) : undefined,
    headers: Object.fromEntries(request.headers.entries()),
  };
}

/** An ApiClient whose fetch records every call and answers with the given status and body. */
export function recordingClient(answer: (c: Call) => { status: number; body?: unknown } = () => ({ status: 200, body: {} })) {
  const calls: Call[] = [];
  const api = new ApiClient({
    token: "tok",
    fetch: (async (input: Request | string, init?: RequestInit) => {
      const call = await readRequest(input, init);
      calls.push(call);
      const a = answer(call);
      const body = a.body === undefined || a.status === 204 ? null : typeof a.body === "string" ? a.body : JSON.stringify(a.body);
      return new Response(body, { status: a.status });
    }) as unknown as typeof fetch,
  });
  return { api, calls };
}
