//! A turn as a value (DESIGN.md "The context"): one turn's input, pipeline output, model
//! stream, tool rounds, depth and cycles, driven through the narrow [`Host`] interface. It
//! commits, emits and waits only through the host, so it runs the same inside the context's
//! actor and in a test with no actor and no store.

mod answer;
mod prepare;
mod tool_round;

use std::time::{Duration, Instant};

use braid_llm::LlmError;
use braid_protocol::{
    ContextState, ErrorCode, LoopStopReason, Message, MessageId, MessageKind, MessageStatus, Role,
    SystemControlMessage, ToolCallId,
};
use tokio_util::sync::CancellationToken;

use crate::approval::CycleDetector;
use crate::context::ContextData;
use crate::error::EngineError;
use crate::host::Host;
use crate::input;
use crate::send::QueuedSend;

pub(crate) use answer::{ModelOutcome, request_messages, stored_request};
pub(crate) use prepare::Prepared;
pub(crate) use tool_round::{
    RoundOutcome, awaiting_approval, policy_runs, record_decisions, switched_off,
};

use answer::latest_vision_images;

/// Rounds and tools of the running tool loop.
#[derive(Debug, Default)]
pub(crate) struct LoopProgress {
    /// Rounds of tool execution so far.
    pub depth: u32,
    /// Calls run so far.
    pub tools_executed: u32,
    /// The calls seen, to stop a loop that repeats itself.
    pub cycles: CycleDetector,
}

/// The time budget of the tool loop's running iteration: a round of tools and the model call
/// that reads their results share one limit (`tool_timeout_secs`, seed 001 "Auto-loop timeout
/// protection"). A turn's first model call, before any tool ran, is not an iteration.
#[derive(Clone, Copy, Debug)]
struct IterationBudget {
    /// When the iteration must be over.
    deadline: Instant,
    /// The limit it was given.
    limit: Duration,
}

