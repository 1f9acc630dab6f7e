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
#![deny(unsafe_code)]

mod changes;
mod error;
mod events;
mod lock;
mod migrations;
mod postgres;
mod record;
mod row;
mod sql;
mod sqlite;
mod store;

pub use changes::{BranchIds, BranchSettings, ContextChanges};
pub use error::{Backend, Result, StoreError};
pub use lock::ContextLock;
pub use postgres::{EVENTS_CHANNEL, EventListener, EventNotice, PostgresOptions, PostgresStore};
pub use record::{BranchRecord, ContextRecord, MessageRange};
pub use sqlite::{Durability, SqliteOptions, SqliteStore};
pub use store::Store;
