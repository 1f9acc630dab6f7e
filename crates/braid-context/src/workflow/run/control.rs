//! Controls of workflow runs from outside a run's own steps: pause, resume and cancel asked by
//! the person (or an interrupt), runs the model starts with `workflow__<name>` calls, runs a
//! new send pauses, and recovery after a restart.

use super::*;
use braid_protocol::api::ResumeResponse;

impl Actor {
    /// Pauses a run whose tool step waits for approval when the person sends something else:
    /// the step's call is closed unrun, and resuming runs the step again.
    pub(crate) async fn pause_waiting_workflows(&mut self) -> Result<(), EngineError> {
        let Some(id) = self.workflow_waiting_on_call() else {
            return Ok(());
        };
        let mut run = self.run_in(id)?;
        let waiting = run.record.waiting_call.take();
        let open: Vec<OpenCall> = open_calls(self.data())
            .into_iter()
            .filter(|c| Some(&c.id) == waiting.as_ref())
            .collect();
        self.transition(run.executing_state()).await?;
        self.current_turn()
            .close_round(
                self,
                &open,
                "not executed: the person sent a new message, so the workflow paused",
            )
            .await?;
        run.exec.status = WorkflowStatus::Paused;
        self.save_run(&mut run, ContextChanges::new()).await?;
        self.transition(ContextState::Idle).await?;
        Ok(())
    }

