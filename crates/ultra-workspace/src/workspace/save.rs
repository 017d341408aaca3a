//! Saving buffers crash-safely: one file by temp file and rename, several as one batch
//! through the intent journal ([`crate::journal`]), never over a disk that moved on unless
//! forced.

use schemars::JsonSchema;
use serde::Serialize;

use super::Workspace;
use crate::buffer::{Buffer, DiskState};
use crate::error::{Stale, WsError};
use crate::journal;
use crate::root::RelPath;

/// The result of a save.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    pub path: String,
    pub version: u64,
    pub hash: String,
    pub bytes: u64,
}

impl Workspace {
    /// Refuse (as a save would without `force`) when an open buffer's file moved on under
    /// it; for callers that must check before they change anything. Reads the disk.
    pub fn check_saveable(&mut self, rel: &RelPath) -> Result<(), WsError> {
        self.sync_disk_verified(rel)?;
        match self.buffers.get_mut(rel) {
            Some(buf) if buf.disk_conflict() => Err(conflict_error(buf)),
            _ => Ok(()),
        }
    }

    /// Refuse to save a buffer that is not open, or (unless `force`) whose file moved on
    /// under it. Reads the disk, not just its stat: a save is the one step that can
    /// destroy someone else's change, and it costs two fsyncs anyway.
    fn ready_to_save(&mut self, rel: &RelPath, force: bool) -> Result<(), WsError> {
        if !self.buffers.contains_key(rel) {
            return Err(WsError::NotFound(format!("{rel} (not open)")));
        }
        self.sync_disk_verified(rel)?;
        match self.buffers.get_mut(rel) {
            Some(buf) if buf.disk_conflict() && !force => Err(conflict_error(buf)),
            _ => Ok(()),
        }
    }

    /// Write a buffer to disk crash-safely. Refuses when the file changed on disk since it
    /// was read, unless `force`.
    pub fn save(&mut self, rel: &RelPath, force: bool) -> Result<Saved, WsError> {
        self.ready_to_save(rel, force)?;
        let Some(buf) = self.buffers.get_mut(rel) else {
            return Err(WsError::NotFound(rel.to_string()));
        };
        if self.root.is_dry_run() {
            // Nothing is written: the buffer stays dirty, so the run's diff shows it.
            return Ok(Saved {
                path: rel.to_string(),
                version: buf.version,
                hash: buf.hash(),
                bytes: buf.rope.len_bytes() as u64,
            });
        }
        let bytes = buf.rope.to_string().into_bytes();
        if buf.disk.is_none() {
            self.root.create_parents(rel)?;
        }
        let meta = self.root.write_atomic(rel, &bytes)?;
        let Some(buf) = self.buffers.get_mut(rel) else {
            return Err(WsError::NotFound(rel.to_string()));
        };
        let hash = buf.hash();
        buf.mark_saved(Some(DiskState::new(meta, hash.clone())));
        Ok(Saved {
            path: rel.to_string(),
            version: buf.version,
            hash,
            bytes: bytes.len() as u64,
        })
    }

    /// Save several buffers as one: every file's precondition is checked (the disk read)
    /// before any is written, every new content is staged in a fsynced temp file, an
    /// intent journal naming them is made durable, and only then are they put in place.
    /// A crash before the journal leaves every file old (the temp files are swept); after
    /// it, the next open finishes the batch, so every file is new.
    pub fn save_many(&mut self, rels: &[RelPath], force: bool) -> Result<Vec<Saved>, WsError> {
        self.save_and_remove(rels, &[], force)
    }

    /// [`Workspace::save_many`] that also deletes the files of `removed` (open buffers a
    /// transaction emptied to remove them), in the same journaled batch: after a crash
    /// every file is new and every removed file gone, or nothing happened. Their buffers
    /// close; their undo history stays, so the transaction that removed them can be
    /// undone.
    pub fn save_and_remove(
        &mut self,
        rels: &[RelPath],
        removed: &[RelPath],
        force: bool,
    ) -> Result<Vec<Saved>, WsError> {
        if rels.len() < 2 && removed.is_empty() {
            return rels.iter().map(|r| self.save(r, force)).collect();
        }
        for rel in rels.iter().chain(removed) {
            self.ready_to_save(rel, force)?;
        }
        if self.root.is_dry_run() {
            return rels.iter().map(|r| self.save(r, force)).collect();
        }
        let mut staged = Vec::with_capacity(rels.len());
        let mut hashes = Vec::with_capacity(rels.len());
        for rel in rels {
            let Some(buf) = self.buffers.get_mut(rel) else {
                continue;
            };
            let bytes = buf.rope.to_string().into_bytes();
            hashes.push((buf.hash(), bytes.len() as u64));
            let missing = buf.disk.is_none();
            let st = (|| {
                if missing {
                    self.root.create_parents(rel)?;
                }
                self.root.stage(rel, &bytes)
            })();
            match st {
                Ok(st) => staged.push(st),
                Err(e) => {
                    for st in &staged {
                        self.root.discard(st);
                    }
                    return Err(e);
                }
            }
        }
        // A buffer never saved has nothing on disk to delete.
        let on_disk: Vec<RelPath> = removed
            .iter()
            .filter(|r| self.buffers.get(*r).is_some_and(|b| b.disk.is_some()))
            .cloned()
            .collect();
        let intent = match &self.journal_dir {
            Some(dir) => match journal::write(dir, &self.root, &staged, &on_disk) {
                Ok(j) => Some(j),
                Err(e) => {
                    for st in &staged {
                        self.root.discard(st);
                    }
                    return Err(e);
                }
            },
            None => None,
        };
        let mut out = Vec::with_capacity(staged.len());
        let mut failed = None;
        for (st, (hash, bytes)) in staged.iter().zip(hashes) {
            match self.root.publish(st) {
                Ok(meta) => {
                    if let Some(buf) = self.buffers.get_mut(&st.target) {
                        buf.mark_saved(Some(DiskState::new(meta, hash.clone())));
                        out.push(Saved {
                            path: st.target.to_string(),
                            version: buf.version,
                            hash,
                            bytes,
                        });
                    }
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        // A file that could not be put in place may be where a removed file's text went
        // (a move): nothing is removed then, so that text is still on disk.
        if let Some(e) = failed {
            if let Some(j) = intent {
                journal::done(&j);
            }
            return Err(e);
        }
        for rel in &on_disk {
            if let Err(e) = self.root.remove_file(rel)
                && self.root.exists(rel)
            {
                failed.get_or_insert(e);
            }
        }
        for rel in removed {
            self.close_removed(rel);
        }
        if let Some(j) = intent {
            journal::done(&j);
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

/// The refusal to save a buffer over a disk that moved on: both hashes, and the ways out.
fn conflict_error(buf: &mut Buffer) -> WsError {
    let (reason, disk_hash) = match &buf.disk {
        None => ("deletedOnDisk", None),
        Some(d) if d.hash.starts_with("unreadable") => ("unreadableOnDisk", None),
        Some(d) => ("changedOnDisk", Some(d.hash.clone())),
    };
    WsError::Stale(Box::new(Stale {
        path: buf.path.to_string(),
        expected: "the file as last read".into(),
        current_version: buf.version,
        current_hash: buf.hash(),
        disk_hash,
        diff: None,
        reason,
    }))
}
