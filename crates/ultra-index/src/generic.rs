//! The passes that are the same for every language, in one walk of the tree: identifier
//! occurrences (flagged when they name a definition), TODO-style comments, complexity
//! (lines of code, block nesting, decisions) and syntax errors.
//!
//! Everything is kept by row, so after an edit only the rows it touched are walked again
//! ([`Generic::update`]): a one-line edit in a 5,000-line file costs a walk of a few
//! nodes, not of the whole tree. A full walk and an update give identical results; the
//! update falls back to a full walk where it could not be sure (errors spanning the edit,
//! the error cap reached).

use std::sync::OnceLock;

use tree_sitter::{InputEdit, Node, Range, Tree, TreeCursor};

use crate::lang::Lang;
use crate::model::{Complexity, Occurrence, SyntaxError, Todo};

/// Most syntax errors recorded per file.
const MAX_ERRORS: usize = 100;

thread_local! {
    /// On this thread: updates that walked only the edited rows, and those that fell back
    /// to a full walk (tests check the first path is the common one).
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
}

/// What one row contributes to complexity. Nodes count on the row they start on.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct RowFacts {
    /// A token other than a comment covers the row.
    code: bool,
    /// Deepest block starting on the row.
    depth: u32,
    /// Decision points starting on the row.
    decisions: u32,
}

impl Generic {
    /// Walk the whole tree.
    pub fn full(lang: Lang, tree: &Tree, src: &[u8], defs: &DefSpots) -> Generic {
        let mut w = Walk::new(lang, src, 0, usize::MAX, 0, usize::MAX, row_count(src));
        w.walk(tree.root_node());
        let (names, occurrences) = w.occurrences(defs);
        Generic {
            names,
            occurrences,
            todos: w.todos,
            errors: w.errors,
            rows: w.rows,
        }
    }

    /// The results for `tree` (parsed from `src` reusing the old tree, which was given
    /// `edit`; `changed` are the ranges whose syntax changed), from `self` (the results
    /// for the old text) and a walk of only the rows the edit touched.
    pub fn update(
        self,
        lang: Lang,
        changed: &[Range],
        tree: &Tree,
        edit: &InputEdit,
        src: &[u8],
        defs: &DefSpots,
    ) -> Generic {
        match self.rewalk(lang, changed, tree, edit, src, defs) {
            Some(g) => {
                UPDATES.with(|u| u.set((u.get().0 + 1, u.get().1)));
                g
            }
            None => {
                UPDATES.with(|u| u.set((u.get().0, u.get().1 + 1)));
                Generic::full(lang, tree, src, defs)
            }
        }
    }

