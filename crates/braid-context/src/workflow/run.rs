//! A run of a workflow inside a context's actor. Everything a run needs to go on (the definition
//! as it was when the run started, the parameters, each finished step's output) is stored in the
//! `workflow_execution` message's metadata, so a paused run resumes after a restart exactly
//! where it stopped. Tool steps go through the context's approval policy like the model's calls;
//! prompt steps stream one model answer; approval steps wait for the person (resume goes on,
//! cancel stops).

use std::collections::BTreeMap;

use braid_protocol::payload::WorkflowPayload;
use braid_protocol::workflow::{WorkflowControl, WorkflowInfo};
use braid_protocol::{
    ApprovalStatus, ContextState, ErrorDetail, Message, MessageId, MessageKind, MessageStatus,
    MessageUpdate, Metadata, Problem, Recoverability, Role, SystemControlMessage, ToolCall,
    ToolCallId, ToolOutcome, ToolRequestMessage, TurnId, ValidationErrors,
    WorkflowExecutionMessage, WorkflowStatus,
};
use braid_store::ContextChanges;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::catalog::{Catalog, check_parameters};
use super::definition::{Step, StepAction, TOOL_PREFIX, WorkflowDefinition};
use super::template::Scope;
mod control;
mod ending;

use crate::actor::Actor;
use crate::calls::open_calls;
use crate::calls::{OpenCall, Ran};
use crate::error::EngineError;
use crate::host::Host;
use crate::send::{QueuedSend, SendAction};
use crate::turn::ModelOutcome;
use braid_tools::ToolContext;
use std::time::Instant;

/// The execution message's metadata key holding what the run needs to go on.
pub(crate) const RUN_KEY: &str = "workflow_run";
/// The metadata key marking messages a run added (`{ execution_id, step }`).
pub(crate) const STEP_KEY: &str = "workflow_step";

/// What a run needs to go on, stored with its message.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct RunRecord {
    /// The definition as it was when the run started (editing the file does not change a run).
    pub definition: WorkflowDefinition,
    /// The parameters, defaults filled in.
    pub parameters: Map<String, Value>,
    /// Each finished step's output.
    #[serde(default)]
    pub outputs: BTreeMap<String, Value>,
    /// The model's `workflow__<name>` call that started the run, when the model started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_call: Option<ToolCallId>,
    /// The tool step's call waiting for the person's approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_call: Option<ToolCallId>,
    /// The approval step the person approved by resuming.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_step: Option<String>,
}

/// A run as stored: its message, its progress and its record.
struct Run {
    message: Message,
    exec: WorkflowExecutionMessage,
    record: RunRecord,
}

/// How a step ended.
enum StepOutcome {
    /// It finished with this output.
    Done(Value),
    /// It failed.
    Failed(ErrorDetail),
    /// It waits for the person; the context rests.
    Waiting,
    /// The person interrupted it (a streamed answer stopped early).
    Interrupted,
}

/// How a call to [`Actor::advance_workflow`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// The run completed, failed or was cancelled; the context is still `executing_workflow`.
    Finished,
    /// The run paused or waits for the person; the context rests.
    Rested,
}

impl Run {
    fn of(message: &Message) -> Option<Self> {
        let MessageKind::WorkflowExecution(exec) = &message.kind else {
            return None;
        };
        let record = serde_json::from_value(message.metadata.get(RUN_KEY)?.clone()).ok()?;
        Some(Self {
            message: message.clone(),
            exec: (**exec).clone(),
            record,
        })
    }

    /// The message with the run's current progress and record.
    fn to_message(&self) -> Message {
        let mut m = self.message.clone();
        m.kind = MessageKind::WorkflowExecution(Box::new(self.exec.clone()));
        if let Ok(record) = serde_json::to_value(&self.record) {
            m.metadata.insert(RUN_KEY.to_owned(), record);
        }
        m.updated_at = self.exec.updated_at;
        m
    }

    fn step(&self) -> Option<&Step> {
        self.record
            .definition
            .steps
            .get(self.exec.completed_steps as usize)
    }

