//! Group commit of change sets: the change sets that contexts save while a commit is in flight
//! wait in one queue and are saved together, in one transaction, by one task.
//!
//! SQLite has one writer. A turn saves about a dozen change sets (each state it enters is
//! persisted before its work starts), so a thousand turns starting at once queued some fourteen
//! thousand transactions behind that writer, each paying for its `BEGIN`, its `COMMIT` and the
//! hops between the runtime and the database's thread: `braid-load --contexts 1000` measured
//! first chunks 13 s late. Grouped, a busy store commits a few hundred change sets per
//! transaction, and an idle one still commits each at once (a group is whatever waits when the
//! writer comes round, and what comes during its few milliseconds of gathering when it is busy).
//!
//! The queue is drained by the event writer's task, which writes the change sets and the events
//! waiting with them in one transaction (see [`crate::events`]): one `BEGIN`, lease check and
//! `COMMIT` a round instead of two writers taking turns on the one connection. Every change set
//! takes a ticket as it is queued, and every event notes the last ticket given out when it was
//! appended, so an event is never committed before a change set queued ahead of it: an actor may
//! queue the row of a new message and announce it at once ([`ChangeWriter::submit`]), and the
//! announcement still reaches nobody before the row is stored.
//!
//! Each caller still learns when its own change set is committed, so "saved" keeps meaning
//! durable. A group that fails is rolled back whole and its change sets are saved again one by
//! one, so a change set that cannot be saved (a fenced context, a unique id taken) fails alone,
//! with its own error, and the others in its group are saved.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use braid_protocol::ContextId;
use tokio::sync::{mpsc, oneshot};

use crate::changes::ContextChanges;
use crate::error::{Result, StoreError};

/// How many change sets may wait for the writer; when it is full, savers wait for room. It is
/// also the most change sets one round commits.
pub const CHANGE_QUEUE_CAPACITY: usize = 4096;

/// A change set waiting for the writer.
pub(crate) struct Job {
    pub context: ContextId,
    pub changes: ContextChanges,
    /// Its place in the queue: tickets rise in queue order.
    pub ticket: u64,
    /// The last sequence of the events queued with it ([`Store::queue_announced`]), which are
    /// committed in its transaction or not at all; `None` for a change set queued alone.
    ///
    /// [`Store::queue_announced`]: crate::Store::queue_announced
    pub announces: Option<u64>,
    done: oneshot::Sender<Result<()>>,
}

impl Job {
    /// A change set under the next ticket, with the pending save its saver waits on; the
    /// caller queues it.
    pub fn ticketed(
        tickets: &Arc<Tickets>,
        context: ContextId,
        changes: ContextChanges,
        announces: Option<u64>,
    ) -> (Self, PendingSave) {
        let (done, outcome) = oneshot::channel();
        let ticket = tickets.next();
        let job = Self {
            context,
            changes,
            ticket,
            announces,
            done,
        };
        let pending = PendingSave(Some(Waiting {
            outcome,
            context,
            tickets: Arc::clone(tickets),
        }));
        (job, pending)
    }
}

impl Job {
    /// Tells the saver its outcome, a failure already recorded with [`Tickets::refuse`] (and
    /// released at once when the saver is gone).
    pub fn send(self, tickets: &Tickets, outcome: Result<()>) {
        let failed = outcome.is_err();
        if self.done.send(outcome).is_err() && failed {
            tickets.release(self.context);
        }
    }
}

/// The tickets given to queued change sets, and the contexts whose events are refused because
/// a change set of theirs failed. Held while a change set is queued, so the queue's order is the
/// tickets' order.
#[derive(Debug, Default)]
pub(crate) struct Tickets(Mutex<TicketBook>);

#[derive(Debug, Default)]
struct TicketBook {
    /// The last ticket given out (0 before the first).
    last: u64,
    /// Failed change sets whose savers have not taken the failure yet, by context.
    refusing: HashMap<ContextId, u32>,
}

impl Tickets {
    fn book(&self) -> std::sync::MutexGuard<'_, TicketBook> {
        // Plain numbers: a panic elsewhere cannot leave them half-changed.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The last ticket given out, for an event of `context` appended now: every change set with
    /// this ticket or a lower one is in the queue or done. `None` while a change set of the
    /// context failed and its saver has not taken the failure.
    pub fn admit(&self, context: ContextId) -> Option<u64> {
        let book = self.book();
        (!book.refusing.contains_key(&context)).then_some(book.last)
    }

