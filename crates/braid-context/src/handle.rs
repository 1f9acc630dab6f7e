//! `ContextHandle`: how everything outside a context talks to it. One method per operation; each
//! sends a command to the context's actor and waits for its answer.

use braid_protocol::api::{
    ApprovalRequest, ApprovalResponse, BranchInfo, BranchList, ContextListEntry, ContextSummary,
    CreateBranchRequest, MergeOutcome, MergeRequest, MessageList, ResumeResponse,
    SendMessageResponse, StateResponse, TurnView, UpdateBranchRequest, UpdateContextRequest,
    WorkspaceFileList,
};
use braid_protocol::{
    BranchName, ContextId, ContextTurnId, Message, MessageId, Mode, SendMessageRequest,
};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::actor::{Actor, Command, Reply};
use crate::error::EngineError;
use crate::events::EventBus;
use crate::views::MessageQuery;

/// A live context. Cheap to clone; every clone talks to the same actor.
#[derive(Clone)]
pub struct ContextHandle {
    id: ContextId,
    commands: mpsc::Sender<Command>,
    events: EventBus,
    roots: braid_tools::WorkspaceRoots,
    listing: watch::Receiver<ContextListEntry>,
}

impl ContextHandle {
    pub(crate) fn new(
        id: ContextId,
        commands: mpsc::Sender<Command>,
        events: EventBus,
        roots: braid_tools::WorkspaceRoots,
        listing: watch::Receiver<ContextListEntry>,
    ) -> Self {
        Self {
            id,
            commands,
            events,
            roots,
            listing,
        }
    }

    /// What the context list shows of the context, as of its last commit or state move;
    /// answered without asking the actor.
    pub fn listing(&self) -> ContextListEntry {
        self.listing.borrow().clone()
    }

    /// The context's id.
    pub fn id(&self) -> ContextId {
        self.id
    }

    /// Whether the actor is still running.
    pub fn is_alive(&self) -> bool {
        !self.commands.is_closed()
    }

    /// Runs a change ([`crate::actor::change`]) on the context, while it rests.
    async fn change<T, F>(&self, op: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut Actor) -> futures::future::BoxFuture<'a, Result<T, EngineError>>
            + Send
            + Sync
            + 'static,
    {
        self.ask(|reply| Command::Change(crate::actor::change(op, reply)))
            .await
    }

