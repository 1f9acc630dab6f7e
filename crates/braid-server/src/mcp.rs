//! The server's view of MCP servers: their status and resources. The `braid-mcp` connection
//! manager plugs in here by implementing [`McpDirectory`]; until it is wired, [`NoMcp`] answers
//! that no server is configured.

use async_trait::async_trait;
use braid_protocol::api::{McpResourceList, McpServerList};

/// What `/v1/mcp/*` asks of the MCP layer.
#[async_trait]
pub trait McpDirectory: Send + Sync {
    /// Every configured server and its status.
    async fn servers(&self) -> McpServerList;
    /// Every resource of every ready server.
    async fn resources(&self) -> McpResourceList;
    /// Re-reads the configuration and reconnects; answers the new status.
    async fn reload(&self) -> McpServerList;
}

/// No MCP servers: every list is empty.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMcp;

#[async_trait]
impl McpDirectory for NoMcp {
    async fn servers(&self) -> McpServerList {
        McpServerList { servers: vec![] }
    }

    async fn resources(&self) -> McpResourceList {
        McpResourceList { resources: vec![] }
    }

    async fn reload(&self) -> McpServerList {
        self.servers().await
    }
}
