// A deliberately wrong call: a route the server does not have. `npm run typecheck` type-checks this
// file on its own and must FAIL on the marked line (scripts/wrong-call.mjs checks that it does), so
// the generated client really refuses routes the server lacks.
import createClient from "openapi-fetch";
import type { paths } from "../src/generated/api";

const http = createClient<paths>({ baseUrl: "http://127.0.0.1:8787" });

export async function callsARouteTheServerLacks(): Promise<unknown> {
  // WRONG-CALL: the server has no `POST /v1/contexts/{id}/summarize`.
  return http.POST("/v1/contexts/{id}/summarize", { params: { path: { id: "c1" } } });
}
