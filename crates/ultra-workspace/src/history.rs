//! Undo/redo owned by the server, grouped by transaction and tagged by source.
//!
//! Every applied transaction is logged as simultaneous, non-overlapping replacements per
//! file, in the coordinates of the text before it. Undoing transaction T applies T's inverse
//! transformed through every later transaction; if a later edit overlaps T's text, the undo
//! is refused (`UNDO_CONFLICT`) rather than guessed. That is what lets `undo {source: "ai"}`
//! revert an agent's work while keeping a person's later edits elsewhere in the file.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::Serialize;
use ultra_protocol::{Source, SourceKind};

use crate::error::WsError;
use crate::root::RelPath;

/// One replacement: at char `start` (pre-transaction coordinates), `old` became `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub start: usize,
    pub old: String,
    pub new: String,
    pub old_chars: usize,
    pub new_chars: usize,
}

impl Replacement {
    /// A replacement, counting chars.
    pub fn new(start: usize, old: String, new: String) -> Replacement {
        let old_chars = old.chars().count();
        let new_chars = new.chars().count();
        Replacement {
            start,
            old,
            new,
            old_chars,
            new_chars,
        }
    }

    fn end(&self) -> usize {
        self.start + self.old_chars
    }
}

/// Whether a transaction made a file exist, or made it go, besides changing its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Existence {
    /// The file was there before and after.
    #[default]
    Kept,
    /// The file did not exist before (its replacements start from an empty text).
    Created,
    /// The file is gone after (its replacements leave an empty text).
    Removed,
}

impl Existence {
    /// What undoing this does.
    pub fn inverse(self) -> Existence {
        match self {
            Existence::Kept => Existence::Kept,
            Existence::Created => Existence::Removed,
            Existence::Removed => Existence::Created,
        }
    }
}

/// The replacements a transaction made in one file, sorted by `start`, non-overlapping,
/// and whether it created or removed the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: RelPath,
    pub reps: Vec<Replacement>,
    pub existence: Existence,
}

impl FileChange {
    /// Text changed in a file that stays.
    pub fn kept(path: RelPath, reps: Vec<Replacement>) -> FileChange {
        FileChange {
            path,
            reps,
            existence: Existence::Kept,
        }
    }

    /// The inverse, in the coordinates of the text after this change.
    pub fn inverse(&self) -> Vec<Replacement> {
        let mut delta: isize = 0;
        self.reps
            .iter()
            .map(|r| {
                let start = (r.start as isize + delta) as usize;
                delta += r.new_chars as isize - r.old_chars as isize;
                Replacement {
                    start,
                    old: r.new.clone(),
                    new: r.old.clone(),
                    old_chars: r.new_chars,
                    new_chars: r.old_chars,
                }
            })
            .collect()
    }
}

/// Map `ours` (coordinates of text D) through `later` (also applied to D), giving
/// coordinates in the text after `later`. `None` when they overlap.
fn transform(ours: &[Replacement], later: &[Replacement]) -> Option<Vec<Replacement>> {
    let mut out = Vec::with_capacity(ours.len());
    for r in ours {
        let (s, e) = (r.start, r.end());
        let mut delta: isize = 0;
        for l in later {
            let (ls, le) = (l.start, l.end());
            // Ranges that share text conflict; an insertion strictly inside ours does too.
            // Touching at a boundary does not.
            let conflict = if s == e {
                ls < s && s < le
            } else {
                ls < e && s < le || (ls == le && s < ls && ls < e)
            };
            if conflict {
                return None;
            }
            if le <= s {
                delta += l.new_chars as isize - l.old_chars as isize;
            }
        }
        let mut moved = r.clone();
        moved.start = (s as isize + delta) as usize;
        out.push(moved);
    }
    Some(out)
}

/// Whether a transaction edits text or undoes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnKind {
    Edit,
    /// Undoes the transaction with this sequence number.
    Undo {
        target: u64,
    },
}

/// One logged transaction.
#[derive(Debug, Clone)]
pub struct Txn {
    /// Unique, increasing.
    pub seq: u64,
    /// The id clients see and filter by; a redo keeps the id of what it redoes.
    pub txn_id: u64,
    /// The author: for a redo, the author of the original edit.
    pub source: Source,
    pub command: String,
    pub kind: TxnKind,
    pub changes: Vec<FileChange>,
    pub undone: bool,
    /// For undo transactions: whether a redo may still re-apply it.
    pub redoable: bool,
    /// For redone edits: the undo transaction they re-apply.
    pub redo_of: Option<u64>,
    bytes: usize,
}

/// Which transactions an undo or redo may pick.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub source: Option<SourceKind>,
    pub agent_id: Option<String>,
    pub txn_id: Option<u64>,
    pub path: Option<RelPath>,
}

