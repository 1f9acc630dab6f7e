//! A context's event stream: every event is numbered and queued in the store's event log (for
//! replay after a reconnect), then broadcast to live subscribers.

use std::sync::Arc;

use braid_protocol::{ContextEvent, ContextId, SequencedEvent};
use braid_store::Store;
use tokio::sync::broadcast;

/// How many events a slow subscriber may fall behind before it must replay from the store.
pub const LIVE_BUFFER: usize = 1024;

/// Publishes a context's events.
#[derive(Clone)]
pub struct EventBus {
    context: ContextId,
    store: Arc<dyn Store>,
    live: broadcast::Sender<SequencedEvent>,
}

impl EventBus {
    /// A bus for one context.
    pub fn new(context: ContextId, store: Arc<dyn Store>) -> Self {
        let (live, _) = broadcast::channel(LIVE_BUFFER);
        Self {
            context,
            store,
            live,
        }
    }

    /// Numbers the event, queues it for the log and sends it to subscribers. A log failure is
    /// logged, and the event is not sent: a subscriber must never see an event that a replay
    /// would not give it.
    pub async fn emit(&self, event: ContextEvent) -> Option<SequencedEvent> {
        match self.store.append_event(self.context, &event).await {
            Ok(sequenced) => {
                // No subscriber is not an error.
                let _ = self.live.send(sequenced.clone());
                Some(sequenced)
            }
            Err(error) => {
                tracing::error!(context = %self.context, event = event.name(), %error, "event not logged");
                None
            }
        }
    }

    /// A receiver of events emitted from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<SequencedEvent> {
        self.live.subscribe()
    }

    /// Waits until every event emitted so far is committed (before telling a client a message
    /// is final).
    pub async fn flush(&self) -> Result<(), braid_store::StoreError> {
        self.store.flush_events().await
    }
}
