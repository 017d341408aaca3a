//! The JSON-RPC session both network transports serve: who the caller is, which events it
//! subscribed to, how large a batch may be, and an audit entry for every request refused
//! before it reached the executor. The Unix socket (`ultra-ipc`) and the WebSocket
//! (`ultra-ws`) keep only what is theirs: framing, the handshake, origin checks and how
//! pushed events reach their client.

pub mod identity;
pub mod session;
pub mod subscriptions;

pub use identity::{Identity, MAX_ID_LEN, claim};
pub use session::Session;
pub use subscriptions::{Format, MAX_PATTERNS, Subscriptions};

/// The notification sent when a subscriber fell behind and events were dropped.
pub const LAGGED: &str = "events.lagged";
