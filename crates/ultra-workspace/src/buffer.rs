//! An open file: a rope with a version, dirty state, disk state and selections.

use std::collections::VecDeque;

use ropey::Rope;
use ultra_protocol::{Position, PositionEncoding, Range};

use crate::history::Replacement;
use crate::root::{Meta, RelPath};
use crate::text;

/// Buffers up to this size get their hash computed for edit results (BLAKE3 does about
/// 2.5 GB/s here, so this costs at most ~0.1 ms); bigger ones only when asked.
const CHEAP_HASH_BYTES: usize = 256 << 10;

/// How many past versions are kept to diff a stale client against.
const RECENT_VERSIONS: usize = 16;

/// A selection as char offsets: `anchor` stays, `head` is the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    pub anchor: usize,
    pub head: usize,
}

impl Selection {
    /// An empty selection (a cursor) at `at`.
    pub fn cursor(at: usize) -> Selection {
        Selection {
            anchor: at,
            head: at,
        }
    }

    /// The covered char range, ordered.
    pub fn span(&self) -> (usize, usize) {
        (self.anchor.min(self.head), self.anchor.max(self.head))
    }

    /// Whether the head is before the anchor.
    pub fn is_reversed(&self) -> bool {
        self.head < self.anchor
    }
}

/// What the file looked like on disk when Ultra last looked at its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskState {
    pub meta: Meta,
    /// BLAKE3 of the bytes (text or not).
    pub hash: String,
    /// When the content was hashed (ns since the epoch). A file whose ctime is this close
    /// to it may change again within the same timestamp tick, unseen by `stat`, so it is
    /// re-hashed until its ctime is older ("racily clean", as git calls it).
    pub checked_ns: u128,
}

/// How long after its ctime a file's stat is not trusted to show a further change. File
/// times come from a coarse clock (one tick, 4-10 ms) and the check reads a finer one.
const RACY_NS: u128 = 100_000_000;

impl DiskState {
    /// A state for bytes just read or written, with their metadata.
    pub fn new(meta: Meta, hash: String) -> DiskState {
        DiskState {
            meta,
            hash,
            checked_ns: now_ns(),
        }
    }

    /// Whether `meta` shows the file unchanged since this state, so its content need not
    /// be read again. Size, inode, mtime and ctime must agree, and the ctime must not be
    /// racy (too close to when the content was hashed).
    pub fn unchanged(&self, meta: &Meta) -> bool {
        meta.len == self.meta.len
            && meta.ino == self.meta.ino
            && meta.mtime_ns == self.meta.mtime_ns
            && meta.ctime_ns == self.meta.ctime_ns
            && self.checked_ns > meta.ctime_ns + RACY_NS
    }
}

/// Wall-clock time, ns since the epoch.
pub fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// An open file.
pub struct Buffer {
    /// Unique among the buffers this process opens: a file closed and opened again gets
    /// a new one (its version starts at 1 again), so caches keyed by it cannot go stale.
    pub id: u64,
    pub path: RelPath,
    pub rope: Rope,
    /// Increases by one with every change; never reused.
    pub version: u64,
    /// The version whose text is the base (what the disk held when last in step).
    pub saved_version: u64,
    /// The base: the text the disk held when the buffer was last in step with it (opened,
    /// saved, reloaded) and its hash; `None` for a buffer whose file never existed. The
    /// current text equal to it again (an edit undone) is not dirty.
    base: Option<(Rope, Option<String>)>,
    same_as_saved: bool,
    /// The disk as last seen: `None` when the file was absent.
    pub disk: Option<DiskState>,
    /// Never empty; the first is the primary.
    pub selections: Vec<Selection>,
    pub language: &'static str,
    /// The columns vertical moves aim for, with the cursors they left: moving up or down
    /// through a short line keeps the column it came from. Stale once the cursors differ.
    pub goal: Option<(Vec<usize>, Vec<usize>)>,
    hash_cache: Option<(u64, String)>,
    recent: VecDeque<(u64, Rope)>,
}

impl Buffer {
    /// A buffer at version 1 holding `text`.
    pub fn new(path: RelPath, text: &str, disk: Option<DiskState>) -> Buffer {
        let language = text::language_of(path.as_str());
        let rope = Rope::from_str(text);
        let hash_cache = disk.as_ref().map(|d| (1, d.hash.clone()));
        let base = disk.as_ref().map(|d| (rope.clone(), Some(d.hash.clone())));
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Buffer {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            path,
            rope,
            version: 1,
            saved_version: if disk.is_some() { 1 } else { 0 },
            base,
            same_as_saved: disk.is_some(),
            disk,
            selections: vec![Selection::cursor(0)],
            language,
            goal: None,
            hash_cache,
            recent: VecDeque::new(),
        }
    }

    /// Whether there are unsaved changes.
    pub fn is_dirty(&self) -> bool {
        self.version != self.saved_version && !self.same_as_saved
    }

    /// The current text is what the disk holds now: `disk`, just read or written, or no
    /// file at all (a new buffer's empty text, for a file not created yet).
    pub fn mark_saved(&mut self, disk: Option<DiskState>) {
        self.saved_version = self.version;
        self.base = Some((self.rope.clone(), disk.as_ref().map(|d| d.hash.clone())));
        self.same_as_saved = true;
        self.disk = disk;
    }