    /// Refuses the context's events until [`Tickets::release`]: a change set of it failed, and
    /// its saver may have announced what the set would have stored and goes on doing so until
    /// it learns.
    pub fn refuse(&self, context: ContextId) {
        *self.book().refusing.entry(context).or_default() += 1;
    }

    /// Gives out the next ticket.
    fn next(&self) -> u64 {
        let mut book = self.book();
        book.last += 1;
        book.last
    }

    /// A saver took its change set's failure, or never will.
    fn release(&self, context: ContextId) {
        let mut book = self.book();
        if let Some(count) = book.refusing.get_mut(&context) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                book.refusing.remove(&context);
            }
        }
    }

    /// The last ticket given out.
    #[cfg(test)]
    pub fn last(&self) -> u64 {
        self.book().last
    }
}

/// The queue in front of the writer task.
pub(crate) struct ChangeWriter {
    queue: mpsc::Sender<Job>,
    tickets: Arc<Tickets>,
}

/// The writer task's end of the queue.
pub(crate) type ChangeQueue = mpsc::Receiver<Job>;

/// A change set queued with [`Store::queue_changes`]: its outcome, once the writer has committed
/// or refused it. A refused change set's context gets no event until its outcome is taken (or
/// the pending save dropped), so whoever announced its content before the outcome stops before
/// anything more of the context is published.
///
/// [`Store::queue_changes`]: crate::Store::queue_changes
#[derive(Debug)]
pub struct PendingSave(Option<Waiting>);

#[derive(Debug)]
struct Waiting {
    outcome: oneshot::Receiver<Result<()>>,
    context: ContextId,
    tickets: Arc<Tickets>,
}

impl PendingSave {
    /// A change set that is already saved.
    pub fn saved() -> Self {
        Self(None)
    }

    /// Waits until the change set is committed (`Ok`) or refused (the store's error). A
    /// pending save dropped unread does not stop the save.
    pub async fn outcome(self) -> Result<()> {
        self.await
    }
}

/// Ready with [`PendingSave::outcome`]'s answer (like any future, not to be polled again once
/// ready).
impl std::future::Future for PendingSave {
    type Output = Result<()>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<()>> {
        let Some(waiting) = self.0.as_mut() else {
            return std::task::Poll::Ready(Ok(()));
        };
        let answer = std::task::ready!(std::pin::Pin::new(&mut waiting.outcome).poll(cx));
        if let Some(waiting) = self.0.take()
            && matches!(answer, Ok(Err(_)))
        {
            waiting.tickets.release(waiting.context);
        }
        std::task::Poll::Ready(answer.map_err(|_| StoreError::WriterStopped)?)
    }
}

impl Drop for PendingSave {
    fn drop(&mut self) {
        let Some(mut waiting) = self.0.take() else {
            return;
        };
        // Closed first: the writer either answered before (taken here) or learns that nobody
        // will take its answer (and releases the context itself).
        waiting.outcome.close();
        if let Ok(Err(_)) = waiting.outcome.try_recv() {
            waiting.tickets.release(waiting.context);
        }
    }
}

impl ChangeWriter {
    /// A queue and the end the writer task drains, with the tickets it shares with the event
    /// writer.
    pub fn new(tickets: Arc<Tickets>) -> (Self, ChangeQueue) {
        let (queue, jobs) = mpsc::channel(CHANGE_QUEUE_CAPACITY);
        (Self { queue, tickets }, jobs)
    }

    /// Queues `changes` (waiting while the queue is full) and returns once they are queued:
    /// events appended from then on are committed with them or after them.
    pub async fn submit(&self, context: ContextId, changes: ContextChanges) -> Result<PendingSave> {
        let permit = self
            .queue
            .reserve()
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        // The ticket is taken with the job sent under the book's lock, so the queue's order is
        // the tickets' order.
        let (done, outcome) = oneshot::channel();
        let mut book = self.tickets.book();
        book.last += 1;
        permit.send(Job {
            context,
            changes,
            ticket: book.last,
            announces: None,
            done,
        });
        drop(book);
        Ok(PendingSave(Some(Waiting {
            outcome,
            context,
            tickets: Arc::clone(&self.tickets),
        })))
    }

    /// Saves `changes` with whatever else waits, and returns once they are committed (or
    /// failed). A caller that stops waiting does not stop the save.
    pub async fn save(&self, context: ContextId, changes: ContextChanges) -> Result<()> {
        self.submit(context, changes).await?.outcome().await
    }
}
