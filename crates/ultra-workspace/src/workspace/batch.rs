//! Edits as atomic batches: [`Workspace::prepare`] resolves every edit against the text
//! before the batch without changing it, [`Workspace::commit`] applies them as one
//! transaction; undo and redo replay the history's changes the same way.

use ropey::Rope;
use schemars::JsonSchema;
use serde::Serialize;
use ultra_protocol::{PositionEncoding, Range, Source};

use super::Workspace;
use crate::anchor;
use crate::buffer::Buffer;
use crate::error::WsError;
use crate::history::{Existence, FileChange, Filter, History, Plan, Replacement, TxnKind};
use crate::root::RelPath;
use crate::text;

/// Most bytes of new text one batch may insert. Requests are small, but a replace-all of
/// a one-byte `old` with a long `new` multiplies: the batch is refused before it is built
/// rather than growing the server until an allocation fails.
pub const MAX_BATCH_TEXT: usize = 256 << 20;

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
    /// Create the file with this text; it may not exist, on disk or as a buffer. A file's
    /// only edit: committed, the file is a new buffer, which the save writes.
    Create { text: String },
    /// Remove the file: its whole text goes, and the save deletes it. A file's only edit.
    Remove,
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
    /// Whether the batch creates or removes the file.
    pub existence: Existence,
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
    /// `created` or `removed` when the transaction made the file exist or go (absent
    /// when it only changed its text).
    #[serde(skip_serializing_if = "is_kept")]
    pub existence: Existence,
}

fn is_kept(e: &Existence) -> bool {
    *e == Existence::Kept
}

impl FileOutcome {
    /// A buffer's state after a change, `changed_lines` as the change reports them.
    pub(super) fn of(
        path: &RelPath,
        buf: &mut Buffer,
        changed_lines: Option<(usize, usize)>,
    ) -> FileOutcome {
        FileOutcome {
            path: path.to_string(),
            version: buf.version,
            hash: buf.cheap_hash(),
            line_count: buf.rope.len_lines(),
            match_levels: vec![],
            replaced: 0,
            changed_lines,
            existence: Existence::Kept,
        }
    }
}

