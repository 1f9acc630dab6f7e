//! Asking the model and streaming its answer into the context: deltas announced as they come,
//! the row queued on the first text, partial saves, and the finished answer stored with its
//! tool calls as requests.

use braid_llm::{LlmError, LlmEvent, LlmRequest, ToolArgumentsError};
use braid_protocol::{
    ContentDelta, ContentFinal, ContextEvent, ContextState, McpToolRequestMessage, Message,
    MessageId, MessageKind, MessageStatus, MessageUpdate, Metadata, Mode, Role, TextMessage,
    TextPart, ToolCall, ToolCallId, ToolCalling, ToolRequestMessage, TurnId,
};
use braid_store::{ContextChanges, LostEvents, StoreError};
use braid_tools::{ToolOrigin, ToolRegistry};
use chrono::Utc;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};

use super::{Prepared, Turn};
use crate::error::EngineError;
use crate::host::Host;

/// What ends one wait of the stream loop.
enum Next {
    Interrupted,
    TimedOut,
    Lost(LostEvents),
    Saved(Result<(), StoreError>),
    Item(Option<Result<LlmEvent, LlmError>>),
}

/// The metadata key that names the request (`ModelRequestRecord`) an answer was made for.
pub const MODEL_REQUEST_ID: &str = "model_request_id";

