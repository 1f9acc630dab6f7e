//! What can go wrong talking to MCP servers.

use braid_protocol::api::McpServerStatus;

/// An MCP operation failed.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// No server of that name is configured.
    #[error("no MCP server named `{server}` is configured")]
    UnknownServer {
        /// The name asked for.
        server: String,
    },
    /// The server exists but is not connected.
    #[error("MCP server `{server}` is not ready (status: {status:?}{})", reason.as_deref().map(|r| format!(", {r}")).unwrap_or_default())]
    NotReady {
        /// The server.
        server: String,
        /// Its status.
        status: McpServerStatus,
        /// Why it failed, when it did.
        reason: Option<String>,
    },
    /// The server's process could not be started or its endpoint not reached.
    #[error("MCP server `{server}` could not be started: {reason}")]
    Start {
        /// The server.
        server: String,
        /// What went wrong (the OS error, the HTTP error, the handshake failure).
        reason: String,
    },
    /// The server answered with a JSON-RPC error or the connection broke mid-request.
    #[error("MCP server `{server}`: {operation} failed: {reason}")]
    Protocol {
        /// The server.
        server: String,
        /// What was asked (`resources/read demo://x`).
        operation: String,
        /// The error as rmcp reported it.
        reason: String,
        /// The JSON-RPC error code, when the server sent an error object.
        code: Option<i32>,
        /// The JSON-RPC error data, when there was some.
        data: Option<serde_json::Value>,
    },
    /// The server took longer than its configured timeout.
    #[error("MCP server `{server}`: {operation} did not answer within {timeout_ms} ms")]
    Timeout {
        /// The server.
        server: String,
        /// What was asked.
        operation: String,
        /// The limit.
        timeout_ms: u64,
    },
}

impl McpError {
    /// Wraps an rmcp service error, keeping the JSON-RPC code and data when there are some.
    pub(crate) fn protocol(
        server: &str,
        operation: impl Into<String>,
        error: rmcp::ServiceError,
    ) -> Self {
        let (code, data) = match &error {
            rmcp::ServiceError::McpError(e) => (Some(e.code.0), e.data.clone()),
            _ => (None, None),
        };
        Self::Protocol {
            server: server.to_string(),
            operation: operation.into(),
            reason: error.to_string(),
            code,
            data,
        }
    }
}
