//! What can go wrong in a store, as data: each variant names what failed and with what.

use std::fmt;
use std::path::PathBuf;

use braid_protocol::{BranchName, ContextId, MessageId, ValidationErrors};

/// Which database a store runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The embedded SQLite file (the default).
    Sqlite,
    /// A PostgreSQL server (for several replicas).
    Postgres,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        })
    }
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No context has this id.
    #[error("context {0} not found")]
    ContextNotFound(ContextId),
    /// A context with this id is already stored.
    #[error("context {0} already exists")]
    ContextExists(ContextId),
    /// The context has no branch of this name.
    #[error("branch `{branch}` not found in context {context}")]
    BranchNotFound {
        /// The context searched.
        context: ContextId,
        /// The missing branch.
        branch: BranchName,
    },
    /// A branch of this name already exists.
    #[error("branch `{branch}` already exists in context {context}")]
    BranchExists {
        /// The context.
        context: ContextId,
        /// The existing branch.
        branch: BranchName,
    },
    /// The context's pool has no message with this id.
    #[error("message {message} not found in context {context}")]
    MessageNotFound {
        /// The context searched.
        context: ContextId,
        /// The missing message.
        message: MessageId,
    },
    /// A message with this id is already stored in the context.
    #[error("message {message} already exists in context {context}")]
    MessageExists {
        /// The context.
        context: ContextId,
        /// The duplicate id.
        message: MessageId,
    },
    /// A range started after a message that is not on the branch.
    #[error("message {message} is not on branch `{branch}` of context {context}")]
    MessageNotInBranch {
        /// The context.
        context: ContextId,
        /// The branch searched.
        branch: BranchName,
        /// The message that is not on it.
        message: MessageId,
    },
    /// A message would appear twice on one branch.
    #[error("message {message} would appear twice on branch `{branch}` of context {context}")]
    DuplicateInBranch {
        /// The context.
        context: ContextId,
        /// The branch.
        branch: BranchName,
        /// The repeated message.
        message: MessageId,
    },
    /// The changes would delete the active branch (or make a missing branch active).
    #[error("the active branch `{branch}` of context {context} would not exist")]
    ActiveBranchMissing {
        /// The context.
        context: ContextId,
        /// The branch that would be active.
        branch: BranchName,
    },
    /// A message breaks the storage rules (seed 004: roles, tool call ids) or its kind's rules.
    /// Nothing of the change set was written.
    #[error("message {message} cannot be stored:\n{errors}")]
    InvalidMessage {
        /// The offending message.
        message: MessageId,
        /// Every problem found, each with its JSON path.
        errors: ValidationErrors,
    },
    /// The write came from an owner whose lease another replica has since taken over (its
    /// fencing token is older than the lease's), or from a store that does not own the
    /// context. Nothing was written.
    #[error(
        "write to context {context} refused: this replica's lease (token {held}) is not the current one (token {current}); another replica owns the context"
    )]
    Fenced {
        /// The context.
        context: ContextId,
        /// The token this store wrote with (0 when it holds no lease).
        held: u64,
        /// The lease's current token.
        current: u64,
    },
    /// A stored value cannot be read back (and has no safe fallback).
    #[error("stored {what} of context {context} is unreadable: {reason}")]
    Corrupt {
        /// The context.
        context: ContextId,
        /// Which value (`config`, `title`...).
        what: &'static str,
        /// Why it could not be read.
        reason: String,
    },
    /// This store does not keep what was asked of it (a wrapper used in tests).
    #[error("this store does not keep {0}")]
    Unsupported(&'static str),
    /// The directory for the SQLite file could not be created.
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The SQLite database file could not be opened or created.
    #[error("cannot open the SQLite database {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// The driver's reason.
        source: sqlx::Error,
    },
    /// The schema could not be brought up to date.
    #[error("{backend}: applying schema migrations failed: {source}")]
    Migrate {
        /// The database.
        backend: Backend,
        /// The migration error.
        source: sqlx::migrate::MigrateError,
    },
    /// The database refused or failed an operation.
    #[error("{backend} failed while {operation}: {source}")]
    Database {
        /// The database.
        backend: Backend,
        /// What the store was doing (`saving changes`, `loading messages`...).
        operation: &'static str,
        /// The driver's error.
        source: sqlx::Error,
    },
    /// The task that commits change sets has stopped (the store is closing), so a change set
    /// was not saved.
    #[error("the store's writer has stopped: the change was not saved")]
    WriterStopped,
    /// Events could not be made durable.
    #[error("events were not written: {reason}")]
    EventsNotWritten {
        /// The failure reported by the event writer.
        reason: String,
    },
}

impl StoreError {
    /// Whether the error comes from data that was asked for and does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            StoreError::ContextNotFound(_)
                | StoreError::BranchNotFound { .. }
                | StoreError::MessageNotFound { .. }
                | StoreError::MessageNotInBranch { .. }
        )
    }
}

/// Shorthand for store results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Attaches the backend and the operation to a driver error.
pub(crate) trait DbResultExt<T> {
    /// Wraps a driver error into [`StoreError::Database`].
    fn during(self, backend: Backend, operation: &'static str) -> Result<T>;
}

impl<T> DbResultExt<T> for std::result::Result<T, sqlx::Error> {
    fn during(self, backend: Backend, operation: &'static str) -> Result<T> {
        self.map_err(|source| StoreError::Database {
            backend,
            operation,
            source,
        })
    }
}

/// The constraint a driver error reports, if it reports one.
pub(crate) fn violation(error: &sqlx::Error) -> Option<sqlx::error::ErrorKind> {
    match error {
        sqlx::Error::Database(db) => Some(db.kind()),
        _ => None,
    }
}
