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

use crate::changes::ContextChanges;
use crate::error::{Result, StoreError};
use crate::group_commit::{ChangeQueue, Job, PendingSave, Tickets};
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

/// An event the log holds, as its publisher receives it: numbered, and with the JSON the log
/// stored. The event is serialized once, when it is appended; subscribers that send it on (an
/// SSE stream) take its payload from that JSON instead of serializing it again.
#[derive(Clone, Debug, PartialEq)]
pub struct CommittedEvent {
    /// Its position in the context's log, from 1.
    pub sequence: u64,
    /// The event.
    pub event: ContextEvent,
    /// The event as the log stores it: `{"type":"<name>",` and then the payload's fields.
    pub json: String,
}

impl CommittedEvent {
    /// The payload alone (the stored JSON without its `type`), as an SSE `data:` line carries
    /// it: cut from the stored JSON, whose tag serde writes first. A JSON that does not start
    /// with the tag (not one this writer stored) is serialized again.
    pub fn payload_json(&self) -> std::borrow::Cow<'_, str> {
        let name = self.event.name();
        let cut = self
            .json
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix('"'));
        match cut {
            Some(rest) if rest.starts_with(',') => {
                let mut payload = String::with_capacity(rest.len());
                payload.push('{');
                payload.push_str(&rest[1..]);
                std::borrow::Cow::Owned(payload)
            }
            Some("}") => std::borrow::Cow::Borrowed("{}"),
            _ => std::borrow::Cow::Owned(self.event.payload_json()),
        }
    }

    /// The event with its sequence, without the stored JSON.
    pub fn sequenced(&self) -> SequencedEvent {
        SequencedEvent {
            sequence: self.sequence,
            event: self.event.clone(),
        }
    }
}

/// Receives a context's events once they are durable.
pub trait EventPublisher: Send + Sync + 'static {
    /// The event is committed. Called from the writer task, in sequence order per context, so
    /// it must not block.
    fn committed(&self, event: CommittedEvent);

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
    fn committed(&self, event: CommittedEvent) {
        // No receiver is not an error.
        let _ = self.send(SequencedEvent {
            sequence: event.sequence,
            event: event.event,
        });
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
    /// The last change set ticket given out when the event was appended: every change set
    /// queued before it has this ticket or a lower one.
    after_ticket: u64,
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

/// A database whose event writer also saves the change sets queued in a [`ChangeQueue`].
#[async_trait]
pub(crate) trait RoundSink: Send + Sync + 'static {
    /// Saves the change sets, in order, then writes the events (leaving out those of contexts
    /// whose lease has moved on from the token they carry), all in one transaction; answers the
    /// contexts whose events were left out. On an error nothing is written.
    async fn write_round(
        &self,
        changes: &[(ContextId, &ContextChanges)],
        events: &[PendingEvent],
    ) -> Result<Vec<ContextId>>;
}

/// The change sets an event writer saves with its events: their queue, the tickets they take
/// there, and the database that writes both.
pub(crate) struct ChangeRounds {
    pub queue: ChangeQueue,
    pub tickets: Arc<Tickets>,
    pub sink: Arc<dyn RoundSink>,
}

enum Command {
    /// Events, in sequence order.
    Append(Vec<PendingEvent>),
    /// A change set with the events announcing it, to be committed together.
    Announced(Box<Job>, Vec<PendingEvent>),
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
    /// The lease token under which `last` is the log's: `Some(0)` from the context's creation
    /// here, before any lease; `None` when it was numbered under no lease this store took.
    /// Every taking of a lease raises the token by one, so a lease taken with the next token
    /// was held by no one else in between, and nobody else numbered events meanwhile.
    token: Option<u64>,
}

type Counters = Arc<Mutex<HashMap<ContextId, Counter>>>;

/// Assigns sequences and feeds the writer task.
pub(crate) struct EventWriter {
    sink: Arc<dyn EventSink>,
    /// Held while numbering and queueing, so the queue's order is the sequence order.
    counters: Counters,
    queue: mpsc::Sender<Command>,
    /// The tickets of the change sets saved with the events, when there are any.
    tickets: Option<Arc<Tickets>>,
}

