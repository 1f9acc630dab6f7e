//! The embedded default: one SQLite file in WAL mode.

use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::error::{Backend, DbResultExt as _, Result, StoreError};
use braid_protocol::ContextId;
use tokio::sync::broadcast;

use crate::changes::ContextChanges;
use crate::events::{
    ChangeRounds, EVENT_NOTICE_CAPACITY, EventNotice, EventSink, EventWriter, PendingEvent,
    RoundSink, WriteRetry,
};
use crate::group_commit::{ChangeWriter, Tickets};
use crate::lock::{Leases, ReplicaIdentity};
use crate::sql::{CurrentLease, fenced_contexts, sql_store};
use crate::writer_thread::WriterHome;

/// How much a commit must survive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Every commit survives the process being killed at any instant (WAL with
    /// `synchronous=NORMAL`); a power loss may drop the last commits but never corrupts.
    #[default]
    ProcessCrash,
    /// Every commit is on disk before it returns (`synchronous=FULL`): survives a power loss
    /// too, at the cost of an fsync per commit.
    PowerLoss,
}

/// Settings of a SQLite store.
#[derive(Clone, Debug)]
pub struct SqliteOptions {
    /// What a commit survives.
    pub durability: Durability,
    /// How long a connection waits for a lock held by another process before failing.
    pub busy_timeout: Duration,
    /// Connections for reading (writes go through one connection, as SQLite has one writer).
    pub readers: u32,
    /// How long a busy event writer gathers events before committing them (a few events are
    /// committed at once).
    pub event_batch_interval: Duration,
    /// Who this store is in the lease table.
    pub replica: ReplicaIdentity,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self {
            durability: Durability::default(),
            busy_timeout: Duration::from_secs(5),
            readers: 4,
            event_batch_interval: Duration::from_millis(5),
            replica: ReplicaIdentity::default(),
        }
    }
}

/// The database's clock in milliseconds since the epoch, as SQL: the one text every query that
/// compares with a lease's expiry uses.
macro_rules! now_ms {
    () => {
        "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
    };
}

/// How often the WAL is copied back into the database file. The writer never does it itself
/// (`wal_autocheckpoint=0`): a checkpoint on the commit path made every commit behind it wait
/// for an fsync, and with a thousand streams one commit in a few dozen took 80 ms instead of 1.
/// A passive checkpoint on a connection of its own runs beside the writer without blocking it.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// How many contexts' leases one query reads (well under SQLite's 32,766 parameters).
const LEASE_LOOKUP_CHUNK: usize = 500;

/// How many events one insert statement writes (four parameters each, well under SQLite's
/// 32,766).
const EVENT_INSERT_CHUNK: usize = 500;

/// How many rows a reading connection's thread may hand over before the task reading them takes
/// some. SQLx's default is 50: a list of a thousand contexts then stopped twenty times for the
/// reading task, which waits behind every ready task of a busy server each time. While a
/// thousand streams ran, one such query took 192 ms; most took 2 to 20 ms. With room for a page
/// of events or a thousand ids, most reads hand over all their rows at once.
const READ_ROW_BUFFER: usize = 1024;

/// How much of the database file each reader maps into memory, in bytes (SQLite's
/// `mmap_size`): pages are then read in place instead of copied from the kernel, which was a
/// tenth of loading a 10,000-message branch (issue 49). The mapping shares the kernel's page
/// cache, so it costs address space, not memory.
const READ_MMAP_BYTES: &str = "1073741824";

/// A [`Store`](crate::Store) in one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    write: SqlitePool,
    read: SqlitePool,
    events: EventWriter,
    /// Change sets are queued for the event writer's task, which commits each round's change
    /// sets and events in one transaction (SQLite has one writer).
    changes: ChangeWriter,
    leases: Arc<Leases>,
    heartbeat: tokio::task::JoinHandle<()>,
    notices: broadcast::Sender<EventNotice>,
    /// The regular checkpoints, stopped by `close` (or when the store is dropped).
    checkpoints: Checkpoints,
}

/// The checkpointing task's controls: dropping the sender ends it after a last, complete
/// checkpoint, and the receiver hears when that is over.
struct Checkpoints(
    tokio::sync::Mutex<
        Option<(
            tokio::sync::watch::Sender<()>,
            tokio::sync::oneshot::Receiver<()>,
        )>,
    >,
);

