//! Sign-in tickets for the web UI. The page cannot be given the WebSocket token (it must
//! not appear in URLs, security.md A5), so `ultra serve` mints a ticket: random, kept only
//! in memory, valid for [`TICKET_TTL`], and printed to the person's terminal in a URL
//! fragment (never sent to a server). A session that signs in with one is that person:
//! its calls have source `human` and may approve confirmations.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a ticket signs in.
pub const TICKET_TTL: Duration = Duration::from_secs(12 * 60 * 60);

/// The live tickets, by their hash (the tickets themselves are not kept).
#[derive(Default)]
pub struct Tickets {
    live: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Tickets {
    /// A new ticket.
    pub fn mint(&self) -> Result<String, crate::WsError> {
        let t = crate::auth::random_hex(24)?;
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        live.retain(|_, until| *until > now);
        live.insert(*blake3::hash(t.as_bytes()).as_bytes(), now + TICKET_TTL);
        Ok(t)
    }

    /// Whether `given` is a live ticket. (Looked up by hash: no timing on the ticket.)
    pub fn valid(&self, given: &str) -> bool {
        let live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        live.get(blake3::hash(given.as_bytes()).as_bytes())
            .is_some_and(|until| *until > Instant::now())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tickets() {
        let t = super::Tickets::default();
        let a = t.mint().expect("mint");
        assert!(t.valid(&a));
        assert!(!t.valid("nope"));
        assert!(!t.valid(&a[..a.len() - 1]));
    }
}
