//! `GET /v1/contexts/{id}/events`: a context's events as Server-Sent Events.
//!
//! Every event carries its sequence in the context's event log as the SSE `id:`. A client that
//! reconnects with `Last-Event-ID` (or `?after=N`) gets what it missed from the store, then the
//! live events, with no gap and no duplicate: the stream subscribes to the live events first,
//! then replays the log, and drops any live event at or below the last sequence it sent. Live
//! events are published only once committed, so an event published after the subscription is
//! either in the replay (and dropped from the live side) or arrives live. A client that reads
//! too slowly falls behind the live buffer; it is then switched to replay from the store, so it
//! never holds the context back.
//!
//! A resume id above the context's last committed event (the database was restored, or the
//! context recreated) cannot be placed: the client gets an `error` event with the code
//! `resume_point_unknown`, telling it to reload the context's messages, and the stream goes on
//! live from the log's end.

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::Event;
use braid_context::ContextHandle;
use braid_context::events::LiveEvent;
use braid_protocol::{ContextEvent, ContextId, ErrorCode, ErrorEvent, Heartbeat, SequencedEvent};
use futures::Stream;
use tokio::sync::{broadcast, mpsc};

use crate::app::App;

/// How many events one replay query reads.
const REPLAY_PAGE: u32 = 1000;
/// Events buffered between the stream's task and the HTTP connection.
const CONNECTION_BUFFER: usize = 256;

/// Where a stream starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamStart {
    /// With the next live event.
    Live,
    /// After this sequence (0 replays everything).
    After(u64),
}

/// An event of the log, in either form a stream gets it: live from the context's bus (with
/// the JSON the log stored) or read back from the log.
trait Logged {
    /// Its position in the log: the SSE `id:`.
    fn sequence(&self) -> u64;
    /// The event.
    fn event(&self) -> &ContextEvent;
    /// Its payload as JSON: the SSE `data:`.
    fn payload(&self) -> Cow<'_, str>;

    /// Its SSE form.
    fn sse(&self) -> Event {
        Event::default()
            .event(self.event().name())
            .id(self.sequence().to_string())
            .data(self.payload())
    }
}

impl Logged for SequencedEvent {
    fn sequence(&self) -> u64 {
        self.sequence
    }

    fn event(&self) -> &ContextEvent {
        &self.event
    }

    fn payload(&self) -> Cow<'_, str> {
        Cow::Owned(self.event.payload_json())
    }
}

/// A live event's payload is cut from the JSON the log stored, not serialized again.
impl Logged for LiveEvent {
    fn sequence(&self) -> u64 {
        self.sequence
    }

    fn event(&self) -> &ContextEvent {
        &self.event
    }

    fn payload(&self) -> Cow<'_, str> {
        self.payload_json()
    }
}

/// An unlogged event (heartbeat, shutdown notice): no `id:`, so the client's `Last-Event-ID`
/// stays where it was.
fn unlogged(event: &ContextEvent) -> Event {
    Event::default()
        .event(event.name())
        .data(event.payload_json())
}

/// Starts streaming a context's events; the stream ends when the client leaves or the server
/// shuts down.
pub fn stream(
    app: Arc<App>,
    handle: ContextHandle,
    start: StreamStart,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let (tx, rx) = mpsc::channel(CONNECTION_BUFFER);
    let live = handle.subscribe();
    tokio::spawn(run(app, handle, live, start, tx));
    futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    })
}

/// Why the stream's task stopped.
enum Stop {
    ClientGone,
    Shutdown,
}

struct Follower {
    app: Arc<App>,
    context: ContextId,
    tx: mpsc::Sender<Event>,
    /// The last sequence sent; `None` until the first one when the stream started live.
    cursor: Option<u64>,
}

/// The timer of a stream's heartbeats: the first after one period.
fn heartbeat_timer(app: &App) -> tokio::time::Interval {
    tokio::time::interval_at(
        tokio::time::Instant::now() + app.config.heartbeat,
        app.config.heartbeat.max(Duration::from_millis(10)),
    )
}

