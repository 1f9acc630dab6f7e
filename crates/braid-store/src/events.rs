//! The batching event writer: every context's events go through one task that commits them in
//! groups, so a thousand streams cost a handful of transactions per second rather than one per
//! chunk.
//!
//! An event reaches live subscribers only after the batch holding it has committed: the writer
//! task hands each committed event, in sequence order, to the [`EventPublisher`] it was appended
//! with. So a client never sees an id that a crash could give to another event: after a restart,
//! numbering continues from the last committed sequence, and only committed ids were ever sent.
//!
//! A batch that fails is retried with backoff. If the store stays unavailable through every
//! retry, its events are dropped and each publisher is told which of its events were lost; the
//! lost sequences were never published, so the context's numbering steps back to its last
//! committed event and the log stays gap-free.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use backon::BackoffBuilder as _;
use braid_protocol::{ContextEvent, ContextId, SequencedEvent};
use chrono::{DateTime, Utc};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::error::{Result, StoreError};
use crate::writer_thread::{WriterHome, spawn_writer};

/// How many events (and flush requests) may wait for the writer. When it is full, producers wait
/// for room (backpressure) instead of growing memory while the store is slow or unavailable.
pub const EVENT_QUEUE_CAPACITY: usize = 8192;

/// From how many events in a batch the writer counts as busy and gathers the next batch for its
/// interval: a single stream's turn brings up to about ten at once.
const GATHER_FROM: usize = 16;

/// How many event notices a receiver may fall behind before it misses some (and catches up
/// from the log).
pub const EVENT_NOTICE_CAPACITY: usize = 4096;

/// That a context has new committed events, up to `last_sequence` (possibly written by another
/// replica): read them with [`Store::events_after`](crate::Store::events_after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventNotice {
    /// The context.
    pub context: ContextId,
    /// The highest sequence committed.
    pub last_sequence: u64,
}

/// Receives a context's events once they are durable.
pub trait EventPublisher: Send + Sync + 'static {
    /// The event is committed. Called from the writer task, in sequence order per context, so
    /// it must not block.
    fn committed(&self, event: SequencedEvent);

    /// These events were never committed: the store failed through every retry. They were
    /// never handed to [`EventPublisher::committed`], and their sequences will be given again.
    fn lost(&self, lost: LostEvents);
}

/// Events that could not be stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostEvents {
    /// Their context.
    pub context: ContextId,
    /// How many were dropped.
    pub count: u64,
    /// The store's last error.
    pub reason: String,
}

/// A broadcast channel publishes committed events to its receivers; a loss is only logged (use
/// a publisher of your own to react to it).
impl EventPublisher for broadcast::Sender<SequencedEvent> {
    fn committed(&self, event: SequencedEvent) {
        // No receiver is not an error.
        let _ = self.send(event);
    }

    fn lost(&self, lost: LostEvents) {
        tracing::error!(context = %lost.context, count = lost.count, reason = %lost.reason, "events lost");
    }
}

/// How the writer retries a batch that failed to commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRetry {
    /// The wait before the first retry; each next wait doubles.
    pub first_delay: Duration,
    /// The longest wait between two tries.
    pub max_delay: Duration,
    /// Retries after the first try before the batch is given up.
    pub retries: usize,
}

impl Default for WriteRetry {
    /// About ten seconds of retries (10 ms doubling up to 2 s, 12 retries): a store restart or
    /// a short network cut is ridden out; a dead store is reported.
    fn default() -> Self {
        Self {
            first_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(2),
            retries: 12,
        }
    }
}

impl WriteRetry {
    fn delays(&self) -> backon::ExponentialBackoff {
        backon::ExponentialBuilder::default()
            .with_min_delay(self.first_delay)
            .with_max_delay(self.max_delay)
            .with_max_times(self.retries)
            .build()
    }
}

