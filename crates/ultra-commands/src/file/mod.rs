//! File commands (seed 000 `file.ts`): open, save, save all, create, delete, rename, close.

pub mod editor;
pub mod fs;
pub mod tools;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, FileOperation, FileOperationKind, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, ErrorCode, Position};
use ultra_workspace::WsError;
use ultra_workspace::buffer::Selection;
use ultra_workspace::text;
use ultra_workspace::workspace::{Saved, TxnOutcome};

use crate::edit::file_move::{Imports, move_updating_imports};
use ultra_services::Services;
use ultra_services::util::{emit_changed, emit_notices, is_human, target};

/// Register the file commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(OpenFile)?;
    r.register(Save)?;
    r.register(SaveAll)?;
    r.register(CreateFile)?;
    r.register(DeleteFile)?;
    r.register(RenameFile)?;
    r.register(CloseFile)?;
    r.register(Revert)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];

// ---------------------------------------------------------------- openFile

/// Arguments of `ultra.openFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpenFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Line to put the cursor on (1-based).
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// Column to put the cursor on (1-based).
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// Open in preview mode (accepted; Ultra has no preview tabs).
    pub preview: Option<bool>,
    /// When the file does not exist, open an empty buffer for it instead of failing: the
    /// file (and its directories) is written on the first save.
    #[serde(default)]
    pub create: bool,
}

/// Result of `ultra.openFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    /// The buffer id (the workspace-relative path).
    pub buffer_id: String,
    pub path: String,
    pub version: u64,
    pub line_count: usize,
    pub language: String,
    pub is_dirty: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    pub cursor: Position,
}

/// `ultra.openFile`.
pub struct OpenFile;

