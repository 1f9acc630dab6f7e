//! A context's event stream: every event is numbered and queued in the store's event log (for
//! replay after a reconnect); live subscribers receive it once the batch holding it has
//! committed, so an id a client saw always names the same event, even after a crash.

use std::sync::{Arc, Mutex, PoisonError};

use braid_protocol::{ContextEvent, ContextId, SequencedEvent};
use braid_store::{CommittedEvent, EventPublisher, LostEvents, Store};
use tokio::sync::{Notify, broadcast};

/// How many events a slow subscriber may fall behind before it must replay from the store.
pub const LIVE_BUFFER: usize = 256;

/// A committed event as the bus hands it to every subscriber: shared, so a subscriber costs
/// no copy of it, with the JSON the log stored (see [`CommittedEvent`]).
pub type LiveEvent = Arc<CommittedEvent>;

/// Publishes a context's events.
#[derive(Clone)]
pub struct EventBus {
    context: ContextId,
    store: Arc<dyn Store>,
    shared: Arc<Shared>,
}

/// What the store's writer calls back into: the live channel, and losses not yet handled.
struct Shared {
    live: broadcast::Sender<LiveEvent>,
    /// Events the store could not keep, summed until the actor takes them.
    lost: Mutex<Option<LostEvents>>,
    lost_notice: Notify,
}

impl EventPublisher for Shared {
    fn committed(&self, event: CommittedEvent) {
        // No subscriber is not an error.
        let _ = self.live.send(Arc::new(event));
    }

    fn lost(&self, lost: LostEvents) {
        tracing::error!(context = %lost.context, count = lost.count, reason = %lost.reason, "events lost: the store failed through every retry");
        let mut pending = self.lost.lock().unwrap_or_else(PoisonError::into_inner);
        match pending.as_mut() {
            Some(sum) => {
                sum.count += lost.count;
                sum.reason = lost.reason;
            }
            None => *pending = Some(lost),
        }
        drop(pending);
        self.lost_notice.notify_one();
    }
}

impl EventBus {
    /// A bus for one context.
    pub fn new(context: ContextId, store: Arc<dyn Store>) -> Self {
        let (live, _) = broadcast::channel(LIVE_BUFFER);
        Self {
            context,
            store,
            shared: Arc::new(Shared {
                live,
                lost: Mutex::new(None),
                lost_notice: Notify::new(),
            }),
        }
    }

    /// Numbers the event and queues it for the log; subscribers receive it once it is
    /// committed. Returns without waiting for the commit (but waits while the store's queue is
    /// full). A log failure is logged, and the event is never sent: a subscriber must never see
    /// an event that a replay would not give it.
    pub async fn emit(&self, event: ContextEvent) -> Option<SequencedEvent> {
        let publisher: Arc<dyn EventPublisher> = self.shared.clone();
        match self
            .store
            .append_event(self.context, &event, publisher)
            .await
        {
            Ok(sequenced) => Some(sequenced),
            Err(error) => {
                tracing::error!(context = %self.context, event = event.name(), %error, "event not logged");
                None
            }
        }
    }

    /// A receiver of events committed from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<LiveEvent> {
        self.shared.live.subscribe()
    }

    /// Waits until every event emitted so far is committed (before telling a client a message
    /// is final).
    pub async fn flush(&self) -> Result<(), braid_store::StoreError> {
        self.store.flush_events().await
    }

    /// Waits until the store reports events of this context it could not keep, and takes the
    /// report (the actor fails the context visibly).
    pub async fn lost(&self) -> LostEvents {
        loop {
            let notified = self.shared.lost_notice.notified();
            if let Some(lost) = self.take_lost() {
                return lost;
            }
            notified.await;
        }
    }

    fn take_lost(&self) -> Option<LostEvents> {
        self.shared
            .lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}
