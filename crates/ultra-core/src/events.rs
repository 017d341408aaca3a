//! The event bus: every pushed notification goes through one broadcast channel.

use tokio::sync::broadcast;
use ultra_protocol::{Event, Source};

/// Broadcasts events to every subscriber. Slow subscribers lose old events and are told
/// how many (tokio's `Lagged`), rather than slowing the sender.
#[derive(Clone)]
pub struct EventBus {
    tx: broadcast::Sender<Event>,
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus::new(4096)
    }
}

impl EventBus {
    /// A bus keeping up to `capacity` undelivered events per subscriber.
    pub fn new(capacity: usize) -> EventBus {
        let (tx, _) = broadcast::channel(capacity);
        EventBus { tx }
    }

    /// Whether anyone listens; lets hot paths skip building event bodies.
    pub fn is_listened(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// Emit an event whose body is built only if someone listens.
    pub fn emit_with(
        &self,
        event: &str,
        source: Option<&Source>,
        data: impl FnOnce() -> serde_json::Value,
    ) {
        if self.is_listened() {
            self.emit(event, data(), source);
        }
    }

    /// Emit an event. Cheap when nobody listens, but the body has been built by then; see
    /// [`EventBus::emit_with`].
    pub fn emit(&self, event: &str, data: serde_json::Value, source: Option<&Source>) {
        if self.tx.receiver_count() == 0 {
            return;
        }
        let _ = self.tx.send(Event {
            event: event.to_string(),
            data,
            source: source.cloned(),
        });
    }

    /// A new subscription receiving every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.tx.subscribe()
    }
}
