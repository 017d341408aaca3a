//! `fs.exists` and `fs.stat`.

use super::*;

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

impl Command<Services> for Exists {
    type Args = PathArgs;
    type Output = ExistsResult;

    const SPEC: CommandSpec = CommandSpec::new(
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

impl Command<Services> for Stat {
    type Args = PathArgs;
    type Output = StatResult;

    const SPEC: CommandSpec = CommandSpec::new(
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
