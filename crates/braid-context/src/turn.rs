//! A turn: accepting what the person sent, running the pipeline, asking the model and streaming
//! its answer, and going around the tool loop until the model is done or something stops it.

use braid_llm::{LlmError, LlmEvent, LlmRequest, ToolArgumentsError};
use braid_protocol::payload::{FileReferencePayload, ImagePayload};
use braid_protocol::validate::normalize_file_path;
use braid_protocol::{
    ContentDelta, ContentFinal, ContextEvent, ContextState, ErrorCode, FileReferenceMessage,
    FileResolution, ImageMessage, LoopStopReason, McpToolRequestMessage, Message, MessageId,
    MessageKind, MessagePayload, MessageStatus, MessageUpdate, Metadata, Mode, QuestionAnswer,
    Role, SendMessageRequest, SystemControlMessage, TextMessage, TextPart, ToolCall, ToolCallId,
    ToolCalling, ToolOutcome, ToolRequestMessage, TurnId, Validate,
};
use braid_store::ContextChanges;
use braid_tools::ToolOrigin;
use chrono::Utc;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::actor::{Actor, QueuedSend, SendAction};
use crate::error::EngineError;
use crate::pipeline::{Draft, Pipeline, PipelineContext, ProcessResult};
use crate::tool_loop::RoundOutcome;

/// A request the pipeline prepared, and what it made that is not stored yet.
pub(crate) struct Prepared {
    /// The request for the model.
    pub request: LlmRequest,
    /// Stored (and announced) while the request goes out.
    pub output: PipelineOutput,
}

/// What a pipeline run stores and announces once it succeeded: committed beside the model
/// request, so a turn reaches the model one transaction sooner. A crash before the commit
/// leaves the input `pending`, which a restart fails as interrupted (retryable).
#[derive(Default)]
pub(crate) struct PipelineOutput {
    /// The input completed, notes added, updates; `None` when the run added nothing (a turn of
    /// the tool loop).
    pub changes: Option<ContextChanges>,
    /// The input's ids (marked `failed` if the commit fails).
    pub input: Vec<MessageId>,
    /// Control messages added (a summary), announced as created.
    pub notes: Vec<Message>,
    /// Messages announced as completed.
    pub completed: Vec<(MessageId, braid_protocol::KindName)>,
    /// What the optimization did, for a `context_update`'s metadata.
    pub report: Option<Metadata>,
}

/// How a model call ended.
pub(crate) enum ModelOutcome {
    /// The model answered and made no tool call.
    Done,
    /// The model asked a question (as JSON in its text); it waits for the person.
    Question(MessageId),
    /// The model made tool calls, now stored as requests.
    ToolCalls,
    /// The person interrupted; what arrived is kept as `incomplete`.
    Interrupted,
}

/// What the next step of a resumed turn is, read from the active branch's tail.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NextStep {
    /// Tool calls wait for decisions or results.
    ToolRound,
    /// The model has not answered the last message.
    CallModel,
    /// Nothing to do.
    Nothing,
}

/// The error category of a model failure.
pub fn llm_error_code(e: &LlmError) -> ErrorCode {
    match e {
        LlmError::Connect { .. } | LlmError::Malformed { .. } | LlmError::TooLarge { .. } => {
            ErrorCode::LlmUnavailable
        }
        LlmError::Http { status, .. } if *status >= 500 || *status == 429 => {
            ErrorCode::LlmUnavailable
        }
        LlmError::Http { .. } | LlmError::Provider { .. } => ErrorCode::LlmRejected,
        LlmError::StreamCut { .. } | LlmError::Interrupted { .. } => ErrorCode::StreamInterrupted,
        LlmError::Timeout { .. } => ErrorCode::Timeout,
        LlmError::InvalidRequest { .. } => ErrorCode::InvalidInput,
    }
}

impl Actor {
    /// Turns a request into the messages it adds (ids are given out now, so the answer can name
    /// them even when the send waits in the queue).
    pub(crate) fn accept_send(
        &self,
        request: SendMessageRequest,
    ) -> Result<QueuedSend, EngineError> {
        request.validate()?;
        let mut messages = Vec::new();
        let mut updates = Vec::new();
        let mut action = SendAction::Converse;
        match request.payload {
            MessagePayload::Text(t) => {
                messages.extend(t.file_references.into_iter().map(file_reference));
                messages.extend(t.images.into_iter().map(image));
                if !t.text.trim().is_empty() {
                    messages.push(Message::user_text(t.text));
                }
            }
            MessagePayload::FileReference(r) => messages.push(file_reference(r)),
            MessagePayload::Image(i) => messages.push(image(i)),
            MessagePayload::Workflow(w) => return self.accept_workflow(w, "payload."),
            MessagePayload::ToolResult(r) => {
                let Some(call) = self.open_calls().into_iter().find(|c| c.id == r.call_id) else {
                    return Err(EngineError::Conflict(format!(
                        "call `{}` is not waiting for a result",
                        r.call_id
                    )));
                };
                let outcome = match (r.output, r.error) {
                    (_, Some(message)) => ToolOutcome::Error {
                        error: braid_protocol::ErrorDetail::new(
                            message,
                            braid_protocol::Recoverability::Recoverable,
                        ),
                    },
                    (output, None) => ToolOutcome::Success {
                        output: output.unwrap_or(Value::Null),
                    },
                };
                let now = Utc::now();
                messages.push(call.result_message(outcome, 0, now, now));
            }
            MessagePayload::QuestionAnswer(a) => {
                let (question, answer) = self.answer(a.question_id, &a.value)?;
                updates.push(question);
                messages.push(answer);
            }
            MessagePayload::McpResource(r) => {
                let known = self
                    .services
                    .mcp
                    .as_ref()
                    .is_some_and(|m| m.server(&r.server_name).is_some());
                if !known {
                    return Err(EngineError::NotFound(format!(
                        "no MCP server named `{}` is configured",
                        r.server_name
                    )));
                }
                action = SendAction::InjectResource {
                    id: MessageId::new(),
                    server: r.server_name,
                    uri: r.resource_uri,
                };
            }
        }
        if let (Some(client), Some(last)) = (request.client_metadata, messages.last_mut()) {
            last.metadata
                .insert("client".to_owned(), Value::Object(client));
        }
        Ok(QueuedSend {
            messages,
            updates,
            action,
        })
    }