    /// [`Generic::update`]'s walk of the edited rows; `None` where only a full walk is sure.
    fn rewalk(
        mut self,
        lang: Lang,
        changed: &[Range],
        tree: &Tree,
        edit: &InputEdit,
        src: &[u8],
        defs: &DefSpots,
    ) -> Option<Generic> {
        let total_rows = row_count(src);
        let delta = edit.new_end_position.row as i64 - edit.old_end_position.row as i64;
        if self.errors.len() >= MAX_ERRORS || self.rows.len() as i64 + delta != total_rows as i64 {
            return None;
        }
        // The rows to walk again: the edit's, where the syntax changed, and all of any
        // token (or comment) at the edges, which may reach past them.
        let (mut r0, mut r1) = (edit.start_position.row, edit.new_end_position.row);
        for r in changed {
            r0 = r0.min(r.start_point.row);
            r1 = r1.max(r.end_point.row);
        }
        let root = tree.root_node();
        let flags = kind_flags(lang);
        for at in [
            edit.start_byte,
            edit.new_end_byte.saturating_sub(1),
            edit.new_end_byte,
        ] {
            if let Some(n) = edge_token(root, at, flags) {
                r0 = r0.min(n.start_position().row);
                r1 = r1.max(n.end_position().row);
            }
        }
        // Around syntax errors tree-sitter's recovery may change what a reused tree says
        // without reporting a changed range: walk every error's rows, old and new, too.
        let old_row = |row: usize| {
            if row < edit.start_position.row {
                row
            } else if row > edit.old_end_position.row {
                (row as i64 + delta) as usize
            } else {
                edit.start_position.row
            }
        };
        for e in &self.errors {
            r0 = r0.min(old_row(e.line as usize - 1));
            r1 = r1.max(old_row(e.end_line as usize - 1));
        }
        if let Some((e0, e1)) = error_rows(root) {
            r0 = r0.min(e0);
            r1 = r1.max(e1);
        }
        let r1 = r1.min(total_rows - 1);
        let r0 = r0.min(r1);
        let r1_old = (r1 as i64 - delta) as usize;
        let (b0, b1) = row_bytes(src, r0, r1)?;
        // An old error that starts above the rows and reaches into them may have changed.
        let reaches_in = |e: &SyntaxError| (e.line as usize) <= r0 && e.end_line as usize > r0;
        if self.errors.iter().any(reaches_in) {
            return None;
        }
        let mut w = Walk::new(lang, src, r0, r1, b0, b1, r1 - r0 + 1);
        w.walk(root);
        if w.crossed {
            return None;
        }

        // Keep what lies outside the rows; shift what follows them.
        let before = |line: u32| (line as usize) <= r0;
        let after = |line: u32| (line as usize) > r1_old + 1;
        let shift = |line: u32| (line as i64 + delta) as u32;

        let kept_errors = self.errors.len()
            - self
                .errors
                .iter()
                .filter(|e| !before(e.line) && !after(e.line))
                .count();
        if kept_errors + w.errors.len() >= MAX_ERRORS {
            return None;
        }
        let mut errors = Vec::with_capacity(kept_errors + w.errors.len());
        let mut tail = Vec::new();
        for mut e in std::mem::take(&mut self.errors) {
            if before(e.line) {
                errors.push(e);
            } else if after(e.line) {
                e.line = shift(e.line);
                e.end_line = shift(e.end_line);
                tail.push(e);
            }
        }
        errors.append(&mut w.errors);
        errors.append(&mut tail);

        let mut todos = Vec::with_capacity(self.todos.len() + w.todos.len());
        let mut tail = Vec::new();
        for mut t in std::mem::take(&mut self.todos) {
            if before(t.line) {
                todos.push(t);
            } else if after(t.line) {
                t.line = shift(t.line);
                tail.push(t);
            }
        }
        todos.append(&mut w.todos);
        todos.append(&mut tail);

        let mut rows = Vec::with_capacity(total_rows);
        rows.extend_from_slice(&self.rows[..r0]);
        rows.append(&mut w.rows);
        rows.extend_from_slice(self.rows.get(r1_old + 1..).unwrap_or_default());

        // Names: the old ones still used, merged with the walked rows' own.
        let mut used = vec![false; self.names.len()];
        for o in &self.occurrences {
            if before(o.line) || after(o.line) {
                used[o.name as usize] = true;
            }
        }
        let mut fresh: Vec<usize> = (0..w.distinct.len()).collect();
        fresh.sort_unstable_by(|&a, &b| w.distinct[a].cmp(w.distinct[b]));
        let mut old_to_new = vec![u32::MAX; self.names.len()];
        let mut fresh_to_new = vec![u32::MAX; w.distinct.len()];
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
                (Some((_, n)), Some(&f)) => match n.as_str().cmp(w.distinct[f]) {
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
            if take_fresh && let Some(f) = fresh_iter.next() {
                fresh_to_new[f] = id;
                if !pushed {
                    names.push(w.distinct[f].to_string());
                }
            }
        }
        let mut occurrences = Vec::with_capacity(self.occurrences.len() + w.occ.len());
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
        for &(id, line, column) in &w.occ {
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
            errors,
            rows,
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

/// Rows in `src`: one more than its newlines (a last row even when empty).
fn row_count(src: &[u8]) -> usize {
    src.iter().filter(|&&b| b == b'\n').count() + 1
}

/// The byte range of rows `r0..=r1`: the first row's start and the last row's end (its
/// newline, or the end of the text).
fn row_bytes(src: &[u8], r0: usize, r1: usize) -> Option<(usize, usize)> {
    let mut row = 0;
    let mut start = None;
    if r0 == 0 {
        start = Some(0);
    }
    for (i, &b) in src.iter().enumerate() {
        if b == b'\n' {
            if row == r1 {
                return Some((start?, i));
            }
            row += 1;
            if row == r0 {
                start = Some(i + 1);
            }
        }
    }
    (row == r1).then_some(())?;
    Some((start?, src.len()))
}

/// The first and last rows of the error and missing nodes under `root`, if any.
fn error_rows(root: Node<'_>) -> Option<(usize, usize)> {
    if !root.has_error() {
        return None;
    }
    let mut rows: Option<(usize, usize)> = None;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            let (s, e) = (node.start_position().row, node.end_position().row);
            rows = Some(rows.map_or((s, e), |(a, b)| (a.min(s), b.max(e))));
        }
        if node.has_error() && !node.is_missing() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return rows;
            }
        }
    }
}

