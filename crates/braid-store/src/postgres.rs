//! PostgreSQL, for several replicas sharing one store.

use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::error::{Backend, DbResultExt as _, Result, StoreError};
use crate::events::EventWriter;
use crate::lock::{AdvisoryLocks, ContextLock};
use crate::sql::{SqlEvents, sql_store};

/// Settings of a PostgreSQL store.
#[derive(Clone, Debug)]
pub struct PostgresOptions {
    /// The most connections the pool opens.
    pub max_connections: u32,
    /// How long to wait for a free connection.
    pub acquire_timeout: Duration,
    /// How long the event writer gathers events before committing them.
    pub event_batch_interval: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            max_connections: 10,
            acquire_timeout: Duration::from_secs(10),
            event_batch_interval: Duration::from_millis(5),
        }
    }
}

/// A [`Store`](crate::Store) on a PostgreSQL server.
pub struct PostgresStore {
    pool: PgPool,
    events: EventWriter,
    locks: AdvisoryLocks,
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user@host:port/database`) with default options and brings
    /// the schema up to date.
    pub async fn connect(url: &str) -> Result<Self> {
        let options = PgConnectOptions::from_str(url)
            .during(Backend::Postgres, "reading the connection URL")?;
        Self::connect_with(options, PostgresOptions::default()).await
    }

    /// Connects with explicit connection and pool options.
    pub async fn connect_with(connect: PgConnectOptions, options: PostgresOptions) -> Result<Self> {
        let locks = AdvisoryLocks::new(connect.clone());
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections.max(2))
            .acquire_timeout(options.acquire_timeout)
            .connect_with(connect)
            .await
            .during(Backend::Postgres, "connecting")?;
        crate::migrations::postgres()
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                backend: Backend::Postgres,
                source,
            })?;
        let events = EventWriter::start(
            Arc::new(SqlEvents(pool.clone())),
            options.event_batch_interval,
        );
        Ok(Self {
            pool,
            events,
            locks,
        })
    }

    fn writer(&self) -> &PgPool {
        &self.pool
    }

    fn reader(&self) -> &PgPool {
        &self.pool
    }

    async fn try_lock(&self, context: braid_protocol::ContextId) -> Result<Option<ContextLock>> {
        self.locks.try_lock(context).await
    }

    async fn release_locks(&self) {
        self.locks.close().await;
    }
}

sql_store!(
    PostgresStore,
    sqlx::Postgres,
    crate::error::Backend::Postgres
);
