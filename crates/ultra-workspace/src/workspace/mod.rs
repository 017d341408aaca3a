//! The workspace: root, open buffers, active buffer and history, kept consistent.
//!
//! Mutations go through [`Workspace::prepare`] then [`Workspace::commit`]: prepare resolves
//! every edit of a batch against the current text and fails without changing anything;
//! commit applies them all as one transaction. The caller holds the workspace lock across
//! both, so a validator can inspect the proposed text in between.
//!
//! - [`batch`](self): edits as atomic batches, undo and redo.
//! - `disk`: reconciling buffers with changes made on disk, and preconditions.
//! - `save`: crash-safe saves, several files as one through the intent journal.
//! - `files`: whole-file writes, copies, deletes and renames, with buffers following.
//! - `diff`: unified diffs for errors and previews.

mod batch;
mod diff;
mod disk;
mod files;
mod save;
mod window;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::buffer::{Buffer, DiskState};
use crate::error::WsError;
use crate::history::History;
use crate::journal;
use crate::root::{RelPath, Root, RootOptions};
use crate::text;

pub use batch::{
    EditOp, FileEdits, FileOutcome, MAX_BATCH_TEXT, Prepared, PreparedFile, TxnOutcome,
};
pub use diff::{DiffSides, file_diff, unified_diff};
pub use disk::Snapshot;
pub use files::DELETE_CHECK_LIMIT;
pub use save::Saved;
pub use window::{WINDOW_FROM_BYTES, Window, window_of};

/// Options for opening a workspace.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceOptions {
    pub root: RootOptions,
    /// Where saved batches keep their intent journal (Ultra's state directory). Without
    /// one, a batch's files are still each written atomically, but a crash between them
    /// can leave some new and some old.
    pub journal_dir: Option<std::path::PathBuf>,
}

/// Something that happened to a buffer outside the current command, for events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Notice {
    /// The file changed on disk and the clean buffer was reloaded.
    Reloaded { path: String, version: u64 },
    /// The file changed on disk and the buffer cannot follow: it has unsaved changes
    /// (`changed`), or the file is no longer UTF-8 text (`notText`) or readable
    /// (`unreadable`).
    Conflict {
        path: String,
        version: u64,
        reason: &'static str,
    },
    /// The file was deleted on disk; the buffer keeps its text (`dirty` says whether it
    /// held unsaved changes, which a save now needs `force` to write).
    Deleted {
        path: String,
        version: u64,
        dirty: bool,
    },
}

/// All open buffers of one root.
pub struct Workspace {
    root: Root,
    buffers: BTreeMap<RelPath, Buffer>,
    active: Option<RelPath>,
    history: History,
    notices: Vec<Notice>,
    journal_dir: Option<std::path::PathBuf>,
    /// Line maps of big files read in windows (see [`Workspace::read_window`]).
    line_maps: window::LineMaps,
}

impl Workspace {
    /// Open a workspace rooted at `path`.
    /// Open a workspace rooted at `path`. A saved batch that a crash interrupted after it
    /// was committed is finished first (see [`crate::journal`]).
    pub fn open(path: &Path, opts: WorkspaceOptions) -> Result<Workspace, WsError> {
        let root = Root::open(path, opts.root)?;
        if let Some(dir) = &opts.journal_dir {
            journal::recover(&root, dir);
        }
        Ok(Workspace {
            root,
            buffers: BTreeMap::new(),
            active: None,
            history: History::default(),
            notices: Vec::new(),
            journal_dir: opts.journal_dir,
            line_maps: window::LineMaps::default(),
        })
    }

    /// The confined root.
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// Notices gathered since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// The active buffer's path.
    pub fn active(&self) -> Option<&RelPath> {
        self.active.as_ref()
    }

    /// Make an open buffer active.
    pub fn set_active(&mut self, rel: &RelPath) {
        if self.buffers.contains_key(rel) {
            self.active = Some(rel.clone());
        }
    }