impl Checkpoints {
    /// Stops the checkpoints and waits for the last one (a second caller waits with the
    /// first). A store's `close` returns once it is over: a process opening the file next (a
    /// restart) found that checkpoint holding the database and its first save failed with
    /// "database is locked".
    async fn stop(&self) {
        let mut running = self.0.lock().await;
        if let Some((stop, done)) = running.take() {
            drop(stop);
            // An error means the task is gone (its runtime stopped): nothing to wait for.
            let _ = done.await;
        }
    }
}

impl SqliteStore {
    /// Opens (creating it, and its directory, when missing) the database at `path` with default
    /// options, and brings its schema up to date.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, SqliteOptions::default()).await
    }

    /// Opens the database at `path` with `options`.
    pub async fn open_with(path: impl AsRef<Path>, options: SqliteOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let synchronous = match options.durability {
            Durability::ProcessCrash => SqliteSynchronous::Normal,
            Durability::PowerLoss => SqliteSynchronous::Full,
        };
        let connect = SqliteConnectOptions::from_str("sqlite:")
            .during(Backend::Sqlite, "reading connection options")?
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(synchronous)
            .busy_timeout(options.busy_timeout)
            .foreign_keys(true);
        // No ping before each use: a connection to a file in this process does not hang up,
        // and each ping was one more round trip to the connection's thread per transaction
        // (with a hundred streams, event batches spent 12% less time with it off).
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(connect.clone().pragma("wal_autocheckpoint", "0"))
            .await
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
        crate::migrations::sqlite()
            .run(&write)
            .await
            .map_err(|source| StoreError::Migrate {
                backend: Backend::Sqlite,
                source,
            })?;
        let read = SqlitePoolOptions::new()
            .max_connections(options.readers.max(1))
            // As for the writer.
            .test_before_acquire(false)
            .connect_with(
                connect
                    .clone()
                    .create_if_missing(false)
                    .read_only(true)
                    .row_buffer_size(READ_ROW_BUFFER)
                    .pragma("mmap_size", READ_MMAP_BYTES),
            )
            .await
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
        // One process owns a SQLite file: leases left by an earlier process are over.
        sqlx::query("UPDATE leases SET released = TRUE WHERE NOT released")
            .execute(&write)
            .await
            .during(Backend::Sqlite, "releasing an earlier process's leases")?;
        let leases = Leases::new(options.replica);
        let (notices, _) = broadcast::channel(EVENT_NOTICE_CAPACITY);
        let tickets = Arc::new(Tickets::default());
        let (changes, queue) = ChangeWriter::new(Arc::clone(&tickets));
        let sink = Arc::new(SqliteWriter {
            write: write.clone(),
            leases: leases.clone(),
        });
        let events = EventWriter::start_with(
            sink.clone(),
            options.event_batch_interval,
            WriteRetry::default(),
            Some(notices.clone()),
            WriterHome::OwnThread("braid-sqlite-writer"),
            Some(ChangeRounds {
                queue,
                tickets,
                sink,
            }),
        );
        let checkpoints = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(connect.clone().create_if_missing(false))
            .await
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
        let (checkpointing, stop) = tokio::sync::watch::channel(());
        let (finished, done) = tokio::sync::oneshot::channel();
        crate::writer_thread::spawn_writer(
            WriterHome::OwnThread("braid-sqlite-checkpoint"),
            async move {
                checkpoint_regularly(checkpoints, stop).await;
                let _ = finished.send(());
            },
        );
        // One process owns the file, so its leases never lapse while it runs (a heartbeat
        // that waited behind a busy writer must not stop a context); the task only exists so
        // both stores close alike.
        let heartbeat = tokio::spawn(async {});
        tracing::debug!(path = %path.display(), "SQLite store open");
        Ok(Self {
            path,
            write,
            read,
            events,
            changes,
            leases,
            heartbeat,
            notices,
            checkpoints: Checkpoints(tokio::sync::Mutex::new(Some((checkpointing, done)))),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn writer(&self) -> &SqlitePool {
        &self.write
    }

    /// Stops the checkpoints once the pools are closed, after a last, complete one.
    async fn stop_background_work(&self) {
        self.checkpoints.stop().await;
    }

    fn reader(&self) -> &SqlitePool {
        &self.read
    }

    async fn write_changes(&self, context: ContextId, changes: &ContextChanges) -> Result<()> {
        self.changes.save(context, changes.clone()).await
    }

    /// The leases of `contexts`, read in one query per [`LEASE_LOOKUP_CHUNK`] contexts, by
    /// context.
    async fn current_leases(
        conn: &mut sqlx::SqliteConnection,
        leases: &Leases,
        contexts: &[ContextId],
    ) -> Result<std::collections::HashMap<ContextId, CurrentLease>> {
        let mut found = std::collections::HashMap::with_capacity(contexts.len());
        for chunk in contexts.chunks(LEASE_LOOKUP_CHUNK) {
            let mut query = sqlx::QueryBuilder::<sqlx::Sqlite>::new(concat!(
                "SELECT context_id, token, owner, released, expires_ms - ",
                now_ms!(),
                " FROM leases WHERE context_id IN (",
            ));
            let mut ids = query.separated(", ");
            for context in chunk {
                ids.push_bind(context.0);
            }
            query.push(")");
            let rows: Vec<(uuid::Uuid, i64, String, bool, i64)> = query
                .build_query_as()
                .fetch_all(&mut *conn)
                .await
                .during(Backend::Sqlite, "checking the contexts' leases")?;
            for row in rows {
                let lease = CurrentLease::new(leases, row);
                found.insert(lease.context, lease);
            }
        }
        Ok(found)
    }

    /// Saves the change sets in the open transaction, each checked against its context's
    /// lease in `current`: sets that can be written together with one statement per table, the
    /// others (and a lone set) each on its own, in order.
    async fn write_change_sets(
        tx: &mut sqlx::SqliteConnection,
        leases: &Leases,
        current: &std::collections::HashMap<ContextId, CurrentLease>,
        group: &[(ContextId, &ContextChanges)],
    ) -> Result<()> {
        for (context, _) in group {
            crate::sql::fence_verdict(leases, *context, current.get(context))?;
        }
        if let [(context, changes)] = group {
            return Self::apply_changes(tx, *context, changes).await;
        }
        let mut sets_of: std::collections::HashMap<ContextId, usize> =
            std::collections::HashMap::new();
        for (context, _) in group {
            *sets_of.entry(*context).or_default() += 1;
        }
        // A context with two sets in the group keeps their order: both are applied alone.
        let (together, alone): (Vec<_>, Vec<_>) =
            group.iter().copied().partition(|(context, changes)| {
                sets_of.get(context) == Some(&1)
                    && crate::sqlite_group::batchable(changes)
                    && distinct_updates(changes)
            });
        crate::sqlite_group::write(tx, &together).await?;
        for (context, changes) in alone {
            Self::apply_changes(tx, context, changes).await?;
        }
        Ok(())
    }
}

/// Whether a set changes each message at most once (a multi-row update does not say which row
/// wins).
fn distinct_updates(changes: &ContextChanges) -> bool {
    let mut ids: Vec<_> = changes.updated_messages.iter().map(|m| m.id).collect();
    ids.sort_unstable();
    ids.windows(2).all(|w| w[0] != w[1])
}

/// Copies the WAL back into the database file every [`CHECKPOINT_EVERY`] until `stop`'s sender
/// is gone, then once more, completely, so a closed store leaves a short WAL.
async fn checkpoint_regularly(pool: SqlitePool, mut stop: tokio::sync::watch::Receiver<()>) {
    let mut every = tokio::time::interval(CHECKPOINT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            changed = stop.changed() => if changed.is_err() { break },
        }
        if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            tracing::warn!(%error, "WAL checkpoint failed; the next one copies what this one did not");
        }
    }
    if let Err(error) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&pool)
        .await
    {
        tracing::debug!(%error, "last WAL checkpoint not done; SQLite finishes it on the next open");
    }
    pool.close().await;
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}

