//! Reading beneath the root: metadata, and regular files only (FIFOs, devices and
//! hard links that may alias outside files are refused).

use std::io::Read;

use cap_std::fs::{OpenOptions, OpenOptionsExt};

use super::{Kind, Meta, RelPath, Root, meta_of};
use crate::error::WsError;

impl Root {
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
            dev: st.st_dev,
        })
    }

    /// Metadata, following a final symlink (beneath the root).
    pub fn stat(&self, rel: &RelPath) -> Result<Meta, WsError> {
        self.dir
            .metadata(rel.os())
            .map(|m| meta_of(&m))
            .map_err(|e| WsError::io("stat", rel.as_str(), e))
    }

    /// What the path itself is (a symlink is one), if anything is there.
    pub fn entry_kind(&self, rel: &RelPath) -> Option<Kind> {
        self.lstat(rel).ok().map(|m| m.kind)
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

    /// Open a regular file for streaming reads, with the same refusals as [`Root::read`]
    /// (special files, hard links) but no size cap.
    pub fn open_file(&self, rel: &RelPath) -> Result<std::fs::File, WsError> {
        self.open_regular(rel).map(|(f, _)| f)
    }

    /// [`Root::open_file`], with the metadata of the file opened (not of a path that may
    /// since name another).
    pub fn open_file_meta(&self, rel: &RelPath) -> Result<(std::fs::File, Meta), WsError> {
        self.open_regular(rel)
    }

    /// Whether a file at `rel` with `nlink` links is refused as hard-linked (it may alias a
    /// file outside the root) rather than allowlisted by `security.allowHardlinkReads`.
    /// Walks use it to skip such files with one summary instead of an error each.
    pub fn refuses_hardlink(&self, rel: &RelPath, nlink: u64) -> bool {
        nlink > 1 && !self.hardlink_reads.is_match(rel.as_str().to_lowercase())
    }

    /// Open a regular file (in blocking mode) with its metadata: FIFOs and devices are
    /// refused without blocking, hard-linked files unless allowlisted.
    fn open_regular(&self, rel: &RelPath) -> Result<(std::fs::File, Meta), WsError> {
        let file = self
            .dir
            .open_with(rel.os(), &regular_options())
            .map_err(|e| WsError::io("read", rel.as_str(), e))?;
        self.check_regular(file, || rel.clone())
    }

    /// The checks of [`Root::open_file`] on a file just opened with [`regular_options`]:
    /// `rel` names it for errors and the hard-link allowlist (built only when needed, so a
    /// walk's files cost no path string).
    pub(super) fn check_regular(
        &self,
        file: cap_std::fs::File,
        rel: impl Fn() -> RelPath,
    ) -> Result<(std::fs::File, Meta), WsError> {
        let m = meta_of(
            &file
                .metadata()
                .map_err(|e| WsError::io("stat", rel().as_str(), e))?,
        );
        match m.kind {
            Kind::File => {}
            Kind::Dir => {
                return Err(WsError::NotAFile {
                    path: rel().to_string(),
                    kind: "directory".into(),
                });
            }
            _ => {
                return Err(WsError::NotAFile {
                    path: rel().to_string(),
                    kind: "special file".into(),
                });
            }
        }
        if m.nlink > 1 {
            let rel = rel();
            if self.refuses_hardlink(&rel, m.nlink) {
                return Err(WsError::HardLinked(rel.to_string()));
            }
        }
        // O_NONBLOCK only guarded the open against FIFOs; it has no effect on a regular
        // file's reads, so it is left set (two syscalls saved per file: `grep -r` opens
        // thousands).
        Ok((file.into_std(), m))
    }
}

/// How regular files are opened for reading: FIFOs and devices must not block the open.
pub(super) fn regular_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    opts
}
