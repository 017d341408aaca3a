//! Crash-safe writes: new content goes to a fsynced temp file beside the target
//! (`.<name>.ultra-tmp.<pid>.<n>`, which the sweep recognises) and is renamed over it,
//! then the directory is fsynced; a batch stages every file before it publishes any.

use std::io::Write;
use std::sync::atomic::Ordering;

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, PermissionsExt};

use super::{Meta, RelPath, Root};
use crate::error::WsError;

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

/// The parent and name of a file to write; the root itself is a directory.
pub(super) fn split_file(rel: &RelPath) -> Result<(RelPath, &str), WsError> {
    rel.split().ok_or_else(|| WsError::NotAFile {
        path: ".".into(),
        kind: "directory".into(),
    })
}

/// The permission bits a file replacing `name` in `dir` gets: the old file's, or 0o644
/// for a new one. A directory, or a link planted since the path was resolved, is refused.
fn replace_mode(dir: &Dir, name: &str, rel: &RelPath) -> Result<u32, WsError> {
    match dir.symlink_metadata(name) {
        Ok(m) if m.is_dir() => Err(WsError::NotAFile {
            path: rel.to_string(),
            kind: "directory".into(),
        }),
        // The path was resolved through its links when it was named; a link here now
        // was planted since. Renaming over it would turn it into a regular file with
        // the link's mode; writing through it would skip the checks on its target.
        Ok(m) if m.file_type().is_symlink() => Err(WsError::NotAFile {
            path: rel.to_string(),
            kind: "symbolic link, put there since the path was opened; open the link's target to write it".into(),
        }),
        Ok(m) => Ok(m.permissions().mode() & 0o7777),
        Err(_) => Ok(0o644),
    }
}

impl Root {
    /// The directory a file is written in.
    pub(super) fn parent_dir(&self, parent: &RelPath) -> Result<Dir, WsError> {
        self.dir_at(parent, "open directory")
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

    pub(super) fn fsync_dir(dir: &Dir, path: &str) -> Result<(), WsError> {
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
        let (parent, name) = split_file(rel)?;
        let dir = self.parent_dir(&parent)?;
        let mode = replace_mode(&dir, name, rel)?;
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
        let (parent, name) = split_file(rel)?;
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
        let (parent, name) = split_file(rel)?;
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

    /// Start replacing (or creating) a file; see [`AtomicFile`]. Parent directories must
    /// exist. Existing permissions are kept.
    pub fn create_atomic(&self, rel: &RelPath) -> Result<AtomicFile, WsError> {
        self.writable(rel)?;
        let (parent, name) = split_file(rel)?;
        let dir = self.parent_dir(&parent)?;
        let mode = replace_mode(&dir, name, rel)?;
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