impl Workspace {
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
            if let Some(pf) = self.prepare_existence(&fe, &mut inserted)? {
                out.push(pf);
                continue;
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
                    EditOp::Create { .. } | EditOp::Remove => {
                        return Err(WsError::InvalidPosition(format!(
                            "edit {i}: creating or removing {} must be the file's only edit",
                            fe.path
                        )));
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
                existence: Existence::Kept,
            });
        }
        Ok(Prepared { files: out })
    }

    /// Whether a file exists for a batch: on disk, or as an open buffer (a new file not
    /// saved yet included).
    pub fn exists(&self, rel: &RelPath) -> bool {
        self.buffers.contains_key(rel) || self.root.exists(rel)
    }

    /// The empty buffer a transaction creates a file in. It was checked absent, but a
    /// file may have appeared on disk since: the buffer is made all the same, so the
    /// transaction stays whole, and the save, which finds the file there, refuses to
    /// write over it (nothing is lost, and the transaction can be undone).
    fn created_buffer(&mut self, rel: &RelPath) {
        if !self.buffers.contains_key(rel) {
            let mut buf = Buffer::new(rel.clone(), "", None);
            buf.mark_saved(None);
            self.buffers.insert(rel.clone(), buf);
        }
    }

    /// A file's `Create` or `Remove` (its only edit), resolved; `None` for other edits.
    fn prepare_existence(
        &mut self,
        fe: &FileEdits,
        inserted: &mut usize,
    ) -> Result<Option<PreparedFile>, WsError> {
        let prepared = |reps: Vec<Replacement>, existence| PreparedFile {
            path: fe.path.clone(),
            reps,
            match_levels: Vec::new(),
            replaced: 0,
            existence,
        };
        match fe.edits.as_slice() {
            [EditOp::Create { text }] => {
                if self.exists(&fe.path) {
                    return Err(WsError::Exists(fe.path.to_string()));
                }
                *inserted += text.len();
                if *inserted > MAX_BATCH_TEXT {
                    return Err(WsError::EditTooLarge {
                        path: fe.path.to_string(),
                        size: *inserted as u64,
                        limit: MAX_BATCH_TEXT as u64,
                    });
                }
                let reps = if text.is_empty() {
                    Vec::new()
                } else {
                    vec![Replacement::new(0, String::new(), text.clone())]
                };
                Ok(Some(prepared(reps, Existence::Created)))
            }
            [EditOp::Remove] => {
                self.open_buffer(&fe.path)?;
                self.check_expected(&fe.path, fe.expected_version, fe.expected_hash.as_deref())?;
                let Some(buf) = self.buffers.get(&fe.path) else {
                    return Err(WsError::NotFound(fe.path.to_string()));
                };
                let text = buf.rope.to_string();
                let reps = if text.is_empty() {
                    Vec::new()
                } else {
                    vec![Replacement::new(0, text, String::new())]
                };
                Ok(Some(prepared(reps, Existence::Removed)))
            }
            _ => Ok(None),
        }
    }

    /// The full text a prepared file would have after commit (for validators).
    pub fn preview(&self, file: &PreparedFile) -> String {
        if file.existence == Existence::Created {
            return file.reps.iter().map(|r| r.new.as_str()).collect();
        }
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
            if pf.existence == Existence::Created {
                self.created_buffer(&pf.path);
            }
            let Some(buf) = self.buffers.get_mut(&pf.path) else {
                continue;
            };
            if !pf.reps.is_empty() {
                buf.apply(&pf.reps);
            }
            let changed_lines = changed_lines(&pf.reps, buf);
            files.push(FileOutcome {
                match_levels: pf.match_levels,
                replaced: pf.replaced,
                existence: pf.existence,
                ..FileOutcome::of(&pf.path, buf, changed_lines)
            });
            if !pf.reps.is_empty() || pf.existence != Existence::Kept {
                changes.push(FileChange {
                    path: pf.path,
                    reps: pf.reps,
                    existence: pf.existence,
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
        let conflict = |c: &FileChange| WsError::UndoConflict {
            action: "undo",
            txn: 0,
            path: c.path.to_string(),
        };
        for c in changes {
            if c.existence == Existence::Created {
                // Made again from nothing: someone made another file there since.
                if self.exists(&c.path) || c.reps.iter().any(|r| r.start > 0 || r.old_chars > 0) {
                    return Err(conflict(c));
                }
                continue;
            }
            self.open_buffer(&c.path)?;
            let Some(buf) = self.buffers.get(&c.path) else {
                return Err(WsError::NotFound(c.path.to_string()));
            };
            for r in &c.reps {
                let end = r.start + r.old_chars;
                if end > buf.rope.len_chars() || buf.rope.slice(r.start..end) != r.old.as_str() {
                    return Err(conflict(c));
                }
            }
            // Removed only if nothing is left: text added since would go with the file.
            let left: i64 = buf.rope.len_chars() as i64
                - c.reps
                    .iter()
                    .map(|r| r.old_chars as i64 - r.new_chars as i64)
                    .sum::<i64>();
            if c.existence == Existence::Removed && left != 0 {
                return Err(conflict(c));
            }
        }
        let mut out = Vec::new();
        for c in changes {
            if c.existence == Existence::Created {
                self.created_buffer(&c.path);
            }
            let Some(buf) = self.buffers.get_mut(&c.path) else {
                continue;
            };
            buf.apply(&c.reps);
            let changed_lines = changed_lines(&c.reps, buf);
            out.push(FileOutcome {
                existence: c.existence,
                ..FileOutcome::of(&c.path, buf, changed_lines)
            });
        }
        Ok(out)
    }

    /// Undo the newest live transaction matching `filter`.
    pub fn undo(&mut self, filter: &Filter) -> Result<TxnOutcome, WsError> {
        let plan = self.history.plan_undo(filter)?;
        self.replay(plan, History::commit_undo)
    }

    /// Redo the newest undone transaction matching `filter`.
    pub fn redo(&mut self, filter: &Filter) -> Result<TxnOutcome, WsError> {
        let plan = self.history.plan_redo(filter)?;
        self.replay(plan, History::commit_redo)
    }

    /// Apply an undo or redo plan's changes, then record it in the history (`record`).
    fn replay(
        &mut self,
        plan: Plan,
        record: fn(&mut History, Plan) -> u64,
    ) -> Result<TxnOutcome, WsError> {
        // One that brings files back or takes them away is saved whole, as the transaction
        // it inverts was: a buffer of it with unsaved changes of someone's would be saved
        // with it, so it waits until they are saved or reverted.
        if plan.changes.iter().any(|c| c.existence != Existence::Kept)
            && let Some(c) = plan.changes.iter().find(|c| {
                c.existence == Existence::Kept
                    && self.buffers.get(&c.path).is_some_and(|b| b.is_dirty())
            })
        {
            return Err(WsError::Dirty(c.path.to_string()));
        }
        let files = self.apply_changes(&plan.changes)?;
        let txn_id = plan.txn_id;
        record(&mut self.history, plan);
        Ok(TxnOutcome { txn_id, files })
    }
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