impl SqliteStore {
    /// [`Store::search_messages`](crate::Store::search_messages) on FTS5: `$1` is the MATCH
    /// expression, `$2` the limit; ranked by bm25, then newest first. The best rows are chosen
    /// first and only they are joined and given a snippet: a word in all of 10,000 messages
    /// took 62 ms when every match was. The branch is one showing the message, the active one
    /// first. Its `LIMIT` stays a bare parameter, unlike the reads of `sql.rs`: FTS5 may use a
    /// limit it can read, and a search is prepared again at most once per search.
    const SEARCH_SQL: &'static str = "WITH best AS (SELECT rowid, rank FROM message_search \
           WHERE message_search MATCH $1 ORDER BY rank, rowid DESC LIMIT $2) \
         SELECT t.context_id, c.title, t.message_id, m.role, m.created_at, \
         snippet(message_search, 0, '', '', '…', 16), \
         CASE WHEN EXISTS (SELECT 1 FROM branch_messages b WHERE b.context_id = t.context_id \
              AND b.branch = c.active_branch AND b.message_id = t.message_id) \
         THEN c.active_branch ELSE (SELECT MIN(b.branch) FROM branch_messages b \
              WHERE b.context_id = t.context_id AND b.message_id = t.message_id) END \
         FROM best \
         JOIN message_search s ON s.rowid = best.rowid \
         JOIN message_texts t ON t.rowid = best.rowid \
         JOIN messages m ON m.context_id = t.context_id AND m.id = t.message_id \
         JOIN contexts c ON c.id = t.context_id \
         WHERE message_search MATCH $1 \
         ORDER BY best.rank, best.rowid DESC";