/// The token (a leaf, or a whole comment) containing byte `at`, if any.
fn edge_token<'t>(root: Node<'t>, at: usize, flags: &[u8]) -> Option<Node<'t>> {
    let mut n = root.descendant_for_byte_range(at, at)?;
    // A comment may have children (Rust's doc comments): take the whole comment.
    let mut up = Some(n);
    while let Some(u) = up {
        if flag(flags, u) & COMMENT != 0 {
            n = u;
        }
        up = u.parent();
    }
    (n.child_count() == 0 || flag(flags, n) & COMMENT != 0).then_some(n)
}

fn flag(flags: &[u8], node: Node<'_>) -> u8 {
    flags.get(node.kind_id() as usize).copied().unwrap_or(0)
}

const IDENT: u8 = 1;
const COMMENT: u8 = 2;
const DECISION: u8 = 4;
const BLOCK: u8 = 8;

/// Per language, the [`Spec`](crate::lang::Spec) as flags indexed by node kind id, so the
/// walk compares numbers rather than kind names at every node.
fn kind_flags(lang: Lang) -> &'static [u8] {
    static TABLES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        Lang::ALL
            .iter()
            .map(|l| {
                let grammar = l.grammar();
                let spec = l.spec();
                (0..grammar.node_kind_count() as u16)
                    .map(|id| {
                        let Some(kind) = grammar.node_kind_for_id(id) else {
                            return 0;
                        };
                        let named = grammar.node_kind_is_named(id);
                        let mut f = 0;
                        if named && spec.identifiers.contains(&kind) {
                            f |= IDENT;
                        }
                        if spec.comments.contains(&kind) {
                            f |= COMMENT;
                        }
                        if spec.decisions.contains(&kind) {
                            f |= DECISION;
                        }
                        if spec.blocks.contains(&kind) {
                            f |= BLOCK;
                        }
                        f
                    })
                    .collect()
            })
            .collect()
    });
    let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    &tables[i]
}

/// One pre-order walk over the nodes that overlap rows `r0..=r1` (bytes `b0..=b1`),
/// recording what starts on those rows.
struct Walk<'s> {
    flags: &'static [u8],
    src: &'s [u8],
    r0: usize,
    r1: usize,
    b0: usize,
    b1: usize,
    /// Distinct identifiers in order of first occurrence; `occ` refers to them.
    distinct: Vec<&'s str>,
    ids: foldhash::HashMap<&'s str, u32>,
    /// `(distinct id, line, column)`, in source order.
    occ: Vec<(u32, u32, u32)>,
    /// Facts for rows `r0..`.
    rows: Vec<RowFacts>,
    todos: Vec<Todo>,
    errors: Vec<SyntaxError>,
    /// An error node starts above the rows and reaches into them.
    crossed: bool,
    /// The tree has no error or missing node: no node needs asking (two calls into
    /// tree-sitter a node, for most files).
    clean: bool,
}