/// One event waiting to be written.
pub(crate) struct PendingEvent {
    pub context: ContextId,
    pub sequence: u64,
    /// The context's numbering generation when the event was numbered: a loss starts a new one,
    /// and queued events of an older generation are dropped with the lost batch.
    generation: u64,
    pub json: String,
    pub at: DateTime<Utc>,
    /// The fencing token of the lease the event was written under (0: no lease).
    pub token: u64,
    event: ContextEvent,
    publisher: Arc<dyn EventPublisher>,
}

/// Where the writer puts events: one implementation per database.
#[async_trait]
pub(crate) trait EventSink: Send + Sync + 'static {
    /// Writes the batch in one transaction, leaving out the events of contexts whose lease has
    /// moved on from the token they carry; answers those contexts.
    async fn write(&self, batch: &[PendingEvent]) -> Result<Vec<ContextId>>;
    /// The highest stored sequence of a context (0 when it has none).
    async fn max_sequence(&self, context: ContextId) -> Result<u64>;
}

enum Command {
    Append(Box<PendingEvent>),
    Flush(oneshot::Sender<Result<(), String>>),
}

/// A context's numbering.
#[derive(Clone, Copy, Debug)]
struct Counter {
    /// The last sequence given out; `None` when the next event reads it from the log.
    last: Option<u64>,
    /// Bumped by every loss: queued events of older generations are dropped. It outlives a
    /// renumbering, or a context's events after a loss and a new lease would all count as
    /// left over from the lost batch.
    generation: u64,
}

type Counters = Arc<Mutex<HashMap<ContextId, Counter>>>;

/// Assigns sequences and feeds the writer task.
pub(crate) struct EventWriter {
    sink: Arc<dyn EventSink>,
    /// Held while numbering and queueing, so the queue's order is the sequence order.
    counters: Counters,
    queue: mpsc::Sender<Command>,
}

impl EventWriter {
    /// Starts the writer task. While many events come, a batch is committed `interval` after
    /// its first event (or when someone flushes); a few events are committed at once.
    pub fn start(
        sink: Arc<dyn EventSink>,
        interval: Duration,
        notices: Option<broadcast::Sender<EventNotice>>,
    ) -> Self {
        Self::start_with(
            sink,
            interval,
            WriteRetry::default(),
            notices,
            WriterHome::Runtime,
        )
    }

    /// Starts the writer task with an explicit retry policy, where `home` says. Committed
    /// events are announced on `notices` when given (a database that announces its commits
    /// itself passes `None`).
    pub(crate) fn start_with(
        sink: Arc<dyn EventSink>,
        interval: Duration,
        retry: WriteRetry,
        notices: Option<broadcast::Sender<EventNotice>>,
        home: WriterHome,
    ) -> Self {
        let (queue, commands) = mpsc::channel(EVENT_QUEUE_CAPACITY);
        let counters = Counters::default();
        spawn_writer(
            home,
            Task {
                sink: Arc::clone(&sink),
                counters: Arc::clone(&counters),
                interval,
                retry,
                generations: HashMap::new(),
                notices,
            }
            .run(commands),
        );
        Self {
            sink,
            counters,
            queue,
        }
    }

    /// Numbers the event and queues it; `publisher` receives it once it is committed. Waits
    /// while the queue is full.
    pub async fn append(
        &self,
        context: ContextId,
        event: &ContextEvent,
        publisher: Arc<dyn EventPublisher>,
        token: u64,
    ) -> Result<SequencedEvent> {
        let json = serde_json::to_string(event).map_err(|e| StoreError::EventsNotWritten {
            reason: format!("event cannot be serialized: {e}"),
        })?;
        // A context's first event reads its stored maximum without holding the lock, so a
        // thousand contexts starting at once do not queue behind each other's queries.
        let known = lock(&self.counters)
            .get(&context)
            .is_some_and(|c| c.last.is_some());
        let stored = if known {
            0
        } else {
            self.sink.max_sequence(context).await?
        };
        // Room in the queue is taken before the lock, so a producer waiting for room never
        // holds back the writer (which takes the lock when a batch is lost).
        let permit = self.queue.reserve().await.map_err(|_| stopped())?;
        let mut counters = lock(&self.counters);
        let counter = counters.entry(context).or_insert(Counter {
            last: None,
            generation: 0,
        });
        let last = counter.last.get_or_insert(stored);
        *last += 1;
        let sequence = *last;
        permit.send(Command::Append(Box::new(PendingEvent {
            context,
            sequence,
            generation: counter.generation,
            json,
            at: Utc::now(),
            token,
            event: event.clone(),
            publisher,
        })));
        Ok(SequencedEvent {
            sequence,
            event: event.clone(),
        })
    }

