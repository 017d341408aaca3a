//! The passes that are the same for every language: identifier occurrences (flagged
//! when they name a definition), TODO-style comments, complexity (lines of code, block
//! nesting, decisions) and syntax errors.
//!
//! All but the errors come from one lexical scan of the bytes (`lex/`), not from a walk
//! of the tree: visiting every node costs a third of the parse, the scan a few percent.
//! Errors are the tree's, found by descending only into subtrees that hold one.
//!
//! Everything is kept by row, with the scanner's state at each row start, so after an
//! edit only its rows are scanned again, until a row starts in the state it started in
//! before ([`Generic::update`]): a one-line edit in a 5,000-line file costs a scan of a
//! row or two. A full scan and an update give identical results.

use tree_sitter::{InputEdit, Node, Tree};

use crate::lang::Lang;
use crate::lex::{self, Sink, State};
use crate::model::{Complexity, Occurrence, SyntaxError, Todo};
use crate::outline::{Body, Finder};

/// Most syntax errors recorded per file.
const MAX_ERRORS: usize = 100;

thread_local! {
    /// On this thread: updates that scanned only the edited rows, and those that fell back
    /// to a full scan (tests check the first path is the common one).
    pub(crate) static UPDATES: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// Where definitions' names are, as `(line, column)`: occurrences there are flagged.
pub(crate) type DefSpots = foldhash::HashSet<(u32, u32)>;

/// The generic passes' results for one file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Generic {
    /// Distinct identifiers, sorted; [`Occurrence::name`] indexes it.
    pub names: Vec<String>,
    /// In source order.
    pub occurrences: Vec<Occurrence>,
    pub todos: Vec<Todo>,
    pub errors: Vec<SyntaxError>,
    /// Per row (0-based), what the complexity metrics are made of.
    rows: Vec<RowFacts>,
    /// Per row, the scanner's state at its start; empty when not kept for edits.
    states: Vec<State>,
}

/// What one row contributes to complexity. Tokens count on the row they start on.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct RowFacts {
    /// A token other than a comment covers the row.
    code: bool,
    /// Deepest block opening on the row.
    depth: u32,
    /// Decision points starting on the row.
    decisions: u32,
}

impl Generic {
    /// Scan the whole text, for a file indexed once (no row states kept). The tree is
    /// only asked for its syntax errors, and then freed before the scan: freeing it later,
    /// once the scan had pushed it out of the cache, cost a third more.
    pub fn full(lang: Lang, tree: Tree, src: &[u8], defs: &DefSpots) -> Generic {
        let errors = tree_errors(tree.root_node(), src);
        drop(tree);
        Generic::scan_all(lang, errors, src, defs, false)
    }

    /// [`Generic::full`], keeping what [`Generic::update`] needs (and the tree).
    pub fn editable(lang: Lang, tree: &Tree, src: &[u8], defs: &DefSpots) -> Generic {
        let errors = tree_errors(tree.root_node(), src);
        Generic::scan_all(lang, errors, src, defs, true)
    }

    fn scan_all(
        lang: Lang,
        errors: Vec<SyntaxError>,
        src: &[u8],
        defs: &DefSpots,
        keep: bool,
    ) -> Generic {
        let mut f = Facts::whole(src, keep, None);
        lex::scan(lang, src, 0, 0, State::default(), &mut f);
        Scan(f).with(errors, defs)
    }

    /// Scan the whole text before it is parsed, `finder` finding the function bodies an
    /// outline parse may leave out (`outline.rs`); no row states kept.
    pub fn scan_first(lang: Lang, src: &[u8], finder: Finder) -> (Scan<'_>, Vec<Body>) {
        let mut f = Facts::whole(src, false, Some(finder));
        lex::scan(lang, src, 0, 0, State::default(), &mut f);
        let bodies = f.finder.take().map(Finder::finish).unwrap_or_default();
        (Scan(f), bodies)
    }

