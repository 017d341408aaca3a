//! Workspace errors, and their one conversion into wire errors.

use serde_json::json;
use ultra_protocol::{CommandError, ErrorCode};

/// Everything the workspace can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum WsError {
    #[error("path `{path}` is outside the workspace{why}")]
    Outside { path: String, why: String },
    #[error("path `{path}` is invalid: {why}")]
    InvalidPath { path: String, why: String },
    #[error("path `{path}` is protected ({rule}); agents and programs may not change it")]
    Restricted { path: String, rule: String },
    #[error("file not found: {0}")]
    NotFound(String),
    #[error("`{path}` is not a regular file ({kind})")]
    NotAFile { path: String, kind: String },
    /// A file with more than one hard link, not allowlisted: it may alias a file outside
    /// the workspace, so it is not read. Walks skip these and count them.
    #[error(
        "`{0}` is not a regular file (hard-linked file; it may alias a file outside the workspace)"
    )]
    HardLinked(String),
    #[error("`{0}` is not a directory")]
    NotADirectory(String),
    #[error("`{0}` already exists")]
    Exists(String),
    #[error("directory `{0}` is not empty")]
    NotEmpty(String),
    #[error("`{path}` is {size} bytes, over the {limit}-byte limit")]
    TooLarge { path: String, size: u64, limit: u64 },
    /// One batch would insert more text than [`crate::workspace::MAX_BATCH_TEXT`].
    #[error(
        "the edits to `{path}` would insert {size} bytes, over the {limit}-byte limit for one batch"
    )]
    EditTooLarge { path: String, size: u64, limit: u64 },
    #[error("`{0}` is not UTF-8 text")]
    Binary(String),
    #[error("{} is at version {}, not {}", .0.path, .0.current_version, .0.expected)]
    Stale(Box<Stale>),
    #[error("no file is active")]
    NoActiveBuffer,
    #[error("`{0}` has unsaved changes")]
    Dirty(String),
    #[error("{0}")]
    InvalidPosition(String),
    #[error("`{needle}` was not found in {path}")]
    NoMatch {
        path: String,
        needle: String,
        closest: Vec<(usize, String)>,
    },
    #[error("`{needle}` matches {count} times in {path}")]
    Ambiguous {
        path: String,
        needle: String,
        count: usize,
        lines: Vec<usize>,
    },
    #[error("nothing to {0}")]
    NothingToUndo(&'static str),
    #[error("cannot {action} transaction {txn}: later edits overlap it in {path}")]
    UndoConflict {
        action: &'static str,
        txn: u64,
        path: String,
    },
    /// A dry run writes nothing.
    #[error("dry run: `{0}` is not written")]
    DryRun(String),
    /// A check of the layer above (validators, an open buffer) refused a write.
    #[error("{reason}")]
    Refused { path: String, reason: String },
    #[error("{op} failed on `{path}`: {source}")]
    Io {
        op: &'static str,
        path: String,
        source: std::io::Error,
    },
}

/// A precondition that no longer holds: the caller's version or hash, or the disk under a
/// buffer (`reason` says which).
#[derive(Debug)]
pub struct Stale {
    pub path: String,
    pub expected: String,
    pub current_version: u64,
    pub current_hash: String,
    /// The disk's hash when the disk moved away from the buffer.
    pub disk_hash: Option<String>,
    pub diff: Option<String>,
    pub reason: &'static str,
}

impl WsError {
    /// Wrap an I/O error, mapping the kinds callers can act on to specific errors.
    pub fn io(op: &'static str, path: &str, source: std::io::Error) -> WsError {
        use std::io::ErrorKind as K;
        match source.kind() {
            K::NotFound => WsError::NotFound(path.to_string()),
            K::AlreadyExists => WsError::Exists(path.to_string()),
            K::DirectoryNotEmpty => WsError::NotEmpty(path.to_string()),
            K::NotADirectory => WsError::NotADirectory(path.to_string()),
            K::IsADirectory => WsError::NotAFile {
                path: path.to_string(),
                kind: "directory".into(),
            },
            // cap-std reports an attempt to leave the root as PermissionDenied.
            K::PermissionDenied if source.to_string().contains("outside") => WsError::Outside {
                path: path.to_string(),
                why: " (through a symlink)".into(),
            },
            _ => WsError::Io {
                op,
                path: path.to_string(),
                source,
            },
        }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            WsError::Outside { .. } => ErrorCode::PathOutsideWorkspace,
            WsError::InvalidPath { .. } => ErrorCode::InvalidArguments,
            WsError::Restricted { .. } => ErrorCode::RestrictedPath,
            WsError::NotFound(_) => ErrorCode::FileNotFound,
            WsError::NotAFile { .. } | WsError::HardLinked(_) => ErrorCode::NotAFile,
            WsError::NotADirectory(_) => ErrorCode::NotADirectory,
            WsError::Exists(_) => ErrorCode::FileExists,
            WsError::NotEmpty(_) => ErrorCode::DirectoryNotEmpty,
            WsError::TooLarge { .. } | WsError::EditTooLarge { .. } => ErrorCode::TooLarge,
            WsError::Binary(_) => ErrorCode::BinaryFile,
            WsError::Stale(_) => ErrorCode::StaleVersion,
            WsError::NoActiveBuffer => ErrorCode::NoActiveBuffer,
            WsError::Dirty(_) => ErrorCode::BufferDirty,
            WsError::InvalidPosition(_) => ErrorCode::InvalidPosition,
            WsError::NoMatch { .. } => ErrorCode::NoMatch,
            WsError::Ambiguous { .. } => ErrorCode::AmbiguousMatch,
            WsError::NothingToUndo(_) => ErrorCode::NothingToUndo,
            WsError::UndoConflict { .. } => ErrorCode::UndoConflict,
            WsError::Io { .. } => ErrorCode::IoError,
            WsError::Refused { .. } => ErrorCode::ValidationFailed,
            WsError::DryRun(_) => ErrorCode::DryRun,
        }
    }
}

