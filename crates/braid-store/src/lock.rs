//! Context ownership: one owner per context at a time, so a context's actor runs in one place.
//!
//! SQLite serves one process, so ownership is kept in memory. With PostgreSQL, replicas share
//! the store: ownership is a session-level advisory lock held on one dedicated connection per
//! store, released when the [`ContextLock`] is dropped or when that connection ends (a replica
//! that dies frees its contexts).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use braid_protocol::ContextId;
use sqlx::Connection as _;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::error::{Backend, DbResultExt as _, Result};

/// Proof that this store instance owns a context. Ownership ends when it is dropped.
pub struct ContextLock {
    context: ContextId,
    release: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl ContextLock {
    /// The owned context.
    pub fn context(&self) -> ContextId {
        self.context
    }
}

impl std::fmt::Debug for ContextLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextLock")
            .field("context", &self.context)
            .finish()
    }
}

impl Drop for ContextLock {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            release();
        }
    }
}

type Held = Arc<Mutex<HashSet<ContextId>>>;

/// Marks `context` held in `held`; false when it already was.
fn claim(held: &Held, context: ContextId) -> bool {
    // A poisoned set still holds valid ids: a panic elsewhere cannot leave it half-updated.
    held.lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(context)
}

fn unclaim(held: &Held, context: ContextId) {
    held.lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&context);
}

/// Ownership within one process (SQLite).
#[derive(Default)]
pub(crate) struct LocalLocks {
    held: Held,
}

impl LocalLocks {
    pub fn try_lock(&self, context: ContextId) -> Option<ContextLock> {
        if !claim(&self.held, context) {
            return None;
        }
        let held = Arc::clone(&self.held);
        Some(ContextLock {
            context,
            release: Some(Box::new(move || unclaim(&held, context))),
        })
    }
}

/// Ownership across replicas (PostgreSQL advisory locks).
pub(crate) struct AdvisoryLocks {
    options: PgConnectOptions,
    connection: Arc<tokio::sync::Mutex<Option<PgConnection>>>,
    /// Advisory locks are re-entrant within a session, so this store's own claims are checked
    /// here first.
    held: Held,
}

/// The lock key of a context: its UUID folded to 64 bits.
fn key(context: ContextId) -> i64 {
    let (high, low) = context.0.as_u64_pair();
    i64::from_ne_bytes((high ^ low).to_ne_bytes())
}

impl AdvisoryLocks {
    pub fn new(options: PgConnectOptions) -> Self {
        Self {
            options,
            connection: Arc::new(tokio::sync::Mutex::new(None)),
            held: Held::default(),
        }
    }

    pub async fn try_lock(&self, context: ContextId) -> Result<Option<ContextLock>> {
        const OP: &str = "taking a context's advisory lock";
        if !claim(&self.held, context) {
            return Ok(None);
        }
        let mut slot = self.connection.lock().await;
        let outcome = async {
            if slot.is_none() {
                *slot = Some(
                    PgConnection::connect_with(&self.options)
                        .await
                        .during(Backend::Postgres, OP)?,
                );
            }
            let Some(conn) = slot.as_mut() else {
                return Ok(false);
            };
            sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1)")
                .bind(key(context))
                .fetch_one(conn)
                .await
                .during(Backend::Postgres, OP)
        }
        .await;
        match outcome {
            Ok(true) => {}
            Ok(false) => {
                unclaim(&self.held, context);
                return Ok(None);
            }
            Err(error) => {
                // The session may be gone, and every lock with it: start over on a new one.
                *slot = None;
                self.held.lock().unwrap_or_else(|p| p.into_inner()).clear();
                return Err(error);
            }
        }
        drop(slot);
        let connection = Arc::clone(&self.connection);
        let held = Arc::clone(&self.held);
        let release = move || {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                tracing::warn!(context = %context, "context lock dropped outside a runtime; it is released when the store closes");
                return;
            };
            runtime.spawn(async move {
                let mut slot = connection.lock().await;
                if let Some(conn) = slot.as_mut() {
                    let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
                        .bind(key(context))
                        .execute(conn)
                        .await;
                    if let Err(error) = unlocked {
                        tracing::warn!(context = %context, error = %error, "releasing a context lock failed; closing its session");
                        *slot = None;
                    }
                }
                unclaim(&held, context);
            });
        };
        Ok(Some(ContextLock {
            context,
            release: Some(Box::new(release)),
        }))
    }

    /// Ends the lock session, releasing every lock this store holds.
    pub async fn close(&self) {
        if let Some(conn) = self.connection.lock().await.take() {
            let _ = conn.close().await;
        }
        self.held.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
