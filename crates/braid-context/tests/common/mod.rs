//! The engine's test harness: a real SQLite store in a temporary directory, the mock LLM over
//! real HTTP through the real OpenAI client, the built-in tools over a temporary workspace, and
//! a few tools made for tests (slow, failing).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use braid_context::{ContextHandle, ContextRegistry, EngineSettings, Services};
use braid_llm::{Provider, ProviderConfig, RetryPolicy, build_client};
use braid_protocol::api::CreateContextRequest;
use braid_protocol::{
    ContextConfig, ContextState, Message, MessagePayload, SendMessageRequest, StateKind,
};
use braid_store::{SqliteStore, Store};
use braid_testkit::{MockLlm, Script, StreamReply};
use braid_tools::{
    Permission, Permissions, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOrigin,
    ToolOutput, ToolRegistry, ToolSpec, builtin_registry_with_sandbox,
};
use serde_json::{Value, json};

#[path = "../../../braid-vision/benches/pictures/mod.rs"]
pub mod pictures;

pub struct Harness {
    pub registry: Arc<ContextRegistry>,
    pub llm: Arc<dyn braid_llm::LlmClient>,
    pub tools: Arc<ToolRegistry>,
    pub mock: MockLlm,
    pub store: Arc<dyn Store>,
    pub dir: tempfile::TempDir,
    pub workspace: PathBuf,
}

impl Harness {
    pub async fn new(script: Script) -> Self {
        Self::with_settings(script, EngineSettings::default()).await
    }

    pub async fn with_settings(script: Script, settings: EngineSettings) -> Self {
        Self::with_provider(script, settings, Provider::OpenAi).await
    }

    /// A harness whose model speaks `provider`'s API (the mock speaks both).
    pub async fn with_provider(
        script: Script,
        settings: EngineSettings,
        provider: Provider,
    ) -> Self {
        Self::build(script, settings, provider, RetryPolicy::none()).await
    }

    /// A harness whose model client retries transient failures as `retry` says.
    pub async fn with_retry(script: Script, retry: RetryPolicy) -> Self {
        Self::build(script, EngineSettings::default(), Provider::OpenAi, retry).await
    }

    /// A harness whose operator configured `correction` for the model (the 32k window stays
    /// unless it names another).
    pub async fn with_override(script: Script, correction: braid_llm::CapabilityOverride) -> Self {
        Self::build_with(
            script,
            EngineSettings::default(),
            Provider::OpenAi,
            RetryPolicy::none(),
            correction,
        )
        .await
    }

    async fn build(
        script: Script,
        settings: EngineSettings,
        provider: Provider,
        retry: RetryPolicy,
    ) -> Self {
        Self::build_with(
            script,
            settings,
            provider,
            retry,
            braid_llm::CapabilityOverride::default(),
        )
        .await
    }

    async fn build_with(
        script: Script,
        mut settings: EngineSettings,
        provider: Provider,
        retry: RetryPolicy,
        correction: braid_llm::CapabilityOverride,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(workspace.join("src")).unwrap();
        std::fs::write(
            workspace.join("src/lib.rs"),
            (1..=30)
                .map(|i| format!("// line {i}\n"))
                .collect::<String>(),
        )
        .unwrap();
        std::fs::write(
            workspace.join("README.md"),
            "# Fixture\nA test workspace.\n",
        )
        .unwrap();
        let store: Arc<dyn Store> = Arc::new(
            SqliteStore::open(dir.path().join("braid.db"))
                .await
                .unwrap(),
        );
        let mock = MockLlm::start(script).await.unwrap();
        let mut config = ProviderConfig::new(provider);
        config.base_url = match provider {
            Provider::Anthropic => mock.url(),
            _ => mock.openai_base_url(),
        };
        config.model = "mock-model".into();
        config.retry = retry;
        // The tests' conversations are sized for a 32k window; the 8,192-token default of a model
        // nobody knows leaves less than the built-in tools take beside the answer's reserve.
        config.capability_overrides.insert(
            "mock-model".into(),
            braid_llm::CapabilityOverride {
                context_window: correction.context_window.or(Some(32_768)),
                ..correction
            },
        );

        config.idle_timeout = Duration::from_secs(5);
        let llm = build_client(config).unwrap();
        // The commands' sandbox follows the engine's settings, as `braid serve` builds both.
        let tools = builtin_registry_with_sandbox(braid_tools::SandboxSettings {
            unsandboxed: settings.unsandboxed,
            ..braid_tools::SandboxSettings::default()
        })
        .unwrap();
        for t in test_tools() {
            tools.register(t).unwrap();
        }
        let tools = Arc::new(tools);
        settings.default_model = "mock-model".into();
        settings.workspace_roots = roots(dir.path());
        let registry = ContextRegistry::new(Services {
            frames: Default::default(),
            store: store.clone(),
            llm: Some(llm.clone()),
            tools: tools.clone(),
            mcp: None,
            settings,
        });
        Self {
            registry,
            llm,
            tools,
            mock,
            store,
            dir,
            workspace,
        }
    }

