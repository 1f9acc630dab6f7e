-- OAuth credentials of MCP servers (rmcp's StoredCredentials as JSON), by server name, so a
-- person does not authorize again after a restart.
CREATE TABLE mcp_credentials (
    server      TEXT PRIMARY KEY NOT NULL,
    credentials TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
