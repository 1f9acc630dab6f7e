//! The server's view of MCP servers: their status, resources, prompts, questions and OAuth
//! callbacks. [`ManagerDirectory`] answers from `braid-mcp`'s connection manager; [`NoMcp`]
//! answers that no server is configured.

use async_trait::async_trait;
use braid_mcp::EditError;
use braid_mcp::elicitation::ReplyError;
use braid_protocol::api::{
    AddMcpServerRequest, McpConfigEditing, McpElicitationList, McpElicitationReply, McpPromptList,
    McpPromptText, McpResourceList, McpServerDefinition, McpServerList,
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
    /// Adds a server to the configuration file and connects to it; answers the new status.
    async fn add_server(
        &self,
        request: AddMcpServerRequest,
    ) -> Result<McpServerList, ServerEditError> {
        let _ = request;
        Err(ServerEditError::NoConfigFile)
    }
    /// Replaces server `name`'s definition in the file and reconnects it; answers the new
    /// status.
    async fn replace_server(
        &self,
        name: &str,
        definition: McpServerDefinition,
    ) -> Result<McpServerList, ServerEditError> {
        let _ = (name, definition);
        Err(ServerEditError::NoConfigFile)
    }
    /// Removes server `name` from the file and stops it; answers the new status.
    async fn remove_server(&self, name: &str) -> Result<McpServerList, ServerEditError> {
        let _ = name;
        Err(ServerEditError::NoConfigFile)
    }
    /// Finishes the OAuth authorization an authorization server's redirect (`callback_url`,
    /// with its `code` and `state`) belongs to; answers the server's name.
    fn complete_authorization(&self, callback_url: &str) -> Result<String, String> {
        let _ = callback_url;
        Err("no MCP server waits for an authorization".into())
    }
    /// The prompts of every ready server.
    async fn prompts(&self) -> McpPromptList {
        McpPromptList { prompts: vec![] }
    }
    /// Prompt `name` of `server` with `arguments`, as the text to send.
    async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<McpPromptText, PromptError> {
        let _ = (name, arguments);
        Err(PromptError::UnknownServer(server.to_string()))
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

/// Why a prompt could not be got.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// No such server, or it is not ready.
    #[error("no ready MCP server named `{0}`")]
    UnknownServer(String),
    /// The server offers no prompt of that name.
    #[error("MCP server `{server}` offers no prompt `{name}`")]
    UnknownPrompt {
        /// The server.
        server: String,
        /// The prompt asked for.
        name: String,
    },
    /// A required argument is missing.
    #[error("prompt `{prompt}` needs argument `{argument}`")]
    MissingArgument {
        /// The prompt.
        prompt: String,
        /// The argument.
        argument: String,
    },
    /// The server failed to answer.
    #[error("{0}")]
    Server(String),
}

/// Why a server could not be added, replaced or removed.
#[derive(Debug, thiserror::Error)]
pub enum ServerEditError {
    /// Braid runs without an MCP configuration file, so there is nothing to edit.
    #[error(
        "Braid was started without an MCP configuration file: start `braid serve` with --mcp-config PATH (or BRAID_MCP_CONFIG), or put mcp_servers.json in its working or data directory, to manage servers here"
    )]
    NoConfigFile,
    /// The operator made the file read-only for the API.
    #[error(
        "the MCP configuration file is read-only here (braid serve --mcp-config-readonly): edit it on the server and reload"
    )]
    ReadOnly,
    /// The file refused the edit (and is unchanged).
    #[error(transparent)]
    Edit(#[from] EditError),
    /// The edit did not finish.
    #[error("the MCP configuration edit stopped: {0}")]
    Interrupted(String),
}

/// The route an authorization server sends the person's browser back to.
pub const OAUTH_CALLBACK_PATH: &str = "/v1/mcp/oauth/callback";

/// No MCP servers: every list is empty.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoMcp;

#[async_trait]
impl McpDirectory for NoMcp {
    async fn servers(&self) -> McpServerList {
        McpServerList {
            servers: vec![],
            editing: McpConfigEditing::NoFile,
        }
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
    /// One edit of the file at a time: each reads, changes and writes the whole file.
    edits: tokio::sync::Mutex<()>,
    /// Whether the API may edit the file.
    editing: McpConfigEditing,
    authorizer: Option<std::sync::Arc<braid_mcp::oauth::PersonAuthorizer>>,
    elicitations: Option<std::sync::Arc<braid_mcp::Elicitations>>,
}

impl ManagerDirectory {
    /// A directory over `manager`, whose configuration is read from `config_path`.
    pub fn new(manager: braid_mcp::McpManager, config_path: std::path::PathBuf) -> Self {
        Self {
            manager,
            config_path,
            edits: tokio::sync::Mutex::new(()),
            editing: McpConfigEditing::Editable,
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

    /// The same directory, refusing to edit the file (`--mcp-config-readonly`).
    pub fn read_only(mut self) -> Self {
        self.editing = McpConfigEditing::ReadOnly;
        self
    }

    /// Runs `change` on the file (off the async threads, one at a time), then applies the
    /// configuration it wrote and answers the new status.
    async fn edit(
        &self,
        change: impl FnOnce(&braid_mcp::ConfigFile) -> Result<braid_mcp::McpConfig, EditError>
        + Send
        + 'static,
    ) -> Result<McpServerList, ServerEditError> {
        if self.editing != McpConfigEditing::Editable {
            return Err(ServerEditError::ReadOnly);
        }
        let _one_at_a_time = self.edits.lock().await;
        let file = braid_mcp::ConfigFile::new(self.config_path.clone());
        let config = tokio::task::spawn_blocking(move || change(&file))
            .await
            .map_err(|e| ServerEditError::Interrupted(e.to_string()))??;
        let summary = self.manager.reload(config).await;
        tracing::info!(path = %self.config_path.display(), ?summary, "MCP configuration edited");
        Ok(self.servers().await)
    }
}

#[async_trait]
impl McpDirectory for ManagerDirectory {
    async fn servers(&self) -> McpServerList {
        McpServerList {
            servers: self.manager.servers(),
            editing: self.editing,
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

    async fn add_server(
        &self,
        request: AddMcpServerRequest,
    ) -> Result<McpServerList, ServerEditError> {
        self.edit(move |file| file.add(&request.name, &request.server))
            .await
    }

    async fn replace_server(
        &self,
        name: &str,
        definition: McpServerDefinition,
    ) -> Result<McpServerList, ServerEditError> {
        let name = name.to_owned();
        self.edit(move |file| file.replace(&name, &definition))
            .await
    }

    async fn remove_server(&self, name: &str) -> Result<McpServerList, ServerEditError> {
        let name = name.to_owned();
        self.edit(move |file| file.remove(&name)).await
    }

    async fn prompts(&self) -> McpPromptList {
        McpPromptList {
            prompts: self.manager.list_all_prompts().await,
        }
    }

    async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<McpPromptText, PromptError> {
        let prompts = self
            .manager
            .list_prompts(server)
            .await
            .map_err(|_| PromptError::UnknownServer(server.to_string()))?;
        let prompt =
            prompts
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| PromptError::UnknownPrompt {
                    server: server.to_string(),
                    name: name.to_string(),
                })?;
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|a| a.required && arguments.get(&a.name).is_none_or(|v| v.trim().is_empty()))
        {
            return Err(PromptError::MissingArgument {
                prompt: name.to_string(),
                argument: missing.name.clone(),
            });
        }
        self.manager
            .get_prompt(server, name, arguments)
            .await
            .map_err(|e| PromptError::Server(e.to_string()))
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
