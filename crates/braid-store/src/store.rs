//! The `Store` trait: what the engine asks of persistence.

use std::sync::Arc;

use async_trait::async_trait;
use braid_protocol::api::TurnView;
use braid_protocol::{
    BranchName, ContentDelta, ContextEvent, ContextId, ContextTurnId, KindName, Message, MessageId,
    SequencedEvent,
};

use crate::changes::ContextChanges;
use crate::error::{Backend, Result};
use crate::events::{EventNotice, EventPublisher};
use crate::group_commit::PendingSave;
use crate::idempotency::{IdempotencyClaim, IdempotencyWindow, IdempotentRequest, StoredAnswer};
use crate::lock::{ContextLock, Lease, ReplicaIdentity};
use crate::record::{BranchRecord, ContextRecord, MessageRange, StoredModelRequest};
use crate::search::{SearchHit, SearchTerms};

/// Persistence for contexts, their messages and branches, and their event logs. Shared as
/// `Arc<dyn Store>`; every method is safe to call concurrently.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Which database this store runs on.
    fn backend(&self) -> Backend;

    /// Stores a new context with an empty branch named after its active branch.
    async fn create_context(&self, context: &ContextRecord) -> Result<()>;

    /// The context, if it exists.
    async fn get_context(&self, id: ContextId) -> Result<Option<ContextRecord>>;

    /// Every context, most recently updated first.
    async fn list_contexts(&self) -> Result<Vec<ContextRecord>>;

    /// Every context's id in the order of [`Store::list_contexts`], without reading the
    /// contexts: a list of contexts that are all loaded takes its entries from their actors.
    async fn list_context_ids(&self) -> Result<Vec<ContextId>>;

    /// Removes a context with its messages, branches and events. Answers whether it existed.
    async fn delete_context(&self, id: ContextId) -> Result<bool>;

    /// Applies a change set in one transaction: all of it or, on any error, none of it. Every
    /// written message is checked first with [`Message::validate_for_storage`].
    async fn save_changes(&self, context: ContextId, changes: &ContextChanges) -> Result<()>;

    /// Queues a change set to be saved as [`Store::save_changes`] saves it, and returns once it
    /// is queued, with its outcome to await. Events appended to the context after this returns
    /// are committed no earlier than the change set, and never if it fails (they are reported
    /// lost): an actor may announce what the change set stores before it is committed, and no
    /// client hears of it sooner. Change sets of one context are saved in the order queued, each
    /// on its own merits: one that builds on a queued one is queued once that one's outcome is
    /// taken. A store that cannot order events after change sets saves it before returning.
    async fn queue_changes(
        &self,
        context: ContextId,
        changes: &ContextChanges,
    ) -> Result<PendingSave> {
        self.save_changes(context, changes).await?;
        Ok(PendingSave::saved())
    }

    /// Queues a change set with the events that announce it (a new state and its
    /// `context_update`), numbered as [`Store::append_event`] numbers them: the change set and
    /// the events are committed in one transaction, or neither is, so a crash never leaves a
    /// state stored without the event that tells readers of it. Otherwise as
    /// [`Store::queue_changes`]: the outcome is awaited on the pending save, and the events
    /// reach `publisher` once committed (or are reported lost with the change set). A store
    /// that cannot commit the two together queues the change set, then appends the events.
    async fn queue_announced(
        &self,
        context: ContextId,
        changes: &ContextChanges,
        events: &[ContextEvent],
        publisher: Arc<dyn EventPublisher>,
    ) -> Result<(PendingSave, Vec<SequencedEvent>)> {
        let pending = self.queue_changes(context, changes).await?;
        let mut numbered = Vec::with_capacity(events.len());
        for event in events {
            numbered.push(
                self.append_event(context, event, Arc::clone(&publisher))
                    .await?,
            );
        }
        Ok((pending, numbered))
    }

    /// The context's branches with their message ids, by creation.
    async fn list_branches(&self, context: ContextId) -> Result<Vec<BranchRecord>>;

    /// Messages of a branch in branch order, reading only the requested range.
    async fn load_messages(
        &self,
        context: ContextId,
        branch: &BranchName,
        range: MessageRange,
    ) -> Result<Vec<Message>>;

    /// The messages of one kind on a branch, in branch order.
    async fn load_messages_by_kind(
        &self,
        context: ContextId,
        branch: &BranchName,
        kind: KindName,
    ) -> Result<Vec<Message>>;

    /// How many messages a branch holds.
    async fn count_messages(&self, context: ContextId, branch: &BranchName) -> Result<u64>;

    /// The messages with these ids from the context's pool, in the order asked; ids not in the
    /// pool are left out.
    async fn get_messages(&self, context: ContextId, ids: &[MessageId]) -> Result<Vec<Message>>;

    /// The context's whole pool (every branch's messages), by creation.
    async fn all_messages(&self, context: ContextId) -> Result<Vec<Message>>;

    /// Gives the event the context's next sequence number and queues it for the batching
    /// writer; returns without waiting for the commit (but waits while the writer's queue is
    /// full). Sequences start at 1 and keep rising across restarts. The event is durable after
    /// the next [`Store::flush_events`] (or a few milliseconds); only then is it handed to
    /// `publisher`, so no one sees an event a crash could undo. If the store stays unavailable
    /// through the writer's retries, `publisher` is told the event was lost instead.
    async fn append_event(
        &self,
        context: ContextId,
        event: &ContextEvent,
        publisher: Arc<dyn EventPublisher>,
    ) -> Result<SequencedEvent>;

    /// Waits until every event appended before this call is committed (or reported lost: then
    /// the error says why).
    async fn flush_events(&self) -> Result<()>;

    /// The highest committed sequence of a context's events (0 when it has none): a client
    /// resuming after a higher id holds one this store never committed.
    async fn last_event_sequence(&self, context: ContextId) -> Result<u64>;

    /// The context's last committed `context_update`: the state a reader following the log
    /// last learned of. `None` when it has none. This default reads the log backwards a window
    /// at a time.
    async fn last_context_update(&self, context: ContextId) -> Result<Option<SequencedEvent>> {
        const WINDOW: u64 = 256;
        let mut end = self.last_event_sequence(context).await?;
        while end > 0 {
            let start = end.saturating_sub(WINDOW);
            let window = self
                .events_after(
                    context,
                    start,
                    u32::try_from(end - start).unwrap_or(u32::MAX),
                )
                .await?;
            if let Some(found) = window
                .into_iter()
                .rev()
                .find(|e| matches!(e.event, ContextEvent::ContextUpdate(_)))
            {
                return Ok(Some(found));
            }
            end = start;
        }
        Ok(None)
    }

    /// The committed `content_delta` events of one message, in order (to rebuild a partial
    /// answer after a crash).
    async fn message_deltas(
        &self,
        context: ContextId,
        message: MessageId,
    ) -> Result<Vec<ContentDelta>>;

    /// Up to `limit` committed events of a context with a sequence above `after`, in order
    /// (SSE replay from `Last-Event-ID`).
    async fn events_after(
        &self,
        context: ContextId,
        after: u64,
        limit: u32,
    ) -> Result<Vec<SequencedEvent>>;

    /// The committed events of several contexts at once: for each `(context, after)`, up to
    /// `limit` of its events with a sequence above `after`, in order (a context's events are
    /// contiguous in the answer). One query on PostgreSQL, where a replica follows the logs of
    /// many contexts that other replicas write; elsewhere one [`Store::events_after`] each.
    async fn events_after_each(
        &self,
        cursors: &[(ContextId, u64)],
        limit: u32,
    ) -> Result<Vec<(ContextId, SequencedEvent)>> {
        let mut out = Vec::new();
        for (context, after) in cursors {
            for event in self.events_after(*context, *after, limit).await? {
                out.push((*context, event));
            }
        }
        Ok(out)
    }

    /// Claims the context for this store instance: takes its lease (see [`crate::ContextLock`])
    /// when nobody holds it, its owner released it or let it expire. `None` when another owner
    /// (or this store already) holds it. Every later write of this store to the context
    /// carries the lease's fencing token, and is refused once another replica has taken the
    /// context over. Ownership ends when the lock is dropped, or when the lease is lost
    /// ([`ContextLock::lost`]).
    async fn try_lock_context(&self, context: ContextId) -> Result<Option<ContextLock>>;

    /// The context's lease, if anyone ever owned it.
    async fn lease(&self, context: ContextId) -> Result<Option<Lease>>;

    /// Contexts whose owner stopped renewing its lease without releasing it (it died or lost
    /// the database): another replica should take them over and recover them.
    async fn orphaned_contexts(&self) -> Result<Vec<ContextId>>;

    /// Who this store instance is in the lease table.
    fn replica(&self) -> &ReplicaIdentity;

    /// Notices of committed events of every context, including those written by other
    /// replicas (PostgreSQL LISTEN/NOTIFY). A notice can be missed (a lagging receiver, a
    /// reconnect): readers catch up with [`Store::events_after`].
    fn event_notices(&self) -> tokio::sync::broadcast::Receiver<EventNotice>;

    /// The OAuth credentials kept for the MCP server `server` (JSON text), if any.
    async fn load_mcp_credentials(&self, server: &str) -> Result<Option<String>>;

    /// Keeps (replaces) the OAuth credentials of the MCP server `server`.
    async fn save_mcp_credentials(&self, server: &str, credentials: &str) -> Result<()>;

    /// Forgets the OAuth credentials of the MCP server `server`.
    async fn clear_mcp_credentials(&self, server: &str) -> Result<()>;

    /// Claims `request`'s key, or says what its first use left: see [`IdempotencyClaim`].
    /// A store that keeps no keys (a test's wrapper) refuses with
    /// [`StoreError::Unsupported`](crate::StoreError::Unsupported).
    async fn claim_idempotency_key(
        &self,
        request: IdempotentRequest<'_>,
        window: IdempotencyWindow,
    ) -> Result<IdempotencyClaim> {
        let _ = (request, window);
        Err(crate::StoreError::Unsupported("idempotency keys"))
    }

    /// Records the answer of a claimed key's request.
    async fn record_idempotent_answer(
        &self,
        scope: &str,
        key: &str,
        answer: &StoredAnswer,
    ) -> Result<()> {
        let _ = (scope, key, answer);
        Err(crate::StoreError::Unsupported("idempotency keys"))
    }

    /// Gives up a claim whose request recorded no answer (it failed on the server's side, or
    /// its client went away), so the key can be used again at once.
    async fn release_idempotency_key(&self, scope: &str, key: &str) -> Result<()> {
        let _ = (scope, key);
        Err(crate::StoreError::Unsupported("idempotency keys"))
    }

    /// Removes the keys older than `window.answers_kept`, then the oldest beyond the newest
    /// `keep`; answers how many went.
    async fn expire_idempotency_keys(&self, window: IdempotencyWindow, keep: u64) -> Result<u64> {
        let _ = (window, keep);
        Err(crate::StoreError::Unsupported("idempotency keys"))
    }

    /// Keeps the description of one request sent to the model (`ModelRequestRecord` as JSON,
    /// issue 42). A store that keeps none (a test's wrapper) refuses with
    /// [`StoreError::Unsupported`](crate::StoreError::Unsupported).
    async fn record_model_request(&self, request: &StoredModelRequest) -> Result<()> {
        let _ = request;
        Err(crate::StoreError::Unsupported("model request records"))
    }

    /// The newest `limit` request records of `context` (of `branch` only, when named), newest
    /// first, older than the record `before` when one is named.
    async fn model_requests(
        &self,
        context: ContextId,
        branch: Option<&str>,
        before: Option<uuid::Uuid>,
        limit: u32,
    ) -> Result<Vec<String>> {
        let _ = (context, branch, before, limit);
        Err(crate::StoreError::Unsupported("model request records"))
    }

    /// One request record of `context`, if it exists.
    async fn model_request(&self, context: ContextId, id: uuid::Uuid) -> Result<Option<String>> {
        let _ = (context, id);
        Err(crate::StoreError::Unsupported("model request records"))
    }

    /// Keeps one counter's token counts of `context`'s messages, each replacing the count that
    /// counter kept of the same message (issue 49). A store that keeps none (a test's wrapper)
    /// refuses with [`StoreError::Unsupported`](crate::StoreError::Unsupported).
    async fn save_token_counts(
        &self,
        context: ContextId,
        counts: &crate::record::StoredTokenCounts,
    ) -> Result<()> {
        let _ = (context, counts);
        Err(crate::StoreError::Unsupported("token counts"))
    }

    /// Every token count kept for `context`'s messages, by counter.
    async fn token_counts(
        &self,
        context: ContextId,
    ) -> Result<Vec<crate::record::StoredTokenCounts>> {
        let _ = context;
        Err(crate::StoreError::Unsupported("token counts"))
    }

    /// The records of `context`'s turns saved as `running` (a turn's record is saved when it
    /// starts and again when it ends): after a restart, the turns a crash cut short. At most a
    /// few: a context runs one turn at a time.
    async fn running_turns(&self, context: ContextId) -> Result<Vec<TurnView>> {
        let _ = context;
        Err(crate::StoreError::Unsupported("turns"))
    }

    /// The record of `context`'s turn `turn`, if one was saved.
    async fn get_turn(&self, context: ContextId, turn: ContextTurnId) -> Result<Option<TurnView>> {
        let _ = (context, turn);
        Err(crate::StoreError::Unsupported("turns"))
    }

    /// The text messages of every context holding all of `terms` (each as the start of a
    /// word), best match first, newest first among equals; at most `limit` (capped at
    /// [`MAX_SEARCH_HITS`](crate::MAX_SEARCH_HITS)). A store that keeps no index (a test's
    /// wrapper) refuses with [`StoreError::Unsupported`](crate::StoreError::Unsupported).
    async fn search_messages(&self, terms: &SearchTerms, limit: u32) -> Result<Vec<SearchHit>> {
        let _ = (terms, limit);
        Err(crate::StoreError::Unsupported("message search"))
    }

    /// Commits pending events and closes the connections.
    async fn close(&self) -> Result<()>;
}
