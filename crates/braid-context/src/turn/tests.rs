//! A whole turn driven through the [`Host`] interface alone: no actor, no store, no server. The
//! host here keeps the context's data in memory, applies each commit at once, records every
//! event and state, answers from a script of model answers, and runs the built-in tools in a
//! temporary workspace.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex};

use braid_llm::{
    FinishReason, LlmClient, LlmError, LlmEvent, LlmRequest, LlmStream, ModelCapabilities,
};
use braid_protocol::{
    ApprovalPolicy, ContextConfig, ContextEvent, ContextId, ContextState, Message, MessageKind,
    MessageStatus, Role, ToolCallId, ToolOutcome,
};
use braid_store::{BranchRecord, ContextChanges, ContextRecord, LostEvents, PendingSave};
use braid_tools::{ToolRegistry, WorkspaceRoots};
use tokio_util::sync::CancellationToken;

use super::Turn;
use crate::calls::{OpenCall, Ran};
use crate::context::ContextData;
use crate::error::EngineError;
use crate::host::{Host, QueuedCommit};
use crate::pipeline::{KeptFrame, PipelineContext};
use crate::send::{QueuedSend, SendAction};
use crate::services::EngineSettings;
use crate::state::StateMachine;

/// A model that answers each request with the next scripted answer, and keeps the requests.
struct ScriptedModel {
    answers: Mutex<VecDeque<Vec<LlmEvent>>>,
    requests: Mutex<Vec<LlmRequest>>,
}

#[async_trait::async_trait]
impl LlmClient for ScriptedModel {
    async fn stream(&self, request: &LlmRequest) -> LlmStream {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(request.clone());
        let answer = self
            .answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        let items: Vec<Result<LlmEvent, LlmError>> = match answer {
            Some(events) => events.into_iter().map(Ok).collect(),
            None => vec![Err(LlmError::StreamCut {
                detail: "the script has no more answers".to_owned(),
            })],
        };
        Box::pin(futures::stream::iter(items))
    }

    fn capabilities(&self, model: &str) -> ModelCapabilities {
        ModelCapabilities::for_model(model)
    }
}

/// The host of the test: the context in memory, commits applied at once.
struct MemoryHost {
    data: ContextData,
    machine: StateMachine,
    settings: EngineSettings,
    tools: Arc<ToolRegistry>,
    model: Arc<ScriptedModel>,
    events: Mutex<Vec<ContextEvent>>,
    requests: Mutex<Vec<braid_protocol::ModelRequestRecord>>,
    commits: usize,
    workspace: tempfile::TempDir,
}

impl MemoryHost {
    fn new(policy: ApprovalPolicy, answers: Vec<Vec<LlmEvent>>) -> Self {
        let workspace = tempfile::tempdir().expect("temp dir");
        std::fs::write(workspace.path().join("notes.txt"), "the answer is 42\n").expect("write");
        let config = ContextConfig {
            model: "gpt-4o".to_owned(),
            workspace: Some(workspace.path().to_string_lossy().into_owned()),
            approval_policy: policy,
            ..ContextConfig::default()
        };
        let record = ContextRecord::new("a turn as a value", config);
        let data = ContextData {
            branches: vec![BranchRecord::new(record.active_branch.clone())],
            record,
            pool: Default::default(),
            revision: 0,
        };
        let settings = EngineSettings {
            workspace_roots: WorkspaceRoots::new(vec![workspace.path().to_path_buf()], Vec::new())
                .expect("roots"),
            ..EngineSettings::default()
        };
        Self {
            data,
            machine: StateMachine::default(),
            settings,
            tools: Arc::new(braid_tools::builtin_registry().expect("built-in tools")),
            model: Arc::new(ScriptedModel {
                answers: Mutex::new(answers.into()),
                requests: Mutex::new(Vec::new()),
            }),
            events: Mutex::new(Vec::new()),
            requests: Mutex::new(Vec::new()),
            commits: 0,
            workspace,
        }
    }

    fn apply(&mut self, mut changes: ContextChanges) {
        changes.state = Some(self.machine.current().clone());
        self.data.apply(&changes);
        self.commits += 1;
    }

    fn messages(&self) -> Vec<Message> {
        self.data.active_messages().into_iter().cloned().collect()
    }

    fn states(&self) -> Vec<&'static str> {
        self.machine
            .history()
            .iter()
            .map(|t| t.to.kind().as_str())
            .collect()
    }
}

impl Host for MemoryHost {
    fn context_id(&self) -> ContextId {
        self.data.record.id
    }

