//! `ultra.renameSymbol` (tool `rename_symbol`): the file's language server works out the
//! rename (`textDocument/rename`) and its workspace edit is applied as one `applyEdits`
//! batch: every file or none, one undo step, each file confined and checked unchanged
//! since the server saw it, validators shown every file, attributed to the caller.
//! Without a ready server it refuses (LANGUAGE_SERVER_UNAVAILABLE) rather than guess by
//! name.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_tools::code::after_edit::EditDiagnostics;
use ultra_tools::code::place::{pos, rope_of};
use ultra_tools::code::semantic::{self, NAV_WAIT};
use ultra_workspace::workspace::{EditOp, FileEdits};

use super::{Finish, apply_reported};
use ultra_services::Services;
use ultra_services::util::is_human;

/// Arguments of `ultra.renameSymbol`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RenameSymbolArgs {
    pub path: String,
    pub symbol: String,
    /// A line (1-based) of `path` where it occurs.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// Its new name.
    pub new_name: String,
    /// Only list the edits.
    #[serde(default)]
    pub dry_run: bool,
}

/// One file a rename changes.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenamedFile {
    pub path: String,
    /// Lines (1-based) with an edit.
    pub lines: Vec<u32>,
    pub edits: usize,
}

/// Result of `ultra.renameSymbol`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub symbol: String,
    pub new_name: String,
    /// False for a dry run.
    pub applied: bool,
    /// The transaction, for `ultra.undo {txnId}`: every file is undone together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub txn_id: Option<u64>,
    pub files: Vec<RenamedFile>,
    pub total_edits: usize,
    #[serde(flatten)]
    pub diagnostics: EditDiagnostics,
}

/// `ultra.renameSymbol`.
pub struct RenameSymbol;

fn unavailable(why: Option<semantic::ServerAnswer>, path: &str) -> CommandError {
    match why {
        Some(a) if a.state == "refused" => CommandError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the language server refused the rename: {}",
                a.reason.unwrap_or_default()
            ),
        )
        .with_suggestion("check the new name, and that the position is on a symbol of this workspace"),
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
            "retry in a moment: the server is starting"
        } else {
            "configure lsp.<language>.command (see lsp.status), or rename by name: find_references, then apply_edits"
        }),
        None => CommandError::new(
            ErrorCode::LanguageServerUnavailable,
            format!("no language server serves {path}"),
        )
        .with_suggestion("rename by name: find_references, then apply_edits"),
    }
}

