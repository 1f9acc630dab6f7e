//! Crash recovery (seed 001 "State recovery after crash"): a context loaded in the middle of an
//! operation moves to a safe state, what was interrupted is recorded, and a partial answer is
//! kept as `incomplete`.

use braid_protocol::{
    ContextState, Message, MessageKind, MessageStatus, Role, SystemControlMessage,
};
use braid_store::ContextChanges;
use chrono::Utc;

use crate::actor::Actor;

impl Actor {
    /// Runs once when the actor starts.
    pub(crate) async fn recover(&mut self) {
        let interrupted = self.state().kind();
        let mut changes = ContextChanges::new();
        for m in self.data.pool.values() {
            if matches!(
                m.status,
                MessageStatus::Streaming | MessageStatus::Processing | MessageStatus::Pending
            ) {
                let mut m = m.clone();
                m.status = MessageStatus::Incomplete;
                m.updated_at = Utc::now();
                changes.updated_messages.push(m);
            }
        }
        if interrupted.is_resting() && changes.is_empty() {
            return;
        }
        let kept = changes.updated_messages.len();
        if !interrupted.is_resting() {
            let detail = format!(
                "Braid restarted while this context was {interrupted}; {kept} unfinished message(s) kept as incomplete. Resume to continue."
            );
            let branch = self.data.record.active_branch.clone();
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
            if let Err(error) = self.transition(failed).await {
                tracing::error!(context = %self.id, %error, "recovery transition refused");
            }
        }
        tracing::warn!(context = %self.id, interrupted = interrupted.as_str(), incomplete_messages = kept, "context recovered after a restart");
        if let Err(error) = self.commit(changes).await {
            tracing::error!(context = %self.id, %error, "recovery not saved");
        }
    }
}