    fn executing_state(&self) -> ContextState {
        ContextState::ExecutingWorkflow {
            workflow_name: self.exec.workflow_name.clone(),
            execution_id: self.exec.execution_id.clone(),
            step: (self.exec.completed_steps + 1).min(self.exec.total_steps),
            total: self.exec.total_steps,
        }
    }

    fn step_marker(&self, step: &str) -> Value {
        json!({"execution_id": self.exec.execution_id, "step": step})
    }
}

/// The error a failed step leaves on its run: the step, the cause, and the cause's details.
fn step_failure(step: &Step, index: usize, cause: ErrorDetail) -> ErrorDetail {
    ErrorDetail {
        message: format!("step `{}` failed: {}", step.name, cause.message),
        code: cause.code.clone(),
        stack_trace: None,
        recoverable: cause.recoverable,
        details: Some(json!({
            "step": step.name,
            "step_index": index,
            "step_type": step.action.step_type(),
            "cause": cause,
        })),
    }
}

fn cause(message: impl Into<String>, code: &str) -> ErrorDetail {
    ErrorDetail::new(message, Recoverability::Recoverable).with_code(code)
}

impl Actor {
    /// Whether `name` is the tool of a workflow this context can run.
    pub(crate) fn workflow_tool(&self, name: &str) -> bool {
        name.strip_prefix(crate::workflow::TOOL_PREFIX)
            .is_some_and(|n| {
                self.workflow_catalog()
                    .get(n)
                    .is_some_and(|e| e.definition.is_some())
            })
    }