impl Command<Services> for RenameSymbol {
    type Args = RenameSymbolArgs;
    type Output = Renamed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.renameSymbol",
        "Rename Symbol",
        "Edit",
        "Rename `symbol` (on `line` of `path`) wherever its language server finds it used: all files or none, one undo step, saved. No ready server: LANGUAGE_SERVER_UNAVAILABLE.",
    )
    .touches(Touches::WRITE)
    .tool_name("rename_symbol")
    .long()
    .examples(&[Example {
        description: "Without a language server it is refused, not guessed by name",
        args: r#"{"path": "app.py", "symbol": "total", "line": 1, "newName": "amount"}"#,
        files: &[("app.py", "total = 1\nprint(total)\n")],
        error: Some("LANGUAGE_SERVER_UNAVAILABLE"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: RenameSymbolArgs) -> Result<Renamed, CommandError> {
        if a.new_name.trim().is_empty() || a.new_name.chars().any(char::is_whitespace) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("`{}` is not a name", a.new_name),
            )
            .with_suggestion("give newName as an identifier, without spaces"));
        }
        let human = is_human(cx);
        let services = cx.services;
        let root = services.root_path().to_path_buf();
        // What the server is given: the file and every open buffer of its language.
        let (rel, seen) = {
            let ws = services.ws();
            let rel = ws.resolve_write(&a.path, human)?;
            let mut seen: BTreeMap<String, String> = ws
                .buffers()
                .filter(|b| semantic::same_server(b.path.as_str(), rel.as_str()))
                .map(|b| (b.path.as_str().to_string(), b.rope.to_string()))
                .collect();
            if !seen.contains_key(rel.as_str()) {
                seen.insert(
                    rel.as_str().to_string(),
                    ws.current_text(&rel).unwrap_or_default(),
                );
            }
            (rel, seen)
        };
        let (code, _) = services.code(&[rel.as_str().to_string()]);
        let at = code
            .read()
            .get(rel.as_str())
            .and_then(|f| f.references_to(&a.symbol).find(|r| r.line == a.line))
            .ok_or_else(|| {
                CommandError::new(
                    ErrorCode::SymbolNotFound,
                    format!("`{}` does not occur on line {} of {rel}", a.symbol, a.line),
                )
                .with_suggestion(
                    "give the line where the name is (get_lines or find_references show them)",
                )
            })?;
        for (p, text) in &seen {
            let _ = services.lsp().document(&root.join(p), text, NAV_WAIT);
        }
        let rope = rope_of(cx, rel.as_str()).unwrap_or_default();
        let position = pos(&rope, at.line, at.column, cx.source.encoding());
        let ask = |method: &str, extra| {
            semantic::ask(cx, rel.as_str(), &rope, position, method, extra)
                .map_err(|why| unavailable(why, rel.as_str()))
        };
        let rename = || ask("textDocument/rename", json!({ "newName": a.new_name }));
        let (mut edit, mut server) = rename()?;
        if edit.is_null() {
            // A server that has not analysed the workspace yet (pyright) answers null;
            // a references query waits for the analysis.
            ask(
                "textDocument/references",
                json!({ "context": { "includeDeclaration": true } }),
            )?;
            (edit, server) = rename()?;
        }
        if edit.is_null() {
            return Err(CommandError::new(
                ErrorCode::SymbolNotFound,
                format!(
                    "the language server has nothing to rename at `{}` on line {}",
                    a.symbol, a.line
                ),
            ));
        }
        let encoding = semantic::protocol_encoding(server);
        let mut files = Vec::new();
        let mut report = Vec::new();
        for (path, edits) in semantic::workspace_edit(services.root_path(), &edit)? {
            let mut lines: Vec<u32> = edits.iter().map(|(r, _)| r.start.line + 1).collect();
            lines.sort_unstable();
            lines.dedup();
            report.push(RenamedFile {
                path: path.clone(),
                lines,
                edits: edits.len(),
            });
            let ops = edits
                .into_iter()
                .map(|(range, text)| EditOp::Range {
                    range,
                    text,
                    encoding,
                })
                .collect::<Vec<_>>();
            files.push((path, ops));
        }
        let total_edits = report.iter().map(|f| f.edits).sum();
        if a.dry_run {
            return Ok(Renamed {
                symbol: a.symbol,
                new_name: a.new_name,
                applied: false,
                txn_id: None,
                files: report,
                total_edits,
                diagnostics: EditDiagnostics::default(),
            });
        }
        let ws = services.ws();
        let mut batch = Vec::new();
        for (path, edits) in files {
            let rel = ws.resolve_write(&path, human)?;
            if let Some(before) = seen.get(rel.as_str())
                && ws.current_text(&rel).as_deref() != Some(before.as_str())
            {
                return Err(CommandError::new(
                    ErrorCode::StaleVersion,
                    format!("{rel} changed while the language server worked out the rename; nothing was changed"),
                )
                .with_suggestion("run the rename again"));
            }
            batch.push(FileEdits {
                path: rel,
                expected_version: None,
                expected_hash: None,
                edits,
            });
        }
        let (outcome, diagnostics) = apply_reported(cx, ws, batch, Finish::Save)?;
        Ok(Renamed {
            symbol: a.symbol,
            new_name: a.new_name,
            applied: true,
            txn_id: Some(outcome.txn_id),
            files: report,
            total_edits,
            diagnostics,
        })
    }
}
