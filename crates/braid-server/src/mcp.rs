//! The server's view of MCP servers: their status, resources and OAuth callbacks. [`ManagerDirectory`] answers
//! from `braid-mcp`'s connection manager; [`NoMcp`] answers that no server is configured.

use async_trait::async_trait;
use braid_mcp::elicitation::ReplyError;
use braid_protocol::api::{
    McpElicitationList, McpElicitationReply, McpResourceList, McpServerList,
};

/// What `/v1/mcp/*` asks of the MCP layer.
#[async_trait]
pub trait McpDirectory: Send + Sync {
    /// Every configured server and its status.
    async fn servers(&self) -> McpServerList;
    /// Every resource of every ready server.
    async fn resources(&self) -> McpResourceList;
    /// Re-reads the configuration and reconnects; answers the new status.
    async fn reload(&self) -> McpServerList;
    /// Finishes the OAuth authorization an authorization server's redirect (`callback_url`,
    /// with its `code` and `state`) belongs to; answers the server's name.
    fn complete_authorization(&self, callback_url: &str) -> Result<String, String> {
        let _ = callback_url;
        Err("no MCP server waits for an authorization".into())
    }
    /// The servers' questions waiting for the person.
    fn elicitations(&self) -> McpElicitationList {
        McpElicitationList {
            elicitations: vec![],
        }
    }
    /// The person's answer to question `id`.
    fn reply_elicitation(&self, id: &str, reply: McpElicitationReply) -> Result<(), ReplyError> {
        let _ = reply;
        Err(ReplyError::Unknown(id.to_string()))
    }
}

/// The route an authorization server sends the person's browser back to.
pub const OAUTH_CALLBACK_PATH: &str = "/v1/mcp/oauth/callback";

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

/// The MCP servers of a running [`braid_mcp::McpManager`], reloaded from their file.
pub struct ManagerDirectory {
    manager: braid_mcp::McpManager,
    config_path: std::path::PathBuf,
    authorizer: Option<std::sync::Arc<braid_mcp::oauth::PersonAuthorizer>>,
    elicitations: Option<std::sync::Arc<braid_mcp::Elicitations>>,
}

impl ManagerDirectory {
    /// A directory over `manager`, whose configuration is read from `config_path`.
    pub fn new(manager: braid_mcp::McpManager, config_path: std::path::PathBuf) -> Self {
        Self {
            manager,
            config_path,
            authorizer: None,
            elicitations: None,
        }
    }

    /// The same directory, listing and answering the questions waiting in `elicitations`.
    pub fn with_elicitations(
        mut self,
        elicitations: std::sync::Arc<braid_mcp::Elicitations>,
    ) -> Self {
        self.elicitations = Some(elicitations);
        self
    }

    /// The same directory, finishing authorizations that wait in `authorizer`.
    pub fn with_authorizer(
        mut self,
        authorizer: std::sync::Arc<braid_mcp::oauth::PersonAuthorizer>,
    ) -> Self {
        self.authorizer = Some(authorizer);
        self
    }
}

#[async_trait]
impl McpDirectory for ManagerDirectory {
    async fn servers(&self) -> McpServerList {
        McpServerList {
            servers: self.manager.servers(),
        }
    }

    async fn resources(&self) -> McpResourceList {
        McpResourceList {
            resources: self.manager.list_all_resources().await,
        }
    }

    async fn reload(&self) -> McpServerList {
        // A file that no longer parses changes nothing; the reason is logged.
        match self.manager.reload_from(&self.config_path).await {
            Ok(summary) => tracing::info!(?summary, "MCP servers reloaded"),
            Err(error) => {
                tracing::error!(path = %self.config_path.display(), %error, "MCP configuration not reloaded")
            }
        }
        self.servers().await
    }

    fn elicitations(&self) -> McpElicitationList {
        McpElicitationList {
            elicitations: self
                .elicitations
                .as_ref()
                .map(|e| e.list())
                .unwrap_or_default(),
        }
    }

    fn reply_elicitation(&self, id: &str, reply: McpElicitationReply) -> Result<(), ReplyError> {
        match &self.elicitations {
            Some(elicitations) => elicitations.reply(id, reply),
            None => Err(ReplyError::Unknown(id.to_string())),
        }
    }

    fn complete_authorization(&self, callback_url: &str) -> Result<String, String> {
        match &self.authorizer {
            Some(authorizer) => authorizer.complete(callback_url).map_err(|e| e.to_string()),
            None => Err("no MCP server waits for an authorization".into()),
        }
    }
}

/// MCP servers' OAuth credentials kept in Braid's store, so a person does not authorize again
/// after a restart.
pub struct StoreTokens(pub std::sync::Arc<dyn braid_store::Store>);

#[async_trait]
impl braid_mcp::oauth::TokenStore for StoreTokens {
    async fn load(&self, server: &str) -> Result<Option<String>, String> {
        self.0
            .load_mcp_credentials(server)
            .await
            .map_err(|e| e.to_string())
    }

    async fn save(&self, server: &str, credentials: &str) -> Result<(), String> {
        self.0
            .save_mcp_credentials(server, credentials)
            .await
            .map_err(|e| e.to_string())
    }

    async fn clear(&self, server: &str) -> Result<(), String> {
        self.0
            .clear_mcp_credentials(server)
            .await
            .map_err(|e| e.to_string())
    }
}
