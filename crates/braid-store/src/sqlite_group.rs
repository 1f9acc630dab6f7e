//! A group of change sets written with one statement per table (issue 19). Every statement on
//! SQLite is a round trip to sqlx's connection thread, and a change set took four of them (its
//! context row, its messages, its branch's end, its positions): with a thousand streams, a group
//! of 250 sets spent most of its 80 ms handing statements between threads. Sets that only touch
//! their context row, messages and branch ends, one set per context, are written together
//! here; any other set is applied on its own in the same transaction. Any error rolls the whole
//! group back, and the group writer then saves each set alone, which names the failing one.

use std::collections::HashMap;

use braid_protocol::{BranchName, ContextId, Message};
use sqlx::{QueryBuilder, Sqlite, SqliteConnection};

use crate::changes::ContextChanges;
use crate::error::{Backend, DbResultExt as _, Result, StoreError};
use crate::record::StoredModelRequest;

/// Rows per statement: eight parameters a row stays well under SQLite's 32,766.
const ROWS_PER_STATEMENT: usize = 400;

const OP: &str = "saving a group of changes";

/// Whether a set can be written with the others of its group: it creates, removes or reorders
/// no branch and does not switch the active one (those checks need the rows as the set's own
/// statements leave them).
pub(crate) fn batchable(changes: &ContextChanges) -> bool {
    changes.active_branch.is_none()
        && changes.new_branches.is_empty()
        && changes.branch_settings.is_empty()
        && changes.replacements.is_empty()
        && changes.deleted_branches.is_empty()
}

/// Writes `sets` (of distinct contexts, each [`batchable`]) in the open transaction: the
/// context rows, then new messages, changed messages, branch ends, model request records and
/// turn records, one statement per table (per [`ROWS_PER_STATEMENT`] rows).
pub(crate) async fn write(
    conn: &mut SqliteConnection,
    sets: &[(ContextId, &ContextChanges)],
) -> Result<()> {
    let now = chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 6);
    update_contexts(conn, sets, now).await?;
    let new: Vec<(ContextId, &Message)> = sets
        .iter()
        .flat_map(|(c, ch)| ch.new_messages.iter().map(move |m| (*c, m)))
        .collect();
    insert_messages(conn, &new).await?;
    let changed: Vec<(ContextId, &Message)> = sets
        .iter()
        .flat_map(|(c, ch)| ch.updated_messages.iter().map(move |m| (*c, m)))
        .collect();
    update_messages(conn, &changed).await?;
    index_texts(conn, &new, &changed).await?;
    append(conn, sets).await?;
    insert_model_requests(conn, sets).await?;
    save_turns(conn, sets).await
}

/// The records of requests sent to the model.
async fn insert_model_requests(
    conn: &mut SqliteConnection,
    sets: &[(ContextId, &ContextChanges)],
) -> Result<()> {
    let requests: Vec<&StoredModelRequest> =
        sets.iter().flat_map(|(_, ch)| &ch.model_requests).collect();
    for chunk in requests.chunks(ROWS_PER_STATEMENT) {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO model_requests (context_id, id, branch, created_ms, record) ",
        );
        insert.push_values(chunk, |mut row, r| {
            row.push_bind(r.context.0)
                .push_bind(r.id)
                .push_bind(r.branch.as_str())
                .push_bind(r.created_ms)
                .push_bind(r.record.as_str());
        });
        execute(conn, insert).await?;
    }
    Ok(())
}

/// Turn records, each replacing an earlier record of its turn.
async fn save_turns(
    conn: &mut SqliteConnection,
    sets: &[(ContextId, &ContextChanges)],
) -> Result<()> {
    let mut rows = Vec::new();
    for (context, changes) in sets {
        for turn in &changes.turns {
            let record = serde_json::to_string(turn).map_err(|e| StoreError::Corrupt {
                context: *context,
                what: "turn",
                reason: e.to_string(),
            })?;
            rows.push((turn.context_id, turn.turn_id, record, turn.status.as_str()));
        }
    }
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let mut upsert =
            QueryBuilder::<Sqlite>::new("INSERT INTO turns (context_id, turn_id, record, status) ");
        upsert.push_values(chunk, |mut row, (context, turn, record, status)| {
            row.push_bind(context.0)
                .push_bind(turn.0)
                .push_bind(record.as_str())
                .push_bind(*status);
        });
        // The status column and the record are written by one statement: never out of step.
        upsert.push(
            " ON CONFLICT (context_id, turn_id) DO UPDATE \
             SET record = excluded.record, status = excluded.status",
        );
        execute(conn, upsert).await?;
    }
    Ok(())
}

