//! Indexing one file: parse, let the language extract symbols and imports, then the passes
//! that are the same for every language, in one walk of the tree: identifier occurrences
//! (flagged when they name a definition), TODO-style comments, complexity (lines of code,
//! block nesting, decisions) and syntax errors.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

pub use tree_sitter::Tree;
use tree_sitter::{Node, Parser};

use crate::lang::{Cx, Lang};
use crate::model::{Complexity, FileIndex, Occurrence, SyntaxError, Todo};

/// Files larger than this are recorded but not parsed.
pub const MAX_PARSE_BYTES: usize = 4 << 20;

/// Most syntax errors recorded per file.
const MAX_ERRORS: usize = 100;

thread_local! {
    /// One parser per thread and language: creating one costs more than a small file's parse.
    static PARSERS: RefCell<BTreeMap<&'static str, Parser>> = const { RefCell::new(BTreeMap::new()) };
}

/// The content hash used to skip unchanged files.
pub fn hash(content: &[u8]) -> String {
    blake3::hash(content).to_hex().to_string()
}

/// Parse `content` as `lang`; with `old` (the previous tree, already told of the edit
/// with `Tree::edit`) tree-sitter reuses what did not change.
pub fn parse(lang: Lang, content: &[u8], old: Option<&Tree>) -> Option<Tree> {
    PARSERS.with(|p| {
        let mut parsers = p.borrow_mut();
        let parser = parsers.entry(lang.as_str()).or_insert_with(|| {
            let mut parser = Parser::new();
            // Every grammar here is one the linked tree-sitter accepts (ABI 14-15).
            let _ = parser.set_language(&lang.grammar());
            parser
        });
        parser.parse(content, old)
    })
}

/// Index one file. Files of no known language, binary files (a NUL byte) and files over
/// [`MAX_PARSE_BYTES`] get only their hash and size.
pub fn index_file(path: &str, content: &[u8]) -> FileIndex {
    index_incremental(path, content, None).0
}

/// [`index_file`] for text that changed since `prev` (the old text and its tree): the edit
/// is found by comparing the two and the old tree is reused, so a small edit to a big file
/// reparses only around it. Returns the tree for the next edit.
pub fn index_incremental(
    path: &str,
    content: &[u8],
    prev: Option<(&[u8], &Tree)>,
) -> (FileIndex, Option<Tree>) {
    let mut out = FileIndex {
        path: path.to_string(),
        lang: Lang::of_path(path),
        hash: hash(content),
        bytes: content.len() as u64,
        lines: line_count(content),
        ..FileIndex::default()
    };
    let Some(lang) = out.lang else {
        return (out, None);
    };
    if content.len() > MAX_PARSE_BYTES || content.contains(&0) {
        out.lang = None;
        return (out, None);
    }
    let old = prev.map(|(old_text, old_tree)| {
        let mut tree = old_tree.clone();
        tree.edit(&edit_between(old_text, content));
        tree
    });
    let Some(tree) = parse(lang, content, old.as_ref()) else {
        return (out, None);
    };
    {
        let mut cx = Cx {
            src: content,
            out: &mut out,
            lang,
        };
        lang.extract(&tree, &mut cx);
    }
    generic(lang, tree.root_node(), content, &mut out);
    (out, Some(tree))
}

/// The single edit that turns `old` into `new`: the bytes between their common prefix and
/// common suffix.
fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let point = |text: &[u8], at: usize| {
        let before = &text[..at];
        let row = before.iter().filter(|&&b| b == b'\n').count();
        let col = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        tree_sitter::Point::new(row, col)
    };
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: old.len() - suffix,
        new_end_byte: new.len() - suffix,
        start_position: point(old, prefix),
        old_end_position: point(old, old.len() - suffix),
        new_end_position: point(new, new.len() - suffix),
    }
}

fn line_count(content: &[u8]) -> u32 {
    let n = content.iter().filter(|&&b| b == b'\n').count();
    let last = usize::from(!content.is_empty() && !content.ends_with(b"\n"));
    (n + last) as u32
}

