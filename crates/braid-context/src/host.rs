//! The narrow interface a turn is driven through (DESIGN.md "The context"): read the context's
//! committed data, move the state machine, commit a change set, emit an event, call the model,
//! run a tool, and wait for any of these while the context stays responsive. The actor is the
//! host in production; a test can be one with no actor and no store, so a whole turn (pipeline,
//! model stream, tool round) runs as a plain value.

use std::future::Future;
use std::sync::Arc;

use braid_llm::LlmClient;
use braid_mcp::McpManager;
use braid_protocol::{
    ContextEvent, ContextId, ContextState, ContextUpdate, ErrorCode, ErrorEvent, Message,
    MessageUpdate, Metadata, PendingCall, ToolCallId,
};
use braid_store::{ContextChanges, LostEvents, PendingSave, StoreError};
use braid_tools::ToolRegistry;
use chrono::Utc;

use crate::calls::{OpenCall, Ran};
use crate::context::ContextData;
use crate::error::EngineError;
use crate::pipeline::PipelineContext;
use crate::services::EngineSettings;

/// A change set handed to the store without waiting for its commit, and that commit's outcome
/// to come ([`Host::queue_commit`]).
pub(crate) struct QueuedCommit {
    /// What it stores.
    pub changes: ContextChanges,
    /// Its commit, to await.
    pub pending: PendingSave,
}

/// What a turn needs of the context it runs in. Every state change goes through
/// [`Host::announce`] / [`Host::transition`] (the one transition function); every stored change
/// goes through a commit; reads see only what is committed.
pub(crate) trait Host: Send {
    /// The context's id.
    fn context_id(&self) -> ContextId;
    /// The context's committed data.
    fn data(&self) -> &ContextData;
    /// The current state (announced, maybe not yet committed).
    fn state(&self) -> &ContextState;
    /// Limits and defaults of the engine.
    fn settings(&self) -> &EngineSettings;
    /// Every tool, built in and from MCP servers.
    fn tools(&self) -> &Arc<ToolRegistry>;
    /// The MCP servers, when some are configured.
    fn mcp(&self) -> Option<&McpManager>;
    /// The model, when one is configured.
    fn llm(&self) -> Option<Arc<dyn LlmClient>>;
    /// What the active branch's pipeline runs with: its history and the frame kept for it.
    fn pipeline_context(&self) -> PipelineContext;

    /// Moves the state machine and emits its `context_update`, without persisting (the caller
    /// persists the state with its own change set). Answers the state left.
    fn announce(
        &mut self,
        to: ContextState,
    ) -> impl Future<Output = Result<ContextState, EngineError>> + Send;
    /// Moves the state machine; a move between resting and working is persisted before this
    /// returns.
    fn transition(
        &mut self,
        to: ContextState,
    ) -> impl Future<Output = Result<(), EngineError>> + Send;
    /// Saves a change set with the current state in one transaction and mirrors it in memory,
    /// polling `beside` meanwhile: its output when it finished first.
    fn commit_beside<T: Send>(
        &mut self,
        changes: ContextChanges,
        beside: impl Future<Output = T> + Send,
    ) -> impl Future<Output = Result<Option<T>, EngineError>> + Send;
    /// Queues a change set without waiting for its commit: events emitted from now on are
    /// committed no earlier than it, and never if it fails.
    fn queue_commit(
        &mut self,
        changes: ContextChanges,
    ) -> impl Future<Output = Result<QueuedCommit, EngineError>> + Send;
    /// Takes a queued change set's outcome, already awaited: mirrors it once committed, or
    /// reports the failure as a failed commit does.
    fn settled(
        &mut self,
        changes: ContextChanges,
        outcome: Result<(), StoreError>,
    ) -> impl Future<Output = Result<(), EngineError>> + Send;

    /// Waits for a queued change set's commit (answering reads meanwhile), then mirrors it.
    fn settle(
        &mut self,
        queued: QueuedCommit,
    ) -> impl Future<Output = Result<(), EngineError>> + Send;

