//! The shell's view of the file system: paths relative to the session's working directory,
//! every one resolved beneath the workspace root and checked like any other file tool.

use std::io::Write;
use std::sync::Arc;

use ultra_budget::{Meter, Over};
use ultra_workspace::root::{AtomicFile, Entry, Listing, Meta};
use ultra_workspace::{RelPath, Root, WsError};

/// A change to a directory entry, for [`WriteHook::check_operation`].
#[derive(Debug, Clone, Copy)]
pub enum FileOp<'a> {
    /// A new file or directory.
    Create(&'a RelPath),
    /// Removing a file or directory (with what is inside).
    Delete(&'a RelPath),
    /// Moving `from` to `to`.
    Rename { from: &'a RelPath, to: &'a RelPath },
}

/// What the layer above checks and does around every shell write: validators see the
/// content and operations an agent's script would produce before anything lands, and open
/// buffers learn of changes at once. Called from pipeline threads.
pub trait WriteHook: Send + Sync {
    /// Before `content` becomes the whole content of `path`. `Err` refuses, with the reason.
    fn check_content(&self, path: &RelPath, content: &[u8]) -> Result<(), String>;
    /// Before an entry is created, deleted or renamed.
    fn check_operation(&self, op: FileOp<'_>) -> Result<(), String>;
    /// After `path` changed on disk.
    fn changed(&self, path: &RelPath);
}

/// A symbol a code search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolHit {
    pub name: String,
    /// `function`, `class`, ...
    pub kind: String,
    pub path: String,
    pub line: u32,
    /// The signature, or the defining line.
    pub detail: String,
}

/// The workspace's code index, when the layer above provides one (`grep code QUERY`).
pub trait CodeSearch: Send + Sync {
    /// Definitions ranked against `query`, best first.
    fn search(&self, query: &str, limit: usize) -> Result<Vec<SymbolHit>, String>;
}

/// What a text index says of the tree to one search, as of when it began.
pub trait TextView: Send + Sync {
    /// The entries of the directory `dir` (a workspace path, `""` the root) when the index
    /// follows it, as [`Root::walk_dir`] lists them, each with whether the search may leave
    /// it unread (a file the index knows holds no match); `None`: list it from the disk.
    fn dir(&self, dir: &str) -> Option<(Arc<Listing>, Arc<Vec<bool>>)>;
}

/// The workspace's text index, when the layer above keeps one: `grep -r` and the `grep`
/// tool take the directories it follows from it, and leave unread the files it knows to
/// hold no match.
pub trait TextIndex: Send + Sync {
    /// For a search whose every match matches one of `patterns` (regular expressions,
    /// `case_insensitive` or not), what the index says of the tree; `None` when it cannot
    /// say (the search walks the disk and reads every file).
    fn view(&self, patterns: &[String], case_insensitive: bool) -> Option<Box<dyn TextView>>;
}

/// Most bytes one string value (a sed pattern space, an awk string, a replaced file) may
/// grow to in one step.
pub const MAX_VALUE: usize = 256 << 20;

/// Confined file access for built-ins and redirects.
#[derive(Clone)]
pub struct ShellFs {
    root: Arc<Root>,
    human: bool,
    hook: Option<Arc<dyn WriteHook>>,
    code: Option<Arc<dyn CodeSearch>>,
    text: Option<Arc<dyn TextIndex>>,
    /// This call's time and memory (awk and sed loops and pipes check it).
    meter: Option<Arc<Meter>>,
}

impl ShellFs {
    /// Access through `root`; `human` callers are not held to restricted paths.
    pub fn new(root: Arc<Root>, human: bool) -> ShellFs {
        ShellFs {
            root,
            human,
            hook: None,
            code: None,
            text: None,
            meter: None,
        }
    }

    /// The same access, with the work of this call bounded by `meter`: a loop in awk or
    /// sed, or a pipe, still running past its time or memory stops with an error.
    pub fn with_meter(mut self, meter: Arc<Meter>) -> ShellFs {
        self.meter = Some(meter);
        self
    }

    /// Charge the current thread's allocations to this call until the guard drops.
    pub fn charge(&self) -> Option<ultra_budget::Entered> {
        self.meter.as_ref().map(Meter::enter)
    }

    /// The limit this call has run past, if any.
    pub fn over(&self) -> Option<Over> {
        self.meter.as_ref().and_then(|m| m.over())
    }

    /// Whether this call holds more memory than it may (one atomic load: check it often).
    pub fn over_memory(&self) -> bool {
        self.meter.as_ref().is_some_and(|m| m.over_memory())
    }

    /// The check for an interpreter's loop tick `ticks`: memory on every tick (cheap),
    /// time every 4,096 (a clock read).
    pub fn over_at(&self, ticks: u32) -> Option<Over> {
        if self.over_memory() {
            Some(Over::Memory)
        } else if ticks.is_multiple_of(4096) {
            self.over()
        } else {
            None
        }
    }

    /// Bytes one value built in one step (a global substitution, a concatenation, a
    /// replaced file) may take: at most [`MAX_VALUE`], and no more than this call may still
    /// allocate. Such work stops before it passes this rather than after.
    pub fn room(&self) -> usize {
        self.meter.as_ref().map_or(MAX_VALUE, |m| {
            let used = m.used().max(0) as usize;
            m.memory_limit().saturating_sub(used).min(MAX_VALUE)
        })
    }

    /// The same access with a code index to search.
    pub fn with_code(mut self, code: Arc<dyn CodeSearch>) -> ShellFs {
        self.code = Some(code);
        self
    }

    /// The same access with a text index that searches may skip files by.
    pub fn with_text(mut self, text: Arc<dyn TextIndex>) -> ShellFs {
        self.text = Some(text);
        self
    }

    /// The text index, if the layer above provided one.
    pub fn text(&self) -> Option<&dyn TextIndex> {
        self.text.as_deref()
    }

    /// The code index, if the layer above provided one.
    pub fn code(&self) -> Option<&dyn CodeSearch> {
        self.code.as_deref()
    }

    /// The same access with every write passing through `hook`.
    pub fn with_hook(mut self, hook: Arc<dyn WriteHook>) -> ShellFs {
        self.hook = Some(hook);
        self
    }

    fn refused(path: &RelPath, reason: String) -> WsError {
        WsError::Refused {
            path: path.as_str().to_string(),
            reason,
        }
    }

    fn check_content(&self, rel: &RelPath, content: &[u8]) -> Result<(), WsError> {
        match &self.hook {
            Some(h) => h
                .check_content(rel, content)
                .map_err(|r| Self::refused(rel, r)),
            None => Ok(()),
        }
    }

    /// Ask the hook whether `op` may happen.
    pub fn check_operation(&self, op: FileOp<'_>) -> Result<(), WsError> {
        let rel = match op {
            FileOp::Create(r) | FileOp::Delete(r) => r,
            FileOp::Rename { from, .. } => from,
        };
        match &self.hook {
            Some(h) => h.check_operation(op).map_err(|r| Self::refused(rel, r)),
            None => Ok(()),
        }
    }

    /// Tell the hook `rel` changed.
    pub fn changed(&self, rel: &RelPath) {
        if let Some(h) = &self.hook {
            h.changed(rel);
        }
    }

    /// Whether the caller is a person (not held to restricted paths, not confined).
    pub fn is_human(&self) -> bool {
        self.human
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

    /// Start replacing a file: the content appears (atomically, once checked) on
    /// [`Staged::commit`]; dropped uncommitted, nothing changes.
    pub fn create(&self, cwd: &RelPath, user: &str) -> Result<Staged, WsError> {
        let rel = self.resolve_write(cwd, user)?;
        let file = self.root.create_atomic(&rel)?;
        Ok(Staged {
            fs: self.clone(),
            rel,
            kind: StagedKind::Replace(Some(file)),
            copy: self.hook.as_ref().map(|_| Vec::new()),
        })
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
        self.check_content(&rel, bytes)?;
        if parents {
            self.root.create_parents(&rel)?;
        }
        self.root.write_atomic(&rel, bytes)?;
        self.changed(&rel);
        Ok(rel)
    }

    /// Copy content onto `rel` (already resolved for writing) with `mode`.
    pub fn write_copy(&self, rel: &RelPath, bytes: &[u8], mode: u32) -> Result<(), WsError> {
        self.check_content(rel, bytes)?;
        self.root.write_with_mode(rel, bytes, mode, true)?;
        self.changed(rel);
        Ok(())
    }

    /// Create an empty file at `rel` (already resolved); it must not exist.
    pub fn create_empty(&self, rel: &RelPath) -> Result<(), WsError> {
        self.check_operation(FileOp::Create(rel))?;
        self.check_content(rel, b"")?;
        self.root.create_new(rel, b"")?;
        self.changed(rel);
        Ok(())
    }

    /// Create a directory at `rel` (already resolved), with its parents when `parents`.
    pub fn create_dir(&self, rel: &RelPath, parents: bool) -> Result<(), WsError> {
        self.check_operation(FileOp::Create(rel))?;
        self.root.create_dir(rel, parents)
    }

    /// Remove a file, or a directory (`recursive`: with its contents).
    pub fn remove(&self, rel: &RelPath, dir: bool, recursive: bool) -> Result<(), WsError> {
        self.check_operation(FileOp::Delete(rel))?;
        if dir {
            self.root.remove_dir(rel, recursive)?;
        } else {
            self.root.remove_file(rel)?;
        }
        self.changed(rel);
        Ok(())
    }

    /// Rename `from` to `to`, replacing `to`.
    pub fn rename(&self, from: &RelPath, to: &RelPath) -> Result<(), WsError> {
        self.check_operation(FileOp::Rename { from, to })?;
        self.root.rename(from, to, true)?;
        self.changed(from);
        self.changed(to);
        Ok(())
    }

    /// Read a whole file (up to the root's size limit).
    pub fn read_file(&self, cwd: &RelPath, user: &str) -> Result<(RelPath, Vec<u8>), WsError> {
        let rel = self.resolve_read(cwd, user)?;
        let (bytes, _) = self.root.read(&rel)?;
        Ok((rel, bytes))
    }

    /// Open a file for appending. Without a hook, bytes land as they are written; with one,
    /// they are held until [`Staged::commit`] (or drop) and land once the whole new content
    /// passed the check.
    pub fn append(&self, cwd: &RelPath, user: &str) -> Result<Staged, WsError> {
        let rel = self.resolve_write(cwd, user)?;
        let file = self.root.open_append(&rel)?;
        Ok(Staged {
            fs: self.clone(),
            rel,
            kind: StagedKind::Append(Some(file)),
            copy: self.hook.as_ref().map(|_| Vec::new()),
        })
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

enum StagedKind {
    Replace(Option<AtomicFile>),
    Append(Option<std::fs::File>),
}

/// A file being written by a redirect or a built-in: see [`ShellFs::create`] and
/// [`ShellFs::append`].
pub struct Staged {
    fs: ShellFs,
    rel: RelPath,
    kind: StagedKind,
    /// With a hook: the bytes written, checked before they land.
    copy: Option<Vec<u8>>,
}

impl Staged {
    /// Check and land what was written.
    pub fn commit(mut self) -> std::io::Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> std::io::Result<()> {
        let refused = |e: WsError| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e);
        match &mut self.kind {
            StagedKind::Replace(file) => {
                let Some(file) = file.take() else {
                    return Ok(());
                };
                if let Some(copy) = &self.copy {
                    self.fs.check_content(&self.rel, copy).map_err(refused)?;
                }
                file.commit()?;
            }
            StagedKind::Append(file) => {
                let Some(mut file) = file.take() else {
                    return Ok(());
                };
                if let Some(copy) = self.copy.take() {
                    let (mut whole, _) = match self.fs.root.read(&self.rel) {
                        Ok(r) => r,
                        Err(WsError::NotFound(_)) => {
                            (Vec::new(), self.fs.root.stat(&self.rel).map_err(refused)?)
                        }
                        Err(e) => return Err(refused(e)),
                    };
                    whole.extend_from_slice(&copy);
                    self.fs.check_content(&self.rel, &whole).map_err(refused)?;
                    file.write_all(&copy)?;
                }
                file.flush()?;
            }
        }
        self.fs.changed(&self.rel);
        Ok(())
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(copy) = &mut self.copy {
            let limit = self.fs.root.max_file_bytes() as usize;
            if copy.len() + buf.len() > limit {
                return Err(std::io::Error::other(format!(
                    "over the {limit}-byte limit for a checked write"
                )));
            }
            copy.extend_from_slice(buf);
            if matches!(self.kind, StagedKind::Append(_)) {
                return Ok(buf.len());
            }
        }
        match &mut self.kind {
            StagedKind::Replace(Some(f)) => f.write(buf),
            StagedKind::Append(Some(f)) => f.write(buf),
            _ => Err(std::io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.kind {
            StagedKind::Replace(Some(f)) => f.flush(),
            StagedKind::Append(Some(f)) if self.copy.is_none() => f.flush(),
            _ => Ok(()),
        }
    }
}

impl Drop for Staged {
    /// An append lands even when nobody commits it (as a plain `File` would); a replacement
    /// dropped uncommitted is abandoned.
    fn drop(&mut self) {
        if matches!(self.kind, StagedKind::Append(Some(_))) {
            let _ = self.finish();
        }
    }
}
