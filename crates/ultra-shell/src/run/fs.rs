//! The shell's view of the file system: paths relative to the session's working directory,
//! every one resolved beneath the workspace root and checked like any other file tool.

use std::sync::Arc;

use ultra_workspace::root::{AtomicFile, Entry, Meta};
use ultra_workspace::{RelPath, Root, WsError};

/// Confined file access for built-ins and redirects.
#[derive(Clone)]
pub struct ShellFs {
    root: Arc<Root>,
    human: bool,
}

impl ShellFs {
    /// Access through `root`; `human` callers are not held to restricted paths.
    pub fn new(root: Arc<Root>, human: bool) -> ShellFs {
        ShellFs { root, human }
    }

    /// The root.
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// A shell path joined onto the working directory (absolute paths stay absolute and
    /// must lie under the root).
    pub fn join(cwd: &RelPath, user: &str) -> String {
        if user.starts_with('/') || cwd.as_str().is_empty() {
            user.to_string()
        } else if user.is_empty() {
            cwd.as_str().to_string()
        } else {
            format!("{}/{user}", cwd.as_str())
        }
    }

    /// Resolve a path to read (symlinks followed beneath the root).
    pub fn resolve_read(&self, cwd: &RelPath, user: &str) -> Result<RelPath, WsError> {
        let rel = self.root.resolve(&Self::join(cwd, user), true)?;
        self.root.check_readable(&rel, self.human)?;
        Ok(rel)
    }

    /// Whether this caller may read an already-resolved path (walks use it to skip
    /// protected paths).
    pub fn readable(&self, rel: &RelPath) -> bool {
        self.root.check_readable(rel, self.human).is_ok()
    }

    /// Resolve a path to write through.
    pub fn resolve_write(&self, cwd: &RelPath, user: &str) -> Result<RelPath, WsError> {
        let rel = self.root.resolve(&Self::join(cwd, user), true)?;
        self.root.check_writable(&rel, self.human)?;
        Ok(rel)
    }

    /// Resolve a path naming a directory entry itself (rm, mv): a final symlink is kept.
    pub fn resolve_entry(&self, cwd: &RelPath, user: &str) -> Result<RelPath, WsError> {
        let rel = self.root.resolve(&Self::join(cwd, user), false)?;
        self.root.check_writable(&rel, self.human)?;
        Ok(rel)
    }

    /// Open a file for streaming reads.
    pub fn open_read(&self, cwd: &RelPath, user: &str) -> Result<std::fs::File, WsError> {
        let rel = self.resolve_read(cwd, user)?;
        self.root.open_file(&rel)
    }

    /// Start replacing a file (the content appears on commit).
    pub fn create(&self, cwd: &RelPath, user: &str) -> Result<AtomicFile, WsError> {
        let rel = self.resolve_write(cwd, user)?;
        self.root.create_atomic(&rel)
    }

    /// Replace a file's content in one atomic step, creating missing parent directories
    /// when `parents`.
    pub fn write_file(
        &self,
        cwd: &RelPath,
        user: &str,
        bytes: &[u8],
        parents: bool,
    ) -> Result<RelPath, WsError> {
        let rel = self.resolve_write(cwd, user)?;
        if parents {
            self.root.create_parents(&rel)?;
        }
        self.root.write_atomic(&rel, bytes)?;
        Ok(rel)
    }

    /// Read a whole file (up to the root's size limit).
    pub fn read_file(&self, cwd: &RelPath, user: &str) -> Result<(RelPath, Vec<u8>), WsError> {
        let rel = self.resolve_read(cwd, user)?;
        let (bytes, _) = self.root.read(&rel)?;
        Ok((rel, bytes))
    }

    /// Open a file for appending.
    pub fn append(&self, cwd: &RelPath, user: &str) -> Result<std::fs::File, WsError> {
        let rel = self.resolve_write(cwd, user)?;
        self.root.open_append(&rel)
    }

    /// Metadata (following a final symlink beneath the root).
    pub fn stat(&self, cwd: &RelPath, user: &str) -> Result<Meta, WsError> {
        let rel = self.resolve_read(cwd, user)?;
        self.root.stat(&rel)
    }

    /// Metadata of the entry itself (a final symlink is not followed).
    pub fn lstat(&self, cwd: &RelPath, user: &str) -> Result<Meta, WsError> {
        let rel = self.root.resolve(&Self::join(cwd, user), false)?;
        self.root.check_readable(&rel, self.human)?;
        self.root.lstat(&rel)
    }

    /// A directory's entries, sorted by name.
    pub fn list(&self, cwd: &RelPath, user: &str) -> Result<Vec<Entry>, WsError> {
        let rel = self.resolve_read(cwd, user)?;
        Ok(self.root.list(&rel, false, 100_000)?.0)
    }
}