    /// The results for `tree` and `src` (the text after `edit`), from `self` (the results
    /// for the text before it) and a scan of only the rows the edit touched.
    pub fn update(
        self,
        lang: Lang,
        tree: &Tree,
        edit: &InputEdit,
        src: &[u8],
        defs: &DefSpots,
    ) -> Generic {
        match self.rescan(lang, tree, edit, src, defs) {
            Some(g) => {
                UPDATES.with(|u| u.set((u.get().0 + 1, u.get().1)));
                g
            }
            None => {
                UPDATES.with(|u| u.set((u.get().0, u.get().1 + 1)));
                Generic::editable(lang, tree, src, defs)
            }
        }
    }

    /// [`Generic::update`]'s scan of the edited rows; `None` where only a full scan will do.
    fn rescan(
        mut self,
        lang: Lang,
        tree: &Tree,
        edit: &InputEdit,
        src: &[u8],
        defs: &DefSpots,
    ) -> Option<Generic> {
        let total_rows = row_count(src);
        let delta = edit.new_end_position.row as i64 - edit.old_end_position.row as i64;
        if self.states.len() != self.rows.len()
            || self.rows.len() as i64 + delta != total_rows as i64
        {
            return None;
        }
        // Rows above the edit are unchanged: start at the edit's row, or above it where
        // the scanner cannot resume (inside a C++ raw string).
        let mut r0 = edit.start_position.row;
        let mut b0 = edit.start_byte.checked_sub(edit.start_position.column)?;
        while !self.states.get(r0)?.resumable() {
            r0 = r0.checked_sub(1)?;
            b0 = src[..b0.checked_sub(1)?]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        }
        let stop = Stop {
            after: edit.new_end_position.row,
            old: &self.states,
            delta,
        };
        let mut f = Facts::new(src, r0, self.states[r0], true, Some(stop));
        lex::scan(lang, src, b0, r0, self.states[r0], &mut f);
        let r1 = f.stopped.map_or(total_rows - 1, |r| r - 1);
        let r1_old = (r1 as i64 - delta) as usize;

        // Keep what lies outside the rows; shift what follows them.
        let before = |line: u32| (line as usize) <= r0;
        let after = |line: u32| (line as usize) > r1_old + 1;
        let shift = |line: u32| (line as i64 + delta) as u32;

        let mut todos = Vec::with_capacity(self.todos.len() + f.todos.len());
        let mut tail = Vec::new();
        for mut t in std::mem::take(&mut self.todos) {
            if before(t.line) {
                todos.push(t);
            } else if after(t.line) {
                t.line = shift(t.line);
                tail.push(t);
            }
        }
        todos.append(&mut f.todos);
        todos.append(&mut tail);

        let rows = splice(&self.rows, &mut f.rows, r0, r1_old, total_rows);
        let states = splice(&self.states, &mut f.states, r0, r1_old, total_rows);
        if rows.len() != total_rows || states.len() != total_rows {
            return None;
        }

        // Names: the old ones still used, merged with the scanned rows' own.
        let mut used = vec![false; self.names.len()];
        for o in &self.occurrences {
            if before(o.line) || after(o.line) {
                used[o.name as usize] = true;
            }
        }
        let mut fresh: Vec<usize> = (0..f.distinct.len()).collect();
        fresh.sort_unstable_by(|&a, &b| f.distinct[a].cmp(f.distinct[b]));
        let mut old_to_new = vec![u32::MAX; self.names.len()];
        let mut fresh_to_new = vec![u32::MAX; f.distinct.len()];
        let mut names: Vec<String> = Vec::with_capacity(self.names.len() + fresh.len());
        let mut old_names = std::mem::take(&mut self.names)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| used[*i])
            .peekable();
        let mut fresh_iter = fresh.into_iter().peekable();
        loop {
            let id = names.len() as u32;
            let (take_old, take_fresh) = match (old_names.peek(), fresh_iter.peek()) {
                (None, None) => break,
                (Some((_, n)), Some(&x)) => match n.as_str().cmp(f.distinct[x]) {
                    std::cmp::Ordering::Equal => (true, true),
                    std::cmp::Ordering::Less => (true, false),
                    std::cmp::Ordering::Greater => (false, true),
                },
                (Some(_), None) => (true, false),
                (None, Some(_)) => (false, true),
            };
            let mut pushed = false;
            if take_old && let Some((i, n)) = old_names.next() {
                old_to_new[i] = id;
                names.push(n);
                pushed = true;
            }
            if take_fresh && let Some(x) = fresh_iter.next() {
                fresh_to_new[x] = id;
                if !pushed {
                    names.push(f.distinct[x].to_string());
                }
            }
        }
        let mut occurrences = Vec::with_capacity(self.occurrences.len() + f.occ.len());
        let mut tail = Vec::new();
        for mut o in std::mem::take(&mut self.occurrences) {
            let keep = if before(o.line) {
                true
            } else if after(o.line) {
                o.line = shift(o.line);
                true
            } else {
                false
            };
            if keep {
                o.name = old_to_new[o.name as usize];
                o.is_definition = defs.contains(&(o.line, o.column));
                if o.line as usize <= r0 {
                    occurrences.push(o);
                } else {
                    tail.push(o);
                }
            }
        }
        for &(id, line, column) in &f.occ {
            occurrences.push(Occurrence {
                name: fresh_to_new[id as usize],
                line,
                column,
                is_definition: defs.contains(&(line, column)),
            });
        }
        occurrences.append(&mut tail);