    /// Accepts a send and stores its input as `pending` (the 202 promise: what is answered with
    /// an id is stored).
    pub(crate) async fn accept_and_store(
        &mut self,
        request: SendMessageRequest,
    ) -> Result<QueuedSend, EngineError> {
        let mut send = self.accept_send(request)?;
        self.store_input(&mut send).await?;
        Ok(send)
    }

    /// The question with its answer recorded, and the user message that carries the answer.
    fn answer(
        &self,
        question_id: MessageId,
        value: &str,
    ) -> Result<(Message, Message), EngineError> {
        let Some(message) = self.data.pool.get(&question_id) else {
            return Err(EngineError::NotFound(format!("no message {question_id}")));
        };
        let MessageKind::Question(q) = &message.kind else {
            return Err(EngineError::Conflict(format!(
                "message {question_id} is not a question"
            )));
        };
        if q.answer.is_some() {
            return Err(EngineError::Conflict(format!(
                "question {question_id} is already answered"
            )));
        }
        let Some(option) = q.option(value) else {
            let values: Vec<&str> = q.options.iter().map(|o| o.value.as_str()).collect();
            return Err(EngineError::Conflict(format!(
                "`{value}` is not an option of question {question_id}; options: {}",
                values.join(", ")
            )));
        };
        let mut answered = message.clone();
        let mut q = q.clone();
        let now = Utc::now();
        let label = option.label.clone();
        q.answer = Some(QuestionAnswer {
            value: value.to_owned(),
            answered_at: now,
        });
        answered.kind = MessageKind::Question(q);
        answered.updated_at = now;
        let mut reply = Message::user_text(label);
        reply.metadata.insert(
            "answer_to".to_owned(),
            json!({"question_id": question_id, "value": value}),
        );
        Ok((answered, reply))
    }

    /// Runs a send: closes what the previous turn left open, runs the pipeline, stores the
    /// messages, and goes around the loop.
    pub(crate) async fn run_send(&mut self, send: QueuedSend) {
        self.interrupt = CancellationToken::new();
        self.progress.reset();
        if let SendAction::InjectResource { id, server, uri } = &send.action {
            return self.inject_resource(*id, server, uri).await;
        }
        if let SendAction::Workflow = send.action {
            let id = send.primary_id();
            if let Err(e) = self.pause_waiting_workflows().await {
                return self.fail(e, true).await;
            }
            if let Err(e) = self
                .close_open_calls("not executed: the person started a workflow instead", &[])
                .await
            {
                return self.fail(e, true).await;
            }
            return self.start_workflow(id).await;
        }
        if let Err(e) = self.pause_waiting_workflows().await {
            return self.fail(e, true).await;
        }
        let messages = send.messages;
        let ids: Vec<MessageId> = messages.iter().map(|m| m.id).collect();
        // Calls the send itself answers (a client-supplied result) stay open for it.
        let answered: Vec<ToolCallId> = messages
            .iter()
            .filter_map(|m| m.tool_call_id().cloned())
            .collect();
        if let Err(e) = self
            .close_open_calls(
                "not executed: the person sent a new message instead",
                &answered,
            )
            .await
        {
            self.fail_input(&ids, &e).await;
            self.fail(e, true).await;
            return;
        }
        // Stored after the person's messages, and only when the turn's pipeline succeeds.
        let notes = match self.state() {
            ContextState::Failed { error, .. } => vec![Message::new(
                Role::User,
                MessageKind::SystemControl(SystemControlMessage::FailureResolved {
                    error: error.clone(),
                }),
            )],
            _ => Vec::new(),
        };
        match self.run_pipeline(messages, send.updates, notes).await {
            Ok(request) => self.drive(Some(request)).await,
            // The person stopped it: the input says so and can be retried; nothing failed.
            Err(e @ EngineError::Interrupted { .. }) => {
                self.fail_input(&ids, &e).await;
                self.rest(ContextState::Idle).await;
            }
            Err(e) => {
                self.fail_input(&ids, &e).await;
                self.fail(e, true).await;
            }
        }
    }

    /// Reads an MCP resource (from this context's cache while fresh) into an `mcp_resource`
    /// message on the active branch. The model is not asked: the resource is context for the
    /// next turn.
    async fn inject_resource(&mut self, id: MessageId, server: &str, uri: &str) {
        if let Err(e) = self.transition(ContextState::ProcessingUserMessage).await {
            return self.fail(e, true).await;
        }
        let Some(manager) = self.services.mcp.clone() else {
            return self
                .fail(
                    EngineError::NotFound("no MCP servers are configured".to_owned()),
                    true,
                )
                .await;
        };
        let read = match self.resources.get(&manager, server, uri).await {
            Ok((resource, outcome)) => {
                tracing::info!(context = %self.id, server, uri, cached = matches!(outcome, braid_mcp::CacheOutcome::Fresh), "MCP resource injected");
                resource
            }
            Err(e) => {
                return self
                    .fail(
                        EngineError::NotFound(format!(
                            "MCP resource `{uri}` of `{server}` could not be read: {e}"
                        )),
                        true,
                    )
                    .await;
            }
        };
        let mut message = Message::new(Role::User, MessageKind::McpResource(read));
        message.id = id;
        let branch = self.data.record.active_branch.clone();
        match self
            .commit(ContextChanges::new().add_message(&branch, message.clone()))
            .await
        {
            Ok(()) => {
                self.emit_created(&message).await;
                self.rest(ContextState::Idle).await;
            }
            Err(e) => self.fail(e, true).await,
        }
    }

