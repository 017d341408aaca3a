//! Directories: `fs.createDirectory`, `fs.deleteDirectory`, `fs.listDirectory`.

use super::*;

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

impl Command<Services> for CreateDirectory {
    type Args = CreateDirectoryArgs;
    type Output = DirCreated;

    const SPEC: CommandSpec = CommandSpec::new(
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

impl Command<Services> for DeleteDirectory {
    type Args = DeleteDirectoryArgs;
    type Output = Done<Deleted>;

    const SPEC: CommandSpec = CommandSpec::new(
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

impl Command<Services> for ListDirectory {
    type Args = ListDirectoryArgs;
    type Output = Listing;

    const SPEC: CommandSpec = CommandSpec::new(
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
