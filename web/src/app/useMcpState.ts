// The MCP servers, their resources and the tools the panel shows, read when the panel opens and
// again while a server is still starting or waits for an authorization in another tab.

import { useCallback, useEffect, useState } from "react";
import type { ApiClient } from "../api/client";
import type { McpConfigEditing, McpResourceInfo, McpServerInfo, McpServerList, ToolInfo } from "../generated/protocol";

/** What the MCP panel shows, and how to read it again. */
export interface McpState {
  servers: McpServerInfo[];
  mcpEditing: McpConfigEditing;
  resources: McpResourceInfo[];
  tools: ToolInfo[];
  /** Shows every server's status as an edit answered it; tools and resources follow. */
  showServers: (list: McpServerList) => void;
  /** Reads servers, resources and tools again. */
  refreshMcp: () => void;
}

/** The MCP panel's state; read while `panelOpen`. */
export function useMcpState(api: ApiClient, panelOpen: boolean, reportError: (err: unknown) => void): McpState {
  const [servers, setServers] = useState<McpServerInfo[]>([]);
  const [mcpEditing, setMcpEditing] = useState<McpConfigEditing>("no_file");
  const [resources, setResources] = useState<McpResourceInfo[]>([]);
  const [tools, setTools] = useState<ToolInfo[]>([]);
  const readRest = useCallback(() => {
    api.listMcpResources().then((l) => setResources(l.resources), () => setResources([]));
    api.listTools().then((l) => setTools(l.tools), () => setTools([]));
  }, [api]);
  const showServers = useCallback(
    (list: McpServerList) => {
      setServers(list.servers);
      setMcpEditing(list.editing ?? "no_file");
      readRest();
    },
    [readRest],
  );
  const refreshMcp = useCallback(() => {
    api.listMcpServers().then((l) => {
      setServers(l.servers);
      setMcpEditing(l.editing ?? "no_file");
    }, reportError);
    readRest();
  }, [api, reportError, readRest]);
  useEffect(() => {
    if (panelOpen) refreshMcp();
  }, [panelOpen, refreshMcp]);
  // A server that is starting or waits for an authorization in another tab changes without an
  // event: look again every few seconds, and when the person comes back to this tab.
  const settling = servers.some((s) => s.status === "starting" || s.status === "needs_authorization");
  useEffect(() => {
    if (!panelOpen || !settling) return;
    const timer = window.setInterval(refreshMcp, 2000);
    window.addEventListener("focus", refreshMcp);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener("focus", refreshMcp);
    };
  }, [panelOpen, settling, refreshMcp]);
  return { servers, mcpEditing, resources, tools, showServers, refreshMcp };
}
