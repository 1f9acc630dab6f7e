//! `braid-mcp`: Braid's MCP client (DESIGN.md, room `braid-mcp`).
//!
//! - [`config`]: `mcp_servers.json` in the Claude Desktop format.
//! - [`naming`]: the collision-safe `mcp__<server>__<tool>` names tools get in the registry.
#![deny(unsafe_code)]

pub mod config;
pub mod naming;

pub use config::{
    ConfigError, Enablement, McpConfig, ResourceTtl, ServerConfig, TransportConfig,
    find_config_file,
};