    /// The data processors see, copied so the actor stays free to move its state.
    pub(crate) fn pipeline_context(&self) -> PipelineContext {
        let branch = &self.data.record.active_branch;
        let mut ctx = self.frame_context(branch);
        ctx.history = self.data.model_history(branch);
        ctx
    }

    /// What a request on `branch` is built from besides its history (left empty): cheap
    /// whatever the history's length, for reads that reuse a plan of an unchanged history.
    pub(crate) fn frame_context(&self, branch: &braid_protocol::BranchName) -> PipelineContext {
        let config = self.data.record.config.clone();
        let model = self.services.settings.model_in_use(&config.model);
        let (workspace, workspace_problem) = match self
            .services
            .settings
            .workspace_roots
            .open_configured(config.workspace.as_deref())
        {
            Ok(workspace) => (workspace, None),
            Err(problem) => (None, Some(problem.to_string())),
        };
        // Kept between reads while the kernel reports no change to them (workspace_files).
        let files = crate::workspace_files::current(
            workspace.as_ref(),
            self.services.settings.user_workflows.as_deref(),
        );
        PipelineContext {
            instructions: files.instructions.clone(),
            workflow_tools: files.workflow_tools.clone(),
            model,
            branch_prompt: self
                .data
                .branch(branch)
                .and_then(|b| b.system_prompt.clone()),
            history: Vec::new(),
            tools: self.services.tools.clone(),
            workspace,
            workspace_problem,
            config,
            llm: self.services.llm.clone(),
            ocr: self.services.settings.ocr.clone(),
            image_hosts: self.services.settings.image_hosts.clone(),
            kept_frame: crate::pipeline::KeptFrame::default(),
        }
    }

    /// Runs the active branch's pipeline over `messages` (the send's input, already stored as
    /// `pending`); if every processor succeeded, returns the request and what is to be stored:
    /// the input as processed and `complete`, with `updates` and `notes` (control messages
    /// added after them), which [`Actor::call_model`] commits while the request goes out. On
    /// error nothing is stored: the caller marks the input `failed`.
    pub(crate) async fn run_pipeline(
        &mut self,
        messages: Vec<Message>,
        updates: Vec<Message>,
        notes: Vec<Message>,
    ) -> Result<Prepared, EngineError> {
        let pipeline = Pipeline::for_branch(self.data.active().pipeline.as_ref());
        let mut ctx = self.pipeline_context();
        // Built now when no kept frame describes the context, and kept for the turns and reads
        // after this one; a processor that finds it stale (a model's discovery ran meanwhile)
        // builds its own.
        let frame = self.plans.lock().unwrap_or_else(|e| e.into_inner()).frame(
            &self.data.record.active_branch,
            &ctx,
            &self.services.frames,
        );
        ctx.kept_frame = crate::pipeline::KeptFrame(Some(frame));
        let ctx = std::sync::Arc::new(ctx);
        let mut draft = Draft {
            messages: messages
                .into_iter()
                .map(|m| m.with_status(MessageStatus::Processing))
                .collect(),
            notes,
            ..Draft::default()
        };
        for processor in pipeline.processors() {
            // A processor with nothing to do for this draft is skipped, not run as a task
            // that would find nothing (two of the six for a plain text message).
            let Some(state) = processor.state(&draft) else {
                continue;
            };
            if self.state().kind().is_resting() && !draft.messages.is_empty() {
                self.start_on_stored_input(state).await?;
            } else {
                self.transition(state).await?;
            }
            let started = std::time::Instant::now();
            let (done, result) = self
                .run_pipeline_step(processor.clone(), draft, ctx.clone())
                .await?;
            draft = done;
            let result = result?;
            draft.timings.push((processor.name(), started.elapsed()));
            if result == ProcessResult::Complete {
                break;
            }
        }
        let Some(request) = draft.request.take() else {
            return Err(EngineError::Pipeline(
                crate::pipeline::PipelineError::Request(
                    "the branch's pipeline did not prepare a request".to_owned(),
                ),
            ));
        };
        let mut output = PipelineOutput {
            report: draft.optimization.take(),
            ..PipelineOutput::default()
        };
        if !draft.messages.is_empty() || !updates.is_empty() || !draft.notes.is_empty() {
            let timings: serde_json::Map<String, Value> = draft
                .timings
                .iter()
                .map(|(name, d)| (name.as_str().to_owned(), json!(d.as_secs_f64() * 1000.0)))
                .collect();
            let now = Utc::now();
            for m in &mut draft.messages {
                m.status = MessageStatus::Complete;
                m.error = None;
                m.updated_at = now;
            }
            if let Some(last) = draft.messages.last_mut() {
                last.metadata
                    .insert("pipeline_ms".to_owned(), Value::Object(timings));
            }
            let branch = self.data.record.active_branch.clone();
            let mut changes = ContextChanges::new();
            // Notes (a summary) after the input: ids follow creation order.
            for m in &draft.notes {
                changes.push_message(&branch, m.clone());
            }
            let input: Vec<MessageId> = draft.messages.iter().map(|m| m.id).collect();
            let notes: Vec<MessageId> = draft.notes.iter().map(|m| m.id).collect();
            changes
                .replacements
                .extend(self.input_at_end(&input, &notes));
            changes.updated_messages = draft.messages.clone();
            changes.updated_messages.extend(updates.iter().cloned());
            output.completed = draft
                .messages
                .iter()
                .chain(&updates)
                .map(|m| (m.id, m.kind_name()))
                .collect();
            output.input = input;
            output.notes = std::mem::take(&mut draft.notes);
            output.changes = Some(changes);
        }
        Ok(Prepared { request, output })
    }