    /// Waits until everything queued so far is committed (or reported lost).
    pub async fn flush(&self) -> Result<()> {
        let (done, wait) = oneshot::channel();
        self.queue
            .send(Command::Flush(done))
            .await
            .map_err(|_| stopped())?;
        wait.await
            .map_err(|_| stopped())?
            .map_err(|reason| StoreError::EventsNotWritten { reason })
    }

    /// Forgets a deleted context's counter (after its events were flushed and deleted).
    pub fn forget(&self, context: ContextId) {
        lock(&self.counters).remove(&context);
    }

    /// Makes the context's next event read where its numbering stands from the log again
    /// (another owner may have written events since this store last numbered them).
    pub fn renumber(&self, context: ContextId) {
        renumber(&self.counters, context);
    }
}

fn renumber(counters: &Counters, context: ContextId) {
    if let Some(counter) = lock(counters).get_mut(&context) {
        counter.last = None;
    }
}

fn lock(counters: &Counters) -> std::sync::MutexGuard<'_, HashMap<ContextId, Counter>> {
    // The map holds plain numbers: a panic elsewhere cannot leave it half-changed.
    counters.lock().unwrap_or_else(PoisonError::into_inner)
}

fn stopped() -> StoreError {
    StoreError::EventsNotWritten {
        reason: "the event writer has stopped".to_owned(),
    }
}

struct Task {
    sink: Arc<dyn EventSink>,
    counters: Counters,
    interval: Duration,
    retry: WriteRetry,
    /// The current generation of every context whose numbering was stepped back after a loss.
    generations: HashMap<ContextId, u64>,
    notices: Option<broadcast::Sender<EventNotice>>,
}