        Some(Generic {
            names,
            occurrences,
            todos,
            errors: tree_errors(tree.root_node(), src),
            rows,
            states,
        })
    }

    /// Seed 001's complexity metrics, from the rows.
    pub fn complexity(&self) -> Complexity {
        let loc = self.rows.iter().filter(|r| r.code).count() as u32;
        let depth = self.rows.iter().map(|r| r.depth).max().unwrap_or(0);
        let decisions: u32 = self.rows.iter().map(|r| r.decisions).sum();
        Complexity::scored(loc, depth, 1 + decisions)
    }
}

/// `old`'s rows before `r0`, then `new` (the rescanned rows), then `old`'s rows after
/// `r1_old`.
fn splice<T: Copy>(old: &[T], new: &mut Vec<T>, r0: usize, r1_old: usize, rows: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(rows);
    out.extend_from_slice(&old[..r0]);
    out.append(new);
    out.extend_from_slice(old.get(r1_old + 1..).unwrap_or_default());
    out
}

/// Rows in `src`: one more than its newlines (a last row even when empty).
fn row_count(src: &[u8]) -> usize {
    src.iter().filter(|&&b| b == b'\n').count() + 1
}

/// The tree's error and missing nodes, in source order (at most [`MAX_ERRORS`]), found by
/// descending only into subtrees that hold one.
fn tree_errors(root: Node<'_>, src: &[u8]) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    if !root.has_error() {
        return errors;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if (node.is_error() || node.is_missing()) && errors.len() < MAX_ERRORS {
            let (start, end) = (node.start_position(), node.end_position());
            let message = if node.is_missing() {
                format!("missing `{}`", node.kind())
            } else {
                let text = String::from_utf8_lossy(&src[node.byte_range()]);
                let first: String = text.lines().next().unwrap_or("").chars().take(40).collect();
                format!("syntax error near `{first}`")
            };
            errors.push(SyntaxError {
                line: start.row as u32 + 1,
                column: start.column as u32,
                end_line: end.row as u32 + 1,
                end_column: end.column as u32,
                message,
            });
        }
        if node.has_error() && !node.is_missing() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return errors;
            }
        }
    }
}

/// A whole file's scan, waiting for the parse's tree and definitions.
pub(crate) struct Scan<'s>(Facts<'s, 'static>);

impl Scan<'_> {
    /// The results, with the errors of `tree` (of `src`) and occurrences at `defs` flagged.
    /// The tree is freed first, as in [`Generic::full`].
    pub fn finish(self, tree: Tree, src: &[u8], defs: &DefSpots) -> Generic {
        let errors = tree_errors(tree.root_node(), src);
        drop(tree);
        self.with(errors, defs)
    }

    fn with(mut self, errors: Vec<SyntaxError>, defs: &DefSpots) -> Generic {
        let (names, occurrences) = self.0.occurrences(defs);
        let f = self.0;
        Generic {
            names,
            occurrences,
            todos: f.todos,
            errors,
            rows: f.rows,
            states: f.states,
        }
    }
}