impl<'s> Walk<'s> {
    fn new(
        lang: Lang,
        src: &'s [u8],
        r0: usize,
        r1: usize,
        b0: usize,
        b1: usize,
        rows: usize,
    ) -> Walk<'s> {
        Walk {
            flags: kind_flags(lang),
            src,
            r0,
            r1,
            b0,
            b1,
            distinct: Vec::new(),
            ids: foldhash::HashMap::default(),
            occ: Vec::new(),
            rows: vec![RowFacts::default(); rows],
            todos: Vec::new(),
            errors: Vec::new(),
            crossed: false,
            clean: false,
        }
    }

    fn row(&mut self, row: usize) -> Option<&mut RowFacts> {
        if row < self.r0 || row > self.r1 {
            return None;
        }
        self.rows.get_mut(row - self.r0)
    }

    /// Pre-order with a single cursor (a cursor per node costs an allocation), skipping
    /// subtrees outside the bytes.
    fn walk(&mut self, root: Node<'_>) {
        self.clean = !root.has_error();
        let mut cursor = root.walk();
        // Block depth at each tree level on the way down.
        let mut depths: Vec<u32> = vec![0];
        loop {
            let node = cursor.node();
            let depth = *depths.last().unwrap_or(&0);
            if let Some(d) = self.visit(node, depth)
                && self.first_child(&mut cursor)
            {
                depths.push(d);
                continue;
            }
            // Next sibling, or up until there is one.
            loop {
                if cursor.goto_next_sibling()
                    && (self.b1 == usize::MAX || cursor.node().start_byte() <= self.b1)
                {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                depths.pop();
            }
        }
    }

    /// Move to the first child that reaches the bytes, if one starts within them.
    fn first_child(&self, cursor: &mut TreeCursor<'_>) -> bool {
        let found = if self.b0 == 0 {
            cursor.goto_first_child()
        } else if cursor.goto_first_child_for_byte(self.b0 - 1).is_some() {
            true
        } else if cursor.goto_first_child() {
            // tree-sitter's lookup gives up when the child sits after a hidden node (a
            // repetition) that ends just before it; scan the children instead.
            loop {
                if cursor.node().end_byte() >= self.b0 {
                    break true;
                }
                if !cursor.goto_next_sibling() {
                    cursor.goto_parent();
                    break false;
                }
            }
        } else {
            false
        };
        if found && cursor.node().start_byte() > self.b1 {
            cursor.goto_parent();
            return false;
        }
        found
    }

    /// Record what `node` itself says; `Some(depth)` to descend into it with that block
    /// depth, `None` to skip its subtree.
    fn visit(&mut self, node: Node<'_>, depth: u32) -> Option<u32> {
        let flags = flag(self.flags, node);
        if flags & COMMENT != 0 {
            self.comment(node);
            return None;
        }
        let start = node.start_position();
        if !self.clean && (node.is_error() || node.is_missing()) {
            if start.row < self.r0 {
                self.crossed = true;
            } else if start.row <= self.r1 && self.errors.len() < MAX_ERRORS {
                let e = node.end_position();
                let message = if node.is_missing() {
                    format!("missing `{}`", node.kind())
                } else {
                    let text = String::from_utf8_lossy(&self.src[node.byte_range()]);
                    let first: String =
                        text.lines().next().unwrap_or("").chars().take(40).collect();
                    format!("syntax error near `{first}`")
                };
                self.errors.push(SyntaxError {
                    line: start.row as u32 + 1,
                    column: start.column as u32,
                    end_line: e.row as u32 + 1,
                    end_column: e.column as u32,
                    message,
                });
            }
            if node.is_missing() {
                return None;
            }
        }
        if flags & DECISION != 0
            && let Some(r) = self.row(start.row)
        {
            r.decisions += 1;
        }
        let depth = if flags & BLOCK != 0 {
            if let Some(r) = self.row(start.row) {
                r.depth = r.depth.max(depth + 1);
            }
            depth + 1
        } else {
            depth
        };
        if node.child_count() == 0 {
            let end = node.end_position();
            // A token ending at a line's start (its newline included) does not cover it.
            let last = if end.column == 0 && end.row > start.row {
                end.row - 1
            } else {
                end.row
            };
            for row in start.row.max(self.r0)..=last.min(self.r1) {
                if let Some(r) = self.row(row) {
                    r.code = true;
                }
            }
            if flags & IDENT != 0 && node.is_named() && start.row >= self.r0 && start.row <= self.r1
            {
                let src: &'s [u8] = self.src;
                if let Ok(name) = std::str::from_utf8(&src[node.byte_range()]) {
                    let id = *self.ids.entry(name).or_insert_with(|| {
                        self.distinct.push(name);
                        self.distinct.len() as u32 - 1
                    });
                    self.occ
                        .push((id, start.row as u32 + 1, start.column as u32));
                }
            }
            return None;
        }
        Some(depth)
    }

    /// TODO, FIXME, HACK, XXX, BUG and NOTE markers, one per comment line.
    fn comment(&mut self, node: Node<'_>) {
        let (from, to) = (node.start_byte(), node.end_byte().min(self.src.len()));
        let mut row = node.start_position().row;
        let mut at = from;
        while at < to && row <= self.r1 {
            let end = self.src[at..to]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(to, |p| at + p);
            if row >= self.r0 {
                let text = String::from_utf8_lossy(&self.src[at..end]);
                let text = text.strip_suffix('\r').unwrap_or(&text);
                if let Some((kind, rest)) = marker(text) {
                    self.todos.push(Todo {
                        line: row as u32 + 1,
                        kind: kind.to_string(),
                        text: rest,
                        context: line_around(self.src, at).trim().to_string(),
                    });
                }
            }
            at = end + 1;
            row += 1;
        }
    }

    /// The distinct names sorted, and the occurrences referring to them.
    fn occurrences(&mut self, defs: &DefSpots) -> (Vec<String>, Vec<Occurrence>) {
        let mut order: Vec<usize> = (0..self.distinct.len()).collect();
        order.sort_unstable_by(|&a, &b| self.distinct[a].cmp(self.distinct[b]));
        let mut new_id = vec![0u32; order.len()];
        let names = order
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                new_id[d] = i as u32;
                self.distinct[d].to_string()
            })
            .collect();
        let occurrences = self
            .occ
            .iter()
            .map(|&(id, line, column)| Occurrence {
                name: new_id[id as usize],
                line,
                column,
                is_definition: defs.contains(&(line, column)),
            })
            .collect();
        (names, occurrences)
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
    }
}