struct Walk<'s> {
    flags: &'static [u8],
    src: &'s [u8],
    defs: HashSet<(u32, u32)>,
    /// Occurrences by name, borrowed from the source (no allocation per occurrence).
    names: HashMap<&'s str, Vec<Spot>>,
    code_lines: Vec<bool>,
    todos: Vec<Todo>,
    errors: Vec<SyntaxError>,
    decisions: u32,
    max_depth: u32,
}

/// Where an identifier occurs: line, column, and whether it names a definition.
type Spot = (u32, u32, bool);

const IDENT: u8 = 1;
const COMMENT: u8 = 2;
const DECISION: u8 = 4;
const BLOCK: u8 = 8;

/// Per language, the [`Spec`] as flags indexed by node kind id, so the walk compares
/// numbers rather than kind names at every node.
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

fn generic(lang: Lang, root: Node<'_>, src: &[u8], out: &mut FileIndex) {
    let mut w = Walk {
        flags: kind_flags(lang),
        src,
        defs: out.definitions.iter().map(|d| (d.line, d.column)).collect(),
        names: HashMap::new(),
        code_lines: vec![false; out.lines as usize + 2],
        todos: Vec::new(),
        errors: Vec::new(),
        decisions: 0,
        max_depth: 0,
    };
    w.walk(root);
    // Names sorted, occurrences in source order.
    let mut names: Vec<(&str, Vec<Spot>)> = std::mem::take(&mut w.names).into_iter().collect();
    names.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let total: usize = names.iter().map(|(_, v)| v.len()).sum();
    let mut occurrences = Vec::with_capacity(total);
    out.names = Vec::with_capacity(names.len());
    for (i, (name, occ)) in names.into_iter().enumerate() {
        out.names.push(name.to_string());
        for (line, column, is_definition) in occ {
            occurrences.push(Occurrence {
                name: i as u32,
                line,
                column,
                is_definition,
            });
        }
    }
    occurrences.sort_unstable_by_key(|o| (o.line, o.column));
    out.occurrences = occurrences;
    let loc = w.code_lines.iter().filter(|&&c| c).count() as u32;
    out.complexity = Complexity::scored(loc, w.max_depth, 1 + w.decisions);
    out.todos = w.todos;
    out.errors = w.errors;
}