/// One turn: what it has done so far and how to stop it.
pub(crate) struct Turn {
    /// Cancelled by an interrupt; the actor holds a clone to deliver it.
    interrupt: CancellationToken,
    /// Rounds and tools of the loop.
    progress: LoopProgress,
    /// The running iteration's budget, once a round of tools started.
    iteration: Option<IterationBudget>,
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

/// What a resumed turn should do next, from the active branch's tail.
pub(crate) fn next_step(data: &ContextData) -> NextStep {
    if !crate::calls::open_calls(data).is_empty() {
        return NextStep::ToolRound;
    }
    let last = data
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

impl Turn {
    /// A turn that stops when `interrupt` is cancelled.
    pub(crate) fn new(interrupt: CancellationToken) -> Self {
        Self {
            interrupt,
            progress: LoopProgress::default(),
            iteration: None,
        }
    }

    /// Starts an iteration of the tool loop as its round's calls start to run: answers when it
    /// must be over, which also bounds the model call that follows.
    fn start_iteration(&mut self, limit: Duration) -> Instant {
        let deadline = Instant::now() + limit;
        self.iteration = Some(IterationBudget { deadline, limit });
        deadline
    }

    /// When a model call must end: at its own limit (`model_limit`), or sooner when the
    /// iteration it belongs to ends first.
    fn model_deadline(&self, model_limit: tokio::time::Instant) -> tokio::time::Instant {
        match self.iteration {
            Some(budget) => model_limit.min(tokio::time::Instant::from_std(budget.deadline)),
            None => model_limit,
        }
    }

    /// The error of a model call stopped at its deadline: the iteration's when its budget is
    /// spent, else the call's own `llm_timeout_secs`.
    fn model_timed_out(&self, llm_limit_secs: u32) -> EngineError {
        match self.iteration {
            Some(budget) if Instant::now() >= budget.deadline => EngineError::IterationTimedOut {
                secs: u32::try_from(budget.limit.as_secs()).unwrap_or(u32::MAX),
            },
            _ => EngineError::LlmTimedOut {
                secs: llm_limit_secs,
            },
        }
    }

    /// Runs a conversational send whose input is stored as `pending`: closes what the
    /// previous turn left open, runs the pipeline, and goes around the loop. Always ends in a
    /// resting state.
    pub(crate) async fn converse<H: Host>(&mut self, host: &mut H, send: QueuedSend) {
        let messages = send.messages;
        let ids: Vec<MessageId> = messages.iter().map(|m| m.id).collect();
        // Calls the send itself answers (a client-supplied result) stay open for it.
        let answered: Vec<ToolCallId> = messages
            .iter()
            .filter_map(|m| m.tool_call_id().cloned())
            .collect();
        if let Err(e) = self
            .close_open_calls(
                host,
                "not executed: the person sent a new message instead",
                &answered,
            )
            .await
        {
            input::fail_input(host, &ids, &e).await;
            host.fail(e, true).await;
            return;
        }
        // Stored after the person's messages, and only when the turn's pipeline succeeds.
        let notes = match host.state() {
            ContextState::Failed { error, .. } => vec![Message::new(
                Role::User,
                MessageKind::SystemControl(SystemControlMessage::FailureResolved {
                    error: error.clone(),
                }),
            )],
            _ => Vec::new(),
        };
        match self.run_pipeline(host, messages, send.updates, notes).await {
            Ok(request) => self.drive(host, Some(request)).await,
            // The person stopped it: the input says so and can be retried; nothing failed.
            Err(e @ EngineError::Interrupted { .. }) => {
                input::fail_input(host, &ids, &e).await;
                host.rest(ContextState::Idle).await;
            }
            Err(e) => {
                input::fail_input(host, &ids, &e).await;
                host.fail(e, true).await;
            }
        }
    }

    /// Goes around the loop: ask the model, run its tool calls, ask again, until the model is
    /// done or something stops the loop. Always ends in a resting state.
    pub(crate) async fn drive<H: Host>(&mut self, host: &mut H, mut prepared: Option<Prepared>) {
        loop {
            let prepared = match prepared.take() {
                Some(r) => r,
                None => match self
                    .run_pipeline(host, Vec::new(), Vec::new(), Vec::new())
                    .await
                {
                    Ok(r) => r,
                    Err(EngineError::Interrupted { step }) => {
                        let detail = format!(
                            "Interrupted while the next request was prepared ({} was stopped). Resume to continue.",
                            step.as_str()
                        );
                        if let Err(e) = self
                            .stop_loop(host, LoopStopReason::Interrupted, detail)
                            .await
                        {
                            host.fail(e, true).await;
                        }
                        return;
                    }
                    Err(e) => return host.fail(e, true).await,
                },
            };
            let sent_images = latest_vision_images(&prepared.request);
            match self.call_model(host, prepared).await {
                Ok(ModelOutcome::Done) => {
                    host.rest(ContextState::Idle).await;
                    // The context decides it needs a title once its first exchange is over.
                    return crate::title::title_after_first_exchange(host).await;
                }
                Ok(ModelOutcome::Interrupted) => {
                    return host.rest(ContextState::Idle).await;
                }
                Ok(ModelOutcome::Question(question_id)) => {
                    return host
                        .rest(ContextState::AwaitingUserAnswer { question_id })
                        .await;
                }
                Ok(ModelOutcome::ToolCalls) => match self.tool_round(host).await {
                    Ok(RoundOutcome::Continue) => continue,
                    Ok(RoundOutcome::Rested) => return,
                    Err(e) => return host.fail(e, true).await,
                },
                Err(e) => {
                    let recoverable =
                        !matches!(&e, EngineError::Llm(LlmError::InvalidRequest { .. }));
                    if e.code() == ErrorCode::LlmRejected && !sent_images.is_empty() {
                        // Refused images read with OCR instead: the request is prepared again.
                        if self.read_refused_images(host, &sent_images, &e).await {
                            continue;
                        }
                        input::set_aside_rejected_images(host, &sent_images, &e).await;
                    }
                    return host.fail(e, recoverable).await;
                }
            }
        }
    }

    /// Continues a paused or failed turn from where the history says it stopped.
    pub(crate) async fn resume<H: Host>(&mut self, host: &mut H) {
        match next_step(host.data()) {
            NextStep::ToolRound => match self.tool_round(host).await {
                Ok(RoundOutcome::Continue) => self.drive(host, None).await,
                Ok(RoundOutcome::Rested) => {}
                Err(e) => host.fail(e, true).await,
            },
            NextStep::CallModel => self.drive(host, None).await,
            NextStep::Nothing => host.rest(ContextState::Idle).await,
        }
    }

    /// An interrupt while nothing runs: a loop waiting for approval is paused; otherwise there
    /// is nothing to stop.
    pub(crate) async fn interrupt_while_resting<H: Host>(
        &mut self,
        host: &mut H,
    ) -> Result<(), EngineError> {
        if matches!(host.state(), ContextState::AwaitingToolApproval { .. }) {
            self.stop_loop(
                host,
                LoopStopReason::Interrupted,
                "Interrupted while waiting for approval; resume to continue.".to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
