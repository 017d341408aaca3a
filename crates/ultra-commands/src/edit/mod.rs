//! Edit commands (seed 000 `edit.ts`) plus `ultra.applyEdits`, the atomic multi-file batch.
//!
//! Every mutation takes `expectedVersion` (buffers) or `expectedHash` (content), is checked
//! by content validators for non-human callers before anything changes, and is logged as
//! one undoable transaction tagged with its source.

pub mod code_action;
pub(crate) mod file_move;
pub mod rename;
pub mod replace;
pub(crate) mod server_edit;
pub mod tools;
pub mod typing;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range, SourceKind};
use ultra_workspace::Workspace;
use ultra_workspace::history::{Existence, Filter};
use ultra_workspace::workspace::{EditOp, FileEdits, Prepared, TxnOutcome};

use ultra_services::util::{emit_changed, emit_notices, is_human, target};
use ultra_services::{Services, WsGuard};
use ultra_tools::code::after_edit::{Baseline, EditDiagnostics};

/// Register the edit commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Edit)?;
    r.register(InsertText)?;
    r.register(replace::ReplaceText)?;
    r.register(ApplyEdits)?;
    r.register(rename::RenameSymbol)?;
    r.register(code_action::CodeActionsCommand)?;
    r.register(Undo)?;
    r.register(Redo)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];

/// How a batch ends once it resolved and the validators agreed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// One new transaction.
    Commit,
    /// A person's typing: joins their run of typing as one undo step.
    Typing,
    /// One new transaction, then every file saved as one batch. Every file's save
    /// precondition (its disk has not moved on under the buffer) is checked before
    /// anything changes, so a refused save leaves every buffer and file as it was.
    Save,
}

/// The one edit path: prepare (resolve every edit against the current text), validate,
/// commit and, for [`Finish::Save`], save, all under the workspace lock the caller holds
/// (`ws`), so nothing can change between the check and the write. Nothing changes unless
/// every edit resolves and every validator agrees.
pub(crate) fn apply(
    cx: &mut Cx<'_, Services>,
    ws: &mut Workspace,
    files: Vec<FileEdits>,
    finish: Finish,
) -> Result<TxnOutcome, CommandError> {
    let prepared = ws.prepare(files);
    emit_notices(cx, ws);
    let prepared = prepared?;
    if finish == Finish::Save {
        for pf in &prepared.files {
            let checked = ws.check_saveable(&pf.path);
            emit_notices(cx, ws);
            checked?;
        }
    }
    check_content(cx, ws, &prepared)?;
    let outcome = if finish == Finish::Typing {
        ws.commit_typing(prepared, cx.source, cx.command_id)
    } else {
        ws.commit(prepared, cx.source, cx.command_id)
    };
    emit_changed(cx, &outcome, cx.command_id);
    if finish == Finish::Save {
        ultra_services::util::persist_txn(cx, ws, &outcome.files)?;
    }
    Ok(outcome)
}

/// [`apply`], then what the edit did to its files' problems (for an agent: see
/// `after_edit`), judged once the workspace lock `ws` is released.
pub(crate) fn apply_reported(
    cx: &mut Cx<'_, Services>,
    mut ws: WsGuard<'_>,
    files: Vec<FileEdits>,
    finish: Finish,
) -> Result<(TxnOutcome, EditDiagnostics), CommandError> {
    let base = Baseline::take(cx, &ws, files.iter().map(|f| &f.path));
    let outcome = apply(cx, &mut ws, files, finish)?;
    Ok((outcome, base.report(cx, ws)))
}

/// Run the content validators over each file's text after a prepared batch.
fn check_content(
    cx: &mut Cx<'_, Services>,
    ws: &Workspace,
    prepared: &Prepared,
) -> Result<(), CommandError> {
    for pf in &prepared.files {
        if pf.reps.is_empty() {
            continue;
        }
        let guard = ws;
        cx.check_content(pf.path.as_str(), &|| guard.preview(pf), &|| {
            guard.current_text(&pf.path)
        })?;
    }
    Ok(())
}