impl Follower {
    /// Sends a heartbeat (it has no id: it is not in the log).
    async fn beat(&mut self) -> Result<(), Stop> {
        let beat = ContextEvent::Heartbeat(Heartbeat {
            timestamp: chrono::Utc::now(),
        });
        self.tx
            .send(unlogged(&beat))
            .await
            .map_err(|_| Stop::ClientGone)
    }

    async fn send(&mut self, e: &impl Logged) -> Result<(), Stop> {
        let sequence = e.sequence();
        if self.cursor.is_some_and(|c| sequence <= c) {
            return Ok(());
        }
        self.tx.send(e.sse()).await.map_err(|_| Stop::ClientGone)?;
        self.cursor = Some(sequence);
        Ok(())
    }

    /// Checks that the resume point is in the log; if not, tells the client to reload and moves
    /// the cursor to the log's end.
    async fn place_resume_point(&mut self) -> Result<(), Stop> {
        let Some(after) = self.cursor.filter(|after| *after > 0) else {
            return Ok(());
        };
        let store = self.app.registry.services().store.clone();
        let last = match store.last_event_sequence(self.context).await {
            Ok(last) => last,
            Err(error) => {
                tracing::error!(context = %self.context, %error, "the event log's end not read");
                return Ok(());
            }
        };
        if after <= last {
            return Ok(());
        }
        tracing::info!(context = %self.context, after, last, "resume point beyond the event log; the client is told to reload");
        let notice = ContextEvent::Error(ErrorEvent {
            context_id: self.context,
            code: ErrorCode::ResumePointUnknown,
            message: format!(
                "event {after} is not in this context's event log (it ends at {last}): the data was restored or the context recreated; reload the conversation"
            ),
            recoverable: true,
            turn_id: None,
            branch: None,
        });
        self.tx
            .send(unlogged(&notice))
            .await
            .map_err(|_| Stop::ClientGone)?;
        self.cursor = Some(last);
        Ok(())
    }

    /// Tells the client why its stream ends, when the server is shutting down.
    async fn finish(&self, outcome: Result<(), Stop>) {
        if let Err(Stop::Shutdown) = outcome {
            let notice = ContextEvent::Error(ErrorEvent {
                context_id: self.context,
                code: ErrorCode::Internal,
                message: "the server is shutting down; reconnect with Last-Event-ID to continue"
                    .into(),
                recoverable: true,
                turn_id: None,
                branch: None,
            });
            let _ = self.tx.send(unlogged(&notice)).await;
        }
    }

    /// Sends every logged event after the cursor.
    async fn replay(&mut self) -> Result<(), Stop> {
        let Some(mut after) = self.cursor else {
            return Ok(());
        };
        let store = self.app.registry.services().store.clone();
        loop {
            let page = match store.events_after(self.context, after, REPLAY_PAGE).await {
                Ok(page) => page,
                Err(error) => {
                    tracing::error!(context = %self.context, %error, "event replay failed");
                    return Ok(());
                }
            };
            let Some(last) = page.last().map(|e| e.sequence) else {
                return Ok(());
            };
            for e in &page {
                self.send(e).await?;
            }
            after = last;
        }
    }
}

async fn run(
    app: Arc<App>,
    mut handle: ContextHandle,
    mut live: broadcast::Receiver<LiveEvent>,
    start: StreamStart,
    tx: mpsc::Sender<Event>,
) {
    let _open = app.metrics.open_stream();
    let context = handle.id();
    let shutdown = app.shutdown.clone();
    let mut heartbeat = heartbeat_timer(&app);
    let mut f = Follower {
        app: app.clone(),
        context,
        tx,
        cursor: match start {
            StreamStart::Live => None,
            StreamStart::After(n) => Some(n),
        },
    };
    let outcome: Result<(), Stop> = async {
        f.place_resume_point().await?;
        f.replay().await?;
        loop {
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => return Err(Stop::Shutdown),
                _ = f.tx.closed() => return Err(Stop::ClientGone),
                received = live.recv() => match received {
                    Ok(e) => f.send(&e).await?,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(%context, missed, "slow event stream switched to replay");
                        f.replay().await?;
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        (handle, live) = resubscribe(&f.app, context).await?;
                        f.replay().await?;
                    }
                },
                _ = heartbeat.tick() => {
                    f.beat().await?;
                    // An idle context may have been unloaded and loaded again with a new
                    // event bus: follow the new one.
                    if !handle.is_alive() {
                        (handle, live) = resubscribe(&f.app, context).await?;
                        f.replay().await?;
                    }
                }
            }
        }
    }
    .await;
    f.finish(outcome).await;
}