/// Where an update's scan may stop: at a row start after `after` (new rows) whose state
/// is the old state of the same row (`delta` rows earlier).
struct Stop<'a> {
    after: usize,
    old: &'a [State],
    delta: i64,
}

/// What the scan reports, from row `r0` on.
struct Facts<'s, 'a> {
    src: &'s [u8],
    r0: usize,
    /// Distinct identifiers in order of first occurrence; `occ` refers to them.
    distinct: Vec<&'s str>,
    ids: foldhash::HashMap<&'s str, u32>,
    /// `(distinct id, line, column)`, in source order.
    occ: Vec<(u32, u32, u32)>,
    /// Facts for rows `r0..`.
    rows: Vec<RowFacts>,
    /// States at the start of rows `r0..`, when kept.
    states: Vec<State>,
    keep: bool,
    todos: Vec<Todo>,
    stop: Option<Stop<'a>>,
    /// The row the scan stopped at (not scanned).
    stopped: Option<usize>,
    /// Finds the bodies an outline parse leaves out (Rust, whole scans before the parse).
    finder: Option<Finder>,
}

impl<'s, 'a> Facts<'s, 'a> {
    fn new(src: &'s [u8], r0: usize, first: State, keep: bool, stop: Option<Stop<'a>>) -> Self {
        Facts {
            src,
            r0,
            distinct: Vec::new(),
            ids: foldhash::HashMap::default(),
            occ: Vec::new(),
            rows: vec![RowFacts::default()],
            states: if keep { vec![first] } else { Vec::new() },
            keep,
            todos: Vec::new(),
            stop,
            stopped: None,
            finder: None,
        }
    }

    /// For a scan of the whole file at once, sized for it: growing the vectors was a
    /// tenth of the scan.
    fn whole(src: &'s [u8], keep: bool, finder: Option<Finder>) -> Self {
        let mut f = Facts::new(src, 0, State::default(), keep, None);
        f.occ.reserve(src.len() / 8);
        f.ids.reserve(src.len() / 128);
        f.distinct.reserve(src.len() / 128);
        f.rows.reserve(src.len() / 32);
        f.finder = finder;
        f
    }

    fn row(&mut self, row: usize) -> &mut RowFacts {
        let i = row - self.r0;
        if i >= self.rows.len() {
            self.rows.resize(i + 1, RowFacts::default());
        }
        &mut self.rows[i]
    }

    /// The distinct names sorted, and the occurrences referring to them.
    fn occurrences(&mut self, defs: &DefSpots) -> (Vec<String>, Vec<Occurrence>) {
        // Sorted as (name, id) pairs: comparing through an index table missed the cache.
        let mut order: Vec<(&str, u32)> = self.distinct.iter().copied().zip(0u32..).collect();
        order.sort_unstable();
        let mut new_id = vec![0u32; order.len()];
        let names = order
            .iter()
            .enumerate()
            .map(|(i, &(name, d))| {
                new_id[d as usize] = i as u32;
                name.to_string()
            })
            .collect();
        // Both in source order: a merge flags the definitions, no lookup per occurrence.
        let mut spots: Vec<(u32, u32)> = defs.iter().copied().collect();
        spots.sort_unstable();
        let mut next = spots.iter().peekable();
        let occurrences = self
            .occ
            .iter()
            .map(|&(id, line, column)| {
                while next.next_if(|&&d| d < (line, column)).is_some() {}
                Occurrence {
                    name: new_id[id as usize],
                    line,
                    column,
                    is_definition: next.peek() == Some(&&(line, column)),
                }
            })
            .collect();
        (names, occurrences)
    }
}

impl<'s> Sink<'s> for Facts<'s, '_> {
    fn ident(&mut self, name: &'s str, row: usize, col: usize) {
        if let Some(finder) = &mut self.finder {
            finder.ident(name);
        }
        let id = *self.ids.entry(name).or_insert_with(|| {
            self.distinct.push(name);
            self.distinct.len() as u32 - 1
        });
        self.occ.push((id, row as u32 + 1, col as u32));
    }