impl Filter {
    fn matches(&self, t: &Txn) -> bool {
        self.source.is_none_or(|s| t.source.kind == s)
            && self
                .agent_id
                .as_ref()
                .is_none_or(|a| t.source.agent_id.as_ref() == Some(a))
            && self.txn_id.is_none_or(|id| t.txn_id == id)
            && self
                .path
                .as_ref()
                .is_none_or(|p| t.changes.iter().any(|c| &c.path == p))
    }
}

/// The plan for an undo or redo: replacements per file in current coordinates.
#[derive(Debug)]
pub struct Plan {
    pub target_seq: u64,
    pub txn_id: u64,
    pub author: Source,
    pub changes: Vec<FileChange>,
}

/// The transaction log.
pub struct History {
    txns: VecDeque<Txn>,
    next_seq: u64,
    next_id: u64,
    bytes: usize,
    max_bytes: usize,
    /// How many logged undo transactions are still redoable. Kept so that recording an
    /// edit only walks the log to end redo chains when there is one to end: without it,
    /// every edit was O(log length), which made a long editing session slow down linearly.
    redoable_undos: usize,
}

impl Default for History {
    fn default() -> Self {
        History::new(256 << 20)
    }
}

impl History {
    /// A log keeping at most about `max_bytes` of replaced text.
    pub fn new(max_bytes: usize) -> History {
        History {
            txns: VecDeque::new(),
            next_seq: 1,
            next_id: 1,
            bytes: 0,
            max_bytes,
            redoable_undos: 0,
        }
    }

