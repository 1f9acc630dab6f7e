// A tiny history-API router: the only routes are `/` and `/contexts/{id}`, so a context's
// address survives a reload or a shared link.

import { useEffect, useState } from "react";

/** Where the page is. */
export type Route = { type: "home" } | { type: "context"; contextId: string };

/** Reads a route from a path; anything unknown is home. */
export function parseRoute(pathname: string): Route {
  const m = /^\/contexts\/([^/]+)\/?$/.exec(pathname);
  if (m?.[1]) {
    try {
      return { type: "context", contextId: decodeURIComponent(m[1]) };
    } catch {
      return { type: "home" };
    }
  }
  return { type: "home" };
}

/** The path of a route. */
export function routePath(route: Route): string {
  return route.type === "context" ? `/contexts/${encodeURIComponent(route.contextId)}` : "/";
}

const CHANGE = "braid:navigate";

/** Goes to a route, adding a history entry (or replacing the current one). */
export function navigate(route: Route, replace = false): void {
  const path = routePath(route);
  if (window.location.pathname === path) return;
  if (replace) window.history.replaceState(null, "", path);
  else window.history.pushState(null, "", path);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current route, updated on navigation and on the back/forward buttons. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}