/// Result of single-file edits.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Edited {
    /// The transaction id, for `ultra.undo {txnId}`.
    pub txn_id: u64,
    pub path: String,
    /// The buffer version after the edit.
    pub version: u64,
    /// Content hash after the edit (omitted for buffers over 4 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    pub line_count: usize,
    /// How many occurrences were replaced.
    pub replaced: usize,
    /// The matching level used for anchors: exact, lineEndings, trailingWhitespace or
    /// indentation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_level: Option<String>,
    /// The changed lines after the edit, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_lines: Option<(usize, usize)>,
    /// For an agent's edit of code: what it did to the file's problems.
    #[serde(flatten)]
    pub diagnostics: EditDiagnostics,
}

/// The one file of `outcome` as a single-file edit's answer, with `diagnostics`.
pub(crate) fn single_reported(
    (outcome, diagnostics): (TxnOutcome, EditDiagnostics),
) -> Result<Edited, CommandError> {
    let mut edited = single(outcome)?;
    edited.diagnostics = diagnostics;
    Ok(edited)
}

pub(crate) fn single(outcome: TxnOutcome) -> Result<Edited, CommandError> {
    let f = outcome.files.into_iter().next().ok_or_else(|| {
        CommandError::new(ErrorCode::InternalError, "edit produced no file outcome")
    })?;
    Ok(Edited {
        txn_id: outcome.txn_id,
        path: f.path,
        version: f.version,
        hash: f.hash,
        line_count: f.line_count,
        replaced: f.replaced,
        match_level: f.match_levels.first().map(|l| l.to_string()),
        changed_lines: f.changed_lines,
        diagnostics: EditDiagnostics::default(),
    })
}

// ---------------------------------------------------------------- edit

/// Arguments of `ultra.edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EditArgs {
    /// The range to replace (0-based; `column` is accepted for `character`).
    pub range: Range,
    /// The replacement text.
    pub text: String,
    /// The file (default: the active buffer).
    pub path: Option<String>,
    /// Fail with STALE_VERSION unless the buffer is at this version.
    pub expected_version: Option<u64>,
    /// Fail with STALE_VERSION unless the content hash is this.
    pub expected_hash: Option<String>,
}

/// `ultra.edit`.
pub struct Edit;

impl Command<Services> for Edit {
    type Args = EditArgs;
    type Output = Edited;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.edit",
        "Edit",
        "Edit",
        "Replace a range of a buffer with text (0-based positions; characters are Unicode scalar values). Pass expectedVersion or expectedHash to fail with STALE_VERSION, carrying the current version and a diff, instead of overwriting someone else's change.",
    )
    .touches(Touches::WRITE)
    .examples(&[
        Example {
            description: "Rename a variable on line 1",
            args: r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}, "text": "total"}"#,
            files: HELLO,
            expect: Some(r#"{"path": "src/app.ts", "version": 2, "changedLines": [1, 1]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A stale version is refused",
            args: r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 0}}, "text": "x", "expectedVersion": 7}"#,
            files: HELLO,
            error: Some("STALE_VERSION"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: EditArgs) -> Result<Edited, CommandError> {
        let services = cx.services;
        let ws = services.ws();
        let path = target(cx, &ws, args.path.as_deref(), true)?;
        let file = FileEdits {
            path,
            expected_version: args.expected_version,
            expected_hash: args.expected_hash,
            edits: vec![EditOp::Range {
                range: args.range,
                text: args.text,
                encoding: cx.source.encoding(),
            }],
        };
        single_reported(apply_reported(cx, ws, vec![file], Finish::Commit)?)
    }
}

// ---------------------------------------------------------------- insertText

/// Arguments of `ultra.insertText`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InsertTextArgs {
    pub text: String,
    /// Where to insert (0-based). Default: at every cursor, replacing selected text.
    pub position: Option<Position>,
    /// The file (default: the active buffer).
    pub path: Option<String>,
    pub expected_version: Option<u64>,
    pub expected_hash: Option<String>,
}

/// `ultra.insertText`.
pub struct InsertText;

