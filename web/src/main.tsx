// Entry point: reads an API token passed once as `#token=...` (kept in this browser), then
// renders the app against the same origin that served it.

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiClient } from "./api/client";
import { App } from "./App";
import { CrashScreen } from "./components/CrashScreen";
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

const root = document.getElementById("root");
if (root) {
  const t = token();
  createRoot(root).render(
    <StrictMode>
      <CrashScreen>
        <App api={new ApiClient(t ? { token: t } : {})} />
      </CrashScreen>
    </StrictMode>,
  );
}
