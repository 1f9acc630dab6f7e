//! How a run ends: completed with its result, failed, cancelled or paused; each stored with
//! the run's message and, for a run the model started, the result of the call that started it.

use super::*;
use braid_protocol::TurnOutcome;

impl Actor {
    pub(super) async fn complete_run(&mut self, mut run: Run) -> RunEnd {
        let result = run
            .record
            .definition
            .steps
            .iter()
            .rev()
            .find(|s| !matches!(s.action, StepAction::Approval { .. }))
            .and_then(|s| run.record.outputs.get(&s.name).cloned())
            .unwrap_or(Value::Null);
        run.exec.status = WorkflowStatus::Completed;
        run.exec.current_step = None;
        run.exec.awaiting_approval = None;
        run.exec.result = Some(result.clone());
        let output = json!({
            "workflow": run.exec.workflow_name,
            "execution_id": run.exec.execution_id,
            "status": "completed",
            "result": result,
        });
        let changes = self.result_messages(&run, ToolOutcome::Success { output });
        tracing::info!(context = %self.context_id(), execution = %run.exec.execution_id, "workflow completed");
        self.end_run(run, changes).await
    }

    pub(super) async fn fail_run(&mut self, mut run: Run, error: ErrorDetail) -> RunEnd {
        tracing::warn!(context = %self.context_id(), execution = %run.exec.execution_id, error = %error.message, "workflow failed");
        run.exec.status = WorkflowStatus::Failed;
        run.exec.error = Some(error.clone());
        run.exec.awaiting_approval = None;
        let changes = self.result_messages(&run, ToolOutcome::Error { error });
        self.end_run(run, changes).await
    }

    pub(super) async fn cancel_run(&mut self, mut run: Run) -> RunEnd {
        tracing::info!(context = %self.context_id(), execution = %run.exec.execution_id, "workflow cancelled");
        run.exec.status = WorkflowStatus::Cancelled;
        run.exec.awaiting_approval = None;
        let error = cause(
            format!(
                "cancelled by the person after {} of {} steps",
                run.exec.completed_steps, run.exec.total_steps
            ),
            "cancelled",
        );
        // Only the model's call is answered: a run the person started and stopped needs no
        // result in the conversation.
        let changes = if run.record.origin_call.is_some() {
            self.result_messages(&run, ToolOutcome::Error { error })
        } else {
            ContextChanges::new()
        };
        self.end_run(run, changes).await
    }

    pub(super) async fn end_run(&mut self, mut run: Run, changes: ContextChanges) -> RunEnd {
        let added = changes.new_messages.clone();
        match self.save_run(&mut run, changes).await {
            Ok(()) => {
                for m in &added {
                    self.emit_created(m).await;
                }
                self.settle_run_turn(&run);
                RunEnd::Finished
            }
            Err(e) => {
                self.fail(e, true).await;
                RunEnd::Rested
            }
        }
    }

    pub(super) async fn pause_run(&mut self, mut run: Run) -> RunEnd {
        tracing::info!(context = %self.context_id(), execution = %run.exec.execution_id, step = ?run.exec.current_step, "workflow paused");
        run.exec.status = WorkflowStatus::Paused;
        if let Err(e) = self.save_run(&mut run, ContextChanges::new()).await {
            self.fail(e, true).await;
            return RunEnd::Rested;
        }
        self.settle_run_turn(&run);
        self.rest(ContextState::Idle).await;
        RunEnd::Rested
    }

    /// Says how the open turn ends when the run's end leaves the context idle (the state alone
    /// would say `answered`): a failed run's turn `failed` with its error, a cancelled run's
    /// `interrupted` (the person stopped it), a paused run's `paused` (`interrupted` when an
    /// interrupt paused it, as the state says), and a run waiting at an approval step
    /// `awaiting_approval` (resuming it approves, cancelling declines). A completed run's turn
    /// is `answered`.
    pub(super) fn settle_run_turn(&mut self, run: &Run) {
        let outcome = match run.exec.status {
            WorkflowStatus::Failed => Some((
                TurnOutcome::Failed,
                run.exec.error.as_ref().map(|e| e.message.clone()),
            )),
            WorkflowStatus::Cancelled => Some((TurnOutcome::Interrupted, None)),
            WorkflowStatus::Paused if run.exec.awaiting_approval.is_some() => {
                Some((TurnOutcome::AwaitingApproval, None))
            }
            WorkflowStatus::Paused if !self.interrupt_token().is_cancelled() => {
                Some((TurnOutcome::Paused, None))
            }
            _ => None,
        };
        self.set_idle_outcome(outcome);
    }

    /// The workflow's result as a structured tool result (seed 001): the answer to the model's
    /// call when the model started the run and the call is still open, otherwise a
    /// `workflow__<name>` request and its result, so later turns see the run as a tool call.
    pub(super) fn result_messages(&self, run: &Run, outcome: ToolOutcome) -> ContextChanges {
        let branch = self.data().record.active_branch.clone();
        let mut changes = ContextChanges::new();
        let open = run
            .record
            .origin_call
            .as_ref()
            .and_then(|id| open_calls(self.data()).into_iter().find(|c| &c.id == id));
        let now = Utc::now();
        let duration_ms = (now - run.exec.started_at).num_milliseconds().max(0) as u64;
        let marker = run.step_marker("result");
        match open {
            Some(call) => {
                let mut result =
                    call.result_message(outcome, duration_ms, run.exec.started_at, now);
                result.metadata.insert(STEP_KEY.to_owned(), marker);
                changes.push_message(&branch, result);
            }
            None => {
                let mut call = ToolCall::new(
                    new_call_id(),
                    run.record.definition.tool_name(),
                    Value::Object(run.record.parameters.clone()),
                );
                call.approval_status = ApprovalStatus::Approved;
                let turn = TurnId::new();
                let mut request = Message::new(
                    Role::Assistant,
                    MessageKind::ToolRequest(ToolRequestMessage {
                        calls: vec![call.clone()],
                    }),
                );
                request.set_turn_id(turn);
                request.metadata.insert(STEP_KEY.to_owned(), marker.clone());
                let open = OpenCall {
                    message_id: request.id,
                    index: 0,
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    approval: ApprovalStatus::Approved,
                    mcp: None,
                    invalid_arguments: None,
                    turn: Some(turn),
                };
                let mut result =
                    open.result_message(outcome, duration_ms, run.exec.started_at, now);
                result.metadata.insert(STEP_KEY.to_owned(), marker);
                changes.push_message(&branch, request);
                changes.push_message(&branch, result);
            }
        }
        changes
    }
}