impl Task {
    async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        let mut batch: Vec<PendingEvent> = Vec::new();
        let mut waiters: Vec<oneshot::Sender<Result<(), String>>> = Vec::new();
        // A failure no flush has reported yet.
        let mut unreported: Option<String> = None;
        let mut open = true;
        // How many events the last batch held: a busy writer gathers, a quiet one does not.
        let mut last_batch = 0usize;
        while open {
            let Some(first) = commands.recv().await else {
                break;
            };
            take(first, &mut batch, &mut waiters);
            while let Ok(command) = commands.try_recv() {
                take(command, &mut batch, &mut waiters);
            }
            // Group commit: while many streams write, let them add to this batch for a moment.
            // A few streams commit at once: their events would wait for no one (a lone
            // stream's chunks each waited the whole interval, 5 ms of every chunk's latency).
            let busy = last_batch.max(batch.len()) >= GATHER_FROM;
            if busy && waiters.is_empty() {
                let deadline = tokio::time::sleep(self.interval);
                tokio::pin!(deadline);
                loop {
                    tokio::select! {
                        _ = &mut deadline => break,
                        command = commands.recv() => match command {
                            Some(command) => {
                                take(command, &mut batch, &mut waiters);
                                if !waiters.is_empty() {
                                    break;
                                }
                            }
                            None => {
                                open = false;
                                break;
                            }
                        }
                    }
                }
            }
            while let Ok(command) = commands.try_recv() {
                take(command, &mut batch, &mut waiters);
            }
            let mut stale = Vec::new();
            batch.retain_mut(|e| {
                let current = self.generations.get(&e.context).copied().unwrap_or(0);
                if e.generation < current {
                    stale.push((e.context, Arc::clone(&e.publisher)));
                    false
                } else {
                    true
                }
            });
            if !stale.is_empty() {
                report_lost(
                    stale.into_iter(),
                    "an earlier batch of this context was lost",
                );
            }
            last_batch = batch.len();
            if !batch.is_empty() {
                if let Err(reason) = self.commit(&mut batch).await {
                    unreported = Some(reason);
                }
                batch.clear();
            }
            if !waiters.is_empty() {
                let outcome = match unreported.take() {
                    Some(reason) => Err(reason),
                    None => Ok(()),
                };
                for waiter in waiters.drain(..) {
                    // A waiter that gave up is no concern of the writer.
                    let _ = waiter.send(outcome.clone());
                }
            }
        }
    }

    /// Writes the batch, retrying with backoff; publishes it once committed. On giving up,
    /// steps the contexts' numbering back, tells the publishers, and answers the reason.
    async fn commit(&mut self, batch: &mut Vec<PendingEvent>) -> Result<(), String> {
        let mut delays = self.retry.delays();
        let started = std::time::Instant::now();
        let error = loop {
            match self.sink.write(batch).await {
                Ok(fenced) => {
                    tracing::debug!(
                        events = batch.len(),
                        elapsed_us = started.elapsed().as_micros() as u64,
                        "event batch committed"
                    );
                    if !fenced.is_empty() {
                        self.refuse(batch, &fenced);
                    }
                    let mut last: HashMap<ContextId, u64> = HashMap::new();
                    for e in batch.drain(..) {
                        last.insert(e.context, e.sequence);
                        e.publisher.committed(SequencedEvent {
                            sequence: e.sequence,
                            event: e.event,
                        });
                    }
                    if let Some(notices) = &self.notices {
                        for (context, last_sequence) in last {
                            // No receiver is not an error.
                            let _ = notices.send(EventNotice {
                                context,
                                last_sequence,
                            });
                        }
                    }
                    return Ok(());
                }
                Err(error) => match delays.next() {
                    Some(delay) => {
                        tracing::warn!(events = batch.len(), error = %error, retry_in_ms = delay.as_millis(), "event batch not written; retrying");
                        tokio::time::sleep(delay).await;
                    }
                    None => break error,
                },
            }
        };
        let reason = error.to_string();
        tracing::error!(events = batch.len(), error = %reason, "event batch given up after retries");
        {
            let mut counters = lock(&self.counters);
            // Batches commit in sequence order, so the first lost sequence of a context follows
            // its last committed one.
            for e in batch.iter() {
                if let Some(counter) = counters.get_mut(&e.context)
                    && counter.generation == e.generation
                {
                    counter.last = Some(e.sequence - 1);
                    counter.generation += 1;
                    self.generations.insert(e.context, counter.generation);
                }
            }
        }
        report_lost(batch.drain(..).map(|e| (e.context, e.publisher)), &reason);
        Err(reason)
    }
}

impl Task {
    /// Takes the events of contexts another replica now owns out of the batch: they were not
    /// written, and never will be. Their publishers are told, and the contexts' numbering is
    /// read again from the log by a later owner in this process.
    fn refuse(&mut self, batch: &mut Vec<PendingEvent>, fenced: &[ContextId]) {
        let mut refused = Vec::new();
        batch.retain_mut(|e| {
            if fenced.contains(&e.context) {
                refused.push((e.context, Arc::clone(&e.publisher)));
                false
            } else {
                true
            }
        });
        for context in fenced {
            renumber(&self.counters, *context);
        }
        tracing::warn!(
            contexts = fenced.len(),
            events = refused.len(),
            "events of a replaced owner refused"
        );
        report_lost(
            refused.into_iter(),
            "refused: another replica took this context over (the lease's fencing token is newer)",
        );
    }
}