    /// Pauses, resumes or cancels a run while the context rests. A resume runs the run on as
    /// a turn of its own, which the answer names; a pause or cancel of a resting run runs no
    /// turn (the run's turn ended when it paused or began to wait).
    pub(crate) async fn control_workflow(
        &mut self,
        execution_id: &str,
        control: WorkflowControl,
        reply: crate::actor::Reply<Option<ResumeResponse>>,
    ) {
        let checked = self
            .execution(execution_id)
            .and_then(|id| Ok((id, self.run_in(id)?)));
        let (id, mut run) = match checked {
            Ok(found) => found,
            Err(e) => {
                let _ = reply.send(Err(e));
                return;
            }
        };
        let status = run.exec.status;
        let waiting = run.record.waiting_call.clone();
        let refuse = |what: &str| {
            EngineError::Conflict(format!(
                "workflow run `{execution_id}` is {} and cannot be {what}",
                serde_json::to_value(status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ))
        };
        match (control, status) {
            (WorkflowControl::Resume, WorkflowStatus::Paused) => {
                let (turn_id, stream_after) = self.open_answered_turn().await;
                let _ = reply.send(Ok(Some(ResumeResponse {
                    turn_id,
                    stream_after,
                })));
                self.renew_interrupt();
                if run.exec.awaiting_approval.take().is_some() {
                    run.record.approved_step = run.exec.current_step.clone();
                }
                run.exec.status = WorkflowStatus::Running;
                // Boxed as a send's turn is: the run goes deep (a model call per prompt step).
                Box::pin(self.resume_run(id, run)).await;
                self.close_turn().await;
            }
            (WorkflowControl::Pause, WorkflowStatus::Paused) => {
                let _ = reply.send(Ok(None));
            }
            // A pause or cancel is answered once it is saved, so a read after the answer sees
            // it (reads are answered while a commit waits, from what is committed).
            (WorkflowControl::Pause | WorkflowControl::Cancel, WorkflowStatus::Running)
                if waiting.is_some() =>
            {
                self.stop_waiting_step(run, control, waiting).await;
                let _ = reply.send(Ok(None));
            }
            (WorkflowControl::Cancel, WorkflowStatus::Paused | WorkflowStatus::Pending) => {
                if self.cancel_run(run).await == RunEnd::Finished {
                    self.persist_state().await;
                }
                let _ = reply.send(Ok(None));
            }
            (WorkflowControl::Pause, _) => {
                let _ = reply.send(Err(refuse("paused")));
            }
            (WorkflowControl::Resume, _) => {
                let _ = reply.send(Err(refuse("resumed")));
            }
            (WorkflowControl::Cancel, _) => {
                let _ = reply.send(Err(refuse("cancelled")));
            }
        }
    }

    /// Runs a resumed run on from its current step, in the turn the resume opened.
    async fn resume_run(&mut self, id: MessageId, mut run: Run) {
        if let Err(e) = self.transition(run.executing_state()).await {
            return self.fail(e, true).await;
        }
        if let Err(e) = self.save_run(&mut run, ContextChanges::new()).await {
            return self.fail(e, true).await;
        }
        self.finish_advance(id, None).await;
    }

    /// Pauses or cancels a run whose step's call waits for approval: the call is closed unrun;
    /// resuming runs the step again with a new call. A failure to save fails the context.
    async fn stop_waiting_step(
        &mut self,
        mut run: Run,
        control: WorkflowControl,
        waiting: Option<ToolCallId>,
    ) {
        let reason = match control {
            WorkflowControl::Cancel => "not executed: the workflow was cancelled",
            _ => "not executed: the workflow was paused before it ran",
        };
        let open: Vec<OpenCall> = open_calls(self.data())
            .into_iter()
            .filter(|c| Some(&c.id) == waiting.as_ref())
            .collect();
        run.record.waiting_call = None;
        if let Err(e) = self.transition(run.executing_state()).await {
            return self.fail(e, true).await;
        }
        if let Err(e) = self.current_turn().close_round(self, &open, reason).await {
            return self.fail(e, true).await;
        }
        let end = match control {
            WorkflowControl::Cancel => self.cancel_run(run).await,
            _ => self.pause_run(run).await,
        };
        if end == RunEnd::Finished {
            self.rest(ContextState::Idle).await;
        }
    }

    /// Records a pause or cancel asked for while a run's step runs: it takes effect when the
    /// step ends (a cancel also stops a streaming answer).
    pub(crate) fn signal_workflow(
        &mut self,
        execution_id: &str,
        control: WorkflowControl,
    ) -> Result<(), EngineError> {
        let run = self.run_in(self.execution(execution_id)?)?;
        if run.exec.status != WorkflowStatus::Running || control == WorkflowControl::Resume {
            return Err(EngineError::Conflict(format!(
                "workflow run `{execution_id}` cannot be {} while the context is busy ({})",
                match control {
                    WorkflowControl::Pause => "paused",
                    WorkflowControl::Resume => "resumed",
                    WorkflowControl::Cancel => "cancelled",
                },
                self.state().kind()
            )));
        }
        if control == WorkflowControl::Cancel
            && matches!(
                self.state(),
                ContextState::AwaitingLlmFirstChunk | ContextState::StreamingLlmResponse { .. }
            )
        {
            self.interrupt_token().cancel();
        }
        tracing::info!(context = %self.context_id(), execution = execution_id, control = control.as_str(), "workflow control requested");
        *self.workflow_signal() = Some((execution_id.to_owned(), control));
        Ok(())
    }

    /// Starts the runs the model asked for with approved `workflow__<name>` calls, one after
    /// the other; each answers its call. `false` when one rested (waits for the person).
    pub(crate) async fn run_model_workflows(
        &mut self,
        calls: Vec<OpenCall>,
    ) -> Result<bool, EngineError> {
        for call in calls {
            let name = call.name.trim_start_matches(TOOL_PREFIX).to_owned();
            let given = call.arguments.as_object().cloned().unwrap_or_default();
            let definition = self.runnable_definition(&name, "");
            let checked = definition.and_then(|d| {
                let params = check_parameters(&d, &given)
                    .map_err(|p| EngineError::Invalid(ValidationErrors(p)))?;
                Ok((d, params))
            });
            let (definition, parameters) = match checked {
                Ok(found) => found,
                Err(e) => {
                    let result = call.result_message(
                        ToolOutcome::Error {
                            error: cause(e.to_string(), "invalid_arguments"),
                        },
                        0,
                        Utc::now(),
                        Utc::now(),
                    );
                    let branch = self.data().record.active_branch.clone();
                    self.commit(ContextChanges::new().add_message(&branch, result.clone()))
                        .await?;
                    self.emit_created(&result).await;
                    continue;
                }
            };
            let message = execution_message(
                definition,
                parameters,
                Some(call.id.clone()),
                Role::Assistant,
            );
            let id = message.id;
            let branch = self.data().record.active_branch.clone();
            self.commit(ContextChanges::new().add_message(&branch, message.clone()))
                .await?;
            self.emit_created(&message).await;
            if !self.begin_run(id).await? {
                continue;
            }
            if self.advance_workflow(id).await == RunEnd::Rested {
                return Ok(false);
            }
            // The model goes on in this turn: its answer, not the run, says how it ends.
            self.set_idle_outcome(None);
        }
        Ok(true)
    }

    /// After a restart: a run that was running is paused (resumable, with a notice); one that
    /// waited in the queue is failed (its send was not kept).
    pub(crate) async fn recover_workflows(&mut self) {
        let runs: Vec<Run> = self
            .data()
            .pool
            .values()
            .filter_map(Run::of)
            .filter(|r| {
                matches!(
                    r.exec.status,
                    WorkflowStatus::Running | WorkflowStatus::Pending
                )
            })
            .collect();
        if runs.is_empty() {
            return;
        }
        let branch = self.data().record.active_branch.clone();
        let mut changes = ContextChanges::new();
        let open = open_calls(self.data());
        let mut closed = Vec::new();
        for mut run in runs {
            // A step call that waited for approval is closed unrun: resuming runs the step
            // again, under the policy, with a new call.
            if let Some(call) = run
                .record
                .waiting_call
                .as_ref()
                .and_then(|w| open.iter().find(|c| &c.id == w))
            {
                changes.push_message(
                    &branch,
                    call.not_run(
                        "not executed: Braid restarted; resuming the workflow runs this step again",
                    ),
                );
                closed.push(call.id.clone());
            }
            let now = Utc::now().max(run.exec.started_at);
            run.exec.updated_at = now;
            run.message.status = MessageStatus::Complete;
            let detail = if run.exec.status == WorkflowStatus::Pending {
                run.exec.status = WorkflowStatus::Failed;
                run.exec.error = Some(cause(
                    "Braid restarted before this run started; start it again",
                    "restarted",
                ));
                format!(
                    "Braid restarted before workflow `{}` started; it was not run.",
                    run.exec.workflow_name
                )
            } else {
                run.exec.status = WorkflowStatus::Paused;
                run.record.waiting_call = None;
                format!(
                    "Braid restarted while workflow `{}` was running (step {} of {}{}); it is paused. Resume it to continue from that step.",
                    run.exec.workflow_name,
                    run.exec.completed_steps + 1,
                    run.exec.total_steps,
                    run.exec
                        .current_step
                        .as_deref()
                        .map(|s| format!(", `{s}`"))
                        .unwrap_or_default()
                )
            };
            tracing::warn!(context = %self.context_id(), execution = %run.exec.execution_id, "workflow run recovered after a restart");
            changes.updated_messages.push(run.to_message());
            changes.push_message(
                &branch,
                Message::new(
                    Role::Assistant,
                    MessageKind::SystemControl(SystemControlMessage::Recovered {
                        interrupted_state: "executing_workflow".to_owned(),
                        detail,
                    }),
                ),
            );
        }
        let still_waiting = open
            .iter()
            .any(|c| c.approval == ApprovalStatus::Pending && !closed.contains(&c.id));
        let leave = match self.state() {
            ContextState::ExecutingWorkflow { .. } => true,
            ContextState::AwaitingToolApproval { .. } => !still_waiting,
            _ => false,
        };
        if leave {
            let back = ContextState::ExecutingWorkflow {
                workflow_name: String::new(),
                execution_id: String::new(),
                step: 0,
                total: 0,
            };
            if matches!(self.state(), ContextState::AwaitingToolApproval { .. })
                && let Err(error) = self.announce(back).await
            {
                tracing::error!(context = %self.context_id(), %error, "recovery transition refused");
            }
            if let Err(error) = self.announce(ContextState::Idle).await {
                tracing::error!(context = %self.context_id(), %error, "recovery transition refused");
            }
        }
        if let Err(error) = self.commit(changes).await {
            tracing::error!(context = %self.context_id(), %error, "workflow recovery not saved");
        }
    }
}
