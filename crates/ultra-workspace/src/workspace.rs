//! The workspace: root, open buffers, active buffer and history, kept consistent.
//!
//! Mutations go through [`Workspace::prepare`] then [`Workspace::commit`]: prepare resolves
//! every edit of a batch against the current text and fails without changing anything;
//! commit applies them all as one transaction. The caller holds the workspace lock across
//! both, so a validator can inspect the proposed text in between.

use std::collections::BTreeMap;
use std::path::Path;

use ropey::Rope;
use schemars::JsonSchema;
use serde::Serialize;
use ultra_protocol::{PositionEncoding, Range, Source, SourceKind};

use crate::anchor;
use crate::buffer::{Buffer, DiskState};
use crate::error::{Stale, WsError};
use crate::history::{FileChange, Filter, History, Replacement, TxnKind};
use crate::journal;
use crate::root::{Kind, RelPath, Root, RootOptions};
use crate::text;

/// How many entries [`Workspace::delete_dir`] checks before it refuses a recursive delete by
/// a program or agent.
pub const DELETE_CHECK_LIMIT: usize = 100_000;

/// Most bytes of new text one batch may insert. Requests are small, but a replace-all of
/// a one-byte `old` with a long `new` multiplies: the batch is refused before it is built
/// rather than growing the server until an allocation fails.
pub const MAX_BATCH_TEXT: usize = 256 << 20;

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

/// One edit inside a batch. Positions and anchors refer to the text before the batch: all
/// edits of a file apply simultaneously and may not overlap.
#[derive(Debug, Clone)]
pub enum EditOp {
    /// Replace a range (0-based positions, `character` counted in `encoding`).
    Range {
        range: Range,
        text: String,
        encoding: PositionEncoding,
    },
    /// Replace chars `start..end` (offsets computed by Ultra itself, e.g. from selections).
    Chars {
        start: usize,
        end: usize,
        text: String,
    },
    /// Replace whole lines `start..=end` (1-based, inclusive); `end = start - 1` inserts
    /// before `start`.
    Lines {
        start: usize,
        end: usize,
        text: String,
    },
    /// Replace anchor text. Zero or several matches fail (unless `replace_all`).
    Anchor {
        old: String,
        new: String,
        replace_all: bool,
        whitespace: bool,
    },
    /// Replace the whole text.
    All { text: String },
}

/// The edits for one file, with optional preconditions.
#[derive(Debug, Clone)]
pub struct FileEdits {
    pub path: RelPath,
    pub expected_version: Option<u64>,
    pub expected_hash: Option<String>,
    pub edits: Vec<EditOp>,
}

/// A resolved batch, ready to commit.
#[derive(Debug)]
pub struct Prepared {
    pub files: Vec<PreparedFile>,
}

/// A resolved file of a batch.
#[derive(Debug)]
pub struct PreparedFile {
    pub path: RelPath,
    pub reps: Vec<Replacement>,
    /// For each anchor edit, the matching level used (`exact`, `lineEndings`, `trailingWhitespace`,
    /// `indentation`).
    pub match_levels: Vec<&'static str>,
    /// How many occurrences anchor edits replaced.
    pub replaced: usize,
}

/// The result of a committed transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TxnOutcome {
    pub txn_id: u64,
    pub files: Vec<FileOutcome>,
}

/// A file after a transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileOutcome {
    pub path: String,
    pub version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    pub line_count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_levels: Vec<&'static str>,
    pub replaced: usize,
    /// The changed lines (first, last), 1-based, after the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_lines: Option<(usize, usize)>,
}

/// The result of a save.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    pub path: String,
    pub version: u64,
    pub hash: String,
    pub bytes: u64,
}

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

