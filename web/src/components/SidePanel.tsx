// The panel beside the conversation: the open context's settings, or the MCP servers with their
// resources and tools (the per-context switches when a conversation is open).

import type { ApiClient } from "../api/client";
import type { ContextConfig, ContextSummary, McpResourceInfo, McpServerDefinition, ModelList, Mode } from "../generated/protocol";
import type { McpState } from "../app/useMcpState";
import type { Panel } from "../app/shellState";
import { SettingsPanel } from "./SettingsPanel";
import { McpPanel } from "./McpPanel";

/** What the side panel shows and does. */
export interface SidePanelProps {
  panel: Exclude<Panel, "none">;
  onClose: () => void;
  api: ApiClient;
  /** The open context's summary, when one is open and read. */
  summary: ContextSummary | null;
  /** Whether a conversation is open. */
  contextOpen: boolean;
  onSaveSettings: (changes: Partial<ContextConfig>) => Promise<void>;
  onMode: (mode: Mode) => Promise<void>;
  workspaceRoots: string[] | undefined;
  models: ModelList | undefined;
  mcp: McpState;
  onAddResource: (r: McpResourceInfo) => void;
  reportError: (err: unknown) => void;
}

/** The side panel. */
export function SidePanel({ panel, onClose, api, summary, contextOpen, onSaveSettings, onMode, workspaceRoots, models, mcp, onAddResource, reportError }: SidePanelProps) {
  const { servers, mcpEditing, resources, tools, showServers, refreshMcp } = mcp;
  return (
    <aside className="side-panel">
      <button type="button" className="btn btn-icon close-panel" aria-label="Close panel" onClick={onClose}>×</button>
      {panel === "settings" && summary && <SettingsPanel config={summary.config} onSave={onSaveSettings} onMode={onMode} workspaceRoots={workspaceRoots} instructions={summary.instructions} capabilities={summary.capabilities} models={models} />}
      {panel === "mcp" && (
        <McpPanel
          servers={servers}
          resources={resources}
          tools={tools}
          onReload={() => api.reloadMcpServers().then(refreshMcp, reportError)}
          {...(contextOpen ? { onAddResource } : {})}
          editing={mcpEditing}
          {...(mcpEditing === "editable"
            ? {
                onAddServer: async (name: string, server: McpServerDefinition) => showServers(await api.addMcpServer(name, server)),
                onReplaceServer: async (name: string, server: McpServerDefinition) => showServers(await api.replaceMcpServer(name, server)),
                onRemoveServer: async (name: string) => showServers(await api.removeMcpServer(name)),
              }
            : {})}
          {...(contextOpen && summary
            ? {
                switches: {
                  disabledServers: summary.config.disabled_mcp_servers ?? [],
                  disabledTools: summary.config.disabled_mcp_tools ?? [],
                  onChange: onSaveSettings,
                },
              }
            : {})}
        />
      )}
    </aside>
  );
}
