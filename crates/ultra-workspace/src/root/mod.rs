//! The confined workspace root.
//!
//! The root directory is opened once; every operation goes through that handle (cap-std,
//! which uses `openat2(RESOLVE_BENEATH)` on Linux), so no path string ever reaches a
//! path-based syscall and a symlink swapped in mid-operation still cannot lead outside.
//! Paths are normalised lexically first (no string-prefix checks: components only), then
//! symlinks are resolved one hop at a time, each hop staying beneath the root.
//!
//! - `confine`: lexical normalisation, the symlink walk, and who may read or write where.
//! - `read`: metadata and confined reads.
//! - `write`: crash-safe writes through temp files (and staged ones, for batches).
//! - `dirs`: directories, deletes, renames, listing, and the sweep of stale temp files.
//! - `walk`: directories opened for walks, their entries opened relative to them.

mod confine;
mod dirs;
mod read;
mod walk;
mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::UNIX_EPOCH;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use globset::GlobSet;

use crate::error::WsError;

pub use walk::{Listing, WalkDir};
pub use write::{AtomicFile, Staged};

/// A normalised path relative to the root: components joined by `/`, no `.` or `..`,
/// empty for the root itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath(String);

impl RelPath {
    /// The path as a string (`""` is the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path for cap-std calls (`.` for the root).
    fn os(&self) -> &Path {
        if self.0.is_empty() {
            Path::new(".")
        } else {
            Path::new(&self.0)
        }
    }

    /// The parent and the final component. The root has neither.
    pub fn split(&self) -> Option<(RelPath, &str)> {
        if self.0.is_empty() {
            return None;
        }
        Some(match self.0.rsplit_once('/') {
            Some((p, n)) => (RelPath(p.to_string()), n),
            None => (RelPath(String::new()), self.0.as_str()),
        })
    }

    /// The final component.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// This path joined with one more component.
    pub fn join(&self, name: &str) -> RelPath {
        if self.0.is_empty() {
            RelPath(name.to_string())
        } else {
            RelPath(format!("{}/{name}", self.0))
        }
    }
}

impl std::fmt::Display for RelPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "." } else { &self.0 })
    }
}

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl Kind {
    /// The seed 003 `FileEntry.type` name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "directory",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }
}

/// File metadata, enough to detect changes without trusting mtime alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub len: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: u128,
    /// Status change time, nanoseconds since the epoch. Unlike mtime no program can set
    /// it back (`cp -p`, `touch -d` restore mtime, and move ctime forward), so it is what
    /// change detection trusts.
    pub ctime_ns: u128,
    pub ino: u64,
    pub nlink: u64,
    pub mode: u32,
    /// The device (file system) holding it (`find -xdev` stays on one).
    pub dev: u64,
}

fn meta_of(m: &cap_std::fs::Metadata) -> Meta {
    use cap_std::fs::MetadataExt;
    let ft = m.file_type();
    let kind = if ft.is_symlink() {
        Kind::Symlink
    } else if ft.is_dir() {
        Kind::Dir
    } else if ft.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.into_std().duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let ctime_ns = (m.ctime().max(0) as u128) * 1_000_000_000 + m.ctime_nsec().max(0) as u128;
    Meta {
        kind,
        len: m.len(),
        mtime_ns,
        ctime_ns,
        ino: m.ino(),
        nlink: m.nlink(),
        mode: m.mode(),
        dev: m.dev(),
    }
}

/// One directory entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub path: RelPath,
    pub name: String,
    pub meta: Meta,
}

/// Limits and protections of a root.
#[derive(Debug, Clone)]
pub struct RootOptions {
    /// Globs (relative, case-insensitive) that non-human sources may neither read nor write.
    pub restricted: Vec<String>,
    /// Globs of hard-linked files that may still be read.
    pub hardlink_reads: Vec<String>,
    /// Largest file read into memory.
    pub max_file_bytes: u64,
    /// Write nothing: every write, create, delete and rename is refused with `DryRun`
    /// (`ultra -c --dry-run`; buffers still change in memory).
    pub dry_run: bool,
}

impl Default for RootOptions {
    fn default() -> Self {
        RootOptions {
            restricted: Vec::new(),
            hardlink_reads: Vec::new(),
            max_file_bytes: 1 << 30,
            dry_run: false,
        }
    }
}

/// The workspace root.
pub struct Root {
    /// The root as the caller named it (absolute paths under it are accepted too).
    given: PathBuf,
    canonical: PathBuf,
    dir: Dir,
    restricted: GlobSet,
    restricted_list: Vec<String>,
    hardlink_reads: GlobSet,
    max_file_bytes: u64,
    dry_run: bool,
    tmp_counter: AtomicU64,
}

impl Root {
    /// Open `path` as the root.
    pub fn open(path: &Path, opts: RootOptions) -> Result<Root, WsError> {
        let shown = path.display().to_string();
        let canonical =
            std::fs::canonicalize(path).map_err(|e| WsError::io("open workspace", &shown, e))?;
        let dir = Dir::open_ambient_dir(&canonical, ambient_authority())
            .map_err(|e| WsError::io("open workspace", &shown, e))?;
        let given = if path.is_absolute() {
            path.to_path_buf()
        } else {
            canonical.clone()
        };
        Ok(Root {
            given,
            canonical,
            dir,
            restricted: confine::globs(&opts.restricted)?,
            restricted_list: opts.restricted,
            hardlink_reads: confine::globs(&opts.hardlink_reads)?,
            max_file_bytes: opts.max_file_bytes,
            dry_run: opts.dry_run,
            tmp_counter: AtomicU64::new(0),
        })
    }

    /// The root as an absolute path (for display; never used for I/O).
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// Largest file read into memory.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes
    }

    /// Whether this root writes nothing (a dry run).
    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// A directory beneath the root as a handle (the root's own, cloned, for `""`); `op`
    /// names what failed.
    fn dir_at(&self, rel: &RelPath, op: &'static str) -> Result<Dir, WsError> {
        if rel.0.is_empty() {
            self.dir.try_clone().map_err(|e| WsError::io(op, ".", e))
        } else {
            self.dir
                .open_dir(rel.os())
                .map_err(|e| WsError::io(op, rel.as_str(), e))
        }
    }

    /// Refuse a change in a dry run.
    fn writable(&self, rel: &RelPath) -> Result<(), WsError> {
        if self.dry_run {
            return Err(WsError::DryRun(rel.to_string()));
        }
        Ok(())
    }
}
