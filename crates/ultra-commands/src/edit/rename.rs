//! `ultra.renameSymbol` (tool `rename_symbol`): the file's language server works out the
//! rename (`textDocument/rename`) and its workspace edit is applied as one `applyEdits`
//! batch: every file or none, one undo step, each file confined and checked unchanged
//! since the server saw it, validators shown every file, attributed to the caller.
//! Without a ready server it refuses (LANGUAGE_SERVER_UNAVAILABLE) rather than guess by
//! name.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_tools::code::place::pos;
use ultra_tools::code::semantic;

use super::server_edit::{self, ServerEdited, Shown};
use ultra_services::Services;

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

/// Result of `ultra.renameSymbol`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub symbol: String,
    pub new_name: String,
    #[serde(flatten)]
    pub edited: ServerEdited,
}

/// `ultra.renameSymbol`.
pub struct RenameSymbol;

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
        let shown = Shown::new(cx, &a.path)?;
        let rel = shown.rel.clone();
        let (code, _) = cx.services.code(&[rel.as_str().to_string()]);
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
        let rope = shown.rope();
        let position = pos(&rope, at.line, at.column, cx.source.encoding());
        let instead = "rename by name: find_references, then apply_edits";
        let ask = |method: &str, extra| {
            semantic::ask(cx, rel.as_str(), &rope, position, method, extra)
                .map_err(|why| server_edit::unavailable(why, rel.as_str(), instead))
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
        let edited = server_edit::apply(cx, &shown, &edit, server, a.dry_run, "rename")?;
        Ok(Renamed {
            symbol: a.symbol,
            new_name: a.new_name,
            edited,
        })
    }
}