impl Command<Services> for InsertText {
    type Args = InsertTextArgs;
    type Output = Edited;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.insertText",
        "Insert Text",
        "Edit",
        "Insert text at a position, or at every cursor (replacing selections) when no position is given, as one undoable transaction.",
    )
    .touches(Touches::WRITE)
    .examples(&[Example {
        description: "Insert a line at the top",
        args: r#"{"path": "src/app.ts", "text": "// header\n", "position": {"line": 0, "character": 0}}"#,
        files: HELLO,
        expect: Some(r#"{"version": 2, "lineCount": 4}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: InsertTextArgs) -> Result<Edited, CommandError> {
        let services = cx.services;
        let mut ws = services.ws();
        let path = target(cx, &ws, args.path.as_deref(), true)?;
        let edits = match args.position {
            Some(p) => vec![EditOp::Range {
                range: Range::point(p),
                text: args.text,
                encoding: cx.source.encoding(),
            }],
            None => {
                ws.open_buffer(&path)?;
                let buf = ws.buffer(&path).ok_or_else(|| {
                    CommandError::new(ErrorCode::InternalError, "buffer vanished")
                })?;
                buf.selections
                    .iter()
                    .map(|s| {
                        let (start, end) = s.span();
                        EditOp::Chars {
                            start,
                            end,
                            text: args.text.clone(),
                        }
                    })
                    .collect()
            }
        };
        let file = FileEdits {
            path,
            expected_version: args.expected_version,
            expected_hash: args.expected_hash,
            edits,
        };
        // A person typing at the cursors: a run of it is one undo step.
        let finish = if is_human(cx) && args.position.is_none() {
            Finish::Typing
        } else {
            Finish::Commit
        };
        single_reported(apply_reported(cx, ws, vec![file], finish)?)
    }
}

// ---------------------------------------------------------------- applyEdits

/// One edit in `ultra.applyEdits`: give `range` + `text`, or `startLine`/`endLine` + `text`,
/// or `old` + `new`.
// The shape on the wire and in the schema (its doc above is the schema's description);
// `EditSpec` is what it means.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "EditSpec")]
struct EditSpecWire {
    /// A range to replace (0-based).
    range: Option<Range>,
    /// First line to replace (1-based), with `endLine`.
    #[schemars(range(min = 1))]
    start_line: Option<usize>,
    /// Last line to replace (1-based, inclusive); `startLine - 1` inserts before `startLine`.
    end_line: Option<usize>,
    /// Replacement text for `range` or lines.
    text: Option<String>,
    /// Anchor text that must match exactly once (or every time with `replaceAll`).
    old: Option<String>,
    /// Replacement for `old`.
    new: Option<String>,
    /// Replace every match of `old`.
    #[serde(default)]
    replace_all: bool,
    /// When `old` does not match exactly, retry ignoring trailing whitespace, then
    /// indentation (`new` is re-indented to fit); the result says which level matched.
    // CRLF and LF always match each other (level `lineEndings`), with or without it.
    #[serde(default)]
    whitespace: bool,
}

/// One edit in `ultra.applyEdits`, by kind: exactly one of `range`, `startLine` or `old`
/// chooses it when the arguments are read.
#[derive(Debug)]
pub enum EditSpec {
    /// `{range, text}`.
    Range { range: Range, text: String },
    /// `{startLine, endLine, text}`.
    Lines {
        start: usize,
        end: usize,
        text: String,
    },
    /// `{old, new, replaceAll?, whitespace?}`.
    Anchor {
        old: String,
        new: String,
        replace_all: bool,
        whitespace: bool,
    },
    /// None of the kinds, several, or one missing a field: why. The batch is refused when
    /// it runs (`edit N: why`, after the paths before it resolved), as it always was, so a
    /// malformed edit is reported like any other bad edit and not as a parse error.
    Malformed(&'static str),
}

impl From<EditSpecWire> for EditSpec {
    fn from(w: EditSpecWire) -> EditSpec {
        match (w.range, w.start_line, w.old) {
            (Some(range), None, None) => match w.text {
                Some(text) => EditSpec::Range { range, text },
                None => EditSpec::Malformed("`range` needs `text`"),
            },
            (None, Some(start), None) => match (w.end_line, w.text) {
                (Some(end), Some(text)) => EditSpec::Lines { start, end, text },
                (None, _) => EditSpec::Malformed("`startLine` needs `endLine`"),
                (Some(_), None) => EditSpec::Malformed("`startLine` needs `text`"),
            },
            (None, None, Some(old)) if old.is_empty() => {
                EditSpec::Malformed("`old` may not be empty")
            }
            (None, None, Some(old)) => match w.new {
                Some(new) => EditSpec::Anchor {
                    old,
                    new,
                    replace_all: w.replace_all,
                    whitespace: w.whitespace,
                },
                None => EditSpec::Malformed("`old` needs `new`"),
            },
            _ => EditSpec::Malformed("give exactly one of `range`, `startLine` or `old`"),
        }
    }
}

/// Read as the wire shape, then sorted into its kind.
impl<'de> Deserialize<'de> for EditSpec {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<EditSpec, D::Error> {
        EditSpecWire::deserialize(de).map(EditSpec::from)
    }
}

/// The schema is the wire shape's: one object with every field optional.
impl JsonSchema for EditSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        EditSpecWire::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        EditSpecWire::schema_id()
    }

    fn inline_schema() -> bool {
        EditSpecWire::inline_schema()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        EditSpecWire::json_schema(generator)
    }
}

impl EditSpec {
    /// The workspace edit, or the refusal of edit `i` of its file.
    fn into_op(self, i: usize, encoding: PositionEncoding) -> Result<EditOp, CommandError> {
        Ok(match self {
            EditSpec::Range { range, text } => EditOp::Range {
                range,
                text,
                encoding,
            },
            EditSpec::Lines { start, end, text } => EditOp::Lines { start, end, text },
            EditSpec::Anchor {
                old,
                new,
                replace_all,
                whitespace,
            } => EditOp::Anchor {
                old,
                new,
                replace_all,
                whitespace,
            },
            EditSpec::Malformed(why) => {
                return Err(CommandError::new(
                    ErrorCode::InvalidArguments,
                    format!("edit {i}: {why}"),
                )
                .with_suggestion(
                    "each edit is {range, text}, {startLine, endLine, text} or {old, new, replaceAll?, whitespace?}",
                ));
            }
        })
    }
}

/// The edits for one file in `ultra.applyEdits`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileEditsArgs {
    pub path: String,
    pub expected_version: Option<u64>,
    pub expected_hash: Option<String>,
    /// Edits refer to the text before the batch and may not overlap.
    pub edits: Vec<EditSpec>,
}

