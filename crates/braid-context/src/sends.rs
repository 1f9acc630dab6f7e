//! What a context accepts and starts: a send's messages built and stored as `pending` (the
//! 202 promise), an MCP resource read in, a plan executed or refined, a failed input retried or
//! deleted, a turn begun, resumed or continued after approval. The turn itself is a
//! [`Turn`] value the actor drives as its host.

use braid_protocol::api::{ApprovalRequest, ApprovalResponse, ResumeResponse};
use braid_protocol::payload::{FileReferencePayload, ImagePayload};
use braid_protocol::validate::normalize_file_path;
use braid_protocol::{
    ContextState, ContextTurnId, ErrorDetail, FileReferenceMessage, FileResolution, ImageMessage,
    Message, MessageId, MessageKind, MessagePayload, MessageStatus, MessageUpdate, Metadata, Mode,
    QuestionAnswer, Recoverability, Role, SendMessageRequest, ToolOutcome, Validate,
};
use braid_store::{BranchIds, ContextChanges};
use chrono::Utc;
use serde_json::{Value, json};

use crate::actor::{Actor, Reply};
use crate::calls::open_calls;
use crate::error::EngineError;
use crate::host::Host;
use crate::input;
use crate::send::{QueuedSend, SendAction};
use crate::turn::{NextStep, RoundOutcome, next_step};

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
                let Some(call) = open_calls(self.data())
                    .into_iter()
                    .find(|c| c.id == r.call_id)
                else {
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
                    .mcp()
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
        // Named before the input's commit, which carries the turn's first record.
        self.turn_started_by(send.primary_id());
        input::store_input(self, &mut send).await?;
        Ok(send)
    }

    /// The question with its answer recorded, and the user message that carries the answer.
    fn answer(
        &self,
        question_id: MessageId,
        value: &str,
    ) -> Result<(Message, Message), EngineError> {
        let Some(message) = self.data().pool.get(&question_id) else {
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

    /// Runs a send as its turn (the one opened for it, or the one it was given when queued),
    /// and ends that turn.
    pub(crate) async fn run_send(&mut self, send: QueuedSend) {
        if !self.has_open_turn() {
            let given = self.take_queued_turn(send.primary_id());
            self.open_turn(given);
            self.turn_started_by(send.primary_id());
        }
        // Boxed: the futures that hold this one (the actor's loop, a command's handling) stay
        // small, so polling a deep turn (a workflow the model starts) fits a thread's stack.
        Box::pin(self.run_send_turn(send)).await;
        self.close_turn().await;
    }

    /// Runs a send: an MCP resource is read in, a workflow starts, and anything else is a
    /// conversational turn.
    async fn run_send_turn(&mut self, send: QueuedSend) {
        let mut turn = self.begin_turn();
        if let SendAction::InjectResource { id, server, uri } = &send.action {
            return self.inject_resource(*id, server, uri).await;
        }
        if let Err(e) = self.pause_waiting_workflows().await {
            return self.fail(e, true).await;
        }
        if let SendAction::Workflow = send.action {
            let id = send.primary_id();
            if let Err(e) = turn
                .close_open_calls(
                    self,
                    "not executed: the person started a workflow instead",
                    &[],
                )
                .await
            {
                return self.fail(e, true).await;
            }
            return self.start_workflow(id).await;
        }
        turn.converse(self, send).await;
    }

    /// Continues a paused or failed turn from where the history says it stopped, as a new turn
    /// the answer names (a context with nothing to resume is a `Conflict`).
    pub(crate) async fn resume(&mut self, reply: Reply<ResumeResponse>) {
        if let Err(e) = self.check_resumable() {
            let _ = reply.send(Err(e));
            return;
        }
        let nothing_left = next_step(self.data()) == NextStep::Nothing;
        let (turn_id, stream_after) = self.open_answered_turn().await;
        let answer = Ok(ResumeResponse {
            turn_id,
            stream_after,
        });
        let mut turn = self.begin_turn();
        if nothing_left {
            // The move to idle is all the turn does: it is stored before the answer, so whoever
            // was answered reads idle (a read during its commit shows the state committed last,
            // the one the resume ended).
            Box::pin(turn.resume(self)).await;
            let _ = reply.send(answer);
        } else {
            let _ = reply.send(answer);
            Box::pin(turn.resume(self)).await;
        }
        self.close_turn().await;
    }

    /// Records approval decisions. Once every waiting call is decided, the answer names the
    /// turn that runs the round and goes on around the loop, which then runs; until then
    /// nothing runs and the answer names no turn.
    pub(crate) async fn approve(
        &mut self,
        request: ApprovalRequest,
        reply: Reply<ApprovalResponse>,
    ) {
        match crate::turn::record_decisions(self, request).await {
            Ok(true) => {
                let (turn_id, stream_after) = self.open_answered_turn().await;
                let _ = reply.send(Ok(ApprovalResponse {
                    turn_id: Some(turn_id),
                    stream_after,
                }));
                Box::pin(self.approved_turn()).await;
                self.close_turn().await;
            }
            Ok(false) => {
                let _ = reply.send(Ok(ApprovalResponse {
                    turn_id: None,
                    stream_after: None,
                }));
            }
            Err(e) => {
                let _ = reply.send(Err(e));
            }
        }
    }

    /// Opens a new turn for an answer that names it, with the id of the last event before it,
    /// to stream the turn from. Every event emitted so far is committed first, so the log's
    /// last event is the last one before the turn; when the log cannot say, no id is given
    /// (the turn still runs).
    pub(crate) async fn open_answered_turn(&mut self) -> (ContextTurnId, Option<u64>) {
        let last = match self.flush_events().await {
            Ok(()) => self
                .store()
                .last_event_sequence(self.context_id())
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let stream_after = match last {
            Ok(last) => Some(last),
            Err(error) => {
                tracing::warn!(context = %self.context_id(), %error, "the event to stream a turn from is unknown");
                None
            }
        };
        // Its `running` record rides with the turn's first commit.
        let turn = self.open_turn(None);
        (turn, stream_after)
    }

    /// An interrupt while nothing runs: a loop waiting for approval is paused; otherwise there
    /// is nothing to stop.
    pub(crate) async fn interrupt_while_resting(&mut self) -> Result<(), EngineError> {
        let mut turn = self.current_turn();
        turn.interrupt_while_resting(self).await
    }

    /// Reads an MCP resource (from this context's cache while fresh) into an `mcp_resource`
    /// message on the active branch. The model is not asked: the resource is context for the
    /// next turn.
    async fn inject_resource(&mut self, id: MessageId, server: &str, uri: &str) {
        if let Err(e) = self.transition(ContextState::ProcessingUserMessage).await {
            return self.fail(e, true).await;
        }
        let Some(manager) = self.mcp().cloned() else {
            return self
                .fail(
                    EngineError::NotFound("no MCP servers are configured".to_owned()),
                    true,
                )
                .await;
        };
        let read = match self.resources().get(&manager, server, uri).await {
            Ok((resource, outcome)) => {
                tracing::info!(context = %self.context_id(), server, uri, cached = matches!(outcome, braid_mcp::CacheOutcome::Fresh), "MCP resource injected");
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
        let mut message = Message::new(Role::User, MessageKind::McpResource(Box::new(read)));
        message.id = id;
        let branch = self.data().record.active_branch.clone();
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

    /// Whether `resume` can do anything now.
    pub(crate) fn check_resumable(&self) -> Result<(), EngineError> {
        match self.state() {
            ContextState::Paused { .. }
            | ContextState::Failed {
                recoverable: true, ..
            } => Ok(()),
            ContextState::Idle if next_step(self.data()) != NextStep::Nothing => Ok(()),
            other => Err(EngineError::Conflict(format!(
                "nothing to resume in state `{}`",
                other.kind()
            ))),
        }
    }

    /// Builds the send that executes (switching to act mode) or refines a plan, its input
    /// stored.
    pub(crate) async fn plan_send(
        &mut self,
        plan: MessageId,
        feedback: Option<String>,
    ) -> Result<QueuedSend, EngineError> {
        let Some(MessageKind::Plan(p)) = self.data().pool.get(&plan).map(|m| m.kind.clone()) else {
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
                if self.data().record.config.mode == Mode::Plan {
                    self.set_mode(Mode::Act).await?;
                }
                let mut text = format!("Execute the plan: {}\n", p.goal);
                for s in &p.steps {
                    text.push_str(&format!("{}. {} ({})\n", s.step_number, s.action, s.reason));
                }
                // The person follows the run on the plan's card, which ticks from these calls.
                text.push_str(
                    "Call `update_plan` with a step's step_number as you go: status \
                     `in_progress` when you start it, `completed` when it is done, `skipped` \
                     if you leave it out.\n",
                );
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
        input::store_input(self, &mut send).await?;
        Ok(send)
    }

    /// The message that executed `plan` on the active branch, if one did (a branch made before
    /// the execution may execute it again: that history never ran it).
    pub(crate) fn plan_execution(&self, plan: MessageId) -> Option<MessageId> {
        let plan = json!(plan);
        self.data().active().message_ids.into_iter().find(|id| {
            self.data().pool.get(id).is_some_and(|m| {
                m.metadata.get(PLAN_ID) == Some(&plan)
                    && m.metadata.get(PLAN_ACTION).and_then(Value::as_str) == Some(PLAN_EXECUTE)
            })
        })
    }

    /// The turn [`Actor::approve`] runs once every call is decided: the round, then on around
    /// the loop.
    async fn approved_turn(&mut self) {
        let mut turn = self.begin_turn();
        if let Some(run) = self.workflow_waiting_on_call() {
            return self.continue_workflow_after_approval(run).await;
        }
        match turn.run_round(self).await {
            Ok(RoundOutcome::Continue) => turn.drive(self, None).await,
            Ok(RoundOutcome::Rested) => {}
            Err(e) => self.fail(e, true).await,
        }
    }

    /// Deletes failed input, or input still waiting in the queue, with the rest of its send:
    /// it leaves every branch and the queue. A queued message keeps a `failed` record in the
    /// pool (it never ran), so nothing is left `pending`. Anything else is a `Conflict`.
    pub(crate) async fn delete_input(&mut self, id: MessageId) -> Result<(), EngineError> {
        let (_, group) = input::send_group(self.data(), id)?;
        let Some(message) = group.iter().find(|m| m.id == id) else {
            return Err(EngineError::NotFound(format!(
                "no message {id} in this context"
            )));
        };
        let queued = self
            .queue()
            .iter()
            .position(|s| s.messages.iter().any(|m| m.id == id));
        let deletable = message.is_held_input()
            && (message.status == MessageStatus::Failed || queued.is_some());
        if !deletable {
            let why = if message.status == MessageStatus::Pending {
                "it is being processed".to_owned()
            } else {
                format!("it is {} {}", message.role, message.status.as_str())
            };
            return Err(EngineError::Conflict(format!(
                "message {id} cannot be deleted: {why}; only failed input, or input still waiting in the queue, can be"
            )));
        }
        let ids: Vec<MessageId> = match queued.and_then(|at| self.queue().get(at)) {
            Some(send) => send.messages.iter().map(|m| m.id).collect(),
            None => group.iter().map(|m| m.id).collect(),
        };
        let mut changes = ContextChanges::new();
        for b in &self.data().branches {
            if b.message_ids.iter().any(|m| ids.contains(m)) {
                changes.replacements.push(BranchIds {
                    branch: b.name.clone(),
                    message_ids: b
                        .message_ids
                        .iter()
                        .copied()
                        .filter(|m| !ids.contains(m))
                        .collect(),
                });
            }
        }
        let now = Utc::now();
        for m in ids.iter().filter_map(|m| self.data().pool.get(m)) {
            if m.status == MessageStatus::Pending {
                let mut m = m.clone();
                m.status = MessageStatus::Failed;
                m.error = Some(Box::new(
                    ErrorDetail::new(input::DELETED, Recoverability::Fatal).with_code("deleted"),
                ));
                m.updated_at = now;
                changes.updated_messages.push(m);
            }
        }
        self.commit(changes).await?;
        if let Some(send) = queued.and_then(|at| self.queue().remove(at)) {
            self.take_queued_turn(send.primary_id());
        }
        for m in ids.iter().filter_map(|m| self.data().pool.get(m)) {
            self.emit_update(
                None,
                Some(MessageUpdate::Deleted {
                    message_id: m.id,
                    kind: m.kind_name(),
                }),
                Metadata::new(),
            )
            .await;
        }
        tracing::info!(context = %self.context_id(), message = %id, deleted = ids.len(), "input deleted");
        Ok(())
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

fn image(i: ImagePayload) -> Message {
    let mut image = ImageMessage::new(i.source, i.recognition_mode);
    image.caption = i.caption;
    Message::new(Role::User, MessageKind::Image(Box::new(image)))
}

fn file_reference(r: FileReferencePayload) -> Message {
    Message::new(
        Role::User,
        MessageKind::FileReference(Box::new(FileReferenceMessage {
            path: normalize_file_path(&r.path),
            range: r.range,
            display_text: r.display_text,
            resolution: FileResolution::Pending,
        })),
    )
}