    /// The hash of the disk content the buffer is based on; `None` when it is based on no
    /// file (never saved, or a new file not written yet).
    pub fn base_hash(&self) -> Option<&str> {
        self.base.as_ref().and_then(|(_, h)| h.as_deref())
    }

    /// Whether the disk moved away from the base while the buffer cannot follow it: its
    /// file changed, appeared or was replaced under unsaved changes, was deleted under
    /// them, or changed into something a buffer cannot hold (not UTF-8, too large). Saving
    /// then needs `force`. A clean buffer whose file was deleted is not in conflict: it
    /// keeps its text, and a save writes it back.
    pub fn disk_conflict(&self) -> bool {
        match (self.base_hash(), &self.disk) {
            (Some(b), Some(d)) => b != d.hash,
            (Some(_), None) => self.is_dirty(),
            (None, Some(_)) => true,
            (None, None) => false,
        }
    }

    /// Whether the file was deleted on disk since the buffer was in step with it.
    pub fn deleted_on_disk(&self) -> bool {
        self.base_hash().is_some() && self.disk.is_none()
    }

    /// The content hash (BLAKE3 hex) of the current version, cached per version.
    pub fn hash(&mut self) -> String {
        match &self.hash_cache {
            Some((v, h)) if *v == self.version => h.clone(),
            _ => {
                let h = text::hash_rope(&self.rope);
                self.hash_cache = Some((self.version, h.clone()));
                h
            }
        }
    }

    /// The hash if it is cheap (cached, or the buffer is small).
    pub fn cheap_hash(&mut self) -> Option<String> {
        match &self.hash_cache {
            Some((v, h)) if *v == self.version => Some(h.clone()),
            _ if self.rope.len_bytes() <= CHEAP_HASH_BYTES => Some(self.hash()),
            _ => None,
        }
    }

    /// A recent version's text, for diffs against stale clients.
    pub fn recent_version(&self, version: u64) -> Option<&Rope> {
        self.recent
            .iter()
            .find(|(v, _)| *v == version)
            .map(|(_, r)| r)
    }

    /// A recent version whose hash is `hash` (hashing only small versions).
    pub fn recent_with_hash(&self, hash: &str) -> Option<Rope> {
        self.recent
            .iter()
            .rev()
            .filter(|(_, r)| r.len_bytes() <= 4 << 20)
            .find(|(_, r)| text::hash_rope(r) == hash)
            .map(|(_, r)| r.clone())
    }

    /// Apply simultaneous replacements (sorted by start, non-overlapping, char offsets in
    /// the current text) as one new version. Selections move with the text.
    pub fn apply(&mut self, reps: &[Replacement]) {
        // Diffs are only made for texts up to 4 MiB; keeping snapshots of bigger ones would
        // only make every edit copy the rope nodes it touches.
        if self.rope.len_bytes() <= 4 << 20 {
            self.recent.push_back((self.version, self.rope.clone()));
            if self.recent.len() > RECENT_VERSIONS {
                self.recent.pop_front();
            }
        } else {
            self.recent.clear();
        }
        for r in reps.iter().rev() {
            if r.old_chars > 0 {
                self.rope.remove(r.start..r.start + r.old_chars);
            }
            if r.new_chars > 0 {
                self.rope.insert(r.start, &r.new);
            }
        }
        let len = self.rope.len_chars();
        for sel in self.selections.iter_mut() {
            sel.anchor = map_offset(sel.anchor, reps).min(len);
            sel.head = map_offset(sel.head, reps).min(len);
        }
        self.version += 1;
        // Compared only when the lengths agree, and not for huge texts, so an edit stays
        // cheap; a huge buffer edited back to its saved text just stays dirty.
        self.same_as_saved = self.base.as_ref().is_some_and(|(s, _)| {
            s.len_bytes() == self.rope.len_bytes() && s.len_bytes() <= 4 << 20 && *s == self.rope
        });
    }

    /// Replace the whole text (a reload from disk) as one new version.
    pub fn replace_all(&mut self, text: &str) -> Replacement {
        let old = self.rope.to_string();
        let rep = Replacement::new(0, old, text.to_string());
        self.apply(std::slice::from_ref(&rep));
        rep
    }

    /// A selection as a wire range.
    pub fn range_of(&self, sel: &Selection, enc: PositionEncoding) -> Range {
        let (s, e) = sel.span();
        Range::new(
            text::to_pos(&self.rope, s, enc),
            text::to_pos(&self.rope, e, enc),
        )
    }

    /// The primary cursor position.
    pub fn cursor(&self, enc: PositionEncoding) -> Position {
        text::to_pos(&self.rope, self.selections[0].head, enc)
    }
}

/// Where a char offset ends up after simultaneous replacements (sorted by start). An
/// offset inside replaced text moves to the end of the new text; an insertion exactly at the
/// offset pushes it forward, as typing at a cursor does.
fn map_offset(p: usize, reps: &[Replacement]) -> usize {
    let mut delta: isize = 0;
    for r in reps {
        let end = r.start + r.old_chars;
        if end <= p {
            delta += r.new_chars as isize - r.old_chars as isize;
        } else if r.start < p {
            return (r.start as isize + delta) as usize + r.new_chars;
        } else {
            break;
        }
    }
    (p as isize + delta).max(0) as usize
}
