//! The person's input as it is stored (DESIGN.md "Conventions": a 202 means the input is
//! stored). A send's messages are committed as `pending` before its id is given out; the
//! pipeline then completes them, or marks them `failed` with the error. Failed input stays in
//! the conversation, out of model requests, until it is retried or deleted. A send's messages
//! (file references and the text after them) share `metadata.send_id` and are retried and
//! deleted together.

use braid_protocol::{
    BranchName, ErrorDetail, Message, MessageId, MessageKind, MessageStatus, MessageUpdate,
    Metadata, Recoverability,
};
use braid_store::{BranchIds, ContextChanges};
use chrono::Utc;
use serde_json::Value;

use crate::context::ContextData;
use crate::error::EngineError;
use crate::host::Host;
use crate::send::{QueuedSend, SendAction};

/// The metadata key that ties the messages of one send together.
pub(crate) const SEND_ID: &str = "send_id";

/// The error a message gets when Braid restarted before its pipeline finished.
pub(crate) const RESTARTED: &str =
    "Braid restarted before this message was processed; retry it to send it, or delete it";

/// The error a queued message keeps when the person deleted it before it ran.
pub(crate) const DELETED: &str = "deleted before it was processed";

/// The send a message belongs to: its `send_id`, or the message itself.
fn send_of(m: &Message) -> Option<String> {
    m.metadata
        .get(SEND_ID)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The error a failed pipeline leaves on its input.
pub(crate) fn input_error(error: &EngineError) -> ErrorDetail {
    let code = serde_json::to_value(error.code())
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    ErrorDetail::new(error.to_string(), Recoverability::Recoverable).with_code(code)
}

/// Commits a send's messages as `pending` at the end of the active branch, before the send
/// is answered, and announces them. On error nothing is stored and the send is refused.
pub(crate) async fn store_input<H: Host>(
    host: &mut H,
    send: &mut QueuedSend,
) -> Result<(), EngineError> {
    if send.messages.is_empty() {
        return Ok(());
    }
    let send_id = send.primary_id().to_string();
    let branch = host.data().record.active_branch.clone();
    let mut changes = ContextChanges::new();
    for m in &mut send.messages {
        m.status = MessageStatus::Pending;
        m.error = None;
        m.metadata
            .insert(SEND_ID.to_owned(), Value::String(send_id.clone()));
        changes.push_message(&branch, m.clone());
    }
    host.commit(changes).await?;
    for m in &send.messages {
        host.emit_created(m).await;
    }
    Ok(())
}

/// The active branch's order with a send's input moved to its end (it waited in the queue
/// while another turn added messages), then `added`, so the conversation reads in the order
/// it ran; `None` when the input already ends the branch. Saved with the commit that
/// completes or fails the input, so moving costs no transaction of its own.
pub(crate) fn input_at_end(
    data: &ContextData,
    ids: &[MessageId],
    added: &[MessageId],
) -> Option<BranchIds> {
    let active = data.active();
    let tail_start = active.message_ids.len().saturating_sub(ids.len());
    if ids.is_empty() || active.message_ids[tail_start..] == *ids {
        return None;
    }
    let mut order: Vec<MessageId> = active
        .message_ids
        .iter()
        .copied()
        .filter(|id| !ids.contains(id))
        .collect();
    order.extend_from_slice(ids);
    order.extend_from_slice(added);
    Some(BranchIds {
        branch: active.name,
        message_ids: order,
    })
}

/// Records that the pipeline failed on a send's input: each message becomes `failed` with
/// the error, and stays where it is.
pub(crate) async fn fail_input<H: Host>(host: &mut H, ids: &[MessageId], error: &EngineError) {
    let detail = input_error(error);
    // The image whose recognition failed also carries the error in its own `error` field.
    let failed_image = match error {
        EngineError::Pipeline(e) => crate::pipeline::failed_image(e).map(|(id, _)| id),
        _ => None,
    };
    let failed = failed_copies(host.data(), ids, &detail, |id| failed_image == Some(id));
    let moved = input_at_end(host.data(), ids, &[]);
    save_statuses(host, failed, moved).await;
}

/// The provider refused a request that carried these images: each becomes `failed` with
/// the provider's words, so it stays out of later requests (the conversation goes on
/// without it) until it is retried.
pub(crate) async fn set_aside_rejected_images<H: Host>(
    host: &mut H,
    ids: &[MessageId],
    error: &EngineError,
) {
    let detail = ErrorDetail::new(
        format!(
            "the model's provider refused the request with this image, so it is left out of later requests; retry it, or send it again with recognition_mode `ocr`: {error}"
        ),
        Recoverability::Recoverable,
    )
    .with_code("image_rejected");
    let failed = failed_copies(host.data(), ids, &detail, |_| true);
    tracing::warn!(context = %host.context_id(), images = failed.len(), "images the provider refused set aside");
    save_statuses(host, failed, None).await;
}

/// Copies of the messages `ids`, `failed` with `detail`; an image for which `image_failed`
/// holds also carries it in its own `error` field.
fn failed_copies(
    data: &ContextData,
    ids: &[MessageId],
    detail: &ErrorDetail,
    image_failed: impl Fn(MessageId) -> bool,
) -> Vec<Message> {
    let now = Utc::now();
    ids.iter()
        .filter_map(|id| data.pool.get(id))
        .map(|m| {
            let mut m = m.clone();
            m.status = MessageStatus::Failed;
            m.error = Some(Box::new(detail.clone()));
            m.updated_at = now;
            if image_failed(m.id)
                && let MessageKind::Image(image) = &mut m.kind
            {
                image.error = Some(detail.clone());
            }
            m
        })
        .collect()
}

/// Stores messages whose status changed and announces each change. A store failure is
/// logged: the context's own failure is reported right after.
async fn save_statuses<H: Host>(host: &mut H, messages: Vec<Message>, order: Option<BranchIds>) {
    if messages.is_empty() {
        return;
    }
    let changes = ContextChanges {
        updated_messages: messages.clone(),
        replacements: order.into_iter().collect(),
        ..ContextChanges::new()
    };
    if let Err(error) = host.commit(changes).await {
        tracing::error!(context = %host.context_id(), %error, "input status not saved");
        return;
    }
    announce_statuses(host, &messages).await;
}

/// Emits the `status_changed` update of each message.
pub(crate) async fn announce_statuses<H: Host>(host: &H, messages: &[Message]) {
    for m in messages {
        host.emit_update(
            None,
            Some(MessageUpdate::StatusChanged {
                message_id: m.id,
                kind: m.kind_name(),
                status: m.status,
            }),
            Metadata::new(),
        )
        .await;
    }
}

/// The stored messages of the send `id` belongs to, in the order of the branch that holds
/// them, with the branch. `NotFound` when no branch holds `id`.
pub(crate) fn send_group(
    data: &ContextData,
    id: MessageId,
) -> Result<(BranchName, Vec<Message>), EngineError> {
    let not_found = || EngineError::NotFound(format!("no message {id} in this context"));
    let message = data.pool.get(&id).ok_or_else(not_found)?;
    let active = data.record.active_branch.clone();
    // The active branch first: a fork shares its parent's messages.
    let branch = std::iter::once(&active)
        .chain(data.branches.iter().map(|b| &b.name))
        .find(|b| data.branch(b).is_some_and(|b| b.message_ids.contains(&id)))
        .cloned()
        .ok_or_else(not_found)?;
    let group = match send_of(message) {
        Some(send) => data
            .branch_messages(&branch)
            .into_iter()
            .filter(|m| send_of(m).as_deref() == Some(send.as_str()) && m.status == message.status)
            .cloned()
            .collect(),
        None => vec![message.clone()],
    };
    Ok((branch, group))
}

/// Makes a failed send `pending` again and builds the send that runs it. `NotFound` for an
/// unknown message, `Conflict` for one that is not failed input on the active branch.
pub(crate) async fn accept_retry<H: Host>(
    host: &mut H,
    id: MessageId,
) -> Result<QueuedSend, EngineError> {
    let (branch, group) = send_group(host.data(), id)?;
    let Some(message) = group.iter().find(|m| m.id == id) else {
        return Err(EngineError::NotFound(format!(
            "no message {id} in this context"
        )));
    };
    if !message.is_held_input() || message.status != MessageStatus::Failed {
        return Err(EngineError::Conflict(format!(
            "message {id} is {}: only failed input can be retried",
            message.status.as_str()
        )));
    }
    if branch != host.data().record.active_branch {
        return Err(EngineError::Conflict(format!(
            "message {id} is on branch `{branch}`: activate that branch to retry it"
        )));
    }
    let now = Utc::now();
    let pending: Vec<Message> = group
        .into_iter()
        .map(|mut m| {
            m.status = MessageStatus::Pending;
            m.error = None;
            m.updated_at = now;
            if let MessageKind::Image(image) = &mut m.kind {
                image.error = None;
            }
            m
        })
        .collect();
    let changes = ContextChanges {
        updated_messages: pending.clone(),
        ..ContextChanges::new()
    };
    host.commit(changes).await?;
    announce_statuses(host, &pending).await;
    Ok(QueuedSend {
        messages: pending,
        updates: Vec::new(),
        action: SendAction::Converse,
    })
}

/// Recovery: input a crash left `pending` or `processing` on a branch becomes `failed`,
/// retryable, saying Braid restarted. It is not run on its own: the person was not there
/// when it would have run, and decides with Retry.
pub(crate) async fn fail_interrupted_input<H: Host>(host: &mut H) {
    let detail = ErrorDetail::new(RESTARTED, Recoverability::Recoverable).with_code("restarted");
    let now = Utc::now();
    let failed: Vec<Message> = host
        .data()
        .pool
        .values()
        .filter(|m| {
            m.role != braid_protocol::Role::Assistant
                && matches!(m.status, MessageStatus::Pending | MessageStatus::Processing)
        })
        .map(|m| {
            let mut m = m.clone();
            m.status = MessageStatus::Failed;
            m.error = Some(Box::new(detail.clone()));
            m.updated_at = now;
            m
        })
        .collect();
    if !failed.is_empty() {
        tracing::warn!(context = %host.context_id(), messages = failed.len(), "input a restart interrupted marked failed");
    }
    save_statuses(host, failed, None).await;
}