    /// A fresh client-visible transaction id.
    pub fn next_txn_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Log an applied transaction.
    pub fn record(
        &mut self,
        txn_id: u64,
        source: Source,
        command: &str,
        kind: TxnKind,
        changes: Vec<FileChange>,
    ) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if kind == TxnKind::Edit && self.redoable_undos > 0 {
            // A new edit by the same author ends that author's redo chain.
            for t in self.txns.iter_mut() {
                if let TxnKind::Undo { .. } = t.kind
                    && t.redoable
                    && Self::undone_author(&t.source, &source)
                {
                    t.redoable = false;
                    self.redoable_undos -= 1;
                }
            }
        }
        if let TxnKind::Undo { .. } = kind {
            self.redoable_undos += 1;
        }
        self.push(seq, txn_id, source, command, kind, changes, None);
        seq
    }

    /// Fold typing into the newest transaction, so that one undo takes back a run of it:
    /// `changes` join that transaction when it is an edit by the same author (`source`,
    /// session included) and command, still live, on the same one file, and `changes`
    /// insert (no line break) exactly where each of its replacements' new text ends
    /// (typing over a selection and going on is one run). A word boundary (whitespace typed after a non-space) starts a new
    /// transaction, as does a line break. Returns the transaction's id, or `None` when a
    /// new transaction is needed.
    pub fn extend_typing(
        &mut self,
        source: &Source,
        command: &str,
        changes: &[FileChange],
    ) -> Option<u64> {
        const MAX_RUN: usize = 500;
        let last = self.txns.back_mut()?;
        let [fc] = changes else { return None };
        let [prev] = last.changes.as_mut_slice() else {
            return None;
        };
        let joins = last.kind == TxnKind::Edit
            && !last.undone
            && last.redo_of.is_none()
            && last.command == command
            && last.source == *source
            && prev.path == fc.path
            && prev.reps.len() == fc.reps.len()
            && prev.reps.iter().all(|r| r.new_chars < MAX_RUN)
            && fc
                .reps
                .iter()
                .all(|r| r.old.is_empty() && !r.new.is_empty() && !r.new.contains(['\n', '\r']));
        if !joins {
            return None;
        }
        // Where each earlier replacement's new text ends in the text after it: its start,
        // shifted by what the replacements before it added or removed, plus that text.
        let mut delta = 0isize;
        for (a, b) in prev.reps.iter().zip(&fc.reps) {
            let end = a.start as isize + delta + a.new_chars as isize;
            delta += a.new_chars as isize - a.old_chars as isize;
            let boundary = b.new.starts_with(char::is_whitespace)
                && a.new
                    .chars()
                    .next_back()
                    .is_some_and(|c| !c.is_whitespace());
            if b.start as isize != end || boundary {
                return None;
            }
        }
        let mut added = 0;
        for (a, b) in prev.reps.iter_mut().zip(&fc.reps) {
            a.new.push_str(&b.new);
            a.new_chars += b.new_chars;
            added += b.new.len();
        }
        last.bytes += added;
        self.bytes += added;
        Some(last.txn_id)
    }

    /// Append a transaction and trim the log to its byte budget.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        seq: u64,
        txn_id: u64,
        source: Source,
        command: &str,
        kind: TxnKind,
        changes: Vec<FileChange>,
        redo_of: Option<u64>,
    ) {
        let bytes = changes
            .iter()
            .flat_map(|c| &c.reps)
            .map(|r| r.old.len() + r.new.len() + 32)
            .sum();
        self.bytes += bytes;
        self.txns.push_back(Txn {
            seq,
            txn_id,
            source,
            command: command.into(),
            kind,
            changes,
            undone: false,
            redoable: true,
            redo_of,
            bytes,
        });
        while self.bytes > self.max_bytes && self.txns.len() > 1 {
            if let Some(old) = self.txns.pop_front() {
                self.bytes -= old.bytes;
                if Self::is_redoable_undo(&old) {
                    self.redoable_undos -= 1;
                }
            }
        }
    }

    fn is_redoable_undo(t: &Txn) -> bool {
        matches!(t.kind, TxnKind::Undo { .. }) && t.redoable
    }

    fn undone_author(undo_source: &Source, editor: &Source) -> bool {
        undo_source.kind == editor.kind && undo_source.agent_id == editor.agent_id
    }

    fn index_of(&self, seq: u64) -> Option<usize> {
        self.txns.iter().position(|t| t.seq == seq)
    }

    /// Inverse of the transaction at `idx`, mapped through everything after it.
    ///
    /// An edit followed (once everything between them has cancelled out) by its own undo
    /// changes nothing, and so does an undo followed by its redo; such pairs are skipped
    /// rather than transformed through. With stack-like undo the inverse then applies
    /// exactly, and only truly interleaved later edits can conflict.
    fn inverse_now(&self, idx: usize, action: &'static str) -> Result<Vec<FileChange>, WsError> {
        let t = &self.txns[idx];
        let mut effective: Vec<usize> = Vec::new();
        for j in idx + 1..self.txns.len() {
            match self.txns[j].kind {
                TxnKind::Undo { target }
                    if effective
                        .last()
                        .is_some_and(|k| self.txns[*k].seq == target) =>
                {
                    effective.pop();
                }
                TxnKind::Edit
                    if self.txns[j].redo_of.is_some_and(|u| {
                        effective.last().is_some_and(|k| self.txns[*k].seq == u)
                    }) =>
                {
                    effective.pop();
                }
                _ => effective.push(j),
            }
        }
        let mut out = Vec::new();
        for fc in &t.changes {
            let mut reps = fc.inverse();
            for later in effective.iter().map(|j| &self.txns[*j]) {
                for lc in later.changes.iter().filter(|c| c.path == fc.path) {
                    reps = transform(&reps, &lc.reps).ok_or_else(|| WsError::UndoConflict {
                        action,
                        txn: t.txn_id,
                        path: fc.path.to_string(),
                    })?;
                }
            }
            out.push(FileChange {
                path: fc.path.clone(),
                reps,
                existence: fc.existence.inverse(),
            });
        }
        Ok(out)
    }

    /// Plan undoing the newest live edit that matches.
    pub fn plan_undo(&self, filter: &Filter) -> Result<Plan, WsError> {
        let idx = self
            .txns
            .iter()
            .rposition(|t| t.kind == TxnKind::Edit && !t.undone && filter.matches(t))
            .ok_or(WsError::NothingToUndo("undo"))?;
        self.plan_at(idx, "undo")
    }

    /// Record that a planned undo was applied.
    pub fn commit_undo(&mut self, plan: Plan) -> u64 {
        if let Some(i) = self.index_of(plan.target_seq) {
            self.txns[i].undone = true;
        }
        // The undo transaction carries the author of the undone edit, so a later redo by the
        // same filter finds it. Who ran the undo is in the audit log.
        self.record(
            plan.txn_id,
            plan.author,
            "undo",
            TxnKind::Undo {
                target: plan.target_seq,
            },
            plan.changes,
        )
    }

    /// Plan redoing the newest redoable undo whose edit matches.
    pub fn plan_redo(&self, filter: &Filter) -> Result<Plan, WsError> {
        let idx = self
            .txns
            .iter()
            .rposition(|t| {
                matches!(t.kind, TxnKind::Undo { .. }) && t.redoable && filter.matches(t)
            })
            .ok_or(WsError::NothingToUndo("redo"))?;
        self.plan_at(idx, "redo")
    }

    /// The plan that inverts the transaction at `idx` now.
    fn plan_at(&self, idx: usize, action: &'static str) -> Result<Plan, WsError> {
        let t = &self.txns[idx];
        Ok(Plan {
            target_seq: t.seq,
            txn_id: t.txn_id,
            author: t.source.clone(),
            changes: self.inverse_now(idx, action)?,
        })
    }

    /// Record that a planned redo was applied; it becomes a live edit again.
    pub fn commit_redo(&mut self, plan: Plan) -> u64 {
        if let Some(i) = self.index_of(plan.target_seq) {
            if Self::is_redoable_undo(&self.txns[i]) {
                self.redoable_undos -= 1;
            }
            self.txns[i].redoable = false;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push(
            seq,
            plan.txn_id,
            plan.author,
            "redo",
            TxnKind::Edit,
            plan.changes,
            Some(plan.target_seq),
        );
        seq
    }

    /// Forget every transaction that touched `path` (its buffer was closed).
    pub fn forget(&mut self, path: &RelPath) {
        self.txns
            .retain(|t| !t.changes.iter().any(|c| &c.path == path));
        self.bytes = self.txns.iter().map(|t| t.bytes).sum();
        self.redoable_undos = self
            .txns
            .iter()
            .filter(|t| Self::is_redoable_undo(t))
            .count();
    }

    /// Rename `from` to `to` in every logged change.
    pub fn rename(&mut self, from: &RelPath, to: &RelPath) {
        for t in self.txns.iter_mut() {
            for c in t.changes.iter_mut().filter(|c| &c.path == from) {
                c.path = to.clone();
            }
        }
    }

    /// The logged transactions, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Txn> {
        self.txns.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(start: usize, old: &str, new: &str) -> Replacement {
        Replacement::new(start, old.into(), new.into())
    }

    #[test]
    fn transform_shifts_and_conflicts() {
        // ours replaces [10,13); later inserts 2 chars at 0 → shifted by 2.
        let ours = vec![rep(10, "abc", "x")];
        let t = transform(&ours, &[rep(0, "", "zz")]).unwrap();
        assert_eq!(t[0].start, 12);
        // later edit after ours: unchanged.
        assert_eq!(transform(&ours, &[rep(20, "q", "")]).unwrap()[0].start, 10);
        // overlap: conflict.
        assert!(transform(&ours, &[rep(12, "cd", "")]).is_none());
        // insertion strictly inside: conflict.
        assert!(transform(&ours, &[rep(11, "", "!")]).is_none());
        // insertion at our end: no effect.
        assert_eq!(transform(&ours, &[rep(13, "", "!")]).unwrap()[0].start, 10);
        // insertion at our start: shifts.
        assert_eq!(transform(&ours, &[rep(10, "", "!")]).unwrap()[0].start, 11);
    }

    fn counted(h: &History) -> usize {
        h.txns
            .iter()
            .filter(|t| History::is_redoable_undo(t))
            .count()
    }

    #[test]
    fn redoable_undo_count_tracks_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let ws = crate::Workspace::open(dir.path(), Default::default()).unwrap();
        let path = ws.resolve_write("a.txt", true).unwrap();
        let edit = |h: &mut History, src: &Source, at: usize| {
            let id = h.next_txn_id();
            h.record(
                id,
                src.clone(),
                "edit",
                TxnKind::Edit,
                vec![FileChange::kept(path.clone(), vec![rep(at, "", "x")])],
            );
        };
        let ai = Source::new(SourceKind::Ai);
        let human = Source::new(SourceKind::Human);
        let mut h = History::default();
        for i in 0..4 {
            edit(&mut h, &ai, i);
        }
        edit(&mut h, &human, 100);
        assert_eq!(h.redoable_undos, 0);
        let by_ai = Filter {
            source: Some(SourceKind::Ai),
            ..Filter::default()
        };
        for _ in 0..2 {
            let plan = h.plan_undo(&by_ai).unwrap();
            h.commit_undo(plan);
        }
        assert_eq!((h.redoable_undos, counted(&h)), (2, 2));
        // A redo uses one up.
        let plan = h.plan_redo(&by_ai).unwrap();
        h.commit_redo(plan);
        assert_eq!((h.redoable_undos, counted(&h)), (1, 1));
        // Another author's edit leaves the AI's redo chain alone...
        edit(&mut h, &human, 200);
        assert_eq!((h.redoable_undos, counted(&h)), (1, 1));
        // ...and the AI's own edit ends it.
        edit(&mut h, &ai, 300);
        assert_eq!((h.redoable_undos, counted(&h)), (0, 0));
        assert!(h.plan_redo(&by_ai).is_err());
        // Trimming and forgetting keep the count right.
        let plan = h.plan_undo(&by_ai).unwrap();
        h.commit_undo(plan);
        assert_eq!(h.redoable_undos, 1);
        h.max_bytes = 0;
        edit(&mut h, &human, 400);
        assert_eq!(h.redoable_undos, counted(&h));
        h.forget(&path);
        assert_eq!((h.redoable_undos, counted(&h)), (0, 0));
    }
}
