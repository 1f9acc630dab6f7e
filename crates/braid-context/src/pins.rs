//! Pins and corrections (issue 42): what the person keeps in every request, and the summaries
//! they put right. A pinned message is never dropped or summarized; a pinned fact rides in the
//! ledger block of every request; a corrected summary is what later requests get, with the
//! model's text kept beside it.

use braid_protocol::{
    Message, MessageId, MessageKind, MessageUpdate, Metadata, Role, SystemControlMessage,
};
use braid_store::ContextChanges;
use chrono::Utc;
use serde_json::json;

use crate::actor::Actor;
use crate::error::EngineError;
use crate::host::Host;

/// The longest pinned fact, in characters: it rides in every request.
pub const MAX_FACT_CHARS: usize = 2_000;

/// The metadata key that keeps the model's own text of a corrected summary.
pub const ORIGINAL_SUMMARY: &str = "original_summary";

impl Actor {
    /// Pins or unpins a message of the context; answers it as stored.
    pub(crate) async fn pin(
        &mut self,
        message: MessageId,
        pinned: bool,
    ) -> Result<Message, EngineError> {
        let mut m = self.data().pool.get(&message).cloned().ok_or_else(|| {
            EngineError::NotFound(format!("the context has no message {message}"))
        })?;
        if m.is_pinned() == pinned {
            return Ok(m);
        }
        if pinned && !m.kind_name().is_sent_to_model() && !is_fact(&m) {
            return Err(EngineError::Conflict(format!(
                "message {message} is a `{}` notice, which is never sent to the model: only messages the model sees, and facts, can be pinned",
                m.kind_name()
            )));
        }
        m.set_pinned(pinned);
        self.store_change(m).await
    }

    /// Pins a fact the person wrote: a `pinned_fact` notice on the active branch, carried in
    /// every request's ledger block while it stays pinned.
    pub(crate) async fn pin_fact(&mut self, text: String) -> Result<Message, EngineError> {
        let text = text.trim().to_owned();
        if text.is_empty() {
            return Err(invalid_text("a pinned fact must not be empty".to_owned()));
        }
        let chars = text.chars().count();
        if chars > MAX_FACT_CHARS {
            return Err(invalid_text(format!(
                "a pinned fact rides in every request: at most {MAX_FACT_CHARS} characters, got {chars}"
            )));
        }
        let mut m = Message::new(
            Role::User,
            MessageKind::SystemControl(SystemControlMessage::PinnedFact { text }),
        );
        m.set_pinned(true);
        let branch = self.data().record.active_branch.clone();
        self.commit(ContextChanges::new().add_message(&branch, m.clone()))
            .await?;
        self.emit_created(&m).await;
        Ok(m)
    }

    /// Replaces a summary's text with the person's correction; later requests get it, and the
    /// model's text is kept in `metadata.original_summary`.
    pub(crate) async fn correct_summary(
        &mut self,
        message: MessageId,
        text: String,
    ) -> Result<Message, EngineError> {
        let text = text.trim().to_owned();
        if text.is_empty() {
            return Err(invalid_text("a summary must not be empty".to_owned()));
        }
        let mut m = self.data().pool.get(&message).cloned().ok_or_else(|| {
            EngineError::NotFound(format!("the context has no message {message}"))
        })?;
        let MessageKind::SystemControl(SystemControlMessage::Summary { text: old, .. }) =
            &mut m.kind
        else {
            return Err(EngineError::Conflict(format!(
                "message {message} is a `{}`, not a summary",
                m.kind_name()
            )));
        };
        let original = std::mem::replace(old, text);
        m.metadata
            .entry(ORIGINAL_SUMMARY.to_owned())
            .or_insert_with(|| json!(original));
        m.metadata
            .insert("corrected_at".to_owned(), json!(Utc::now()));
        self.store_change(m).await
    }

    /// Stores a changed message and tells subscribers to read it again.
    async fn store_change(&mut self, mut m: Message) -> Result<Message, EngineError> {
        m.updated_at = Utc::now();
        self.commit(ContextChanges::new().update_message(m.clone()))
            .await?;
        self.emit_update(
            None,
            Some(MessageUpdate::Changed {
                message_id: m.id,
                kind: m.kind_name(),
            }),
            Metadata::new(),
        )
        .await;
        Ok(m)
    }

    /// The pinned messages and facts of the active branch, in order.
    pub(crate) fn pinned(&self) -> Vec<MessageId> {
        self.data()
            .active_messages()
            .into_iter()
            .filter(|m| m.is_pinned())
            .map(|m| m.id)
            .collect()
    }
}

/// A 422 naming the `text` field.
fn invalid_text(message: impl Into<String>) -> EngineError {
    EngineError::Invalid(braid_protocol::ValidationErrors(vec![
        braid_protocol::Problem {
            path: "text".to_owned(),
            message: message.into(),
        },
    ]))
}

fn is_fact(m: &Message) -> bool {
    matches!(
        m.kind,
        MessageKind::SystemControl(SystemControlMessage::PinnedFact { .. })
    )
}