    /// A second registry over the same store, tools and model: what a restarted process sees.
    pub fn restart(&self) -> Arc<ContextRegistry> {
        self.restart_with_roots(roots(self.dir.path()))
    }

    /// What a new process sees after this one crashed: the store file opened anew (which ends
    /// the leases the dead process held) under a fresh registry.
    pub async fn reopen(&self) -> Arc<ContextRegistry> {
        let store: Arc<dyn Store> = Arc::new(
            SqliteStore::open(self.dir.path().join("braid.db"))
                .await
                .unwrap(),
        );
        self.registry_on(store, roots(self.dir.path()))
    }

    /// [`Harness::restart`] with other workspace roots (the operator changed them).
    pub fn restart_with_roots(
        &self,
        workspace_roots: braid_tools::WorkspaceRoots,
    ) -> Arc<ContextRegistry> {
        self.registry_on(self.store.clone(), workspace_roots)
    }

    fn registry_on(
        &self,
        store: Arc<dyn Store>,
        workspace_roots: braid_tools::WorkspaceRoots,
    ) -> Arc<ContextRegistry> {
        ContextRegistry::new(Services {
            frames: Default::default(),
            store,
            llm: Some(self.llm.clone()),
            tools: self.tools.clone(),
            mcp: None,
            settings: EngineSettings {
                default_model: "mock-model".into(),
                workspace_roots,
                ..EngineSettings::default()
            },
        })
    }

    /// A context working in the harness's workspace with `policy` and the rest default.
    pub async fn context(&self, config: ContextConfig) -> ContextHandle {
        let config = ContextConfig {
            workspace: Some(self.workspace.display().to_string()),
            ..config
        };
        self.registry
            .create(CreateContextRequest {
                title: Some("test".into()),
                config,
            })
            .await
            .unwrap()
    }
}

pub fn text(s: &str) -> SendMessageRequest {
    SendMessageRequest {
        payload: MessagePayload::Text(braid_protocol::payload::TextPayload {
            text: s.into(),
            file_references: vec![],
            images: vec![],
        }),
        client_metadata: None,
    }
}

/// A streamed text answer in pieces.
pub fn reply(pieces: &[&str]) -> StreamReply {
    StreamReply::answer(pieces)
}

/// An answer that calls tools: `(id, name, arguments)`.
pub fn calls(list: &[(&str, &str, Value)]) -> StreamReply {
    StreamReply::calls(list)
}