impl EventWriter {
    /// Starts the writer task. While many events come, a batch is committed `interval` after
    /// its first event (or when someone flushes); a few events are committed at once. (Both
    /// stores now start theirs with change sets: [`EventWriter::start_with`].)
    #[cfg(test)]
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
            None,
        )
    }

    /// Starts the writer task with an explicit retry policy, where `home` says. Committed
    /// events are announced on `notices` when given (a database that announces its commits
    /// itself passes `None`). With `rounds`, the task also saves the change sets of that queue,
    /// each round's change sets and events in one transaction.
    pub(crate) fn start_with(
        sink: Arc<dyn EventSink>,
        interval: Duration,
        retry: WriteRetry,
        notices: Option<broadcast::Sender<EventNotice>>,
        home: WriterHome,
        rounds: Option<ChangeRounds>,
    ) -> Self {
        let (queue, commands) = mpsc::channel(EVENT_QUEUE_CAPACITY);
        let counters = Counters::default();
        let (jobs, tickets, round_sink) = match rounds {
            Some(r) => (
                Some(r.queue),
                Some(Arc::clone(&r.tickets)),
                Some((r.sink, r.tickets)),
            ),
            None => (None, None, None),
        };
        spawn_writer(
            home,
            Task {
                sink: Arc::clone(&sink),
                rounds: round_sink,
                counters: Arc::clone(&counters),
                interval,
                retry,
                generations: HashMap::new(),
                notices,
            }
            .run(commands, jobs),
        );
        Self {
            sink,
            counters,
            queue,
            tickets,
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
        let mut numbered = self
            .number(context, std::slice::from_ref(event), publisher, token, None)
            .await?;
        numbered.pop().ok_or_else(stopped)
    }

    /// Queues `changes` with the events that announce them, as one command: the writer commits
    /// the change set and the events in one transaction, or neither. Only a writer that saves
    /// change sets (started with [`ChangeRounds`]) takes them.
    pub async fn announce(
        &self,
        context: ContextId,
        changes: ContextChanges,
        events: &[ContextEvent],
        publisher: Arc<dyn EventPublisher>,
        token: u64,
    ) -> Result<(PendingSave, Vec<SequencedEvent>)> {
        let mut pending = None;
        let numbered = self
            .number(
                context,
                events,
                publisher,
                token,
                Some((changes, &mut pending)),
            )
            .await?;
        Ok((pending.ok_or_else(stopped)?, numbered))
    }

    /// Numbers `events` and sends them to the writer in one command, with `changes` when given
    /// (then its pending save is put in the slot beside it).
    async fn number(
        &self,
        context: ContextId,
        events: &[ContextEvent],
        publisher: Arc<dyn EventPublisher>,
        token: u64,
        changes: Option<(ContextChanges, &mut Option<PendingSave>)>,
    ) -> Result<Vec<SequencedEvent>> {
        let changes = match (changes, &self.tickets) {
            (Some(_), None) => {
                return Err(StoreError::EventsNotWritten {
                    reason: "this store saves change sets apart from its events".to_owned(),
                });
            }
            (Some((changes, slot)), Some(tickets)) => Some((changes, slot, Arc::clone(tickets))),
            (None, _) => None,
        };
        let mut jsons = Vec::with_capacity(events.len());
        for event in events {
            jsons.push(
                serde_json::to_string(event).map_err(|e| StoreError::EventsNotWritten {
                    reason: format!("event cannot be serialized: {e}"),
                })?,
            );
        }
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
        // Read after every change set this producer queued before: the writer commits the
        // event no earlier than those.
        let after_ticket = match &self.tickets {
            None => 0,
            Some(tickets) => {
                tickets
                    .admit(context)
                    .ok_or_else(|| StoreError::EventsNotWritten {
                        reason:
                            "a change set of this context queued before the event was not saved"
                                .to_owned(),
                    })?
            }
        };
        let mut counters = lock(&self.counters);
        let counter = counters.entry(context).or_insert(Counter {
            last: None,
            generation: 0,
            token: None,
        });
        let generation = counter.generation;
        let last = counter.last.get_or_insert(stored);
        let first = *last + 1;
        *last += events.len() as u64;
        let announces = *last;
        let at = Utc::now();
        let mut numbered = Vec::with_capacity(events.len());
        let mut pending_events = Vec::with_capacity(events.len());
        for ((offset, event), json) in events.iter().enumerate().zip(jsons) {
            let sequence = first + offset as u64;
            pending_events.push(PendingEvent {
                context,
                sequence,
                generation,
                json,
                at,
                token,
                after_ticket,
                event: event.clone(),
                publisher: Arc::clone(&publisher),
            });
            numbered.push(SequencedEvent {
                sequence,
                event: event.clone(),
            });
        }
        match changes {
            None => permit.send(Command::Append(pending_events)),
            Some((changes, slot, tickets)) => {
                // The events carry the change set's own ticket, so a failure of the set
                // refuses them too.
                let (job, pending) = Job::ticketed(&tickets, context, changes, Some(announces));
                let mut events = pending_events;
                for e in &mut events {
                    e.after_ticket = job.ticket;
                }
                permit.send(Command::Announced(Box::new(job), events));
                *slot = Some(pending);
            }
        }
        Ok(numbered)
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

    /// Notes that `context` was just created and has no events, so its first event is numbered
    /// 1 without reading the log, unless someone else takes its lease first (see
    /// [`EventWriter::lease_taken`]).
    pub fn starts_empty(&self, context: ContextId) {
        lock(&self.counters).entry(context).or_insert(Counter {
            last: Some(0),
            generation: 0,
            token: Some(0),
        });
    }

    /// Notes that this store took `context`'s lease with `token`. The numbering it holds stays
    /// when the token follows the one it was known under (no one else held the lease between);
    /// otherwise the next event reads where the log stands, as another owner may have written
    /// events since.
    pub fn lease_taken(&self, context: ContextId, token: u64) {
        let mut counters = lock(&self.counters);
        let counter = counters.entry(context).or_insert(Counter {
            last: None,
            generation: 0,
            token: None,
        });
        if counter.token.and_then(|held| held.checked_add(1)) != Some(token) {
            counter.last = None;
        }
        counter.token = Some(token);
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
    /// Writes change sets with events, when the task saves change sets too, and the tickets
    /// those take.
    rounds: Option<(Arc<dyn RoundSink>, Arc<Tickets>)>,
    counters: Counters,
    interval: Duration,
    retry: WriteRetry,
    /// The current generation of every context whose numbering was stepped back after a loss.
    generations: HashMap<ContextId, u64>,
    notices: Option<broadcast::Sender<EventNotice>>,
}

/// The next change set of the queue; never, without a queue or once it is closed.
async fn next_job(jobs: &mut Option<ChangeQueue>) -> Option<Job> {
    match jobs {
        Some(queue) => queue.recv().await,
        None => std::future::pending().await,
    }
}

impl Task {
    async fn run(mut self, mut commands: mpsc::Receiver<Command>, mut jobs: Option<ChangeQueue>) {
        let mut batch: Vec<PendingEvent> = Vec::new();
        let mut waiters: Vec<oneshot::Sender<Result<(), String>>> = Vec::new();
        let mut round: Vec<Job> = Vec::new();
        // A failure no flush has reported yet.
        let mut unreported: Option<String> = None;
        let mut open = true;
        // How many events the last batch held: a busy writer gathers, a quiet one does not.
        let mut last_batch = 0usize;
        while open {
            tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => take(command, &mut batch, &mut round, &mut waiters),
                    None => break,
                },
                job = next_job(&mut jobs) => match job {
                    Some(job) => round.push(job),
                    None => jobs = None,
                },
            }
            while let Ok(command) = commands.try_recv() {
                take(command, &mut batch, &mut round, &mut waiters);
            }
            // Group commit: while many streams write, let them add to this round for a moment.
            // A few streams commit at once: their events would wait for no one (a lone
            // stream's chunks each waited the whole interval, 5 ms of every chunk's latency).
            // Change sets wait with the events: rounds that committed whatever change set had
            // just come were smaller, and a thousand streams cost 8% more CPU per chunk.
            let busy = last_batch.max(batch.len()) >= GATHER_FROM;
            if busy && waiters.is_empty() {
                let deadline = tokio::time::sleep(self.interval);
                tokio::pin!(deadline);
                loop {
                    tokio::select! {
                        _ = &mut deadline => break,
                        command = commands.recv() => match command {
                            Some(command) => {
                                take(command, &mut batch, &mut round, &mut waiters);
                                if !waiters.is_empty() {
                                    break;
                                }
                            }
                            None => {
                                open = false;
                                break;
                            }
                        },
                        job = next_job(&mut jobs) => match job {
                            Some(job) => round.push(job),
                            None => jobs = None,
                        },
                    }
                }
            }
            while let Ok(command) = commands.try_recv() {
                take(command, &mut batch, &mut round, &mut waiters);
            }
            // The change sets are taken after the events: every change set queued before an
            // event of this batch is then in this round (or was in an earlier one).
            if let Some(queue) = jobs.as_mut() {
                while let Ok(job) = queue.try_recv() {
                    round.push(job);
                }
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
            let outcome = match &self.rounds {
                Some((sink, tickets)) if !round.is_empty() => {
                    // Sets queued with their events come by the event queue, the others by
                    // theirs: a context's sets are saved in the order of their tickets.
                    round.sort_by_key(|job| job.ticket);
                    let (sink, tickets) = (Arc::clone(sink), Arc::clone(tickets));
                    self.commit_round(sink.as_ref(), &tickets, &mut round, &mut batch)
                        .await
                }
                _ if !batch.is_empty() => self.commit(&mut batch).await,
                _ => Ok(()),
            };
            if let Err(reason) = outcome {
                unreported = Some(reason);
            }
            batch.clear();
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

    /// Saves the round's change sets with the batch in one transaction. Each saver learns its
    /// outcome before the events are published, so an actor has its own change set stored when
    /// a client that saw the event asks it. When the transaction fails, the change sets are
    /// saved one by one (each with the events queued with it, and the earlier events of its
    /// context) and the other events apart, with retries. A context whose change set failed
    /// loses the events it queued after the set (they may speak of what it would have stored),
    /// and gets none until its saver has taken the failure ([`Tickets::refuse`]).
    async fn commit_round(
        &mut self,
        sink: &dyn RoundSink,
        tickets: &Tickets,
        round: &mut Vec<Job>,
        batch: &mut Vec<PendingEvent>,
    ) -> Result<(), String> {
        let sets: Vec<(ContextId, &ContextChanges)> =
            round.iter().map(|j| (j.context, &j.changes)).collect();
        let started = std::time::Instant::now();
        let outcome = sink.write_round(&sets, batch).await;
        drop(sets);
        tracing::debug!(
            changes = round.len(),
            events = batch.len(),
            elapsed_us = started.elapsed().as_micros() as u64,
            ok = outcome.is_ok(),
            "round committed"
        );
        let error = match outcome {
            Ok(fenced) => {
                for job in round.drain(..) {
                    job.send(tickets, Ok(()));
                }
                if !fenced.is_empty() {
                    self.refuse(batch, &fenced);
                }
                self.publish(batch);
                return Ok(());
            }
            Err(error) => error,
        };
        let mut outcomes = Vec::with_capacity(round.len());
        let mut following = Vec::new();
        // Events saved with their change sets, one by one below: committed before the rest.
        let mut announced = Vec::new();
        if round.len() == 1 && batch.is_empty() {
            outcomes.push(Err(error));
        } else {
            tracing::debug!(changes = round.len(), %error, "a round failed; saving its change sets one by one");
            for job in round.iter() {
                // A set queued with its events is saved with them, and with the earlier
                // events of its context still waiting, so the log only ever grows by a prefix.
                let mut own = Vec::new();
                if let Some(last) = job.announces {
                    let (with, rest) = std::mem::take(batch)
                        .into_iter()
                        .partition(|e| e.context == job.context && e.sequence <= last);
                    own = with;
                    *batch = rest;
                }
                match sink.write_round(&[(job.context, &job.changes)], &own).await {
                    Ok(fenced) => {
                        if !fenced.is_empty() {
                            self.refuse(&mut own, &fenced);
                        }
                        announced.append(&mut own);
                        outcomes.push(Ok(()));
                    }
                    Err(error) => {
                        batch.append(&mut own);
                        batch.sort_by_key(|e| (e.context, e.sequence));
                        // A context's events are in sequence order: what follows the first one
                        // queued after its failed change set goes too, so the log keeps no gap.
                        let mut after = false;
                        batch.retain_mut(|e| {
                            if e.context == job.context && (after || e.after_ticket >= job.ticket) {
                                after = true;
                                following.push((e.context, Arc::clone(&e.publisher)));
                                false
                            } else {
                                true
                            }
                        });
                        outcomes.push(Err(error));
                    }
                }
            }
        }
        let failed: Vec<(ContextId, u64)> = round
            .iter()
            .zip(&outcomes)
            .filter(|(_, outcome)| outcome.is_err())
            .map(|(job, _)| (job.context, job.ticket))
            .collect();
        // From here on, the failed contexts' events are refused, until their savers have taken
        // the failures.
        for (context, _) in &failed {
            tickets.refuse(*context);
        }
        self.publish(&mut announced);
        let committed = if batch.is_empty() {
            Ok(())
        } else {
            self.commit(batch).await
        };
        // Before the savers learn of a failure, their contexts' numbering is read again from
        // the log, and what they queued before the refusal is dropped as stale: the events a
        // saver sends once it knows are numbered after what was committed, with no gap.
        {
            let mut counters = lock(&self.counters);
            for (context, _) in &failed {
                if let Some(counter) = counters.get_mut(context) {
                    counter.last = None;
                    counter.generation += 1;
                    self.generations.insert(*context, counter.generation);
                }
            }
        }
        if !following.is_empty() {
            report_lost(
                following.into_iter(),
                "a change set queued before these events was not saved",
            );
        }
        for (job, outcome) in round.drain(..).zip(outcomes) {
            job.send(tickets, outcome);
        }
        committed
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
                    self.publish(batch);
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

    /// Hands each committed event to its publisher, in order, and announces the contexts' new
    /// ends.
    fn publish(&self, batch: &mut Vec<PendingEvent>) {
        let mut last: HashMap<ContextId, u64> = HashMap::new();
        for e in batch.drain(..) {
            last.insert(e.context, e.sequence);
            e.publisher.committed(CommittedEvent {
                sequence: e.sequence,
                event: e.event,
                json: e.json,
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
    }

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
    round: &mut Vec<Job>,
    waiters: &mut Vec<oneshot::Sender<Result<(), String>>>,
) {
    match command {
        Command::Append(events) => batch.extend(events),
        Command::Announced(job, events) => {
            round.push(*job);
            batch.extend(events);
        }
        Command::Flush(done) => waiters.push(done),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use braid_protocol::{ContentDelta, MessageId};

    use super::*;
    use crate::group_commit::Tickets;

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
        fn committed(&self, event: CommittedEvent) {
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
            turn_id: None,
            branch: None,
        })
    }

    #[test]
    fn a_committed_events_payload_is_cut_from_its_stored_json_and_equals_the_serialized_one() {
        let context = ContextId::new();
        let events = [
            delta(context),
            ContextEvent::Heartbeat(braid_protocol::Heartbeat {
                timestamp: Utc::now(),
            }),
            ContextEvent::Error(braid_protocol::ErrorEvent {
                context_id: context,
                code: braid_protocol::ErrorCode::Internal,
                message: "a \"quoted\" type:\"x\", and a }".to_owned(),
                recoverable: true,
                turn_id: None,
                branch: None,
            }),
        ];
        for event in events {
            let committed = CommittedEvent {
                sequence: 7,
                json: serde_json::to_string(&event).unwrap(),
                event,
            };
            let payload = committed.payload_json();
            let cut: serde_json::Value = serde_json::from_str(&payload).unwrap();
            let serialized: serde_json::Value =
                serde_json::from_str(&committed.event.payload_json()).unwrap();
            assert_eq!(cut, serialized);
            assert!(cut.get("type").is_none(), "{cut}");
        }
        // The payload comes from the stored JSON, not from the event.
        let mut stored = delta(context);
        if let ContextEvent::ContentDelta(d) = &mut stored {
            d.delta = "as the log holds it".to_owned();
        }
        let committed = CommittedEvent {
            sequence: 8,
            json: serde_json::to_string(&stored).unwrap(),
            event: delta(context),
        };
        assert!(committed.payload_json().contains("as the log holds it"));
    }

    #[test]
    fn a_stored_json_without_the_tag_first_gives_the_serialized_payload() {
        let event = delta(ContextId::new());
        let mut reordered: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&event.payload_json()).unwrap();
        reordered.insert("type".to_owned(), "content_delta".into());
        let committed = CommittedEvent {
            sequence: 1,
            json: serde_json::to_string(&reordered).unwrap(),
            event: event.clone(),
        };
        assert!(!committed.json.starts_with("{\"type\""));
        assert_eq!(committed.payload_json(), event.payload_json());
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
            None,
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
    async fn a_context_noted_as_new_numbers_from_one_without_reading_the_log() {
        // The sink's log says 41 for every context: only a context not read from it starts at 1.
        let sink = Arc::new(RecordingSink::default());
        let writer = EventWriter::start(sink.clone(), Duration::from_millis(1), None);
        let collector = Arc::new(Collector::default());
        let (new, old) = (ContextId::new(), ContextId::new());
        writer.starts_empty(new);
        for context in [new, old, new] {
            writer
                .append(context, &delta(context), collector.clone(), 0)
                .await
                .unwrap();
        }
        writer.flush().await.unwrap();
        let events = sink.events.lock().unwrap().clone();
        assert_eq!(events, vec![(new, 1), (old, 42), (new, 2)]);
    }

    #[tokio::test]
    async fn a_lease_taken_with_the_next_token_keeps_the_numbering_and_any_other_reads_the_log() {
        // The sink's log says 41 for every context: a read of it gives 42 again, where a kept
        // numbering goes on.
        let sink = Arc::new(RecordingSink::default());
        let writer = EventWriter::start(sink.clone(), Duration::from_millis(1), None);
        let collector = Arc::new(Collector::default());
        let (created, found, unleased) = (ContextId::new(), ContextId::new(), ContextId::new());
        writer.starts_empty(created);
        let mut numbered = Vec::new();
        for (context, token) in [
            // Created here, then the first lease: no one held it before.
            (created, Some(1)),
            (created, Some(2)),
            // Token 3 went to someone else: the log is read.
            (created, Some(4)),
            // Not created here: the log is read once, then the numbering is kept.
            (found, Some(7)),
            (found, None),
            (found, Some(8)),
            // Numbered under no lease: the first lease reads the log, even with token 1.
            (unleased, None),
            (unleased, None),
            (unleased, Some(1)),
        ] {
            if let Some(token) = token {
                writer.lease_taken(context, token);
            }
            let event = writer
                .append(context, &delta(context), collector.clone(), 0)
                .await
                .unwrap();
            numbered.push(event.sequence);
        }
        assert_eq!(numbered, vec![1, 2, 42, 42, 43, 44, 42, 43, 42]);
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
        // What taking the context's lease again, after another owner held it, does.
        writer.lease_taken(context, 2);
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

    /// A round as written: the contexts of its change sets, and its events.
    type Round = (Vec<ContextId>, Vec<(ContextId, u64)>);

    /// A database that saves change sets with events: it records each round (the contexts of
    /// its change sets, and its events), refuses any round holding a change set of `bad`, and
    /// answers a context's stored maximum from what it committed. Its first round waits at a
    /// gate, so that more work queues behind it.
    struct RoundRecorder {
        rounds: std::sync::Mutex<Vec<Round>>,
        bad: ContextId,
        entered: tokio::sync::Notify,
        gate: tokio::sync::Semaphore,
    }

    impl RoundRecorder {
        fn new(bad: ContextId, gated: bool) -> Arc<Self> {
            Arc::new(Self {
                rounds: std::sync::Mutex::new(Vec::new()),
                bad,
                entered: tokio::sync::Notify::new(),
                gate: tokio::sync::Semaphore::new(if gated { 0 } else { 1000 }),
            })
        }

        fn rounds(&self) -> Vec<Round> {
            self.rounds.lock().unwrap().clone()
        }
    }

    #[async_trait]
    impl RoundSink for RoundRecorder {
        async fn write_round(
            &self,
            changes: &[(ContextId, &ContextChanges)],
            events: &[PendingEvent],
        ) -> Result<Vec<ContextId>> {
            self.entered.notify_one();
            let _permit = self.gate.acquire().await.unwrap();
            let failed = changes.iter().any(|(c, _)| *c == self.bad);
            let events_written = if failed {
                Vec::new()
            } else {
                events.iter().map(|e| (e.context, e.sequence)).collect()
            };
            self.rounds
                .lock()
                .unwrap()
                .push((changes.iter().map(|(c, _)| *c).collect(), events_written));
            if failed {
                return Err(StoreError::ContextNotFound(self.bad));
            }
            Ok(Vec::new())
        }
    }

    #[async_trait]
    impl EventSink for RoundRecorder {
        async fn write(&self, batch: &[PendingEvent]) -> Result<Vec<ContextId>> {
            self.write_round(&[], batch).await
        }

        async fn max_sequence(&self, context: ContextId) -> Result<u64> {
            let rounds = self.rounds.lock().unwrap();
            let stored = rounds.iter().flat_map(|(_, events)| events);
            Ok(stored
                .filter(|(c, _)| *c == context)
                .map(|(_, sequence)| *sequence)
                .max()
                .unwrap_or(0))
        }
    }

    /// An event writer that also saves change sets into `sink`, and its change queue.
    fn round_writer(
        sink: &Arc<RoundRecorder>,
    ) -> (EventWriter, crate::group_commit::ChangeWriter, Arc<Tickets>) {
        let tickets = Arc::new(Tickets::default());
        let (changes, queue) = crate::group_commit::ChangeWriter::new(Arc::clone(&tickets));
        let events = EventWriter::start_with(
            sink.clone(),
            Duration::from_millis(1),
            WriteRetry::default(),
            None,
            WriterHome::Runtime,
            Some(ChangeRounds {
                queue,
                tickets: Arc::clone(&tickets),
                sink: sink.clone(),
            }),
        );
        (events, changes, tickets)
    }

    #[tokio::test]
    async fn change_sets_waiting_together_commit_in_one_round_and_a_bad_one_fails_alone() {
        let bad = ContextId::new();
        let sink = RoundRecorder::new(bad, true);
        let (_events, changes, tickets) = round_writer(&sink);
        let changes = Arc::new(changes);
        let save = |c: ContextId| {
            let changes = changes.clone();
            tokio::spawn(async move { changes.save(c, ContextChanges::new()).await })
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
        while tickets.last() < 1 + waiting.len() as u64 {
            tokio::task::yield_now().await;
        }
        sink.gate.add_permits(100);

        assert!(first_save.await.unwrap().is_ok());
        for (c, s) in waiting.iter().zip(saves) {
            let outcome = s.await.unwrap();
            assert_eq!(outcome.is_err(), *c == bad, "{c}: {outcome:?}");
        }
        let rounds: Vec<Vec<ContextId>> = sink.rounds().into_iter().map(|(c, _)| c).collect();
        let mut expected = vec![vec![first], waiting.clone()];
        expected.extend(waiting.iter().map(|c| vec![*c]));
        assert_eq!(
            rounds, expected,
            "one round of the four waiting, refused, then each alone in order"
        );
    }

    #[tokio::test]
    async fn an_event_appended_after_a_change_set_is_committed_with_it_and_published_after_its_saver_knows()
     {
        let sink = RoundRecorder::new(ContextId::new(), false);
        let (events, changes, _) = round_writer(&sink);
        let context = ContextId::new();
        let pending = changes
            .submit(context, ContextChanges::new())
            .await
            .unwrap();
        let (live, mut published) = broadcast::channel(4);
        events
            .append(context, &delta(context), Arc::new(live), 0)
            .await
            .unwrap();
        assert!(
            published.try_recv().is_err(),
            "nothing is published before the round commits"
        );
        pending.outcome().await.unwrap();
        events.flush().await.unwrap();
        assert_eq!(published.try_recv().unwrap().sequence, 1);
        assert_eq!(
            sink.rounds(),
            vec![(vec![context], vec![(context, 1)])],
            "the change set and the event in one transaction"
        );
    }

    #[tokio::test]
    async fn events_appended_after_a_change_set_that_fails_are_lost_and_numbering_continues_from_the_log()
     {
        let bad = ContextId::new();
        let sink = RoundRecorder::new(bad, false);
        let (events, changes, _) = round_writer(&sink);
        let other = ContextId::new();
        let mine = Arc::new(Collector::default());
        let theirs = Arc::new(Collector::default());
        // Appended before the change set: kept.
        events
            .append(bad, &delta(bad), mine.clone(), 0)
            .await
            .unwrap();
        let pending = changes.submit(bad, ContextChanges::new()).await.unwrap();
        // Appended after it, before its outcome is known: it may speak of what the set stores.
        events
            .append(bad, &delta(bad), mine.clone(), 0)
            .await
            .unwrap();
        events
            .append(other, &delta(other), theirs.clone(), 0)
            .await
            .unwrap();
        // The round has failed, and its saver has not taken the failure: the context's events
        // are refused, since its saver may still be announcing what the set would have stored.
        events.flush().await.unwrap();
        assert!(
            events
                .append(bad, &delta(bad), mine.clone(), 0)
                .await
                .is_err()
        );
        assert!(pending.outcome().await.is_err());
        assert_eq!(*mine.committed.lock().unwrap(), vec![1]);
        let lost = mine.lost.lock().unwrap().clone();
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert_eq!(lost[0].count, 1);
        assert_eq!(
            *theirs.committed.lock().unwrap(),
            vec![1],
            "another context's events are committed"
        );
        // Once the saver knows, its next event follows the last one stored, with no gap.
        let next = events
            .append(bad, &delta(bad), mine.clone(), 0)
            .await
            .unwrap();
        events.flush().await.unwrap();
        assert_eq!(next.sequence, 2);
        assert_eq!(*mine.committed.lock().unwrap(), vec![1, 2]);
    }

    #[tokio::test]
    async fn a_failed_change_set_whose_saver_is_gone_refuses_no_event() {
        let bad = ContextId::new();
        let sink = RoundRecorder::new(bad, false);
        let (events, changes, _) = round_writer(&sink);
        let mine = Arc::new(Collector::default());
        drop(changes.submit(bad, ContextChanges::new()).await.unwrap());
        events.flush().await.unwrap();
        let queued = changes.submit(bad, ContextChanges::new()).await.unwrap();
        events.flush().await.unwrap();
        // Taken after the failure was answered.
        drop(queued);
        events
            .append(bad, &delta(bad), mine.clone(), 0)
            .await
            .unwrap();
        events.flush().await.unwrap();
        assert_eq!(*mine.committed.lock().unwrap(), vec![1]);
    }
}
