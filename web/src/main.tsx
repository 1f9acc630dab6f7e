// Entry point: reads an API token passed once as `#token=...` (kept in this browser), then
// renders the app against the same origin that served it.

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiClient } from "./api/client";
import { App } from "./App";
import { CrashScreen } from "./components/CrashScreen";
import { storedHistoryView } from "./conversation/historyView";
import { newestQuery } from "./conversation/useConversation";
import { parseRoute } from "./router";
import { applyTheme, storedTheme } from "./theme";
import "highlight.js/styles/github.css";
import "./styles.css";

const TOKEN_KEY = "braid-api-token";

function token(): string | undefined {
  const m = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (m?.[1]) {
    window.localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return window.localStorage.getItem(TOKEN_KEY) ?? undefined;
}

// Before the first paint, so a chosen theme never flashes the other one.
applyTheme(storedTheme());

/**
 * How long the first render waits for a conversation's newest messages, read ahead: in time,
 * it shows the conversation at once instead of an empty frame rendered again a moment later
 * (a long conversation's first screen came about 60 ms later that way, measured).
 */
const FIRST_READ_WAIT_MS = 250;

const root = document.getElementById("root");
if (root) {
  const t = token();
  const api = new ApiClient(t ? { token: t } : {});
  const route = parseRoute(window.location.pathname);
  const first = route.type === "context" ? api.readAhead(route.contextId, newestQuery(storedHistoryView())) : Promise.resolve();
  void Promise.race([first, new Promise((ready) => setTimeout(ready, FIRST_READ_WAIT_MS))]).then(() =>
    createRoot(root).render(
      <StrictMode>
        <CrashScreen>
          <App api={api} />
        </CrashScreen>
      </StrictMode>,
    ),
  );
}
