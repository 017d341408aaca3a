//! Events pushed to subscribers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Source;

/// Names of the events Ultra emits.
pub mod names {
    /// A buffer's text changed (edit, undo, redo, reload).
    pub const BUFFER_CHANGED: &str = "buffer.changed";
    /// A buffer was written to disk.
    pub const FILE_SAVED: &str = "file.saved";
    /// An open file changed on disk behind Ultra's back.
    pub const FILE_CHANGED_ON_DISK: &str = "file.changedOnDisk";
    /// A command finished (successfully or not).
    pub const COMMAND_EXECUTED: &str = "command.executed";
    /// A command is waiting for a person to approve it.
    pub const CONFIRMATION_REQUESTED: &str = "confirmation.requested";
    /// A pending confirmation was approved, denied or timed out.
    pub const CONFIRMATION_RESOLVED: &str = "confirmation.resolved";
    /// An agent reported progress.
    pub const PROGRESS: &str = "ai.progress";
    /// The code index is being built: `{done, total, bytes}`.
    pub const INDEX_PROGRESS: &str = "index.progress";
    /// The code index caught up with the workspace: `{files, skipped, seconds}`.
    pub const INDEX_READY: &str = "index.ready";
    /// A language server published new diagnostics for a file:
    /// `{path, uri, language, errors, warnings, total}`.
    pub const DIAGNOSTICS_CHANGED: &str = "diagnostics.changed";
}

/// One pushed event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// The event name, e.g. `buffer.changed`.
    pub event: String,
    /// Event-specific payload.
    pub data: serde_json::Value,
    /// Who caused it, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

/// Whether an event name matches a subscription pattern: an exact name, `*`, or a
/// prefix ending in `.*` (`buffer.*`).
pub fn pattern_matches(pattern: &str, event: &str) -> bool {
    if pattern == "*" || pattern == event {
        return true;
    }
    match pattern.strip_suffix(".*") {
        Some(prefix) => {
            event.len() > prefix.len()
                && event.starts_with(prefix)
                && event.as_bytes()[prefix.len()] == b'.'
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::pattern_matches;

    #[test]
    fn patterns() {
        assert!(pattern_matches("*", "buffer.changed"));
        assert!(pattern_matches("buffer.*", "buffer.changed"));
        assert!(!pattern_matches("buf.*", "buffer.changed"));
        assert!(pattern_matches("file.saved", "file.saved"));
        assert!(!pattern_matches("file.saved", "file.savedX"));
    }
}
