//! The result envelope of every command (seed 000 `CommandResult`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{CommandError, Location};

/// The outcome of one command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandResult {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CommandError>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<AgentFeedback>,
}

impl CommandResult {
    /// A success carrying `data`.
    pub fn ok(data: serde_json::Value) -> CommandResult {
        CommandResult {
            success: true,
            data: Some(data),
            error: None,
            warnings: Vec::new(),
            feedback: None,
        }
    }

    /// A failure.
    pub fn err(error: CommandError) -> CommandResult {
        CommandResult {
            success: false,
            data: None,
            error: Some(error),
            warnings: Vec::new(),
            feedback: None,
        }
    }
}

/// A warning attached to a result, even a successful one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Warning {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// Structured feedback for agents: what rule was broken and how to fix it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentFeedback {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<ViolationReport>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Suggestion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<FeedbackContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior_violation_count: Option<u32>,
}

/// A rule violation reported to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationReport {
    pub rule: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_content: Option<String>,
}

/// How to fix a violation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Suggestion {
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documentation: Vec<String>,
}

/// Extra context for the agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackContext {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relevant_docs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}
