//! A pipeline step run as a task the actor supervises (issue 19): reading files, recognizing
//! images and summarizing old messages can take seconds, and while one runs the actor keeps
//! answering state and summary reads, queues sends, and takes an interrupt, which stops the
//! step at once instead of after it.

use std::sync::Arc;

use tokio_util::task::AbortOnDropHandle;

use crate::actor::Actor;
use crate::error::EngineError;
use crate::pipeline::{Draft, PipelineContext, PipelineError, ProcessResult, Processor};

/// What a finished step hands back: the draft it worked on and its verdict.
pub(crate) type StepResult = (Draft, Result<ProcessResult, PipelineError>);

impl Actor {
    /// Runs `processor` over `draft` in a task of its own and waits for it while handling
    /// commands as during any busy moment ([`Actor::handle_while_busy`]). An interrupt (or a
    /// shutdown) stops the step and answers [`EngineError::Interrupted`]: the draft is dropped
    /// with whatever the step did, as when a step fails.
    pub(crate) async fn run_pipeline_step(
        &mut self,
        processor: Arc<dyn Processor>,
        mut draft: Draft,
        ctx: Arc<PipelineContext>,
    ) -> Result<StepResult, EngineError> {
        let step = processor.name();
        // Dropped with this future too (the actor stopping), so no step outlives its turn.
        let mut task = AbortOnDropHandle::new(tokio::spawn(async move {
            let result = processor.process(&mut draft, &ctx).await;
            (draft, result)
        }));
        loop {
            tokio::select! {
                biased;
                () = self.interrupt.cancelled() => {
                    task.abort();
                    tracing::info!(context = %self.id, step = step.as_str(), "pipeline step interrupted");
                    return Err(EngineError::Interrupted { step });
                }
                joined = &mut task => {
                    return joined.map_err(|e| EngineError::StepCrashed {
                        step,
                        reason: e.to_string(),
                    });
                }
                // `None` never comes twice: once every handle is gone, this waits forever.
                Some(command) = self.inbox.next() => self.handle_while_busy(command).await,
            }
        }
    }
}