/// Tells each publisher how many of its events were lost (one report per context).
fn report_lost(events: impl Iterator<Item = (ContextId, Arc<dyn EventPublisher>)>, reason: &str) {
    let mut by_context: Vec<(ContextId, Arc<dyn EventPublisher>, u64)> = Vec::new();
    for (context, publisher) in events {
        match by_context.iter_mut().find(|(c, _, _)| *c == context) {
            Some((_, _, count)) => *count += 1,
            None => by_context.push((context, publisher, 1)),
        }
    }
    for (context, publisher, count) in by_context {
        publisher.lost(LostEvents {
            context,
            count,
            reason: reason.to_owned(),
        });
    }
}

fn take(
    command: Command,
    batch: &mut Vec<PendingEvent>,
    waiters: &mut Vec<oneshot::Sender<Result<(), String>>>,
) {
    match command {
        Command::Append(event) => batch.push(*event),
        Command::Flush(done) => waiters.push(done),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use braid_protocol::{ContentDelta, MessageId};

    use super::*;

    /// Records what the writer hands it, to observe batching (the databases themselves are
    /// exercised by the conformance suite).
    #[derive(Default)]
    struct RecordingSink {
        writes: AtomicUsize,
        attempts: AtomicUsize,
        events: std::sync::Mutex<Vec<(ContextId, u64)>>,
        failing: AtomicBool,
        /// While set, a write waits here until the test lets it through.
        gate: tokio::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
    }

    #[async_trait]
    impl EventSink for RecordingSink {
        async fn write(&self, batch: &[PendingEvent]) -> Result<Vec<ContextId>> {
            self.attempts.fetch_add(1, Ordering::SeqCst);
            if let Some(gate) = self.gate.lock().await.take() {
                let _ = gate.await;
            }
            if self.failing.load(Ordering::SeqCst) {
                return Err(StoreError::EventsNotWritten {
                    reason: "disk full".to_owned(),
                });
            }
            self.writes.fetch_add(1, Ordering::SeqCst);
            let mut events = self.events.lock().unwrap();
            events.extend(batch.iter().map(|e| (e.context, e.sequence)));
            Ok(Vec::new())
        }

        async fn max_sequence(&self, _context: ContextId) -> Result<u64> {
            Ok(41)
        }
    }

    /// Collects what the writer publishes.
    #[derive(Default)]
    struct Collector {
        committed: std::sync::Mutex<Vec<u64>>,
        lost: std::sync::Mutex<Vec<LostEvents>>,
    }

    impl EventPublisher for Collector {
        fn committed(&self, event: SequencedEvent) {
            self.committed.lock().unwrap().push(event.sequence);
        }
        fn lost(&self, lost: LostEvents) {
            self.lost.lock().unwrap().push(lost);
        }
    }

    fn delta(context: ContextId) -> ContextEvent {
        ContextEvent::ContentDelta(ContentDelta {
            context_id: context,
            message_id: MessageId::new(),
            sequence: 0,
            delta: "x".to_owned(),
            is_final: false,
        })
    }

    /// A writer over `sink` that retries a failing batch `retries` times, a few ms apart.
    fn retrying_writer(sink: &Arc<RecordingSink>, retries: usize) -> EventWriter {
        let retry = WriteRetry {
            first_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(4),
            retries,
        };
        EventWriter::start_with(
            sink.clone(),
            Duration::from_millis(1),
            retry,
            None,
            WriterHome::Runtime,
        )
    }

    #[tokio::test]
    async fn many_streams_share_few_transactions_in_sequence_order() {
        let sink = Arc::new(RecordingSink::default());
        let writer = Arc::new(EventWriter::start(
            sink.clone(),
            Duration::from_millis(5),
            None,
        ));
        let contexts: Vec<ContextId> = (0..50).map(|_| ContextId::new()).collect();
        let collector = Arc::new(Collector::default());
        let mut tasks = Vec::new();
        for context in contexts.clone() {
            let writer = Arc::clone(&writer);
            let collector = Arc::clone(&collector);
            tasks.push(tokio::spawn(async move {
                for _ in 0..20 {
                    writer
                        .append(context, &delta(context), collector.clone(), 0)
                        .await
                        .unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        writer.flush().await.unwrap();
        let events = sink.events.lock().unwrap().clone();
        assert_eq!(events.len(), 1000);
        assert_eq!(collector.committed.lock().unwrap().len(), 1000);
        let writes = sink.writes.load(Ordering::SeqCst);
        assert!(writes < 100, "1000 events took {writes} transactions");
        // Per context: continuing from the stored maximum, rising by one, in order.
        for context in contexts {
            let sequences: Vec<u64> = events
                .iter()
                .filter(|(c, _)| *c == context)
                .map(|(_, s)| *s)
                .collect();
            assert_eq!(sequences, (42..62).collect::<Vec<u64>>());
        }
    }

    #[tokio::test]
    async fn a_lone_stream_s_event_is_committed_without_waiting_for_the_interval() {
        let sink = Arc::new(RecordingSink::default());
        // An interval far longer than the wait below: only a commit at once can pass.
        let writer = EventWriter::start(sink.clone(), Duration::from_secs(60), None);
        let (live, mut subscriber) = broadcast::channel(16);
        let context = ContextId::new();
        for expected in [42, 43] {
            writer
                .append(context, &delta(context), Arc::new(live.clone()), 0)
                .await
                .unwrap();
            let committed = tokio::time::timeout(Duration::from_secs(10), subscriber.recv())
                .await
                .expect("a lone event waited for the batch interval")
                .unwrap();
            assert_eq!(committed.sequence, expected);
        }
    }

    #[tokio::test]
    async fn subscribers_see_nothing_until_the_batch_commits() {
        let sink = Arc::new(RecordingSink::default());
        let (open_gate, gate) = tokio::sync::oneshot::channel();
        *sink.gate.lock().await = Some(gate);
        let writer = EventWriter::start(sink.clone(), Duration::from_millis(1), None);
        let (live, mut subscriber) = broadcast::channel(16);
        let context = ContextId::new();
        for _ in 0..3 {
            writer
                .append(context, &delta(context), Arc::new(live.clone()), 0)
                .await
                .unwrap();
        }
        // The batch is being written but has not committed.
        while sink.attempts.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            matches!(
                subscriber.try_recv(),
                Err(broadcast::error::TryRecvError::Empty)
            ),
            "an uncommitted event reached a subscriber"
        );
        open_gate.send(()).unwrap();
        let first = tokio::time::timeout(Duration::from_secs(5), subscriber.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.sequence, 42);
        assert_eq!(subscriber.recv().await.unwrap().sequence, 43);
        assert_eq!(subscriber.recv().await.unwrap().sequence, 44);
    }

    #[tokio::test]
    async fn a_failing_batch_is_retried_and_committed_when_the_store_returns() {
        let sink = Arc::new(RecordingSink::default());
        let writer = retrying_writer(&sink, 50);
        let collector = Arc::new(Collector::default());
        let context = ContextId::new();
        sink.failing.store(true, Ordering::SeqCst);
        writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        while sink.attempts.load(Ordering::SeqCst) < 3 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert!(collector.committed.lock().unwrap().is_empty());
        sink.failing.store(false, Ordering::SeqCst);
        writer.flush().await.unwrap();
        assert_eq!(*collector.committed.lock().unwrap(), vec![42]);
        assert!(collector.lost.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_batch_failing_every_retry_is_reported_lost_and_its_ids_never_went_out() {
        let sink = Arc::new(RecordingSink::default());
        // The two failing appends below are queued before the writer runs (the test's runtime
        // has one thread), and the writer takes every queued event into its batch: one batch.
        let writer = retrying_writer(&sink, 3);
        let collector = Arc::new(Collector::default());
        let context = ContextId::new();
        writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        writer.flush().await.unwrap();
        sink.failing.store(true, Ordering::SeqCst);
        for _ in 0..2 {
            writer
                .append(context, &delta(context), collector.clone(), 0)
                .await
                .unwrap();
        }
        let err = writer.flush().await.unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(
            sink.attempts.load(Ordering::SeqCst),
            1 + 4,
            "one try and three retries"
        );
        let lost = collector.lost.lock().unwrap().clone();
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert_eq!((lost[0].context, lost[0].count), (context, 2));
        assert!(lost[0].reason.contains("disk full"));
        // The lost ids were never published, so numbering continues from the last committed
        // event: the log has no gap.
        sink.failing.store(false, Ordering::SeqCst);
        let next = writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        writer.flush().await.unwrap();
        assert_eq!(next.sequence, 43);
        assert_eq!(*collector.committed.lock().unwrap(), vec![42, 43]);
        let stored: Vec<u64> = sink.events.lock().unwrap().iter().map(|e| e.1).collect();
        assert_eq!(stored, vec![42, 43]);
    }

    #[tokio::test]
    async fn events_after_a_loss_and_a_new_lease_are_stored_and_published() {
        let sink = Arc::new(RecordingSink::default());
        let writer = retrying_writer(&sink, 1);
        let collector = Arc::new(Collector::default());
        let context = ContextId::new();
        sink.failing.store(true, Ordering::SeqCst);
        writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        assert!(writer.flush().await.is_err());
        assert_eq!(collector.lost.lock().unwrap().len(), 1);
        sink.failing.store(false, Ordering::SeqCst);
        // What taking the context's lease again does.
        writer.renumber(context);
        let next = writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        writer.flush().await.unwrap();
        assert_eq!(*collector.committed.lock().unwrap(), vec![next.sequence]);
        assert_eq!(
            collector.lost.lock().unwrap().len(),
            1,
            "the new event was lost"
        );
        let stored: Vec<u64> = sink.events.lock().unwrap().iter().map(|e| e.1).collect();
        assert_eq!(stored, vec![next.sequence]);
    }

    #[tokio::test]
    async fn a_full_queue_makes_producers_wait() {
        let sink = Arc::new(RecordingSink::default());
        let (open_gate, gate) = tokio::sync::oneshot::channel();
        *sink.gate.lock().await = Some(gate);
        let writer = Arc::new(EventWriter::start(
            sink.clone(),
            Duration::from_millis(1),
            None,
        ));
        let collector = Arc::new(Collector::default());
        let context = ContextId::new();
        // The first event's batch holds the writer at the gate; then the queue fills.
        writer
            .append(context, &delta(context), collector.clone(), 0)
            .await
            .unwrap();
        while sink.attempts.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        for _ in 0..EVENT_QUEUE_CAPACITY {
            tokio::time::timeout(
                Duration::from_secs(5),
                writer.append(context, &delta(context), collector.clone(), 0),
            )
            .await
            .expect("room in the queue")
            .unwrap();
        }
        let blocked = {
            let writer = Arc::clone(&writer);
            let collector = collector.clone();
            tokio::spawn(async move {
                writer
                    .append(context, &delta(context), collector, 0)
                    .await
                    .unwrap()
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!blocked.is_finished(), "a producer went past a full queue");
        open_gate.send(()).unwrap();
        let last = tokio::time::timeout(Duration::from_secs(5), blocked)
            .await
            .expect("the producer proceeds once the writer drains")
            .unwrap();
        writer.flush().await.unwrap();
        assert_eq!(last.sequence, 42 + EVENT_QUEUE_CAPACITY as u64 + 1);
        assert_eq!(
            collector.committed.lock().unwrap().len(),
            EVENT_QUEUE_CAPACITY + 2
        );
    }

    #[tokio::test]
    async fn flush_commits_without_waiting_for_the_batch_interval() {
        let sink = Arc::new(RecordingSink::default());
        let writer = EventWriter::start(sink.clone(), Duration::from_secs(3600), None);
        let context = ContextId::new();
        let (live, _) = broadcast::channel(4);
        writer
            .append(context, &delta(context), Arc::new(live), 0)
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), writer.flush())
            .await
            .expect("flush must not wait for the interval")
            .unwrap();
        assert_eq!(sink.events.lock().unwrap().len(), 1);
    }
}
