//! Seed 003 `editor.*` methods: the VS Code agent-control API as entry points to the same
//! handlers as the `ultra.*` commands.
//!
//! Positions and lines are 0-based (seed 003). Paths are relative to the workspace root or
//! absolute inside it. Methods whose seed result is `{success: boolean}` return
//! `success: true` plus what the underlying handler reports (path, version, hash); failures
//! are errors, never `success: false` (except `editor.saveAll`, which reports per buffer).
//! `editor.getSelection` is an alias of `ultra.getSelection` (same arguments and result), so
//! it is declared there.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, Position, Range};
use ultra_workspace::buffer::Selection;
use ultra_workspace::text;
use ultra_workspace::workspace::{EditOp, FileEdits};

use crate::edit::{Edited, Finish, apply_reported, single_reported};
use crate::navigation::{Cursors, cursors, with_buffer};
use crate::query::NoArgs;
use ultra_services::Services;
use ultra_services::util::{file_uri, target};

/// Register the seed 003 editor methods.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(OpenFile)?;
    r.register(GetContent)?;
    r.register(SetContent)?;
    r.register(SetSelection)?;
    r.register(RevealLine)?;
    r.register(GetActiveFile)?;
    r.register(GetOpenFiles)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)];

/// A seed 003 `{success: boolean}` result: `success` plus the handler's own report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Done<T> {
    /// True when the operation happened (failures are errors).
    pub success: bool,
    #[serde(flatten)]
    pub data: T,
}

impl<T> Done<T> {
    /// A successful result carrying `data`.
    pub fn ok(data: T) -> Done<T> {
        Done {
            success: true,
            data,
        }
    }
}

// ---------------------------------------------------------------- openFile

/// Arguments of `editor.openFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpenFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Open as a preview tab (accepted; Ultra has no preview tabs).
    pub preview: Option<bool>,
    /// VS Code view column (accepted; Ultra has one editor column).
    pub view_column: Option<i32>,
}

/// Result of `editor.openFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditorOpened {
    /// Always true: failures are errors.
    pub success: bool,
    /// `file://` URI of the file's absolute path.
    pub document_uri: String,
    /// Workspace-relative path.
    pub path: String,
    /// LSP language id (`typescript`, `rust`, ...).
    pub language_id: String,
    /// Buffer version, for `expectedVersion`.
    pub version: u64,
    /// Lines in the buffer.
    pub line_count: usize,
    /// Whether the buffer has unsaved changes.
    pub is_dirty: bool,
    /// Content hash, for `expectedHash` (omitted for buffers over 4 MiB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// `editor.openFile`.
pub struct OpenFile;

impl Command<Services> for OpenFile {
    type Args = OpenFileArgs;
    type Output = EditorOpened;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.openFile",
        "Editor: Open File",
        "Editor",
        "Open a file into a buffer and make it the active editor (seed 003). Returns its documentUri (file:// + absolute path), version and hash.",
    )
    .touches(Touches::READ)
    .idempotent()
    .examples(&[
        Example { description: "Open a file", args: r#"{"path": "src/app.ts", "preview": false}"#, files: HELLO, expect: Some(r#"{"success": true, "path": "src/app.ts", "languageId": "typescript", "version": 1}"#), ..Example::EMPTY },
        Example { description: "A missing file is an error", args: r#"{"path": "nope.ts"}"#, error: Some("FILE_NOT_FOUND"), ..Example::EMPTY },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: OpenFileArgs,
    ) -> Result<EditorOpened, CommandError> {
        let opened = crate::file::open_file(cx, &args.path, None)?;
        Ok(EditorOpened {
            success: true,
            document_uri: file_uri(cx.services.root_path(), &opened.path),
            path: opened.path,
            language_id: opened.language,
            version: opened.version,
            line_count: opened.line_count,
            is_dirty: opened.is_dirty,
            hash: opened.hash,
        })
    }
}

// ---------------------------------------------------------------- getContent

/// Arguments of `editor.getContent`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetContentArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// First line to return (1-based, default 1).
    #[schemars(range(min = 1))]
    pub offset: Option<usize>,
    /// How many lines to return (default: all).
    pub limit: Option<usize>,
    /// Most characters to return (default: no cap); the cut falls on a line boundary.
    pub max_chars: Option<usize>,
}

/// Result of `editor.getContent`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditorContent {
    /// The text (only the requested lines when paged).
    pub content: String,
    /// LSP language id.
    pub language_id: String,
    /// Workspace-relative path.
    pub path: String,
    /// Lines in the whole file.
    pub line_count: usize,
    /// Buffer version when the file is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Content hash of the whole file, for `expectedHash`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Whether the buffer has unsaved changes.
    pub is_dirty: bool,
    /// Whether lines were left out (only with offset, limit or maxChars).
    pub truncated: bool,
    /// Pass as `offset` to continue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// `editor.getContent`.
pub struct GetContent;

impl Command<Services> for GetContent {
    type Args = GetContentArgs;
    type Output = EditorContent;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.getContent",
        "Editor: Get Content",
        "Editor",
        "A file's text as the editor sees it: the open buffer's, unsaved changes included, else the disk's (seed 003). Whole by default; page with offset/limit/maxChars.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "Read a file",
        args: r#"{"path": "src/app.ts"}"#,
        files: HELLO,
        expect: Some(r#"{"content": "const x = 1;\nconsole.log(x);\n", "languageId": "typescript", "truncated": false}"#),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: GetContentArgs,
    ) -> Result<EditorContent, CommandError> {
        let snap = crate::query::read_snapshot(cx, Some(&args.path))?;
        // Seed 003 clients write back what they read, so nothing is cut unless asked.
        let page = crate::query::page(
            &snap.rope,
            args.offset,
            args.limit,
            args.max_chars.unwrap_or(usize::MAX),
        );
        Ok(EditorContent {
            content: page.content,
            language_id: snap.language.into(),
            path: snap.path.to_string(),
            line_count: page.line_count,
            version: snap.version,
            hash: snap.hash,
            is_dirty: snap.dirty,
            truncated: page.truncated,
            next_offset: page.next_offset,
        })
    }
}

// ---------------------------------------------------------------- edits

/// The shared tail of the editor edits: one transaction through `ultra.edit`'s batch path
/// (preconditions, validators, undo, events).
fn edit_one(
    cx: &mut Cx<'_, Services>,
    path: &str,
    expected_version: Option<u64>,
    expected_hash: Option<String>,
    op: EditOp,
) -> Result<Done<Edited>, CommandError> {
    let services = cx.services;
    let ws = services.ws();
    let path = target(cx, &ws, Some(path), true)?;
    let file = FileEdits {
        path,
        expected_version,
        expected_hash,
        edits: vec![op],
    };
    single_reported(apply_reported(cx, ws, vec![file], Finish::Commit)?).map(Done::ok)
}

/// Arguments of `editor.setContent`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetContentArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The new full text.
    pub content: String,
    /// Fail with STALE_VERSION unless the buffer is at this version.
    pub expected_version: Option<u64>,
    /// Fail with STALE_VERSION unless the content hash is this.
    pub expected_hash: Option<String>,
}

