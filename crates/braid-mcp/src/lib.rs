//! `braid-mcp`: Braid's MCP client (DESIGN.md, room `braid-mcp`), built on the official Rust SDK
//! `rmcp`.
//!
//! - [`config`]: `mcp_servers.json` in the Claude Desktop format, and where to find it.
//! - [`config_file`]: [`ConfigFile`], the file as the API edits it, one server at a time.
//! - [`manager`]: [`McpManager`], the connection manager: background start, status per server,
//!   restart with backoff, reload, clean shutdown, resources.
//! - [`tool`]: [`McpTool`], a server's tool behind `braid_tools::Tool`, and [`McpToolRoute`],
//!   which tells the engine which server and tool a registry name maps to.
//! - [`conformance`]: Braid as the client under test of the official MCP conformance suite.
//! - [`elicitation`]: what Braid answers when a server asks the person for input.
//! - [`oauth`]: OAuth 2.1 for HTTP servers that answer 401.
//! - [`naming`]: the collision-safe `mcp__<server>__<tool>` names.
//! - [`resource`]: `mcp_resource` messages and the per-context [`ResourceCache`].
#![deny(unsafe_code)]

pub mod config;
pub mod config_file;
pub mod conformance;
mod connection;
pub mod dpop;
pub mod elicitation;
pub mod error;
mod listening;
pub mod manager;
pub mod naming;
pub mod oauth;
pub mod resource;
pub mod tool;

pub use config::{
    ConfigError, Enablement, Lifecycle, McpConfig, ResourceTtl, ServerConfig, ServerSandbox,
    ToolHints, TransportConfig, find_config_file,
};
pub use config_file::{ConfigFile, EditError, definition_of};
pub use elicitation::{ElicitationPolicy, Elicitations};
pub use error::McpError;
pub use manager::{
    MAX_MESSAGE_BYTES, ManagerOptions, McpManager, ReloadSummary, ResourceRead, RestartPolicy,
};
pub use resource::{CacheOutcome, Clock, ManualClock, ResourceCache, SystemClock};
pub use tool::{AutoApproval, McpTool, McpToolRoute, RECONNECT_ATTEMPTS, ReadOnlyHint};
