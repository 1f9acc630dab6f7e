//! The schema migrations, embedded in the binary: one directory per database.
//!
//! They are listed here with `include_str!` instead of `sqlx::migrate!`, which needs sqlx's
//! proc-macro crate (and a second build of the drivers for it); adding a migration means adding
//! a file and a line below.

use std::borrow::Cow;

use sqlx::SqlStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

fn migration(version: i64, description: &'static str, sql: &'static str) -> Migration {
    Migration::new(
        version,
        Cow::Borrowed(description),
        MigrationType::Simple,
        SqlStr::from_static(sql),
        false,
    )
}

/// The SQLite schema.
pub(crate) fn sqlite() -> Migrator {
    Migrator::with_migrations(vec![
        migration(
            1,
            "initial",
            include_str!("../migrations/sqlite/0001_initial.sql"),
        ),
        migration(
            2,
            "mcp credentials",
            include_str!("../migrations/sqlite/0002_mcp_credentials.sql"),
        ),
        migration(
            3,
            "context leases",
            include_str!("../migrations/sqlite/0003_leases.sql"),
        ),
        migration(
            4,
            "events in commit order",
            include_str!("../migrations/sqlite/0004_events_in_commit_order.sql"),
        ),
        migration(
            5,
            "idempotency keys",
            include_str!("../migrations/sqlite/0005_idempotency_keys_issue45.sql"),
        ),
        migration(
            6,
            "turns",
            include_str!("../migrations/sqlite/0006_turns_issue45.sql"),
        ),
        migration(
            7,
            "model requests",
            include_str!("../migrations/sqlite/0007_model_requests_issue42.sql"),
        ),
        migration(
            8,
            "message search",
            include_str!("../migrations/sqlite/0008_message_search_issue46.sql"),
        ),
        migration(
            9,
            "turn status",
            include_str!("../migrations/sqlite/0009_turn_status_issue45.sql"),
        ),
        migration(
            10,
            "token counts",
            include_str!("../migrations/sqlite/0010_token_counts_issue49.sql"),
        ),
    ])
}

/// The PostgreSQL schema.
pub(crate) fn postgres() -> Migrator {
    Migrator::with_migrations(vec![
        migration(
            1,
            "initial",
            include_str!("../migrations/postgres/0001_initial.sql"),
        ),
        migration(
            2,
            "mcp credentials",
            include_str!("../migrations/postgres/0002_mcp_credentials.sql"),
        ),
        migration(
            3,
            "context leases",
            include_str!("../migrations/postgres/0003_leases.sql"),
        ),
        migration(
            4,
            "idempotency keys",
            include_str!("../migrations/postgres/0004_idempotency_keys_issue45.sql"),
        ),
        migration(
            5,
            "turns",
            include_str!("../migrations/postgres/0005_turns_issue45.sql"),
        ),
        migration(
            6,
            "model requests",
            include_str!("../migrations/postgres/0006_model_requests_issue42.sql"),
        ),
        migration(
            7,
            "message search",
            include_str!("../migrations/postgres/0007_message_search_issue46.sql"),
        ),
        migration(
            8,
            "turn status",
            include_str!("../migrations/postgres/0008_turn_status_issue45.sql"),
        ),
        migration(
            9,
            "token counts",
            include_str!("../migrations/postgres/0009_token_counts_issue49.sql"),
        ),
    ])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use std::str::FromStr as _;

    use sqlx::Connection as _;
    use sqlx::postgres::{PgConnectOptions, PgConnection};
    use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};

    use super::*;

    /// Turns saved before the status column: (turn id byte, status in the record).
    const OLD_TURNS: [(u8, &str); 3] = [(1, "running"), (2, "completed"), (3, "queued")];

    /// `migrator`'s migrations before the turn status column.
    fn before_turn_status(migrator: &Migrator) -> Migrator {
        Migrator::with_migrations(
            migrator
                .iter()
                .filter(|m| m.description != "turn status")
                .cloned()
                .collect(),
        )
    }

    fn old_record(turn: u8, status: &str) -> String {
        format!(r#"{{"turn_id":"t{turn}","status":"{status}"}}"#)
    }

    fn expected() -> Vec<String> {
        OLD_TURNS.iter().map(|(_, s)| (*s).to_owned()).collect()
    }

    #[tokio::test]
    async fn sqlite_turns_saved_before_the_status_column_take_their_records_status() {
        // The turns here belong to no context: foreign keys are not enforced.
        let options = SqliteConnectOptions::from_str("sqlite::memory:")
            .unwrap()
            .foreign_keys(false);
        let mut conn = SqliteConnection::connect_with(&options).await.unwrap();
        before_turn_status(&sqlite()).run(&mut conn).await.unwrap();
        for (turn, status) in OLD_TURNS {
            sqlx::query("INSERT INTO turns (context_id, turn_id, record) VALUES (x'00', ?, ?)")
                .bind(vec![turn])
                .bind(old_record(turn, status))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        sqlite().run(&mut conn).await.unwrap();
        let statuses: Vec<String> = sqlx::query_scalar("SELECT status FROM turns ORDER BY turn_id")
            .fetch_all(&mut conn)
            .await
            .unwrap();
        assert_eq!(statuses, expected());
    }

    #[tokio::test]
    async fn postgres_turns_saved_before_the_status_column_take_their_records_status() {
        let Some(url) = std::env::var("BRAID_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("skipped on PostgreSQL: BRAID_TEST_POSTGRES_URL is not set");
            return;
        };
        let mut conn = PgConnection::connect_with(&PgConnectOptions::from_str(&url).unwrap())
            .await
            .unwrap();
        // A schema of its own, first on this connection's search path, holds what it migrates.
        let schema = format!("braid_test_{}", uuid::Uuid::now_v7().simple());
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "CREATE SCHEMA {schema}; SET search_path TO {schema}"
        )))
        .execute(&mut conn)
        .await
        .unwrap();
        before_turn_status(&postgres())
            .run(&mut conn)
            .await
            .unwrap();
        // A context for the turns to belong to (the table refers to it).
        sqlx::query(
            "INSERT INTO contexts (id, title, config, active_branch, state, created_at, updated_at) \
             VALUES ($1, 'old', '{}', 'main', '{}', now(), now())",
        )
        .bind(uuid::Uuid::nil())
        .execute(&mut conn)
        .await
        .unwrap();
        for (turn, status) in OLD_TURNS {
            sqlx::query("INSERT INTO turns (context_id, turn_id, record) VALUES ($1, $2, $3)")
                .bind(uuid::Uuid::nil())
                .bind(uuid::Uuid::from_u128(u128::from(turn)))
                .bind(old_record(turn, status))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        postgres().run(&mut conn).await.unwrap();
        let statuses: Vec<String> = sqlx::query_scalar("SELECT status FROM turns ORDER BY turn_id")
            .fetch_all(&mut conn)
            .await
            .unwrap();
        assert_eq!(statuses, expected());
    }
}