impl Command<Services> for OpenFile {
    type Args = OpenFileArgs;
    type Output = Opened;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.openFile",
        "Open File",
        "File",
        "Open a file into a buffer and make it active. Line and column are 1-based. Returns the buffer's version and content hash, which edits can pass as expectedVersion / expectedHash.",
    )
    .touches(Touches::READ)
    .keybinding("ctrl+o")
    .idempotent()
    .examples(&[
        Example { description: "Open a file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"path": "src/app.ts", "version": 1, "lineCount": 3, "language": "typescript"}"#), ..Example::EMPTY },
        Example { description: "Open at line 2, column 9", args: r#"{"path": "src/app.ts", "line": 2, "column": 9}"#, files: HELLO, expect: Some(r#"{"cursor": {"line": 1, "character": 8}}"#), ..Example::EMPTY },
        Example { description: "A missing file is an error", args: r#"{"path": "nope.ts"}"#, error: Some("FILE_NOT_FOUND"), ..Example::EMPTY },
        Example { description: "A new file, written on first save", args: r#"{"path": "src/new.ts", "create": true}"#, expect: Some(r#"{"path": "src/new.ts", "lineCount": 1, "isDirty": false}"#), ..Example::EMPTY },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: OpenFileArgs) -> Result<Opened, CommandError> {
        let cursor = args.line.map(|line| {
            Position::new(
                line.saturating_sub(1),
                args.column.unwrap_or(1).saturating_sub(1),
            )
        });
        if args.create {
            let mut ws = cx.services.ws();
            let rel = ws.resolve_write(&args.path, is_human(cx))?;
            if ws.buffer(&rel).is_none() && !ws.root().exists(&rel) {
                ws.open_new_buffer(&rel, "")?;
            }
        }
        open_file(cx, &args.path, cursor)
    }
}

/// Open `path` into a buffer, make it active and, when given, put a single cursor at the
/// 0-based `cursor`.
pub(crate) fn open_file(
    cx: &Cx<'_, Services>,
    path: &str,
    cursor: Option<Position>,
) -> Result<Opened, CommandError> {
    let enc = cx.source.encoding();
    let mut ws = cx.services.ws();
    let rel = ws.resolve_read(path, is_human(cx))?;
    ws.open_buffer(&rel)?;
    ws.set_active(&rel);
    emit_notices(cx, &mut ws);
    let buf = ws
        .buffer_mut(&rel)
        .ok_or_else(|| CommandError::new(ErrorCode::InternalError, "buffer vanished"))?;
    if let Some(pos) = cursor {
        let at = text::to_char(&buf.rope, pos, enc)?;
        buf.selections = vec![Selection::cursor(at)];
    }
    Ok(Opened {
        buffer_id: rel.to_string(),
        path: rel.to_string(),
        version: buf.version,
        line_count: buf.rope.len_lines(),
        language: buf.language.into(),
        is_dirty: buf.is_dirty(),
        hash: buf.cheap_hash(),
        cursor: buf.cursor(enc),
    })
}

// ---------------------------------------------------------------- save

/// Arguments of `ultra.save`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SaveArgs {
    /// The file to save (default: the active buffer).
    pub path: Option<String>,
    /// Save even if the file changed on disk since it was read.
    #[serde(default)]
    pub force: bool,
    /// Only save if the buffer is still at this version.
    pub expected_version: Option<u64>,
    /// Only save if the buffer's content hash is still this.
    pub expected_hash: Option<String>,
}

/// `ultra.save`.
pub struct Save;

pub(crate) fn save_one(
    cx: &Cx<'_, Services>,
    path: Option<&str>,
    force: bool,
) -> Result<Saved, CommandError> {
    let mut ws = cx.services.ws();
    let rel = target(cx, &ws, path, true)?;
    ultra_services::util::save_in(cx, &mut ws, &rel, force)
}

impl Command<Services> for Save {
    type Args = SaveArgs;
    type Output = Saved;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.save",
        "Save",
        "File",
        "Write a buffer to disk crash-safely (temp file, fsync, rename, fsync dir). Refuses with STALE_VERSION if the file changed on disk since it was read, unless force.",
    )
    .touches(Touches::WRITE)
    .keybinding("ctrl+s")
    .idempotent()
    .examples(&[Example {
        description: "Save the active buffer after an edit",
        args: "{}",
        files: HELLO,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.insertText", r#"{"text": "// saved\n", "position": {"line": 0, "character": 0}}"#),
        ],
        expect: Some(r#"{"path": "src/app.ts", "version": 2}"#),
        ..Example::EMPTY
    }, Example {
        description: "A save that expects an older version is refused",
        args: r#"{"path": "src/app.ts", "expectedVersion": 1}"#,
        files: HELLO,
        setup: &[("ultra.insertText", r#"{"path": "src/app.ts", "text": "// x\n", "position": {"line": 0, "character": 0}}"#)],
        error: Some("STALE_VERSION"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: SaveArgs) -> Result<Saved, CommandError> {
        let mut ws = cx.services.ws();
        let rel = target(cx, &ws, args.path.as_deref(), true)?;
        if ws.buffer(&rel).is_some() {
            // The precondition speaks of the buffer as the disk has it now.
            ws.sync_disk(&rel)?;
            ws.check_expected(&rel, args.expected_version, args.expected_hash.as_deref())?;
        }
        ultra_services::util::save_in(cx, &mut ws, &rel, args.force)
    }
}

// ---------------------------------------------------------------- revert

/// Arguments of `ultra.revert`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RevertArgs {
    /// The buffer to revert (default: the active buffer).
    pub path: Option<String>,
    /// Only revert if the buffer is still at this version (so changes made since the
    /// caller looked are not dropped unseen).
    pub expected_version: Option<u64>,
}

/// `ultra.revert`.
pub struct Revert;

impl Command<Services> for Revert {
    type Args = RevertArgs;
    type Output = TxnOutcome;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.revert",
        "Revert File",
        "File",
        "Reload a buffer from disk, dropping its unsaved changes: the way out of a conflict (STALE_VERSION with reason changedOnDisk) that keeps the disk's version. One undoable transaction: ultra.undo brings the changes back.",
    )
    .touches(Touches::READ)
    .examples(&[Example {
        description: "Drop unsaved changes, taking the disk's text",
        args: r#"{"path": "src/app.ts"}"#,
        files: HELLO,
        setup: &[("ultra.insertText", r#"{"path": "src/app.ts", "text": "// draft\n", "position": {"line": 0, "character": 0}}"#)],
        expect: Some(r#"{"files": [{"path": "src/app.ts", "version": 3, "lineCount": 3}]}"#),
        ..Example::EMPTY
    }, Example {
        description: "Only if the buffer is still at the version the caller saw",
        args: r#"{"path": "src/app.ts", "expectedVersion": 1}"#,
        files: HELLO,
        setup: &[("ultra.insertText", r#"{"path": "src/app.ts", "text": "// draft\n", "position": {"line": 0, "character": 0}}"#)],
        error: Some("STALE_VERSION"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: RevertArgs) -> Result<TxnOutcome, CommandError> {
        let mut ws = cx.services.ws();
        let rel = target(cx, &ws, args.path.as_deref(), false)?;
        if ws.buffer(&rel).is_none() {
            return Err(WsError::NotFound(format!("{rel} (not open)")).into());
        }
        ws.check_expected(&rel, args.expected_version, None)?;
        let outcome = ws.revert(&rel, cx.source, Revert::SPEC.id)?;
        emit_notices(cx, &mut ws);
        emit_changed(cx, &outcome, Revert::SPEC.id);
        Ok(outcome)
    }
}

// ---------------------------------------------------------------- saveAll

pub use ultra_services::util::NoArgs;

/// Result of `ultra.saveAll`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SavedAll {
    pub saved: Vec<Saved>,
    /// Buffers that could not be saved, with the error.
    pub failed: Vec<serde_json::Value>,
}

/// `ultra.saveAll`.
pub struct SaveAll;

impl Command<Services> for SaveAll {
    type Args = NoArgs;
    type Output = SavedAll;

    const SPEC: CommandSpec = CommandSpec::new("ultra.saveAll", "Save All", "File", "Save every buffer with unsaved changes. Reports each buffer that could not be saved instead of stopping at the first.")
    .touches(Touches::WRITE)
        .idempotent()
        .examples(&[Example {
            description: "Save all dirty buffers",
            args: "{}",
            files: HELLO,
            setup: &[("ultra.edit", r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}, "text": "y"}"#)],
            expect: Some(r#"{"saved": [{"path": "src/app.ts"}], "failed": []}"#),
            ..Example::EMPTY
        }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<SavedAll, CommandError> {
        Ok(save_all(cx))
    }
}

/// Save every dirty buffer, collecting failures instead of stopping at the first.
pub(crate) fn save_all(cx: &Cx<'_, Services>) -> SavedAll {
    let dirty: Vec<String> = cx
        .services
        .ws()
        .buffers()
        .filter(|b| b.is_dirty())
        .map(|b| b.path.to_string())
        .collect();
    let mut out = SavedAll {
        saved: Vec::new(),
        failed: Vec::new(),
    };
    for p in dirty {
        match save_one(cx, Some(&p), false) {
            Ok(s) => out.saved.push(s),
            Err(e) => out.failed.push(json!({ "path": p, "error": e })),
        }
    }
    out
}

// ---------------------------------------------------------------- createFile

/// Arguments of `ultra.createFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateFileArgs {
    pub path: String,
    /// Initial content (default empty).
    #[serde(default)]
    pub content: String,
    /// Replace an existing file instead of failing with FILE_EXISTS.
    #[serde(default)]
    pub overwrite: bool,
    /// Also open it as the active buffer.
    #[serde(default)]
    pub open: bool,
    /// With overwrite: only replace the file if its content hash is still this.
    pub expected_hash: Option<String>,
}

/// Result of `ultra.createFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    pub path: String,
    pub hash: String,
    pub bytes: u64,
    pub created: bool,
    /// For an agent's file of code: its problems (all new, or against what it replaced).
    #[serde(flatten)]
    pub diagnostics: ultra_tools::code::after_edit::EditDiagnostics,
}

/// `ultra.createFile`.
pub struct CreateFile;

impl Command<Services> for CreateFile {
    type Args = CreateFileArgs;
    type Output = Created;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.createFile",
        "Create File",
        "File",
        "Create a file (and its parent directories) with optional content, written crash-safely. Fails with FILE_EXISTS unless overwrite is true.",
    )
    .touches(Touches::WRITE)
    .examples(&[
        Example { description: "Create a file", args: r#"{"path": "src/new.ts", "content": "export {};\n"}"#, expect: Some(r#"{"path": "src/new.ts", "bytes": 11, "created": true}"#), ..Example::EMPTY },
        Example { description: "An existing file is not replaced", args: r#"{"path": "src/app.ts"}"#, files: HELLO, error: Some("FILE_EXISTS"), ..Example::EMPTY },
    ]);

    fn file_operation(&self, args: &CreateFileArgs) -> Option<FileOperation> {
        FileOperation::create(&args.path)
    }

    fn preview(&self, _services: &Services, args: &CreateFileArgs) -> Option<String> {
        Some(head_of(&args.path, &args.content))
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: CreateFileArgs,
    ) -> Result<Created, CommandError> {
        let services = cx.services;
        let mut ws = services.ws();
        let rel = ws.resolve_write(&args.path, is_human(cx))?;
        let exists = ws.root().exists(&rel);
        if exists && !args.overwrite {
            return Err(ultra_workspace::WsError::Exists(rel.to_string()).into());
        }
        if exists && args.expected_hash.is_some() {
            ws.check_expected(&rel, None, args.expected_hash.as_deref())?;
        }
        let base = ultra_tools::code::after_edit::Baseline::take(cx, &ws, [&rel]);
        let content = args.content.clone();
        cx.check_content(rel.as_str(), &|| content.clone(), &|| {
            if exists { ws.current_text(&rel) } else { None }
        })?;
        let saved = if exists {
            ws.write_file(&rel, &args.content, cx.source, CreateFile::SPEC.id)?
        } else {
            ws.root().create_parents(&rel)?;
            let meta = ws.root().create_new(&rel, args.content.as_bytes())?;
            Saved {
                path: rel.to_string(),
                version: 0,
                hash: text::hash_bytes(args.content.as_bytes()),
                bytes: meta.len,
            }
        };
        if args.open {
            ws.open_buffer(&rel)?;
            ws.set_active(&rel);
        }
        emit_notices(cx, &mut ws);
        cx.events.emit(
            names::FILE_SAVED,
            json!({ "path": saved.path, "hash": saved.hash, "created": !exists }),
            Some(cx.source),
        );
        Ok(Created {
            path: saved.path,
            hash: saved.hash,
            bytes: saved.bytes,
            created: !exists,
            diagnostics: base.report(cx, ws),
        })
    }
}

// ---------------------------------------------------------------- deleteFile

/// Arguments of `ultra.deleteFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Accepted for seed compatibility; approval is decided by policy, not by the caller.
    pub confirm: Option<bool>,
    /// Delete even if the open buffer has unsaved changes.
    #[serde(default)]
    pub force: bool,
    /// Only delete if the file's content hash is still this.
    pub expected_hash: Option<String>,
}

/// `ultra.deleteFile`.
pub struct DeleteFile;

/// Result of delete commands.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deleted {
    pub path: String,
    pub deleted: bool,
}

impl Command<Services> for DeleteFile {
    type Args = DeleteFileArgs;
    type Output = Deleted;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.deleteFile",
        "Delete File",
        "File",
        "Delete a file. A symlink is removed itself, never its target. An open buffer is closed; unsaved changes block the delete unless force. Destructive: agents are asked first under the default policy, shown the content and the files that import it.",
    )
    .touches(Touches::WRITE)
    .destructive()
    .examples(&[Example { description: "Delete a file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"path": "src/app.ts", "deleted": true}"#), ..Example::EMPTY }]);

    fn file_operation(&self, args: &DeleteFileArgs) -> Option<FileOperation> {
        FileOperation::delete(&args.path)
    }

    fn preview(&self, services: &Services, args: &DeleteFileArgs) -> Option<String> {
        let (rel, text) = {
            let mut ws = services.ws();
            let rel = ws.resolve_entry(&args.path, false).ok()?;
            let text = ws.snapshot(&rel).ok()?.rope.to_string();
            (rel, text)
        };
        let mut out = head_of(rel.as_str(), &text);
        let importers = dependents_of(services, rel.as_str());
        if !importers.is_empty() {
            out.push_str(&format!(
                "Imported by {} file(s), which would break: {}\n",
                importers.len(),
                importers.join(", ")
            ));
        }
        Some(out)
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: DeleteFileArgs,
    ) -> Result<Deleted, CommandError> {
        delete_file(cx, &args.path, args.force, args.expected_hash.as_deref())
    }
}

/// Delete a file or symlink (never a link's target), optionally only if its hash is still
/// `expected_hash`.
pub(crate) fn delete_file(
    cx: &Cx<'_, Services>,
    path: &str,
    force: bool,
    expected_hash: Option<&str>,
) -> Result<Deleted, CommandError> {
    let mut ws = cx.services.ws();
    let rel = ws.resolve_entry(path, is_human(cx))?;
    if expected_hash.is_some() {
        ws.check_expected(&rel, None, expected_hash)?;
    }
    ws.delete_file(&rel, force)?;
    cx.events.emit(
        names::FILE_SAVED,
        json!({ "path": rel.to_string(), "deleted": true }),
        Some(cx.source),
    );
    Ok(Deleted {
        path: rel.to_string(),
        deleted: true,
    })
}

// ---------------------------------------------------------------- renameFile

/// Arguments of `ultra.renameFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RenameFileArgs {
    /// The file or directory to move.
    pub path: String,
    /// Where it goes (parent directories are created).
    pub new_path: String,
    /// Replace an existing target.
    #[serde(default)]
    pub overwrite: bool,
    /// Only rename if the source's content hash is still this.
    pub expected_hash: Option<String>,
    /// Update what imports a moved code file (its language server works the edits out;
    /// they land with the move in one batch and one undo step). Default: when the file's
    /// server handles moves (typescript-language-server does); `true` makes a server that
    /// cannot an error, `false` moves the file alone.
    pub update_imports: Option<bool>,
}

/// Result of rename commands.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Renamed {
    pub path: String,
    pub new_path: String,
    /// With importers updated: the files changed (the move as `removed` and `created`),
    /// the transaction to undo it all, and the diagnostics it brought or fixed.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub imports: Option<crate::edit::server_edit::ServerEdited>,
    /// Why importers were not updated, when a language server could have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imports_not_updated: Option<String>,
}

/// `ultra.renameFile`.
pub struct RenameFile;

impl Command<Services> for RenameFile {
    type Args = RenameFileArgs;
    type Output = Renamed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.renameFile",
        "Rename File",
        "File",
        "Rename or move a file or directory inside the workspace, creating parent directories. Open buffers follow the rename. Fails with FILE_EXISTS unless overwrite; overwriting counts as destructive for policy (agents are asked).",
    )
    .touches(Touches::WRITE)
    .examples(&[
        Example {
            description: "Move a file into another directory",
            args: r#"{"path": "src/app.ts", "newPath": "lib/app.ts"}"#,
            files: HELLO,
            expect: Some(r#"{"path": "src/app.ts", "newPath": "lib/app.ts"}"#),
            ..Example::EMPTY
        },
        Example {
            description: "An agent overwriting a file needs a person's approval",
            args: r#"{"path": "src/app.ts", "newPath": "src/b.ts", "overwrite": true}"#,
            files: &[("src/app.ts", "a\n"), ("src/b.ts", "b\n")],
            source: Some(ultra_protocol::SourceKind::Ai),
            error: Some("CONFIRMATION_REQUIRED"),
            ..Example::EMPTY
        },
    ]);

    fn file_operation(&self, args: &RenameFileArgs) -> Option<FileOperation> {
        FileOperation::rename(FileOperationKind::Rename, &args.path, &args.new_path)
    }

    fn annotations(&self, args: &RenameFileArgs) -> ultra_protocol::command::Annotations {
        let mut a = self.spec().annotations;
        // Replacing an existing file loses its content: ask like a delete.
        a.destructive |= args.overwrite;
        a
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: RenameFileArgs,
    ) -> Result<Renamed, CommandError> {
        let mut note = None;
        if args.update_imports != Some(false) {
            if let Some(hash) = &args.expected_hash {
                let mut ws = cx.services.ws();
                let from = ws.resolve_entry(&args.path, is_human(cx))?;
                ws.check_expected(&from, None, Some(hash))?;
            }
            let required = args.update_imports == Some(true);
            match move_updating_imports(cx, &args.path, &args.new_path, args.overwrite, required)? {
                Imports::Updated(edited) => {
                    return Ok(Renamed {
                        path: args.path,
                        new_path: args.new_path,
                        imports: Some(edited),
                        imports_not_updated: None,
                    });
                }
                Imports::NotUpdated(why) => note = why,
            }
        }
        let mut renamed = rename(
            cx,
            &args.path,
            &args.new_path,
            args.overwrite,
            args.expected_hash.as_deref(),
        )?;
        renamed.imports_not_updated = note;
        Ok(renamed)
    }
}

/// Rename or move a file or directory (a symlink itself, not its target), optionally only
/// if the file's hash is still `expected_hash`.
pub(crate) fn rename(
    cx: &Cx<'_, Services>,
    from: &str,
    to: &str,
    overwrite: bool,
    expected_hash: Option<&str>,
) -> Result<Renamed, CommandError> {
    let mut ws = cx.services.ws();
    let human = is_human(cx);
    let from = ws.resolve_entry(from, human)?;
    let to = ws.resolve_entry(to, human)?;
    if expected_hash.is_some() {
        ws.check_expected(&from, None, expected_hash)?;
    }
    ws.rename(&from, &to, overwrite)?;
    cx.events.emit(
        names::FILE_SAVED,
        json!({ "path": to.to_string(), "renamedFrom": from.to_string() }),
        Some(cx.source),
    );
    Ok(Renamed {
        path: from.to_string(),
        new_path: to.to_string(),
        imports: None,
        imports_not_updated: None,
    })
}

// ---------------------------------------------------------------- closeFile

/// Arguments of `ultra.closeFile`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloseFileArgs {
    /// The file to close (default: the active buffer).
    pub path: Option<String>,
    /// Close without saving, discarding unsaved changes.
    #[serde(default)]
    pub force: bool,
    /// Only close if the buffer is still at this version.
    pub expected_version: Option<u64>,
}

/// Result of close commands.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Closed {
    pub path: String,
    pub closed: bool,
}

/// `ultra.closeFile`.
pub struct CloseFile;

impl Command<Services> for CloseFile {
    type Args = CloseFileArgs;
    type Output = Closed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.closeFile",
        "Close File",
        "File",
        "Close a buffer. Unsaved changes block the close (BUFFER_DIRTY) unless force. The buffer's undo history is dropped with it.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+w")
    .examples(&[
        Example { description: "Close the active buffer", args: "{}", files: HELLO, setup: &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)], expect: Some(r#"{"closed": true}"#), ..Example::EMPTY },
        Example {
            description: "Unsaved changes block a close",
            args: r#"{"path": "src/app.ts"}"#,
            files: HELLO,
            setup: &[("ultra.insertText", r#"{"path": "src/app.ts", "text": "x", "position": {"line": 0, "character": 0}}"#)],
            error: Some("BUFFER_DIRTY"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: CloseFileArgs) -> Result<Closed, CommandError> {
        close_file(cx, args.path.as_deref(), args.force, args.expected_version)
    }
}

/// Close a buffer (default: the active one), optionally only if it is still at
/// `expected_version`, so a forced close cannot discard changes the caller has not seen.
pub(crate) fn close_file(
    cx: &Cx<'_, Services>,
    path: Option<&str>,
    force: bool,
    expected_version: Option<u64>,
) -> Result<Closed, CommandError> {
    let mut ws = cx.services.ws();
    let rel = target(cx, &ws, path, false)?;
    if expected_version.is_some() && ws.buffer(&rel).is_some() {
        ws.check_expected(&rel, expected_version, None)?;
    }
    ws.close(&rel, force)?;
    Ok(Closed {
        path: rel.to_string(),
        closed: true,
    })
}

/// The first lines of `content` and how many there are, for a person deciding on it.
pub(crate) fn head_of(path: &str, content: &str) -> String {
    const SHOWN: usize = 20;
    let total = content.lines().count();
    let mut out = format!("{path} ({total} lines):\n");
    for line in content.lines().take(SHOWN) {
        out.push_str(line);
        out.push('\n');
    }
    if total > SHOWN {
        out.push_str(&format!("… {} more lines\n", total - SHOWN));
    }
    out
}

/// The files the code index says import `path`.
pub(crate) fn dependents_of(services: &Services, path: &str) -> Vec<String> {
    let (code, _) = services.code(&[path.to_string()]);
    let idx = code.read();
    let graph = idx.graph();
    graph
        .dependents
        .get(path)
        .into_iter()
        .flatten()
        .map(|p| p.to_string())
        .collect()
}
