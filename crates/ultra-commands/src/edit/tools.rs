//! Seed 001's `edit_lines`: replace lines `start..=end` (1-based, inclusive) of a file and
//! save it. A person confirms every call from an agent, shown the diff, unless policy or
//! auto-apply says otherwise. An edit is one undo entry and reaches the index through the
//! usual events.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Source};
use ultra_workspace::workspace::{DiffSides, EditOp, FileEdits};
use ultra_workspace::{RelPath, Workspace};

use crate::edit::{Finish, apply};
use ultra_services::Services;
use ultra_services::util::is_human;

/// Register `code.editLines`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(EditLines)
}

/// Arguments of `code.editLines`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EditLinesArgs {
    /// Path relative to the workspace root.
    pub path: String,
    /// First line to replace, 1-based.
    #[schemars(range(min = 1))]
    pub start: usize,
    /// Last line to replace, inclusive (`start - 1` inserts before `start` without
    /// replacing anything).
    pub end: usize,
    /// The new lines; empty deletes the range. A final newline is added if missing.
    pub content: String,
    /// Fail with STALE_VERSION (with the current hash and a diff) unless the file's
    /// content hash is still this, e.g. the one `get_lines` or `read_file` returned.
    pub expected_hash: Option<String>,
}

/// What `code.editLines` did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LinesEdited {
    pub path: String,
    /// The transaction, for `ultra.undo {txnId}`.
    pub txn_id: u64,
    pub lines_removed: usize,
    pub lines_added: usize,
    /// Lines in the file now.
    pub line_count: usize,
    /// Content hash after the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// A sentence for the model, with the diff.
    pub output: String,
    /// For an agent's edit of code: what it did to the file's problems.
    #[serde(flatten)]
    pub diagnostics: ultra_tools::code::after_edit::EditDiagnostics,
}

/// `code.editLines`.
pub struct EditLines;

/// The content as whole lines.
fn as_lines(content: &str) -> String {
    if content.is_empty() || content.ends_with('\n') {
        content.to_string()
    } else {
        format!("{content}\n")
    }
}

/// Lines in `text` as people count them (a final newline ends the last line).
fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.lines().count()
    }
}

/// Check the range against the file's current text, under the caller's workspace lock;
/// the path resolved for writing and the text before the edit.
fn check_range(
    ws: &mut Workspace,
    a: &EditLinesArgs,
    human: bool,
) -> Result<(RelPath, ropey::Rope), CommandError> {
    let rel = ws.resolve_write(&a.path, human)?;
    let snap = ws.snapshot(&rel)?;
    let total = count_lines(&snap.rope.to_string());
    if a.start == 0 || a.end + 1 < a.start || a.end > total {
        return Err(CommandError::new(
            ErrorCode::InvalidRange,
            format!(
                "lines {}-{} are not a range of {} ({total} lines)",
                a.start, a.end, a.path
            ),
        )
        .with_details(serde_json::json!({ "lineCount": total, "start": a.start, "end": a.end }))
        .with_suggestion(format!(
            "lines are 1-based and inclusive, end ≤ {total}; read the file with get_lines first"
        )));
    }
    Ok((rel, snap.rope))
}

/// The file's text with the edit applied.
fn edited(rope: &ropey::Rope, a: &EditLinesArgs) -> ropey::Rope {
    let text = rope.to_string();
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let new = as_lines(&a.content);
    let replacement: Vec<&str> = new.split_inclusive('\n').collect();
    let start = a.start - 1;
    let end = a.end.min(lines.len());
    lines.splice(start..end.max(start), replacement);
    ropey::Rope::from_str(&lines.concat())
}

impl Command<Services> for EditLines {
    type Args = EditLinesArgs;
    type Output = LinesEdited;