impl From<WsError> for CommandError {
    fn from(e: WsError) -> CommandError {
        let err = CommandError::new(e.code(), e.to_string());
        match e {
            WsError::Outside { path, .. } => err
                .with_details(json!({ "path": path }))
                .with_suggestion("use a path relative to the workspace root that stays inside it"),
            WsError::Restricted { path, rule } => err
                .with_details(json!({ "path": path, "rule": rule }))
                .with_suggestion("leave this path alone; it is protected by the workspace owner"),
            WsError::NotFound(path) => err
                .with_details(json!({ "path": path }))
                .with_suggestion("check the path with fs.listDirectory or create it with ultra.createFile"),
            WsError::Stale(st) => {
                let Stale { path, expected, current_version, current_hash, disk_hash, diff, reason } = *st;
                let on_disk = reason.ends_with("OnDisk");
                let mut details = json!({
                    "path": path, "expected": expected, "currentVersion": current_version,
                    "currentHash": current_hash, "diff": diff, "reason": reason,
                });
                if let Some(h) = disk_hash {
                    details["diskHash"] = json!(h);
                }
                err.with_details(details).with_suggestion(if on_disk {
                    "the file changed on disk under unsaved changes: ultra.revert takes the disk's version (undoable with ultra.undo), or save with \"force\": true to keep the buffer's"
                } else {
                    "re-read the file (or apply the diff to your copy), then retry with the current version or hash; ultra.revert reloads a buffer from disk"
                })
            }
            WsError::NoMatch { path, needle, closest } => err
                .with_details(json!({
                    "path": path, "old": needle,
                    "closest": closest.iter().map(|(l, t)| json!({"line": l, "text": t})).collect::<Vec<_>>(),
                }))
                .with_suggestion("copy the text exactly from a fresh read, or pass \"whitespace\": true to match ignoring indentation and trailing spaces"),
            WsError::Ambiguous { path, needle, count, lines } => err
                .with_details(json!({ "path": path, "old": needle, "count": count, "lines": lines }))
                .with_suggestion("include more surrounding lines in `old` so it matches once, or pass \"replaceAll\": true"),
            WsError::Dirty(path) => err
                .with_details(json!({ "path": path }))
                .with_suggestion("save or revert it first (to close or delete it anyway, pass \"force\": true to discard the changes)"),
            WsError::NoActiveBuffer => err.with_suggestion("open a file with ultra.openFile, or pass `path`"),
            WsError::InvalidPosition(_) => err.with_suggestion("positions are 0-based; read the file to see its line count"),
            WsError::TooLarge { path, size, limit } => err
                .with_details(json!({ "path": path, "size": size, "limit": limit }))
                .with_suggestion("read it in parts with offset/limit"),
            WsError::EditTooLarge { path, size, limit } => err
                .with_details(json!({ "path": path, "size": size, "limit": limit }))
                .with_suggestion("split the change into smaller batches, or write the file whole with ultra.writeFile"),
            WsError::HardLinked(path) => err
                .with_details(json!({ "path": path, "hardLinked": true }))
                .with_suggestion("the workspace owner can allow it with the security.allowHardlinkReads globs in ultra.config.json"),
            WsError::DryRun(path) => err
                .with_details(json!({ "path": path }))
                .with_suggestion("run again without --dry-run to write it"),
            WsError::UndoConflict { txn, path, .. } => err
                .with_details(json!({ "txnId": txn, "path": path }))
                .with_suggestion("undo the later overlapping edits first, or edit the text directly"),
            _ => err,
        }
    }
}