    /// TODO, FIXME, HACK, XXX, BUG and NOTE markers, one per comment line.
    fn comment(&mut self, row: usize, from: usize, to: usize) {
        if !has_marker(&self.src[from..to]) {
            return;
        }
        let text = String::from_utf8_lossy(&self.src[from..to]);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if let Some((kind, rest)) = marker(text) {
            self.todos.push(Todo {
                line: row as u32 + 1,
                kind: kind.to_string(),
                text: rest,
                context: line_around(self.src, from).trim().to_string(),
            });
        }
    }

    fn code(&mut self, row: usize) {
        self.row(row).code = true;
    }

    fn decision(&mut self, row: usize) {
        self.row(row).decisions += 1;
    }

    fn block(&mut self, row: usize, depth: u32) {
        let r = self.row(row);
        r.depth = r.depth.max(depth);
    }

    fn punct(&mut self, b: u8, at: usize, row: usize, col: usize) {
        if let Some(finder) = &mut self.finder {
            finder.punct(self.src, b, at, row, col);
        }
    }

    fn keyword(&mut self, w: &'s [u8], at: usize) {
        if let Some(finder) = &mut self.finder {
            finder.keyword(self.src, w, at);
        }
    }

    fn row_start(&mut self, row: usize, state: &State) -> bool {
        if let Some(stop) = &self.stop
            && row > stop.after
        {
            let old = row as i64 - stop.delta;
            if old >= 0 && stop.old.get(old as usize) == Some(state) {
                self.stopped = Some(row);
                return false;
            }
        }
        self.row(row);
        if self.keep {
            self.states.push(*state);
        }
        true
    }
}

/// The whole line around byte `at`, lossy.
fn line_around(src: &[u8], at: usize) -> String {
    let at = at.min(src.len());
    let start = src[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = src[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(src.len(), |p| at + p);
    String::from_utf8_lossy(&src[start..end]).into_owned()
}

const MARKERS: [&str; 6] = ["TODO", "FIXME", "HACK", "XXX", "BUG", "NOTE"];

/// Whether a marker's letters appear in `line` at all: most comment lines have none, and
/// this one pass is cheaper than [`marker`]'s searches.
fn has_marker(line: &[u8]) -> bool {
    line.iter().enumerate().any(|(i, &b)| {
        matches!(b, b'T' | b'F' | b'H' | b'X' | b'B' | b'N')
            && MARKERS.iter().any(|m| line[i..].starts_with(m.as_bytes()))
    })
}

/// The marker in a comment line and the text after it (`TODO(ana): x` → `TODO`, `x`).
fn marker(line: &str) -> Option<(&'static str, String)> {
    let bytes = line.as_bytes();
    for m in MARKERS {
        let mut from = 0;
        while let Some(i) = line[from..].find(m).map(|i| i + from) {
            let before_ok =
                i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            let after = &line[i + m.len()..];
            let after_ok = after
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if before_ok && after_ok {
                let mut rest = after;
                if rest.starts_with('(')
                    && let Some(end) = rest.find(')')
                {
                    rest = &rest[end + 1..];
                }
                let rest = rest
                    .trim_start()
                    .trim_start_matches([':', '-', '!'])
                    .trim()
                    .trim_end_matches("*/")
                    .trim()
                    .to_string();
                return Some((m, rest));
            }
            from = i + m.len();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::marker;

    #[test]
    fn markers() {
        assert_eq!(
            marker("// TODO: write it"),
            Some(("TODO", "write it".into()))
        );
        assert_eq!(
            marker("# FIXME(ana) - later"),
            Some(("FIXME", "later".into()))
        );
        assert_eq!(marker("/* HACK */"), Some(("HACK", String::new())));
        assert_eq!(marker("// TODOS are fine"), None);
        assert_eq!(marker("// a NOTEBOOK"), None);
        assert_eq!(marker("// see BUG: 12"), Some(("BUG", "12".into())));
        // The quick check never hides a marker.
        for line in [
            "// TODO: x",
            "# FIXME(a)",
            "/* HACK */",
            "XXX",
            "-- BUG: 1",
            "NOTE:",
        ] {
            assert!(
                super::has_marker(line.as_bytes()) && marker(line).is_some(),
                "{line}"
            );
        }
        assert!(!super::has_marker(b"// an ordinary Comment about Things"));
    }
}