    const SPEC: CommandSpec = CommandSpec::new(
        "code.editLines",
        "Code: Edit Lines",
        "Code",
        "Replace lines start..end (1-based, inclusive) of a file with content and save it (seed 001's edit_lines). Empty content deletes the lines; end = start - 1 inserts before start. Pass expectedHash (from get_lines or read_file) to fail with STALE_VERSION instead of overwriting a change made since you read. A person may be asked first (shown the diff). One undo entry.",
    )
    .touches(Touches::WRITE)
    .tool_name("edit_lines")
    .confirms()
    .examples(&[
        Example {
            description: "Replace one line",
            args: r#"{"path": "src/config.ts", "start": 2, "end": 2, "content": "  timeout: 5000,"}"#,
            files: &[("src/config.ts", "export const config = {\n  timeout: 3000,\n};\n")],
            expect: Some(r#"{"path": "src/config.ts", "linesRemoved": 1, "linesAdded": 1, "lineCount": 3}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A file changed since it was read is not overwritten",
            args: r#"{"path": "src/config.ts", "start": 2, "end": 2, "content": "  timeout: 5000,", "expectedHash": "0000"}"#,
            files: &[("src/config.ts", "export const config = {\n  timeout: 3000,\n};\n")],
            error: Some("STALE_VERSION"),
            ..Example::EMPTY
        },
        Example {
            description: "Empty content deletes the lines",
            args: r#"{"path": "src/config.ts", "start": 2, "end": 2, "content": ""}"#,
            files: &[("src/config.ts", "export const config = {\n  timeout: 3000,\n};\n")],
            expect: Some(r#"{"linesRemoved": 1, "linesAdded": 0, "lineCount": 2}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A range past the end says how long the file is",
            args: r#"{"path": "src/config.ts", "start": 2, "end": 9, "content": ""}"#,
            files: &[("src/config.ts", "export const config = {\n  timeout: 3000,\n};\n")],
            error: Some("INVALID_RANGE"),
            ..Example::EMPTY
        },
    ]);

    fn precheck(
        &self,
        services: &Services,
        source: &Source,
        a: &EditLinesArgs,
    ) -> Result<(), CommandError> {
        check_range(
            &mut services.ws(),
            a,
            ultra_services::util::is_person(source),
        )
        .map(|_| ())
    }

    fn preview(&self, services: &Services, a: &EditLinesArgs) -> Option<String> {
        let (_, rope) = check_range(&mut services.ws(), a, false).ok()?;
        Some(ultra_workspace::workspace::unified_diff(
            &rope,
            &edited(&rope, a),
            DiffSides::Proposal,
        ))
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: EditLinesArgs,
    ) -> Result<LinesEdited, CommandError> {
        // Check, edit, save and read back under one lock: nothing moves in between.
        let services = cx.services;
        let mut ws = services.ws();
        let (rel, before) = check_range(&mut ws, &a, is_human(cx))?;
        let content = as_lines(&a.content);
        let lines_added = count_lines(&content);
        let lines_removed = (a.end + 1).saturating_sub(a.start);
        let file = FileEdits {
            path: rel.clone(),
            expected_version: None,
            expected_hash: a.expected_hash.clone(),
            edits: vec![EditOp::Lines {
                start: a.start,
                end: a.end,
                text: content,
            }],
        };
        // Committed, then saved: a save refused (the disk moved on) leaves the edit in
        // the buffer, undoable, as an edit followed by `ultra.save` would.
        let base = ultra_tools::code::after_edit::Baseline::take(cx, &ws, [&rel]);
        let outcome = apply(cx, &mut ws, vec![file], Finish::Commit)?;
        ultra_services::util::save_in(cx, &mut ws, &rel, false)?;
        let f = outcome.files.into_iter().next().ok_or_else(|| {
            CommandError::new(ErrorCode::InternalError, "edit produced no file outcome")
        })?;
        let after = ws.snapshot(&rel)?;
        let diff =
            ultra_workspace::workspace::unified_diff(&before, &after.rope, DiffSides::Applied);
        let line_count = count_lines(&after.rope.to_string());
        let range = if a.end < a.start {
            format!("inserted before line {}", a.start)
        } else if a.start == a.end {
            format!("line {}", a.start)
        } else {
            format!("lines {}-{}", a.start, a.end)
        };
        let diagnostics = base.report(cx, ws);
        Ok(LinesEdited {
            path: f.path.clone(),
            txn_id: outcome.txn_id,
            lines_removed,
            lines_added,
            line_count,
            hash: f.hash,
            // Undo history lives as long as the process: a one-shot run offers none.
            output: if cx.services.mode().one_shot {
                format!(
                    "Edited {} ({range}): {lines_removed} line(s) out, {lines_added} in; saved.\n{diff}",
                    f.path
                )
            } else {
                format!(
                    "Edited {} ({range}): {lines_removed} line(s) out, {lines_added} in; saved. Undo with ultra.undo {{\"txnId\": {}}}.\n{diff}",
                    f.path, outcome.txn_id
                )
            },
            diagnostics,
        })
    }
}
