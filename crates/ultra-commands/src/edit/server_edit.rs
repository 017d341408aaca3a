//! Edits a language server works out (a rename, a code action), applied as one
//! `applyEdits` batch: every file or none, one undo step, saved, each file confined and
//! checked unchanged since the server was shown it, validators shown every file,
//! attributed to the caller. `ultra.renameSymbol` and `ultra.codeActions` use it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use ultra_core::Cx;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_tools::code::after_edit::EditDiagnostics;
use ultra_tools::code::semantic::{self, NAV_WAIT, ServerAnswer};
use ultra_workspace::RelPath;
use ultra_workspace::workspace::{EditOp, FileEdits};

use super::{Finish, apply_reported};
use ultra_services::Services;
use ultra_services::util::is_human;

/// A file shown to its language server, with every open buffer of its language: the texts
/// as the server has them.
pub(crate) struct Shown {
    pub rel: RelPath,
    seen: BTreeMap<String, String>,
}

impl Shown {
    /// Resolve `path` for writing and give its server the file's text and every open
    /// buffer's of its language (unsaved changes included), so what it works out is for
    /// the text an agent sees.
    pub fn new(cx: &Cx<'_, Services>, path: &str) -> Result<Shown, CommandError> {
        let services = cx.services;
        let (rel, seen) = {
            let ws = services.ws();
            let rel = ws.resolve_write(path, is_human(cx))?;
            let mut seen: BTreeMap<String, String> = ws
                .buffers()
                .filter(|b| semantic::same_server(b.path.as_str(), rel.as_str()))
                .map(|b| (b.path.as_str().to_string(), b.rope.to_string()))
                .collect();
            if !seen.contains_key(rel.as_str()) {
                let text = ws.current_text(&rel).unwrap_or_default();
                seen.insert(rel.as_str().to_string(), text);
            }
            (rel, seen)
        };
        let root = services.root_path();
        for (p, text) in &seen {
            let _ = services.lsp().document(&root.join(p), text, NAV_WAIT);
        }
        Ok(Shown { rel, seen })
    }

    /// The file's text as its server was given it.
    pub fn rope(&self) -> ropey::Rope {
        self.seen
            .get(self.rel.as_str())
            .map(|t| ropey::Rope::from_str(t))
            .unwrap_or_default()
    }
}

/// One file a server's edit changes.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    pub path: String,
    /// Lines (1-based, before the edit) with a change.
    pub lines: Vec<u32>,
    pub edits: usize,
}

/// What applying (or, for a dry run, reading) a server's edit came to; flattened into the
/// answers of the commands that apply one.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerEdited {
    /// False for a dry run.
    pub applied: bool,
    /// The transaction, for `ultra.undo {txnId}`: every file is undone together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub txn_id: Option<u64>,
    pub files: Vec<ChangedFile>,
    pub total_edits: usize,
    #[serde(flatten)]
    pub diagnostics: EditDiagnostics,
}

/// Apply the `WorkspaceEdit` `edit` the server of `shown` answered with (its positions in
/// `server`'s encoding), or only list it (`dry_run`). `what` names it in errors.
pub(crate) fn apply(
    cx: &mut Cx<'_, Services>,
    shown: &Shown,
    edit: &Value,
    server: semantic::ServerEncoding,
    dry_run: bool,
    what: &str,
) -> Result<ServerEdited, CommandError> {
    let services = cx.services;
    let encoding = semantic::protocol_encoding(server);
    let mut files = Vec::new();
    let mut report = Vec::new();
    for (path, edits) in semantic::workspace_edit(services.root_path(), edit)? {
        let mut lines: Vec<u32> = edits.iter().map(|(r, _)| r.start.line + 1).collect();
        lines.sort_unstable();
        lines.dedup();
        report.push(ChangedFile {
            path: path.clone(),
            lines,
            edits: edits.len(),
        });
        let ops: Vec<EditOp> = edits
            .into_iter()
            .map(|(range, text)| EditOp::Range {
                range,
                text,
                encoding,
            })
            .collect();
        files.push((path, ops));
    }
    let total_edits = report.iter().map(|f| f.edits).sum();
    if dry_run || files.is_empty() {
        return Ok(ServerEdited {
            applied: false,
            files: report,
            total_edits,
            txn_id: None,
            diagnostics: EditDiagnostics::default(),
        });
    }
    let human = is_human(cx);
    let ws = services.ws();
    let mut batch = Vec::new();
    for (path, edits) in files {
        let rel = ws.resolve_write(&path, human)?;
        if let Some(before) = shown.seen.get(rel.as_str())
            && ws.current_text(&rel).as_deref() != Some(before.as_str())
        {
            return Err(CommandError::new(
                ErrorCode::StaleVersion,
                format!("{rel} changed while the language server worked out the {what}; nothing was changed"),
            )
            .with_suggestion(format!("run the {what} again")));
        }
        batch.push(FileEdits {
            path: rel,
            expected_version: None,
            expected_hash: None,
            edits,
        });
    }
    let (outcome, diagnostics) = apply_reported(cx, ws, batch, Finish::Save)?;
    Ok(ServerEdited {
        applied: true,
        files: report,
        total_edits,
        txn_id: Some(outcome.txn_id),
        diagnostics,
    })
}

/// The error for a server that did not answer (`why`; `None`: none serves `path`), for
/// something only a server can do.
pub(crate) fn unavailable(why: Option<ServerAnswer>, path: &str, instead: &str) -> CommandError {
    match why {
        Some(a) if a.state == "refused" => CommandError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the language server refused: {}",
                a.reason.unwrap_or_default()
            ),
        )
        .with_suggestion("check the arguments, and that the position is on code of this workspace"),
        Some(a) => CommandError::new(
            ErrorCode::LanguageServerUnavailable,
            format!(
                "no {} language server answered ({}): {}",
                a.language,
                a.state,
                a.reason.unwrap_or_default()
            ),
        )
        .with_suggestion(if a.state == "warming" {
            "retry in a moment: the server is starting".to_string()
        } else {
            format!("configure lsp.<language>.command (see lsp.status), or {instead}")
        }),
        None => CommandError::new(
            ErrorCode::LanguageServerUnavailable,
            format!("no language server serves {path}"),
        )
        .with_suggestion(instead.to_string()),
    }
}
