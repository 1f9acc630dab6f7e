//! The one implementation of [`Store`](crate::Store) over SQL, shared by SQLite and PostgreSQL.
//!
//! Both schemas use the same column types from Rust's side (UUIDs, timestamps, 64-bit integers,
//! text) and every statement uses `$n` parameters, which both databases read, so the statements
//! are written once. sqlx's traits make a generic version unreadable; this macro instead expands
//! the same code for each database type.
//!
//! A `LIMIT` in these statements is never a bare parameter but `LIMIT CAST($n AS BIGINT)`.
//! SQLite reads a bare parameter's bound value as a constant when it plans a `LIMIT`, and so
//! prepares the statement again every time that parameter is bound anew: about 100 µs, a quarter
//! of reading the newest 100 messages (issue 49). An expression is not read so, and means the
//! same on both databases.

/// Expands `impl Store` for `$store`, which must have `fn writer(&self) -> &Pool<$db>`,
/// a `changes: ChangeWriter` field drained by its event writer,
/// `async fn write_changes(&self, ContextId, &ContextChanges) -> Result<()>` (which saves
/// validated change sets with `apply_changes`, at once or grouped),
/// `fn reader(&self) -> &Pool<$db>` and the fields `events: EventWriter`, `leases:
/// Arc<Leases>` and `notices: broadcast::Sender<EventNotice>`. `$now` is the database's clock in
/// milliseconds since the epoch, as SQL; `$share` locks the rows a query read until the
/// transaction ends against a change of owner but not against a renewal (PostgreSQL `FOR KEY
/// SHARE`; empty on SQLite, whose writes are serial anyway), and `$exclusive` locks them against
/// every other lock, `$share` included (PostgreSQL `FOR UPDATE`; empty on SQLite).
/// `$framed` says whether many messages are read as a few rows of frames (see
/// [`crate::frames`]): on SQLite, where each row is handed from the database's thread, rather
/// than a row each.
/// An optional last argument `{ ... }` holds `Store` methods of one database only.
/// A duration in whole milliseconds, as the database compares it.
pub(crate) fn millis(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

macro_rules! sql_store {
    ($store:ty, $db:ty, $backend:expr, $now:expr, $share:literal, $exclusive:literal, $framed:literal $(, { $($extra:tt)* })?) => {
        impl $store {
            /// Takes the context's lease when it is free, expired, released or already this
            /// replica's; the token grows with each taking.
            async fn take_lease(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Option<$crate::lock::ContextLock>> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "taking a context's lease";
                if self.leases.holds(context) {
                    return Ok(None);
                }
                // Events this store queued for the context under an earlier lease must land
                // before its numbering is read again from the log.
                self.events.flush().await?;
                let started = std::time::Instant::now();
                let mut tx = $crate::sql::begin(self.writer()).await.during($backend, OP)?;
                // Waits for the writes of the current owner that already passed the fence
                // check (they hold a key-share lock), so none of them lands after the takeover.
                sqlx::query(concat!("SELECT 1 FROM leases WHERE context_id = $1", $exclusive))
                    .bind(context.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .during($backend, OP)?;
                let taken: std::result::Result<Option<i64>, sqlx::Error> = sqlx::query_scalar(concat!(
                    "INSERT INTO leases (context_id, owner, address, token, expires_ms, released) ",
                    "VALUES ($1, $2, $3, 1, ", $now, " + $4, FALSE) ",
                    "ON CONFLICT (context_id) DO UPDATE SET owner = excluded.owner, ",
                    "address = excluded.address, token = leases.token + 1, ",
                    "expires_ms = excluded.expires_ms, released = FALSE ",
                    "WHERE leases.released OR leases.expires_ms < ", $now,
                    " OR leases.owner = excluded.owner ",
                    "RETURNING token"
                ))
                .bind(context.0)
                .bind(&self.leases.identity.id)
                .bind(self.leases.identity.address.as_deref())
                .bind(self.leases.ttl_ms())
                .fetch_optional(&mut *tx)
                .await;
                let taken = match taken {
                    Err(error) if $crate::error::violation(&error)
                        == Some(sqlx::error::ErrorKind::ForeignKeyViolation) =>
                    {
                        return Err($crate::error::StoreError::ContextNotFound(context));
                    }
                    other => other.during($backend, OP)?,
                };
                tx.commit().await.during($backend, OP)?;
                let Some(token) = taken else {
                    return Ok(None);
                };
                let token = u64::try_from(token).unwrap_or(0);
                self.events.lease_taken(context, token);
                tracing::debug!(context = %context, token, "lease taken");
                let pool = self.writer().clone();
                let owner = self.leases.identity.id.clone();
                Ok(Some(self.leases.hold(context, token, started, move |token| {
                    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                        tracing::warn!(context = %context, "lease dropped outside a runtime; it expires on its own");
                        return;
                    };
                    runtime.spawn(async move {
                        let released = sqlx::query(
                            "UPDATE leases SET released = TRUE \
                             WHERE context_id = $1 AND owner = $2 AND token = $3",
                        )
                        .bind(context.0)
                        .bind(owner)
                        .bind(i64::try_from(token).unwrap_or(i64::MAX))
                        .execute(&pool)
                        .await;
                        if let Err(error) = released {
                            tracing::warn!(context = %context, %error, "lease not released; it expires on its own");
                        }
                    });
                })))
            }

            /// The heartbeat: renews every lease this store holds, once per third of the lease
            /// time, and reports the ones lost. Runs until the store closes. (SQLite's leases
            /// never lapse while its one process runs, so it has none.)
            #[allow(dead_code)]
            async fn heartbeat(pool: sqlx::Pool<$db>, leases: std::sync::Arc<$crate::lock::Leases>) {
                use sqlx::Row as _;
                let every = leases.identity.lease_ttl / 3;
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    let asked = leases.snapshot();
                    if asked.is_empty() {
                        continue;
                    }
                    let started = std::time::Instant::now();
                    let renewal = sqlx::query(concat!(
                        "UPDATE leases SET expires_ms = ", $now, " + $2 ",
                        "WHERE owner = $1 AND NOT released RETURNING context_id, token"
                    ))
                    .bind(&leases.identity.id)
                    .bind(leases.ttl_ms())
                    .fetch_all(&pool);
                    match tokio::time::timeout(every, renewal).await {
                        Ok(Ok(rows)) => {
                            let renewed: Vec<(braid_protocol::ContextId, u64)> = rows
                                .iter()
                                .filter_map(|row| {
                                    let id: uuid::Uuid = row.try_get(0).ok()?;
                                    let token: i64 = row.try_get(1).ok()?;
                                    Some((braid_protocol::ContextId(id), u64::try_from(token).ok()?))
                                })
                                .collect();
                            leases.renewed(started, &asked, &renewed);
                        }
                        Ok(Err(error)) => {
                            tracing::warn!(%error, "leases not renewed");
                            leases.expire(std::time::Instant::now());
                        }
                        Err(_) => {
                            tracing::warn!("lease renewal timed out");
                            leases.expire(std::time::Instant::now());
                        }
                    }
                }
            }
            fn message_from_row(
                row: &<$db as sqlx::Database>::Row,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<braid_protocol::Message> {
                use sqlx::Row as _;
                const OP: &str = "reading a message row";
                // Only the payload is needed when it reads; the other columns are decoded
                // only to describe a payload that does not.
                let payload: String =
                    $crate::error::DbResultExt::during(row.try_get(4), $backend, OP)?;
                match braid_protocol::Message::from_json(&payload) {
                    Ok(message) => Ok(message),
                    Err(error) => {
                        let read = || -> std::result::Result<$crate::row::MessageRow, sqlx::Error> {
                            Ok($crate::row::MessageRow {
                                id: row.try_get(0)?,
                                role: row.try_get(1)?,
                                kind: row.try_get(2)?,
                                status: row.try_get(3)?,
                                payload,
                                created_at: row.try_get(5)?,
                                updated_at: row.try_get(6)?,
                            })
                        };
                        let row = $crate::error::DbResultExt::during(read(), $backend, OP)?;
                        Ok(row.into_unreadable(context, &error))
                    }
                }
            }

            /// The message of an `id, payload` pair read as one column or a frame; an unreadable
            /// payload is read again with its row's other columns, to keep it as an `unknown`
            /// message.
            async fn message_from_payload(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                id: uuid::Uuid,
                payload: &str,
            ) -> $crate::error::Result<braid_protocol::Message> {
                use $crate::error::DbResultExt as _;
                if let Ok(message) = braid_protocol::Message::from_json(payload) {
                    return Ok(message);
                }
                let row = sqlx::query(concat!(
                    "SELECT m.id, m.role, m.kind, m.status, m.payload, m.created_at, m.updated_at ",
                    "FROM messages m WHERE m.context_id = $1 AND m.id = $2"
                ))
                .bind(context.0)
                .bind(id)
                .fetch_one(&mut *conn)
                .await
                .during($backend, "reading an unreadable message's row")?;
                Self::message_from_row(&row, context)
            }

            /// Runs `query`, whose rows are `id, payload` pairs in order, and reads the messages.
            async fn read_messages<'q>(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                query: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments>,
                op: &'static str,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                use $crate::error::DbResultExt as _;
                use sqlx::Row as _;
                let rows = query.fetch_all(&mut *conn).await.during($backend, op)?;
                let mut messages = Vec::with_capacity(rows.len());
                for row in &rows {
                    let id: uuid::Uuid = row.try_get(0).during($backend, op)?;
                    let payload: &str = row.try_get(1).during($backend, op)?;
                    messages.push(Self::message_from_payload(conn, context, id, payload).await?);
                }
                Ok(messages)
            }

            /// The messages of rows of frames, the unreadable ones read again with their rows'
            /// other columns.
            async fn finish_frames(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                decoded: $crate::frames::Decoded,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                if decoded.unreadable.is_empty() {
                    return Ok(decoded.messages);
                }
                let total = decoded.len();
                let mut read = decoded.messages.into_iter();
                let mut unreadable = decoded.unreadable.into_iter().peekable();
                let mut messages = Vec::with_capacity(total);
                for place in 0..total {
                    match unreadable.next_if(|(at, _, _)| *at == place) {
                        Some((_, id, payload)) => messages
                            .push(Self::message_from_payload(conn, context, id, &payload).await?),
                        None => messages.extend(read.next()),
                    }
                }
                Ok(messages)
            }

            fn context_from_row(
                row: &<$db as sqlx::Database>::Row,
            ) -> $crate::error::Result<$crate::record::ContextRecord> {
                use sqlx::Row as _;
                let read = || -> std::result::Result<_, sqlx::Error> {
                    let id: uuid::Uuid = row.try_get("id")?;
                    let title: String = row.try_get("title")?;
                    let config: String = row.try_get("config")?;
                    let active_branch: String = row.try_get("active_branch")?;
                    let state: String = row.try_get("state")?;
                    let created_at: chrono::DateTime<chrono::Utc> = row.try_get("created_at")?;
                    let updated_at: chrono::DateTime<chrono::Utc> = row.try_get("updated_at")?;
                    Ok((id, title, config, active_branch, state, created_at, updated_at))
                };
                let (id, title, config, active_branch, state, created_at, updated_at) =
                    $crate::error::DbResultExt::during(read(), $backend, "reading a context row")?;
                let id = braid_protocol::ContextId(id);
                Ok($crate::record::ContextRecord {
                    id,
                    title,
                    config: $crate::row::read_config(id, &config)?,
                    active_branch: braid_protocol::BranchName(active_branch),
                    state: $crate::row::read_state(id, &state),
                    created_at,
                    updated_at,
                })
            }

            /// Fails with `ContextNotFound` unless the context exists.
            async fn require_context<'e, E>(
                executor: E,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<()>
            where
                E: sqlx::Executor<'e, Database = $db>,
            {
                let found = sqlx::query("SELECT 1 FROM contexts WHERE id = $1")
                    .bind(context.0)
                    .fetch_optional(executor)
                    .await;
                match $crate::error::DbResultExt::during(found, $backend, "finding a context")? {
                    Some(_) => Ok(()),
                    None => Err($crate::error::StoreError::ContextNotFound(context)),
                }
            }

            /// Fails with `BranchNotFound` (or `ContextNotFound`) unless the branch exists.
            async fn require_branch(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
            ) -> $crate::error::Result<()> {
                let found = sqlx::query("SELECT 1 FROM branches WHERE context_id = $1 AND name = $2")
                    .bind(context.0)
                    .bind(branch.as_str())
                    .fetch_optional(&mut *conn)
                    .await;
                match $crate::error::DbResultExt::during(found, $backend, "finding a branch")? {
                    Some(_) => Ok(()),
                    None => {
                        Self::require_context(&mut *conn, context).await?;
                        Err($crate::error::StoreError::BranchNotFound {
                            context,
                            branch: branch.clone(),
                        })
                    }
                }
            }

            /// Writes `ids` at positions `start..` of a branch.
            async fn insert_positions(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
                start: i64,
                ids: &[braid_protocol::MessageId],
            ) -> $crate::error::Result<()> {
                use sqlx::error::ErrorKind;
                for (offset, id) in ids.iter().enumerate() {
                    let done = sqlx::query(
                        "INSERT INTO branch_messages (context_id, branch, position, message_id) \
                         VALUES ($1, $2, $3, $4)",
                    )
                    .bind(context.0)
                    .bind(branch.as_str())
                    .bind(start + offset as i64)
                    .bind(id.0)
                    .execute(&mut *conn)
                    .await;
                    if let Err(error) = done {
                        return Err(match $crate::error::violation(&error) {
                            Some(ErrorKind::UniqueViolation) => {
                                $crate::error::StoreError::DuplicateInBranch {
                                    context,
                                    branch: branch.clone(),
                                    message: *id,
                                }
                            }
                            Some(ErrorKind::ForeignKeyViolation) => {
                                $crate::error::StoreError::MessageNotFound { context, message: *id }
                            }
                            _ => $crate::error::StoreError::Database {
                                backend: $backend,
                                operation: "writing a branch's order",
                                source: error,
                            },
                        });
                    }
                }
                Ok(())
            }

            /// Writes a turn's record, replacing an earlier record of the same turn.
            async fn write_turn(
                conn: &mut <$db as sqlx::Database>::Connection,
                turn: &braid_protocol::api::TurnView,
            ) -> $crate::error::Result<()> {
                let record = serde_json::to_string(turn).map_err(|e| {
                    $crate::error::StoreError::Corrupt {
                        context: turn.context_id,
                        what: "turn",
                        reason: e.to_string(),
                    }
                })?;
                // The status column and the record are written by one statement: never out of
                // step.
                let done = sqlx::query(
                    "INSERT INTO turns (context_id, turn_id, record, status) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (context_id, turn_id) DO UPDATE \
                     SET record = excluded.record, status = excluded.status",
                )
                .bind(turn.context_id.0)
                .bind(turn.turn_id.0)
                .bind(record)
                .bind(turn.status.as_str())
                .execute(&mut *conn)
                .await;
                match done {
                    Ok(_) => Ok(()),
                    Err(error) => Err(match $crate::error::violation(&error) {
                        Some(sqlx::error::ErrorKind::ForeignKeyViolation) => {
                            $crate::error::StoreError::ContextNotFound(turn.context_id)
                        }
                        _ => $crate::error::StoreError::Database {
                            backend: $backend,
                            operation: "saving a turn",
                            source: error,
                        },
                    }),
                }
            }

            /// Writes the record of one request sent to the model.
            async fn write_model_request(
                conn: &mut <$db as sqlx::Database>::Connection,
                request: &$crate::record::StoredModelRequest,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                sqlx::query(
                    "INSERT INTO model_requests (context_id, id, branch, created_ms, record) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(request.context.0)
                .bind(request.id)
                .bind(request.branch.as_str())
                .bind(request.created_ms)
                .bind(request.record.as_str())
                .execute(&mut *conn)
                .await
                .during($backend, "recording a model request")?;
                Ok(())
            }

            /// Keeps the message's row of `message_texts` (the search index's source) equal to
            /// its searchable text: written or replaced when it has some, removed when not (a
            /// `New` message has no row to remove).
            async fn index_text(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                message: &braid_protocol::Message,
                row: $crate::search::TextRow,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "indexing a message's text";
                match $crate::search::searchable_text(message) {
                    None if row == $crate::search::TextRow::New => return Ok(()),
                    Some(body) => sqlx::query(
                        "INSERT INTO message_texts (context_id, message_id, body) VALUES ($1, $2, $3) \
                         ON CONFLICT (context_id, message_id) DO UPDATE SET body = excluded.body \
                         WHERE message_texts.body <> excluded.body",
                    )
                    .bind(context.0)
                    .bind(message.id.0)
                    .bind(body),
                    None => sqlx::query(
                        "DELETE FROM message_texts WHERE context_id = $1 AND message_id = $2",
                    )
                    .bind(context.0)
                    .bind(message.id.0),
                }
                .execute(&mut *conn)
                .await
                .during($backend, OP)?;
                Ok(())
            }

            async fn apply_changes(
                conn: &mut <$db as sqlx::Database>::Connection,
                context: braid_protocol::ContextId,
                changes: &$crate::changes::ContextChanges,
            ) -> $crate::error::Result<()> {
                use $crate::error::{DbResultExt as _, StoreError};
                use sqlx::error::ErrorKind;
                const OP: &str = "saving changes";
                let now = chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6);
                let config = changes
                    .config
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()
                    .map_err(|e| StoreError::Corrupt {
                        context,
                        what: "config",
                        reason: e.to_string(),
                    })?;
                let state = changes
                    .state
                    .as_ref()
                    .map(serde_json::to_string)
                    .transpose()
                    .map_err(|e| StoreError::Corrupt {
                        context,
                        what: "state",
                        reason: e.to_string(),
                    })?;
                // Writing the context row first takes the write lock at once and proves the
                // context exists. A set of records only leaves the row (and its `updated_at`)
                // alone; the records' own rows refer to the context.
                if !changes.records_only() {
                    let touched = sqlx::query(
                        "UPDATE contexts SET title = COALESCE($2, title), config = COALESCE($3, config), \
                         active_branch = COALESCE($4, active_branch), state = COALESCE($5, state), \
                         updated_at = $6 WHERE id = $1",
                    )
                    .bind(context.0)
                    .bind(changes.title.as_deref())
                    .bind(config)
                    .bind(changes.active_branch.as_ref().map(|b| b.as_str()))
                    .bind(state)
                    .bind(now)
                    .execute(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    if touched.rows_affected() == 0 {
                        return Err(StoreError::ContextNotFound(context));
                    }
                }

                for message in &changes.new_messages {
                    let done = sqlx::query(
                        "INSERT INTO messages (context_id, id, role, kind, status, payload, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind(context.0)
                    .bind(message.id.0)
                    .bind(message.role.as_str())
                    .bind(message.kind.name().as_str())
                    .bind(message.status.as_str())
                    .bind(message.to_json())
                    .bind(message.created_at)
                    .bind(message.updated_at)
                    .execute(&mut *conn)
                    .await;
                    if let Err(error) = done {
                        return Err(match $crate::error::violation(&error) {
                            Some(ErrorKind::UniqueViolation) => StoreError::MessageExists {
                                context,
                                message: message.id,
                            },
                            _ => StoreError::Database {
                                backend: $backend,
                                operation: OP,
                                source: error,
                            },
                        });
                    }
                    Self::index_text(&mut *conn, context, message, $crate::search::TextRow::New)
                        .await?;
                }

                for message in &changes.updated_messages {
                    let done = sqlx::query(
                        "UPDATE messages SET role = $3, kind = $4, status = $5, payload = $6, updated_at = $7 \
                         WHERE context_id = $1 AND id = $2",
                    )
                    .bind(context.0)
                    .bind(message.id.0)
                    .bind(message.role.as_str())
                    .bind(message.kind.name().as_str())
                    .bind(message.status.as_str())
                    .bind(message.to_json())
                    .bind(message.updated_at)
                    .execute(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    if done.rows_affected() == 0 {
                        return Err(StoreError::MessageNotFound {
                            context,
                            message: message.id,
                        });
                    }
                    Self::index_text(&mut *conn, context, message, $crate::search::TextRow::Stored)
                        .await?;
                }

                for branch in &changes.new_branches {
                    let pipeline = branch.pipeline.as_ref().map(|p| p.to_string());
                    let done = sqlx::query(
                        "INSERT INTO branches (context_id, name, system_prompt, pipeline, parent, fork_point, created_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(context.0)
                    .bind(branch.name.as_str())
                    .bind(branch.system_prompt.as_deref())
                    .bind(pipeline)
                    .bind(branch.parent.as_ref().map(|p| p.as_str()))
                    .bind(branch.fork_point.map(|m| m.0))
                    .bind(chrono::SubsecRound::trunc_subsecs(branch.created_at, 6))
                    .execute(&mut *conn)
                    .await;
                    if let Err(error) = done {
                        return Err(match $crate::error::violation(&error) {
                            Some(ErrorKind::UniqueViolation) => StoreError::BranchExists {
                                context,
                                branch: branch.name.clone(),
                            },
                            _ => StoreError::Database {
                                backend: $backend,
                                operation: OP,
                                source: error,
                            },
                        });
                    }
                    Self::insert_positions(conn, context, &branch.name, 0, &branch.message_ids)
                        .await?;
                }

                for settings in &changes.branch_settings {
                    let pipeline = settings.pipeline.as_ref().map(|p| p.to_string());
                    let done = sqlx::query(
                        "UPDATE branches SET system_prompt = $3, pipeline = $4 \
                         WHERE context_id = $1 AND name = $2",
                    )
                    .bind(context.0)
                    .bind(settings.branch.as_str())
                    .bind(settings.system_prompt.as_deref())
                    .bind(pipeline)
                    .execute(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    if done.rows_affected() == 0 {
                        return Err(StoreError::BranchNotFound {
                            context,
                            branch: settings.branch.clone(),
                        });
                    }
                }

                for append in &changes.appends {
                    // One round trip for both: is there such a branch, and where does it end.
                    let (present, last): (bool, i64) = sqlx::query_as(
                        "SELECT EXISTS (SELECT 1 FROM branches WHERE context_id = $1 AND name = $2), \
                         COALESCE((SELECT MAX(position) FROM branch_messages \
                         WHERE context_id = $1 AND branch = $2), -1)",
                    )
                    .bind(context.0)
                    .bind(append.branch.as_str())
                    .fetch_one(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    if !present {
                        return Err(StoreError::BranchNotFound {
                            context,
                            branch: append.branch.clone(),
                        });
                    }
                    Self::insert_positions(conn, context, &append.branch, last + 1, &append.message_ids)
                        .await?;
                }

                for replacement in &changes.replacements {
                    Self::require_branch(conn, context, &replacement.branch).await?;
                    sqlx::query("DELETE FROM branch_messages WHERE context_id = $1 AND branch = $2")
                        .bind(context.0)
                        .bind(replacement.branch.as_str())
                        .execute(&mut *conn)
                        .await
                        .during($backend, OP)?;
                    Self::insert_positions(conn, context, &replacement.branch, 0, &replacement.message_ids)
                        .await?;
                }

                for branch in &changes.deleted_branches {
                    let done = sqlx::query("DELETE FROM branches WHERE context_id = $1 AND name = $2")
                        .bind(context.0)
                        .bind(branch.as_str())
                        .execute(&mut *conn)
                        .await
                        .during($backend, OP)?;
                    if done.rows_affected() == 0 {
                        return Err(StoreError::BranchNotFound {
                            context,
                            branch: branch.clone(),
                        });
                    }
                }

                for request in &changes.model_requests {
                    Self::write_model_request(&mut *conn, request).await?;
                }
                for turn in &changes.turns {
                    Self::write_turn(&mut *conn, turn).await?;
                }

                if changes.active_branch.is_some() || !changes.deleted_branches.is_empty() {
                    let active: String =
                        sqlx::query_scalar("SELECT active_branch FROM contexts WHERE id = $1")
                            .bind(context.0)
                            .fetch_one(&mut *conn)
                            .await
                            .during($backend, OP)?;
                    let active = braid_protocol::BranchName(active);
                    if Self::require_branch(conn, context, &active).await.is_err() {
                        return Err(StoreError::ActiveBranchMissing { context, branch: active });
                    }
                }
                Ok(())
            }

            async fn load_range(
                &self,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
                range: $crate::record::MessageRange,
                kind: Option<braid_protocol::KindName>,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                use $crate::error::{DbResultExt as _, StoreError};
                use $crate::record::MessageRange;
                const OP: &str = "loading messages";
                let mut conn = self.reader().acquire().await.during($backend, OP)?;
                let (after, limit, newest) = match range {
                    MessageRange::All => (None, i64::MAX, false),
                    MessageRange::After { after, limit } => (after, i64::from(limit), false),
                    MessageRange::Newest(n) => (None, i64::from(n), true),
                };
                let start: i64 = match after {
                    None => -1,
                    Some(after) => {
                        let position: Option<i64> = sqlx::query_scalar(
                            "SELECT position FROM branch_messages \
                             WHERE context_id = $1 AND branch = $2 AND message_id = $3",
                        )
                        .bind(context.0)
                        .bind(branch.as_str())
                        .bind(after.0)
                        .fetch_optional(&mut *conn)
                        .await
                        .during($backend, OP)?;
                        match position {
                            Some(p) => p,
                            None => {
                                Self::require_branch(&mut conn, context, branch).await?;
                                return Err(StoreError::MessageNotInBranch {
                                    context,
                                    branch: branch.clone(),
                                    message: after,
                                });
                            }
                        }
                    }
                };
                let kind = kind.map(|k| k.as_str());
                // The range is cut from the branch's order on its key, and the messages of the
                // rows kept are looked up by theirs, in position order: no sort of whole rows.
                // The newest come last in the same way.
                // A read of one kind has its own statement, with `$5` bound to the kind; the
                // others test no kind at all (testing every row against an empty kind was about
                // 7% of loading a whole branch).
                macro_rules! ranged {
                    ($order:literal, $kind:literal) => {
                        concat!(
                            "SELECT b.position AS position, m.id AS id, m.payload AS payload ",
                            "FROM branch_messages b JOIN messages m ",
                            "ON m.context_id = b.context_id AND m.id = b.message_id ",
                            "WHERE b.context_id = $1 AND b.branch = $2 AND b.position > $3 ",
                            $kind,
                            "ORDER BY b.position ", $order, " LIMIT CAST($4 AS BIGINT)"
                        )
                    };
                }
                macro_rules! by_kind {
                    ($frame:ident, $order:literal) => {
                        if kind.is_some() {
                            $frame!($order, "AND m.kind = $5 ")
                        } else {
                            $frame!($order, "")
                        }
                    };
                }
                let messages = if $framed && !(newest && limit > $crate::frames::CHUNK) {
                    // Messages come as rows of frames, a chunk of positions at a time; each
                    // chunk is cut from the branch's order on its key and concatenated in that
                    // order, so nothing is sorted. (Grouping one query's rows by `position / n`
                    // sorted every payload through a temporary file, a third of loading a whole
                    // branch; `group_concat(... ORDER BY position)` sorted each chunk through a
                    // temporary b-tree, a quarter. SQLite keeps a subquery's ORDER BY under an
                    // aggregate such as group_concat, and always with a LIMIT.) The newest
                    // come newest first, in one chunk.
                    macro_rules! chunk {
                        ($order:literal, $kind:literal) => {
                            concat!(
                                "SELECT group_concat(", $crate::frames::message_frame!(),
                                ", ''), MAX(position), COUNT(*) FROM (", ranged!($order, $kind), ")"
                            )
                        };
                    }
                    let sql = if newest { by_kind!(chunk, "DESC") } else { by_kind!(chunk, "") };
                    let mut decoding = $crate::frames::Decoding::new(context);
                    let mut last = start;
                    let mut left = limit;
                    let mut decoded = loop {
                        let mut query = sqlx::query_as(sql)
                            .bind(context.0)
                            .bind(branch.as_str())
                            .bind(last)
                            .bind(left.min($crate::frames::CHUNK));
                        if let Some(kind) = kind {
                            query = query.bind(kind);
                        }
                        let (text, end, count): (Option<String>, Option<i64>, i64) =
                            query.fetch_one(&mut *conn).await.during($backend, OP)?;
                        left -= count;
                        match end.filter(|_| !newest && left > 0 && count >= $crate::frames::CHUNK) {
                            Some(end) => {
                                decoding.begin(text.unwrap_or_default());
                                last = end;
                            }
                            None => break decoding.finish(text.as_deref().unwrap_or("")).await?,
                        }
                    };
                    if newest {
                        decoded.reverse();
                    }
                    Self::finish_frames(&mut conn, context, decoded).await?
                } else {
                    macro_rules! rows {
                        ($order:literal, $kind:literal) => {
                            concat!(
                                "SELECT id, payload FROM (", ranged!($order, $kind),
                                ") r ORDER BY position"
                            )
                        };
                    }
                    let sql = if newest { by_kind!(rows, "DESC") } else { by_kind!(rows, "") };
                    let mut query = sqlx::query(sql)
                        .bind(context.0)
                        .bind(branch.as_str())
                        .bind(start)
                        .bind(limit);
                    if let Some(kind) = kind {
                        query = query.bind(kind);
                    }
                    Self::read_messages(&mut conn, context, query, OP).await?
                };
                if messages.is_empty() {
                    Self::require_branch(&mut conn, context, branch).await?;
                }
                Ok(messages)
            }
        }

        #[async_trait::async_trait]
        impl $crate::store::Store for $store {
            fn backend(&self) -> $crate::error::Backend {
                $backend
            }

            async fn create_context(
                &self,
                context: &$crate::record::ContextRecord,
            ) -> $crate::error::Result<()> {
                use $crate::error::{DbResultExt as _, StoreError};
                const OP: &str = "creating a context";
                let corrupt = |what: &'static str, e: serde_json::Error| StoreError::Corrupt {
                    context: context.id,
                    what,
                    reason: e.to_string(),
                };
                let config = serde_json::to_string(&context.config).map_err(|e| corrupt("config", e))?;
                let state = serde_json::to_string(&context.state).map_err(|e| corrupt("state", e))?;
                let mut tx = $crate::sql::begin(self.writer()).await.during($backend, OP)?;
                let done = sqlx::query(
                    "INSERT INTO contexts (id, title, config, active_branch, state, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(context.id.0)
                .bind(&context.title)
                .bind(config)
                .bind(context.active_branch.as_str())
                .bind(state)
                .bind(chrono::SubsecRound::trunc_subsecs(context.created_at, 6))
                .bind(chrono::SubsecRound::trunc_subsecs(context.updated_at, 6))
                .execute(&mut *tx)
                .await;
                if let Err(error) = done {
                    return Err(match $crate::error::violation(&error) {
                        Some(sqlx::error::ErrorKind::UniqueViolation) => {
                            StoreError::ContextExists(context.id)
                        }
                        _ => StoreError::Database { backend: $backend, operation: OP, source: error },
                    });
                }
                sqlx::query("INSERT INTO branches (context_id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(context.id.0)
                    .bind(context.active_branch.as_str())
                    .bind(chrono::SubsecRound::trunc_subsecs(context.created_at, 6))
                    .execute(&mut *tx)
                    .await
                    .during($backend, OP)?;
                tx.commit().await.during($backend, OP)?;
                self.events.starts_empty(context.id);
                Ok(())
            }

            async fn record_model_request(
                &self,
                request: &$crate::record::StoredModelRequest,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                let mut conn = self
                    .writer()
                    .acquire()
                    .await
                    .during($backend, "recording a model request")?;
                Self::write_model_request(&mut *conn, request).await
            }

            async fn model_requests(
                &self,
                context: braid_protocol::ContextId,
                branch: Option<&str>,
                before: Option<uuid::Uuid>,
                limit: u32,
            ) -> $crate::error::Result<Vec<String>> {
                use $crate::error::DbResultExt as _;
                // Newest first; `before` names a record, so a page starts below its time (ties
                // broken by id, as the order is).
                let rows: Vec<(String,)> = sqlx::query_as(
                    "SELECT r.record FROM model_requests r \
                     WHERE r.context_id = $1 AND ($2 IS NULL OR r.branch = $2) \
                     AND ($3 IS NULL OR EXISTS (SELECT 1 FROM model_requests b \
                         WHERE b.context_id = $1 AND b.id = $3 \
                         AND (r.created_ms < b.created_ms OR (r.created_ms = b.created_ms AND r.id < b.id)))) \
                     ORDER BY r.created_ms DESC, r.id DESC LIMIT CAST($4 AS BIGINT)",
                )
                .bind(context.0)
                .bind(branch)
                .bind(before)
                .bind(i64::from(limit))
                .fetch_all(self.reader())
                .await
                .during($backend, "listing model requests")?;
                Ok(rows.into_iter().map(|(record,)| record).collect())
            }

            async fn model_request(
                &self,
                context: braid_protocol::ContextId,
                id: uuid::Uuid,
            ) -> $crate::error::Result<Option<String>> {
                use $crate::error::DbResultExt as _;
                let row: Option<(String,)> = sqlx::query_as(
                    "SELECT record FROM model_requests WHERE context_id = $1 AND id = $2",
                )
                .bind(context.0)
                .bind(id)
                .fetch_optional(self.reader())
                .await
                .during($backend, "reading a model request")?;
                Ok(row.map(|(record,)| record))
            }

            async fn load_mcp_credentials(
                &self,
                server: &str,
            ) -> $crate::error::Result<Option<String>> {
                use $crate::error::DbResultExt as _;
                let row: Option<(String,)> =
                    sqlx::query_as("SELECT credentials FROM mcp_credentials WHERE server = $1")
                        .bind(server)
                        .fetch_optional(self.reader())
                        .await
                        .during($backend, "loading MCP credentials")?;
                Ok(row.map(|(credentials,)| credentials))
            }

            async fn save_mcp_credentials(
                &self,
                server: &str,
                credentials: &str,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                sqlx::query(
                    "INSERT INTO mcp_credentials (server, credentials, updated_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (server) DO UPDATE SET credentials = excluded.credentials, updated_at = excluded.updated_at",
                )
                .bind(server)
                .bind(credentials)
                .bind(chrono::Utc::now().to_rfc3339())
                .execute(self.writer())
                .await
                .during($backend, "saving MCP credentials")?;
                Ok(())
            }

            async fn clear_mcp_credentials(&self, server: &str) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                sqlx::query("DELETE FROM mcp_credentials WHERE server = $1")
                    .bind(server)
                    .execute(self.writer())
                    .await
                    .during($backend, "clearing MCP credentials")?;
                Ok(())
            }

            async fn claim_idempotency_key(
                &self,
                request: $crate::idempotency::IdempotentRequest<'_>,
                window: $crate::idempotency::IdempotencyWindow,
            ) -> $crate::error::Result<$crate::idempotency::IdempotencyClaim> {
                use $crate::error::DbResultExt as _;
                use $crate::idempotency::{IdempotencyClaim, StoredAnswer};
                const OP: &str = "claiming an idempotency key";
                // A new key is inserted; an expired use, or a claim its request abandoned, is
                // taken over; any other row is left for the reading below.
                let claimed: Option<i64> = sqlx::query_scalar(concat!(
                    "INSERT INTO idempotency_keys (scope, key, fingerprint, created_ms) ",
                    "VALUES ($1, $2, $3, ", $now, ") ",
                    "ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, ",
                    "created_ms = excluded.created_ms, status = NULL, content_type = NULL, body = NULL ",
                    "WHERE idempotency_keys.created_ms < ", $now, " - $4 ",
                    "OR (idempotency_keys.status IS NULL AND idempotency_keys.created_ms < ", $now, " - $5) ",
                    "RETURNING created_ms"
                ))
                .bind(request.scope)
                .bind(request.key)
                .bind(request.fingerprint)
                .bind($crate::sql::millis(window.answers_kept))
                .bind($crate::sql::millis(window.claim_abandoned_after))
                .fetch_optional(self.writer())
                .await
                .during($backend, OP)?;
                if claimed.is_some() {
                    return Ok(IdempotencyClaim::Claimed);
                }
                let row: Option<(String, Option<i32>, Option<String>, Option<Vec<u8>>)> =
                    sqlx::query_as(
                        "SELECT fingerprint, status, content_type, body FROM idempotency_keys \
                         WHERE scope = $1 AND key = $2",
                    )
                    .bind(request.scope)
                    .bind(request.key)
                    .fetch_optional(self.writer())
                    .await
                    .during($backend, OP)?;
                Ok(match row {
                    // Released between the two statements: the next try claims it.
                    None => IdempotencyClaim::InProgress,
                    Some((fingerprint, _, _, _)) if fingerprint != request.fingerprint => {
                        IdempotencyClaim::OtherBody
                    }
                    Some((_, None, _, _)) => IdempotencyClaim::InProgress,
                    Some((_, Some(status), content_type, body)) => {
                        IdempotencyClaim::Answered(StoredAnswer {
                            status: u16::try_from(status).unwrap_or(500),
                            content_type,
                            body: body.unwrap_or_default(),
                        })
                    }
                })
            }

            async fn record_idempotent_answer(
                &self,
                scope: &str,
                key: &str,
                answer: &$crate::idempotency::StoredAnswer,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                sqlx::query(
                    "UPDATE idempotency_keys SET status = $3, content_type = $4, body = $5 \
                     WHERE scope = $1 AND key = $2",
                )
                .bind(scope)
                .bind(key)
                .bind(i32::from(answer.status))
                .bind(answer.content_type.as_deref())
                .bind(answer.body.as_slice())
                .execute(self.writer())
                .await
                .during($backend, "recording an idempotent answer")?;
                Ok(())
            }

            async fn release_idempotency_key(
                &self,
                scope: &str,
                key: &str,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                sqlx::query(
                    "DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND status IS NULL",
                )
                .bind(scope)
                .bind(key)
                .execute(self.writer())
                .await
                .during($backend, "releasing an idempotency key")?;
                Ok(())
            }

            async fn save_token_counts(
                &self,
                context: braid_protocol::ContextId,
                counts: &$crate::record::StoredTokenCounts,
            ) -> $crate::error::Result<()> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "saving token counts";
                if counts.counts.is_empty() {
                    return Ok(());
                }
                let mut tx = $crate::sql::begin(self.writer()).await.during($backend, OP)?;
                // The counts kept before, each replaced by a newer one of its message.
                let kept: Option<(Vec<u8>,)> = sqlx::query_as(
                    "SELECT counts FROM token_counts WHERE context_id = $1 AND counter = $2",
                )
                .bind(context.0)
                .bind(counts.counter.as_str())
                .fetch_optional(&mut *tx)
                .await
                .during($backend, OP)?;
                let mut merged = $crate::token_counts::Counts::new();
                if let Some((blob,)) = kept
                    && let Err(error) = $crate::token_counts::unpack_into(context, &blob, &mut merged)
                {
                    // Counts that cannot be read are only counted again: replace them.
                    tracing::warn!(context = %context, %error, "kept token counts unreadable; replaced");
                    merged.clear();
                }
                for count in &counts.counts {
                    merged.insert(count.message, (count.version, count.tokens));
                }
                sqlx::query(
                    "INSERT INTO token_counts (context_id, counter, counts) VALUES ($1, $2, $3) \
                     ON CONFLICT (context_id, counter) DO UPDATE SET counts = excluded.counts",
                )
                .bind(context.0)
                .bind(counts.counter.as_str())
                .bind($crate::token_counts::pack(&merged))
                .execute(&mut *tx)
                .await
                .during($backend, OP)?;
                tx.commit().await.during($backend, OP)
            }

            async fn token_counts(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Vec<$crate::record::StoredTokenCounts>> {
                use $crate::error::DbResultExt as _;
                let rows: Vec<(String, Vec<u8>)> = sqlx::query_as(
                    "SELECT counter, counts FROM token_counts WHERE context_id = $1",
                )
                .bind(context.0)
                .fetch_all(self.reader())
                .await
                .during($backend, "reading token counts")?;
                rows.into_iter()
                    .map(|(counter, blob)| $crate::token_counts::unpacked(context, counter, &blob))
                    .collect()
            }

            async fn running_turns(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Vec<braid_protocol::api::TurnView>> {
                use $crate::error::DbResultExt as _;
                let rows: Vec<(String,)> = sqlx::query_as(
                    "SELECT record FROM turns WHERE context_id = $1 AND status = $2",
                )
                .bind(context.0)
                .bind(braid_protocol::api::TurnStatus::Running.as_str())
                .fetch_all(self.reader())
                .await
                .during($backend, "reading running turns")?;
                rows.into_iter()
                    .map(|(record,)| serde_json::from_str(&record))
                    .collect::<std::result::Result<Vec<braid_protocol::api::TurnView>, _>>()
                    .map_err(|e| $crate::error::StoreError::Corrupt {
                        context,
                        what: "turn",
                        reason: e.to_string(),
                    })
            }

            async fn get_turn(
                &self,
                context: braid_protocol::ContextId,
                turn: braid_protocol::ContextTurnId,
            ) -> $crate::error::Result<Option<braid_protocol::api::TurnView>> {
                use $crate::error::DbResultExt as _;
                let row: Option<(String,)> = sqlx::query_as(
                    "SELECT record FROM turns WHERE context_id = $1 AND turn_id = $2",
                )
                .bind(context.0)
                .bind(turn.0)
                .fetch_optional(self.reader())
                .await
                .during($backend, "reading a turn")?;
                row.map(|(record,)| serde_json::from_str(&record))
                    .transpose()
                    .map_err(|e| $crate::error::StoreError::Corrupt {
                        context,
                        what: "turn",
                        reason: e.to_string(),
                    })
            }

            async fn expire_idempotency_keys(
                &self,
                window: $crate::idempotency::IdempotencyWindow,
                keep: u64,
            ) -> $crate::error::Result<u64> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "expiring idempotency keys";
                let old = sqlx::query(concat!(
                    "DELETE FROM idempotency_keys WHERE created_ms < ", $now, " - $1"
                ))
                .bind($crate::sql::millis(window.answers_kept))
                .execute(self.writer())
                .await
                .during($backend, OP)?
                .rows_affected();
                let beyond = sqlx::query(
                    "DELETE FROM idempotency_keys WHERE created_ms <= \
                     (SELECT created_ms FROM idempotency_keys ORDER BY created_ms DESC LIMIT 1 OFFSET $1)",
                )
                .bind(i64::try_from(keep).unwrap_or(i64::MAX))
                .execute(self.writer())
                .await
                .during($backend, OP)?
                .rows_affected();
                Ok(old + beyond)
            }

            async fn get_context(
                &self,
                id: braid_protocol::ContextId,
            ) -> $crate::error::Result<Option<$crate::record::ContextRecord>> {
                use $crate::error::DbResultExt as _;
                let row = sqlx::query("SELECT * FROM contexts WHERE id = $1")
                    .bind(id.0)
                    .fetch_optional(self.reader())
                    .await
                    .during($backend, "loading a context")?;
                row.as_ref().map(Self::context_from_row).transpose()
            }

            async fn list_contexts(
                &self,
            ) -> $crate::error::Result<Vec<$crate::record::ContextRecord>> {
                use $crate::error::DbResultExt as _;
                let rows = sqlx::query("SELECT * FROM contexts ORDER BY updated_at DESC, id")
                    .fetch_all(self.reader())
                    .await
                    .during($backend, "listing contexts")?;
                rows.iter().map(Self::context_from_row).collect()
            }

            async fn list_context_ids(
                &self,
            ) -> $crate::error::Result<Vec<braid_protocol::ContextId>> {
                use $crate::error::DbResultExt as _;
                let ids: Vec<uuid::Uuid> =
                    sqlx::query_scalar("SELECT id FROM contexts ORDER BY updated_at DESC, id")
                        .fetch_all(self.reader())
                        .await
                        .during($backend, "listing contexts")?;
                Ok(ids.into_iter().map(braid_protocol::ContextId).collect())
            }

            async fn delete_context(
                &self,
                id: braid_protocol::ContextId,
            ) -> $crate::error::Result<bool> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "deleting a context";
                // Queued events of this context must not land after the delete.
                self.events.flush().await?;
                let mut tx = $crate::sql::begin(self.writer()).await.during($backend, OP)?;
                sqlx::query("DELETE FROM events WHERE context_id = $1")
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .during($backend, OP)?;
                let done = sqlx::query("DELETE FROM contexts WHERE id = $1")
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .during($backend, OP)?;
                tx.commit().await.during($backend, OP)?;
                self.events.forget(id);
                Ok(done.rows_affected() > 0)
            }

            async fn save_changes(
                &self,
                context: braid_protocol::ContextId,
                changes: &$crate::changes::ContextChanges,
            ) -> $crate::error::Result<()> {
                $crate::sql::validate_messages(changes)?;
                self.write_changes(context, changes).await
            }

            async fn list_branches(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Vec<$crate::record::BranchRecord>> {
                use $crate::error::DbResultExt as _;
                use sqlx::Row as _;
                const OP: &str = "listing branches";
                let mut conn = self.reader().acquire().await.during($backend, OP)?;
                let rows = sqlx::query(
                    "SELECT name, system_prompt, pipeline, parent, fork_point, created_at \
                     FROM branches WHERE context_id = $1 ORDER BY created_at, name",
                )
                .bind(context.0)
                .fetch_all(&mut *conn)
                .await
                .during($backend, OP)?;
                if rows.is_empty() {
                    Self::require_context(&mut *conn, context).await?;
                }
                let mut branches = Vec::with_capacity(rows.len());
                for row in &rows {
                    let read = || -> std::result::Result<_, sqlx::Error> {
                        let name: String = row.try_get(0)?;
                        let system_prompt: Option<String> = row.try_get(1)?;
                        let pipeline: Option<String> = row.try_get(2)?;
                        let parent: Option<String> = row.try_get(3)?;
                        let fork_point: Option<uuid::Uuid> = row.try_get(4)?;
                        let created_at: chrono::DateTime<chrono::Utc> = row.try_get(5)?;
                        Ok((name, system_prompt, pipeline, parent, fork_point, created_at))
                    };
                    let (name, system_prompt, pipeline, parent, fork_point, created_at) =
                        read().during($backend, OP)?;
                    branches.push($crate::record::BranchRecord {
                        name: braid_protocol::BranchName(name),
                        message_ids: Vec::new(),
                        system_prompt,
                        pipeline: $crate::row::read_pipeline(context, pipeline),
                        parent: parent.map(braid_protocol::BranchName),
                        fork_point: fork_point.map(braid_protocol::MessageId),
                        created_at,
                    });
                }
                let mut add = |branch: &str, ids: &mut dyn Iterator<Item = uuid::Uuid>| {
                    if let Some(record) = branches.iter_mut().find(|b| b.name.as_str() == branch) {
                        record.message_ids.extend(ids.map(braid_protocol::MessageId));
                    }
                };
                if $framed {
                    // A branch's order as a few rows of ids rather than a row each.
                    let order = sqlx::query(concat!(
                        "SELECT branch, group_concat(hex(message_id), '' ORDER BY position) ",
                        "FROM branch_messages WHERE context_id = $1 ",
                        "GROUP BY branch, position / 4096 ORDER BY branch, MIN(position)"
                    ))
                    .bind(context.0)
                    .fetch_all(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    for row in &order {
                        let branch: &str = row.try_get(0).during($backend, OP)?;
                        let text: &str = row.try_get(1).during($backend, OP)?;
                        let ids = $crate::frames::ids(text).map_err(|reason| {
                            $crate::error::StoreError::Corrupt {
                                context,
                                what: "branch order frames",
                                reason,
                            }
                        })?;
                        add(branch, &mut ids.into_iter());
                    }
                } else {
                    let order = sqlx::query(
                        "SELECT branch, message_id FROM branch_messages \
                         WHERE context_id = $1 ORDER BY branch, position",
                    )
                    .bind(context.0)
                    .fetch_all(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    for row in &order {
                        let branch: &str = row.try_get(0).during($backend, OP)?;
                        let id: uuid::Uuid = row.try_get(1).during($backend, OP)?;
                        add(branch, &mut std::iter::once(id));
                    }
                }
                Ok(branches)
            }

            async fn load_messages(
                &self,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
                range: $crate::record::MessageRange,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                self.load_range(context, branch, range, None).await
            }

            async fn load_messages_by_kind(
                &self,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
                kind: braid_protocol::KindName,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                self.load_range(context, branch, $crate::record::MessageRange::All, Some(kind))
                    .await
            }

            async fn count_messages(
                &self,
                context: braid_protocol::ContextId,
                branch: &braid_protocol::BranchName,
            ) -> $crate::error::Result<u64> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "counting messages";
                let mut conn = self.reader().acquire().await.during($backend, OP)?;
                let count: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM branch_messages WHERE context_id = $1 AND branch = $2",
                )
                .bind(context.0)
                .bind(branch.as_str())
                .fetch_one(&mut *conn)
                .await
                .during($backend, OP)?;
                if count == 0 {
                    Self::require_branch(&mut conn, context, branch).await?;
                }
                Ok(u64::try_from(count).unwrap_or(0))
            }

            async fn get_messages(
                &self,
                context: braid_protocol::ContextId,
                ids: &[braid_protocol::MessageId],
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "loading messages by id";
                let mut conn = self.reader().acquire().await.during($backend, OP)?;
                let mut messages = Vec::with_capacity(ids.len());
                for id in ids {
                    let row = sqlx::query(concat!(
                        "SELECT m.id, m.role, m.kind, m.status, m.payload, m.created_at, m.updated_at ",
                        "FROM messages m WHERE m.context_id = $1 AND m.id = $2"
                    ))
                    .bind(context.0)
                    .bind(id.0)
                    .fetch_optional(&mut *conn)
                    .await
                    .during($backend, OP)?;
                    if let Some(row) = row {
                        messages.push(Self::message_from_row(&row, context)?);
                    }
                }
                Ok(messages)
            }

            async fn all_messages(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Vec<braid_protocol::Message>> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "loading a context's messages";
                let mut conn = self.reader().acquire().await.during($backend, OP)?;
                let messages = if $framed {
                    // The pool comes as rows of frames, a chunk of ids at a time in the order
                    // of the table's key, so SQLite sorts nothing (sorting whole payloads by
                    // creation went through a temporary file); creation order is restored
                    // below on the decoded messages.
                    let mut decoding = $crate::frames::Decoding::new(context);
                    let mut last: Vec<u8> = Vec::new();
                    let decoded = loop {
                        let (text, end, count): (Option<String>, Option<Vec<u8>>, i64) =
                            sqlx::query_as(concat!(
                                "SELECT group_concat(", $crate::frames::message_frame!(),
                                ", ''), MAX(id), COUNT(*) FROM (",
                                "SELECT id, payload FROM messages WHERE context_id = $1 AND id > $2 ",
                                "ORDER BY id LIMIT CAST($3 AS BIGINT))"
                            ))
                            .bind(context.0)
                            .bind(&last)
                            .bind($crate::frames::CHUNK)
                            .fetch_one(&mut *conn)
                            .await
                            .during($backend, OP)?;
                        match end.filter(|_| count >= $crate::frames::CHUNK) {
                            Some(end) => {
                                decoding.begin(text.unwrap_or_default());
                                last = end;
                            }
                            None => break decoding.finish(text.as_deref().unwrap_or("")).await?,
                        }
                    };
                    let mut messages = Self::finish_frames(&mut conn, context, decoded).await?;
                    messages.sort_by(|a, b| (a.created_at, a.id).cmp(&(b.created_at, b.id)));
                    messages
                } else {
                    let sql = "SELECT id, payload FROM messages WHERE context_id = $1 ORDER BY created_at, id";
                    Self::read_messages(&mut conn, context, sqlx::query(sql).bind(context.0), OP).await?
                };
                if messages.is_empty() {
                    Self::require_context(&mut *conn, context).await?;
                }
                Ok(messages)
            }

            async fn queue_changes(
                &self,
                context: braid_protocol::ContextId,
                changes: &$crate::changes::ContextChanges,
            ) -> $crate::error::Result<$crate::group_commit::PendingSave> {
                $crate::sql::validate_messages(changes)?;
                // The event writer's task saves it, no later than any event appended from now on.
                self.changes.submit(context, changes.clone()).await
            }

            async fn queue_announced(
                &self,
                context: braid_protocol::ContextId,
                changes: &$crate::changes::ContextChanges,
                events: &[braid_protocol::ContextEvent],
                publisher: std::sync::Arc<dyn $crate::events::EventPublisher>,
            ) -> $crate::error::Result<(
                $crate::group_commit::PendingSave,
                Vec<braid_protocol::SequencedEvent>,
            )> {
                $crate::sql::validate_messages(changes)?;
                self.events
                    .announce(context, changes.clone(), events, publisher, self.leases.token(context))
                    .await
            }

            async fn append_event(
                &self,
                context: braid_protocol::ContextId,
                event: &braid_protocol::ContextEvent,
                publisher: std::sync::Arc<dyn $crate::events::EventPublisher>,
            ) -> $crate::error::Result<braid_protocol::SequencedEvent> {
                self.events
                    .append(context, event, publisher, self.leases.token(context))
                    .await
            }

            async fn last_event_sequence(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<u64> {
                use $crate::error::DbResultExt as _;
                let max: i64 = sqlx::query_scalar(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE context_id = $1",
                )
                .bind(context.0)
                .fetch_one(self.reader())
                .await
                .during($backend, "reading the last event sequence")?;
                Ok(u64::try_from(max).unwrap_or(0))
            }

            async fn last_context_update(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Option<braid_protocol::SequencedEvent>> {
                use $crate::error::DbResultExt as _;
                const OP: &str = "reading the last state event";
                // An event's JSON starts with its type (serde writes an internally tagged
                // enum's tag first): the log is read backwards on its key, up to the first.
                let row: Option<(i64, String)> = sqlx::query_as(
                    "SELECT seq, event FROM events WHERE context_id = $1 \
                     AND event LIKE '{\"type\":\"context_update\"%' ORDER BY seq DESC LIMIT 1",
                )
                .bind(context.0)
                .fetch_optional(self.reader())
                .await
                .during($backend, OP)?;
                let Some((sequence, json)) = row else {
                    return Ok(None);
                };
                match serde_json::from_str(&json) {
                    Ok(event) => Ok(Some(braid_protocol::SequencedEvent {
                        sequence: u64::try_from(sequence).unwrap_or(0),
                        event,
                    })),
                    Err(error) => {
                        tracing::warn!(context = %context, sequence, error = %error, "last state event unreadable");
                        Ok(None)
                    }
                }
            }

            async fn message_deltas(
                &self,
                context: braid_protocol::ContextId,
                message: braid_protocol::MessageId,
            ) -> $crate::error::Result<Vec<braid_protocol::ContentDelta>> {
                use $crate::error::DbResultExt as _;
                use sqlx::Row as _;
                const OP: &str = "reading a message's deltas";
                // The id narrows the rows in the database; the parsed event decides.
                let rows = sqlx::query(
                    "SELECT seq, event FROM events WHERE context_id = $1 AND event LIKE $2 ORDER BY seq",
                )
                .bind(context.0)
                .bind(format!("%{message}%"))
                .fetch_all(self.reader())
                .await
                .during($backend, OP)?;
                let mut deltas = Vec::new();
                for row in &rows {
                    let json: String = row.try_get(1).during($backend, OP)?;
                    match serde_json::from_str::<braid_protocol::ContextEvent>(&json) {
                        Ok(braid_protocol::ContextEvent::ContentDelta(d)) if d.message_id == message => {
                            deltas.push(d);
                        }
                        Ok(_) => {}
                        Err(error) => {
                            let sequence: i64 = row.try_get(0).during($backend, OP)?;
                            tracing::warn!(context = %context, sequence, error = %error, "stored event unreadable; skipped");
                        }
                    }
                }
                Ok(deltas)
            }

            async fn flush_events(&self) -> $crate::error::Result<()> {
                self.events.flush().await
            }

            async fn events_after(
                &self,
                context: braid_protocol::ContextId,
                after: u64,
                limit: u32,
            ) -> $crate::error::Result<Vec<braid_protocol::SequencedEvent>> {
                use $crate::error::DbResultExt as _;
                use sqlx::Row as _;
                const OP: &str = "reading events";
                let rows = sqlx::query(
                    "SELECT seq, event FROM events WHERE context_id = $1 AND seq > $2 ORDER BY seq LIMIT CAST($3 AS BIGINT)",
                )
                .bind(context.0)
                .bind(i64::try_from(after).unwrap_or(i64::MAX))
                .bind(i64::from(limit))
                .fetch_all(self.reader())
                .await
                .during($backend, OP)?;
                let mut events = Vec::with_capacity(rows.len());
                for row in &rows {
                    let sequence: i64 = row.try_get(0).during($backend, OP)?;
                    let json: String = row.try_get(1).during($backend, OP)?;
                    match serde_json::from_str(&json) {
                        Ok(event) => events.push(braid_protocol::SequencedEvent {
                            sequence: u64::try_from(sequence).unwrap_or(0),
                            event,
                        }),
                        Err(error) => tracing::warn!(
                            context = %context,
                            sequence,
                            error = %error,
                            "stored event unreadable; skipped in replay"
                        ),
                    }
                }
                Ok(events)
            }

            async fn try_lock_context(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Option<$crate::lock::ContextLock>> {
                self.take_lease(context).await
            }

            async fn lease(
                &self,
                context: braid_protocol::ContextId,
            ) -> $crate::error::Result<Option<$crate::lock::Lease>> {
                use $crate::error::DbResultExt as _;
                use sqlx::Row as _;
                const OP: &str = "reading a context's lease";
                let row = sqlx::query(concat!(
                    "SELECT owner, address, token, released, expires_ms - ", $now,
                    " FROM leases WHERE context_id = $1"
                ))
                .bind(context.0)
                .fetch_optional(self.reader())
                .await
                .during($backend, OP)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let read = || -> std::result::Result<_, sqlx::Error> {
                    let owner: String = row.try_get(0)?;
                    let address: Option<String> = row.try_get(1)?;
                    let token: i64 = row.try_get(2)?;
                    let released: bool = row.try_get(3)?;
                    let remaining: i64 = row.try_get(4)?;
                    Ok((owner, address, token, released, remaining))
                };
                let (owner, address, token, released, remaining) = read().during($backend, OP)?;
                let token = u64::try_from(token).unwrap_or(0);
                Ok(Some($crate::lock::Lease {
                    mine: owner == self.leases.identity.id && self.leases.token(context) == token,
                    live: !released && remaining >= 0,
                    owner,
                    address,
                    token,
                }))
            }

            async fn orphaned_contexts(
                &self,
            ) -> $crate::error::Result<Vec<braid_protocol::ContextId>> {
                use $crate::error::DbResultExt as _;
                let ids: Vec<uuid::Uuid> = sqlx::query_scalar(concat!(
                    "SELECT context_id FROM leases WHERE NOT released AND owner <> $1 AND expires_ms < ",
                    $now
                ))
                .bind(&self.leases.identity.id)
                .fetch_all(self.reader())
                .await
                .during($backend, "looking for contexts whose owner is gone")?;
                Ok(ids.into_iter().map(braid_protocol::ContextId).collect())
            }

            fn replica(&self) -> &$crate::lock::ReplicaIdentity {
                &self.leases.identity
            }

            fn event_notices(&self) -> tokio::sync::broadcast::Receiver<$crate::events::EventNotice> {
                self.notices.subscribe()
            }

            async fn search_messages(
                &self,
                terms: &$crate::search::SearchTerms,
                limit: u32,
            ) -> $crate::error::Result<Vec<$crate::search::SearchHit>> {
                use $crate::error::{DbResultExt as _, StoreError};
                use sqlx::Row as _;
                const OP: &str = "searching messages";
                let limit = limit.min($crate::search::MAX_SEARCH_HITS);
                let rows = sqlx::query(Self::SEARCH_SQL)
                    .bind(Self::search_query(terms))
                    .bind(i64::from(limit))
                    .fetch_all(self.reader())
                    .await
                    .during($backend, OP)?;
                rows.iter()
                    .map(|row| {
                        let context = braid_protocol::ContextId(row.try_get(0).during($backend, OP)?);
                        let role: String = row.try_get(3).during($backend, OP)?;
                        let role = role.parse::<braid_protocol::Role>().map_err(|e| {
                            StoreError::Corrupt {
                                context,
                                what: "message role",
                                reason: e.to_string(),
                            }
                        })?;
                        let branch: Option<String> = row.try_get(6).during($backend, OP)?;
                        Ok($crate::search::SearchHit {
                            context,
                            title: row.try_get(1).during($backend, OP)?,
                            message: braid_protocol::MessageId(row.try_get(2).during($backend, OP)?),
                            role,
                            created_at: row.try_get(4).during($backend, OP)?,
                            snippet: row.try_get(5).during($backend, OP)?,
                            branch: branch.map(braid_protocol::BranchName),
                        })
                    })
                    .collect()
            }

            async fn close(&self) -> $crate::error::Result<()> {
                let flushed = self.events.flush().await;
                self.heartbeat.abort();
                let released = sqlx::query(
                    "UPDATE leases SET released = TRUE WHERE owner = $1 AND NOT released",
                )
                .bind(&self.leases.identity.id)
                .execute(self.writer())
                .await;
                if let Err(error) = released {
                    tracing::warn!(%error, "leases not released at close; they expire on their own");
                }
                self.leases.clear();
                self.writer().close().await;
                self.reader().close().await;
                self.stop_background_work().await;
                flushed
            }

            $($($extra)*)?
        }

    };
}

pub(crate) use sql_store;

/// Checks every message a change set writes with [`braid_protocol::Message::validate_for_storage`].
pub(crate) fn validate_messages(
    changes: &crate::changes::ContextChanges,
) -> crate::error::Result<()> {
    for message in changes.written_messages() {
        message.validate_for_storage().map_err(|errors| {
            crate::error::StoreError::InvalidMessage {
                message: message.id,
                errors,
            }
        })?;
    }
    Ok(())
}

/// The event sink of a SQL store: its own handle on the write pool, and the leases it writes
/// under.
pub(crate) struct SqlEvents<DB: sqlx::Database>(
    pub sqlx::Pool<DB>,
    pub std::sync::Arc<crate::lock::Leases>,
);

/// Whether a write to `context` may go on, given its lease (`None` when it has none): refused
/// as [`CurrentLease::refuses`] says, under the token this store holds.
pub(crate) fn fence_verdict(
    leases: &crate::lock::Leases,
    context: braid_protocol::ContextId,
    lease: Option<&CurrentLease>,
) -> crate::error::Result<()> {
    let Some(lease) = lease else {
        return Ok(());
    };
    let held = leases.token(context);
    if lease.refuses(held) {
        leases.fenced(context, held);
        return Err(crate::error::StoreError::Fenced {
            context,
            held,
            current: lease.token,
        });
    }
    Ok(())
}

/// A lease as the event writer checks it: its context, token, and whether another replica
/// holds it in force.
pub(crate) struct CurrentLease {
    pub context: braid_protocol::ContextId,
    pub token: u64,
    pub foreign: bool,
}

impl CurrentLease {
    /// Reads a row of `context_id, token, owner, released, remaining ms`.
    pub fn new(
        leases: &crate::lock::Leases,
        (context, token, owner, released, remaining): (uuid::Uuid, i64, String, bool, i64),
    ) -> Self {
        Self {
            context: braid_protocol::ContextId(context),
            token: u64::try_from(token).unwrap_or(0),
            foreign: owner != leases.identity.id && !released && remaining >= 0,
        }
    }

    /// Whether a write under `held` (the writer's token; 0 when it holds no lease) is refused:
    /// from a replaced owner (its token is no longer the lease's), or without a lease while
    /// another replica's is in force.
    pub fn refuses(&self, held: u64) -> bool {
        if held == 0 {
            self.foreign
        } else {
            self.token != held
        }
    }
}

/// The contexts of `batch` whose events must not be written: events of a replaced owner (its
/// token is no longer the lease's), or events written without a lease while another replica's
/// lease is in force.
pub(crate) fn fenced_contexts(
    batch: &[crate::events::PendingEvent],
    current: &[CurrentLease],
    leases: &crate::lock::Leases,
) -> Vec<braid_protocol::ContextId> {
    let by_context: std::collections::HashMap<braid_protocol::ContextId, &CurrentLease> =
        current.iter().map(|l| (l.context, l)).collect();
    let mut fenced = Vec::new();
    for e in batch {
        let refused = by_context
            .get(&e.context)
            .is_some_and(|l| l.refuses(e.token));
        if refused && !fenced.contains(&e.context) {
            leases.fenced(e.context, e.token);
            fenced.push(e.context);
        }
    }
    fenced
}

/// Starts a transaction on `pool` in a task of its own, so a caller that is dropped while the
/// `BEGIN` is in flight (a client that disconnects, a timeout, an actor stopped on a lost
/// lease) cannot leave it half-started. sqlx 0.9 counts a PostgreSQL transaction only once the
/// server has answered `BEGIN`; a future dropped before that returns the connection to the pool
/// inside a transaction nobody will end, and every later borrower's statements then run in it
/// and keep their row locks for ever (sqlx issue #4393). Measured: under `braid-load` with three
/// replicas, such connections sat `idle in transaction` holding lease rows, and every takeover
/// and event batch of those contexts waited on them until the run timed out. In its own task
/// the `BEGIN` always completes; a transaction nobody collects is then dropped and rolled back
/// the ordinary way.
pub(crate) async fn begin<DB: sqlx::Database>(
    pool: &sqlx::Pool<DB>,
) -> std::result::Result<sqlx::Transaction<'static, DB>, sqlx::Error> {
    let pool = pool.clone();
    match tokio::spawn(async move { pool.begin().await }).await {
        Ok(begun) => begun,
        Err(_) => Err(sqlx::Error::WorkerCrashed),
    }
}
