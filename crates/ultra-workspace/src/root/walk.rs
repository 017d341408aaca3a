//! Walks beneath the root: a directory is opened once, listed, and what it holds is opened
//! relative to it, one path component per open instead of the whole path from the root
//! again (`grep -r` over a large tree opens tens of thousands of files).

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

use super::read::regular_options;
use super::{Kind, Meta, RelPath, Root};
use crate::error::WsError;

/// A directory's entries: names (UTF-8 only) in byte order, with their kinds.
pub type Listing = Vec<(String, Kind)>;

/// A directory opened beneath the root for a walk.
pub struct WalkDir {
    dir: Dir,
    rel: RelPath,
}

impl Root {
    /// Open the directory at `rel` (an already confined path) for a walk, with its entries.
    pub fn walk_dir(&self, rel: &RelPath) -> Result<(WalkDir, Listing), WsError> {
        self.walk_dir_unlisted(rel)?.listed()
    }

    /// Open the directory at `rel` (an already confined path) for a walk whose entries are
    /// known already: to open what is in it.
    pub fn walk_dir_unlisted(&self, rel: &RelPath) -> Result<WalkDir, WsError> {
        // Always a fresh open, even of the root: a duplicate of the root handle would share
        // its directory offset with every other listing of the root.
        let path = if rel.as_str().is_empty() {
            "."
        } else {
            rel.as_str()
        };
        let dir = open_listable(&self.dir, path, false)
            .map_err(|e| WsError::io("list", rel.as_str(), e))?;
        Ok(WalkDir {
            dir,
            rel: rel.clone(),
        })
    }

    /// Open the regular file `name` in `dir`, with the checks of [`Root::open_file`]
    /// (special files and refused hard links are errors).
    pub fn open_file_in(
        &self,
        dir: &WalkDir,
        name: &str,
    ) -> Result<(std::fs::File, Meta), WsError> {
        let file = dir
            .dir
            .open_with(name, &regular_options())
            .map_err(|e| WsError::io("read", dir.rel.join(name).as_str(), e))?;
        self.check_regular(file, || dir.rel.join(name))
    }
}

impl WalkDir {
    /// Where this directory is, relative to the root.
    pub fn rel(&self) -> &RelPath {
        &self.rel
    }

    /// This directory with its entries.
    fn listed(self) -> Result<(WalkDir, Listing), WsError> {
        let entries = self.entries()?;
        Ok((self, entries))
    }

    /// The entries, sorted by name (byte order, as `ls` under `LC_ALL=C`), with the kinds
    /// the directory itself reports: no `stat` per entry unless the file system does not
    /// say. Names that are not UTF-8 are left out (no workspace path can name them).
    /// Listed once, when the directory is opened: the listing reads the handle's offset.
    fn entries(&self) -> Result<Listing, WsError> {
        use rustix::fs::{FileType, RawDir};
        let list_err = |e: std::io::Error| WsError::io("list", self.rel.as_str(), e);
        // getdents on the directory's own descriptor: it was opened for this listing, so
        // its offset starts at 0 and nothing else reads it (no second open of ".").
        let mut buf = Vec::with_capacity(32 * 1024);
        let mut raw = RawDir::new(&self.dir, buf.spare_capacity_mut());
        let mut out = Vec::new();
        while let Some(entry) = raw.next() {
            let entry = entry.map_err(|e| list_err(e.into()))?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            let kind = match entry.file_type() {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Symlink => Kind::Symlink,
                // DT_UNKNOWN: ask the file system.
                FileType::Unknown => match self.dir.symlink_metadata(name) {
                    Ok(m) if m.is_symlink() => Kind::Symlink,
                    Ok(m) if m.is_dir() => Kind::Dir,
                    Ok(m) if m.is_file() => Kind::File,
                    _ => Kind::Other,
                },
                _ => Kind::Other,
            };
            out.push((name.to_string(), kind));
        }
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Open the subdirectory `name` with its entries, never through a symlink (one swapped
    /// in since the listing is refused, so a walk cannot be sent round a loop).
    pub fn open_dir(&self, name: &str) -> Result<(WalkDir, Listing), WsError> {
        self.open_dir_unlisted(name)?.listed()
    }

    /// Open the subdirectory `name` as [`WalkDir::open_dir`] does, when its entries are
    /// known already.
    pub fn open_dir_unlisted(&self, name: &str) -> Result<WalkDir, WsError> {
        let rel = self.rel.join(name);
        let dir = open_listable(&self.dir, name, true)
            .map_err(|e| WsError::io("list", rel.as_str(), e))?;
        Ok(WalkDir { dir, rel })
    }
}

/// Open a directory beneath `base` to be listed (cap-std's own `open_dir` gives an `O_PATH`
/// handle, which cannot be read).
fn open_listable(base: &Dir, path: &str, nofollow: bool) -> std::io::Result<Dir> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;
    let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOCTTY | OFlags::CLOEXEC;
    if nofollow {
        flags |= OFlags::NOFOLLOW;
    }
    // One openat2 confined beneath `base`, as cap-std resolves, where cap-std's open with
    // custom flags takes three calls (`grep -r` opens thousands of directories). Where the
    // kernel lacks it, asks to retry (a rename raced) or finds an escape, cap-std decides.
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(base, path, flags, Mode::empty(), resolve) {
        Ok(fd) => return Ok(Dir::from_std_file(std::fs::File::from(fd))),
        Err(Errno::NOSYS | Errno::AGAIN | Errno::XDEV | Errno::PERM) => {}
        Err(e) => return Err(e.into()),
    }
    let mut opts = OpenOptions::new();
    let mut flags = libc::O_DIRECTORY | libc::O_NOCTTY;
    if nofollow {
        flags |= libc::O_NOFOLLOW;
    }
    opts.read(true).custom_flags(flags);
    Ok(Dir::from_std_file(base.open_with(path, &opts)?.into_std()))
}
