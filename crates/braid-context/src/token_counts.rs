//! Token counts kept in the store (issue 49). A context's first read after a restart plans its
//! whole history for the token budget, and tokenizing 10,000 messages was most of that first
//! `GET` (some 200 ms). A load takes the counts kept for the context back into the optimizer's
//! cache; when the first plan after it finds many messages without a count kept by its counter,
//! its counts are kept, in the background, for the next load.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use braid_optimizer::TokenCounter;
use braid_optimizer::tokens::{KnownCount, remember, version_of};
use braid_protocol::{ContextId, Message, MessageId};
use braid_store::{Store, StoreError, StoredTokenCount, StoredTokenCounts};

/// How many messages without a kept count make keeping the counts worth a write: fewer are
/// counted again in a few milliseconds.
const KEEP_FROM: usize = 64;

/// The message versions a load found counted, by counter: what tells the first plan whether
/// its counts are worth keeping.
#[derive(Debug, Default)]
pub(crate) struct KeptCounts(HashMap<String, HashSet<(MessageId, i64)>>);

impl KeptCounts {
    /// Whether enough of `history` has no count kept by `counter` that keeping its counts is
    /// worth a write (a long history never kept, or kept under another model's counter).
    pub(crate) fn worth_keeping(&self, counter: &str, history: &[Message]) -> bool {
        let kept = self.0.get(counter);
        let uncounted = history
            .iter()
            .filter(|m| {
                m.kind_name().is_sent_to_model()
                    && !kept.is_some_and(|versions| versions.contains(&(m.id, version_of(m))))
            })
            .count();
        uncounted >= KEEP_FROM
    }
}

/// Takes the counts kept for `context` back into the optimizer's cache. Answers the versions
/// they count, or `None` when the store keeps no counts.
pub(crate) async fn take_back(store: &dyn Store, context: ContextId) -> Option<KeptCounts> {
    let kept = match store.token_counts(context).await {
        Ok(kept) => kept,
        Err(StoreError::Unsupported(_)) => return None,
        Err(error) => {
            tracing::warn!(context = %context, %error, "kept token counts not read; the history is counted afresh");
            return Some(KeptCounts::default());
        }
    };
    let mut versions = KeptCounts::default();
    let mut taken = 0;
    for kept in kept {
        versions.0.insert(
            kept.counter.clone(),
            kept.counts.iter().map(|c| (c.message, c.version)).collect(),
        );
        taken += remember(
            &kept.counter,
            kept.counts.into_iter().map(|c| KnownCount {
                message: c.message,
                version: c.version,
                tokens: c.tokens,
            }),
        );
    }
    tracing::debug!(context = %context, taken, "kept token counts taken back");
    Some(versions)
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
    let counts = StoredTokenCounts {
        counter: counter.name(),
        counts: counter
            .known_counts(history)
            .into_iter()
            .map(|c| StoredTokenCount {
                message: c.message,
                version: c.version,
                tokens: c.tokens,
            })
            .collect(),
    };
    if counts.counts.is_empty() {
        return;
    }
    tokio::spawn(async move {
        match store.save_token_counts(context, &counts).await {
            Ok(()) => {
                tracing::debug!(context = %context, counts = counts.counts.len(), "token counts kept");
            }
            Err(error) => {
                tracing::warn!(context = %context, %error, "token counts not kept; the next load counts them again");
            }
        }
    });
}
