//! Writing files: `fs.writeFile`, `fs.appendFile`, `fs.copy`.

use super::*;

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
    /// For an agent's write of code: what it did to the file's problems.
    #[serde(flatten)]
    pub diagnostics: ultra_tools::code::after_edit::EditDiagnostics,
}

/// `fs.writeFile`.
pub struct WriteFile;

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

    const SPEC: CommandSpec = CommandSpec::new(
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
        let base = ultra_tools::code::after_edit::Baseline::take(cx, &ws, [&rel]);
        cx.check_content(rel.as_str(), &|| lossy(&bytes), &|| {
            if exists { ws.current_text(&rel) } else { None }
        })?;
        let saved = ws.write_bytes(&rel, &bytes, cx.source, WriteFile::SPEC.id);
        emit_notices(cx, &mut ws);
        let saved = saved?;
        if open {
            cx.events.emit(
                names::BUFFER_CHANGED,
                json!({ "path": saved.path, "version": saved.version, "command": WriteFile::SPEC.id }),
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
            diagnostics: base.report(cx, ws),
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

impl Command<Services> for AppendFile {
    type Args = AppendFileArgs;
    type Output = Appended;

    const SPEC: CommandSpec = CommandSpec::new(
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
            let outcome = crate::edit::apply(
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
                crate::edit::Finish::Commit,
            )?;
            let saved = ultra_services::util::save_in(cx, &mut ws, &rel, false)?;
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
        let saved = ws.write_bytes(&rel, &new, cx.source, AppendFile::SPEC.id)?;
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

impl Command<Services> for Copy {
    type Args = CopyArgs;
    type Output = Copied;

    const SPEC: CommandSpec = CommandSpec::new(
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
            if exists { ws.current_text(&to) } else { None }
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
