//! Buffers and the disk: taking a file's external changes into a clean buffer, flagging a
//! dirty one's conflict, reverting to the disk, snapshots, and callers' preconditions.

use ropey::Rope;
use ultra_protocol::{Source, SourceKind};

use super::{DiffSides, FileOutcome, Notice, TxnOutcome, Workspace, unified_diff};
use crate::buffer::DiskState;
use crate::error::{Stale, WsError};
use crate::history::{FileChange, TxnKind};
use crate::root::RelPath;
use crate::text;

/// Text at a moment: an open buffer's or the disk's.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub path: RelPath,
    pub rope: Rope,
    /// The buffer version, when the file is open.
    pub version: Option<u64>,
    pub hash: Option<String>,
    pub language: &'static str,
    pub dirty: bool,
}

impl Workspace {
    /// Bring an open buffer in step with its file. A clean buffer takes the disk's text (as
    /// an undoable transaction by `internal`); a dirty one whose file changed, appeared,
    /// disappeared or was replaced is left as it is and flagged
    /// ([`Buffer::disk_conflict`]). Each change is noticed once: the state seen is
    /// recorded whatever the outcome, so a file that stays in conflict, or becomes
    /// unreadable as text, is not read again on every call. Cheap when nothing changed:
    /// one `stat` (plus a read while the file's ctime is too recent to trust).
    pub fn sync_disk(&mut self, rel: &RelPath) -> Result<(), WsError> {
        self.sync_disk_with(rel, false)
    }

    /// [`Workspace::sync_disk`] that reads and hashes the content even when `stat` says
    /// nothing changed (a hash precondition on a clean buffer is checked against the disk).
    pub fn sync_disk_verified(&mut self, rel: &RelPath) -> Result<(), WsError> {
        self.sync_disk_with(rel, true)
    }

    fn sync_disk_with(&mut self, rel: &RelPath, verify: bool) -> Result<(), WsError> {
        let Some(buf) = self.buffers.get(rel) else {
            return Ok(());
        };
        let last = buf.disk.clone();
        let meta = match self.root.stat_for_change(rel) {
            Ok(m) => Some(m),
            Err(WsError::NotFound(_)) => None,
            // A directory (or anything else) now at the path: not a file the buffer holds.
            Err(WsError::NotADirectory(_)) => None,
            Err(e) => return Err(e),
        };
        let Some(meta) = meta else {
            if last.is_none() {
                return Ok(());
            }
            let Some(buf) = self.buffers.get_mut(rel) else {
                return Ok(());
            };
            buf.disk = None;
            if buf.base_hash().is_some() {
                self.notices.push(Notice::Deleted {
                    path: rel.to_string(),
                    version: buf.version,
                    dirty: buf.is_dirty(),
                });
            }
            return Ok(());
        };
        if !verify && last.as_ref().is_some_and(|d| d.unchanged(&meta)) {
            return Ok(());
        }
        let read = self.root.read(rel);
        let Some(buf) = self.buffers.get_mut(rel) else {
            return Ok(());
        };
        let (bytes, read_meta) = match read {
            Ok(x) => x,
            Err(WsError::NotFound(_)) => {
                // Gone between the stat and the read: the next look sees it absent.
                return Ok(());
            }
            Err(e) => {
                // Unreadable now (a directory, a FIFO, too large, a link out of the root):
                // remember the state so it is reported once, not read again per call.
                let seen = DiskState::new(meta, format!("unreadable: {e}"));
                let changed = last.as_ref().is_none_or(|d| d.hash != seen.hash);
                buf.disk = Some(seen);
                if changed {
                    self.notices.push(Notice::Conflict {
                        path: rel.to_string(),
                        version: buf.version,
                        reason: "unreadable",
                    });
                }
                return Ok(());
            }
        };
        let seen = DiskState::new(read_meta, text::hash_bytes(&bytes));
        let same_as_last = last.as_ref().is_some_and(|d| d.hash == seen.hash);
        if buf.base_hash() == Some(seen.hash.as_str()) {
            // The disk holds the base again (or still): nothing to take, nothing in conflict.
            buf.disk = Some(seen);
            return Ok(());
        }
        let text = if buf.is_dirty() {
            None
        } else {
            String::from_utf8(bytes).ok()
        };
        let Some(text) = text else {
            let reason = if buf.is_dirty() { "changed" } else { "notText" };
            buf.disk = Some(seen);
            if !same_as_last {
                self.notices.push(Notice::Conflict {
                    path: rel.to_string(),
                    version: buf.version,
                    reason,
                });
            }
            return Ok(());
        };
        let rep = buf.replace_all(&text);
        buf.mark_saved(Some(seen));
        let version = buf.version;
        let id = self.history.next_txn_id();
        self.history.record(
            id,
            Source::new(SourceKind::Internal),
            "reload",
            TxnKind::Edit,
            vec![FileChange::kept(rel.clone(), vec![rep])],
        );
        self.notices.push(Notice::Reloaded {
            path: rel.to_string(),
            version,
        });
        Ok(())
    }