    /// The MATCH expression of a search.
    fn search_query(terms: &crate::search::SearchTerms) -> String {
        terms.fts5()
    }
}

sql_store!(
    SqliteStore,
    sqlx::Sqlite,
    crate::error::Backend::Sqlite,
    now_ms!(),
    "",
    "",
    true
);

/// The writer task's side of the SQLite store: the one writing connection and the leases it
/// writes under.
struct SqliteWriter {
    write: SqlitePool,
    leases: Arc<Leases>,
}

#[async_trait::async_trait]
impl RoundSink for SqliteWriter {
    async fn write_round(
        &self,
        changes: &[(ContextId, &ContextChanges)],
        events: &[PendingEvent],
    ) -> Result<Vec<ContextId>> {
        const OP: &str = "saving changes and events";
        // Statements are prepared once and run in-process: a loop in one transaction is cheap.
        let mut tx = crate::sql::begin(&self.write)
            .await
            .during(Backend::Sqlite, OP)?;
        // One lease query per few hundred contexts and one insert per few hundred events: each
        // statement is a round trip to the database's thread, and a thousand streams put
        // thousands of events from as many contexts in a round.
        let mut contexts: Vec<ContextId> = changes
            .iter()
            .map(|(c, _)| *c)
            .chain(events.iter().map(|e| e.context))
            .collect();
        contexts.sort_unstable();
        contexts.dedup();
        let current = SqliteStore::current_leases(&mut tx, &self.leases, &contexts).await?;
        if !changes.is_empty() {
            SqliteStore::write_change_sets(&mut tx, &self.leases, &current, changes).await?;
        }
        let current: Vec<CurrentLease> = current.into_values().collect();
        let fenced = fenced_contexts(events, &current, &self.leases);
        let writable: Vec<&PendingEvent> = events
            .iter()
            .filter(|e| !fenced.contains(&e.context))
            .collect();
        for chunk in writable.chunks(EVENT_INSERT_CHUNK) {
            // `OR FAIL`: a clash stops the statement where it is instead of undoing it, so
            // SQLite keeps no statement journal (a copy of every page the insert touches, some
            // 6% of the CPU while a hundred streams ran). Any error rolls the whole round back.
            let mut insert = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
                "INSERT OR FAIL INTO events (context_id, seq, event, created_at) ",
            );
            insert.push_values(chunk, |mut row, event| {
                row.push_bind(event.context.0)
                    .push_bind(i64::try_from(event.sequence).unwrap_or(i64::MAX))
                    .push_bind(event.json.as_str())
                    .push_bind(event.at);
            });
            insert
                .build()
                .execute(&mut *tx)
                .await
                .during(Backend::Sqlite, OP)?;
        }
        tx.commit().await.during(Backend::Sqlite, OP)?;
        Ok(fenced)
    }
}

#[async_trait::async_trait]
impl EventSink for SqliteWriter {
    async fn write(&self, batch: &[PendingEvent]) -> Result<Vec<ContextId>> {
        self.write_round(&[], batch).await
    }

