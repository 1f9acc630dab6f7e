//! Opens each backend for a test: a fresh SQLite file in a temporary directory, or a freshly
//! created database on the PostgreSQL server named by `BRAID_TEST_POSTGRES_URL`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::PathBuf;
use std::str::FromStr as _;
use std::sync::Arc;

use braid_protocol::{ContextId, MessageId};
use braid_store::{PostgresStore, SqliteStore, Store};
use sqlx::Connection as _;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

/// Where a test's database lives, so it can be reopened and poked at directly.
pub enum Place {
    /// A SQLite file (and the directory that holds it).
    Sqlite {
        path: PathBuf,
        _dir: tempfile::TempDir,
    },
    /// A database of its own on the test server.
    Postgres { options: Box<PgConnectOptions> },
}

/// One test's store.
pub struct Fixture {
    pub place: Place,
    pub store: Arc<dyn Store>,
}

impl Fixture {
    /// A new store over the same database, as after a restart.
    pub async fn reopen(&self) -> Arc<dyn Store> {
        match &self.place {
            Place::Sqlite { path, .. } => Arc::new(SqliteStore::open(path).await.unwrap()),
            Place::Postgres { options } => Arc::new(
                PostgresStore::connect_with((**options).clone(), Default::default())
                    .await
                    .unwrap(),
            ),
        }
    }

    /// Makes every lease lapse behind its owner's back, as when the owner stopped renewing
    /// (dead, or cut off from the database): its next renewal finds the lease gone.
    pub async fn lapse_leases(&self) {
        let sql = "UPDATE leases SET expires_ms = 0, owner = 'lapsed' WHERE NOT released";
        match &self.place {
            Place::Sqlite { path, .. } => {
                let mut conn =
                    SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(path))
                        .await
                        .unwrap();
                sqlx::query(sql).execute(&mut conn).await.unwrap();
            }
            Place::Postgres { options } => {
                let mut conn = PgConnection::connect_with(&**options).await.unwrap();
                sqlx::query(sql).execute(&mut conn).await.unwrap();
            }
        }
    }

    /// Overwrites a message's stored payload behind the store's back.
    /// Runs one SQL statement on the store's database from a connection of its own, as an
    /// operator or a fault would.
    pub async fn execute(&self, statement: &str) {
        let sql = sqlx::AssertSqlSafe(statement.to_owned());
        match &self.place {
            Place::Sqlite { path, .. } => {
                let mut conn =
                    SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(path))
                        .await
                        .unwrap();
                sqlx::raw_sql(sql).execute(&mut conn).await.unwrap();
            }
            Place::Postgres { options } => {
                let mut conn = PgConnection::connect_with(&**options).await.unwrap();
                sqlx::raw_sql(sql).execute(&mut conn).await.unwrap();
            }
        }
    }

    /// A fault between a change set and its events: from now on every insert into the event
    /// log fails (a trigger), until [`Fixture::accept_events`].
    pub async fn refuse_events(&self) {
        match &self.place {
            Place::Sqlite { .. } => {
                self.execute(
                    "CREATE TRIGGER refuse_events BEFORE INSERT ON events \
                     BEGIN SELECT RAISE(ABORT, 'injected: the event log refuses writes'); END",
                )
                .await
            }
            Place::Postgres { .. } => {
                self.execute(
                    "CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS \
                     $$ BEGIN RAISE EXCEPTION 'injected: the event log refuses writes'; END $$",
                )
                .await;
                self.execute(
                    "CREATE TRIGGER refuse_events BEFORE INSERT ON events \
                     FOR EACH STATEMENT EXECUTE FUNCTION refuse_events()",
                )
                .await
            }
        }
    }

    /// Ends [`Fixture::refuse_events`].
    pub async fn accept_events(&self) {
        match &self.place {
            Place::Sqlite { .. } => self.execute("DROP TRIGGER refuse_events").await,
            Place::Postgres { .. } => {
                self.execute("DROP TRIGGER refuse_events ON events").await;
                self.execute("DROP FUNCTION refuse_events()").await
            }
        }
    }

    pub async fn corrupt_payload(&self, context: ContextId, message: MessageId, payload: &str) {
        let sql = "UPDATE messages SET payload = $1 WHERE context_id = $2 AND id = $3";
        let changed = match &self.place {
            Place::Sqlite { path, .. } => {
                let mut conn =
                    SqliteConnection::connect_with(&SqliteConnectOptions::new().filename(path))
                        .await
                        .unwrap();
                sqlx::query(sql)
                    .bind(payload)
                    .bind(context.0)
                    .bind(message.0)
                    .execute(&mut conn)
                    .await
                    .unwrap()
                    .rows_affected()
            }
            Place::Postgres { options } => {
                let mut conn = PgConnection::connect_with(&**options).await.unwrap();
                sqlx::query(sql)
                    .bind(payload)
                    .bind(context.0)
                    .bind(message.0)
                    .execute(&mut conn)
                    .await
                    .unwrap()
                    .rows_affected()
            }
        };
        assert_eq!(changed, 1, "the message to corrupt must exist");
    }
}

/// A store on a new SQLite file, in a directory that does not exist yet.
pub async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data").join("braid.db");
    let store = SqliteStore::open(&path).await.unwrap();
    assert!(path.exists(), "the database file is created on first use");
    Fixture {
        place: Place::Sqlite { path, _dir: dir },
        store: Arc::new(store),
    }
}

/// The test server's URL, or `None` (after saying so) when PostgreSQL tests are skipped.
/// With `BRAID_REQUIRE_POSTGRES=1` a missing server fails the test instead.
pub fn postgres_url(test: &str) -> Option<String> {
    match std::env::var("BRAID_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var("BRAID_REQUIRE_POSTGRES").as_deref() == Ok("1") {
                panic!(
                    "BRAID_REQUIRE_POSTGRES=1 but BRAID_TEST_POSTGRES_URL is not set; run through scripts/with-postgres.sh"
                );
            }
            eprintln!("skipped {test} on PostgreSQL: BRAID_TEST_POSTGRES_URL is not set");
            None
        }
    }
}

/// Connection options for a new, empty database on the test server.
pub async fn fresh_postgres_database(url: &str) -> PgConnectOptions {
    let admin = PgConnectOptions::from_str(url).unwrap();
    let mut conn = PgConnection::connect_with(&admin).await.unwrap();
    let name = format!("braid_test_{}", uuid::Uuid::now_v7().simple());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    admin.database(&name)
}

/// A store on a new database of the test server, or `None` when skipped.
pub async fn postgres(test: &str) -> Option<Fixture> {
    let url = postgres_url(test)?;
    let options = fresh_postgres_database(&url).await;
    let store = PostgresStore::connect_with(options.clone(), Default::default())
        .await
        .unwrap();
    Some(Fixture {
        place: Place::Postgres {
            options: Box::new(options),
        },
        store: Arc::new(store),
    })
}
