//! `braid-store`: Braid's persistence (DESIGN.md, "Storage").
//!
//! The [`Store`] trait is what the engine asks of persistence: contexts (config, title, active
//! branch, state), branches (ordered message ids, system prompt override, pipeline config,
//! parent and fork point), messages (one row each, with role, kind and status columns and the
//! message's JSON), and an append-only per-context event log for SSE replay and audit.
//!
//! Two implementations share one SQL text and one conformance suite (`tests/conformance.rs`):
//! [`SqliteStore`], the embedded default (one file, WAL), and [`PostgresStore`] for several
//! replicas. Saving applies a [`ContextChanges`] in one transaction and writes only what
//! changed. Messages are checked against the storage rules of seed 004 before anything is
//! written, and a stored message that no longer reads comes back as an `unknown` message
//! instead of an error.
//!
//! ```
//! use std::sync::Arc;
//!
//! use braid_protocol::{
//!     BranchName, ContextConfig, Message, MessageKind, MessageStatus, TextMessage,
//! };
//! use braid_store::{ContextChanges, ContextRecord, MessageRange, SqliteStore, Store};
//!
//! # async fn demo(dir: &std::path::Path) -> Result<(), braid_store::StoreError> {
//! let store: Arc<dyn Store> = Arc::new(SqliteStore::open(dir.join("braid.db")).await?);
//! let context = ContextRecord::new("Refactor the parser", ContextConfig::default());
//! store.create_context(&context).await?;
//!
//! // A user message and the start of a streamed answer, saved together.
//! let main = BranchName::main();
//! let mut answer = Message::assistant_text("").with_status(MessageStatus::Streaming);
//! let changes = ContextChanges::new()
//!     .add_message(&main, Message::user_text("Where is the tokenizer?"))
//!     .add_message(&main, answer.clone());
//! store.save_changes(context.id, &changes).await?;
//!
//! // The stream ends: commit the final content (and the events before it) first, then tell
//! // clients with `content_final`.
//! answer.kind = MessageKind::Text(TextMessage::plain("In src/lexer.rs."));
//! answer.status = MessageStatus::Complete;
//! store.save_changes(context.id, &ContextChanges::new().update_message(answer)).await?;
//! store.flush_events().await?;
//!
//! let newest = store.load_messages(context.id, &main, MessageRange::Newest(10)).await?;
//! assert_eq!(newest.len(), 2);
//! # Ok(())
//! # }
//! # let dir = tempfile::tempdir().unwrap();
//! # tokio::runtime::Runtime::new().unwrap().block_on(demo(dir.path())).unwrap();
//! ```
#![deny(unsafe_code)]

mod changes;
mod error;
mod events;
mod frames;
mod group_commit;
mod idempotency;
mod lock;
mod migrations;
mod postgres;
mod record;
mod row;
mod search;
mod sql;
mod sqlite;
mod sqlite_group;
mod store;
mod token_counts;
mod writer_thread;

pub use changes::{BranchIds, BranchSettings, ContextChanges};
pub use error::{Backend, Result, StoreError};
pub use events::{
    CommittedEvent, EVENT_NOTICE_CAPACITY, EVENT_QUEUE_CAPACITY, EventNotice, EventPublisher,
    LostEvents, WriteRetry,
};
pub use group_commit::{CHANGE_QUEUE_CAPACITY, PendingSave};
pub use idempotency::{IdempotencyClaim, IdempotencyWindow, IdempotentRequest, StoredAnswer};
pub use lock::{ContextLock, LEASE_TTL, Lease, ReplicaIdentity};
pub use postgres::{EVENTS_CHANNEL, EventListener, PostgresOptions, PostgresStore};
pub use record::{
    BranchRecord, ContextRecord, MessageRange, StoredModelRequest, StoredTokenCount,
    StoredTokenCounts,
};
pub use search::{
    MAX_SEARCH_HITS, MAX_SEARCH_WORD_CHARS, MAX_SEARCH_WORDS, SearchHit, SearchTerms,
    SearchTermsError,
};
pub use sqlite::{Durability, SqliteOptions, SqliteStore};
pub use store::Store;
