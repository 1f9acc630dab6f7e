//! What the engine runs on: the store, the model, the tools, and its settings. Tests swap any of
//! them through their traits.

use std::sync::Arc;
use std::time::Duration;

use braid_llm::LlmClient;
use braid_mcp::McpManager;
use braid_store::Store;
use braid_tools::{ToolRegistry, WorkspaceRoots};

use crate::plan_cache::SharedFrames;

/// The engine's collaborators.
pub struct Services {
    /// Where contexts live.
    pub store: Arc<dyn Store>,
    /// The model; `None` when none is configured (sends then fail with a clear error).
    pub llm: Option<Arc<dyn LlmClient>>,
    /// Every tool, built in and from MCP servers.
    pub tools: Arc<ToolRegistry>,
    /// The MCP servers (their tools are in `tools`); routes calls by server, feeds `autoApprove`
    /// into approvals, and reads resources. `None` when no MCP server is configured.
    pub mcp: Option<McpManager>,
    /// Limits and defaults.
    pub settings: EngineSettings,
    /// Request frames (system prompt and tool definitions) shared by the contexts that build
    /// the same one; start with `SharedFrames::default()`.
    pub frames: SharedFrames,
}

/// Limits and defaults of the engine.
#[derive(Clone, Debug)]
pub struct EngineSettings {
    /// The model used when a context's config names none.
    pub default_model: String,
    /// The most rounds of tool execution in one loop, whatever the policy.
    pub max_loop_depth: u32,
    /// A context with no command for this long is unloaded from memory.
    pub idle_unload_after: Duration,
    /// While streaming, the partial answer is saved every this many chunks, so a crash keeps it.
    pub save_stream_every: u32,
    /// Where a context's workspace may be; every user of a workspace opens it through these.
    pub workspace_roots: WorkspaceRoots,
    /// The person's own workflow definitions (`<data dir>/workflows/`); a workspace's
    /// `.braid/workflows/` wins a name clash.
    pub user_workflows: Option<std::path::PathBuf>,
    /// How images are read with OCR.
    pub ocr: braid_vision::OcrSettings,
    /// Internal hosts that image URLs may name anyway (all others are refused).
    pub image_hosts: braid_vision::ImageHosts,
    /// Whether a context asks the model for a title after its first exchange.
    pub titles: crate::title::TitleSetting,
    /// Whether the operator lets commands run outside the sandbox: when not, a call asking to
    /// leave it is refused at once instead of asking a person for what cannot be granted.
    /// `braid serve` takes it from the sandbox settings its commands run under.
    pub unsandboxed: braid_tools::Unsandboxed,
}

impl EngineSettings {
    /// The model a context with this configured model name uses: its own, else the default.
    pub fn model_in_use(&self, configured: &str) -> String {
        if configured.trim().is_empty() {
            self.default_model.clone()
        } else {
            configured.to_owned()
        }
    }
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            default_model: String::new(),
            max_loop_depth: 25,
            idle_unload_after: Duration::from_secs(15 * 60),
            save_stream_every: 32,
            workspace_roots: WorkspaceRoots::current_dir(),
            user_workflows: None,
            ocr: braid_vision::OcrSettings::default(),
            image_hosts: braid_vision::ImageHosts::default(),
            titles: crate::title::TitleSetting::default(),
            unsandboxed: braid_tools::Unsandboxed::Refused,
        }
    }
}
