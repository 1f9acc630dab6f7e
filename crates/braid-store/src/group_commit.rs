//! Group commit of change sets: the change sets that contexts save while a commit is in flight
//! wait in one queue and are saved together, in one transaction, by one task.
//!
//! SQLite has one writer. A turn saves about a dozen change sets (each state it enters is
//! persisted before its work starts), so a thousand turns starting at once queued some fourteen
//! thousand transactions behind that writer, each paying for its `BEGIN`, its `COMMIT` and the
//! hops between the runtime and the database's thread: `braid-load --contexts 1000` measured
//! first chunks 13 s late. Grouped, a busy store commits a few hundred change sets per
//! transaction, and an idle one still commits each at once (a group is whatever waits when the
//! writer comes round; nothing is held back to make groups larger).
//!
//! Each caller still waits until its own change set is committed, so "saved" keeps meaning
//! durable. A group that fails is rolled back whole and its change sets are saved again one by
//! one, so a change set that cannot be saved (a fenced context, a unique id taken) fails alone,
//! with its own error, and the others in its group are saved.

use std::sync::Arc;

use async_trait::async_trait;
use braid_protocol::ContextId;
use tokio::sync::{mpsc, oneshot};

use crate::changes::ContextChanges;
use crate::error::{Result, StoreError};
use crate::writer_thread::{WriterHome, spawn_writer};

/// How many change sets may wait for the writer; when it is full, savers wait for room.
pub const CHANGE_QUEUE_CAPACITY: usize = 4096;

/// The most change sets saved in one transaction.
pub const MAX_GROUP: usize = 256;

/// Saves groups of change sets.
#[async_trait]
pub(crate) trait ChangeSink: Send + Sync + 'static {
    /// Saves every change set of `group`, in order, in one transaction; on an error nothing of
    /// the group is saved.
    async fn save_group(&self, group: &[(ContextId, &ContextChanges)]) -> Result<()>;
}

struct Job {
    context: ContextId,
    changes: ContextChanges,
    done: oneshot::Sender<Result<()>>,
}

/// The queue in front of the writer task.
pub(crate) struct ChangeWriter {
    queue: mpsc::Sender<Job>,
}

impl ChangeWriter {
    /// Starts the writer task over `sink`, where `home` says; it ends when the writer is
    /// dropped.
    pub fn start(sink: Arc<dyn ChangeSink>, home: WriterHome) -> Self {
        let (queue, jobs) = mpsc::channel(CHANGE_QUEUE_CAPACITY);
        spawn_writer(home, run(sink, jobs));
        Self { queue }
    }

    /// Saves `changes` with whatever else waits, and returns once they are committed (or
    /// failed). A caller that stops waiting does not stop the save.
    pub async fn save(&self, context: ContextId, changes: ContextChanges) -> Result<()> {
        let (done, outcome) = oneshot::channel();
        self.queue
            .send(Job {
                context,
                changes,
                done,
            })
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        outcome.await.map_err(|_| StoreError::WriterStopped)?
    }
}

async fn run(sink: Arc<dyn ChangeSink>, mut jobs: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while jobs.recv_many(&mut group, MAX_GROUP).await > 0 {
        let sets: Vec<(ContextId, &ContextChanges)> =
            group.iter().map(|j| (j.context, &j.changes)).collect();
        let started = std::time::Instant::now();
        let outcome = sink.save_group(&sets).await;
        drop(sets);
        tracing::debug!(
            changes = group.len(),
            elapsed_us = started.elapsed().as_micros() as u64,
            ok = outcome.is_ok(),
            "change group committed"
        );
        match outcome {
            Ok(()) => {
                for job in group.drain(..) {
                    let _ = job.done.send(Ok(()));
                }
            }
            Err(error) if group.len() == 1 => {
                if let Some(job) = group.pop() {
                    let _ = job.done.send(Err(error));
                }
            }
            Err(error) => {
                tracing::debug!(group = group.len(), %error, "a group commit failed; saving its change sets one by one");
                for job in group.drain(..) {
                    let outcome = sink.save_group(&[(job.context, &job.changes)]).await;
                    let _ = job.done.send(outcome);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Records the groups it is given and refuses any group holding the context `bad`. Its
    /// first save waits at a gate, so that more change sets queue behind it.
    struct Recorder {
        groups: Mutex<Vec<Vec<ContextId>>>,
        bad: ContextId,
        entered: tokio::sync::Notify,
        gate: tokio::sync::Semaphore,
    }

    #[async_trait]
    impl ChangeSink for Recorder {
        async fn save_group(&self, group: &[(ContextId, &ContextChanges)]) -> Result<()> {
            self.entered.notify_one();
            let _permit = self.gate.acquire().await.unwrap();
            self.groups
                .lock()
                .unwrap()
                .push(group.iter().map(|(c, _)| *c).collect());
            if group.iter().any(|(c, _)| *c == self.bad) {
                return Err(StoreError::ContextNotFound(self.bad));
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn change_sets_waiting_together_commit_in_one_group_and_a_bad_one_fails_alone() {
        let bad = ContextId::new();
        let sink = Arc::new(Recorder {
            groups: Mutex::new(Vec::new()),
            bad,
            entered: tokio::sync::Notify::new(),
            gate: tokio::sync::Semaphore::new(0),
        });
        let writer = Arc::new(ChangeWriter::start(sink.clone(), WriterHome::Runtime));
        let save = |c: ContextId| {
            let writer = writer.clone();
            tokio::spawn(async move { writer.save(c, ContextChanges::new()).await })
        };
        // The first save holds the writer at the gate...
        let first = ContextId::new();
        let entered = sink.entered.notified();
        let first_save = save(first);
        entered.await;
        // ...while four more queue behind it, the bad one among them.
        let waiting: Vec<ContextId> = (0..4)
            .map(|i| if i == 1 { bad } else { ContextId::new() })
            .collect();
        let saves: Vec<_> = waiting.iter().map(|c| save(*c)).collect();
        while writer.queue.capacity() > CHANGE_QUEUE_CAPACITY - waiting.len() {
            tokio::task::yield_now().await;
        }
        sink.gate.add_permits(100);

        assert!(first_save.await.unwrap().is_ok());
        for (c, s) in waiting.iter().zip(saves) {
            let outcome = s.await.unwrap();
            assert_eq!(outcome.is_err(), *c == bad, "{c}: {outcome:?}");
        }
        let groups = sink.groups.lock().unwrap().clone();
        let mut expected = vec![vec![first], waiting.clone()];
        expected.extend(waiting.iter().map(|c| vec![*c]));
        assert_eq!(
            groups, expected,
            "one group of the four waiting, refused, then each alone in order"
        );
    }
}
