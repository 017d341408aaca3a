//! The confined workspace root.
//!
//! The root directory is opened once; every operation goes through that handle (cap-std,
//! which uses `openat2(RESOLVE_BENEATH)` on Linux), so no path string ever reaches a
//! path-based syscall and a symlink swapped in mid-operation still cannot lead outside.
//! Paths are normalised lexically first (no string-prefix checks: components only), then
//! symlinks are resolved one hop at a time, each hop staying beneath the root.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, PermissionsExt};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::WsError;

const MAX_PATH_BYTES: usize = 4096;
const MAX_COMPONENTS: usize = 255;
const MAX_SYMLINK_HOPS: usize = 40;

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

/// Paths no program or agent may write, whatever the config says: git internals (hooks and
/// config run code) and Ultra's own config and state (an agent must not edit its guardrails).
const BUILTIN_WRITE_PROTECTED: &[&str] = &["ultra.config.json", ".ultra"];

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

fn globs(list: &[String]) -> Result<GlobSet, WsError> {
    let mut b = GlobSetBuilder::new();
    for g in list {
        let glob = GlobBuilder::new(&g.to_lowercase())
            .literal_separator(false)
            .build()
            .map_err(|e| WsError::InvalidPath {
                path: g.clone(),
                why: format!("bad glob: {e}"),
            })?;
        b.add(glob);
        // `dir` also protects everything below it.
        if !g.contains('*')
            && let Ok(sub) =
                GlobBuilder::new(&format!("{}/**", g.to_lowercase().trim_end_matches('/'))).build()
        {
            b.add(sub);
        }
    }
    b.build().map_err(|e| WsError::InvalidPath {
        path: list.join(","),
        why: e.to_string(),
    })
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
            restricted: globs(&opts.restricted)?,
            restricted_list: opts.restricted,
            hardlink_reads: globs(&opts.hardlink_reads)?,
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

    /// Refuse a change in a dry run.
    fn writable(&self, rel: &RelPath) -> Result<(), WsError> {
        if self.dry_run {
            return Err(WsError::DryRun(rel.to_string()));
        }
        Ok(())
    }

    /// Normalise a user path lexically: absolute paths must lie under the root, `..` may not
    /// climb above it, NUL bytes and absurd lengths are refused.
    pub fn lexical(&self, user: &str) -> Result<RelPath, WsError> {
        let invalid = |why: &str| WsError::InvalidPath {
            path: user.chars().take(200).collect(),
            why: why.into(),
        };
        if user.contains('\0') {
            return Err(invalid("it contains a NUL byte"));
        }
        if user.len() > MAX_PATH_BYTES {
            return Err(invalid("it is longer than 4096 bytes"));
        }
        let p = Path::new(user);
        let rel = if p.is_absolute() {
            match p
                .strip_prefix(&self.canonical)
                .or_else(|_| p.strip_prefix(&self.given))
            {
                Ok(r) => r,
                Err(_) => {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: String::new(),
                    });
                }
            }
        } else {
            p
        };
        let mut parts: Vec<&str> = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(s) => {
                    parts.push(s.to_str().ok_or_else(|| invalid("it is not UTF-8"))?)
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(WsError::Outside {
                            path: user.into(),
                            why: " (`..` climbs above the root)".into(),
                        });
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: String::new(),
                    });
                }
            }
        }
        if parts.len() > MAX_COMPONENTS {
            return Err(invalid("it has more than 255 components"));
        }
        Ok(RelPath(parts.join("/")))
    }

    /// Resolve a user path to the real path beneath the root, following symlinks (each hop
    /// must stay beneath the root). With `follow_last: false` the final component is kept
    /// as is, so delete and rename act on a link rather than its target.
    pub fn resolve(&self, user: &str, follow_last: bool) -> Result<RelPath, WsError> {
        let lexical = self.lexical(user)?;
        let mut todo: VecDeque<String> = lexical
            .0
            .split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut done: Vec<String> = Vec::new();
        let mut hops = 0;
        let mut missing = false;
        while let Some(c) = todo.pop_front() {
            if c == "." {
                continue;
            }
            if c == ".." {
                if done.pop().is_none() {
                    return Err(WsError::Outside {
                        path: user.into(),
                        why: " (through a symlink)".into(),
                    });
                }
                continue;
            }
            let is_last = todo.is_empty();
            done.push(c);
            if missing || (is_last && !follow_last) {
                continue;
            }
            let candidate = done.join("/");
            match self.dir.symlink_metadata(&candidate) {
                Ok(m) if m.file_type().is_symlink() => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(WsError::InvalidPath {
                            path: user.into(),
                            why: "too many levels of symlinks".into(),
                        });
                    }
                    let target = self
                        .dir
                        .read_link_contents(&candidate)
                        .map_err(|e| WsError::io("read link", &candidate, e))?;
                    if target.is_absolute() {
                        return Err(WsError::Outside {
                            path: user.into(),
                            why: " (through an absolute symlink)".into(),
                        });
                    }
                    done.pop();
                    let mut parts: Vec<String> = Vec::new();
                    for comp in target.components() {
                        match comp {
                            Component::Normal(s) => parts.push(
                                s.to_str()
                                    .ok_or_else(|| WsError::InvalidPath {
                                        path: user.into(),
                                        why: "symlink target is not UTF-8".into(),
                                    })?
                                    .to_string(),
                            ),
                            Component::ParentDir => parts.push("..".into()),
                            _ => {}
                        }
                    }
                    for p in parts.into_iter().rev() {
                        todo.push_front(p);
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing = true,
                Err(e) => return Err(WsError::io("resolve", &candidate, e)),
            }
        }
        if done.len() > MAX_COMPONENTS {
            return Err(WsError::InvalidPath {
                path: user.into(),
                why: "it has more than 255 components".into(),
            });
        }
        Ok(RelPath(done.join("/")))
    }

    /// Refuse writes to protected paths. People (`human`) may write anywhere in the root;
    /// programs and agents may not touch `.git` internals, Ultra's config and state, or
    /// configured restricted paths. Matching is case-insensitive, so `.GIT/config` is caught
    /// on case-insensitive file systems too.
    pub fn check_writable(&self, rel: &RelPath, human: bool) -> Result<(), WsError> {
        if human {
            return Ok(());
        }
        let lower = rel.0.to_lowercase();
        if lower.split('/').any(|c| c == ".git") {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: ".git internals".into(),
            });
        }
        let first = lower.split('/').next().unwrap_or("");
        if BUILTIN_WRITE_PROTECTED.contains(&first) {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: "Ultra's own configuration".into(),
            });
        }
        self.check_readable(rel, human)
    }

    /// Refuse reads of configured restricted paths by programs and agents.
    pub fn check_readable(&self, rel: &RelPath, human: bool) -> Result<(), WsError> {
        if human || self.restricted_list.is_empty() {
            return Ok(());
        }
        let lower = rel.0.to_lowercase();
        if self.restricted.is_match(&lower) {
            return Err(WsError::Restricted {
                path: rel.0.clone(),
                rule: "security.restrictedPaths".into(),
            });
        }
        Ok(())
    }

    /// Change-detection metadata of a file Ultra already resolved (an open buffer): one
    /// `fstatat` relative to the root handle instead of cap-std's open + stat + close.
    /// Only size, times and inode are read, never content, so following a link planted
    /// since (which the confined reads would refuse) leaks nothing; a change it reports is
    /// then read through the confined path.
    pub fn stat_for_change(&self, rel: &RelPath) -> Result<Meta, WsError> {
        use std::os::fd::AsRawFd;
        let Ok(c) = std::ffi::CString::new(rel.os().as_os_str().as_encoded_bytes()) else {
            return self.stat(rel);
        };
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid dir fd we own, a NUL-terminated path, and a stat buffer that
        // fstatat fully initialises when it returns 0.
        let rc = unsafe { libc::fstatat(self.dir.as_raw_fd(), c.as_ptr(), st.as_mut_ptr(), 0) };
        if rc != 0 {
            return Err(WsError::io(
                "stat",
                rel.as_str(),
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: initialised by the successful call above.
        let st = unsafe { st.assume_init() };
        let kind = match st.st_mode & libc::S_IFMT {
            libc::S_IFREG => Kind::File,
            libc::S_IFDIR => Kind::Dir,
            libc::S_IFLNK => Kind::Symlink,
            _ => Kind::Other,
        };
        Ok(Meta {
            kind,
            len: st.st_size as u64,
            mtime_ns: st.st_mtime as u128 * 1_000_000_000 + st.st_mtime_nsec as u128,
            ctime_ns: st.st_ctime as u128 * 1_000_000_000 + st.st_ctime_nsec as u128,
            ino: st.st_ino,
            nlink: st.st_nlink,
            mode: st.st_mode,
        })
    }

    /// Metadata, following a final symlink (beneath the root).
    pub fn stat(&self, rel: &RelPath) -> Result<Meta, WsError> {
        self.dir
            .metadata(rel.os())
            .map(|m| meta_of(&m))
            .map_err(|e| WsError::io("stat", rel.as_str(), e))
    }

    /// Metadata of the path itself (a symlink is reported as one).
    pub fn lstat(&self, rel: &RelPath) -> Result<Meta, WsError> {
        self.dir
            .symlink_metadata(rel.os())
            .map(|m| meta_of(&m))
            .map_err(|e| WsError::io("stat", rel.as_str(), e))
    }

    /// Whether something exists at the path (not following a final symlink).
    pub fn exists(&self, rel: &RelPath) -> bool {
        self.dir.symlink_metadata(rel.os()).is_ok()
    }

    /// Read a regular file. FIFOs and devices are refused without blocking; hard-linked files
    /// are refused (they may alias files outside the root) unless allowlisted.
    pub fn read(&self, rel: &RelPath) -> Result<(Vec<u8>, Meta), WsError> {
        let mut buf = Vec::new();
        let m = self.read_into(rel, &mut buf)?;
        Ok((buf, m))
    }

    /// [`Root::read`] into `buf` (cleared first), so that a caller reading many files
    /// reuses one allocation instead of faulting in fresh pages for each.
    pub fn read_into(&self, rel: &RelPath, buf: &mut Vec<u8>) -> Result<Meta, WsError> {
        buf.clear();
        let (file, m) = self.open_regular(rel)?;
        if m.len > self.max_file_bytes {
            return Err(WsError::TooLarge {
                path: rel.0.clone(),
                size: m.len,
                limit: self.max_file_bytes,
            });
        }
        buf.reserve(m.len as usize);
        (&file)
            .take(self.max_file_bytes + 1)
            .read_to_end(buf)
            .map_err(|e| WsError::io("read", rel.as_str(), e))?;
        if buf.len() as u64 > self.max_file_bytes {
            return Err(WsError::TooLarge {
                path: rel.0.clone(),
                size: buf.len() as u64,
                limit: self.max_file_bytes,
            });
        }
        Ok(m)
    }

    fn parent_dir(&self, parent: &RelPath) -> Result<Dir, WsError> {
        if parent.0.is_empty() {
            self.dir
                .try_clone()
                .map_err(|e| WsError::io("open directory", ".", e))
        } else {
            self.dir
                .open_dir(parent.os())
                .map_err(|e| WsError::io("open directory", parent.as_str(), e))
        }
    }

    /// Write a temp file in `dir`, fsynced, and return its name.
    fn write_temp(
        &self,
        dir: &Dir,
        name: &str,
        bytes: &[u8],
        mode: u32,
    ) -> Result<String, WsError> {
        let (tmp, mut f) = self
            .open_temp(dir, name, mode)
            .map_err(|(tmp, e)| WsError::io("write", &tmp, e))?;
        let res = f.write_all(bytes).and_then(|_| f.sync_all());
        if let Err(e) = res {
            let _ = dir.remove_file(&tmp);
            return Err(WsError::io("write", &tmp, e));
        }
        Ok(tmp)
    }

    /// A fresh temp file next to `name` in `dir` (`.<name>.ultra-tmp.<pid>.<n>`, which
    /// the sweep recognises), never following a link; its name, or the name and the error.
    fn open_temp(
        &self,
        dir: &Dir,
        name: &str,
        mode: u32,
    ) -> Result<(String, cap_std::fs::File), (String, std::io::Error)> {
        let n = self.tmp_counter.fetch_add(1, Ordering::Relaxed);
        let tmp = format!(
            ".{}.ultra-tmp.{}.{n}",
            name.chars().take(100).collect::<String>(),
            std::process::id()
        );
        let mut opts = OpenOptions::new();
        opts.write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW);
        match dir.open_with(&tmp, &opts) {
            Ok(f) => Ok((tmp, f)),
            Err(e) => Err((tmp, e)),
        }
    }

    fn fsync_dir(dir: &Dir, path: &str) -> Result<(), WsError> {
        // cap-std holds directories as O_PATH descriptors, which fsync rejects; open the
        // directory itself for reading to sync it.
        let mut opts = OpenOptions::new();
        opts.read(true).custom_flags(libc::O_DIRECTORY);
        let f = dir
            .open_with(".", &opts)
            .map_err(|e| WsError::io("fsync directory", path, e))?;
        f.sync_all()
            .map_err(|e| WsError::io("fsync directory", path, e))
    }

    /// Replace (or create) a file crash-safely: temp file in the same directory, fsync,
    /// rename over the target, fsync the directory. The old inode is never written in place,
    /// so a hard link to an outside file is replaced, not modified. Existing permissions are
    /// kept.
    pub fn write_atomic(&self, rel: &RelPath, bytes: &[u8]) -> Result<Meta, WsError> {
        let staged = self.stage(rel, bytes)?;
        self.publish(&staged)
    }

    /// The first half of [`Root::write_atomic`]: the new content in a fsynced temp file
    /// beside `rel`, not yet in place. [`Root::publish`] puts it there, [`Root::discard`]
    /// drops it. A batch stages every file before it publishes any.
    pub fn stage(&self, rel: &RelPath, bytes: &[u8]) -> Result<Staged, WsError> {
        self.writable(rel)?;
        let (parent, name) = rel.split().ok_or_else(|| WsError::NotAFile {
            path: ".".into(),
            kind: "directory".into(),
        })?;
        let dir = self.parent_dir(&parent)?;
        let mode = match dir.symlink_metadata(name) {
            Ok(m) if m.is_dir() => {
                return Err(WsError::NotAFile {
                    path: rel.0.clone(),
                    kind: "directory".into(),
                });
            }
            // The path was resolved through its links when it was named; a link here now
            // was planted since. Renaming over it would turn it into a regular file with
            // the link's mode; writing through it would skip the checks on its target.
            Ok(m) if m.file_type().is_symlink() => {
                return Err(WsError::NotAFile {
                    path: rel.to_string(),
                    kind: "symbolic link, put there since the path was opened; open the link's target to write it".into(),
                });
            }
            Ok(m) => m.permissions().mode() & 0o7777,
            Err(_) => 0o644,
        };
        let tmp = self.write_temp(&dir, name, bytes, mode)?;
        Ok(Staged {
            target: rel.clone(),
            tmp: parent.join(&tmp),
        })
    }

    /// Put a staged file in place: rename over the target, fsync the directory.
    pub fn publish(&self, staged: &Staged) -> Result<Meta, WsError> {
        self.writable(&staged.target)?;
        let rel = &staged.target;
        let (parent, name) = rel.split().ok_or_else(|| WsError::NotAFile {
            path: ".".into(),
            kind: "directory".into(),
        })?;
        let dir = self.parent_dir(&parent)?;
        let tmp = staged.tmp.file_name();
        if let Err(e) = dir.rename(tmp, &dir, name) {
            let _ = dir.remove_file(tmp);
            return Err(WsError::io("rename", rel.as_str(), e));
        }
        Self::fsync_dir(&dir, parent.as_str())?;
        self.stat(rel)
    }

    /// Drop a staged file that will not be published.
    pub fn discard(&self, staged: &Staged) {
        if let Some((parent, name)) = staged.tmp.split()
            && let Ok(dir) = self.parent_dir(&parent)
        {
            let _ = dir.remove_file(name);
        }
    }

    /// Create a new file atomically; fails with `Exists` if anything is at the path.
    pub fn create_new(&self, rel: &RelPath, bytes: &[u8]) -> Result<Meta, WsError> {
        self.writable(rel)?;
        let (parent, name) = rel.split().ok_or_else(|| WsError::Exists(".".into()))?;
        let dir = self.parent_dir(&parent)?;
        let tmp = self.write_temp(&dir, name, bytes, 0o644)?;
        // A hard link fails if the name exists, so no check-then-create race.
        let linked = dir.hard_link(&tmp, &dir, name);
        let _ = dir.remove_file(&tmp);
        linked.map_err(|e| WsError::io("create", rel.as_str(), e))?;
        Self::fsync_dir(&dir, parent.as_str())?;
        self.stat(rel)
    }

    /// Write a file crash-safely with the permission bits `mode` (a copy's). With
    /// `overwrite` an existing file is replaced (temp file + rename); without it anything at
    /// the path is an `Exists` error, decided by the link that publishes the temp file, so
    /// there is no check-then-create race.
    pub fn write_with_mode(
        &self,
        rel: &RelPath,
        bytes: &[u8],
        mode: u32,
        overwrite: bool,
    ) -> Result<Meta, WsError> {
        self.writable(rel)?;
        let (parent, name) = rel.split().ok_or_else(|| WsError::NotAFile {
            path: ".".into(),
            kind: "directory".into(),
        })?;
        let dir = self.parent_dir(&parent)?;
        if let Ok(m) = dir.symlink_metadata(name) {
            if m.is_dir() {
                return Err(WsError::NotAFile {
                    path: rel.0.clone(),
                    kind: "directory".into(),
                });
            }
            if !overwrite {
                return Err(WsError::Exists(rel.0.clone()));
            }
        }
        // Permission bits only: no setuid/setgid/sticky on copies.
        let tmp = self.write_temp(&dir, name, bytes, mode & 0o777)?;
        let published = if overwrite {
            dir.rename(&tmp, &dir, name)
        } else {
            dir.hard_link(&tmp, &dir, name)
        };
        if published.is_err() || !overwrite {
            let _ = dir.remove_file(&tmp);
        }
        published.map_err(|e| WsError::io("write", rel.as_str(), e))?;
        Self::fsync_dir(&dir, parent.as_str())?;
        self.stat(rel)
    }

    /// Create the parent directories of `rel`.
    pub fn create_parents(&self, rel: &RelPath) -> Result<(), WsError> {
        self.writable(rel)?;
        if let Some((parent, _)) = rel.split()
            && !parent.0.is_empty()
        {
            self.dir
                .create_dir_all(parent.os())
                .map_err(|e| WsError::io("create directory", parent.as_str(), e))?;
        }
        Ok(())
    }

    /// Create a directory (and its parents when `recursive`).
    pub fn create_dir(&self, rel: &RelPath, recursive: bool) -> Result<(), WsError> {
        self.writable(rel)?;
        let r = if recursive {
            self.dir.create_dir_all(rel.os())
        } else {
            self.dir.create_dir(rel.os())
        };
        r.map_err(|e| WsError::io("create directory", rel.as_str(), e))
    }

    /// Remove a file or a symlink (never its target).
    pub fn remove_file(&self, rel: &RelPath) -> Result<(), WsError> {
        self.writable(rel)?;
        let m = self.lstat(rel)?;
        if m.kind == Kind::Dir {
            return Err(WsError::NotAFile {
                path: rel.0.clone(),
                kind: "directory; use fs.deleteDirectory".into(),
            });
        }
        let (parent, name) = rel.split().ok_or_else(|| WsError::NotAFile {
            path: ".".into(),
            kind: "directory".into(),
        })?;
        let dir = self.parent_dir(&parent)?;
        dir.remove_file(name)
            .map_err(|e| WsError::io("delete", rel.as_str(), e))?;
        Self::fsync_dir(&dir, parent.as_str())
    }

    /// Remove a directory; `recursive` removes its contents without following symlinks.
    pub fn remove_dir(&self, rel: &RelPath, recursive: bool) -> Result<(), WsError> {
        self.writable(rel)?;
        if rel.0.is_empty() {
            return Err(WsError::Restricted {
                path: ".".into(),
                rule: "the workspace root itself".into(),
            });
        }
        let m = self.lstat(rel)?;
        if m.kind != Kind::Dir {
            return Err(WsError::NotADirectory(rel.0.clone()));
        }
        let r = if recursive {
            self.dir.remove_dir_all(rel.os())
        } else {
            self.dir.remove_dir(rel.os())
        };
        r.map_err(|e| WsError::io("delete directory", rel.as_str(), e))
    }

    /// Rename within the root. Refuses to replace an existing target unless `overwrite`.
    pub fn rename(&self, from: &RelPath, to: &RelPath, overwrite: bool) -> Result<(), WsError> {
        self.writable(to)?;
        let (fp, fname) = from.split().ok_or_else(|| WsError::Restricted {
            path: ".".into(),
            rule: "the workspace root itself".into(),
        })?;
        let (tp, tname) = to.split().ok_or_else(|| WsError::Exists(".".into()))?;
        let fdir = self.parent_dir(&fp)?;
        let tdir = self.parent_dir(&tp)?;
        fdir.symlink_metadata(fname)
            .map_err(|e| WsError::io("rename", from.as_str(), e))?;
        if !overwrite && tdir.symlink_metadata(tname).is_ok() {
            return Err(WsError::Exists(to.0.clone()));
        }
        fdir.rename(fname, &tdir, tname)
            .map_err(|e| WsError::io("rename", from.as_str(), e))?;
        Self::fsync_dir(&tdir, tp.as_str())?;
        if fp != tp {
            Self::fsync_dir(&fdir, fp.as_str())?;
        }
        Ok(())
    }

    /// List a directory, sorted by name. `recursive` descends into subdirectories (not
    /// through symlinks) up to `max_entries`; the bool says whether the list was cut.
    pub fn list(
        &self,
        rel: &RelPath,
        recursive: bool,
        max_entries: usize,
    ) -> Result<(Vec<Entry>, bool), WsError> {
        let mut out = Vec::new();
        let mut queue = VecDeque::from([rel.clone()]);
        let mut truncated = false;
        while let Some(dir_rel) = queue.pop_front() {
            let dir = if dir_rel.0.is_empty() {
                self.dir
                    .try_clone()
                    .map_err(|e| WsError::io("list", ".", e))?
            } else {
                self.dir
                    .open_dir(dir_rel.os())
                    .map_err(|e| WsError::io("list", dir_rel.as_str(), e))?
            };
            let mut entries: Vec<Entry> = Vec::new();
            for item in dir
                .entries()
                .map_err(|e| WsError::io("list", dir_rel.as_str(), e))?
            {
                let item = item.map_err(|e| WsError::io("list", dir_rel.as_str(), e))?;
                let name = item.file_name().to_string_lossy().into_owned();
                let Ok(m) = dir.symlink_metadata(&name) else {
                    continue;
                };
                entries.push(Entry {
                    path: dir_rel.join(&name),
                    name,
                    meta: meta_of(&m),
                });
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            for e in entries {
                if out.len() >= max_entries {
                    truncated = true;
                    break;
                }
                if recursive && e.meta.kind == Kind::Dir && e.name != ".git" {
                    queue.push_back(e.path.clone());
                }
                out.push(e);
            }
            if truncated {
                break;
            }
        }
        Ok((out, truncated))
    }
}

impl Root {
    /// Remove temp files left by writes that were interrupted (a crash between creating the
    /// temp file and renaming it). Only names of the form `.<name>.ultra-tmp.<pid>.<n>`
    /// whose process is gone are removed; the walk skips `.git`, `node_modules` and `target`
    /// and stops after `max_entries`. Returns how many files were removed.
    pub fn sweep_temp_files(&self, max_entries: usize) -> usize {
        if self.dry_run {
            return 0;
        }
        let Ok((entries, _)) = self.list_filtered(max_entries) else {
            return 0;
        };
        let mut removed = 0;
        for e in entries {
            if e.meta.kind != Kind::File {
                continue;
            }
            let Some(pid) = temp_file_pid(&e.name) else {
                continue;
            };
            if !crate::journal::alive(pid) && self.remove_file(&e.path).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    fn list_filtered(&self, max_entries: usize) -> Result<(Vec<Entry>, bool), WsError> {
        let mut out = Vec::new();
        let mut queue = VecDeque::from([RelPath(String::new())]);
        while let Some(dir_rel) = queue.pop_front() {
            let (entries, _) = self.list(&dir_rel, false, max_entries)?;
            for e in entries {
                if out.len() >= max_entries {
                    return Ok((out, true));
                }
                if e.meta.kind == Kind::Dir
                    && !matches!(e.name.as_str(), ".git" | "node_modules" | "target")
                {
                    queue.push_back(e.path.clone());
                }
                out.push(e);
            }
        }
        Ok((out, false))
    }
}

/// The pid in a temp file name written by [`Root::write_atomic`], if it is one.
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(".ultra-tmp.")?;
    let (pid, n) = tail.split_once('.')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// New content for `target`, fsynced in the temp file `tmp` beside it, not yet in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    pub target: RelPath,
    pub tmp: RelPath,
}

/// A file being written: bytes go to a temp file beside the target, which replaces the
/// target only on [`AtomicFile::commit`] (fsync, rename, fsync of the directory). Dropped
/// without a commit, it leaves the target untouched and removes the temp file.
pub struct AtomicFile {
    dir: Dir,
    tmp: String,
    name: String,
    file: Option<std::fs::File>,
}

impl std::io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl AtomicFile {
    /// Make the written bytes the target's content, crash-safely.
    pub fn commit(mut self) -> std::io::Result<()> {
        let Some(f) = self.file.take() else {
            return Ok(());
        };
        f.sync_all()?;
        drop(f);
        self.dir.rename(&self.tmp, &self.dir, &self.name)?;
        let mut opts = OpenOptions::new();
        opts.read(true).custom_flags(libc::O_DIRECTORY);
        self.dir.open_with(".", &opts)?.sync_all()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = self.dir.remove_file(&self.tmp);
        }
    }
}

impl Root {
    /// Open a regular file for streaming reads, with the same refusals as [`Root::read`]
    /// (special files, hard links) but no size cap.
    pub fn open_file(&self, rel: &RelPath) -> Result<std::fs::File, WsError> {
        self.open_regular(rel).map(|(f, _)| f)
    }

    /// Open a regular file (in blocking mode) with its metadata: FIFOs and devices are
    /// refused without blocking, hard-linked files unless allowlisted.
    fn open_regular(&self, rel: &RelPath) -> Result<(std::fs::File, Meta), WsError> {
        let mut opts = OpenOptions::new();
        opts.read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
        let file = self
            .dir
            .open_with(rel.os(), &opts)
            .map_err(|e| WsError::io("read", rel.as_str(), e))?;
        let m = meta_of(
            &file
                .metadata()
                .map_err(|e| WsError::io("stat", rel.as_str(), e))?,
        );
        match m.kind {
            Kind::File => {}
            Kind::Dir => {
                return Err(WsError::NotAFile {
                    path: rel.to_string(),
                    kind: "directory".into(),
                });
            }
            _ => {
                return Err(WsError::NotAFile {
                    path: rel.to_string(),
                    kind: "special file".into(),
                });
            }
        }
        if m.nlink > 1 && !self.hardlink_reads.is_match(rel.as_str().to_lowercase()) {
            return Err(WsError::NotAFile {
                path: rel.to_string(),
                kind: "hard-linked file; it may alias a file outside the workspace".into(),
            });
        }
        // O_NONBLOCK only guarded the open against FIFOs; it has no effect on a regular
        // file's reads, so it is left set (two syscalls saved per file: `grep -r` opens
        // thousands).
        Ok((file.into_std(), m))
    }

    /// Start replacing (or creating) a file; see [`AtomicFile`]. Parent directories must
    /// exist. Existing permissions are kept.
    pub fn create_atomic(&self, rel: &RelPath) -> Result<AtomicFile, WsError> {
        self.writable(rel)?;
        let (parent, name) = rel.split().ok_or_else(|| WsError::NotAFile {
            path: ".".into(),
            kind: "directory".into(),
        })?;
        let dir = self.parent_dir(&parent)?;
        let mode = match dir.symlink_metadata(name) {
            Ok(m) if m.is_dir() => {
                return Err(WsError::NotAFile {
                    path: rel.to_string(),
                    kind: "directory".into(),
                });
            }
            // The path was resolved through its links when it was named; a link here now
            // was planted since. Renaming over it would turn it into a regular file with
            // the link's mode; writing through it would skip the checks on its target.
            Ok(m) if m.file_type().is_symlink() => {
                return Err(WsError::NotAFile {
                    path: rel.to_string(),
                    kind: "symbolic link, put there since the path was opened; open the link's target to write it".into(),
                });
            }
            Ok(m) => m.permissions().mode() & 0o7777,
            Err(_) => 0o644,
        };
        let (tmp, file) = self
            .open_temp(&dir, name, mode)
            .map_err(|(_, e)| WsError::io("write", rel.as_str(), e))?;
        let file = file.into_std();
        Ok(AtomicFile {
            dir,
            tmp,
            name: name.to_string(),
            file: Some(file),
        })
    }

    /// Open a file for appending, creating it if needed; a final symlink is not followed.
    pub fn open_append(&self, rel: &RelPath) -> Result<std::fs::File, WsError> {
        self.writable(rel)?;
        let mut opts = OpenOptions::new();
        opts.append(true)
            .create(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW);
        let f = self
            .dir
            .open_with(rel.os(), &opts)
            .map_err(|e| WsError::io("append", rel.as_str(), e))?;
        Ok(f.into_std())
    }
}

#[cfg(test)]
mod sweep_tests {
    use super::*;

    #[test]
    fn recognises_temp_names() {
        assert_eq!(temp_file_pid(".app.ts.ultra-tmp.1234.7"), Some(1234));
        assert_eq!(temp_file_pid("app.ts.ultra-tmp.1234.7"), None);
        assert_eq!(temp_file_pid(".app.ts.ultra-tmp.x.7"), None);
        assert_eq!(temp_file_pid(".app.ts"), None);
    }

    #[test]
    fn sweeps_only_dead_writers_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        // pid 0x7ffffff0 does not exist; our own pid does.
        let dead = dir.path().join("src/.a.rs.ultra-tmp.2147483632.0");
        let live = dir
            .path()
            .join(format!("src/.b.rs.ultra-tmp.{}.0", std::process::id()));
        std::fs::write(&dead, "x").unwrap();
        std::fs::write(&live, "x").unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "keep").unwrap();
        let root = Root::open(dir.path(), RootOptions::default()).unwrap();
        assert_eq!(root.sweep_temp_files(1000), 1);
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(dir.path().join("src/a.rs").exists());
    }
}
