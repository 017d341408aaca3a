//! The seed-000 IPC envelope on the Unix socket: `{id, type: execute|batch|query|subscribe}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{CommandResult, SourceKind};

/// One command inside a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchItem {
    pub command: String,
    #[serde(default)]
    pub args: Option<Value>,
}

/// A request in the seed-000 envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpcRequest {
    #[serde(default)]
    pub id: Value,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<BatchItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The caller's source kind. `human` and `internal` cannot be claimed over the socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceKind>,
}

/// The error member of an envelope response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpcError {
    pub code: String,
    pub message: String,
}

/// What `result` holds: one result (execute, query) or one per batch item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IpcResult {
    One(Box<CommandResult>),
    Many(Vec<CommandResult>),
}

/// A response in the seed-000 envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpcResponse {
    pub id: Value,
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<IpcResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<IpcError>,
}

/// A pushed event in the seed-000 envelope: `{type: "event", event, data}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpcEvent {
    #[serde(rename = "type")]
    pub kind: String,
    pub event: String,
    pub data: Value,
}
