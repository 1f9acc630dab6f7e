// MCP: servers with their status and error, "Authorize" for a server waiting on OAuth, their tools,
// and their resources with "add to context".

import type { McpResourceInfo, McpServerInfo, ToolInfo } from "../generated/protocol";
import { Icon } from "./Icon";

/** What the panel shows and can ask for. */
export interface McpPanelProps {
  /** Configured servers. */
  servers: McpServerInfo[];
  /** Resources of the ready servers. */
  resources: McpResourceInfo[];
  /** Every tool (MCP ones carry their server). */
  tools: ToolInfo[];
  /** Re-reads the MCP configuration. */
  onReload: () => void;
  /** Adds a resource to the open context; absent when none is open. */
  onAddResource?: (r: McpResourceInfo) => void;
}

/** The MCP panel. */
export function McpPanel({ servers, resources, tools, onReload, onAddResource }: McpPanelProps) {
  return (
    <section className="panel mcp-panel" aria-label="MCP servers">
      <div className="panel-head">
        <h2>MCP servers</h2>
        <button type="button" className="btn" onClick={onReload}>Reload</button>
      </div>
      {servers.length === 0 && <p className="muted">No MCP servers are configured.</p>}
      <ul className="plain">
        {servers.map((s) => {
          const described = tools.filter((t) => t.source === "mcp" && t.server === s.name);
          const own = resources.filter((r) => r.server_name === s.name);
          return (
            <li key={s.name} className={`mcp-server status-${s.status}`}>
              <div className="tool-head">
                <Icon name="plug" /> <strong>{s.name}</strong>{" "}
                <span className={`badge server-${s.status}`}>{s.status.replace("_", " ")}</span>
              </div>
              {s.error && <div className="error-text">{s.error}</div>}
              {s.status === "needs_authorization" && s.authorization_url && (
                <p>
                  <a
                    className="btn"
                    href={s.authorization_url}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={`Authorize ${s.name}`}
                  >
                    Authorize
                  </a>{" "}
                  <span className="muted">Sign in at the server&apos;s authorization page; this list updates when you come back.</span>
                </p>
              )}
              {s.tools.length > 0 && (
                <details>
                  <summary>{s.tools.length} tools</summary>
                  <ul>
                    {s.tools.map((name) => {
                      const info = described.find((t) => t.name === name);
                      return (
                        <li key={name}>
                          <code>{name}</code>
                          {info?.description && <span className="muted"> — {info.description}</span>}
                        </li>
                      );
                    })}
                  </ul>
                </details>
              )}
              {own.length > 0 && (
                <details>
                  <summary>{own.length} resources</summary>
                  <ul>
                    {own.map((r) => (
                      <li key={r.uri}>
                        <span>{r.name}</span> <code className="muted">{r.uri}</code>
                        {onAddResource && (
                          <button type="button" className="btn btn-link" aria-label={`Add ${r.name} to context`} onClick={() => onAddResource(r)}>
                            Add to context
                          </button>
                        )}
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