impl<'s> Walk<'s> {
    /// One pre-order pass with a single cursor (a cursor per node costs an allocation).
    fn walk(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        // Block depth at each tree level on the way down.
        let mut depths: Vec<u32> = vec![0];
        loop {
            let node = cursor.node();
            let depth = *depths.last().unwrap_or(&0);
            let descend = self.visit(node, depth);
            if descend.is_some() && cursor.goto_first_child() {
                depths.push(descend.unwrap_or(depth));
                continue;
            }
            // Next sibling, or up until there is one.
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                depths.pop();
            }
        }
    }

    /// Record what `node` itself says; `Some(depth)` to descend into it with that block
    /// depth, `None` to skip its subtree.
    fn visit(&mut self, node: Node<'_>, depth: u32) -> Option<u32> {
        let flags = self
            .flags
            .get(node.kind_id() as usize)
            .copied()
            .unwrap_or(0);
        if flags & COMMENT != 0 {
            self.comment(node);
            return None;
        }
        if node.is_error() || node.is_missing() {
            if self.errors.len() < MAX_ERRORS {
                let (s, e) = (node.start_position(), node.end_position());
                let message = if node.is_missing() {
                    format!("missing `{}`", node.kind())
                } else {
                    let text = String::from_utf8_lossy(&self.src[node.byte_range()]);
                    let first: String =
                        text.lines().next().unwrap_or("").chars().take(40).collect();
                    format!("syntax error near `{first}`")
                };
                self.errors.push(SyntaxError {
                    line: s.row as u32 + 1,
                    column: s.column as u32,
                    end_line: e.row as u32 + 1,
                    end_column: e.column as u32,
                    message,
                });
            }
            if node.is_missing() {
                return None;
            }
        }
        if flags & DECISION != 0 {
            self.decisions += 1;
        }
        let depth = if flags & BLOCK != 0 {
            self.max_depth = self.max_depth.max(depth + 1);
            depth + 1
        } else {
            depth
        };
        if node.child_count() == 0 {
            let (s, e) = (node.start_position().row, node.end_position().row);
            for l in s..=e {
                if let Some(slot) = self.code_lines.get_mut(l + 1) {
                    *slot = true;
                }
            }
            if flags & IDENT != 0 && node.is_named() {
                let src: &'s [u8] = self.src;
                if let Ok(name) = std::str::from_utf8(&src[node.byte_range()]) {
                    let line = s as u32 + 1;
                    let column = node.start_position().column as u32;
                    let def = self.defs.contains(&(line, column));
                    self.names
                        .entry(name)
                        .or_default()
                        .push((line, column, def));
                }
            }
            return None;
        }
        Some(depth)
    }

    /// TODO, FIXME, HACK, XXX, BUG and NOTE markers, one per comment line.
    fn comment(&mut self, node: Node<'_>) {
        let text = String::from_utf8_lossy(&self.src[node.byte_range()]);
        let first_line = node.start_position().row as u32 + 1;
        for (i, l) in text.lines().enumerate() {
            if let Some((kind, rest)) = marker(l) {
                let line = first_line + i as u32;
                let context = line_text(self.src, line).trim().to_string();
                self.todos.push(Todo {
                    line,
                    kind: kind.to_string(),
                    text: rest,
                    context,
                });
            }
        }
    }
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

/// The text of 1-based `line`.
fn line_text(src: &[u8], line: u32) -> String {
    let mut n = 1;
    let mut start = 0;
    for (i, &b) in src.iter().enumerate() {
        if n == line {
            start = i;
            break;
        }
        if b == b'\n' {
            n += 1;
            if n == line {
                start = i + 1;
                break;
            }
        }
    }
    if n != line {
        return String::new();
    }
    let end = src[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(src.len(), |p| start + p);
    String::from_utf8_lossy(&src[start..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{index_file, index_incremental, marker};

    /// Reparsing with the previous tree gives exactly the record a full parse gives, edit
    /// after edit (inserts, deletes, replacements, at the start, middle and end, across
    /// lines and multi-byte characters).
    #[test]
    fn incremental_matches_full() {
        let mut text = String::from(
            "/// Doc.\npub fn a(x: u32) -> u32 { x + 1 }\n\nstruct S { f: i32 }\nimpl S { fn m(&self) -> i32 { self.f } }\n// TODO: é later\n",
        );
        let (_, mut tree) = index_incremental("lib.rs", text.as_bytes(), None);
        let edits: [(f64, usize, &str); 8] = [
            (0.5, 0, "fn b() {}\n"),
            (0.0, 0, "// head\n"),
            (1.0, 0, "\nconst C: u8 = 1;\n"),
            (0.3, 5, ""),
            (0.7, 3, "é{"),
            (0.6, 0, "}"),
            (0.2, 12, "pub struct T;\n"),
            (0.9, 2, "zz"),
        ];
        for (frac, del, ins) in edits {
            let mut at = (text.len() as f64 * frac) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + del).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let prev = text.clone();
            text.replace_range(at..end, ins);
            let (inc, next) = index_incremental(
                "lib.rs",
                text.as_bytes(),
                tree.as_ref().map(|t| (prev.as_bytes(), t)),
            );
            let full = index_file("lib.rs", text.as_bytes());
            assert_eq!(inc, full, "after editing at {at}: {text:?}");
            assert_eq!(inc.occurrences, full.occurrences);
            assert_eq!(inc.names, full.names);
            tree = next;
        }
    }

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
