//! Who invoked a command.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The kind of caller. Every result, event and audit entry records it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A person at a keyboard: the editor, the web UI, a prompt on the server's terminal.
    Human,
    /// An AI agent.
    Ai,
    /// The `ultra -c` command line.
    Cli,
    /// A program on the Unix socket that did not say it is an agent.
    Ipc,
    /// Ultra itself.
    Internal,
    /// An extension.
    Extension,
}

impl SourceKind {
    /// Every kind, in declaration order.
    pub const ALL: [SourceKind; 6] = [
        SourceKind::Human,
        SourceKind::Ai,
        SourceKind::Cli,
        SourceKind::Ipc,
        SourceKind::Internal,
        SourceKind::Extension,
    ];

    /// The wire name (`"human"`, `"ai"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Human => "human",
            SourceKind::Ai => "ai",
            SourceKind::Cli => "cli",
            SourceKind::Ipc => "ipc",
            SourceKind::Internal => "internal",
            SourceKind::Extension => "extension",
        }
    }
}

/// The caller of a command, with optional tracking ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    #[serde(rename = "type")]
    pub kind: SourceKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_id: Option<String>,
    /// How the caller counts `character` in positions (default: Unicode scalar values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_encoding: Option<crate::PositionEncoding>,
}

impl Source {
    /// The position encoding the caller asked for.
    pub fn encoding(&self) -> crate::PositionEncoding {
        self.position_encoding.unwrap_or_default()
    }

    /// A source of the given kind with no ids.
    pub fn new(kind: SourceKind) -> Source {
        Source {
            kind,
            agent_id: None,
            session_id: None,
            extension_id: None,
            position_encoding: None,
        }
    }
}