/// A request's record as the store keeps it (its JSON, with what it is found by).
pub(crate) fn stored_request(
    context: braid_protocol::ContextId,
    record: &braid_protocol::ModelRequestRecord,
) -> Result<braid_store::StoredModelRequest, serde_json::Error> {
    Ok(braid_store::StoredModelRequest {
        context,
        id: record.id.0,
        branch: record.branch.as_str().to_owned(),
        created_ms: record.created_at.timestamp_millis(),
        record: serde_json::to_string(record)?,
    })
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

impl Turn {
    /// Asks the model and streams its answer into the context.
    pub(crate) async fn call_model<H: Host>(
        &mut self,
        host: &mut H,
        prepared: Prepared,
    ) -> Result<ModelOutcome, EngineError> {
        let Prepared { request, output } = prepared;
        let Some(llm) = host.llm() else {
            self.store_pipeline_output(host, output, std::future::ready(()))
                .await?;
            return Err(EngineError::LlmNotConfigured);
        };
        host.transition(ContextState::ConnectingToLlm {
            attempt: 1,
            reason: None,
            wait_ms: None,
        })
        .await?;
        let limit_secs = host.data().record.config.llm_timeout_secs.max(1);
        let deadline = self.model_deadline(
            tokio::time::Instant::now() + std::time::Duration::from_secs(u64::from(limit_secs)),
        );
        let tool_calling = request.tool_calling;
        let turn = TurnId::new();
        let mut output = output;
        let mut answer = StreamedAnswer::default();
        if let Some(record) = output.record.as_mut() {
            record.answer_turn_id = Some(turn);
            answer.request = Some(record.id);
            match output.changes.as_mut() {
                // Rides with the pipeline's commit, made while the request goes out.
                Some(changes) => match stored_request(host.context_id(), record) {
                    Ok(stored) => changes.model_requests.push(stored),
                    Err(error) => {
                        tracing::error!(context = %host.context_id(), request = %record.id, %error, "the model request's record could not be kept");
                    }
                },
                // Its own task: the record is kept whatever the turn does next, while the
                // request goes out; the answer waits for it before it is stored (see
                // `finish_answer`).
                None => answer.recorded = Some(tokio::spawn(host.record_request(record))),
            }
        }
        let mut stream = llm.stream(&request).await;
        // The pipeline's output is stored while the request goes out; an item that arrives
        // meanwhile waits for the commit, so nothing of the answer is stored before the input.
        let mut early = self
            .store_pipeline_output(host, output, stream.next())
            .await?;
        // `connecting_to_llm` lasts until the client reports the response started
        // (`LlmEvent::Connected`) or, from a client that does not, until its first item.

        let mut outcome: Option<Result<(), LlmError>> = None;
        let mut interrupted = false;
        let mut timed_out = false;
        let mut lost = None;
        let lost_events = host.events_lost();
        tokio::pin!(lost_events);
        loop {
            let item = if let Some(item) = early.take() {
                item
            } else {
                // The new message's row, committed: a client that saw it announced may ask for
                // it next, so it is mirrored before any read is answered; then the commands
                // already waiting come before the next item of the stream.
                if let Some(row) = answer.row.as_mut()
                    && let Some(saved) = (&mut row.pending).now_or_never()
                    && let Some(row) = answer.row.take()
                {
                    host.settled(row.changes, saved).await?;
                }
                host.handle_waiting().await;
                let interrupt = &self.interrupt;
                let row = &mut answer.row;
                let next = host
                    .serve_until(async {
                        tokio::select! {
                            biased;
                            () = interrupt.cancelled() => Next::Interrupted,
                            () = tokio::time::sleep_until(deadline) => Next::TimedOut,
                            l = &mut lost_events => Next::Lost(l),
                            saved = async {
                                match row.as_mut() {
                                    Some(row) => (&mut row.pending).await,
                                    None => std::future::pending().await,
                                }
                            }, if row.is_some() => Next::Saved(saved),
                            item = stream.next() => Next::Item(item),
                        }
                    })
                    .await;
                match next {
                    Next::Interrupted => {
                        interrupted = true;
                        break;
                    }
                    Next::TimedOut => {
                        timed_out = true;
                        break;
                    }
                    Next::Lost(l) => {
                        lost = Some(l);
                        break;
                    }
                    Next::Saved(saved) => {
                        if let Some(row) = answer.row.take() {
                            host.settled(row.changes, saved).await?;
                        }
                        continue;
                    }
                    Next::Item(item) => item,
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
                    host.transition(ContextState::ConnectingToLlm {
                        attempt,
                        reason: Some(reason),
                        wait_ms: Some(wait_ms),
                    })
                    .await?;
                }
                Some(Ok(event)) => {
                    self.connected(host).await?;
                    if let LlmEvent::Finish { .. } = &event {
                        outcome = Some(Ok(()));
                    }
                    self.take_event(host, &mut answer, event, turn).await?;
                }
            }
        }
        drop(stream);
        if let Some(row) = answer.row.take() {
            host.settle(row).await?;
        }
        self.connected(host).await?;

        if timed_out {
            self.end_stream(host, &mut answer, MessageStatus::Incomplete)
                .await?;
            tracing::warn!(context = %host.context_id(), limit_secs, "model call timed out");
            return Err(self.model_timed_out(limit_secs));
        }

        if interrupted {
            self.end_stream(host, &mut answer, MessageStatus::Incomplete)
                .await?;
            return Ok(ModelOutcome::Interrupted);
        }
        if let Some(lost) = lost {
            // The store lost events of this stream: stop it and fail visibly.
            self.end_stream(host, &mut answer, MessageStatus::Incomplete)
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
                self.end_stream(host, &mut answer, MessageStatus::Incomplete)
                    .await?;
                return Err(e.into());
            }
            None => {
                self.end_stream(host, &mut answer, MessageStatus::Incomplete)
                    .await?;
                return Err(LlmError::StreamCut {
                    detail: "the stream ended without a finish".to_owned(),
                }
                .into());
            }
        }
        host.transition(ContextState::ProcessingLlmResponse).await?;
        self.finish_answer(host, answer, turn, tool_calling).await
    }

    /// Leaves `connecting_to_llm` (the response started, or a retry was waiting) for
    /// `awaiting_llm_first_chunk`, the state every outcome of a model call moves on from.
    async fn connected<H: Host>(&mut self, host: &mut H) -> Result<(), EngineError> {
        if let ContextState::ConnectingToLlm { .. } = host.state() {
            host.transition(ContextState::AwaitingLlmFirstChunk).await?;
        }
        Ok(())
    }

    /// Folds one stream event into the answer, emitting deltas and state as it goes.
    async fn take_event<H: Host>(
        &mut self,
        host: &mut H,
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
                host.transition(ContextState::StreamingLlmResponse {
                    chunks: answer.chunks,
                    chars: answer.chars,
                })
                .await?;
                self.ensure_message(host, answer, turn).await?;
                if let Some(m) = &mut answer.message
                    && let MessageKind::Text(t) = &mut m.kind
                {
                    t.push_text(&text);
                }
                if let Some(m) = &answer.message {
                    host.emit(ContextEvent::ContentDelta(ContentDelta {
                        context_id: host.context_id(),
                        message_id: m.id,
                        sequence: answer.sequence,
                        delta: text,
                        is_final: false,
                        turn_id: None,
                        branch: None,
                    }))
                    .await;
                }
                if answer
                    .chunks
                    .is_multiple_of(host.settings().save_stream_every.max(1))
                {
                    // The partial save goes after the row; it is mirrored in memory after it too.
                    if let Some(row) = answer.row.take() {
                        host.settle(row).await?;
                    }
                    self.save_partial(host, answer).await;
                }
            }
            LlmEvent::ReasoningDelta { text } if !text.is_empty() => {
                answer.chunks += 1;
                host.transition(ContextState::StreamingLlmResponse {
                    chunks: answer.chunks,
                    chars: answer.chars,
                })
                .await?;
                self.ensure_message(host, answer, turn).await?;
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
                host.transition(ContextState::StreamingLlmResponse {
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
            | LlmEvent::Connected
            | LlmEvent::Retrying { .. } => {}
        }
        Ok(())
    }

    /// Creates the streamed assistant message on the first text and announces it at once: its
    /// row is queued, and the store commits the announcement and the deltas no earlier than the
    /// row (in one transaction on SQLite), and none of them if the row fails, so the first
    /// chunk does not wait for a commit of its own. The row is mirrored in memory once
    /// committed, before any read is answered ([`Turn::call_model`]'s loop).
    async fn ensure_message<H: Host>(
        &mut self,
        host: &mut H,
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
        if let Some(request) = answer.request {
            m.metadata
                .insert(MODEL_REQUEST_ID.to_owned(), json!(request));
        }
        let branch = host.data().record.active_branch.clone();
        let row = host
            .queue_commit(ContextChanges::new().add_message(&branch, m.clone()))
            .await?;
        answer.row = Some(row);
        host.emit_created(&m).await;
        answer.message = Some(m);
        Ok(())
    }

    /// Saves what has streamed so far, so a crash keeps it. A failure is logged: the final save
    /// will try again.
    async fn save_partial<H: Host>(&mut self, host: &mut H, answer: &StreamedAnswer) {
        if let Some(m) = &answer.message {
            let mut m = m.clone();
            m.updated_at = Utc::now();
            if let Err(error) = host.commit(ContextChanges::new().update_message(m)).await {
                tracing::warn!(context = %host.context_id(), %error, "partial answer not saved");
            }
        }
    }

    /// Ends a stream that did not finish: keeps what arrived with `status`.
    async fn end_stream<H: Host>(
        &mut self,
        host: &mut H,
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
        host.commit(ContextChanges::new().update_message(m.clone()))
            .await?;
        self.finish_events(
            host,
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
    async fn finish_events<H: Host>(
        &self,
        host: &mut H,
        m: &Message,
        sequence: u64,
        update: MessageUpdate,
    ) {
        if let Err(error) = host.flush_events().await {
            tracing::warn!(context = %host.context_id(), %error, "events not flushed");
        }
        host.emit(ContextEvent::ContentFinal(ContentFinal {
            context_id: host.context_id(),
            message_id: m.id,
            sequence,
            is_final: true,
            turn_id: None,
            branch: None,
        }))
        .await;
        host.emit_update(None, Some(update), Metadata::new()).await;
    }

    /// Stores a finished answer: its text (or the plan or question it holds) and its tool calls
    /// as requests. A prompted model's calls are read from its text here: the stored text is
    /// what surrounds them, and they become requests exactly like native calls.
    async fn finish_answer<H: Host>(
        &mut self,
        host: &mut H,
        mut answer: StreamedAnswer,
        turn: TurnId,
        tool_calling: ToolCalling,
    ) -> Result<ModelOutcome, EngineError> {
        if tool_calling == ToolCalling::Prompted {
            take_prompted_calls(&mut answer);
        }
        // An answer that names its request's record is stored after the record.
        if let Some(recorded) = answer.recorded.take()
            && let Err(error) = recorded.await
        {
            tracing::error!(context = %host.context_id(), %error, "the request record's task failed");
        }
        let mut changes = ContextChanges::new();
        let branch = host.data().record.active_branch.clone();
        let mut question = None;
        // The model that wrote it, so a person can tell answers of different models apart.
        let model = host
            .settings()
            .model_in_use(&host.data().record.config.model);
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
                    Some(MessageKind::Plan(p)) if host.data().record.config.mode == Mode::Plan => {
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
        let mut requests = request_messages(host.tools(), std::mem::take(&mut answer.calls), turn);
        if let Some(request) = answer.request {
            for r in &mut requests {
                r.metadata
                    .insert(MODEL_REQUEST_ID.to_owned(), json!(request));
            }
        }
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
            host.transition(ContextState::ParsingToolCalls).await?;
        }
        host.commit(changes).await?;
        if let Some(m) = &final_text {
            self.finish_events(
                host,
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
            host.emit_created(r).await;
        }
        Ok(if made_calls {
            ModelOutcome::ToolCalls
        } else if let Some(q) = question {
            ModelOutcome::Question(q)
        } else {
            ModelOutcome::Done
        })
    }
}

/// The model's calls as messages: built-in calls of the answer in one `tool_request`, each
/// MCP call in an `mcp_tool_request` routed by its server. Calls whose arguments were not a
/// JSON object are stored with empty arguments and the reason, and get an error result
/// without running.
pub(crate) fn request_messages(
    tools: &ToolRegistry,
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
        let origin = tools.get(&name).map(|t| t.spec().origin.clone());
        match origin {
            Some(ToolOrigin::Mcp { server }) => {
                let prefix = format!("mcp__{server}__");
                let tool_name = name.strip_prefix(&prefix).unwrap_or(&name).to_owned();
                let mut m = Message::new(
                    Role::Assistant,
                    MessageKind::McpToolRequest(Box::new(McpToolRequestMessage {
                        server_name: server,
                        tool_name,
                        called_as: name,
                        arguments,
                        request_id: id,
                        approval_status: Default::default(),
                        requested_at: Utc::now(),
                    })),
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

/// What has arrived of the model's answer.
#[derive(Default)]
struct StreamedAnswer {
    message: Option<Message>,
    /// The message's row, queued and not yet mirrored in memory.
    row: Option<crate::host::QueuedCommit>,
    sequence: u64,
    chunks: u32,
    chars: u64,
    calls: Vec<(ToolCallId, String, Result<Value, ToolArgumentsError>)>,
    usage: Option<Value>,
    finish: Option<Value>,
    /// The record of the request this answers.
    request: Option<braid_protocol::ModelRequestId>,
    /// The record's write, running beside the stream.
    recorded: Option<tokio::task::JoinHandle<()>>,
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
pub(super) fn latest_vision_images(request: &LlmRequest) -> Vec<MessageId> {
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
