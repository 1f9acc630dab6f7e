// A real ApiClient over a recording fetch, so tests assert on the exact HTTP calls.
import { ApiClient } from "../api/client";

/** One recorded request. */
export interface Call { method: string; url: string; body: unknown; headers: Record<string, string> }

/** An ApiClient whose fetch records every call and answers with the given status and body. */
export function recordingClient(answer: (c: Call) => { status: number; body?: unknown } = () => ({ status: 200, body: {} })) {
  const calls: Call[] = [];
  const api = new ApiClient({
    token: "tok",
    fetch: (async (url: string, init?: RequestInit) => {
      const call: Call = {
        method: init?.method ?? "GET",
        url,
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
        headers: (init?.headers ?? {}) as Record<string, string>,
      };
      calls.push(call);
      const a = answer(call);
      return new Response(a.body === undefined ? null : typeof a.body === "string" ? a.body : JSON.stringify(a.body), { status: a.status });
    }) as unknown as typeof fetch,
  });
  return { api, calls };
}
