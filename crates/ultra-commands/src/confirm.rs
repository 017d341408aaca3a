//! Confirmations: list, approve and deny calls that policy parked for a person.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::confirm::{Decision, PendingInfo};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, SourceKind};

use ultra_services::Services;

/// Register the confirmation commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(List)?;
    r.register(Approve)?;
    r.register(Deny)?;
    r.register(AutoApply)?;
    Ok(())
}

const HUMAN_ONLY: &[SourceKind] = &[SourceKind::Human];

pub use ultra_services::util::NoArgs;

/// A pending call, as shown to the person asked.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    pub id: String,
    pub command: String,
    pub args: serde_json::Value,
    pub source: ultra_protocol::Source,
    pub reason: String,
    pub expires_at: u64,
}

impl From<PendingInfo> for Pending {
    fn from(p: PendingInfo) -> Self {
        Pending {
            id: p.id,
            command: p.command,
            args: p.args,
            source: p.source,
            reason: p.reason,
            expires_at: p.expires_at as u64,
        }
    }
}

/// `ultra.confirm.list`.
pub struct List;

impl Command<Services> for List {
    type Args = NoArgs;
    type Output = Vec<Pending>;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.confirm.list",
        "List Pending Confirmations",
        "Confirm",
        "Calls waiting for a person's approval, oldest first, with their arguments and the policy rule that asked.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .examples(&[Example { description: "Nothing is waiting", args: "{}", expect: Some("[]"), ..Example::EMPTY }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Vec<Pending>, CommandError> {
        Ok(cx
            .confirmations
            .list()
            .into_iter()
            .map(Pending::from)
            .collect())
    }
}

/// Arguments of approve and deny.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdArgs {
    /// The confirmation id from `confirmation.requested` or `ultra.confirm.list`.
    pub id: String,
}

/// Result of approve and deny.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Resolved {
    pub id: String,
    pub resolution: Decision,
}

fn resolve(
    cx: &Cx<'_, Services>,
    id: String,
    decision: Decision,
) -> Result<Resolved, CommandError> {
    if cx.confirmations.resolve(&id, decision) {
        Ok(Resolved {
            id,
            resolution: decision,
        })
    } else {
        Err(CommandError::new(
            ErrorCode::ConfirmationNotFound,
            format!("no pending confirmation `{id}` (already answered or timed out)"),
        )
        .with_suggestion("list what is waiting with ultra.confirm.list"))
    }
}

/// `ultra.confirm.approve`.
pub struct Approve;

impl Command<Services> for Approve {
    type Args = IdArgs;
    type Output = Resolved;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.confirm.approve",
        "Approve Pending Action",
        "Confirm",
        "Approve a parked call; it then runs. People only.",
    )
    .touches(Touches::NOTHING)
    .only_sources(HUMAN_ONLY)
    .not_ai_exposed()
    .examples(&[
        Example {
            description: "An unknown id is reported",
            args: r#"{"id": "confirm-99"}"#,
            error: Some("CONFIRMATION_NOT_FOUND"),
            ..Example::EMPTY
        },
        Example {
            description: "Agents cannot approve",
            args: r#"{"id": "confirm-1"}"#,
            source: Some(SourceKind::Ai),
            error: Some("SOURCE_NOT_ALLOWED"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: IdArgs) -> Result<Resolved, CommandError> {
        resolve(cx, args.id, Decision::Approved)
    }
}

/// `ultra.confirm.deny`.
pub struct Deny;

impl Command<Services> for Deny {
    type Args = IdArgs;
    type Output = Resolved;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.confirm.deny",
        "Deny Pending Action",
        "Confirm",
        "Deny a parked call; its caller gets CONFIRMATION_DENIED. People only.",
    )
    .touches(Touches::NOTHING)
    .only_sources(HUMAN_ONLY)
    .not_ai_exposed()
    .examples(&[Example {
        description: "An unknown id is reported",
        args: r#"{"id": "confirm-99"}"#,
        error: Some("CONFIRMATION_NOT_FOUND"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: IdArgs) -> Result<Resolved, CommandError> {
        resolve(cx, args.id, Decision::Denied)
    }
}

/// Arguments of `ultra.confirm.autoApply`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AutoApplyArgs {
    /// On or off; omitted, the setting is only reported.
    pub on: Option<bool>,
}

/// Whether auto-apply is on.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutoApplyState {
    pub auto_apply: bool,
}

/// `ultra.confirm.autoApply`.
pub struct AutoApply;

impl Command<Services> for AutoApply {
    type Args = AutoApplyArgs;
    type Output = AutoApplyState;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.confirm.autoApply",
        "Toggle Auto-Apply",
        "Confirm",
        "Seed 001's /auto-apply: while on, calls that would wait for a person by default (agents' edits, creates, deletes and destructive commands) run at once; rules written in ultra.config.json still apply. People only: no agent can turn it on.",
    )
    .touches(Touches::NOTHING)
    .only_sources(HUMAN_ONLY)
    .not_ai_exposed()
    .examples(&[
        Example {
            description: "Turn it on",
            args: r#"{"on": true}"#,
            expect: Some(r#"{"autoApply": true}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Agents cannot turn it on",
            args: r#"{"on": true}"#,
            source: Some(SourceKind::Ai),
            error: Some("SOURCE_NOT_ALLOWED"),
            ..Example::EMPTY
        },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: AutoApplyArgs,
    ) -> Result<AutoApplyState, CommandError> {
        if let Some(on) = args.on {
            cx.confirmations.set_auto_apply(on);
        }
        Ok(AutoApplyState {
            auto_apply: cx.confirmations.auto_apply(),
        })
    }
}