impl FileEditsArgs {
    /// The batch entry: the path resolved for writing (the one conversion it gets) and
    /// each edit checked, in order.
    fn resolve(
        self,
        ws: &Workspace,
        human: bool,
        encoding: PositionEncoding,
    ) -> Result<FileEdits, CommandError> {
        let path = ws.resolve_write(&self.path, human)?;
        let edits = self
            .edits
            .into_iter()
            .enumerate()
            .map(|(i, e)| e.into_op(i, encoding))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FileEdits {
            path,
            expected_version: self.expected_version,
            expected_hash: self.expected_hash,
            edits,
        })
    }
}

/// Arguments of `ultra.applyEdits`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ApplyEditsArgs {
    pub files: Vec<FileEditsArgs>,
    /// Save every changed file afterwards.
    #[serde(default)]
    pub save: bool,
}

/// `ultra.applyEdits`.
pub struct ApplyEdits;

/// Result of `ultra.applyEdits`: the transaction and, for an agent's edit of code, what it
/// did to the files' problems.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BatchApplied {
    #[serde(flatten)]
    pub outcome: TxnOutcome,
    #[serde(flatten)]
    pub diagnostics: EditDiagnostics,
}

impl Command<Services> for ApplyEdits {
    type Args = ApplyEditsArgs;
    type Output = BatchApplied;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.applyEdits",
        "Apply Edits",
        "Edit",
        "Apply range, line and anchor-text edits across one or more files atomically: all or nothing, one undo group. Anchors ({old, new}) must match exactly once unless replaceAll; zero matches lists the closest lines, several list where they are. Set whitespace: true to tolerate indentation and trailing-space differences (the result says which level matched; new is re-indented to the file's indentation). CRLF and LF always match, and new text takes the file's line endings.",
    )
    .touches(Touches::WRITE)
    .tool_name("apply_edits")
    .examples(&[
        Example {
            description: "Two anchor edits in two files, atomically, then save",
            args: r#"{"files": [{"path": "src/app.ts", "edits": [{"old": "console.log(x)", "new": "logger.debug(x)"}]}, {"path": "src/b.ts", "edits": [{"old": "1", "new": "2"}]}], "save": true}"#,
            files: &[("src/app.ts", "const x = 1;\nconsole.log(x);\n"), ("src/b.ts", "export const b = 1;\n")],
            expect: Some(r#"{"files": [{"path": "src/app.ts", "version": 2}, {"path": "src/b.ts", "version": 2}]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "An ambiguous anchor fails and changes nothing",
            args: r#"{"files": [{"path": "src/app.ts", "edits": [{"old": "x", "new": "y"}]}]}"#,
            files: HELLO,
            error: Some("AMBIGUOUS_MATCH"),
            ..Example::EMPTY
        },
        Example {
            description: "Match despite different indentation",
            args: r#"{"files": [{"path": "src/app.ts", "edits": [{"old": "    console.log(x);", "new": "console.info(x);", "whitespace": true}]}]}"#,
            files: HELLO,
            expect: Some(r#"{"files": [{"matchLevels": ["indentation"]}]}"#),
            ..Example::EMPTY
        },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: ApplyEditsArgs,
    ) -> Result<BatchApplied, CommandError> {
        if args.files.is_empty() {
            return Err(
                CommandError::new(ErrorCode::InvalidArguments, "`files` is empty")
                    .with_suggestion("give at least one {path, edits}"),
            );
        }
        let (human, encoding) = (is_human(cx), cx.source.encoding());
        let services = cx.services;
        let ws = services.ws();
        let files = args
            .files
            .into_iter()
            .map(|f| f.resolve(&ws, human, encoding))
            .collect::<Result<Vec<_>, _>>()?;
        let finish = if args.save {
            Finish::Save
        } else {
            Finish::Commit
        };
        let (outcome, diagnostics) = apply_reported(cx, ws, files, finish)?;
        Ok(BatchApplied {
            outcome,
            diagnostics,
        })
    }
}

// ---------------------------------------------------------------- undo / redo

/// Arguments of `ultra.undo` and `ultra.redo`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UndoArgs {
    /// Only transactions by this source kind (`ai`, `human`, ...).
    pub source: Option<SourceKind>,
    /// Only transactions by this agent.
    pub agent_id: Option<String>,
    /// Exactly this transaction.
    pub txn_id: Option<u64>,
    /// Only transactions touching this file.
    pub path: Option<String>,
}

impl UndoArgs {
    /// Without filters, a person undoes their own edits in the active buffer and a program
    /// or agent undoes its own latest transaction.
    fn filter(self, cx: &Cx<'_, Services>) -> Result<Filter, CommandError> {
        let ws = cx.services.ws();
        let path = match &self.path {
            Some(p) => Some(ws.resolve_read(p, is_human(cx))?),
            None => None,
        };
        let explicit = self.source.is_some()
            || self.agent_id.is_some()
            || self.txn_id.is_some()
            || path.is_some();
        if explicit {
            return Ok(Filter {
                source: self.source,
                agent_id: self.agent_id,
                txn_id: self.txn_id,
                path,
            });
        }
        if is_human(cx) {
            // A person's undo leaves agents' work alone unless asked (`source: "ai"`).
            return Ok(Filter {
                source: Some(SourceKind::Human),
                path: ws.active().cloned(),
                ..Filter::default()
            });
        }
        Ok(Filter {
            source: Some(cx.source.kind),
            agent_id: cx.source.agent_id.clone(),
            ..Filter::default()
        })
    }
}

/// An undo or redo that brings back or takes away files happens on disk, as the
/// transaction it inverts did: a buffer cannot stand for a file that is gone, nor for one
/// that must come back. Its other files are saved with it, in one batch.
fn persist_if_files_came_or_went(
    cx: &Cx<'_, Services>,
    ws: &mut Workspace,
    outcome: &TxnOutcome,
) -> Result<(), CommandError> {
    if outcome.files.iter().any(|f| f.existence != Existence::Kept) {
        ultra_services::util::persist_txn(cx, ws, &outcome.files)?;
    }
    Ok(())
}

/// `ultra.undo`.
pub struct Undo;

impl Command<Services> for Undo {
    type Args = UndoArgs;
    type Output = TxnOutcome;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.undo",
        "Undo",
        "Edit",
        "Undo the newest transaction matching the filter: by source (undo only an agent's work), agent, txnId or path. Later edits elsewhere in the file are kept; if a later edit overlaps, UNDO_CONFLICT. With no filter a person undoes their own latest change in the active buffer (an agent's only when asked, with `source`) and an agent undoes its own latest change.",
    )
    .touches(Touches::WRITE)
    .keybinding("ctrl+z")
    .examples(&[Example {
        description: "Undo an agent's edit by source",
        args: r#"{"source": "ai"}"#,
        files: HELLO,
        setup: &[("ultra.edit", r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}, "text": "let"}"#)],
        error: Some("NOTHING_TO_UNDO"),
        ..Example::EMPTY
    }, Example {
        description: "Undo the latest edit in the active buffer",
        args: "{}",
        files: HELLO,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.edit", r#"{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}, "text": "let"}"#),
        ],
        expect: Some(r#"{"files": [{"path": "src/app.ts", "version": 3}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: UndoArgs) -> Result<TxnOutcome, CommandError> {
        let filter = args.filter(cx)?;
        let mut ws = cx.services.ws();
        let outcome = ws.undo(&filter)?;
        emit_changed(cx, &outcome, Undo::SPEC.id);
        persist_if_files_came_or_went(cx, &mut ws, &outcome)?;
        Ok(outcome)
    }
}

/// `ultra.redo`.
pub struct Redo;

impl Command<Services> for Redo {
    type Args = UndoArgs;
    type Output = TxnOutcome;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.redo",
        "Redo",
        "Edit",
        "Redo the newest undone transaction matching the filter (same filters as ultra.undo). A new edit by the same author ends its redo chain.",
    )
    .touches(Touches::WRITE)
    .keybinding("ctrl+y")
    .examples(&[Example {
        description: "Undo then redo",
        args: "{}",
        files: HELLO,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.insertText", r#"{"text": "// x\n", "position": {"line": 0, "character": 0}}"#),
            ("ultra.undo", "{}"),
        ],
        expect: Some(r#"{"files": [{"path": "src/app.ts", "version": 4, "lineCount": 4}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: UndoArgs) -> Result<TxnOutcome, CommandError> {
        let filter = args.filter(cx)?;
        let mut ws = cx.services.ws();
        let outcome = ws.redo(&filter)?;
        emit_changed(cx, &outcome, Redo::SPEC.id);
        persist_if_files_came_or_went(cx, &mut ws, &outcome)?;
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusal of `applyEdits`'s edit 0 given as `edit`, or `Ok` when it is one kind.
    fn refusal(edit: serde_json::Value) -> Result<(), String> {
        let args: ApplyEditsArgs = ultra_core::schema::parse(
            serde_json::json!({"files": [{"path": "a.ts", "edits": [edit]}]}),
        )
        .map_err(|issues| format!("parse: {issues:?}"))?;
        let spec = args
            .files
            .into_iter()
            .next()
            .unwrap()
            .edits
            .into_iter()
            .next()
            .unwrap();
        match spec.into_op(0, PositionEncoding::default()) {
            Ok(_) => Ok(()),
            Err(e) => Err(e.message),
        }
    }

    #[test]
    fn each_edit_is_one_kind_refused_as_it_runs() {
        let range = serde_json::json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}});
        let exactly = "edit 0: give exactly one of `range`, `startLine` or `old`";
        assert_eq!(refusal(serde_json::json!({})), Err(exactly.into()));
        assert_eq!(
            refusal(serde_json::json!({"range": range, "old": "x", "text": "y"})),
            Err(exactly.into())
        );
        assert_eq!(
            refusal(serde_json::json!({"range": range})),
            Err("edit 0: `range` needs `text`".into())
        );
        assert_eq!(
            refusal(serde_json::json!({"startLine": 1, "text": "a"})),
            Err("edit 0: `startLine` needs `endLine`".into())
        );
        assert_eq!(
            refusal(serde_json::json!({"startLine": 1, "endLine": 1})),
            Err("edit 0: `startLine` needs `text`".into())
        );
        assert_eq!(
            refusal(serde_json::json!({"old": ""})),
            Err("edit 0: `old` may not be empty".into())
        );
        assert_eq!(
            refusal(serde_json::json!({"old": "x"})),
            Err("edit 0: `old` needs `new`".into())
        );
        assert_eq!(
            refusal(serde_json::json!({"range": range, "text": "y"})),
            Ok(())
        );
        assert_eq!(
            refusal(serde_json::json!({"startLine": 1, "endLine": 0, "text": "y"})),
            Ok(())
        );
        assert_eq!(refusal(serde_json::json!({"old": "x", "new": "y"})), Ok(()));
        // Unknown fields and wrong types are still parse errors.
        assert!(refusal(serde_json::json!({"bogus": 1})).is_err_and(|e| e.starts_with("parse:")));
    }
}