/// The context rows: title, config and state where given, and `updated_at`.
async fn update_contexts(
    conn: &mut SqliteConnection,
    sets: &[(ContextId, &ContextChanges)],
    now: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    let mut rows = Vec::with_capacity(sets.len());
    for (context, changes) in sets.iter().filter(|(_, c)| !c.records_only()) {
        let json = |what: &'static str, value: Option<std::result::Result<String, _>>| {
            value
                .transpose()
                .map_err(|e: serde_json::Error| StoreError::Corrupt {
                    context: *context,
                    what,
                    reason: e.to_string(),
                })
        };
        let config = json("config", changes.config.as_ref().map(serde_json::to_string))?;
        let state = json("state", changes.state.as_ref().map(serde_json::to_string))?;
        rows.push((*context, changes.title.as_deref(), config, state));
    }
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let mut update = QueryBuilder::<Sqlite>::new(
            "UPDATE contexts SET title = COALESCE(v.column2, contexts.title), \
             config = COALESCE(v.column3, contexts.config), \
             state = COALESCE(v.column4, contexts.state), updated_at = v.column5 FROM (",
        );
        update.push_values(chunk, |mut row, (context, title, config, state)| {
            row.push_bind(context.0)
                .push_bind(*title)
                .push_bind(config.as_deref())
                .push_bind(state.as_deref())
                .push_bind(now);
        });
        update.push(") AS v WHERE contexts.id = v.column1");
        if execute(conn, update).await? != chunk.len() as u64 {
            // Which one: the sets are saved one by one after this error.
            return Err(StoreError::ContextNotFound(chunk[0].0));
        }
    }
    Ok(())
}

/// New messages, in the pool.
async fn insert_messages(conn: &mut SqliteConnection, new: &[(ContextId, &Message)]) -> Result<()> {
    for chunk in new.chunks(ROWS_PER_STATEMENT) {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO messages (context_id, id, role, kind, status, payload, created_at, updated_at) ",
        );
        insert.push_values(chunk, |mut row, (context, m)| {
            row.push_bind(context.0)
                .push_bind(m.id.0)
                .push_bind(m.role.as_str())
                .push_bind(m.kind.name().as_str().to_owned())
                .push_bind(m.status.as_str())
                .push_bind(m.to_json())
                .push_bind(m.created_at)
                .push_bind(m.updated_at);
        });
        execute(conn, insert).await?;
    }
    Ok(())
}

/// Changed messages, replaced whole. A message changed twice in one group is not batched:
/// which row of a multi-row update wins is not defined.
async fn update_messages(
    conn: &mut SqliteConnection,
    changed: &[(ContextId, &Message)],
) -> Result<()> {
    for chunk in changed.chunks(ROWS_PER_STATEMENT) {
        let mut update = QueryBuilder::<Sqlite>::new(
            "UPDATE messages SET role = v.column3, kind = v.column4, status = v.column5, \
             payload = v.column6, updated_at = v.column7 FROM (",
        );
        update.push_values(chunk, |mut row, (context, m)| {
            row.push_bind(context.0)
                .push_bind(m.id.0)
                .push_bind(m.role.as_str())
                .push_bind(m.kind.name().as_str().to_owned())
                .push_bind(m.status.as_str())
                .push_bind(m.to_json())
                .push_bind(m.updated_at);
        });
        update.push(") AS v WHERE messages.context_id = v.column1 AND messages.id = v.column2");
        if execute(conn, update).await? != chunk.len() as u64 {
            let (context, m) = chunk[0];
            return Err(StoreError::MessageNotFound {
                context,
                message: m.id,
            });
        }
    }
    Ok(())
}

