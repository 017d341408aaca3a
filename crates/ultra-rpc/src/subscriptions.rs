//! The event patterns a connection subscribed to, and the limits on them. Both transports
//! accept the same patterns with the same limits; only how matching events reach the
//! client differs.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;
use ultra_protocol::event::pattern_matches;
use ultra_protocol::{CommandError, ErrorCode};

use crate::MAX_ID_LEN;

/// Most subscription patterns one connection may hold (per push format).
pub const MAX_PATTERNS: usize = 256;

/// Which wire shape a subscription wants its events in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{"jsonrpc":"2.0","method":<event>,"params":{event,data,source}}`
    Rpc,
    /// `{"type":"event","event":..,"data":..}` (seed 000, Unix socket only)
    Envelope,
}

/// The patterns a connection subscribed to, shared with whatever pushes its events.
#[derive(Debug, Default)]
pub struct Subscriptions {
    rpc: BTreeSet<String>,
    envelope: BTreeSet<String>,
}

impl Subscriptions {
    fn set(&mut self, format: Format) -> &mut BTreeSet<String> {
        match format {
            Format::Rpc => &mut self.rpc,
            Format::Envelope => &mut self.envelope,
        }
    }

    /// No pattern in either format.
    pub fn is_empty(&self) -> bool {
        self.rpc.is_empty() && self.envelope.is_empty()
    }

    /// Whether a pattern of this format matches `event`.
    pub fn matches(&self, format: Format, event: &str) -> bool {
        let set = match format {
            Format::Rpc => &self.rpc,
            Format::Envelope => &self.envelope,
        };
        set.iter().any(|p| pattern_matches(p, event))
    }

    /// Whether this format has any pattern.
    pub fn any(&self, format: Format) -> bool {
        match format {
            Format::Rpc => !self.rpc.is_empty(),
            Format::Envelope => !self.envelope.is_empty(),
        }
    }

    /// Add patterns; returns the patterns now active in that format.
    pub fn add(
        &mut self,
        format: Format,
        patterns: Vec<String>,
    ) -> Result<Vec<String>, CommandError> {
        let set = self.set(format);
        let added = patterns.iter().filter(|p| !set.contains(*p)).count();
        if set.len() + added > MAX_PATTERNS {
            return Err(CommandError::new(
                ErrorCode::TooLarge,
                format!("a connection may hold at most {MAX_PATTERNS} subscription patterns"),
            )
            .with_suggestion("use prefix patterns such as `buffer.*`, or `*` for everything"));
        }
        set.extend(patterns);
        Ok(set.iter().cloned().collect())
    }

    /// Remove patterns (all of this format when `None`); returns (removed, remaining).
    pub fn remove(
        &mut self,
        format: Format,
        patterns: Option<Vec<String>>,
    ) -> (Vec<String>, Vec<String>) {
        let set = self.set(format);
        let removed: Vec<String> = match patterns {
            None => std::mem::take(set).into_iter().collect(),
            Some(ps) => ps.into_iter().filter(|p| set.remove(p)).collect(),
        };
        (removed, set.iter().cloned().collect())
    }
}

/// Lock the shared subscriptions. A poisoned lock only means another task panicked
/// mid-update of a set of strings; the data is still usable.
pub fn lock(subs: &Mutex<Subscriptions>) -> MutexGuard<'_, Subscriptions> {
    subs.lock().unwrap_or_else(|p| p.into_inner())
}

/// Read an optional `events` member: absent or null → `None`; otherwise a list of
/// non-empty strings.
pub fn read_patterns(v: Option<&Value>) -> Result<Option<Vec<String>>, CommandError> {
    let bad = || {
        CommandError::new(
            ErrorCode::InvalidArguments,
            "`events` must be an array of event names or patterns",
        )
        .with_suggestion("{\"events\": [\"buffer.*\", \"file.saved\"]}; `*` matches every event")
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    _ => return Err(bad()),
                }
            }
            validate_patterns(out).map(|p| (!p.is_empty()).then_some(p))
        }
        Some(_) => Err(bad()),
    }
}

/// Check a list of patterns against the limits: at most [`MAX_PATTERNS`], each a
/// non-empty name of at most [`MAX_ID_LEN`] bytes.
pub fn validate_patterns(patterns: Vec<String>) -> Result<Vec<String>, CommandError> {
    if patterns.len() > MAX_PATTERNS {
        return Err(CommandError::new(
            ErrorCode::TooLarge,
            format!("at most {MAX_PATTERNS} patterns per subscription"),
        ));
    }
    if patterns
        .iter()
        .any(|p| p.is_empty() || p.len() > MAX_ID_LEN)
    {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            "event patterns must be non-empty names of at most 256 bytes",
        ));
    }
    Ok(patterns)
}