/// `editor.setContent`.
pub struct SetContent;

impl Command<Services> for SetContent {
    type Args = SetContentArgs;
    type Output = Done<Edited>;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.setContent",
        "Editor: Set Content",
        "Editor",
        "Replace a buffer's whole text as one undoable transaction (seed 003). The buffer is left unsaved; call editor.save to write it. Pass expectedVersion or expectedHash to refuse (STALE_VERSION) if it changed since you read it.",
    )
    .touches(Touches::WRITE)
    .idempotent()
    .examples(&[
        Example {
            description: "Replace the whole file",
            args: r#"{"path": "src/app.ts", "content": "export const y = 2;\n"}"#,
            files: HELLO,
            expect: Some(r#"{"success": true, "path": "src/app.ts", "version": 2, "lineCount": 2}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A stale hash is refused",
            args: r#"{"path": "src/app.ts", "content": "", "expectedHash": "0000"}"#,
            files: HELLO,
            error: Some("STALE_VERSION"),
            ..Example::EMPTY
        },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: SetContentArgs,
    ) -> Result<Done<Edited>, CommandError> {
        edit_one(
            cx,
            &args.path,
            args.expected_version,
            args.expected_hash,
            EditOp::All { text: args.content },
        )
    }
}

// ---------------------------------------------------------------- setSelection

/// Arguments of `editor.setSelection`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetSelectionArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The selection (0-based); an empty range is a cursor.
    pub range: Range,
    /// The cursor sits at the start of the range instead of its end.
    #[serde(default)]
    pub reversed: bool,
}

/// `editor.setSelection`.
pub struct SetSelection;

impl Command<Services> for SetSelection {
    type Args = SetSelectionArgs;
    type Output = Done<Cursors>;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.setSelection",
        "Editor: Set Selection",
        "Editor",
        "Make the file the active editor and replace its selections with one 0-based range (seed 003); an empty range places the cursor.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .examples(&[Example {
        description: "Select `console` on line 1",
        args: r#"{"path": "src/app.ts", "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 7}}}"#,
        files: HELLO,
        expect: Some(r#"{"success": true, "cursor": {"line": 1, "character": 7}, "selections": [{"start": {"line": 1, "character": 0}}]}"#),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: SetSelectionArgs,
    ) -> Result<Done<Cursors>, CommandError> {
        with_buffer(cx, Some(&args.path), |buf, enc| {
            crate::selection::set_ranges(buf, &[args.range], args.reversed, enc)?;
            Ok(Done::ok(cursors(buf, enc)))
        })
    }
}

// ---------------------------------------------------------------- revealLine

/// Where a revealed line should sit in the viewport.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RevealAt {
    Top,
    Center,
    Bottom,
}