    /// Reads the context ([`crate::actor::read`]), also while a turn runs.
    async fn read<T, F>(&self, op: F) -> Result<T, EngineError>
    where
        T: Send + 'static,
        F: FnOnce(&Actor, &braid_protocol::ContextState) -> Result<T, EngineError>
            + Send
            + Sync
            + 'static,
    {
        self.ask(|reply| Command::Read(crate::actor::read(op, reply)))
            .await
    }

    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, EngineError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(make(reply))
            .await
            .map_err(|_| EngineError::Stopped)?;
        answer.await.map_err(|_| EngineError::Stopped)?
    }

    /// The workflow definitions this context can use (its workspace's and the person's), with
    /// the errors of those that cannot run.
    pub async fn workflows(
        &self,
    ) -> Result<Vec<braid_protocol::workflow::WorkflowInfo>, EngineError> {
        self.read(|a, _| Ok(a.workflow_list())).await
    }

    /// Starts a workflow run (202 semantics: the `workflow_execution` message is stored before
    /// this answers). Parameter errors name `parameters.<name>`.
    pub async fn run_workflow(
        &self,
        name: &str,
        request: braid_protocol::workflow::RunWorkflowRequest,
    ) -> Result<braid_protocol::workflow::WorkflowRunResponse, EngineError> {
        let send = SendMessageRequest {
            payload: braid_protocol::MessagePayload::Workflow(
                braid_protocol::payload::WorkflowPayload {
                    workflow: name.to_owned(),
                    parameters: request.parameters,
                    display_text: request.display_text,
                },
            ),
            client_metadata: None,
        };
        match self.send_message(send).await {
            Ok(sent) => Ok(braid_protocol::workflow::WorkflowRunResponse {
                execution_id: sent.message_id.to_string(),
                message_id: sent.message_id,
                queued: sent.queued,
                turn_id: sent.turn_id,
                stream_after: sent.stream_after,
            }),
            Err(EngineError::Invalid(errors)) => {
                Err(EngineError::Invalid(braid_protocol::ValidationErrors(
                    errors
                        .problems()
                        .iter()
                        .map(|p| braid_protocol::Problem {
                            path: p.path.trim_start_matches("payload.").to_owned(),
                            message: p.message.clone(),
                        })
                        .collect(),
                )))
            }
            Err(e) => Err(e),
        }
    }

    /// Pauses (when the running step ends), resumes (from `current_step`; also past an approval
    /// step) or cancels a workflow run.
    pub async fn control_workflow(
        &self,
        execution_id: &str,
        control: braid_protocol::workflow::WorkflowControl,
    ) -> Result<(), EngineError> {
        let execution_id = execution_id.to_owned();
        self.ask(|reply| Command::ControlWorkflow {
            execution_id,
            control,
            reply,
        })
        .await
        .map(|_| ())
    }

    /// Resumes a paused workflow run (from `current_step`; also past an approval step) as a
    /// turn of its own, which the answer names.
    pub async fn resume_workflow(
        &self,
        execution_id: &str,
    ) -> Result<braid_protocol::api::ResumeResponse, EngineError> {
        let execution_id = execution_id.to_owned();
        let wanted = execution_id.clone();
        self.ask(|reply| Command::ControlWorkflow {
            execution_id,
            control: braid_protocol::workflow::WorkflowControl::Resume,
            reply,
        })
        .await?
        // A resume that is not refused runs the run on, always as a turn.
        .ok_or_else(|| EngineError::Conflict(format!("workflow run `{wanted}` was not resumed")))
    }

    /// Adds a message. Answers at once with its id; `queued` when it waits behind a running
    /// turn. Progress arrives as events.
    pub async fn send_message(
        &self,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, EngineError> {
        self.ask(|r| Command::Send(request, r)).await
    }

    /// Runs the pipeline again for a send that failed (the message and the rest of its send).
    /// Answers at once like a send; `queued` when it waits behind a running turn. A message that
    /// does not exist is `NotFound`; one that is not `failed` is a `Conflict`.
    pub async fn retry_message(
        &self,
        message: MessageId,
    ) -> Result<SendMessageResponse, EngineError> {
        self.ask(|r| Command::RetryMessage(message, r)).await
    }

    /// Deletes the person's input that failed or still waits in the queue (with the rest of its
    /// send), so it is neither retried nor sent. Anything else is a `Conflict`.
    pub async fn delete_message(&self, message: MessageId) -> Result<(), EngineError> {
        self.ask(|r| Command::DeleteMessage(message, r)).await
    }

    /// Approves or denies pending tool calls. Once every waiting call is decided, the answer
    /// names the turn that continues the loop.
    pub async fn approve(&self, request: ApprovalRequest) -> Result<ApprovalResponse, EngineError> {
        self.ask(|r| Command::Approve(request, r)).await
    }

    /// Stops the running turn: a running tool finishes, nothing new starts.
    pub async fn interrupt(&self) -> Result<(), EngineError> {
        self.ask(Command::Interrupt).await
    }

    /// Continues a paused or failed turn, as a new turn the answer names.
    pub async fn resume(&self) -> Result<ResumeResponse, EngineError> {
        self.ask(Command::Resume).await
    }

    /// Answers a `question` message; the loop resumes with the answer.
    pub async fn answer_question(
        &self,
        question: MessageId,
        value: String,
    ) -> Result<SendMessageResponse, EngineError> {
        self.send_message(SendMessageRequest {
            payload: braid_protocol::MessagePayload::QuestionAnswer(
                braid_protocol::payload::QuestionAnswerPayload {
                    question_id: question,
                    value,
                },
            ),
            client_metadata: None,
        })
        .await
    }

    /// Switches between plan and act mode (adds a `mode_change` notice).
    pub async fn set_mode(&self, mode: Mode) -> Result<(), EngineError> {
        self.change(move |a| Box::pin(a.set_mode(mode))).await
    }

    /// Changes the title and/or the configuration.
    pub async fn update(
        &self,
        request: UpdateContextRequest,
    ) -> Result<ContextSummary, EngineError> {
        self.change(move |a| Box::pin(a.update(request))).await
    }

    /// Creates a branch, from any message of any branch.
    pub async fn create_branch(
        &self,
        request: CreateBranchRequest,
    ) -> Result<BranchInfo, EngineError> {
        // A request wrong on its face is refused before a busy context refuses it.
        braid_protocol::Validate::validate(&request)?;
        self.change(move |a| Box::pin(a.create_branch(request)))
            .await
    }

    /// Makes a branch the active one (nothing is added to the conversation).
    pub async fn switch_branch(&self, name: BranchName) -> Result<(), EngineError> {
        self.change(move |a| Box::pin(a.switch_branch(name))).await
    }

    /// Deletes a branch that is not active; its messages stay in the pool.
    pub async fn delete_branch(&self, name: BranchName) -> Result<(), EngineError> {
        self.change(move |a| Box::pin(a.delete_branch(name))).await
    }

    /// Changes a branch's system-prompt override and pipeline.
    pub async fn update_branch(
        &self,
        name: BranchName,
        request: UpdateBranchRequest,
    ) -> Result<BranchInfo, EngineError> {
        self.change(move |a| Box::pin(a.update_branch(name, request)))
            .await
    }

    /// Merges branch `source` into the request's target (the active branch by default), or
    /// previews it with `dry_run`. A merge that waits for resolutions or accepted warnings is
    /// [`EngineError::MergeHeld`], with the outcome that lists them.
    pub async fn merge(
        &self,
        source: BranchName,
        request: MergeRequest,
    ) -> Result<MergeOutcome, EngineError> {
        // A preview only reads, and a request the plan refuses is refused, also while a turn
        // runs (the busy check would hide what is wrong). A summary merge moves no message and
        // its preview asks the model: it goes to the context as a change.
        if !matches!(
            request.strategy,
            braid_protocol::api::MergeStrategy::Summary { .. }
        ) {
            let (previewed, checked) = (source.clone(), request.clone());
            let preview = self
                .read(move |a, _| a.merge_plan(previewed, &checked))
                .await?;
            if request.dry_run {
                return Ok(preview.1.outcome);
            }
        }
        self.change(move |a| Box::pin(a.merge(source, request)))
            .await
    }

    /// Pins (`true`) or unpins a message: a pinned message is never dropped or summarized.
    pub async fn pin(&self, message: MessageId, pinned: bool) -> Result<Message, EngineError> {
        self.change(move |a| Box::pin(a.pin(message, pinned))).await
    }

    /// Pins a fact the person wrote: every request carries it in its ledger block.
    pub async fn pin_fact(&self, text: String) -> Result<Message, EngineError> {
        self.change(move |a| Box::pin(a.pin_fact(text))).await
    }

    /// Corrects a summary's text; later requests get the correction.
    pub async fn correct_summary(
        &self,
        message: MessageId,
        text: String,
    ) -> Result<Message, EngineError> {
        self.change(move |a| Box::pin(a.correct_summary(message, text)))
            .await
    }

    /// The branches.
    pub async fn branches(&self) -> Result<BranchList, EngineError> {
        self.read(|a, _| Ok(a.branch_list())).await
    }

    /// The context as `GET /v1/contexts/{id}` shows it.
    pub async fn summary(&self) -> Result<ContextSummary, EngineError> {
        self.read(|a, state| Ok(a.summary_in(state))).await
    }

    /// The current state, and the transition history when asked.
    pub async fn state(&self, history: bool) -> Result<StateResponse, EngineError> {
        self.read(move |a, state| {
            Ok(StateResponse {
                state: state.clone(),
                history: history.then(|| a.state_history()),
            })
        })
        .await
    }

    /// Where turn `turn` is: running or queued (from the actor), or how it ended (from the
    /// store, so a restart keeps it).
    pub async fn turn(&self, turn: ContextTurnId) -> Result<TurnView, EngineError> {
        let (live, store) = self
            .read(move |a, _| Ok((a.turn_view(turn), a.store().clone())))
            .await?;
        if let Some(view) = live {
            return Ok(view);
        }
        store
            .get_turn(self.id, turn)
            .await?
            .ok_or_else(|| EngineError::NotFound(format!("no turn {turn} in this context")))
    }

    /// One message, on any branch, as committed (a message being streamed shows what is
    /// committed of it so far).
    pub async fn message(&self, id: MessageId) -> Result<braid_protocol::Message, EngineError> {
        self.read(move |a, _| a.message(id)).await
    }

    /// Messages of a branch.
    pub async fn messages(&self, query: MessageQuery) -> Result<MessageList, EngineError> {
        self.read(move |a, _| a.list_messages(query)).await
    }

    /// Files of the context's workspace whose path contains `query`, for the file picker (at
    /// most `limit`, 1 to 1,000). The walk runs off the actor, so a large workspace never holds
    /// the context up.
    pub async fn workspace_files(
        &self,
        query: String,
        limit: u32,
    ) -> Result<WorkspaceFileList, EngineError> {
        let summary = self.summary().await?;
        let Some(root) = summary.config.workspace else {
            return Err(EngineError::Conflict(
                "this context has no workspace: set `workspace` in its config".to_owned(),
            ));
        };
        let workspace = self.roots.open(&root).map_err(EngineError::Workspace)?;
        let limit = limit.clamp(1, 1000) as usize;
        let (files, truncated) = tokio::task::spawn_blocking(move || {
            braid_tools::structure::find_files(&workspace, &query, limit)
        })
        .await
        .map_err(|_| EngineError::Stopped)?;
        Ok(WorkspaceFileList { files, truncated })
    }

    /// Executes a plan: switches to act mode and sends the plan for execution.
    pub async fn execute_plan(&self, plan: MessageId) -> Result<SendMessageResponse, EngineError> {
        self.ask(|r| Command::ExecutePlan(plan, r)).await
    }

    /// Asks the agent to refine a plan with the person's feedback.
    pub async fn refine_plan(
        &self,
        plan: MessageId,
        feedback: String,
    ) -> Result<SendMessageResponse, EngineError> {
        self.ask(|reply| Command::RefinePlan {
            plan,
            feedback,
            reply,
        })
        .await
    }

    /// Events from now on. A receiver that falls more than [`crate::events::LIVE_BUFFER`]
    /// events behind gets `Lagged` and should replay from the store.
    pub fn subscribe(&self) -> broadcast::Receiver<crate::events::LiveEvent> {
        self.events.subscribe()
    }

    /// Stops the actor after its current command; waits until it has.
    pub async fn shutdown(&self) {
        let (done, wait) = oneshot::channel();
        if self.commands.send(Command::Shutdown(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}
