//! Seed 003 `fs.*` methods: file-system operations on the confined workspace, entry points
//! to the same workspace operations as the `ultra.*` file commands.
//!
//! Every path is resolved beneath the root (symlinks included; a link leading out is
//! `PATH_OUTSIDE_WORKSPACE`), and programs and agents may not write `.git` internals,
//! Ultra's own config or restricted paths. Writes are crash-safe (temp file, fsync, rename)
//! and go through an open buffer when there is one, so they are undoable and the editor
//! never holds stale text. Mutations take `expectedHash` (and `expectedVersion` for open
//! buffers) and refuse with STALE_VERSION instead of overwriting a change the caller has not
//! seen. Results that are `{success: boolean}` in the seed return `success: true` plus what
//! was done; failures are errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, FileOperation, FileOperationKind, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::root::{Kind, Meta};
use ultra_workspace::workspace::{EditOp, FileEdits};
use ultra_workspace::{RelPath, WsError, text};

use crate::editor_api::Done;
use crate::file::Deleted;
use crate::services::Services;
use crate::util::{base64_decode, base64_encode, current_text, emit_notices, is_human};

/// Register the seed 003 file-system methods.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(ReadFile)?;
    r.register(WriteFile)?;
    r.register(AppendFile)?;
    r.register(DeleteFile)?;
    r.register(Rename)?;
    r.register(Copy)?;
    r.register(CreateDirectory)?;
    r.register(DeleteDirectory)?;
    r.register(ListDirectory)?;
    r.register(Exists)?;
    r.register(Stat)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const TREE: &[(&str, &str)] = &[
    ("src/app.ts", "const x = 1;\nconsole.log(x);\n"),
    ("src/lib/util.ts", "export {};\n"),
    ("README.md", "# demo\n"),
];

/// The most entries one `fs.listDirectory` returns.
pub const MAX_LIST_ENTRIES: usize = 10_000;

/// How file content travels on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// UTF-8 text (`utf-8` is accepted too).
    #[default]
    #[serde(alias = "utf-8")]
    Utf8,
    /// Standard base64 of the raw bytes, for binary files.
    Base64,
}

/// Text for validators: content validators read text, so binary bytes are shown lossily.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Milliseconds since the epoch, as seed 003's `mtime`.
fn mtime_ms(m: &Meta) -> u64 {
    (m.mtime_ns / 1_000_000) as u64
}

/// Announce a change to files on disk.
fn emit_saved(cx: &Cx<'_, Services>, data: serde_json::Value) {
    cx.events.emit(names::FILE_SAVED, data, Some(cx.source));
}

// ---------------------------------------------------------------- readFile

/// Arguments of `fs.readFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// `utf8` (default) or `base64` (raw bytes, for binary files).
    #[serde(default)]
    pub encoding: Encoding,
    /// First line to return (1-based, default 1; utf8 only).
    pub offset: Option<usize>,
    /// How many lines to return (default: all; utf8 only).
    pub limit: Option<usize>,
    /// Most characters to return (default: no cap; utf8 only); the cut falls on a line
    /// boundary.
    pub max_chars: Option<usize>,
}

/// Result of `fs.readFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileRead {
    /// Workspace-relative path.
    pub path: String,
    /// The text (utf8) or base64 of the bytes.
    pub content: String,
    /// How `content` is encoded.
    pub encoding: Encoding,
    /// Size of the whole file in bytes.
    pub size: u64,
    /// Content hash of the whole file, for `expectedHash`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Buffer version when the file is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Whether the open buffer has unsaved changes (they are what is returned).
    pub is_dirty: bool,
    /// Lines in the whole file (utf8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_count: Option<usize>,
    /// Whether lines were left out (only with offset, limit or maxChars).
    pub truncated: bool,
    /// Pass as `offset` to continue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// "N more lines" when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// `fs.readFile`.
pub struct ReadFile;

