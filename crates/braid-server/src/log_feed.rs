//! One reader of the shared event log per replica (PostgreSQL), for the event streams of
//! contexts that another replica runs.
//!
//! Each such stream used to read the log itself: it woke on every event notice of every
//! context (a commit of any replica), and for a notice of its own context ran two queries (the
//! page, then an empty page). With 1,000 streams on three replicas that was about 330 woken
//! tasks and two queries per stream for every committed batch; the 10-connection pools queued
//! for seconds and the run did not finish. Here one task per replica takes the notices, keeps
//! for each followed context how far it has read, and reads the new events of every context
//! that has some with one query, then hands them to the context's streams through a broadcast
//! channel. A stream still replays from the log itself when it starts, when it falls behind the
//! channel, and when it sees a gap, so ids, replay and `Last-Event-ID` behave as before.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use braid_protocol::{ContextId, SequencedEvent};
use braid_store::{EventNotice, Store};
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

/// Events a context's channel holds for a stream that has not taken them yet; a stream further
/// behind replays from the log.
const FEED_CAPACITY: usize = 1024;
/// The most events read per context in one query (more are read in the next round).
const PAGE_PER_CONTEXT: u32 = 500;
/// The most contexts one query reads.
const CONTEXTS_PER_READ: usize = 500;
/// How often every followed context is read even without a notice (a notice is lost while the
/// listening connection is re-established).
pub const LOG_POLL: Duration = Duration::from_secs(1);
/// How long the reader waits after a failed read before it tries again.
const RETRY_AFTER: Duration = Duration::from_millis(200);

/// A followed context.
struct Feed {
    sender: broadcast::Sender<SequencedEvent>,
    /// The last sequence handed to the channel (or replayed by a stream); `None` until a stream
    /// has read the log up to where it goes live.
    read_to: Option<u64>,
    /// The highest sequence a notice announced.
    announced: u64,
    /// Has events beyond `read_to` (announced or possibly missed).
    due: bool,
}

/// The contexts this replica follows in the shared log, and the task that reads them.
pub struct LogFeeds {
    store: Arc<dyn Store>,
    feeds: Mutex<HashMap<ContextId, Feed>>,
    wake: Notify,
    started: std::sync::Once,
    shutdown: CancellationToken,
}

impl LogFeeds {
    /// The feeds of one replica; the reading task starts with the first stream.
    pub fn new(store: Arc<dyn Store>, shutdown: CancellationToken) -> Arc<Self> {
        Arc::new(Self {
            store,
            feeds: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            started: std::sync::Once::new(),
            shutdown,
        })
    }

    fn feeds(&self) -> std::sync::MutexGuard<'_, HashMap<ContextId, Feed>> {
        // The map holds plain values: a panic elsewhere cannot leave it half-changed.
        self.feeds.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The context's committed events from now on (call before reading the log, so nothing
    /// committed in between is missed).
    pub fn subscribe(self: &Arc<Self>, context: ContextId) -> broadcast::Receiver<SequencedEvent> {
        self.started.call_once(|| {
            let notices = self.store.event_notices();
            tokio::spawn(Arc::clone(self).run(notices));
        });
        let mut feeds = self.feeds();
        let feed = feeds.entry(context).or_insert_with(|| Feed {
            sender: broadcast::channel(FEED_CAPACITY).0,
            read_to: None,
            announced: 0,
            due: false,
        });
        feed.sender.subscribe()
    }

    /// A stream has read the context's log up to `sequence` itself: the reader goes on from
    /// there (or from further on, when another stream got further).
    pub fn caught_up(&self, context: ContextId, sequence: u64) {
        let mut feeds = self.feeds();
        let Some(feed) = feeds.get_mut(&context) else {
            return;
        };
        let read_to = feed.read_to.map_or(sequence, |r| r.max(sequence));
        feed.read_to = Some(read_to);
        if feed.announced > read_to {
            feed.due = true;
            drop(feeds);
            self.wake.notify_one();
        }
    }

