//! `fs.readFile`.

use super::*;

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
    #[schemars(range(min = 1))]
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

impl Command<Services> for ReadFile {
    type Args = ReadFileArgs;
    type Output = FileRead;

    const SPEC: CommandSpec = CommandSpec::new(
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
