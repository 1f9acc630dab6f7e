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
    ])
}