    async fn run(self: Arc<Self>, mut notices: broadcast::Receiver<EventNotice>) {
        let mut poll = tokio::time::interval_at(tokio::time::Instant::now() + LOG_POLL, LOG_POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                () = self.shutdown.cancelled() => return,
                notice = notices.recv() => match notice {
                    Ok(notice) => {
                        self.announce(notice);
                        // Take every notice that is already there before reading: one read
                        // serves them all.
                        loop {
                            match notices.try_recv() {
                                Ok(notice) => self.announce(notice),
                                Err(broadcast::error::TryRecvError::Lagged(_)) => self.all_due(),
                                Err(_) => break,
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "event notices missed; every followed context is read");
                        self.all_due();
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = poll.tick() => self.all_due(),
                () = self.wake.notified() => {}
            }
            if !self.read_due().await {
                tokio::time::sleep(RETRY_AFTER).await;
            }
        }
    }

    fn announce(&self, notice: EventNotice) {
        let mut feeds = self.feeds();
        if let Some(feed) = feeds.get_mut(&notice.context) {
            feed.announced = feed.announced.max(notice.last_sequence);
            if feed.read_to.is_some_and(|r| notice.last_sequence > r) {
                feed.due = true;
            }
        }
    }

    fn all_due(&self) {
        for feed in self.feeds().values_mut() {
            feed.due = true;
        }
    }

    /// Reads the new events of every context that has some and hands them out; forgets the
    /// contexts nobody follows any more. Answers false when a read failed.
    async fn read_due(&self) -> bool {
        loop {
            let cursors: Vec<(ContextId, u64)> = {
                let mut feeds = self.feeds();
                feeds.retain(|_, feed| feed.sender.receiver_count() > 0);
                feeds
                    .iter_mut()
                    .filter(|(_, feed)| feed.due)
                    .filter_map(|(context, feed)| {
                        let after = feed.read_to?;
                        feed.due = false;
                        Some((*context, after))
                    })
                    .collect()
            };
            if cursors.is_empty() {
                return true;
            }
            for batch in cursors.chunks(CONTEXTS_PER_READ) {
                let events = match self.store.events_after_each(batch, PAGE_PER_CONTEXT).await {
                    Ok(events) => events,
                    Err(error) => {
                        tracing::warn!(%error, contexts = batch.len(), "followed event logs not read; trying again");
                        let mut feeds = self.feeds();
                        for (context, _) in batch {
                            if let Some(feed) = feeds.get_mut(context) {
                                feed.due = true;
                            }
                        }
                        return false;
                    }
                };
                self.hand_out(batch, events);
            }
        }
    }

    fn hand_out(&self, asked: &[(ContextId, u64)], events: Vec<(ContextId, SequencedEvent)>) {
        let mut per_context: HashMap<ContextId, u32> = HashMap::new();
        let mut feeds = self.feeds();
        for (context, event) in events {
            let Some(feed) = feeds.get_mut(&context) else {
                continue;
            };
            if feed.read_to.is_some_and(|r| event.sequence <= r) {
                continue;
            }
            feed.read_to = Some(event.sequence);
            *per_context.entry(context).or_default() += 1;
            // No stream listening is not an error: the feed is forgotten on the next round.
            let _ = feed.sender.send(event);
        }
        for (context, _) in asked {
            if per_context.get(context).copied().unwrap_or(0) >= PAGE_PER_CONTEXT
                && let Some(feed) = feeds.get_mut(context)
            {
                feed.due = true;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use braid_protocol::{ContextConfig, ContextEvent, Heartbeat};
    use braid_store::{ContextRecord, SqliteStore};

    async fn store_with_context() -> (tempfile::TempDir, Arc<dyn Store>, ContextId) {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> =
            Arc::new(SqliteStore::open(dir.path().join("b.db")).await.unwrap());
        let record = ContextRecord::new("feed", ContextConfig::default());
        store.create_context(&record).await.unwrap();
        (dir, store, record.id)
    }

    async fn append(store: &Arc<dyn Store>, context: ContextId, n: usize) {
        let publisher = Arc::new(broadcast::channel::<SequencedEvent>(16).0);
        for _ in 0..n {
            let event = ContextEvent::Heartbeat(Heartbeat {
                timestamp: chrono::Utc::now(),
            });
            store
                .append_event(context, &event, publisher.clone())
                .await
                .unwrap();
        }
        store.flush_events().await.unwrap();
    }

    async fn next(rx: &mut broadcast::Receiver<SequencedEvent>) -> u64 {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("an event within 5 s")
            .unwrap()
            .sequence
    }

    #[tokio::test]
    async fn every_stream_of_a_context_gets_each_new_event_once_in_order() {
        let (_dir, store, context) = store_with_context().await;
        let feeds = LogFeeds::new(store.clone(), CancellationToken::new());
        let mut first = feeds.subscribe(context);
        let mut second = feeds.subscribe(context);
        feeds.caught_up(context, 0);
        append(&store, context, 3).await;
        for rx in [&mut first, &mut second] {
            assert_eq!([next(rx).await, next(rx).await, next(rx).await], [1, 2, 3]);
        }
        append(&store, context, 1).await;
        assert_eq!(next(&mut first).await, 4);
        assert_eq!(next(&mut second).await, 4);
        assert!(first.try_recv().is_err(), "nothing twice");
    }

    #[tokio::test]
    async fn an_event_announced_before_the_stream_caught_up_is_still_handed_out() {
        let (_dir, store, context) = store_with_context().await;
        let feeds = LogFeeds::new(store.clone(), CancellationToken::new());
        let mut rx = feeds.subscribe(context);
        // Committed (and announced) while the stream was still replaying up to 0.
        append(&store, context, 2).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        feeds.caught_up(context, 1);
        assert_eq!(next(&mut rx).await, 2);
    }

    #[tokio::test]
    async fn a_context_nobody_follows_any_more_is_forgotten() {
        let (_dir, store, context) = store_with_context().await;
        let feeds = LogFeeds::new(store.clone(), CancellationToken::new());
        let rx = feeds.subscribe(context);
        feeds.caught_up(context, 0);
        drop(rx);
        append(&store, context, 1).await;
        let deadline = tokio::time::Instant::now() + LOG_POLL * 3;
        while !feeds.feeds().is_empty() {
            assert!(tokio::time::Instant::now() < deadline, "still followed");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