    async fn max_sequence(&self, context: ContextId) -> Result<u64> {
        let max: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM events WHERE context_id = $1")
                .bind(context.0)
                .fetch_one(&self.write)
                .await
                .during(Backend::Sqlite, "reading the last event sequence")?;
        Ok(u64::try_from(max).unwrap_or(0))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_path_inside_a_file_is_refused_naming_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-directory");
        std::fs::write(&file, b"x").unwrap();
        let err = SqliteStore::open(file.join("braid.db"))
            .await
            .err()
            .unwrap();
        assert!(matches!(err, StoreError::CreateDir { .. }), "{err}");
        assert!(err.to_string().contains("not-a-directory"), "{err}");
    }

    #[tokio::test]
    async fn events_stored_before_the_log_went_into_commit_order_are_kept_and_still_unique() {
        use braid_protocol::{ContentDelta, ContextEvent, MessageId};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("braid.db");
        // A database as the schema before the fourth migration left it, with a context and
        // three events.
        let old = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(
                SqliteConnectOptions::from_str("sqlite:")
                    .unwrap()
                    .filename(&path)
                    .create_if_missing(true),
            )
            .await
            .unwrap();
        let before: Vec<_> = crate::migrations::sqlite()
            .iter()
            .take(3)
            .cloned()
            .collect();
        sqlx::migrate::Migrator::with_migrations(before)
            .run(&old)
            .await
            .unwrap();
        let context = ContextId::new();
        sqlx::query(
            "INSERT INTO contexts (id, title, config, active_branch, state, created_at, updated_at) \
             VALUES ($1, 't', '{}', 'main', '{\"state\":\"idle\"}', '2026-01-01', '2026-01-01')",
        )
        .bind(context.0)
        .execute(&old)
        .await
        .unwrap();
        let event = |text: &str| {
            ContextEvent::ContentDelta(ContentDelta {
                context_id: context,
                message_id: MessageId::new(),
                sequence: 1,
                delta: text.to_owned(),
                is_final: false,
                turn_id: None,
                branch: None,
            })
        };
        for (seq, text) in [(2, "b"), (1, "a"), (3, "c")] {
            sqlx::query(
                "INSERT INTO events (context_id, seq, event, created_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(context.0)
            .bind(seq)
            .bind(serde_json::to_string(&event(text)).unwrap())
            .bind(chrono::Utc::now())
            .execute(&old)
            .await
            .unwrap();
        }
        old.close().await;

        let store = SqliteStore::open(&path).await.unwrap();
        // A table without rowids has no `rowid` column.
        let rows: i64 = sqlx::query_scalar("SELECT COUNT(rowid) FROM events")
            .fetch_one(store.reader())
            .await
            .unwrap();
        assert_eq!(rows, 3, "the log is in commit order");
        let kept = crate::Store::events_after(&store, context, 0, 10)
            .await
            .unwrap();
        let texts: Vec<(u64, String)> = kept
            .iter()
            .map(|e| match &e.event {
                ContextEvent::ContentDelta(d) => (e.sequence, d.delta.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            vec![(1, "a".into()), (2, "b".into()), (3, "c".into())]
        );
        let twice = sqlx::query(
            "INSERT INTO events (context_id, seq, event, created_at) VALUES ($1, 2, '{}', '')",
        )
        .bind(context.0)
        .execute(store.writer())
        .await;
        assert!(twice.is_err(), "a second event 2 was stored");
        assert_eq!(
            crate::Store::last_event_sequence(&store, context)
                .await
                .unwrap(),
            3
        );
    }

    #[tokio::test]
    async fn a_closed_store_has_copied_its_log_into_the_file_before_close_returns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("braid.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let record = crate::ContextRecord::new("closing", Default::default());
        crate::Store::create_context(&store, &record).await.unwrap();
        crate::Store::close(&store).await.unwrap();
        // The store is still alive: only `close` can have ended the checkpoints.
        let wal = std::fs::metadata(dir.path().join("braid.db-wal")).map_or(0, |m| m.len());
        assert_eq!(wal, 0, "the log still holds {wal} bytes after close");
        drop(store);
        let reopened = SqliteStore::open(&path).await.unwrap();
        let found = crate::Store::get_context(&reopened, record.id)
            .await
            .unwrap();
        assert_eq!(found.map(|r| r.id), Some(record.id));
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_database_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.db");
        std::fs::write(&file, vec![b'x'; 4096]).unwrap();
        let err = SqliteStore::open(&file).await.err().unwrap();
        assert!(err.to_string().contains("notes.db"), "{err}");
    }
}