/// The search index's rows of the new and changed messages (see
/// [`searchable_text`](crate::search::searchable_text)): written or replaced for those with
/// text, removed for changed ones without.
async fn index_texts(
    conn: &mut SqliteConnection,
    new: &[(ContextId, &Message)],
    changed: &[(ContextId, &Message)],
) -> Result<()> {
    let mut texts = Vec::new();
    // New messages without text have no row to remove.
    let mut textless = Vec::new();
    for (context, m) in new {
        if let Some(body) = crate::search::searchable_text(m) {
            texts.push((*context, m.id, body));
        }
    }
    for (context, m) in changed {
        match crate::search::searchable_text(m) {
            Some(body) => texts.push((*context, m.id, body)),
            None => textless.push((*context, m.id)),
        }
    }
    for chunk in texts.chunks(ROWS_PER_STATEMENT) {
        let mut upsert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO message_texts (context_id, message_id, body) ",
        );
        upsert.push_values(chunk, |mut row, (context, id, body)| {
            row.push_bind(context.0)
                .push_bind(id.0)
                .push_bind(body.as_str());
        });
        upsert.push(
            " ON CONFLICT (context_id, message_id) DO UPDATE SET body = excluded.body \
             WHERE message_texts.body <> excluded.body",
        );
        execute(conn, upsert).await?;
    }
    for chunk in textless.chunks(ROWS_PER_STATEMENT) {
        let mut delete = QueryBuilder::<Sqlite>::new(
            "DELETE FROM message_texts WHERE (context_id, message_id) IN (",
        );
        delete.push_values(chunk, |mut row, (context, id)| {
            row.push_bind(context.0).push_bind(id.0);
        });
        delete.push(")");
        execute(conn, delete).await?;
    }
    Ok(())
}

/// Ids added at the ends of branches: where each branch ends is read for all of them at once,
/// then every position is written.
async fn append(conn: &mut SqliteConnection, sets: &[(ContextId, &ContextChanges)]) -> Result<()> {
    let mut ends: HashMap<(ContextId, BranchName), Option<i64>> = HashMap::new();
    for (context, changes) in sets {
        for a in &changes.appends {
            ends.insert((*context, a.branch.clone()), None);
        }
    }
    if ends.is_empty() {
        return Ok(());
    }
    let pairs: Vec<(ContextId, BranchName)> = ends.keys().cloned().collect();
    for chunk in pairs.chunks(ROWS_PER_STATEMENT) {
        let mut query = QueryBuilder::<Sqlite>::new(
            "SELECT b.context_id, b.name, COALESCE((SELECT MAX(position) FROM branch_messages m \
             WHERE m.context_id = b.context_id AND m.branch = b.name), -1) \
             FROM branches b WHERE (b.context_id, b.name) IN (",
        );
        query.push_values(chunk, |mut row, (context, branch)| {
            row.push_bind(context.0).push_bind(branch.as_str());
        });
        query.push(")");
        let found: Vec<(uuid::Uuid, String, i64)> = query
            .build_query_as()
            .fetch_all(&mut *conn)
            .await
            .during(Backend::Sqlite, OP)?;
        for (context, branch, last) in found {
            ends.insert((ContextId(context), BranchName(branch)), Some(last));
        }
    }
    let mut positions = Vec::new();
    for (context, changes) in sets {
        for a in &changes.appends {
            let key = (*context, a.branch.clone());
            let Some(Some(last)) = ends.get(&key).copied() else {
                return Err(StoreError::BranchNotFound {
                    context: *context,
                    branch: a.branch.clone(),
                });
            };
            for (offset, id) in a.message_ids.iter().enumerate() {
                positions.push((*context, a.branch.as_str(), last + 1 + offset as i64, *id));
            }
            ends.insert(key, Some(last + a.message_ids.len() as i64));
        }
    }
    for chunk in positions.chunks(ROWS_PER_STATEMENT) {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO branch_messages (context_id, branch, position, message_id) ",
        );
        insert.push_values(chunk, |mut row, (context, branch, position, id)| {
            row.push_bind(context.0)
                .push_bind(*branch)
                .push_bind(*position)
                .push_bind(id.0);
        });
        execute(conn, insert).await?;
    }
    Ok(())
}

/// Runs a built statement; answers how many rows it changed.
async fn execute(conn: &mut SqliteConnection, mut statement: QueryBuilder<Sqlite>) -> Result<u64> {
    let done = statement
        .build()
        .execute(&mut *conn)
        .await
        .during(Backend::Sqlite, OP)?;
    Ok(done.rows_affected())
}
