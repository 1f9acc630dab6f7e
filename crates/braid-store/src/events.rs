//! The batching event writer: every context's events go through one task that commits them in
//! groups, so a thousand streams cost a handful of transactions per second rather than one per
//! chunk.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use braid_protocol::{ContextEvent, ContextId, SequencedEvent};
use chrono::{DateTime, Utc};
use tokio::sync::{Mutex, mpsc, oneshot};

use crate::error::{Result, StoreError};

/// One event waiting to be written.
pub(crate) struct PendingEvent {
    pub context: ContextId,
    pub sequence: u64,
    pub json: String,
    pub at: DateTime<Utc>,
}

/// Where the writer puts events: one implementation per database.
#[async_trait]
pub(crate) trait EventSink: Send + Sync + 'static {
    /// Writes the batch in one transaction.
    async fn write(&self, batch: &[PendingEvent]) -> Result<()>;
    /// The highest stored sequence of a context (0 when it has none).
    async fn max_sequence(&self, context: ContextId) -> Result<u64>;
}

enum Command {
    Append(PendingEvent),
    Flush(oneshot::Sender<Result<(), String>>),
}

/// Assigns sequences and feeds the writer task.
pub(crate) struct EventWriter {
    sink: Arc<dyn EventSink>,
    /// The last sequence given out per context. Held while queueing, so the queue's order is the
    /// sequence order.
    sequences: Mutex<HashMap<ContextId, u64>>,
    queue: mpsc::UnboundedSender<Command>,
}

impl EventWriter {
    /// Starts the writer task. Batches are committed `interval` after their first event, or at
    /// once when someone flushes.
    pub fn start(sink: Arc<dyn EventSink>, interval: Duration) -> Self {
        let (queue, commands) = mpsc::unbounded_channel();
        tokio::spawn(run(Arc::clone(&sink), commands, interval));
        Self {
            sink,
            sequences: Mutex::new(HashMap::new()),
            queue,
        }
    }

    /// Numbers the event and queues it.
    pub async fn append(&self, context: ContextId, event: &ContextEvent) -> Result<SequencedEvent> {
        let json = serde_json::to_string(event).map_err(|e| StoreError::EventsNotWritten {
            reason: format!("event cannot be serialized: {e}"),
        })?;
        // A context's first event reads its stored maximum without holding the lock, so a
        // thousand contexts starting at once do not queue behind each other's queries.
        let known = self.sequences.lock().await.contains_key(&context);
        let stored = if known {
            0
        } else {
            self.sink.max_sequence(context).await?
        };
        let mut sequences = self.sequences.lock().await;
        let last = *sequences.entry(context).or_insert(stored);
        let sequence = last + 1;
        self.queue
            .send(Command::Append(PendingEvent {
                context,
                sequence,
                json,
                at: Utc::now(),
            }))
            .map_err(|_| stopped())?;
        sequences.insert(context, sequence);
        Ok(SequencedEvent {
            sequence,
            event: event.clone(),
        })
    }

    /// Waits until everything queued so far is committed.
    pub async fn flush(&self) -> Result<()> {
        let (done, wait) = oneshot::channel();
        self.queue
            .send(Command::Flush(done))
            .map_err(|_| stopped())?;
        wait.await
            .map_err(|_| stopped())?
            .map_err(|reason| StoreError::EventsNotWritten { reason })
    }

    /// Forgets a deleted context's counter (after its events were flushed and deleted).
    pub async fn forget(&self, context: ContextId) {
        self.sequences.lock().await.remove(&context);
    }
}

fn stopped() -> StoreError {
    StoreError::EventsNotWritten {
        reason: "the event writer has stopped".to_owned(),
    }
}

async fn run(
    sink: Arc<dyn EventSink>,
    mut commands: mpsc::UnboundedReceiver<Command>,
    interval: Duration,
) {
    let mut batch: Vec<PendingEvent> = Vec::new();
    let mut waiters: Vec<oneshot::Sender<Result<(), String>>> = Vec::new();
    // A failure no flush has reported yet.
    let mut unreported: Option<String> = None;
    let mut open = true;
    while open {
        let Some(first) = commands.recv().await else {
            break;
        };
        take(first, &mut batch, &mut waiters);
        if waiters.is_empty() {
            // Group commit: let other streams add to this batch for a moment.
            let deadline = tokio::time::sleep(interval);
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
        if !batch.is_empty() {
            if let Err(error) = sink.write(&batch).await {
                tracing::error!(events = batch.len(), error = %error, "event batch not written");
                unreported = Some(error.to_string());
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

fn take(
    command: Command,
    batch: &mut Vec<PendingEvent>,
    waiters: &mut Vec<oneshot::Sender<Result<(), String>>>,
) {
    match command {
        Command::Append(event) => batch.push(event),
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
        events: std::sync::Mutex<Vec<(ContextId, u64)>>,
        failing: AtomicBool,
    }

    #[async_trait]
    impl EventSink for RecordingSink {
        async fn write(&self, batch: &[PendingEvent]) -> Result<()> {
            if self.failing.load(Ordering::SeqCst) {
                return Err(StoreError::EventsNotWritten {
                    reason: "disk full".to_owned(),
                });
            }
            self.writes.fetch_add(1, Ordering::SeqCst);
            let mut events = self.events.lock().unwrap();
            events.extend(batch.iter().map(|e| (e.context, e.sequence)));
            Ok(())
        }

        async fn max_sequence(&self, _context: ContextId) -> Result<u64> {
            Ok(41)
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

    #[tokio::test]
    async fn many_streams_share_few_transactions_in_sequence_order() {
        let sink = Arc::new(RecordingSink::default());
        let writer = Arc::new(EventWriter::start(sink.clone(), Duration::from_millis(5)));
        let contexts: Vec<ContextId> = (0..50).map(|_| ContextId::new()).collect();
        let mut tasks = Vec::new();
        for context in contexts.clone() {
            let writer = Arc::clone(&writer);
            tasks.push(tokio::spawn(async move {
                for _ in 0..20 {
                    writer.append(context, &delta(context)).await.unwrap();
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        writer.flush().await.unwrap();
        let events = sink.events.lock().unwrap().clone();
        assert_eq!(events.len(), 1000);
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
    async fn flush_reports_a_failed_batch_once() {
        let sink = Arc::new(RecordingSink::default());
        let writer = EventWriter::start(sink.clone(), Duration::from_millis(5));
        let context = ContextId::new();
        sink.failing.store(true, Ordering::SeqCst);
        writer.append(context, &delta(context)).await.unwrap();
        let err = writer.flush().await.unwrap_err();
        assert!(err.to_string().contains("disk full"), "{err}");
        sink.failing.store(false, Ordering::SeqCst);
        let next = writer.append(context, &delta(context)).await.unwrap();
        assert_eq!(next.sequence, 43, "sequences never go back");
        writer.flush().await.unwrap();
    }

    #[tokio::test]
    async fn flush_commits_without_waiting_for_the_batch_interval() {
        let sink = Arc::new(RecordingSink::default());
        let writer = EventWriter::start(sink.clone(), Duration::from_secs(3600));
        let context = ContextId::new();
        writer.append(context, &delta(context)).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), writer.flush())
            .await
            .expect("flush must not wait for the interval")
            .unwrap();
        assert_eq!(sink.events.lock().unwrap().len(), 1);
    }
}