/// Arguments of `editor.revealLine`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RevealLineArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The line to reveal (0-based).
    pub line: u32,
    /// Viewport placement: top, center or bottom (recorded for UIs; Ultra has no viewport
    /// of its own).
    pub at: Option<RevealAt>,
}

/// Result of `editor.revealLine`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Revealed {
    /// Always true: failures are errors.
    pub success: bool,
    /// Workspace-relative path.
    pub path: String,
    /// The revealed line (0-based).
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<RevealAt>,
    /// Where the cursor is now.
    pub cursor: Position,
}

/// `editor.revealLine`.
pub struct RevealLine;

impl Command<Services> for RevealLine {
    type Args = RevealLineArgs;
    type Output = Revealed;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.revealLine",
        "Editor: Reveal Line",
        "Editor",
        "Make the file the active editor and move a single cursor to the start of a 0-based line (seed 003). A line past the end is INVALID_POSITION.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .examples(&[
        Example {
            description: "Reveal line 1 at the center",
            args: r#"{"path": "src/app.ts", "line": 1, "at": "center"}"#,
            files: HELLO,
            expect: Some(r#"{"success": true, "line": 1, "at": "center", "cursor": {"line": 1, "character": 0}}"#),
            ..Example::EMPTY
        },
        Example { description: "A line past the end is an error", args: r#"{"path": "src/app.ts", "line": 9}"#, files: HELLO, error: Some("INVALID_POSITION"), ..Example::EMPTY },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: RevealLineArgs,
    ) -> Result<Revealed, CommandError> {
        with_buffer(cx, Some(&args.path), |buf, enc| {
            let at = text::to_char(&buf.rope, Position::new(args.line, 0), enc)?;
            buf.selections = vec![Selection::cursor(at)];
            Ok(Revealed {
                success: true,
                path: buf.path.to_string(),
                line: args.line,
                at: args.at,
                cursor: buf.cursor(enc),
            })
        })
    }
}

// ---------------------------------------------------------------- getActiveFile

/// Result of `editor.getActiveFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveFile {
    /// Workspace-relative path.
    pub path: String,
    /// LSP language id.
    pub language_id: String,
    /// `file://` URI of the absolute path.
    pub document_uri: String,
    /// Buffer version, for `expectedVersion`.
    pub version: u64,
    /// Whether the buffer has unsaved changes.
    pub is_dirty: bool,
    /// The primary cursor (0-based).
    pub cursor: Position,
}

/// `editor.getActiveFile`.
pub struct GetActiveFile;

impl Command<Services> for GetActiveFile {
    type Args = NoArgs;
    type Output = ActiveFile;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.getActiveFile",
        "Editor: Get Active File",
        "Editor",
        "The active editor's file, language, version and cursor (seed 003). NO_ACTIVE_BUFFER when no file is open.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[
        Example { description: "The active file", args: "{}", files: HELLO, setup: OPEN, expect: Some(r#"{"path": "src/app.ts", "languageId": "typescript", "isDirty": false}"#), ..Example::EMPTY },
        Example { description: "No open file is an error", args: "{}", error: Some("NO_ACTIVE_BUFFER"), ..Example::EMPTY },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<ActiveFile, CommandError> {
        let enc = cx.source.encoding();
        let ws = cx.services.ws();
        let rel = ws.require_active()?;
        let buf = ws
            .buffer(&rel)
            .ok_or(ultra_workspace::WsError::NoActiveBuffer)?;
        Ok(ActiveFile {
            path: rel.to_string(),
            language_id: buf.language.into(),
            document_uri: file_uri(cx.services.root_path(), rel.as_str()),
            version: buf.version,
            is_dirty: buf.is_dirty(),
            cursor: buf.cursor(enc),
        })
    }
}

// ---------------------------------------------------------------- getOpenFiles

/// Result of `editor.getOpenFiles`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenFiles {
    /// Workspace-relative paths of the open files, sorted.
    pub files: Vec<String>,
    /// The active one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_file: Option<String>,
    /// The open files with unsaved changes.
    pub dirty: Vec<String>,
}

/// `editor.getOpenFiles`.
pub struct GetOpenFiles;

impl Command<Services> for GetOpenFiles {
    type Args = NoArgs;
    type Output = OpenFiles;

    const SPEC: CommandSpec = CommandSpec::new(
        "editor.getOpenFiles",
        "Editor: Get Open Files",
        "Editor",
        "The paths of every open file, the active one and those with unsaved changes (seed 003). ultra.getOpenFiles gives versions and languages too.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "List open files",
        args: "{}",
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"files": ["src/app.ts"], "activeFile": "src/app.ts", "dirty": []}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<OpenFiles, CommandError> {
        let ws = cx.services.ws();
        Ok(OpenFiles {
            files: ws.buffers().map(|b| b.path.to_string()).collect(),
            active_file: ws.active().map(|p| p.to_string()),
            dirty: ws
                .buffers()
                .filter(|b| b.is_dirty())
                .map(|b| b.path.to_string())
                .collect(),
        })
    }
}
