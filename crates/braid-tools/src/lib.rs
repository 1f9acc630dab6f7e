//! `braid-tools`: the tools a model can call (DESIGN.md, room `braid-tools`).
//!
//! - [`Tool`] and [`ToolSpec`]: what a tool is (name, schema, category, permissions, timeout,
//!   origin) and how it runs ([`ToolContext`] in, [`ToolOutput`] or [`ToolError`] out);
//! - [`ToolRegistry`]: lookup, run-time registration (MCP servers come and go), filtering by
//!   agent role and mode, execution with argument checking and timeouts;
//! - [`Workspace`]: the sandbox every file access goes through, and [`read_file_excerpt`]
//!   (bounded in lines, bytes and line length), which the engine also uses to resolve file
//!   references;
//! - [`ChildEnvironment`], [`Sandbox`] and [`ProcessGroup`]: how every child process starts (no
//!   secrets in its environment, confined to what its sandbox mode allows) and stops (with
//!   everything it spawned);
//! - [`command_rule`]: whether a context's `command_rules` let a command run without asking;
//! - the built-in tools (`register_builtins`), behind the default feature `builtin`: without it
//!   (as the MCP client uses the crate) nothing of tree-sitter, the file watcher or the search
//!   engine is compiled.
#![deny(unsafe_code)]

pub mod arguments;
#[cfg(feature = "builtin")]
pub mod builtin;
#[cfg(feature = "builtin")]
pub mod codebase;
#[cfg(feature = "builtin")]
pub mod command;
#[cfg(feature = "builtin")]
pub mod command_rule;
#[cfg(feature = "builtin")]
pub mod dependencies;
pub mod environment;
pub mod excerpt;
#[cfg(feature = "builtin")]
pub mod files;
#[cfg(feature = "builtin")]
pub mod interaction;
#[cfg(feature = "builtin")]
pub mod preview;
pub mod process_group;
pub mod registry;
pub mod sandbox;
#[cfg(feature = "builtin")]
pub mod structure;
pub mod tool;
#[cfg(feature = "builtin")]
pub mod walker;
pub mod workspace;

#[cfg(feature = "builtin")]
pub use builtin::{builtin_registry, builtin_registry_with_sandbox, register_builtins};
#[cfg(feature = "builtin")]
pub use codebase::{CodebaseIndex, CodebaseIndexes};
pub use environment::ChildEnvironment;
pub use excerpt::{FileExcerpt, ReadLimits, read_file_excerpt};
pub use process_group::ProcessGroup;
pub use registry::{CallRecord, RegistryError, ToolRegistry};
pub use sandbox::{Network, Sandbox, SandboxError, SandboxMode, SandboxSettings, Unsandboxed};
pub use tool::{
    Escalation, ExecutingPlan, Permission, Permissions, RetryRule, Tool, ToolCategory, ToolContext,
    ToolError, ToolErrorCode, ToolOrigin, ToolOutput, ToolSpec, to_outcome,
};
pub use workspace::{WORKSPACE_ROOTS_SETTING, Workspace, WorkspaceError, WorkspaceRoots};