    /// Stores what the pipeline made and announces it, while `beside` (the model request going
    /// out) makes progress: its output when it finished during the commit. A failed commit
    /// marks the input `failed`, as a failing step does.
    pub(crate) async fn store_pipeline_output<T>(
        &mut self,
        output: PipelineOutput,
        beside: impl std::future::Future<Output = T>,
    ) -> Result<Option<T>, EngineError> {
        let mut early = None;
        if let Some(changes) = output.changes {
            match self.commit_beside(changes, beside).await {
                Ok(done) => early = done,
                Err(e) => {
                    self.fail_input(&output.input, &e).await;
                    return Err(e);
                }
            }
            for m in &output.notes {
                self.emit_created(m).await;
            }
            for (message_id, kind) in output.completed {
                self.emit_update(
                    None,
                    Some(MessageUpdate::Completed { message_id, kind }),
                    Metadata::new(),
                )
                .await;
            }
        }
        if let Some(report) = output.report {
            self.emit_update(None, None, report).await;
        }
        Ok(early)
    }

    /// Emits the `created` update of a message.
    pub(crate) async fn emit_created(&self, m: &Message) {
        self.emit_update(
            None,
            Some(MessageUpdate::Created {
                message_id: m.id,
                kind: m.kind_name(),
                role: m.role,
            }),
            Metadata::new(),
        )
        .await;
    }

    /// Goes around the loop: ask the model, run its tool calls, ask again, until the model is
    /// done or something stops the loop. Always ends in a resting state.
    pub(crate) async fn drive(&mut self, mut prepared: Option<Prepared>) {
        loop {
            let prepared = match prepared.take() {
                Some(r) => r,
                None => match self.run_pipeline(Vec::new(), Vec::new(), Vec::new()).await {
                    Ok(r) => r,
                    Err(EngineError::Interrupted { step }) => {
                        let detail = format!(
                            "Interrupted while the next request was prepared ({} was stopped). Resume to continue.",
                            step.as_str()
                        );
                        if let Err(e) = self.stop_loop(LoopStopReason::Interrupted, detail).await {
                            self.fail(e, true).await;
                        }
                        return;
                    }
                    Err(e) => return self.fail(e, true).await,
                },
            };
            let sent_images = latest_vision_images(&prepared.request);
            match self.call_model(prepared).await {
                Ok(ModelOutcome::Done) | Ok(ModelOutcome::Interrupted) => {
                    return self.rest(ContextState::Idle).await;
                }
                Ok(ModelOutcome::Question(question_id)) => {
                    return self
                        .rest(ContextState::AwaitingUserAnswer { question_id })
                        .await;
                }
                Ok(ModelOutcome::ToolCalls) => match self.tool_round().await {
                    Ok(RoundOutcome::Continue) => continue,
                    Ok(RoundOutcome::Rested) => return,
                    Err(e) => return self.fail(e, true).await,
                },
                Err(e) => {
                    let recoverable =
                        !matches!(&e, EngineError::Llm(LlmError::InvalidRequest { .. }));
                    if e.code() == ErrorCode::LlmRejected && !sent_images.is_empty() {
                        self.set_aside_rejected_images(&sent_images, &e).await;
                    }
                    return self.fail(e, recoverable).await;
                }
            }
        }
    }

    /// Moves to a resting state and persists it.
    pub(crate) async fn rest(&mut self, state: ContextState) {
        if let Err(e) = self.announce(state).await {
            tracing::error!(context = %self.id, error = %e, "could not rest");
        }
        self.persist_state().await;
    }