    /// Numbers an event and queues it for the log; subscribers get it once committed.
    fn emit(&self, event: ContextEvent) -> impl Future<Output = ()> + Send;
    /// Waits until every event emitted so far is committed.
    fn flush_events(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Keeps the description of a request going to the model (`ModelRequestRecord`); a store
    /// that cannot keep it is logged, never fails the turn (the request is the person's work,
    /// the record its audit).
    fn record_request(
        &self,
        record: &braid_protocol::ModelRequestRecord,
    ) -> impl Future<Output = ()> + Send + 'static;
    /// Resolves when the store reports events of this context it could not keep.
    fn events_lost(&self) -> impl Future<Output = LostEvents> + Send + 'static;

    /// Runs `work` to its end while the context stays responsive (reads answered, sends queued,
    /// an interrupt delivered).
    fn serve_until<T: Send>(
        &mut self,
        work: impl Future<Output = T> + Send,
    ) -> impl Future<Output = T> + Send;

    /// Handles the commands already waiting (reads answered, sends queued, an interrupt
    /// delivered) without waiting for more: a turn that is never idle (a model streaming
    /// without pause) calls it between steps, so commands come before its next step.
    fn handle_waiting(&mut self) -> impl Future<Output = ()> + Send;

    /// The future that runs one approved call.
    fn run_call(&self, call: OpenCall) -> impl Future<Output = Ran> + Send + 'static;
    /// Whether `name` is the tool of a workflow this context can run.
    fn is_workflow_tool(&self, name: &str) -> bool;
    /// Calls a workflow run owns (answered by that run, not by a round).
    fn workflow_owned_calls(&self) -> Vec<ToolCallId>;
    /// Starts the workflow runs the model asked for; answers whether the loop goes on.
    fn start_model_workflows(
        &mut self,
        calls: Vec<OpenCall>,
    ) -> impl Future<Output = Result<bool, EngineError>> + Send;

    /// [`Host::commit_beside`] with nothing beside.
    fn commit(
        &mut self,
        changes: ContextChanges,
    ) -> impl Future<Output = Result<(), EngineError>> + Send {
        async move {
            self.commit_beside(changes, std::future::pending::<()>())
                .await
                .map(|_| ())
        }
    }

    /// Persists the current state alone (at resting points); a failure is logged.
    fn persist_state(&mut self) -> impl Future<Output = ()> + Send {
        async move {
            if let Err(error) = self.commit(ContextChanges::new()).await {
                tracing::error!(context = %self.context_id(), %error, "state not persisted");
            }
        }
    }

    /// Moves to a resting state and persists it.
    fn rest(&mut self, state: ContextState) -> impl Future<Output = ()> + Send {
        async move {
            if let Err(e) = self.announce(state).await {
                tracing::error!(context = %self.context_id(), error = %e, "could not rest");
            }
            self.persist_state().await;
        }
    }

    /// Emits a `context_update` with the current state.
    fn emit_update(
        &self,
        previous_state: Option<ContextState>,
        message_update: Option<MessageUpdate>,
        metadata: Metadata,
    ) -> impl Future<Output = ()> + Send {
        let pending_calls = match self.state() {
            ContextState::AwaitingToolApproval {
                pending_requests, ..
            } => crate::calls::open_calls(self.data())
                .into_iter()
                .filter(|c| pending_requests.contains(&c.id))
                .map(|c| PendingCall {
                    call_id: c.id,
                    tool_name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            _ => Vec::new(),
        };
        let event = ContextEvent::ContextUpdate(ContextUpdate {
            context_id: self.context_id(),
            current_state: self.state().clone(),
            previous_state,
            message_update,
            timestamp: Utc::now(),
            metadata,
            pending_calls,
            turn_id: None,
            branch: None,
        });
        self.emit(event)
    }

    /// Emits the `created` update of a message.
    fn emit_created(&self, m: &Message) -> impl Future<Output = ()> + Send {
        self.emit_update(
            None,
            Some(MessageUpdate::Created {
                message_id: m.id,
                kind: m.kind_name(),
                role: m.role,
            }),
            Metadata::new(),
        )
    }

    /// Emits an `error` event.
    fn emit_error(
        &self,
        code: ErrorCode,
        message: String,
        recoverable: bool,
    ) -> impl Future<Output = ()> + Send {
        self.emit(ContextEvent::Error(ErrorEvent {
            context_id: self.context_id(),
            code,
            message,
            recoverable,
            turn_id: None,
            branch: None,
        }))
    }

    /// Moves to `Failed`, tells the person, and persists the state.
    fn fail(&mut self, error: EngineError, recoverable: bool) -> impl Future<Output = ()> + Send {
        async move {
            let trace_id = uuid::Uuid::now_v7();
            tracing::error!(context = %self.context_id(), %trace_id, state = self.state().kind().as_str(), %error, "turn failed");
            let message = error.to_string();
            let failed = ContextState::Failed {
                error: message.clone(),
                recoverable,
            };
            // Every state may fail, a failure included (the newer error replaces the older).
            if let Err(e) = self.announce(failed).await {
                tracing::error!(context = %self.context_id(), error = %e, "failure not recorded");
            }
            let code = error.code();
            self.emit_error(code, format!("{message} (trace {trace_id})"), recoverable)
                .await;
            self.persist_state().await;
        }
    }

    /// Awaits `work` while the context stays responsive; `None` when the deadline passed first.
    fn run_while_busy<T: Send>(
        &mut self,
        work: impl Future<Output = T> + Send,
        deadline: std::time::Instant,
    ) -> impl Future<Output = Option<T>> + Send {
        async move {
            self.serve_until(tokio::time::timeout_at(deadline.into(), work))
                .await
                .ok()
        }
    }
}