/// Waits until the context rests (the turn is over, or waits for a person).
pub async fn settle(h: &ContextHandle) -> ContextState {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let s = h.state(false).await.unwrap().state;
        if s.kind().is_resting() {
            return s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the context did not settle: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The state kinds the context went through, consecutive repeats folded.
pub async fn walk(h: &ContextHandle) -> Vec<StateKind> {
    let history = h.state(true).await.unwrap().history.unwrap();
    let mut out: Vec<StateKind> = Vec::new();
    for t in history {
        let k = t.to.kind();
        if out.last() != Some(&k) {
            out.push(k);
        }
    }
    out
}

pub async fn messages(h: &ContextHandle) -> Vec<Message> {
    h.messages(braid_context::MessageQuery {
        limit: Some(1000),
        ..Default::default()
    })
    .await
    .unwrap()
    .messages
}

/// The error the model was given for tool call `call`, read from the context's history (a test
/// failure when the call has no result or its result is not an error).
pub async fn call_error(h: &ContextHandle, call: &str) -> braid_protocol::ErrorDetail {
    let result = messages(h).await.into_iter().find_map(|m| match m.kind {
        braid_protocol::MessageKind::ToolResult(r) if r.call_id.as_str() == call => Some(r),
        _ => None,
    });
    match result.map(|r| r.outcome) {
        Some(braid_protocol::ToolOutcome::Error { error }) => error,
        other => panic!("call {call} has no error result: {other:?}"),
    }
}

/// A tool for tests, described by a spec and a function.
struct TestTool {
    spec: ToolSpec,
    run: fn(Value) -> Result<ToolOutput, ToolError>,
    delay: Duration,
}

#[async_trait]
impl Tool for TestTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(self.delay).await;
        (self.run)(args)
    }
}

fn spec(name: &str, permissions: &[Permission]) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("test tool {name}"),
        parameters: json!({"type": "object", "properties": {}}),
        category: ToolCategory::Codebase,
        permissions: Permissions::of(permissions),
        timeout: Duration::from_secs(60),
        origin: ToolOrigin::Builtin,
        retry: braid_tools::RetryRule::Never,
        examples: Vec::new(),
    }
}

fn test_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(TestTool {
            spec: spec("echo", &[Permission::Read]),
            run: |args| Ok(ToolOutput::json(json!({"echo": args}))),
            delay: Duration::ZERO,
        }),
        Arc::new(TestTool {
            spec: spec("slow_read", &[Permission::Read]),
            run: |_| Ok(ToolOutput::json(json!("slept"))),
            delay: Duration::from_millis(1500),
        }),
        Arc::new(TestTool {
            spec: spec("slow_write", &[Permission::Write]),
            run: |_| Ok(ToolOutput::json(json!("wrote slowly"))),
            delay: Duration::from_millis(400),
        }),
        Arc::new(TestTool {
            spec: ToolSpec {
                name: "mcp__everything__echo".into(),
                origin: ToolOrigin::Mcp {
                    server: "everything".into(),
                },
                category: ToolCategory::External,
                ..spec("mcp__everything__echo", &[Permission::Read])
            },
            run: |args| {
                Ok(ToolOutput::json(
                    json!({"content": [{"type": "text", "text": args.to_string()}]}),
                ))
            },
            delay: Duration::ZERO,
        }),
        Arc::new(TestTool {
            spec: spec("broken", &[Permission::Read]),
            run: |_| Err(ToolError::new(ToolErrorCode::Failed, "the disk is on fire")),
            delay: Duration::ZERO,
        }),
        // Unreachable twice, then fine; three tries allowed.
        flaky(
            "flaky",
            2,
            braid_tools::RetryRule::Transient { max_attempts: 3 },
        ),
        // Unreachable once, and never tried again.
        flaky("flaky_once", 1, braid_tools::RetryRule::Never),
    ]
}

/// A tool whose first `failures` calls find its server unreachable (a transient failure,
/// `unavailable`); the calls after those succeed. Its rule says whether it may be tried again.
struct FlakyTool {
    spec: ToolSpec,
    failures: u32,
    calls: std::sync::atomic::AtomicU32,
}

#[async_trait]
impl Tool for FlakyTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, _args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if call <= self.failures {
            return Err(ToolError::new(
                ToolErrorCode::Unavailable,
                format!("the server is restarting (call {call})"),
            ));
        }
        Ok(ToolOutput::json(json!({ "succeeded_on_call": call })))
    }
}

fn flaky(name: &str, failures: u32, retry: braid_tools::RetryRule) -> Arc<dyn Tool> {
    Arc::new(FlakyTool {
        spec: ToolSpec {
            retry,
            ..spec(name, &[Permission::Read])
        },
        failures,
        calls: Default::default(),
    })
}

/// The workspace roots of a harness in `dir`: the directory itself.
pub fn roots(dir: &std::path::Path) -> braid_tools::WorkspaceRoots {
    braid_tools::WorkspaceRoots::new([dir.to_path_buf()], []).unwrap()
}