static READ_FILE: CommandSpec = CommandSpec::new(
    "fs.readFile",
    "FS: Read File",
    "File System",
    "Read a file: an open buffer's text (unsaved changes included), else the disk's (seed 003). encoding utf8 (default) or base64 for binary files. Whole by default; page utf8 with offset (1-based line), limit and maxChars. Returns the hash to pass as expectedHash.",
)
.touches(Touches::READ)
.read_only()
.examples(&[
    Example { description: "Read a text file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"content": "const x = 1;\nconsole.log(x);\n", "encoding": "utf8", "size": 29, "truncated": false}"#), ..Example::EMPTY },
    Example { description: "Read bytes as base64", args: r#"{"path": "README.md", "encoding": "base64"}"#, files: TREE, expect: Some(r#"{"content": "IyBkZW1vCg==", "encoding": "base64", "size": 7}"#), ..Example::EMPTY },
    Example { description: "Read the second line only", args: r#"{"path": "src/app.ts", "offset": 2, "limit": 1}"#, files: HELLO, expect: Some(r#"{"content": "console.log(x);\n", "lineCount": 2}"#), ..Example::EMPTY },
    Example { description: "Other encodings are refused", args: r#"{"path": "src/app.ts", "encoding": "latin1"}"#, files: HELLO, error: Some("INVALID_ARGUMENTS"), ..Example::EMPTY },
    Example { description: "Paths outside the workspace are refused", args: r#"{"path": "../etc/passwd"}"#, error: Some("PATH_OUTSIDE_WORKSPACE"), ..Example::EMPTY },
]);

impl Command<Services> for ReadFile {
    type Args = ReadFileArgs;
    type Output = FileRead;

    fn spec(&self) -> &'static CommandSpec {
        &READ_FILE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: ReadFileArgs) -> Result<FileRead, CommandError> {
        if args.encoding == Encoding::Base64 {
            if args.offset.is_some() || args.limit.is_some() || args.max_chars.is_some() {
                return Err(CommandError::new(
                    ErrorCode::InvalidArguments,
                    "offset, limit and maxChars count lines and characters; they apply to utf8 only",
                )
                .with_suggestion("drop them, or read with encoding: utf8"));
            }
            return read_base64(cx, &args.path);
        }
        let snap = crate::query::read_snapshot(cx, Some(&args.path)).map_err(|e| {
            if e.code == ErrorCode::BinaryFile {
                e.with_suggestion("read it with \"encoding\": \"base64\"")
            } else {
                e
            }
        })?;
        let page = crate::query::page(
            &snap.rope,
            args.offset,
            args.limit,
            args.max_chars.unwrap_or(usize::MAX),
        );
        Ok(FileRead {
            path: snap.path.to_string(),
            content: page.content,
            encoding: Encoding::Utf8,
            size: snap.rope.len_bytes() as u64,
            hash: snap.hash,
            version: snap.version,
            is_dirty: snap.dirty,
            line_count: Some(page.line_count),
            truncated: page.truncated,
            next_offset: page.next_offset,
            notice: page.notice,
        })
    }
}

/// Read raw bytes: an open buffer's text as UTF-8, else the file on disk, binary or not.
fn read_base64(cx: &Cx<'_, Services>, path: &str) -> Result<FileRead, CommandError> {
    let mut ws = cx.services.ws();
    let rel = ws.resolve_read(path, is_human(cx))?;
    let (bytes, hash, version, dirty) = if ws.buffer(&rel).is_some() {
        let snap = ws.snapshot(&rel);
        emit_notices(cx, &mut ws);
        let snap = snap?;
        (
            snap.rope.to_string().into_bytes(),
            snap.hash,
            snap.version,
            snap.dirty,
        )
    } else {
        let (bytes, _) = ws.root().read(&rel)?;
        let hash = text::hash_bytes(&bytes);
        (bytes, Some(hash), None, false)
    };
    drop(ws);
    Ok(FileRead {
        path: rel.to_string(),
        content: base64_encode(&bytes),
        encoding: Encoding::Base64,
        size: bytes.len() as u64,
        hash,
        version,
        is_dirty: dirty,
        line_count: None,
        truncated: false,
        next_offset: None,
        notice: None,
    })
}

// ---------------------------------------------------------------- writeFile

/// Arguments of `fs.writeFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WriteFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The full new content, as text or (with encoding base64) base64 bytes.
    pub content: String,
    /// `utf8` (default) or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
    /// Only write if the file's content hash is still this (`""`: only if it does not
    /// exist).
    pub expected_hash: Option<String>,
    /// Only write if the open buffer is still at this version.
    pub expected_version: Option<u64>,
}

/// Result of `fs.writeFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Written {
    /// Always true: failures are errors.
    pub success: bool,
    /// Workspace-relative path.
    pub path: String,
    /// Content hash now on disk.
    pub hash: String,
    /// Bytes now on disk.
    pub bytes: u64,
    /// The open buffer's version after the write (absent when the file is not open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Whether the file was created.
    pub created: bool,
}

/// `fs.writeFile`.
pub struct WriteFile;

static WRITE_FILE: CommandSpec = CommandSpec::new(
    "fs.writeFile",
    "FS: Write File",
    "File System",
    "Create or replace a file's content crash-safely, creating parent directories (seed 003). An open buffer takes the change as an undoable transaction and is saved. Pass expectedHash (from fs.readFile) to refuse with STALE_VERSION, changing nothing, if the file changed since you read it. encoding base64 writes raw bytes.",
)
.touches(Touches::WRITE)
.idempotent()
.examples(&[
    Example { description: "Create a file", args: r#"{"path": "src/new.ts", "content": "export {};\n"}"#, expect: Some(r#"{"success": true, "path": "src/new.ts", "bytes": 11, "created": true}"#), ..Example::EMPTY },
    Example { description: "Replace a file", args: r#"{"path": "src/app.ts", "content": "let y = 2;\n"}"#, files: HELLO, expect: Some(r#"{"success": true, "created": false}"#), ..Example::EMPTY },
    Example { description: "Write bytes from base64", args: r#"{"path": "bin/blob", "content": "AAH/", "encoding": "base64"}"#, expect: Some(r#"{"bytes": 3}"#), ..Example::EMPTY },
    Example { description: "A stale hash is refused", args: r#"{"path": "src/app.ts", "content": "", "expectedHash": "0000"}"#, files: HELLO, error: Some("STALE_VERSION"), ..Example::EMPTY },
    Example { description: "Agents may not write git internals", args: r#"{"path": ".git/config", "content": "[core]\n"}"#, source: Some(ultra_protocol::SourceKind::Ai), error: Some("RESTRICTED_PATH"), ..Example::EMPTY },
]);

/// The bytes a write carries.
fn decode(content: String, encoding: Encoding) -> Result<Vec<u8>, CommandError> {
    match encoding {
        Encoding::Utf8 => Ok(content.into_bytes()),
        Encoding::Base64 => base64_decode(&content).map_err(|why| {
            CommandError::new(
                ErrorCode::InvalidArguments,
                format!("content is not valid base64: {why}"),
            )
            .with_details(json!({ "field": "content" }))
            .with_suggestion(
                "send standard base64 (A-Z a-z 0-9 + /, `=` padding), or encoding: utf8 for text",
            )
        }),
    }
}

impl Command<Services> for WriteFile {
    type Args = WriteFileArgs;
    type Output = Written;

    fn spec(&self) -> &'static CommandSpec {
        &WRITE_FILE
    }

    fn file_operation(&self, args: &WriteFileArgs) -> Option<FileOperation> {
        // May create the file; validators see it like ultra.createFile.
        FileOperation::create(&args.path)
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: WriteFileArgs) -> Result<Written, CommandError> {
        let bytes = decode(args.content, args.encoding)?;
        let services = cx.services;
        let mut ws = services.ws();
        let rel = ws.resolve_write(&args.path, is_human(cx))?;
        let open = ws.buffer(&rel).is_some();
        if open {
            // Compare against the disk as it is now, not as the buffer last saw it.
            ws.sync_disk(&rel)?;
        }
        ws.check_expected(&rel, args.expected_version, args.expected_hash.as_deref())?;
        let exists = ws.root().exists(&rel);
        cx.check_content(rel.as_str(), &|| lossy(&bytes), &|| {
            if exists {
                current_text(&ws, &rel)
            } else {
                None
            }
        })?;
        let saved = ws.write_bytes(&rel, &bytes, cx.source, WRITE_FILE.id);
        emit_notices(cx, &mut ws);
        let saved = saved?;
        if open {
            cx.events.emit(
                names::BUFFER_CHANGED,
                json!({ "path": saved.path, "version": saved.version, "command": WRITE_FILE.id }),
                Some(cx.source),
            );
        }
        emit_saved(
            cx,
            json!({ "path": saved.path, "hash": saved.hash, "created": !exists }),
        );
        Ok(Written {
            success: true,
            path: saved.path,
            hash: saved.hash,
            bytes: saved.bytes,
            version: open.then_some(saved.version),
            created: !exists,
        })
    }
}

// ---------------------------------------------------------------- appendFile

/// Arguments of `fs.appendFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppendFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Text to add at the end.
    pub content: String,
    /// Only append if the file's content hash is still this (`""`: only if it does not
    /// exist).
    pub expected_hash: Option<String>,
    /// Only append if the open buffer is still at this version.
    pub expected_version: Option<u64>,
}

/// Result of `fs.appendFile`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Appended {
    /// Always true: failures are errors.
    pub success: bool,
    /// Workspace-relative path.
    pub path: String,
    /// Content hash now on disk.
    pub hash: String,
    /// Bytes now on disk.
    pub bytes: u64,
    /// Bytes appended.
    pub appended: u64,
    /// The open buffer's version after the append (absent when the file is not open).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Whether the file was created.
    pub created: bool,
}

/// `fs.appendFile`.
pub struct AppendFile;

static APPEND_FILE: CommandSpec = CommandSpec::new(
    "fs.appendFile",
    "FS: Append to File",
    "File System",
    "Add text to the end of a file, creating it if missing (seed 003). Atomic: the whole new file replaces the old one crash-safely, so a reader never sees half an append. An open buffer takes the append as an undoable transaction and is saved (with any unsaved changes it had).",
)
.touches(Touches::WRITE)
.examples(&[
    Example { description: "Append a line", args: r#"{"path": "src/app.ts", "content": "export {};\n"}"#, files: HELLO, expect: Some(r#"{"success": true, "bytes": 40, "appended": 11, "created": false}"#), ..Example::EMPTY },
    Example { description: "Append to an open file", args: r#"{"path": "src/app.ts", "content": "// end\n"}"#, files: HELLO, setup: &[("editor.openFile", r#"{"path": "src/app.ts"}"#)], expect: Some(r#"{"success": true, "version": 2, "appended": 7}"#), ..Example::EMPTY },
    Example { description: "Create a log file", args: r#"{"path": "logs/run.log", "content": "started\n"}"#, expect: Some(r#"{"created": true, "bytes": 8}"#), ..Example::EMPTY },
]);

impl Command<Services> for AppendFile {
    type Args = AppendFileArgs;
    type Output = Appended;

    fn spec(&self) -> &'static CommandSpec {
        &APPEND_FILE
    }

    fn file_operation(&self, args: &AppendFileArgs) -> Option<FileOperation> {
        FileOperation::create(&args.path)
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: AppendFileArgs,
    ) -> Result<Appended, CommandError> {
        let services = cx.services;
        let mut ws = services.ws();
        let rel = ws.resolve_write(&args.path, is_human(cx))?;
        let appended = args.content.len() as u64;
        if ws.buffer(&rel).is_some() {
            // Through the buffer: an insert at its end, then a save, under one lock.
            // The save would fail after the append committed; refuse up front.
            ws.check_saveable(&rel)?;
            let end = {
                let buf = ws
                    .buffer_mut(&rel)
                    .ok_or_else(|| WsError::NotFound(rel.to_string()))?;
                buf.rope.len_chars()
            };
            let outcome = crate::edit::apply_batch_in(
                cx,
                &mut ws,
                vec![FileEdits {
                    path: rel.clone(),
                    expected_version: args.expected_version,
                    expected_hash: args.expected_hash,
                    edits: vec![EditOp::Chars {
                        start: end,
                        end,
                        text: args.content,
                    }],
                }],
            )?;
            let saved = crate::file::save_in(cx, &mut ws, &rel, false)?;
            return Ok(Appended {
                success: true,
                path: saved.path,
                hash: saved.hash,
                bytes: saved.bytes,
                appended,
                version: outcome.files.first().map(|f| f.version),
                created: false,
            });
        }
        ws.check_expected(&rel, None, args.expected_hash.as_deref())?;
        let old = match ws.root().read(&rel) {
            Ok((bytes, _)) => Some(bytes),
            Err(WsError::NotFound(_)) => None,
            Err(e) => return Err(e.into()),
        };
        let created = old.is_none();
        let mut new = old.clone().unwrap_or_default();
        new.extend_from_slice(args.content.as_bytes());
        cx.check_content(rel.as_str(), &|| lossy(&new), &|| old.as_deref().map(lossy))?;
        let saved = ws.write_bytes(&rel, &new, cx.source, APPEND_FILE.id)?;
        emit_saved(
            cx,
            json!({ "path": saved.path, "hash": saved.hash, "created": created }),
        );
        Ok(Appended {
            success: true,
            path: saved.path,
            hash: saved.hash,
            bytes: saved.bytes,
            appended,
            version: None,
            created,
        })
    }
}

// ---------------------------------------------------------------- deleteFile

/// Arguments of `fs.deleteFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteFileArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Delete even if the open buffer has unsaved changes.
    #[serde(default)]
    pub force: bool,
    /// Only delete if the file's content hash is still this.
    pub expected_hash: Option<String>,
}

/// `fs.deleteFile`.
pub struct DeleteFile;

static DELETE_FILE: CommandSpec = CommandSpec::new(
    "fs.deleteFile",
    "FS: Delete File",
    "File System",
    "Delete a file (seed 003; the same handler as ultra.deleteFile). A symlink is removed itself, never its target; a directory needs fs.deleteDirectory. An open buffer is closed; unsaved changes block unless force. Destructive: agents are asked first under the default policy.",
)
.touches(Touches::WRITE)
.destructive()
.examples(&[
    Example { description: "Delete a file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"success": true, "path": "src/app.ts", "deleted": true}"#), ..Example::EMPTY },
    Example { description: "A directory is not a file", args: r#"{"path": "src"}"#, files: HELLO, error: Some("NOT_A_FILE"), ..Example::EMPTY },
]);

impl Command<Services> for DeleteFile {
    type Args = DeleteFileArgs;
    type Output = Done<Deleted>;

    fn spec(&self) -> &'static CommandSpec {
        &DELETE_FILE
    }

    fn file_operation(&self, args: &DeleteFileArgs) -> Option<FileOperation> {
        FileOperation::delete(&args.path)
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: DeleteFileArgs,
    ) -> Result<Done<Deleted>, CommandError> {
        crate::file::delete_file(cx, &args.path, args.force, args.expected_hash.as_deref())
            .map(Done::ok)
    }
}

// ---------------------------------------------------------------- rename

/// Arguments of `fs.rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RenameArgs {
    /// The file or directory to move.
    pub old_path: String,
    /// Where it goes (parent directories are created).
    pub new_path: String,
    /// Replace an existing target.
    #[serde(default)]
    pub overwrite: bool,
    /// Only move if the file's content hash is still this.
    pub expected_hash: Option<String>,
}

/// Result of `fs.rename`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FsRenamed {
    /// Always true: failures are errors.
    pub success: bool,
    /// Where it was (workspace-relative).
    pub old_path: String,
    /// Where it is now (workspace-relative).
    pub new_path: String,
}

/// `fs.rename`.
pub struct Rename;

static RENAME: CommandSpec = CommandSpec::new(
    "fs.rename",
    "FS: Rename",
    "File System",
    "Rename or move a file or directory inside the workspace (seed 003; the same handler as ultra.renameFile). A symlink is moved itself. Open buffers follow. FILE_EXISTS unless overwrite.",
)
.touches(Touches::WRITE)
.examples(&[
    Example { description: "Move a file", args: r#"{"oldPath": "src/app.ts", "newPath": "lib/app.ts"}"#, files: HELLO, expect: Some(r#"{"success": true, "oldPath": "src/app.ts", "newPath": "lib/app.ts"}"#), ..Example::EMPTY },
    Example { description: "An existing target is kept", args: r#"{"oldPath": "src/app.ts", "newPath": "README.md"}"#, files: TREE, error: Some("FILE_EXISTS"), ..Example::EMPTY },
]);

impl Command<Services> for Rename {
    type Args = RenameArgs;
    type Output = FsRenamed;

    fn spec(&self) -> &'static CommandSpec {
        &RENAME
    }

    fn file_operation(&self, args: &RenameArgs) -> Option<FileOperation> {
        FileOperation::rename(FileOperationKind::Rename, &args.old_path, &args.new_path)
    }

    fn annotations(&self, args: &RenameArgs) -> ultra_protocol::command::Annotations {
        let mut a = self.spec().annotations;
        // Replacing an existing file loses its content: ask like a delete.
        a.destructive |= args.overwrite;
        a
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: RenameArgs) -> Result<FsRenamed, CommandError> {
        let r = crate::file::rename(
            cx,
            &args.old_path,
            &args.new_path,
            args.overwrite,
            args.expected_hash.as_deref(),
        )?;
        Ok(FsRenamed {
            success: true,
            old_path: r.path,
            new_path: r.new_path,
        })
    }
}

// ---------------------------------------------------------------- copy

/// Arguments of `fs.copy`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CopyArgs {
    /// The file to copy.
    pub source: String,
    /// The new file (parent directories are created).
    pub destination: String,
    /// Replace an existing destination.
    #[serde(default)]
    pub overwrite: bool,
    /// With overwrite: only replace the destination if its content hash is still this.
    pub expected_hash: Option<String>,
}

/// Result of `fs.copy`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Copied {
    /// Always true: failures are errors.
    pub success: bool,
    /// The copied file (workspace-relative).
    pub source: String,
    /// The new copy (workspace-relative).
    pub destination: String,
    /// Content hash of the copy.
    pub hash: String,
    /// Bytes written.
    pub bytes: u64,
}

/// `fs.copy`.
pub struct Copy;

static COPY: CommandSpec = CommandSpec::new(
    "fs.copy",
    "FS: Copy File",
    "File System",
    "Copy a file's bytes on disk to a new path, crash-safely, keeping its permission bits (seed 003). Directories are not copied (NOT_A_FILE). FILE_EXISTS unless overwrite; unsaved changes in the source's buffer are not included.",
)
.touches(Touches::WRITE)
.examples(&[
    Example { description: "Copy a file", args: r#"{"source": "src/app.ts", "destination": "backup/app.ts"}"#, files: HELLO, expect: Some(r#"{"success": true, "destination": "backup/app.ts", "bytes": 29}"#), ..Example::EMPTY },
    Example { description: "An existing destination is kept", args: r#"{"source": "src/app.ts", "destination": "README.md"}"#, files: TREE, error: Some("FILE_EXISTS"), ..Example::EMPTY },
]);

impl Command<Services> for Copy {
    type Args = CopyArgs;
    type Output = Copied;

    fn spec(&self) -> &'static CommandSpec {
        &COPY
    }

    fn file_operation(&self, args: &CopyArgs) -> Option<FileOperation> {
        FileOperation::create(&args.destination)
    }

    fn annotations(&self, args: &CopyArgs) -> ultra_protocol::command::Annotations {
        let mut a = self.spec().annotations;
        // Replacing an existing file loses its content: ask like a delete.
        a.destructive |= args.overwrite;
        a
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: CopyArgs) -> Result<Copied, CommandError> {
        let services = cx.services;
        let mut ws = services.ws();
        let human = is_human(cx);
        let from = ws.resolve_read(&args.source, human)?;
        let to = ws.resolve_write(&args.destination, human)?;
        let exists = ws.root().exists(&to);
        if exists && !args.overwrite {
            return Err(WsError::Exists(to.to_string()).into());
        }
        ws.check_expected(&to, None, args.expected_hash.as_deref())?;
        // Read once: the bytes validators see are the bytes written.
        let (bytes, meta) = ws.root().read(&from)?;
        cx.check_content(to.as_str(), &|| lossy(&bytes), &|| {
            if exists { current_text(&ws, &to) } else { None }
        })?;
        let saved = ws.write_copy(&to, &bytes, meta.mode, args.overwrite);
        emit_notices(cx, &mut ws);
        let saved = saved?;
        emit_saved(
            cx,
            json!({ "path": saved.path, "hash": saved.hash, "copiedFrom": from.to_string() }),
        );
        Ok(Copied {
            success: true,
            source: from.to_string(),
            destination: saved.path,
            hash: saved.hash,
            bytes: saved.bytes,
        })
    }
}

// ---------------------------------------------------------------- createDirectory

/// Arguments of `fs.createDirectory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateDirectoryArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Create missing parents too (default true).
    pub recursive: Option<bool>,
}

/// Result of `fs.createDirectory`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirCreated {
    /// Always true: failures are errors.
    pub success: bool,
    /// Workspace-relative path.
    pub path: String,
    /// False when the directory already existed.
    pub created: bool,
}

/// `fs.createDirectory`.
pub struct CreateDirectory;

static CREATE_DIRECTORY: CommandSpec = CommandSpec::new(
    "fs.createDirectory",
    "FS: Create Directory",
    "File System",
    "Create a directory and its missing parents (seed 003). An existing directory is success with created: false; an existing file is FILE_EXISTS.",
)
.touches(Touches::WRITE)
.idempotent()
.examples(&[
    Example { description: "Create nested directories", args: r#"{"path": "src/a/b"}"#, expect: Some(r#"{"success": true, "path": "src/a/b", "created": true}"#), ..Example::EMPTY },
    Example { description: "An existing directory is fine", args: r#"{"path": "src"}"#, files: HELLO, expect: Some(r#"{"success": true, "created": false}"#), ..Example::EMPTY },
    Example { description: "A file is in the way", args: r#"{"path": "src/app.ts"}"#, files: HELLO, error: Some("FILE_EXISTS"), ..Example::EMPTY },
]);

impl Command<Services> for CreateDirectory {
    type Args = CreateDirectoryArgs;
    type Output = DirCreated;

    fn spec(&self) -> &'static CommandSpec {
        &CREATE_DIRECTORY
    }

    fn file_operation(&self, args: &CreateDirectoryArgs) -> Option<FileOperation> {
        FileOperation::create(&args.path)
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: CreateDirectoryArgs,
    ) -> Result<DirCreated, CommandError> {
        let ws = cx.services.ws();
        let rel = ws.resolve_write(&args.path, is_human(cx))?;
        let created = match ws.root().stat(&rel) {
            Ok(m) if m.kind == Kind::Dir => false,
            Ok(_) => return Err(WsError::Exists(rel.to_string()).into()),
            Err(WsError::NotFound(_)) => {
                ws.root().create_dir(&rel, args.recursive.unwrap_or(true))?;
                true
            }
            Err(e) => return Err(e.into()),
        };
        if created {
            emit_saved(
                cx,
                json!({ "path": rel.to_string(), "created": true, "directory": true }),
            );
        }
        Ok(DirCreated {
            success: true,
            path: rel.to_string(),
            created,
        })
    }
}

// ---------------------------------------------------------------- deleteDirectory

/// Arguments of `fs.deleteDirectory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteDirectoryArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// Delete its contents too (symlinks inside are removed, never followed).
    #[serde(default)]
    pub recursive: bool,
    /// Delete even if open buffers inside have unsaved changes.
    #[serde(default)]
    pub force: bool,
}

/// `fs.deleteDirectory`.
pub struct DeleteDirectory;

static DELETE_DIRECTORY: CommandSpec = CommandSpec::new(
    "fs.deleteDirectory",
    "FS: Delete Directory",
    "File System",
    "Delete a directory (seed 003): empty, or with recursive everything in it. Symlinks inside are removed, never followed. Open buffers inside are closed; unsaved changes block unless force. For agents nothing inside may be protected (.git, restricted paths). Destructive: agents are asked first under the default policy.",
)
.touches(Touches::WRITE)
.destructive()
.examples(&[
    Example { description: "Delete a tree", args: r#"{"path": "src", "recursive": true}"#, files: TREE, expect: Some(r#"{"success": true, "path": "src", "deleted": true}"#), ..Example::EMPTY },
    Example { description: "A non-empty directory needs recursive", args: r#"{"path": "src"}"#, files: TREE, error: Some("DIRECTORY_NOT_EMPTY"), ..Example::EMPTY },
]);

impl Command<Services> for DeleteDirectory {
    type Args = DeleteDirectoryArgs;
    type Output = Done<Deleted>;

    fn spec(&self) -> &'static CommandSpec {
        &DELETE_DIRECTORY
    }

    fn file_operation(&self, args: &DeleteDirectoryArgs) -> Option<FileOperation> {
        FileOperation::delete(&args.path)
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: DeleteDirectoryArgs,
    ) -> Result<Done<Deleted>, CommandError> {
        let mut ws = cx.services.ws();
        let human = is_human(cx);
        // The entry itself: a symlink to a directory is not deleted through.
        let rel = ws.resolve_entry(&args.path, human)?;
        ws.delete_dir(&rel, args.recursive, args.force, human)?;
        emit_saved(
            cx,
            json!({ "path": rel.to_string(), "deleted": true, "directory": true }),
        );
        Ok(Done::ok(Deleted {
            path: rel.to_string(),
            deleted: true,
        }))
    }
}

// ---------------------------------------------------------------- listDirectory

/// Arguments of `fs.listDirectory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListDirectoryArgs {
    /// The directory (`.` or `""` for the workspace root).
    pub path: String,
    /// Descend into subdirectories (not through symlinks, not into `.git`).
    #[serde(default)]
    pub recursive: bool,
    /// Most entries to return (default and maximum 10000).
    pub max_entries: Option<usize>,
}

/// What a directory entry is (seed 003 `FileEntry.type`; `other` for FIFOs, sockets and
/// devices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    File,
    Directory,
    Symlink,
    Other,
}

impl From<Kind> for FileType {
    fn from(k: Kind) -> FileType {
        match k {
            Kind::File => FileType::File,
            Kind::Dir => FileType::Directory,
            Kind::Symlink => FileType::Symlink,
            Kind::Other => FileType::Other,
        }
    }
}

/// One entry (seed 003 `FileEntry`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    /// The entry's file name.
    pub name: String,
    /// Workspace-relative path.
    pub path: String,
    /// The entry itself: a symlink is reported as `symlink`, never followed.
    #[serde(rename = "type")]
    pub kind: FileType,
    /// Bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Modification time, milliseconds since the epoch.
    pub mtime: u64,
}

/// Result of `fs.listDirectory`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// The listed directory.
    pub path: String,
    /// Sorted by name within each directory, directories' contents after their parents.
    pub entries: Vec<FileEntry>,
    /// Whether the listing was cut at maxEntries.
    pub truncated: bool,
    /// How to see the rest, when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// `fs.listDirectory`.
pub struct ListDirectory;

static LIST_DIRECTORY: CommandSpec = CommandSpec::new(
    "fs.listDirectory",
    "FS: List Directory",
    "File System",
    "List a directory's entries with name, path, type (file, directory, symlink), size and mtime (seed 003). recursive descends into subdirectories but never through symlinks or into .git; at most 10000 entries, with truncated: true when cut.",
)
.touches(Touches::READ)
.read_only()
.examples(&[
    Example {
        description: "List the root",
        args: r#"{"path": "."}"#,
        files: TREE,
        expect: Some(r#"{"entries": [{"name": "README.md", "path": "README.md", "type": "file", "size": 7}, {"name": "src", "type": "directory"}], "truncated": false}"#),
        ..Example::EMPTY
    },
    Example {
        description: "List recursively, capped",
        args: r#"{"path": "src", "recursive": true, "maxEntries": 2}"#,
        files: TREE,
        expect: Some(r#"{"entries": [{"path": "src/app.ts"}, {"path": "src/lib"}], "truncated": true}"#),
        ..Example::EMPTY
    },
    Example { description: "A file is not a directory", args: r#"{"path": "README.md"}"#, files: TREE, error: Some("NOT_A_DIRECTORY"), ..Example::EMPTY },
]);

impl Command<Services> for ListDirectory {
    type Args = ListDirectoryArgs;
    type Output = Listing;

    fn spec(&self) -> &'static CommandSpec {
        &LIST_DIRECTORY
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: ListDirectoryArgs,
    ) -> Result<Listing, CommandError> {
        let ws = cx.services.ws();
        let human = is_human(cx);
        let rel = ws.resolve_read(&args.path, human)?;
        let cap = args
            .max_entries
            .unwrap_or(MAX_LIST_ENTRIES)
            .clamp(1, MAX_LIST_ENTRIES);
        let (entries, truncated) = ws.root().list(&rel, args.recursive, cap)?;
        let entries = entries
            .into_iter()
            // Agents do not learn the names of paths they may not read.
            .filter(|e| ws.root().check_readable(&e.path, human).is_ok())
            .map(|e| FileEntry {
                path: e.path.to_string(),
                kind: e.meta.kind.into(),
                size: (e.meta.kind == Kind::File).then_some(e.meta.len),
                mtime: mtime_ms(&e.meta),
                name: e.name,
            })
            .collect();
        Ok(Listing {
            path: rel.to_string(),
            entries,
            truncated,
            notice: truncated.then(|| {
                format!("listing cut at {cap} entries; list a subdirectory, or without recursive")
            }),
        })
    }
}

// ---------------------------------------------------------------- exists / stat

/// Arguments of `fs.exists` and `fs.stat`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PathArgs {
    /// File path, relative to the workspace root (or absolute inside it).
    pub path: String,
}

/// The entry at a path and, for a symlink, what it leads to inside the workspace.
struct Probe {
    rel: RelPath,
    /// The entry itself (`None`: nothing there).
    entry: Option<Meta>,
    /// The symlink-followed target, when it exists and stays inside (for a non-link, the
    /// entry again).
    target: Option<Meta>,
}

fn probe(cx: &Cx<'_, Services>, path: &str) -> Result<Probe, CommandError> {
    let ws = cx.services.ws();
    let human = is_human(cx);
    let root = ws.root();
    let rel = root.resolve(path, false)?;
    root.check_readable(&rel, human)?;
    let entry = match root.lstat(&rel) {
        Ok(m) => m,
        Err(WsError::NotFound(_)) => {
            return Ok(Probe {
                rel,
                entry: None,
                target: None,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let target = if entry.kind == Kind::Symlink {
        // A link out of the root or into a restricted path is reported as unresolved.
        root.resolve(path, true)
            .ok()
            .filter(|t| root.check_readable(t, human).is_ok())
            .and_then(|t| root.stat(&t).ok())
    } else {
        Some(entry)
    };
    Ok(Probe {
        rel,
        entry: Some(entry),
        target,
    })
}

/// Result of `fs.exists`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExistsResult {
    /// Whether anything is at the path (a symlink counts, even a dangling one).
    pub exists: bool,
    /// Whether it is (or, for a symlink, leads inside the workspace to) a regular file.
    pub is_file: bool,
    /// Whether it is (or leads to) a directory.
    pub is_directory: bool,
    /// Whether the path itself is a symlink.
    pub is_symlink: bool,
}

/// `fs.exists`.
pub struct Exists;

static EXISTS: CommandSpec = CommandSpec::new(
    "fs.exists",
    "FS: Exists",
    "File System",
    "Whether something exists at a path, and whether it is a file, a directory or a symlink (seed 003). A path outside the workspace is an error, not false.",
)
.touches(Touches::READ)
.read_only()
.examples(&[
    Example { description: "A file exists", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"exists": true, "isFile": true, "isDirectory": false}"#), ..Example::EMPTY },
    Example { description: "A missing path", args: r#"{"path": "nope.ts"}"#, expect: Some(r#"{"exists": false, "isFile": false}"#), ..Example::EMPTY },
]);

impl Command<Services> for Exists {
    type Args = PathArgs;
    type Output = ExistsResult;

    fn spec(&self) -> &'static CommandSpec {
        &EXISTS
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArgs) -> Result<ExistsResult, CommandError> {
        let p = probe(cx, &args.path)?;
        let kind = p.target.map(|m| m.kind);
        Ok(ExistsResult {
            exists: p.entry.is_some(),
            is_file: kind == Some(Kind::File),
            is_directory: kind == Some(Kind::Dir),
            is_symlink: p.entry.is_some_and(|m| m.kind == Kind::Symlink),
        })
    }
}

/// Result of `fs.stat`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatResult {
    /// Workspace-relative path.
    pub path: String,
    /// What the path leads to (symlinks followed inside the workspace); `symlink` only for
    /// a link that cannot be followed (dangling, or leading out).
    #[serde(rename = "type")]
    pub kind: FileType,
    /// Bytes.
    pub size: u64,
    /// Modification time, milliseconds since the epoch.
    pub mtime: u64,
    /// Permission bits (e.g. 420 = 0o644).
    pub mode: u32,
    /// Whether it is (or leads to) a regular file.
    pub is_file: bool,
    /// Whether it is (or leads to) a directory.
    pub is_directory: bool,
    /// Whether the path itself is a symlink.
    pub is_symlink: bool,
}

/// `fs.stat`.
pub struct Stat;

static STAT: CommandSpec = CommandSpec::new(
    "fs.stat",
    "FS: Stat",
    "File System",
    "Size, mtime (ms), type, permission bits and file/directory/symlink flags of a path (seed 003). Symlinks are followed inside the workspace; isSymlink tells the path itself is one. FILE_NOT_FOUND when nothing is there.",
)
.touches(Touches::READ)
.read_only()
.examples(&[
    Example { description: "Stat a file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"path": "src/app.ts", "type": "file", "size": 29, "isFile": true, "isSymlink": false}"#), ..Example::EMPTY },
    Example { description: "A missing path is an error", args: r#"{"path": "nope.ts"}"#, error: Some("FILE_NOT_FOUND"), ..Example::EMPTY },
]);

impl Command<Services> for Stat {
    type Args = PathArgs;
    type Output = StatResult;

    fn spec(&self) -> &'static CommandSpec {
        &STAT
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArgs) -> Result<StatResult, CommandError> {
        let p = probe(cx, &args.path)?;
        let Some(entry) = p.entry else {
            return Err(WsError::NotFound(p.rel.to_string()).into());
        };
        let m = p.target.unwrap_or(entry);
        Ok(StatResult {
            path: p.rel.to_string(),
            kind: m.kind.into(),
            size: m.len,
            mtime: mtime_ms(&m),
            mode: m.mode & 0o7777,
            is_file: m.kind == Kind::File,
            is_directory: m.kind == Kind::Dir,
            is_symlink: entry.kind == Kind::Symlink,
        })
    }
}