    /// Take the disk's text into a buffer, dropping its unsaved changes, as one undoable
    /// transaction by `source` (the way out of a conflict other than saving with `force`).
    /// A file deleted on disk cannot be reverted to.
    pub fn revert(
        &mut self,
        rel: &RelPath,
        source: &Source,
        command: &str,
    ) -> Result<TxnOutcome, WsError> {
        if !self.buffers.contains_key(rel) {
            return Err(WsError::NotFound(format!("{rel} (not open)")));
        }
        let (text, disk) = self.read_disk_text(rel)?;
        let Some(buf) = self.buffers.get_mut(rel) else {
            return Err(WsError::NotFound(rel.to_string()));
        };
        let same = buf.rope.len_bytes() == text.len() && buf.rope == text.as_str();
        let mut changes = Vec::new();
        if !same {
            let rep = buf.replace_all(&text);
            changes.push(FileChange::kept(rel.clone(), vec![rep]));
        }
        buf.mark_saved(Some(disk));
        let outcome = FileOutcome::of(rel, buf, None);
        let id = self.history.next_txn_id();
        if !changes.is_empty() {
            self.history
                .record(id, source.clone(), command, TxnKind::Edit, changes);
        }
        Ok(TxnOutcome {
            txn_id: id,
            files: vec![outcome],
        })
    }

    /// The current text of a file: its buffer if open (synced with disk first), else the
    /// disk.
    pub fn snapshot(&mut self, rel: &RelPath) -> Result<Snapshot, WsError> {
        if self.buffers.contains_key(rel) {
            self.sync_disk(rel)?;
        }
        if let Some(buf) = self.buffers.get_mut(rel) {
            // Reads always carry the hash (cached per version): it is what expectedHash
            // checks against, and the read costs more than the hash anyway.
            let hash = Some(buf.hash());
            return Ok(Snapshot {
                path: rel.clone(),
                rope: buf.rope.clone(),
                version: Some(buf.version),
                hash,
                language: buf.language,
                dirty: buf.is_dirty(),
            });
        }
        let (text, disk) = self.read_disk_text(rel)?;
        Ok(Snapshot {
            path: rel.clone(),
            rope: Rope::from_str(&text),
            version: None,
            hash: Some(disk.hash),
            language: text::language_of(rel.as_str()),
            dirty: false,
        })
    }

    /// The current text of a file, as [`Workspace::current_text`] but with an open buffer
    /// first brought in step with the disk: for reads that need no hash. A buffer that
    /// cannot be synced (its file now refused) is read as it is.
    pub fn text_now(&mut self, rel: &RelPath) -> Option<String> {
        if self.buffers.contains_key(rel) {
            let _ = self.sync_disk(rel);
        }
        self.current_text(rel)
    }

    /// Check a caller's preconditions against the file's current state.
    pub fn check_expected(
        &mut self,
        rel: &RelPath,
        version: Option<u64>,
        hash: Option<&str>,
    ) -> Result<(), WsError> {
        if version.is_none() && hash.is_none() {
            return Ok(());
        }
        // A clean buffer stands for the disk: check a hash against what the disk holds
        // now, not what `stat` last suggested (a same-size write with its mtime restored).
        if hash.is_some() && self.buffers.get(rel).is_some_and(|b| !b.is_dirty()) {
            self.sync_disk_verified(rel)?;
        }
        if let Some(buf) = self.buffers.get_mut(rel) {
            let current_hash = buf.hash();
            // What the caller expected, the diff from it when it is still known, and why.
            let stale = |expected: String, diff: Option<String>, reason: &'static str| {
                WsError::Stale(Box::new(Stale {
                    path: rel.to_string(),
                    expected,
                    current_version: buf.version,
                    current_hash: current_hash.clone(),
                    disk_hash: None,
                    diff,
                    reason,
                }))
            };
            if let Some(v) = version
                && v != buf.version
            {
                let diff = buf
                    .recent_version(v)
                    .map(|old| unified_diff(old, &buf.rope, DiffSides::Stale));
                return Err(stale(format!("version {v}"), diff, "version"));
            }
            if let Some(h) = hash
                && h != current_hash
            {
                let diff = buf
                    .recent_with_hash(h)
                    .map(|old| unified_diff(&old, &buf.rope, DiffSides::Stale));
                return Err(stale(format!("hash {h}"), diff, "hash"));
            }
            return Ok(());
        }
        if let Some(h) = hash {
            let current = match self.root.read(rel) {
                Ok((bytes, _)) => text::hash_bytes(&bytes),
                Err(WsError::NotFound(_)) => String::new(),
                Err(e) => return Err(e),
            };
            if current != h {
                return Err(WsError::Stale(Box::new(Stale {
                    path: rel.to_string(),
                    expected: format!("hash {h}"),
                    current_version: 0,
                    current_hash: current,
                    disk_hash: None,
                    diff: None,
                    reason: "hash",
                })));
            }
        }
        Ok(())
    }
}