    /// Asks the model and streams its answer into the context.
    pub(crate) async fn call_model(
        &mut self,
        prepared: Prepared,
    ) -> Result<ModelOutcome, EngineError> {
        let Prepared { request, output } = prepared;
        let Some(llm) = self.services.llm.clone() else {
            self.store_pipeline_output(output, std::future::ready(()))
                .await?;
            return Err(EngineError::LlmNotConfigured);
        };
        self.transition(ContextState::ConnectingToLlm {
            attempt: 1,
            reason: None,
            wait_ms: None,
        })
        .await?;
        let limit_secs = self.data.record.config.llm_timeout_secs.max(1);
        let deadline =
            tokio::time::Instant::now() + std::time::Duration::from_secs(u64::from(limit_secs));
        let tool_calling = request.tool_calling;
        let mut stream = llm.stream(&request).await;
        // The pipeline's output is stored while the request goes out; an item that arrives
        // meanwhile waits for the commit, so nothing of the answer is stored before the input.
        let mut early = self.store_pipeline_output(output, stream.next()).await?;
        self.transition(ContextState::AwaitingLlmFirstChunk).await?;

        let turn = TurnId::new();
        let mut answer = StreamedAnswer::default();
        let mut outcome: Option<Result<(), LlmError>> = None;
        let mut interrupted = false;
        let mut timed_out = false;
        let mut lost = None;
        loop {
            let item = if let Some(item) = early.take() {
                item
            } else {
                tokio::select! {
                    biased;
                    () = self.interrupt.cancelled() => {
                        interrupted = true;
                        break;
                    }
                    () = tokio::time::sleep_until(deadline) => {
                        timed_out = true;
                        break;
                    }
                    l = self.events.lost() => {
                        lost = Some(l);
                        break;
                    }
                    // The new message's row, committed: a client that saw it announced may ask
                    // for it next, so it is shown before any read is answered.
                    saved = async {
                        match answer.row.as_mut() {
                            Some(row) => Some((&mut row.pending).await),
                            None => None,
                        }
                    }, if answer.row.is_some() => {
                        if let (Some(row), Some(saved)) = (answer.row.take(), saved) {
                            self.settled(row.changes, saved).await?;
                        }
                        continue;
                    }
                    command = self.inbox.next() => {
                        if let Some(command) = command {
                            self.handle_while_busy(command).await;
                        }
                        continue;
                    }
                    item = stream.next() => item,
                }
            };
            match item {
                None => break,
                Some(Err(e)) => {
                    outcome = Some(Err(e));
                    break;
                }
                Some(Ok(LlmEvent::Retrying {
                    attempt,
                    reason,
                    wait_ms,
                })) => {
                    self.transition(ContextState::ConnectingToLlm {
                        attempt,
                        reason: Some(reason),
                        wait_ms: Some(wait_ms),
                    })
                    .await?;
                }
                Some(Ok(event)) => {
                    self.connected().await?;
                    if let LlmEvent::Finish { .. } = &event {
                        outcome = Some(Ok(()));
                    }
                    self.take_event(&mut answer, event, turn).await?;
                }
            }
        }
        drop(stream);
        if let Some(row) = answer.row.take() {
            self.settle(row).await?;
        }
        self.connected().await?;

        if timed_out {
            self.end_stream(&mut answer, MessageStatus::Incomplete)
                .await?;
            tracing::warn!(context = %self.id, limit_secs, "model call timed out");
            return Err(EngineError::LlmTimedOut { secs: limit_secs });
        }

        if interrupted {
            self.end_stream(&mut answer, MessageStatus::Incomplete)
                .await?;
            return Ok(ModelOutcome::Interrupted);
        }
        if let Some(lost) = lost {
            // The store lost events of this stream: stop it and fail visibly.
            self.end_stream(&mut answer, MessageStatus::Incomplete)
                .await?;
            return Err(EngineError::Store(
                braid_store::StoreError::EventsNotWritten {
                    reason: format!(
                        "{} event(s) of this answer could not be stored and were dropped ({})",
                        lost.count, lost.reason
                    ),
                },
            ));
        }
        match outcome {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                self.end_stream(&mut answer, MessageStatus::Incomplete)
                    .await?;
                return Err(e.into());
            }
            None => {
                self.end_stream(&mut answer, MessageStatus::Incomplete)
                    .await?;
                return Err(LlmError::StreamCut {
                    detail: "the stream ended without a finish".to_owned(),
                }
                .into());
            }
        }
        self.transition(ContextState::ProcessingLlmResponse).await?;
        self.finish_answer(answer, turn, tool_calling).await
    }

    /// Leaves `connecting_to_llm` (a retry was waiting) for `awaiting_llm_first_chunk`, the
    /// state every outcome of a model call moves on from.
    async fn connected(&mut self) -> Result<(), EngineError> {
        if let ContextState::ConnectingToLlm { .. } = self.state() {
            self.transition(ContextState::AwaitingLlmFirstChunk).await?;
        }
        Ok(())
    }

    /// Folds one stream event into the answer, emitting deltas and state as it goes.
    async fn take_event(
        &mut self,
        answer: &mut StreamedAnswer,
        event: LlmEvent,
        turn: TurnId,
    ) -> Result<(), EngineError> {
        match event {
            LlmEvent::TextDelta { text } if !text.is_empty() => {
                answer.chunks += 1;
                answer.chars += text.chars().count() as u64;
                answer.sequence += 1;
                // The state first: the first chunk's commit (the new message) then stores it.
                self.transition(ContextState::StreamingLlmResponse {
                    chunks: answer.chunks,
                    chars: answer.chars,
                })
                .await?;
                self.ensure_message(answer, turn).await?;
                if let Some(m) = &mut answer.message
                    && let MessageKind::Text(t) = &mut m.kind
                {
                    t.push_text(&text);
                }
                if let Some(m) = &answer.message {
                    self.events
                        .emit(ContextEvent::ContentDelta(ContentDelta {
                            context_id: self.id,
                            message_id: m.id,
                            sequence: answer.sequence,
                            delta: text,
                            is_final: false,
                        }))
                        .await;
                }
                if answer
                    .chunks
                    .is_multiple_of(self.services.settings.save_stream_every.max(1))
                {
                    // The partial save goes after the row; it is mirrored in memory after it too.
                    if let Some(row) = answer.row.take() {
                        self.settle(row).await?;
                    }
                    self.save_partial(answer).await;
                }
            }
            LlmEvent::ReasoningDelta { text } if !text.is_empty() => {
                answer.chunks += 1;
                self.transition(ContextState::StreamingLlmResponse {
                    chunks: answer.chunks,
                    chars: answer.chars,
                })
                .await?;
                self.ensure_message(answer, turn).await?;
                if let Some(m) = &mut answer.message
                    && let MessageKind::Text(t) = &mut m.kind
                {
                    match t.parts.first_mut() {
                        Some(TextPart::Reasoning { text: r }) => r.push_str(&text),
                        _ => t.parts.insert(0, TextPart::Reasoning { text }),
                    }
                }
            }
            LlmEvent::ToolCallStarted { .. } | LlmEvent::ToolCallArgumentsDelta { .. } => {
                answer.chunks += 1;
                self.transition(ContextState::StreamingLlmResponse {
                    chunks: answer.chunks,
                    chars: answer.chars,
                })
                .await?;
            }
            LlmEvent::ToolCallCompleted {
                id,
                name,
                arguments,
                ..
            } => {
                answer.calls.push((id, name, arguments));
            }
            LlmEvent::Usage(u) => {
                answer.usage = Some(json!({
                    "prompt_tokens": u.prompt_tokens,
                    "completion_tokens": u.completion_tokens,
                    "cached_prompt_tokens": u.cached_prompt_tokens,
                }));
            }
            LlmEvent::Finish { reason } => {
                answer.finish = serde_json::to_value(reason).ok();
            }
            // Retries are taken in `call_model`, before the answer begins.
            LlmEvent::TextDelta { .. }
            | LlmEvent::ReasoningDelta { .. }
            | LlmEvent::Retrying { .. } => {}
        }
        Ok(())
    }

    /// Creates the streamed assistant message on the first text and announces it at once: its
    /// row is queued, and the store commits the announcement and the deltas no earlier than the
    /// row (in one transaction on SQLite), and none of them if the row fails, so the first
    /// chunk does not wait for a commit of its own. The row is mirrored in memory once
    /// committed, before any read is answered ([`Actor::call_model`]'s loop).
    async fn ensure_message(
        &mut self,
        answer: &mut StreamedAnswer,
        turn: TurnId,
    ) -> Result<(), EngineError> {
        if answer.message.is_some() {
            return Ok(());
        }
        let mut m = Message::new(
            Role::Assistant,
            MessageKind::Text(TextMessage { parts: Vec::new() }),
        )
        .with_status(MessageStatus::Streaming);
        m.set_turn_id(turn);
        let branch = self.data.record.active_branch.clone();
        let row = self
            .queue_commit(ContextChanges::new().add_message(&branch, m.clone()))
            .await?;
        answer.row = Some(row);
        self.emit_created(&m).await;
        answer.message = Some(m);
        Ok(())
    }

    /// Saves what has streamed so far, so a crash keeps it. A failure is logged: the final save
    /// will try again.
    async fn save_partial(&mut self, answer: &StreamedAnswer) {
        if let Some(m) = &answer.message {
            let mut m = m.clone();
            m.updated_at = Utc::now();
            if let Err(error) = self.commit(ContextChanges::new().update_message(m)).await {
                tracing::warn!(context = %self.id, %error, "partial answer not saved");
            }
        }
    }

    /// Ends a stream that did not finish: keeps what arrived with `status`.
    async fn end_stream(
        &mut self,
        answer: &mut StreamedAnswer,
        status: MessageStatus,
    ) -> Result<(), EngineError> {
        let Some(mut m) = answer.message.take() else {
            return Ok(());
        };
        m.status = status;
        m.updated_at = Utc::now();
        if let MessageKind::Text(t) = &m.kind
            && t.parts.is_empty()
        {
            m.kind = MessageKind::Text(TextMessage::plain(""));
        }
        self.commit(ContextChanges::new().update_message(m.clone()))
            .await?;
        self.finish_events(
            &m,
            answer.sequence,
            MessageUpdate::StatusChanged {
                message_id: m.id,
                kind: m.kind_name(),
                status,
            },
        )
        .await;
        Ok(())
    }

    /// Flushes events so the final content is durable, then tells clients the message is final.
    async fn finish_events(&self, m: &Message, sequence: u64, update: MessageUpdate) {
        if let Err(error) = self.events.flush().await {
            tracing::warn!(context = %self.id, %error, "events not flushed");
        }
        self.events
            .emit(ContextEvent::ContentFinal(ContentFinal {
                context_id: self.id,
                message_id: m.id,
                sequence,
                is_final: true,
            }))
            .await;
        self.emit_update(None, Some(update), Metadata::new()).await;
    }

    /// Stores a finished answer: its text (or the plan or question it holds) and its tool calls
    /// as requests. A prompted model's calls are read from its text here: the stored text is
    /// what surrounds them, and they become requests exactly like native calls.
    async fn finish_answer(
        &mut self,
        mut answer: StreamedAnswer,
        turn: TurnId,
        tool_calling: ToolCalling,
    ) -> Result<ModelOutcome, EngineError> {
        if tool_calling == ToolCalling::Prompted {
            take_prompted_calls(&mut answer);
        }
        let mut changes = ContextChanges::new();
        let branch = self.data.record.active_branch.clone();
        let mut question = None;
        // The model that wrote it, so a person can tell answers of different models apart.
        let model = self
            .services
            .settings
            .model_in_use(&self.data.record.config.model);
        let final_text = answer.message.take().map(|mut m| {
            m.status = MessageStatus::Complete;
            m.updated_at = Utc::now();
            m.metadata.insert("model".to_owned(), json!(model));
            if let Some(u) = &answer.usage {
                m.metadata.insert("usage".to_owned(), u.clone());
            }
            if let Some(f) = &answer.finish {
                m.metadata.insert("finish_reason".to_owned(), f.clone());
            }
            if let MessageKind::Text(t) = &m.kind {
                match braid_protocol::structured::detect_structured(&t.text()) {
                    Some(MessageKind::Plan(p)) if self.data.record.config.mode == Mode::Plan => {
                        m.kind = MessageKind::Plan(p);
                    }
                    Some(MessageKind::Question(q)) => {
                        question = Some(m.id);
                        m.kind = MessageKind::Question(q);
                    }
                    _ => {}
                }
            }
            m
        });
        let mut requests = self.request_messages(std::mem::take(&mut answer.calls), turn);
        let made_calls = !requests.is_empty();
        // A prompted answer that was only calls: the streamed message becomes the first request
        // (a text message cannot be empty), as a plan or question replaces its text.
        let final_text = match final_text {
            Some(m)
                if made_calls && matches!(&m.kind, MessageKind::Text(t) if t.parts.is_empty()) =>
            {
                let mut first = requests.remove(0);
                first.id = m.id;
                first.created_at = m.created_at;
                first.metadata.extend(m.metadata);
                Some(first)
            }
            other => other,
        };
        if let Some(m) = &final_text {
            changes.updated_messages.push(m.clone());
        }
        for r in &requests {
            changes.push_message(&branch, r.clone());
        }
        if made_calls {
            self.transition(ContextState::ParsingToolCalls).await?;
        }
        self.commit(changes).await?;
        if let Some(m) = &final_text {
            self.finish_events(
                m,
                answer.sequence,
                MessageUpdate::Completed {
                    message_id: m.id,
                    kind: m.kind_name(),
                },
            )
            .await;
        }
        for r in &requests {
            self.emit_created(r).await;
        }
        Ok(if made_calls {
            ModelOutcome::ToolCalls
        } else if let Some(q) = question {
            ModelOutcome::Question(q)
        } else {
            ModelOutcome::Done
        })
    }

    /// The model's calls as messages: built-in calls of the answer in one `tool_request`, each
    /// MCP call in an `mcp_tool_request` routed by its server. Calls whose arguments were not a
    /// JSON object are stored with empty arguments and the reason, and get an error result
    /// without running.
    pub(crate) fn request_messages(
        &self,
        calls: Vec<(ToolCallId, String, Result<Value, ToolArgumentsError>)>,
        turn: TurnId,
    ) -> Vec<Message> {
        let mut builtin = Vec::new();
        let mut invalid = serde_json::Map::new();
        let mut out = Vec::new();
        for (id, name, arguments) in calls {
            let arguments = match arguments {
                Ok(v) => v,
                Err(e) => {
                    invalid.insert(id.to_string(), json!({"reason": e.reason, "raw": e.raw}));
                    json!({})
                }
            };
            let origin = self
                .services
                .tools
                .get(&name)
                .map(|t| t.spec().origin.clone());
            match origin {
                Some(ToolOrigin::Mcp { server }) => {
                    let prefix = format!("mcp__{server}__");
                    let tool_name = name.strip_prefix(&prefix).unwrap_or(&name).to_owned();
                    let mut m = Message::new(
                        Role::Assistant,
                        MessageKind::McpToolRequest(McpToolRequestMessage {
                            server_name: server,
                            tool_name,
                            called_as: name,
                            arguments,
                            request_id: id,
                            approval_status: Default::default(),
                            requested_at: Utc::now(),
                        }),
                    );
                    m.set_turn_id(turn);
                    out.push(m);
                }
                _ => builtin.push(ToolCall::new(id, name, arguments)),
            }
        }
        if !builtin.is_empty() {
            let mut m = Message::new(
                Role::Assistant,
                MessageKind::ToolRequest(ToolRequestMessage { calls: builtin }),
            );
            m.set_turn_id(turn);
            if !invalid.is_empty() {
                m.metadata
                    .insert("invalid_arguments".to_owned(), Value::Object(invalid));
            }
            out.insert(0, m);
        }
        out
    }

    /// What a resumed turn should do next, from the active branch's tail.
    pub(crate) fn next_step(&self) -> NextStep {
        if !self.open_calls().is_empty() {
            return NextStep::ToolRound;
        }
        let last = self
            .data
            .active_messages()
            .into_iter()
            .rev()
            .find(|m| m.kind_name().is_sent_to_model() && !m.is_held_input());
        match last {
            Some(m) if m.role == Role::User || m.role == Role::Tool => NextStep::CallModel,
            Some(m) if m.status == MessageStatus::Incomplete => NextStep::CallModel,
            _ => NextStep::Nothing,
        }
    }

    /// Whether `resume` can do anything now.
    pub(crate) fn check_resumable(&self) -> Result<(), EngineError> {
        match self.state() {
            ContextState::Paused { .. }
            | ContextState::Failed {
                recoverable: true, ..
            } => Ok(()),
            ContextState::Idle if self.next_step() != NextStep::Nothing => Ok(()),
            other => Err(EngineError::Conflict(format!(
                "nothing to resume in state `{}`",
                other.kind()
            ))),
        }
    }

    /// Continues a paused or failed turn from where the history says it stopped.
    pub(crate) async fn resume(&mut self) {
        self.interrupt = CancellationToken::new();
        self.progress.reset();
        match self.next_step() {
            NextStep::ToolRound => match self.tool_round().await {
                Ok(RoundOutcome::Continue) => self.drive(None).await,
                Ok(RoundOutcome::Rested) => {}
                Err(e) => self.fail(e, true).await,
            },
            NextStep::CallModel => self.drive(None).await,
            NextStep::Nothing => self.rest(ContextState::Idle).await,
        }
    }

    /// An interrupt while nothing runs: a loop waiting for approval is paused; otherwise there
    /// is nothing to stop.
    pub(crate) async fn interrupt_while_resting(&mut self) -> Result<(), EngineError> {
        if matches!(self.state(), ContextState::AwaitingToolApproval { .. }) {
            self.stop_loop(
                LoopStopReason::Interrupted,
                "Interrupted while waiting for approval; resume to continue.".to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    /// Builds the send that executes (switching to act mode) or refines a plan, its input
    /// stored.
    pub(crate) async fn plan_send(
        &mut self,
        plan: MessageId,
        feedback: Option<String>,
    ) -> Result<QueuedSend, EngineError> {
        let Some(MessageKind::Plan(p)) = self.data.pool.get(&plan).map(|m| m.kind.clone()) else {
            return Err(EngineError::NotFound(format!("no plan message {plan}")));
        };
        let feedback_given = feedback.is_some();
        if feedback.is_none()
            && let Some(run) = self.plan_execution(plan)
        {
            return Err(EngineError::Conflict(format!(
                "plan {plan} was already executed (message {run}); a plan runs once"
            )));
        }
        let text = match feedback {
            None => {
                if self.data.record.config.mode == Mode::Plan {
                    self.set_mode(Mode::Act).await?;
                }
                let mut text = format!("Execute the plan: {}\n", p.goal);
                for s in &p.steps {
                    text.push_str(&format!("{}. {} ({})\n", s.step_number, s.action, s.reason));
                }
                text
            }
            Some(feedback) => format!("Refine the plan \"{}\": {feedback}", p.goal),
        };
        let action = if feedback_given {
            PLAN_REFINE
        } else {
            PLAN_EXECUTE
        };
        let mut m = Message::user_text(text);
        m.metadata.insert(PLAN_ID.to_owned(), json!(plan));
        m.metadata.insert(PLAN_ACTION.to_owned(), json!(action));
        let mut send = QueuedSend {
            messages: vec![m],
            updates: Vec::new(),
            action: SendAction::Converse,
        };
        self.store_input(&mut send).await?;
        Ok(send)
    }

    /// The message that executed `plan` on the active branch, if one did (a branch made before
    /// the execution may execute it again: that history never ran it).
    pub(crate) fn plan_execution(&self, plan: MessageId) -> Option<MessageId> {
        let plan = json!(plan);
        self.data.active().message_ids.into_iter().find(|id| {
            self.data.pool.get(id).is_some_and(|m| {
                m.metadata.get(PLAN_ID) == Some(&plan)
                    && m.metadata.get(PLAN_ACTION).and_then(Value::as_str) == Some(PLAN_EXECUTE)
            })
        })
    }
}

/// The metadata key naming the plan a user message executes or refines.
pub const PLAN_ID: &str = "plan_id";
/// The metadata key saying what a plan's user message does: [`PLAN_EXECUTE`] or [`PLAN_REFINE`].
pub const PLAN_ACTION: &str = "plan_action";
/// [`PLAN_ACTION`] of the message that executes a plan.
pub const PLAN_EXECUTE: &str = "execute";
/// [`PLAN_ACTION`] of a message asking to refine a plan.
pub const PLAN_REFINE: &str = "refine";

/// What has arrived of the model's answer.
#[derive(Default)]
struct StreamedAnswer {
    message: Option<Message>,
    /// The message's row, queued and not yet mirrored in memory.
    row: Option<crate::actor::QueuedCommit>,
    sequence: u64,
    chunks: u32,
    chars: u64,
    calls: Vec<(ToolCallId, String, Result<Value, ToolArgumentsError>)>,
    usage: Option<Value>,
    finish: Option<Value>,
}

/// Moves the calls a prompted model wrote in its text into the answer's calls (after any native
/// ones), leaving the text around them and the reasoning.
fn take_prompted_calls(answer: &mut StreamedAnswer) {
    let Some(m) = &mut answer.message else {
        return;
    };
    let MessageKind::Text(t) = &mut m.kind else {
        return;
    };
    let parsed = braid_llm::prompted::parse_answer(&t.text());
    if parsed.calls.is_empty() {
        return;
    }
    tracing::debug!(
        calls = parsed.calls.len(),
        "tool calls read from a prompted answer"
    );
    t.parts.retain(|p| matches!(p, TextPart::Reasoning { .. }));
    // Without text or reasoning left the parts stay empty: `finish_answer` then stores the
    // message as the calls' request.
    if !parsed.text.is_empty() {
        t.parts.push(TextPart::Text { text: parsed.text });
    }
    m.metadata
        .insert("tool_calling".to_owned(), json!(ToolCalling::Prompted));
    answer.calls.extend(
        parsed
            .calls
            .into_iter()
            .map(|c| (c.id, c.name, c.arguments)),
    );
}

/// The images sent to the model as images since its last answer: the suspects when the
/// provider refuses the request.
fn latest_vision_images(request: &LlmRequest) -> Vec<MessageId> {
    request
        .messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::Assistant)
        .filter(|m| {
            matches!(&m.kind, MessageKind::Image(i)
                if i.recognition.as_ref().is_some_and(|r| r.method == braid_protocol::RecognitionMethod::Vision))
        })
        .map(|m| m.id)
        .collect()
}

fn image(i: ImagePayload) -> Message {
    let mut image = ImageMessage::new(i.source, i.recognition_mode);
    image.caption = i.caption;
    Message::new(Role::User, MessageKind::Image(image))
}

fn file_reference(r: FileReferencePayload) -> Message {
    Message::new(
        Role::User,
        MessageKind::FileReference(FileReferenceMessage {
            path: normalize_file_path(&r.path),
            range: r.range,
            display_text: r.display_text,
            resolution: FileResolution::Pending,
        }),
    )
}