    /// The future that runs one call through the registry.
    pub(crate) fn call_runner(
        &self,
        call: OpenCall,
    ) -> impl std::future::Future<Output = Ran> + Send + 'static {
        let tools = self.tools().clone();
        let config = &self.data().record.config;
        let workspace = self
            .settings()
            .workspace_roots
            .open_configured(config.workspace.as_deref());
        let mut ctx = ToolContext::configured(workspace, config.agent_role)
            .with_sandbox_mode(config.sandbox)
            .with_escalation(crate::approval::escalation(
                &call.name,
                &call.arguments,
                call.approval,
            ))
            .with_executing_plan(crate::plan_progress::for_call(self.data(), &call.name));
        // A running tool is not cancelled by an interrupt (it finishes); only by shutdown.
        ctx.cancel = tokio_util::sync::CancellationToken::new();
        let mode = config.mode;
        let switched_off = crate::turn::switched_off(self.data(), self.tools(), &call.name);
        async move {
            let started = Utc::now();
            let clock = Instant::now();
            let result = match switched_off {
                Some(why) => Err(braid_tools::ToolError::new(
                    braid_tools::ToolErrorCode::PermissionDenied,
                    format!("tool `{}` was not run: {why}", call.name),
                )),
                None => {
                    tools
                        .execute(&call.name, call.arguments.clone(), &ctx, mode)
                        .await
                }
            };
            Ran {
                call,
                result,
                started,
                elapsed: clock.elapsed(),
            }
        }
    }

    /// The definitions this context can use: its workspace's and the person's.
    pub(crate) fn workflow_catalog(&self) -> Catalog {
        let workspace = self
            .settings()
            .workspace_roots
            .open_configured(self.data().record.config.workspace.as_deref())
            .ok()
            .flatten();
        Catalog::discover(
            workspace.as_ref().map(|w| w.root()),
            self.settings().user_workflows.as_deref(),
        )
    }

    /// How `GET /v1/workflows` lists this context's definitions.
    pub(crate) fn workflow_list(&self) -> Vec<WorkflowInfo> {
        self.workflow_catalog().infos()
    }

    /// Builds the `pending` execution message of a run the person asked for, checking the
    /// workflow and its parameters (errors name `<prefix>parameters.<name>`).
    pub(crate) fn accept_workflow(
        &self,
        payload: WorkflowPayload,
        prefix: &str,
    ) -> Result<QueuedSend, EngineError> {
        let definition = self.runnable_definition(&payload.workflow, prefix)?;
        let parameters = check_parameters(&definition, &payload.parameters).map_err(|p| {
            EngineError::Invalid(ValidationErrors(
                p.into_iter()
                    .map(|p| Problem {
                        path: format!("{prefix}{}", p.path),
                        message: p.message,
                    })
                    .collect(),
            ))
        })?;
        let mut message = execution_message(definition, parameters, None, Role::User);
        if let Some(text) = payload.display_text {
            message
                .metadata
                .insert("display_text".to_owned(), Value::String(text));
        }
        Ok(QueuedSend {
            messages: vec![message],
            updates: Vec::new(),
            action: SendAction::Workflow,
        })
    }

    /// The definition named `name`, when it exists and can run.
    fn runnable_definition(
        &self,
        name: &str,
        prefix: &str,
    ) -> Result<WorkflowDefinition, EngineError> {
        let catalog = self.workflow_catalog();
        let Some(entry) = catalog.get(name) else {
            return Err(EngineError::NotFound(format!(
                "no workflow named `{name}` in the workspace's .braid/workflows or the data directory's workflows"
            )));
        };
        entry.definition.clone().ok_or_else(|| {
            let errors: Vec<String> = entry.info.errors.iter().map(|p| p.to_string()).collect();
            EngineError::Invalid(ValidationErrors(vec![Problem {
                path: format!("{prefix}workflow"),
                message: format!(
                    "workflow `{name}` ({}) cannot run: {}",
                    entry.info.source,
                    errors.join("; ")
                ),
            }]))
        })
    }

    /// The run stored in message `id`.
    fn run_in(&self, id: MessageId) -> Result<Run, EngineError> {
        self.data()
            .pool
            .get(&id)
            .and_then(Run::of)
            .ok_or_else(|| EngineError::NotFound(format!("no workflow run in message {id}")))
    }

    /// The message holding the run `execution_id`.
    fn execution(&self, execution_id: &str) -> Result<MessageId, EngineError> {
        self.data()
            .pool
            .values()
            .find(|m| {
                matches!(&m.kind, MessageKind::WorkflowExecution(e) if e.execution_id == execution_id)
            })
            .map(|m| m.id)
            .ok_or_else(|| EngineError::NotFound(format!("no workflow run `{execution_id}`")))
    }

    /// Stores a run's progress and tells clients (`context_update` with the run in `metadata`).
    async fn save_run(&mut self, run: &mut Run, extra: ContextChanges) -> Result<(), EngineError> {
        run.exec.updated_at = Utc::now().max(run.exec.started_at);
        let message = run.to_message();
        let mut changes = extra;
        changes.updated_messages.push(message.clone());
        self.commit(changes).await?;
        run.message = message;
        let mut metadata = Metadata::new();
        metadata.insert(
            "workflow".to_owned(),
            json!({
                "execution_id": run.exec.execution_id,
                "workflow_name": run.exec.workflow_name,
                "status": run.exec.status,
                "current_step": run.exec.current_step,
                "completed_steps": run.exec.completed_steps,
                "total_steps": run.exec.total_steps,
            }),
        );
        self.emit_update(
            None,
            Some(MessageUpdate::StatusChanged {
                message_id: run.message.id,
                kind: run.message.kind_name(),
                status: run.message.status,
            }),
            metadata,
        )
        .await;
        Ok(())
    }

    /// Starts a run the person asked for (its message stored as `pending`), and runs it until
    /// it finishes or rests.
    pub(crate) async fn start_workflow(&mut self, id: MessageId) {
        match self.begin_run(id).await {
            Ok(true) => {}
            Ok(false) => return self.rest(ContextState::Idle).await,
            Err(e) => return self.fail(e, true).await,
        }
        if self.advance_workflow(id).await == RunEnd::Finished {
            self.rest(ContextState::Idle).await;
        }
    }

    /// Moves a `pending` run to `running`; `false` when it was cancelled while it waited.
    async fn begin_run(&mut self, id: MessageId) -> Result<bool, EngineError> {
        let mut run = self.run_in(id)?;
        if run.exec.status != WorkflowStatus::Pending {
            return Ok(false);
        }
        let now = Utc::now();
        run.exec.status = WorkflowStatus::Running;
        run.exec.started_at = now;
        run.exec.updated_at = now;
        run.message.status = MessageStatus::Complete;
        self.transition(run.executing_state()).await?;
        self.save_run(&mut run, ContextChanges::new()).await?;
        tracing::info!(context = %self.context_id(), workflow = %run.exec.workflow_name, execution = %run.exec.execution_id, "workflow started");
        Ok(true)
    }

    /// Runs steps from `current_step` until the run finishes or rests. A step whose outcome is
    /// already known (an approved or denied call) is passed in as `first`.
    async fn advance_workflow(&mut self, id: MessageId) -> RunEnd {
        self.advance_with(id, None).await
    }

    async fn advance_with(&mut self, id: MessageId, mut first: Option<StepOutcome>) -> RunEnd {
        loop {
            let mut run = match self.run_in(id) {
                Ok(run) => run,
                Err(e) => {
                    self.fail(e, true).await;
                    return RunEnd::Rested;
                }
            };
            let outcome = match first.take() {
                Some(outcome) => outcome,
                None => {
                    if let Some(end) = self.take_signal(&mut run).await {
                        return end;
                    }
                    let Some(step) = run.step().cloned() else {
                        return self.complete_run(run).await;
                    };
                    if let Err(e) = self.transition(run.executing_state()).await {
                        self.fail(e, true).await;
                        return RunEnd::Rested;
                    }
                    self.run_step(&mut run, &step).await
                }
            };
            let index = run.exec.completed_steps as usize;
            let Some(step) = run.step().cloned() else {
                return self.complete_run(run).await;
            };
            match outcome {
                StepOutcome::Done(output) => {
                    run.record.outputs.insert(step.name.clone(), output);
                    run.record.waiting_call = None;
                    run.exec.completed_steps += 1;
                    run.exec.current_step = run.step().map(|s| s.name.clone());
                    tracing::info!(context = %self.context_id(), execution = %run.exec.execution_id, step = %step.name, "workflow step completed");
                    if let Err(e) = self.transition(run.executing_state()).await {
                        self.fail(e, true).await;
                        return RunEnd::Rested;
                    }
                    if let Err(e) = self.save_run(&mut run, ContextChanges::new()).await {
                        self.fail(e, true).await;
                        return RunEnd::Rested;
                    }
                }
                StepOutcome::Failed(error) => {
                    if let Err(e) = self.transition(run.executing_state()).await {
                        self.fail(e, true).await;
                        return RunEnd::Rested;
                    }
                    return self.fail_run(run, step_failure(&step, index, error)).await;
                }
                StepOutcome::Waiting => return RunEnd::Rested,
                StepOutcome::Interrupted => {
                    let control = self
                        .workflow_signal()
                        .take()
                        .map(|(_, c)| c)
                        .unwrap_or(WorkflowControl::Pause);
                    return match control {
                        WorkflowControl::Cancel => self.cancel_run(run).await,
                        _ => self.pause_run(run).await,
                    };
                }
            }
        }
    }

    /// Applies a pause or cancel the person asked for while the last step ran (or an interrupt).
    async fn take_signal(&mut self, run: &mut Run) -> Option<RunEnd> {
        let signal = match self.workflow_signal().take() {
            Some((eid, control)) if eid == run.exec.execution_id => Some(control),
            Some(other) => {
                *self.workflow_signal() = Some(other);
                None
            }
            None => None,
        };
        let signal = signal.or_else(|| {
            self.interrupt_token()
                .is_cancelled()
                .then_some(WorkflowControl::Pause)
        });
        let run = Run {
            message: run.message.clone(),
            exec: run.exec.clone(),
            record: run.record.clone(),
        };
        match signal {
            Some(WorkflowControl::Pause) => Some(self.pause_run(run).await),
            Some(WorkflowControl::Cancel) => Some(self.cancel_run(run).await),
            _ => None,
        }
    }

    async fn run_step(&mut self, run: &mut Run, step: &Step) -> StepOutcome {
        let outputs = run.record.outputs.clone();
        let scope = Scope {
            params: &run.record.parameters,
            outputs: &outputs,
        };
        match &step.action {
            StepAction::Tool { tool, arguments } => match scope.render_value(arguments) {
                Ok(arguments) => self.tool_step(run, step, tool, arguments).await,
                Err(e) => StepOutcome::Failed(cause(e, "template")),
            },
            StepAction::Prompt { prompt } => match scope.render_text(prompt) {
                Ok(text) => self.prompt_step(run, step, text).await,
                Err(e) => StepOutcome::Failed(cause(e, "template")),
            },
            StepAction::Approval { message } => {
                if run.record.approved_step.as_deref() == Some(step.name.as_str()) {
                    run.record.approved_step = None;
                    return StepOutcome::Done(Value::Bool(true));
                }
                match scope.render_text(message) {
                    Ok(question) => {
                        run.exec.awaiting_approval = Some(question);
                        run.exec.status = WorkflowStatus::Paused;
                        if let Err(e) = self.save_run(run, ContextChanges::new()).await {
                            return StepOutcome::Failed(cause(e.to_string(), "storage"));
                        }
                        self.settle_run_turn(run);
                        self.rest(ContextState::Idle).await;
                        StepOutcome::Waiting
                    }
                    Err(e) => StepOutcome::Failed(cause(e, "template")),
                }
            }
        }
    }

    /// A tool step: the call is stored like a model's call, decided by the approval policy, and
    /// either waits for the person or runs now.
    async fn tool_step(
        &mut self,
        run: &mut Run,
        step: &Step,
        tool: &str,
        arguments: Value,
    ) -> StepOutcome {
        if tool.starts_with(TOOL_PREFIX) {
            return StepOutcome::Failed(cause(
                format!("`{tool}`: a workflow step cannot start another workflow"),
                "not_allowed",
            ));
        }
        if self.tools().get(tool).is_none() {
            return StepOutcome::Failed(cause(
                format!(
                    "no tool named `{tool}` is available (built in or from a ready MCP server)"
                ),
                "unknown_tool",
            ));
        }
        let call_id = new_call_id();
        let turn = TurnId::new();
        let mut requests = crate::turn::request_messages(
            self.tools(),
            vec![(call_id.clone(), tool.to_owned(), Ok(arguments))],
            turn,
        );
        for m in &mut requests {
            m.metadata
                .insert(STEP_KEY.to_owned(), run.step_marker(&step.name));
        }
        let branch = self.data().record.active_branch.clone();
        let mut changes = ContextChanges::new();
        for m in &requests {
            changes.push_message(&branch, m.clone());
        }
        if let Err(e) = self.commit(changes).await {
            return StepOutcome::Failed(cause(e.to_string(), "storage"));
        }
        for m in &requests {
            self.emit_created(m).await;
        }
        let Some(call) = open_calls(self.data())
            .into_iter()
            .find(|c| c.id == call_id)
        else {
            return StepOutcome::Failed(cause("the step's call was not stored", "internal"));
        };
        if crate::turn::policy_runs(self, &call) {
            if let Err(e) = self
                .current_turn()
                .set_approval(self, &call, ApprovalStatus::Approved)
                .await
            {
                return StepOutcome::Failed(cause(e.to_string(), "storage"));
            }
            return self.run_step_call(call).await;
        }
        run.record.waiting_call = Some(call_id.clone());
        if let Err(e) = self.save_run(run, ContextChanges::new()).await {
            return StepOutcome::Failed(cause(e.to_string(), "storage"));
        }
        self.rest(crate::turn::awaiting_approval(std::slice::from_ref(&call)))
            .await;
        StepOutcome::Waiting
    }

    /// Runs an approved step call and stores its result.
    async fn run_step_call(&mut self, call: OpenCall) -> StepOutcome {
        match self.current_turn().execute_call(self, call).await {
            Ok(ToolOutcome::Success { output }) => StepOutcome::Done(output),
            Ok(ToolOutcome::Error { error }) => StepOutcome::Failed(error),
            Err(e) => StepOutcome::Failed(cause(e.to_string(), "storage")),
        }
    }

    /// A prompt step: the text is added as the person's message, and the model's one answer
    /// (streamed, without tools) is the output.
    async fn prompt_step(&mut self, run: &mut Run, step: &Step, text: String) -> StepOutcome {
        let mut prompt = Message::user_text(text);
        prompt
            .metadata
            .insert(STEP_KEY.to_owned(), run.step_marker(&step.name));
        let prompt_at = prompt.created_at;
        let mut send = QueuedSend {
            messages: vec![prompt],
            updates: Vec::new(),
            action: SendAction::Converse,
        };
        if let Err(e) = crate::input::store_input(self, &mut send).await {
            return StepOutcome::Failed(cause(e.to_string(), "storage"));
        }
        let ids: Vec<MessageId> = send.messages.iter().map(|m| m.id).collect();
        let mut prepared = match self
            .current_turn()
            .run_pipeline(self, send.messages, Vec::new(), Vec::new())
            .await
        {
            Ok(prepared) => prepared,
            Err(e) => {
                crate::input::fail_input(self, &ids, &e).await;
                if let EngineError::Interrupted { .. } = e {
                    return StepOutcome::Interrupted;
                }
                return StepOutcome::Failed(crate::input::input_error(&e));
            }
        };
        // One answer: the step's output is text, so the model gets no tools to call.
        prepared.request.tools = Default::default();
        match self.current_turn().call_model(self, prepared).await {
            Ok(ModelOutcome::Interrupted) => StepOutcome::Interrupted,
            Ok(ModelOutcome::ToolCalls) => {
                if let Err(e) = self.refuse_prompt_calls().await {
                    return StepOutcome::Failed(cause(e.to_string(), "storage"));
                }
                StepOutcome::Done(Value::String(self.answer_since(prompt_at)))
            }
            Ok(ModelOutcome::Done) | Ok(ModelOutcome::Question(_)) => {
                StepOutcome::Done(Value::String(self.answer_since(prompt_at)))
            }
            Err(e) => {
                let code = serde_json::to_value(e.code())
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                StepOutcome::Failed(cause(e.to_string(), &code))
            }
        }
    }

    /// Gives calls the model made in a prompt step (which offers no tools) an error result.
    async fn refuse_prompt_calls(&mut self) -> Result<(), EngineError> {
        self.transition(ContextState::CollectingToolResults).await?;
        self.transition(ContextState::ProcessingToolResults).await?;
        let waiting = self.calls_owned_by_workflows();
        let open: Vec<OpenCall> = open_calls(self.data())
            .into_iter()
            .filter(|c| !waiting.contains(&c.id))
            .collect();
        self.current_turn()
            .close_round(
                self,
                &open,
                "not executed: a workflow prompt step asks for one answer without tools",
            )
            .await
    }

    /// The text of the model's answers after `since`.
    fn answer_since(&self, since: chrono::DateTime<Utc>) -> String {
        self.data()
            .active_messages()
            .into_iter()
            .filter(|m| m.role == Role::Assistant && m.created_at >= since)
            .filter_map(|m| match &m.kind {
                MessageKind::Text(t) => Some(t.text()),
                MessageKind::Question(q) => Some(q.question.clone()),
                MessageKind::Plan(p) => Some(p.goal.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every call a run owns: the model's calls that started runs, and step calls waiting.
    pub(crate) fn calls_owned_by_workflows(&self) -> Vec<ToolCallId> {
        self.data()
            .pool
            .values()
            .filter_map(Run::of)
            .flat_map(|r| [r.record.origin_call, r.record.waiting_call])
            .flatten()
            .collect()
    }

    /// The run whose tool step waits on an open call, if any.
    pub(crate) fn workflow_waiting_on_call(&self) -> Option<MessageId> {
        let open: Vec<ToolCallId> = open_calls(self.data()).into_iter().map(|c| c.id).collect();
        self.data()
            .pool
            .values()
            .filter_map(Run::of)
            .find(|r| {
                r.exec.status == WorkflowStatus::Running
                    && r.record
                        .waiting_call
                        .as_ref()
                        .is_some_and(|c| open.contains(c))
            })
            .map(|r| r.message.id)
    }

    /// Goes on with a run once the person decided its step's call.
    pub(crate) async fn continue_workflow_after_approval(&mut self, id: MessageId) {
        let run = match self.run_in(id) {
            Ok(run) => run,
            Err(e) => return self.fail(e, true).await,
        };
        let Some(call) = run
            .record
            .waiting_call
            .as_ref()
            .and_then(|w| open_calls(self.data()).into_iter().find(|c| &c.id == w))
        else {
            return self.rest(ContextState::Idle).await;
        };
        if let Err(e) = self.transition(run.executing_state()).await {
            return self.fail(e, true).await;
        }
        let outcome = if call.approval == ApprovalStatus::Denied {
            let mut result = call.not_run("denied by the person");
            if let MessageKind::ToolResult(r) = &mut result.kind
                && let ToolOutcome::Error { error } = &mut r.outcome
            {
                error.code = Some("denied".to_owned());
            }
            let branch = self.data().record.active_branch.clone();
            match self
                .commit(ContextChanges::new().add_message(&branch, result.clone()))
                .await
            {
                Ok(()) => {
                    self.emit_created(&result).await;
                    StepOutcome::Failed(cause(
                        format!("the person denied the `{}` call", call.name),
                        "denied",
                    ))
                }
                Err(e) => StepOutcome::Failed(cause(e.to_string(), "storage")),
            }
        } else {
            self.run_step_call(call).await
        };
        self.finish_advance(id, Some(outcome)).await;
    }

    /// Runs a run on and, once it finished, rests or lets the model go on (a run the model
    /// started answers its call).
    async fn finish_advance(&mut self, id: MessageId, first: Option<StepOutcome>) {
        let model_started = self
            .run_in(id)
            .map(|r| r.record.origin_call.is_some())
            .unwrap_or(false);
        if self.advance_with(id, first).await == RunEnd::Finished {
            let cancelled = self
                .run_in(id)
                .is_ok_and(|r| r.exec.status == WorkflowStatus::Cancelled);
            if model_started && !cancelled {
                // The model goes on in this turn: its answer, not the run, says how it ends.
                self.set_idle_outcome(None);
                self.current_turn().drive(self, None).await;
            } else {
                self.rest(ContextState::Idle).await;
            }
        }
    }
}

/// A new run's `workflow_execution` message, `pending`, with its record.
fn execution_message(
    definition: WorkflowDefinition,
    parameters: Map<String, Value>,
    origin_call: Option<ToolCallId>,
    role: Role,
) -> Message {
    let now = Utc::now();
    let exec = WorkflowExecutionMessage {
        workflow_name: definition.name.clone(),
        execution_id: String::new(),
        status: WorkflowStatus::Pending,
        current_step: definition.steps.first().map(|s| s.name.clone()),
        total_steps: definition.steps.len() as u32,
        completed_steps: 0,
        started_at: now,
        updated_at: now,
        result: None,
        awaiting_approval: None,
        error: None,
    };
    let record = RunRecord {
        definition,
        parameters,
        outputs: BTreeMap::new(),
        origin_call,
        waiting_call: None,
        approved_step: None,
    };
    let mut m = Message::new(role, MessageKind::WorkflowExecution(Box::new(exec.clone())));
    // The run's id is its message's: one name for both in every route and event.
    m.kind = MessageKind::WorkflowExecution(Box::new(WorkflowExecutionMessage {
        execution_id: m.id.to_string(),
        ..exec
    }));
    if let Ok(record) = serde_json::to_value(&record) {
        m.metadata.insert(RUN_KEY.to_owned(), record);
    }
    m
}

/// A fresh id for a call a run makes (its tool steps, its result), in the style of a
/// provider's call ids.
fn new_call_id() -> ToolCallId {
    ToolCallId::from(format!("wf_{}", uuid::Uuid::now_v7().simple()))
}