    fn data(&self) -> &ContextData {
        &self.data
    }

    fn state(&self) -> &ContextState {
        self.machine.current()
    }

    fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    fn tools(&self) -> &Arc<ToolRegistry> {
        &self.tools
    }

    fn mcp(&self) -> Option<&braid_mcp::McpManager> {
        None
    }

    fn llm(&self) -> Option<Arc<dyn LlmClient>> {
        Some(self.model.clone())
    }

    fn pipeline_context(&self) -> PipelineContext {
        let config = self.data.record.config.clone();
        let workspace = self
            .settings
            .workspace_roots
            .open_configured(config.workspace.as_deref())
            .expect("workspace");
        PipelineContext {
            branch: self.data.record.active_branch.clone(),
            model: config.model.clone(),
            config,
            branch_prompt: None,
            history: self.data.model_history(&self.data.record.active_branch),
            tools: self.tools.clone(),
            workspace,
            workspace_problem: None,
            instructions: None,
            llm: Some(self.model.clone()),
            workflow_tools: Vec::new(),
            ocr: Default::default(),
            image_hosts: Default::default(),
            kept_frame: KeptFrame::default(),
            kept_ledger: Default::default(),
        }
    }

    async fn announce(&mut self, to: ContextState) -> Result<ContextState, EngineError> {
        let from = self.machine.move_to(to)?;
        self.emit_update(Some(from.clone()), None, Default::default())
            .await;
        Ok(from)
    }

    async fn transition(&mut self, to: ContextState) -> Result<(), EngineError> {
        self.announce(to).await.map(|_| ())
    }

    async fn commit_beside<T: Send>(
        &mut self,
        changes: ContextChanges,
        _beside: impl Future<Output = T> + Send,
    ) -> Result<Option<T>, EngineError> {
        self.apply(changes);
        Ok(None)
    }

    async fn queue_commit(&mut self, changes: ContextChanges) -> Result<QueuedCommit, EngineError> {
        Ok(QueuedCommit {
            changes,
            pending: PendingSave::saved(),
        })
    }

    async fn settled(
        &mut self,
        changes: ContextChanges,
        outcome: Result<(), braid_store::StoreError>,
    ) -> Result<(), EngineError> {
        outcome?;
        self.apply(changes);
        Ok(())
    }

    async fn settle(&mut self, queued: QueuedCommit) -> Result<(), EngineError> {
        let outcome = queued.pending.await;
        self.settled(queued.changes, outcome).await
    }

    async fn emit(&self, event: ContextEvent) {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event);
    }

    async fn flush_events(&self) -> Result<(), braid_store::StoreError> {
        Ok(())
    }

    fn record_request(
        &self,
        record: &braid_protocol::ModelRequestRecord,
    ) -> impl Future<Output = ()> + Send + 'static {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(record.clone());
        std::future::ready(())
    }

    fn events_lost(&self) -> impl Future<Output = LostEvents> + Send + 'static {
        std::future::pending()
    }

    async fn serve_until<T: Send>(&mut self, work: impl Future<Output = T> + Send) -> T {
        work.await
    }

    async fn handle_waiting(&mut self) {}

    fn run_call(&self, call: OpenCall) -> impl Future<Output = Ran> + Send + 'static {
        let tools = self.tools.clone();
        let workspace = self
            .settings
            .workspace_roots
            .open_configured(self.data.record.config.workspace.as_deref());
        let ctx =
            braid_tools::ToolContext::configured(workspace, self.data.record.config.agent_role);
        let mode = self.data.record.config.mode;
        async move {
            let started = chrono::Utc::now();
            let clock = std::time::Instant::now();
            let result = tools
                .execute(&call.name, call.arguments.clone(), &ctx, mode)
                .await;
            Ran {
                call,
                result,
                started,
                elapsed: clock.elapsed(),
            }
        }
    }

    fn is_workflow_tool(&self, _name: &str) -> bool {
        false
    }

    fn workflow_owned_calls(&self) -> Vec<ToolCallId> {
        Vec::new()
    }

    async fn start_model_workflows(&mut self, _calls: Vec<OpenCall>) -> Result<bool, EngineError> {
        Ok(true)
    }
}

fn text(chunks: &[&str]) -> Vec<LlmEvent> {
    let mut events: Vec<LlmEvent> = chunks
        .iter()
        .map(|t| LlmEvent::TextDelta {
            text: (*t).to_owned(),
        })
        .collect();
    events.push(LlmEvent::Finish {
        reason: FinishReason::Stop,
    });
    events
}

