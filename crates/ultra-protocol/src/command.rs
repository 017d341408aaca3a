//! The wire description of a registered command (`ultra.listCommands`, `api.info`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// MCP-style risk annotations of a command.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Changes nothing.
    pub read_only: bool,
    /// May destroy data (delete, overwrite without undo).
    pub destructive: bool,
    /// Repeating the call with the same arguments has no further effect.
    pub idempotent: bool,
    /// Reaches outside the workspace (network, processes).
    pub open_world: bool,
}

/// One runnable example of a command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExampleInfo {
    pub description: String,
    pub args: serde_json::Value,
    /// The error code the example shows the call failing with, when it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Everything a client needs to call a command correctly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    pub id: String,
    pub title: String,
    pub category: String,
    pub description: String,
    /// JSON Schema (2020-12) of the arguments.
    pub args: serde_json::Value,
    /// JSON Schema (2020-12) of the result data.
    pub returns: serde_json::Value,
    /// A one-line usage summary derived from the argument schema.
    pub usage: String,
    pub examples: Vec<ExampleInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keybinding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    pub ai_exposed: bool,
    pub annotations: Annotations,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// What the command reaches: files, processes, terminals, network.
    #[serde(default)]
    pub touches: Touches,
    /// For another name of an operation (a seed's method), the operation it reaches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// What a command reaches beyond the editor's own state, declared once in its spec. The
/// `security` settings gate these, not names or categories, so a new command cannot slip
/// past them: one that declares nothing does not register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Touches {
    /// Reads workspace files or shows their content (buffers included).
    pub files_read: bool,
    /// Writes, creates, deletes or renames workspace files (the git index included).
    pub files_write: bool,
    /// Starts programs (or hands lines to a shell that does).
    pub processes: bool,
    /// Opens, drives or reads terminals.
    pub terminals: bool,
    /// Reaches the network.
    pub network: bool,
}

impl Touches {
    /// Nothing beyond the editor's own state (cursors, views, the registry).
    pub const NOTHING: Touches = Touches {
        files_read: false,
        files_write: false,
        processes: false,
        terminals: false,
        network: false,
    };
    /// Reads files.
    pub const READ: Touches = Touches {
        files_read: true,
        ..Touches::NOTHING
    };
    /// Reads and writes files.
    pub const WRITE: Touches = Touches {
        files_read: true,
        files_write: true,
        ..Touches::NOTHING
    };
    /// Starts processes.
    pub const PROCESSES: Touches = Touches {
        processes: true,
        ..Touches::NOTHING
    };
    /// Uses terminals.
    pub const TERMINALS: Touches = Touches {
        terminals: true,
        ..Touches::NOTHING
    };
    /// Reaches the network.
    pub const NETWORK: Touches = Touches {
        network: true,
        ..Touches::NOTHING
    };

    /// Both sets.
    pub const fn and(self, o: Touches) -> Touches {
        Touches {
            files_read: self.files_read || o.files_read,
            files_write: self.files_write || o.files_write,
            processes: self.processes || o.processes,
            terminals: self.terminals || o.terminals,
            network: self.network || o.network,
        }
    }
}
