//! `lsp.status`: the workspace's language servers, what runs and what does not (and why).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::CommandError;
use ultra_services::Services;

/// Register `lsp.status`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(LspStatus)?;
    Ok(())
}

/// Arguments of `lsp.status`: none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// One language's server.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub language: String,
    /// `running`; `starting`; `idle` (found, starts on first need); `failed` (see `lastError`; it is
    /// started again after a backoff); `not-found` (none configured or on PATH);
    /// `disabled` (`lsp.<language>.enabled: false`).
    pub state: String,
    /// The command with its arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The position encoding it negotiated (`utf-8`, `utf-16`, `utf-32`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_encoding: Option<String>,
    /// Times it was started again after it died.
    pub restarts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Documents it has open.
    pub open_documents: usize,
    /// What it reported it is busy with (loading, indexing); semantic answers wait for it
    /// (5 s at most) and say `warming` while it lasts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub working: Vec<String>,
}

/// Result of `lsp.status`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Status {
    pub servers: Vec<ServerStatus>,
}

/// `lsp.status`.
pub struct LspStatus;

impl Command<Services> for LspStatus {
    type Args = StatusArgs;
    type Output = Status;
    const SPEC: CommandSpec = CommandSpec::new(
        "lsp.status",
        "Language Servers: Status",
        "Code",
        "The workspace's language servers by language (python, typescript, rust, go, c): running (with pid and position encoding), starting, idle (starts on first need), failed (with the error; started again after a backoff), not-found (configure lsp.<language>.command) or disabled.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "Servers turned off in the configuration",
        args: "{}",
        expect: Some(r#"{"servers": [{"language": "c", "state": "disabled"}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _a: StatusArgs) -> Result<Status, CommandError> {
        let servers = cx
            .services
            .lsp()
            .status()
            .into_iter()
            .map(|s| ServerStatus {
                language: s.language,
                state: s.state.name().into(),
                command: s.command,
                pid: s.pid,
                position_encoding: s.encoding.map(str::to_string),
                restarts: s.restarts,
                last_error: s.last_error,
                open_documents: s.open_documents,
                working: s.working,
            })
            .collect();
        Ok(Status { servers })
    }
}
