//! `ultra.codeActions`: what a file's language server offers for some of its lines (quick
//! fixes for the diagnostics there, organise imports, refactors), listed; and one of them,
//! chosen by its index, applied as one batch like a rename (`server_edit.rs`). An action
//! that only runs a command inside the server is listed but not applied: its edits would
//! arrive outside the batch.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_tools::code::semantic;

use super::server_edit::{self, ServerEdited, Shown};
use ultra_services::Services;

/// Arguments of `ultra.codeActions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CodeActionsArgs {
    pub path: String,
    /// First line (1-based) the actions are for (default: the whole file).
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line, inclusive (default: `startLine`).
    pub end_line: Option<u32>,
    /// Only actions of these kinds or their sub-kinds: `quickfix`, `refactor`,
    /// `source.organizeImports`, ...
    pub only: Option<Vec<String>>,
    /// Apply the action with this `index` (from the list this call, with the same
    /// arguments, returns).
    pub apply: Option<usize>,
    /// With `apply`: only list the edits.
    #[serde(default)]
    pub dry_run: bool,
}

/// One action offered.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionInfo {
    /// Pass as `apply`.
    pub index: usize,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The server's preferred fix.
    pub preferred: bool,
    /// The diagnostics it fixes, by message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<String>,
    /// False for an action that only runs a command in the server (not applied here).
    pub applicable: bool,
}

/// The action applied.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedAction {
    pub title: String,
    #[serde(flatten)]
    pub edited: ServerEdited,
}

/// Result of `ultra.codeActions`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeActions {
    pub path: String,
    pub actions: Vec<ActionInfo>,
    /// With `apply`: what it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied: Option<AppliedAction>,
}

/// `ultra.codeActions`.
pub struct CodeActionsCommand;

/// Whether the diagnostic `d` (LSP) touches lines `first..=last` (0-based).
fn on_lines(d: &Value, first: u64, last: u64) -> bool {
    let start = d["range"]["start"]["line"].as_u64().unwrap_or(0);
    let end = d["range"]["end"]["line"].as_u64().unwrap_or(start);
    start <= last && end >= first
}

impl Command<Services> for CodeActionsCommand {
    type Args = CodeActionsArgs;
    type Output = CodeActions;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.codeActions",
        "Code Actions",
        "Edit",
        "The code actions a file's language server offers for some lines (quick fixes for the diagnostics there, organise imports, refactors), each with an `index`; `apply: index` applies one as one batch (every file or none, one undo step, saved; `dryRun` lists its edits), with the new and fixed diagnostics. Without a ready server: LANGUAGE_SERVER_UNAVAILABLE.",
    )
    .touches(Touches::WRITE)
    .long()
    .examples(&[Example {
        description: "Without a language server there is nothing to offer",
        args: r#"{"path": "app.py", "startLine": 1, "only": ["quickfix"]}"#,
        files: &[("app.py", "import os\n")],
        error: Some("LANGUAGE_SERVER_UNAVAILABLE"),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: CodeActionsArgs,
    ) -> Result<CodeActions, CommandError> {
        let shown = Shown::new(cx, &a.path)?;
        let rel = shown.rel.clone();
        let rope = shown.rope();
        let lines = rope.len_lines() as u32;
        let first = a.start_line.unwrap_or(1);
        let last = a
            .end_line
            .unwrap_or(if a.start_line.is_some() { first } else { lines });
        if first == 0 || last < first || first > lines {
            return Err(CommandError::new(
                ErrorCode::InvalidRange,
                format!("lines {first}-{last} are not in {rel} ({lines} lines)"),
            )
            .with_suggestion("give 1-based startLine and endLine within the file"));
        }
        let (first0, last0) = (u64::from(first - 1), u64::from(last.min(lines) - 1));
        let diagnostics: Vec<Value> = semantic::published(cx, rel.as_str(), &rope)
            .into_iter()
            .filter(|d| on_lines(d, first0, last0))
            .collect();
        let instead = "edit the code with apply_edits";
        let mut context = json!({ "diagnostics": diagnostics, "triggerKind": 1 });
        if let Some(only) = &a.only {
            context["only"] = json!(only);
        }
        let uri = semantic::document_uri(cx, rel.as_str());
        let (list, server) =
            semantic::request(cx, rel.as_str(), &rope, "textDocument/codeAction", &|_| {
                json!({
                    "textDocument": { "uri": uri },
                    // Whole lines: column 0 counts the same in every encoding.
                    "range": {
                        "start": { "line": first0, "character": 0 },
                        "end": { "line": last0 + 1, "character": 0 }
                    },
                    "context": context,
                })
            })
            .map_err(|why| server_edit::unavailable(why, rel.as_str(), instead))?;
        // `only` filters here too: a server may answer with other kinds.
        let wanted = |x: &Value| {
            a.only.as_ref().is_none_or(|only| {
                let kind = x["kind"].as_str().unwrap_or("");
                only.iter()
                    .any(|o| kind == o || kind.starts_with(&format!("{o}.")))
            })
        };
        let offered: Vec<Value> = list
            .as_array()
            .into_iter()
            .flatten()
            .filter(|x| wanted(x))
            .cloned()
            .collect();
        let actions = offered
            .iter()
            .enumerate()
            .map(|(index, x)| ActionInfo {
                index,
                title: x["title"].as_str().unwrap_or_default().to_string(),
                kind: x["kind"].as_str().map(str::to_string),
                preferred: x["isPreferred"].as_bool().unwrap_or(false),
                fixes: x["diagnostics"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d["message"].as_str().map(str::to_string))
                    .collect(),
                // A bare `Command` has a string `command`; a `CodeAction` may carry an
                // edit, or data to resolve one from.
                applicable: !x["command"].is_string()
                    && (x.get("edit").is_some() || x.get("data").is_some()),
            })
            .collect::<Vec<_>>();
        let Some(i) = a.apply else {
            return Ok(CodeActions {
                path: rel.to_string(),
                actions,
                applied: None,
            });
        };
        let Some(chosen) = offered.get(i) else {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("there is no action {i}: {} were offered", offered.len()),
            )
            .with_suggestion("list the actions first (leave out `apply`) and pass one's index"));
        };
        let mut chosen = chosen.clone();
        if chosen.get("edit").is_none() && chosen.get("data").is_some() {
            let action = chosen.clone();
            (chosen, _) = semantic::request(cx, rel.as_str(), &rope, "codeAction/resolve", &|_| {
                action.clone()
            })
            .map_err(|why| server_edit::unavailable(why, rel.as_str(), instead))?;
        }
        let Some(edit) = chosen.get("edit") else {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "action {i} ({}) runs a command inside the language server instead of offering an edit; Ultra applies edits only",
                    actions[i].title
                ),
            )
            .with_suggestion("choose an action with `applicable: true`, or make the change with apply_edits"));
        };
        let edited = server_edit::apply(cx, &shown, edit, server, a.dry_run, "code action")?;
        Ok(CodeActions {
            path: rel.to_string(),
            applied: Some(AppliedAction {
                title: actions[i].title.clone(),
                edited,
            }),
            actions,
        })
    }
}
