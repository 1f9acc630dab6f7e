//! Crash recovery (seed 001 "State recovery after crash"): a context loaded in the middle of an
//! operation moves to a safe state, what was interrupted is recorded, a partial answer is kept
//! as `incomplete`, and an approved tool call that may have run is never run a second time.

use braid_protocol::api::TurnStatus;
use braid_protocol::{
    ApprovalStatus, ContextEvent, ContextState, Message, MessageKind, MessageStatus, Metadata,
    Role, SystemControlMessage, TextPart, ToolOutcome, TurnCompleted, TurnOutcome,
};
use braid_store::ContextChanges;
use chrono::Utc;

use crate::actor::Actor;
use crate::host::Host;

impl Actor {
    /// Runs once when the actor starts.
    pub(crate) async fn recover(&mut self) {
        self.interrupt_unfinished_turns().await;
        self.recover_workflows().await;
        crate::input::fail_interrupted_input(self).await;
        let interrupted = self.state().kind();
        let mut changes = ContextChanges::new();
        let unfinished: Vec<Message> = self
            .data()
            .pool
            .values()
            .filter(|m| {
                matches!(
                    m.status,
                    MessageStatus::Streaming | MessageStatus::Processing | MessageStatus::Pending
                )
            })
            .cloned()
            .collect();
        for mut m in unfinished {
            if m.status == MessageStatus::Streaming {
                self.restore_streamed_text(&mut m).await;
            }
            m.status = MessageStatus::Incomplete;
            m.updated_at = Utc::now();
            changes.updated_messages.push(m);
        }
        // A loop that had got past its approvals (every open call decided) was running them:
        // the state may still say it waits, and an approved call without a result may have
        // run before the crash. Running it again could repeat its effect, so it gets an error
        // result the model can read instead (at most once).
        let open = crate::calls::open_calls(self.data());
        let past_approval = !interrupted.is_resting()
            || (matches!(self.state(), ContextState::AwaitingToolApproval { .. })
                && !open.iter().any(|c| c.approval == ApprovalStatus::Pending));
        if !past_approval {
            self.announce_stored_state().await;
        }
        let branch = self.data().record.active_branch.clone();
        if past_approval {
            for call in open
                .iter()
                .filter(|c| c.approval == ApprovalStatus::Approved)
            {
                let mut result = call.not_run(
                    "interrupted: Braid restarted while this approved call was due to run or running; it may have run, so it is not run again",
                );
                if let MessageKind::ToolResult(r) = &mut result.kind
                    && let ToolOutcome::Error { error } = &mut r.outcome
                {
                    error.code = Some("interrupted".to_owned());
                }
                changes.push_message(&branch, result);
            }
        }
        if !past_approval && changes.is_empty() {
            return;
        }
        let kept = changes.updated_messages.len();
        if past_approval {
            let detail = format!(
                "Braid restarted while this context was {interrupted}; {kept} unfinished message(s) kept as incomplete. Resume to continue."
            );
            changes.push_message(
                &branch,
                Message::new(
                    Role::Assistant,
                    MessageKind::SystemControl(SystemControlMessage::Recovered {
                        interrupted_state: interrupted.as_str().to_owned(),
                        detail: detail.clone(),
                    }),
                ),
            );
            let failed = ContextState::Failed {
                error: detail,
                recoverable: true,
            };
            // Persisted below, with the messages it explains, in one transaction.
            if let Err(error) = self.announce(failed).await {
                tracing::error!(context = %self.context_id(), %error, "recovery transition refused");
            }
        }
        tracing::warn!(context = %self.context_id(), interrupted = interrupted.as_str(), incomplete_messages = kept, "context recovered after a restart");
        if let Err(error) = self.commit(changes).await {
            tracing::error!(context = %self.context_id(), %error, "recovery not saved");
        }
    }

    /// A turn whose record says it was running when Braid stopped ends as `interrupted`: its
    /// record is saved so, and its `turn_completed` is logged (it never got one).
    async fn interrupt_unfinished_turns(&self) {
        let running = match self.store().running_turns(self.context_id()).await {
            Ok(running) => running,
            Err(error) => {
                tracing::warn!(context = %self.context_id(), %error, "running turns not read; none marked interrupted");
                return;
            }
        };
        for mut view in running {
            let now = Utc::now();
            let error = "Braid restarted while this turn ran".to_owned();
            view.status = TurnStatus::Completed;
            view.outcome = Some(TurnOutcome::Interrupted);
            view.error = Some(error.clone());
            view.completed_at = Some(now);
            let record = braid_store::ContextChanges::turn_record(view.clone());
            if let Err(e) = self.store().save_changes(self.context_id(), &record).await {
                tracing::error!(context = %self.context_id(), turn = %view.turn_id, error = %e, "interrupted turn not saved");
                continue;
            }
            tracing::warn!(context = %self.context_id(), turn = %view.turn_id, "turn interrupted by a restart");
            self.emit(ContextEvent::TurnCompleted(TurnCompleted {
                context_id: self.context_id(),
                turn_id: view.turn_id,
                branch: view.branch,
                outcome: TurnOutcome::Interrupted,
                error: Some(error),
                timestamp: now,
            }))
            .await;
        }
    }

    /// A crash between the commit of a state and that of the `context_update` announcing it
    /// leaves the state stored and the log without it (issue 41): readers resuming from the log
    /// would keep the state they last saw for ever. Announces the stored state when the log's
    /// last `context_update` (none: a new context, idle) shows another.
    async fn announce_stored_state(&self) {
        let last = match self.store().last_context_update(self.context_id()).await {
            Ok(last) => last,
            Err(error) => {
                tracing::warn!(context = %self.context_id(), %error, "last state event not read; the stored state is not announced again");
                return;
            }
        };
        let shown = match last.map(|e| e.event) {
            Some(ContextEvent::ContextUpdate(update)) => Some(update.current_state),
            _ => None,
        };
        if shown.as_ref().unwrap_or(&ContextState::Idle) == self.state() {
            return;
        }
        tracing::warn!(context = %self.context_id(), state = self.state().kind().as_str(), "stored state never announced; announcing it");
        self.emit_update(shown, None, Metadata::new()).await;
    }

    /// A streamed answer is saved only every few chunks, but each chunk's `content_delta` is
    /// in the event log: rebuild the visible text from the committed deltas when they hold more
    /// than the saved text (a client may have seen them), keeping any reasoning.
    async fn restore_streamed_text(&self, m: &mut Message) {
        let MessageKind::Text(t) = &mut m.kind else {
            return;
        };
        let mut deltas = match self.store().message_deltas(self.context_id(), m.id).await {
            Ok(deltas) => deltas,
            Err(error) => {
                tracing::warn!(context = %self.context_id(), message = %m.id, %error, "streamed deltas not read; the saved text is kept");
                return;
            }
        };
        deltas.sort_by_key(|d| d.sequence);
        deltas.dedup_by_key(|d| d.sequence);
        let streamed: String = deltas.iter().map(|d| d.delta.as_str()).collect();
        let saved: String = t
            .parts
            .iter()
            .filter_map(|p| match p {
                TextPart::Text { text } => Some(text.as_str()),
                TextPart::Reasoning { .. } => None,
            })
            .collect();
        if streamed.len() > saved.len() {
            t.parts.retain(|p| matches!(p, TextPart::Reasoning { .. }));
            t.push_text(&streamed);
        }
    }
}