    /// Open buffers, by path.
    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.buffers.values()
    }

    /// The current text of a file without touching workspace state: its open buffer, else
    /// the disk (UTF-8 only). Validators compare it with the new text; the index reads it.
    pub fn current_text(&self, rel: &RelPath) -> Option<String> {
        if let Some(buf) = self.buffer(rel) {
            return Some(buf.rope.to_string());
        }
        let (bytes, _) = self.root().read(rel).ok()?;
        String::from_utf8(bytes).ok()
    }

    /// An open buffer.
    pub fn buffer(&self, rel: &RelPath) -> Option<&Buffer> {
        self.buffers.get(rel)
    }

    /// An open buffer, mutably.
    pub fn buffer_mut(&mut self, rel: &RelPath) -> Option<&mut Buffer> {
        self.buffers.get_mut(rel)
    }

    /// The transaction log.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Resolve a path, skipping the symlink walk when it names an open buffer: a buffer's
    /// path was resolved when it was opened, and every operation on it still goes through
    /// the root handle, so it cannot leave the root even if a link is planted later.
    fn resolve_fast(&self, user: &str) -> Result<RelPath, WsError> {
        match self.root.lexical(user) {
            Ok(rel) if self.buffers.contains_key(&rel) => Ok(rel),
            Ok(_) => self.root.resolve(user, true),
            Err(e) => Err(e),
        }
    }

    /// Resolve a path to read: symlinks followed beneath the root; restricted paths refused
    /// for non-human callers.
    pub fn resolve_read(&self, user: &str, human: bool) -> Result<RelPath, WsError> {
        let rel = self.resolve_fast(user)?;
        self.root.check_readable(&rel, human)?;
        Ok(rel)
    }

    /// Resolve a path to write through (symlinks followed beneath the root).
    pub fn resolve_write(&self, user: &str, human: bool) -> Result<RelPath, WsError> {
        let rel = self.resolve_fast(user)?;
        self.root.check_writable(&rel, human)?;
        Ok(rel)
    }

    /// Resolve a path naming a directory entry itself (delete, rename): the final
    /// component is not followed, so a symlink is acted on, not its target.
    pub fn resolve_entry(&self, user: &str, human: bool) -> Result<RelPath, WsError> {
        let rel = self.root.resolve(user, false)?;
        self.root.check_writable(&rel, human)?;
        Ok(rel)
    }

    /// The buffer for `rel`, or `NoActiveBuffer`-style errors for callers that need one.
    pub fn require_active(&self) -> Result<RelPath, WsError> {
        self.active.clone().ok_or(WsError::NoActiveBuffer)
    }

    fn read_disk_text(&self, rel: &RelPath) -> Result<(String, DiskState), WsError> {
        let (bytes, meta) = self.root.read(rel)?;
        let hash = text::hash_bytes(&bytes);
        let text = String::from_utf8(bytes).map_err(|_| WsError::Binary(rel.to_string()))?;
        Ok((text, DiskState::new(meta, hash)))
    }

    /// Open a buffer (or return the open one, synced with the disk). Returns whether it was
    /// newly opened.
    pub fn open_buffer(&mut self, rel: &RelPath) -> Result<bool, WsError> {
        if self.buffers.contains_key(rel) {
            self.sync_disk(rel)?;
            return Ok(false);
        }
        let (text, disk) = self.read_disk_text(rel)?;
        self.buffers
            .insert(rel.clone(), Buffer::new(rel.clone(), &text, Some(disk)));
        Ok(true)
    }

    /// Open a buffer for a file that does not exist yet (saved on first save).
    pub fn open_new_buffer(&mut self, rel: &RelPath, content: &str) -> Result<(), WsError> {
        if self.buffers.contains_key(rel) || self.root.exists(rel) {
            return Err(WsError::Exists(rel.to_string()));
        }
        let mut buf = Buffer::new(rel.clone(), content, None);
        if content.is_empty() {
            // Nothing typed yet is nothing to lose: clean until edited.
            buf.mark_saved(None);
        }
        self.buffers.insert(rel.clone(), buf);
        Ok(())
    }

    /// Close a buffer. Refuses to drop unsaved changes unless `force`. Its undo history goes
    /// with it.
    pub fn close(&mut self, rel: &RelPath, force: bool) -> Result<(), WsError> {
        let Some(buf) = self.buffers.get(rel) else {
            return Err(WsError::NotFound(format!("{rel} (not open)")));
        };
        if buf.is_dirty() && !force {
            return Err(WsError::Dirty(rel.to_string()));
        }
        self.drop_buffer(rel);
        Ok(())
    }

    /// Forget an open buffer and its undo history; the newest remaining buffer becomes
    /// active if it was.
    fn drop_buffer(&mut self, rel: &RelPath) {
        if self.buffers.contains_key(rel) {
            self.history.forget(rel);
            self.close_removed(rel);
        }
    }

    /// Close the buffer of a file a transaction removed, keeping the history that can
    /// bring it back; the newest remaining buffer becomes active if it was.
    fn close_removed(&mut self, rel: &RelPath) {
        if self.buffers.remove(rel).is_some() && self.active.as_ref() == Some(rel) {
            self.active = self.buffers.keys().next_back().cloned();
        }
    }
}