/// Streams a context's events from the shared event log, for a replica that does not run the
/// context (PostgreSQL): fed by the replica's one log reader ([`crate::log_feed`]), which the
/// store's event notices (LISTEN/NOTIFY) wake, with the same ids, replay and `Last-Event-ID`
/// behaviour as the owner's stream. It goes on across a change of owner, since every owner
/// writes the same log.
pub fn follow_log(
    app: Arc<App>,
    context: ContextId,
    start: StreamStart,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let (tx, rx) = mpsc::channel(CONNECTION_BUFFER);
    // Subscribed before the first read, so no commit falls between the two.
    let feed = app.log_feeds.subscribe(context);
    tokio::spawn(run_from_log(app, context, feed, start, tx));
    futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|e| (Ok::<_, Infallible>(e), rx))
    })
}

async fn run_from_log(
    app: Arc<App>,
    context: ContextId,
    mut feed: broadcast::Receiver<SequencedEvent>,
    start: StreamStart,
    tx: mpsc::Sender<Event>,
) {
    let _open = app.metrics.open_stream();
    let shutdown = app.shutdown.clone();
    let mut heartbeat = heartbeat_timer(&app);
    let cursor = match start {
        StreamStart::After(n) => Some(n),
        // A live stream starts at the log's end; without it, it cannot start at all (from 0 it
        // would replay the whole history as if it were new).
        StreamStart::Live => match app
            .registry
            .services()
            .store
            .last_event_sequence(context)
            .await
        {
            Ok(last) => Some(last),
            Err(error) => {
                tracing::error!(%context, %error, "the event log's end not read; the stream ends");
                let notice = ContextEvent::Error(ErrorEvent {
                    context_id: context,
                    code: ErrorCode::StorageFailed,
                    message: format!(
                        "the event log could not be read ({error}); reconnect to try again"
                    ),
                    recoverable: true,
                    turn_id: None,
                    branch: None,
                });
                let _ = tx.send(unlogged(&notice)).await;
                return;
            }
        },
    };
    let mut f = Follower {
        app,
        context,
        tx,
        cursor,
    };
    let outcome: Result<(), Stop> = async {
        f.place_resume_point().await?;
        f.replay().await?;
        if let Some(cursor) = f.cursor {
            f.app.log_feeds.caught_up(context, cursor);
        }
        loop {
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => return Err(Stop::Shutdown),
                _ = f.tx.closed() => return Err(Stop::ClientGone),
                received = feed.recv() => match received {
                    Ok(e) => {
                        // An event past the next one: the ones between were handed out
                        // before this stream's replay ended, or skipped; the log has them.
                        if f.cursor.is_some_and(|c| e.sequence > c + 1) {
                            f.replay().await?;
                        }
                        f.send(&e).await?;
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(%context, missed, "slow event stream switched to replay");
                        f.replay().await?;
                    }
                    Err(broadcast::error::RecvError::Closed) => return Err(Stop::Shutdown),
                },
                _ = heartbeat.tick() => {
                    f.beat().await?;
                }
            }
        }
    }
    .await;
    f.finish(outcome).await;
}

async fn resubscribe(
    app: &App,
    context: ContextId,
) -> Result<(ContextHandle, broadcast::Receiver<LiveEvent>), Stop> {
    match app.registry.get(context).await {
        Ok(handle) => {
            let live = handle.subscribe();
            Ok((handle, live))
        }
        Err(error) => {
            tracing::info!(%context, %error, "event stream ends: the context is gone");
            Err(Stop::ClientGone)
        }
    }
}
