//! Token counts kept in the store (issue 49). A context's first read after a restart plans its
//! whole history for the token budget, and tokenizing 10,000 messages was most of that first
//! `GET` (some 200 ms). A load takes the counts kept for the context back into the optimizer's
//! cache; when it found many messages without one, the first plan's counts are kept, in the
//! background, for the next load.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use braid_optimizer::TokenCounter;
use braid_optimizer::tokens::{KnownCount, remember};
use braid_protocol::{ContextId, Message, MessageId};
use braid_store::{Store, StoreError, StoredTokenCount};

/// How many messages without a kept count make keeping the counts worth a write: fewer are
/// counted again in a few milliseconds.
const KEEP_FROM: usize = 64;

/// A message version, as counts are kept by.
fn version(message: &Message) -> (MessageId, i64) {
    (
        message.id,
        message.updated_at.timestamp_nanos_opt().unwrap_or_default(),
    )
}

/// Takes the counts kept for `context` back into the optimizer's cache. Answers whether enough
/// of `pool`'s messages have none kept that the next plan's counts are worth keeping.
pub(crate) async fn take_back<'m>(
    store: &dyn Store,
    context: ContextId,
    pool: impl Iterator<Item = &'m Message>,
) -> bool {
    let kept = match store.token_counts(context).await {
        Ok(kept) => kept,
        Err(StoreError::Unsupported(_)) => return false,
        Err(error) => {
            tracing::warn!(context = %context, %error, "kept token counts not read; the history is counted afresh");
            return true;
        }
    };
    let versions: HashSet<(MessageId, i64)> = kept.iter().map(|c| (c.message, c.version)).collect();
    let mut by_counter: HashMap<String, Vec<KnownCount>> = HashMap::new();
    for count in kept {
        by_counter
            .entry(count.counter)
            .or_default()
            .push(KnownCount {
                message: count.message,
                version: count.version,
                tokens: count.tokens,
            });
    }
    let taken: usize = by_counter
        .into_iter()
        .map(|(counter, counts)| remember(&counter, counts))
        .sum();
    let uncounted = pool
        .filter(|m| m.kind_name().is_sent_to_model() && !versions.contains(&version(m)))
        .count();
    tracing::debug!(context = %context, taken, uncounted, "kept token counts taken back");
    uncounted >= KEEP_FROM
}

/// Keeps the counts `counter` holds of `history` (the messages a plan just counted) on a task
/// of its own: the read that made them does not wait for the write, and a write that fails
/// only leaves them to be counted again on the next load.
pub(crate) fn keep(
    store: Arc<dyn Store>,
    context: ContextId,
    counter: &TokenCounter,
    history: &[Message],
) {
    let name = counter.name();
    let counts: Vec<StoredTokenCount> = counter
        .known_counts(history)
        .into_iter()
        .map(|c| StoredTokenCount {
            message: c.message,
            counter: name.clone(),
            version: c.version,
            tokens: c.tokens,
        })
        .collect();
    if counts.is_empty() {
        return;
    }
    tokio::spawn(async move {
        match store.save_token_counts(context, &counts).await {
            Ok(()) => {
                tracing::debug!(context = %context, counts = counts.len(), "token counts kept");
            }
            Err(error) => {
                tracing::warn!(context = %context, %error, "token counts not kept; the next load counts them again");
            }
        }
    });
}
