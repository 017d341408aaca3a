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
}