fn read_call(id: &str, path: &str) -> Vec<LlmEvent> {
    vec![
        LlmEvent::ToolCallCompleted {
            index: 0,
            id: ToolCallId::from(id),
            name: "read_file".to_owned(),
            arguments: Ok(serde_json::json!({ "path": path })),
        },
        LlmEvent::Finish {
            reason: FinishReason::ToolCalls,
        },
    ]
}

fn question(host: &mut MemoryHost, text: &str) -> QueuedSend {
    let m = Message::user_text(text).with_status(MessageStatus::Pending);
    host.apply(
        ContextChanges::new().add_message(&host.data.record.active_branch.clone(), m.clone()),
    );
    QueuedSend {
        messages: vec![m],
        updates: Vec::new(),
        action: SendAction::Converse,
    }
}

#[tokio::test]
async fn a_whole_turn_with_a_tool_round_runs_through_the_host_alone() {
    let mut host = MemoryHost::new(
        ApprovalPolicy::AutoAll,
        vec![read_call("call-1", "notes.txt"), text(&["It says ", "42."])],
    );
    let send = question(&mut host, "What do my notes say?");
    let mut turn = Turn::new(CancellationToken::new());
    turn.converse(&mut host, send).await;

    assert_eq!(host.state(), &ContextState::Idle);
    let kinds: Vec<_> = host.messages().iter().map(|m| m.kind_name()).collect();
    assert_eq!(
        kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
        ["text", "tool_request", "tool_result", "text"]
    );
    let messages = host.messages();
    assert!(messages.iter().all(|m| m.status == MessageStatus::Complete));
    let MessageKind::ToolResult(result) = &messages[2].kind else {
        panic!("a tool result follows the request");
    };
    let ToolOutcome::Success { output } = &result.outcome else {
        panic!("the approved read ran: {:?}", result.outcome);
    };
    assert!(output.to_string().contains("the answer is 42"));
    let MessageKind::Text(answer) = &messages[3].kind else {
        panic!("the model's last answer is text");
    };
    assert_eq!(answer.text(), "It says 42.");
    assert_eq!(messages[3].role, Role::Assistant);

    // The second request carried the tool's result back to the model.
    let requests = host
        .model
        .requests
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .messages
            .iter()
            .any(|m| matches!(m.kind, MessageKind::ToolResult(_)))
    );
    drop(requests);

    let states = host.states();
    for expected in [
        "processing_user_message",
        "connecting_to_llm",
        "awaiting_llm_first_chunk",
        "tool_auto_loop",
        "executing_tool",
        "collecting_tool_results",
        "streaming_llm_response",
        "processing_llm_response",
        "idle",
    ] {
        assert!(
            states.contains(&expected),
            "{expected} missing from {states:?}"
        );
    }
    let events = host.events.lock().unwrap_or_else(|e| e.into_inner());
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            ContextEvent::ContentDelta(d) => Some(d.delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["It says ", "42."]);
    assert!(host.commits > 0);
    drop(events);
    drop(host.workspace);
}

#[tokio::test]
async fn a_call_the_policy_does_not_allow_waits_for_the_person() {
    let mut host = MemoryHost::new(
        ApprovalPolicy::Manual,
        vec![read_call("call-1", "notes.txt")],
    );
    let send = question(&mut host, "Read my notes");
    let mut turn = Turn::new(CancellationToken::new());
    turn.converse(&mut host, send).await;

    let ContextState::AwaitingToolApproval {
        pending_requests, ..
    } = host.state()
    else {
        panic!("the turn waits for approval, not {:?}", host.state());
    };
    assert_eq!(pending_requests, &[ToolCallId::from("call-1")]);
    assert_eq!(
        crate::calls::open_calls(host.data()).len(),
        1,
        "the call stays open, unrun"
    );
}

#[tokio::test]
async fn an_interrupt_before_the_model_is_asked_leaves_the_input_failed_and_retryable() {
    let mut host = MemoryHost::new(ApprovalPolicy::AutoAll, vec![text(&["partial"])]);
    let send = question(&mut host, "Say something");
    let interrupt = CancellationToken::new();
    interrupt.cancel();
    let mut turn = Turn::new(interrupt);
    turn.converse(&mut host, send).await;
    // Cancelled before the stream: the pipeline step is stopped, the input stays failed and
    // retryable, and the context rests.
    assert_eq!(host.state(), &ContextState::Idle);
    let messages = host.messages();
    assert_eq!(messages[0].status, MessageStatus::Failed);
}