/// All open buffers of one root.
pub struct Workspace {
    root: Root,
    buffers: BTreeMap<RelPath, Buffer>,
    active: Option<RelPath>,
    history: History,
    notices: Vec<Notice>,
    journal_dir: Option<std::path::PathBuf>,
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
            vec![FileChange {
                path: rel.clone(),
                reps: vec![rep],
            }],
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
            changes.push(FileChange {
                path: rel.clone(),
                reps: vec![rep],
            });
        }
        buf.mark_saved(Some(disk));
        let version = buf.version;
        let outcome = FileOutcome {
            path: rel.to_string(),
            version,
            hash: buf.cheap_hash(),
            line_count: buf.rope.len_lines(),
            match_levels: vec![],
            replaced: 0,
            changed_lines: None,
        };
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
            if let Some(v) = version
                && v != buf.version
            {
                let diff = buf
                    .recent_version(v)
                    .map(|old| unified_diff(old, &buf.rope));
                return Err(WsError::Stale(Box::new(Stale {
                    path: rel.to_string(),
                    expected: format!("version {v}"),
                    current_version: buf.version,
                    current_hash,
                    disk_hash: None,
                    diff,
                    reason: "version",
                })));
            }
            if let Some(h) = hash
                && h != current_hash
            {
                let diff = buf
                    .recent_with_hash(h)
                    .map(|old| unified_diff(&old, &buf.rope));
                return Err(WsError::Stale(Box::new(Stale {
                    path: rel.to_string(),
                    expected: format!("hash {h}"),
                    current_version: buf.version,
                    current_hash,
                    disk_hash: None,
                    diff,
                    reason: "hash",
                })));
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

    /// Resolve a batch against the current text. Opens the buffers it needs; changes no
    /// text. Fails on stale preconditions, bad positions, missing or ambiguous anchors and
    /// overlapping edits.
    pub fn prepare(&mut self, files: Vec<FileEdits>) -> Result<Prepared, WsError> {
        let mut out = Vec::with_capacity(files.len());
        let mut inserted = 0usize;
        let too_large = |path: &RelPath, size: usize| WsError::EditTooLarge {
            path: path.to_string(),
            size: size as u64,
            limit: MAX_BATCH_TEXT as u64,
        };
        for fe in files {
            if out.iter().any(|p: &PreparedFile| p.path == fe.path) {
                return Err(WsError::InvalidPosition(format!(
                    "{} appears twice in the batch; put all its edits in one entry",
                    fe.path
                )));
            }
            self.open_buffer(&fe.path)?;
            self.check_expected(&fe.path, fe.expected_version, fe.expected_hash.as_deref())?;
            let Some(buf) = self.buffers.get(&fe.path) else {
                return Err(WsError::NotFound(fe.path.to_string()));
            };
            let rope = &buf.rope;
            let mut spans: Vec<(usize, usize, String, usize)> = Vec::new(); // start, end, text, edit index
            let mut levels = Vec::new();
            let mut replaced = 0;
            // New text multiplied by replace-all anchors in this file so far.
            let mut anchored = 0usize;
            for (i, op) in fe.edits.into_iter().enumerate() {
                match op {
                    EditOp::Chars {
                        start,
                        end,
                        text: t,
                    } => {
                        if start > end || end > rope.len_chars() {
                            return Err(WsError::InvalidPosition(format!(
                                "edit {i}: chars {start}..{end} are outside the buffer"
                            )));
                        }
                        spans.push((start, end, t, i));
                    }
                    EditOp::Range {
                        range,
                        text: t,
                        encoding,
                    } => {
                        let s = text::to_char(rope, range.start, encoding)?;
                        // An insertion (an empty range) needs one position lookup, not two.
                        let e = if range.end == range.start {
                            s
                        } else {
                            text::to_char(rope, range.end, encoding)?
                        };
                        if e < s {
                            return Err(WsError::InvalidPosition(format!(
                                "edit {i}: range end is before its start"
                            )));
                        }
                        spans.push((s, e, t, i));
                    }
                    EditOp::Lines {
                        start,
                        end,
                        text: t,
                    } => {
                        let (s, e) = line_span(rope, start, end)
                            .map_err(|m| WsError::InvalidPosition(format!("edit {i}: {m}")))?;
                        spans.push((s, e, anchor::fit_eol_at(rope, s, e, &t), i));
                    }
                    EditOp::All { text: t } => {
                        spans.push((0, rope.len_chars(), anchor::fit_whole(rope, &t), i))
                    }
                    EditOp::Anchor {
                        old,
                        new,
                        replace_all,
                        whitespace,
                    } => {
                        let so_far = inserted + anchored;
                        let room = MAX_BATCH_TEXT.saturating_sub(so_far);
                        let (matches, level) = anchor::find(rope, &old, &new, whitespace, room)
                            .map_err(|t| too_large(&fe.path, so_far + t.bytes))?;
                        anchored += matches.iter().map(|f| f.new.len()).sum::<usize>();
                        match matches.len() {
                            0 => {
                                return Err(WsError::NoMatch {
                                    path: fe.path.to_string(),
                                    needle: old.chars().take(200).collect(),
                                    closest: closest_lines(rope, &old),
                                });
                            }
                            1 => {}
                            n if !replace_all => {
                                return Err(WsError::Ambiguous {
                                    path: fe.path.to_string(),
                                    needle: old.chars().take(200).collect(),
                                    count: n,
                                    lines: matches
                                        .iter()
                                        .take(50)
                                        .map(|f| rope.char_to_line(f.start) + 1)
                                        .collect(),
                                });
                            }
                            _ => {}
                        }
                        replaced += matches.len();
                        levels.push(level);
                        for f in matches {
                            spans.push((f.start, f.end, f.new, i));
                        }
                    }
                }
            }
            inserted += spans.iter().map(|(_, _, t, _)| t.len()).sum::<usize>();
            if inserted > MAX_BATCH_TEXT {
                return Err(too_large(&fe.path, inserted));
            }
            spans.sort_by_key(|(s, e, _, _)| (*s, *e));
            for w in spans.windows(2) {
                if w[1].0 < w[0].1 || (w[1].0 == w[0].0 && w[0].0 == w[0].1 && w[1].0 == w[1].1) {
                    return Err(WsError::InvalidPosition(format!(
                        "edits {} and {} overlap in {}; edits in one batch refer to the text before it and may not overlap",
                        w[0].3, w[1].3, fe.path
                    )));
                }
            }
            let reps = spans
                .into_iter()
                .map(|(s, e, t, _)| Replacement::new(s, rope.slice(s..e).to_string(), t))
                .filter(|r| r.old != r.new)
                .collect();
            out.push(PreparedFile {
                path: fe.path,
                reps,
                match_levels: levels,
                replaced,
            });
        }
        Ok(Prepared { files: out })
    }

    /// The full text a prepared file would have after commit (for validators).
    pub fn preview(&self, file: &PreparedFile) -> String {
        let Some(buf) = self.buffers.get(&file.path) else {
            return String::new();
        };
        let mut rope = buf.rope.clone();
        for r in file.reps.iter().rev() {
            rope.remove(r.start..r.start + r.old_chars);
            rope.insert(r.start, &r.new);
        }
        rope.to_string()
    }

    /// Apply a prepared batch as one transaction.
    pub fn commit(&mut self, prepared: Prepared, source: &Source, command: &str) -> TxnOutcome {
        self.commit_as(prepared, source, command, false)
    }

    /// [`Workspace::commit`] for typing: the edit joins the author's newest transaction
    /// when it continues that run of typing ([`History::extend_typing`]), so one undo takes
    /// a word back rather than a character.
    pub fn commit_typing(
        &mut self,
        prepared: Prepared,
        source: &Source,
        command: &str,
    ) -> TxnOutcome {
        self.commit_as(prepared, source, command, true)
    }

    fn commit_as(
        &mut self,
        prepared: Prepared,
        source: &Source,
        command: &str,
        typing: bool,
    ) -> TxnOutcome {
        let mut files = Vec::new();
        let mut changes = Vec::new();
        for pf in prepared.files {
            let Some(buf) = self.buffers.get_mut(&pf.path) else {
                continue;
            };
            if !pf.reps.is_empty() {
                buf.apply(&pf.reps);
            }
            let changed_lines = changed_lines(&pf.reps, buf);
            files.push(FileOutcome {
                path: pf.path.to_string(),
                version: buf.version,
                hash: buf.cheap_hash(),
                line_count: buf.rope.len_lines(),
                match_levels: pf.match_levels,
                replaced: pf.replaced,
                changed_lines,
            });
            if !pf.reps.is_empty() {
                changes.push(FileChange {
                    path: pf.path,
                    reps: pf.reps,
                });
            }
        }
        let joined = typing
            .then(|| self.history.extend_typing(source, command, &changes))
            .flatten();
        let txn_id = match joined {
            Some(id) => id,
            None => {
                let id = self.history.next_txn_id();
                if !changes.is_empty() {
                    self.history
                        .record(id, source.clone(), command, TxnKind::Edit, changes);
                }
                id
            }
        };
        TxnOutcome { txn_id, files }
    }

    fn apply_changes(&mut self, changes: &[FileChange]) -> Result<Vec<FileOutcome>, WsError> {
        for c in changes {
            self.open_buffer(&c.path)?;
            let Some(buf) = self.buffers.get(&c.path) else {
                return Err(WsError::NotFound(c.path.to_string()));
            };
            for r in &c.reps {
                let end = r.start + r.old_chars;
                if end > buf.rope.len_chars() || buf.rope.slice(r.start..end) != r.old.as_str() {
                    return Err(WsError::UndoConflict {
                        action: "undo",
                        txn: 0,
                        path: c.path.to_string(),
                    });
                }
            }
        }
        let mut out = Vec::new();
        for c in changes {
            let Some(buf) = self.buffers.get_mut(&c.path) else {
                continue;
            };
            buf.apply(&c.reps);
            let changed_lines = changed_lines(&c.reps, buf);
            out.push(FileOutcome {
                path: c.path.to_string(),
                version: buf.version,
                hash: buf.cheap_hash(),
                line_count: buf.rope.len_lines(),
                match_levels: vec![],
                replaced: 0,
                changed_lines,
            });
        }
        Ok(out)
    }

    /// Undo the newest live transaction matching `filter`.
    pub fn undo(&mut self, filter: &Filter) -> Result<TxnOutcome, WsError> {
        let plan = self.history.plan_undo(filter)?;
        let files = self.apply_changes(&plan.changes)?;
        let txn_id = plan.txn_id;
        self.history.commit_undo(plan);
        Ok(TxnOutcome { txn_id, files })
    }

    /// Redo the newest undone transaction matching `filter`.
    pub fn redo(&mut self, filter: &Filter) -> Result<TxnOutcome, WsError> {
        let plan = self.history.plan_redo(filter)?;
        let files = self.apply_changes(&plan.changes)?;
        let txn_id = plan.txn_id;
        self.history.commit_redo(plan);
        Ok(TxnOutcome { txn_id, files })
    }

    /// Refuse (as a save would without `force`) when an open buffer's file moved on under
    /// it; for callers that must check before they change anything. Reads the disk.
    pub fn check_saveable(&mut self, rel: &RelPath) -> Result<(), WsError> {
        self.sync_disk_verified(rel)?;
        match self.buffers.get_mut(rel) {
            Some(buf) if buf.disk_conflict() => Err(conflict_error(buf)),
            _ => Ok(()),
        }
    }

    /// Write a buffer to disk crash-safely. Refuses when the file changed on disk since it
    /// was read, unless `force`.
    pub fn save(&mut self, rel: &RelPath, force: bool) -> Result<Saved, WsError> {
        if !self.buffers.contains_key(rel) {
            return Err(WsError::NotFound(format!("{rel} (not open)")));
        }
        // Read the disk, not just its stat: a save is the one step that can destroy
        // someone else's change, and it costs two fsyncs anyway.
        self.sync_disk_verified(rel)?;
        let Some(buf) = self.buffers.get_mut(rel) else {
            return Err(WsError::NotFound(rel.to_string()));
        };
        if buf.disk_conflict() && !force {
            return Err(conflict_error(buf));
        }
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
        if rels.len() < 2 {
            return rels.iter().map(|r| self.save(r, force)).collect();
        }
        for rel in rels {
            if !self.buffers.contains_key(rel) {
                return Err(WsError::NotFound(format!("{rel} (not open)")));
            }
            self.sync_disk_verified(rel)?;
            if let Some(buf) = self.buffers.get_mut(rel)
                && buf.disk_conflict()
                && !force
            {
                return Err(conflict_error(buf));
            }
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
        let intent = match &self.journal_dir {
            Some(dir) => match journal::write(dir, &self.root, &staged) {
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
        if let Some(j) = intent {
            journal::done(&j);
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
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
        self.buffers.remove(rel);
        self.history.forget(rel);
        if self.active.as_ref() == Some(rel) {
            self.active = self.buffers.keys().next_back().cloned();
        }
        Ok(())
    }

    /// Replace a file's whole content. An open buffer takes the change as an undoable
    /// transaction and is saved; a closed file is written atomically.
    pub fn write_file(
        &mut self,
        rel: &RelPath,
        content: &str,
        source: &Source,
        command: &str,
    ) -> Result<Saved, WsError> {
        self.write_bytes(rel, content.as_bytes(), source, command)
    }

    /// [`Workspace::write_file`] for any bytes: an open buffer (text only; other bytes are
    /// `Binary`) takes them as an undoable transaction and is saved; a closed file is written
    /// atomically, binary or not.
    pub fn write_bytes(
        &mut self,
        rel: &RelPath,
        content: &[u8],
        source: &Source,
        command: &str,
    ) -> Result<Saved, WsError> {
        if self.buffers.contains_key(rel) {
            let text =
                std::str::from_utf8(content).map_err(|_| WsError::Binary(rel.to_string()))?;
            let prepared = self.prepare(vec![FileEdits {
                path: rel.clone(),
                expected_version: None,
                expected_hash: None,
                edits: vec![EditOp::All {
                    text: text.to_string(),
                }],
            }])?;
            self.commit(prepared, source, command);
            return self.save(rel, true);
        }
        if let Ok(m) = self.root.lstat(rel)
            && m.kind == Kind::Dir
        {
            return Err(WsError::NotAFile {
                path: rel.to_string(),
                kind: "directory".into(),
            });
        }
        self.root.create_parents(rel)?;
        let meta = self.root.write_atomic(rel, content)?;
        Ok(Saved {
            path: rel.to_string(),
            version: 0,
            hash: text::hash_bytes(content),
            bytes: meta.len,
        })
    }

    /// Copy a regular file's bytes on disk (an open source buffer's unsaved changes are not
    /// included) to `to`, crash-safely, keeping its permission bits. `to` must not exist
    /// unless `overwrite`; an open buffer for `to` is reloaded, and its unsaved changes block
    /// an overwrite.
    pub fn copy_file(
        &mut self,
        from: &RelPath,
        to: &RelPath,
        overwrite: bool,
    ) -> Result<Saved, WsError> {
        let (bytes, meta) = self.root.read(from)?;
        self.write_copy(to, &bytes, meta.mode, overwrite)
    }

    /// The write half of [`Workspace::copy_file`], for callers that inspect the bytes they
    /// read before writing them (content validators).
    pub fn write_copy(
        &mut self,
        to: &RelPath,
        bytes: &[u8],
        mode: u32,
        overwrite: bool,
    ) -> Result<Saved, WsError> {
        if let Some(buf) = self.buffers.get(to)
            && buf.is_dirty()
        {
            return Err(WsError::Dirty(to.to_string()));
        }
        self.root.create_parents(to)?;
        let meta = self.root.write_with_mode(to, bytes, mode, overwrite)?;
        self.sync_disk(to)?;
        Ok(Saved {
            path: to.to_string(),
            version: self.buffers.get(to).map_or(0, |b| b.version),
            hash: text::hash_bytes(bytes),
            bytes: meta.len,
        })
    }

    /// Delete a directory; `recursive` removes its contents without following symlinks (a
    /// link is removed, never what it points to). Open buffers below it are closed, and
    /// their unsaved changes block the delete unless `force`. For programs and agents
    /// (`human: false`) nothing below may be protected (`.git` internals, restricted paths),
    /// checked over at most [`DELETE_CHECK_LIMIT`] entries; a bigger tree is refused.
    pub fn delete_dir(
        &mut self,
        rel: &RelPath,
        recursive: bool,
        force: bool,
        human: bool,
    ) -> Result<(), WsError> {
        let prefix = format!("{}/", rel.as_str());
        let inside: Vec<RelPath> = self
            .buffers
            .keys()
            .filter(|k| rel.as_str().is_empty() || k.as_str().starts_with(&prefix))
            .cloned()
            .collect();
        if !force && let Some(dirty) = inside.iter().find(|k| self.buffers[*k].is_dirty()) {
            return Err(WsError::Dirty(dirty.to_string()));
        }
        // A symlink to a directory is not a directory here: never list or delete through it.
        if self.root.lstat(rel)?.kind != Kind::Dir {
            return Err(WsError::NotADirectory(rel.to_string()));
        }
        if recursive && !human {
            let (entries, truncated) = self.root.list(rel, true, DELETE_CHECK_LIMIT)?;
            if truncated {
                return Err(WsError::Restricted {
                    path: rel.to_string(),
                    rule: format!(
                        "more than {DELETE_CHECK_LIMIT} entries; only a person may delete it"
                    ),
                });
            }
            for e in &entries {
                self.root.check_writable(&e.path, false)?;
            }
        }
        self.root.remove_dir(rel, recursive)?;
        for k in inside {
            self.buffers.remove(&k);
            self.history.forget(&k);
            if self.active.as_ref() == Some(&k) {
                self.active = self.buffers.keys().next_back().cloned();
            }
        }
        Ok(())
    }

    /// Delete a file (or symlink). An open buffer is closed; unsaved changes block unless
    /// `force`.
    pub fn delete_file(&mut self, rel: &RelPath, force: bool) -> Result<(), WsError> {
        if let Some(buf) = self.buffers.get(rel)
            && buf.is_dirty()
            && !force
        {
            return Err(WsError::Dirty(rel.to_string()));
        }
        self.root.remove_file(rel)?;
        if self.buffers.remove(rel).is_some() {
            self.history.forget(rel);
            if self.active.as_ref() == Some(rel) {
                self.active = self.buffers.keys().next_back().cloned();
            }
        }
        Ok(())
    }

    /// Rename a file or directory; open buffers follow.
    pub fn rename(&mut self, from: &RelPath, to: &RelPath, overwrite: bool) -> Result<(), WsError> {
        if overwrite
            && let Some(buf) = self.buffers.get(to)
            && buf.is_dirty()
        {
            return Err(WsError::Dirty(to.to_string()));
        }
        self.root.create_parents(to)?;
        self.root.rename(from, to, overwrite)?;
        let prefix = format!("{}/", from.as_str());
        let moved: Vec<RelPath> = self
            .buffers
            .keys()
            .filter(|k| *k == from || k.as_str().starts_with(&prefix))
            .cloned()
            .collect();
        for old in moved {
            let new = if &old == from {
                to.clone()
            } else {
                // Component-wise: `old` is `from/<rest>`.
                let rest = &old.as_str()[prefix.len()..];
                rest.split('/').fold(to.clone(), |acc, c| acc.join(c))
            };
            if let Some(mut buf) = self.buffers.remove(&old) {
                buf.path = new.clone();
                buf.language = text::language_of(new.as_str());
                if let Ok(m) = self.root.stat(&new)
                    && let Some(d) = buf.disk.as_mut()
                {
                    d.meta = m;
                }
                self.buffers.insert(new.clone(), buf);
            }
            self.history.rename(&old, &new);
            if self.active.as_ref() == Some(&old) {
                self.active = Some(new);
            }
        }
        Ok(())
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

/// A unified diff of a file's text, `a/PATH` to `b/PATH` as git shows it (whole, not capped).
pub fn file_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// A unified diff from `old` to `new`, capped for agents' context windows.
pub fn unified_diff(old: &Rope, new: &Rope) -> String {
    const CAP: usize = 16 * 1024;
    if old.len_bytes() > 4 << 20 || new.len_bytes() > 4 << 20 {
        return "(file too large to diff)".into();
    }
    let (a, b) = (old.to_string(), new.to_string());
    let diff = similar::TextDiff::from_lines(&a, &b);
    let mut out = diff
        .unified_diff()
        .context_radius(2)
        .header("yours", "current")
        .to_string();
    if out.len() > CAP {
        let mut cut = CAP;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n… diff truncated; re-read the file\n");
    }
    out
}

/// The char span of 1-based inclusive lines `start..=end` including the final line ending;
/// `end == start - 1` is an empty span at the start of `start` (an insertion).
fn line_span(rope: &Rope, start: usize, end: usize) -> Result<(usize, usize), String> {
    let lines = rope.len_lines();
    // A text ending in a newline has an empty last "line" in ropey; it is not a real line.
    let real = if rope.len_chars() > 0 && rope.char(rope.len_chars() - 1) == '\n' {
        lines - 1
    } else {
        lines
    };
    if start == 0 {
        return Err("lines are 1-based".into());
    }
    if start > real + 1 || end + 1 < start || end > real {
        return Err(format!(
            "lines {start}..{end} are outside the file ({real} lines)"
        ));
    }
    let s = rope.line_to_char(start - 1);
    let e = if end < start {
        s
    } else {
        rope.line_to_char(end.min(lines))
    };
    Ok((s, e))
}

/// Lines most like the first line of a missed anchor, for the error.
fn closest_lines(rope: &Rope, needle: &str) -> Vec<(usize, String)> {
    let first = needle
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.is_empty() || rope.len_bytes() > 8 << 20 {
        return Vec::new();
    }
    let mut scored: Vec<(f32, usize, String)> = rope
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let l = l.to_string();
            let t = l.trim();
            if t.is_empty() {
                return None;
            }
            let ratio = similar::TextDiff::from_chars(first, t).ratio();
            (ratio > 0.5).then(|| (ratio, i + 1, l.trim_end().to_string()))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, n, t)| (n, t)).collect()
}

/// 1-based first and last changed line, given `reps` already applied to `buf`.
fn changed_lines(reps: &[Replacement], buf: &Buffer) -> Option<(usize, usize)> {
    let first = reps.first()?;
    let last = reps.last()?;
    let delta: isize = reps[..reps.len() - 1]
        .iter()
        .map(|r| r.new_chars as isize - r.old_chars as isize)
        .sum();
    let len = buf.rope.len_chars();
    let end = ((last.start as isize + delta) as usize + last.new_chars).min(len);
    let start_line = buf.rope.char_to_line(first.start.min(len)) + 1;
    let end_line = buf
        .rope
        .char_to_line(end.saturating_sub(usize::from(last.new.ends_with('\n') && end > 0)))
        + 1;
    Some((start_line, end_line.max(start_line)))
}
