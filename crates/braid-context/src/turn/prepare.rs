//! Preparing a request: the active branch's pipeline run over the turn's input, and the
//! commit of what it made beside the model request going out.

use braid_llm::LlmRequest;
use braid_protocol::{
    ContextState, Message, MessageId, MessageKind, MessageStatus, MessageUpdate, Metadata,
    RecognitionMode,
};
use braid_store::ContextChanges;
use chrono::Utc;
use serde_json::{Value, json};

use super::Turn;
use crate::error::EngineError;
use crate::host::Host;
use crate::input;
use crate::pipeline::{Draft, Pipeline, PipelineContext, ProcessResult, Processor};

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
    /// What the request holds, kept while it goes out.
    pub record: Option<braid_protocol::ModelRequestRecord>,
}

impl Turn {
    /// Runs the active branch's pipeline over `messages` (the send's input, already stored as
    /// `pending`); if every processor succeeded, returns the request and what is to be stored:
    /// the input as processed and `complete`, with `updates` and `notes` (control messages
    /// added after them), which [`Turn::call_model`] commits while the request goes out. On
    /// error nothing is stored: the caller marks the input `failed`.
    pub(crate) async fn run_pipeline<H: Host>(
        &mut self,
        host: &mut H,
        messages: Vec<Message>,
        updates: Vec<Message>,
        notes: Vec<Message>,
    ) -> Result<Prepared, EngineError> {
        let pipeline = Pipeline::for_branch(host.data().active().pipeline.as_ref());
        let ctx = host.pipeline_context();
        let mut draft = Draft {
            messages: messages
                .into_iter()
                .map(|m| m.with_status(MessageStatus::Processing))
                .collect(),
            notes,
            ..Draft::default()
        };
        for processor in pipeline.processors() {
            // A processor with nothing to do for this draft is skipped (two of the six for a
            // plain text message).
            let Some(state) = processor.state(&draft) else {
                continue;
            };
            // Through the one transition function, so leaving rest is stored like every
            // other start of work (the pending input stays as it is).
            host.transition(state).await?;
            let started = std::time::Instant::now();
            let result = self
                .run_step(host, processor.as_ref(), &mut draft, &ctx)
                .await?;
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
            record: draft.record.take(),
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
            let branch = host.data().record.active_branch.clone();
            let mut changes = ContextChanges::new();
            // Notes (a summary) after the input: ids follow creation order.
            for m in &draft.notes {
                changes.push_message(&branch, m.clone());
            }
            let input: Vec<MessageId> = draft.messages.iter().map(|m| m.id).collect();
            let notes: Vec<MessageId> = draft.notes.iter().map(|m| m.id).collect();
            changes
                .replacements
                .extend(input::input_at_end(host.data(), &input, &notes));
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
    pub(crate) async fn store_pipeline_output<H: Host, T: Send>(
        &mut self,
        host: &mut H,
        output: PipelineOutput,
        beside: impl std::future::Future<Output = T> + Send,
    ) -> Result<Option<T>, EngineError> {
        let mut early = None;
        if let Some(changes) = output.changes {
            match host.commit_beside(changes, beside).await {
                Ok(done) => early = done,
                Err(e) => {
                    input::fail_input(host, &output.input, &e).await;
                    return Err(e);
                }
            }
            for m in &output.notes {
                host.emit_created(m).await;
            }
            for (message_id, kind) in output.completed {
                host.emit_update(
                    None,
                    Some(MessageUpdate::Completed { message_id, kind }),
                    Metadata::new(),
                )
                .await;
            }
        }
        if let Some(report) = output.report {
            host.emit_update(None, None, report).await;
        }
        Ok(early)
    }

    /// The model server refused the turn's request because of the images it sent for vision
    /// (`ids`): under `auto` each is read with OCR instead and stored with a notice saying so,
    /// and the turn can prepare its request again. Answers whether it can (the refusal names
    /// images, every image is `auto` and was read); otherwise nothing is changed.
    pub(crate) async fn read_refused_images<H: Host>(
        &mut self,
        host: &mut H,
        ids: &[MessageId],
        error: &EngineError,
    ) -> bool {
        let EngineError::Llm(refusal) = error else {
            return false;
        };
        if !crate::pipeline::refuses_images(refusal) {
            return false;
        }
        let mut images: Vec<Message> = Vec::new();
        for id in ids {
            match host.data().pool.get(id) {
                Some(m) if matches!(&m.kind, MessageKind::Image(i) if i.recognition_mode == RecognitionMode::Auto) => {
                    images.push(m.clone())
                }
                // Asked for vision only, the refusal is the person's to see.
                _ => return false,
            }
        }
        let state = ContextState::RecognizingImages {
            total: images.len() as u32,
        };
        if let Err(e) = host.transition(state).await {
            tracing::error!(context = %host.context_id(), error = %e, "cannot read the refused images");
            return false;
        }
        let ctx = host.pipeline_context();
        for m in &mut images {
            let MessageKind::Image(image) = &mut m.kind else {
                continue;
            };
            let read = host
                .serve_until(crate::pipeline::read_refused_image(image, &ctx, refusal))
                .await;
            if let Err(e) = read {
                tracing::warn!(context = %host.context_id(), message = %m.id, error = %e, "a refused image could not be read with OCR");
                return false;
            }
            m.updated_at = Utc::now();
        }
        tracing::warn!(context = %host.context_id(), images = images.len(), error = %refusal, "the model server refused the request's images: read with OCR instead");
        let mut changes = ContextChanges::new();
        changes.updated_messages = images.clone();
        if let Err(e) = host.commit(changes).await {
            tracing::error!(context = %host.context_id(), error = %e, "the images read with OCR were not stored");
            return false;
        }
        for m in &images {
            host.emit_update(
                None,
                Some(MessageUpdate::Changed {
                    message_id: m.id,
                    kind: m.kind_name(),
                }),
                Metadata::new(),
            )
            .await;
        }
        true
    }

    /// Runs one processor over the draft as a plain call in the turn, while the context stays
    /// responsive; an interrupt stops it at once and answers [`EngineError::Interrupted`] (the
    /// draft is dropped with whatever the step did, as when a step fails).
    async fn run_step<H: Host>(
        &self,
        host: &mut H,
        processor: &dyn Processor,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, EngineError> {
        let step = processor.name();
        let interrupt = self.interrupt.clone();
        let ran = host
            .serve_until(async {
                tokio::select! {
                    biased;
                    () = interrupt.cancelled() => None,
                    result = processor.process(draft, ctx) => Some(result),
                }
            })
            .await;
        match ran {
            Some(result) => Ok(result?),
            None => {
                tracing::info!(context = %host.context_id(), step = step.as_str(), "pipeline step interrupted");
                Err(EngineError::Interrupted { step })
            }
        }
    }
}
