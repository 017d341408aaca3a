//! Indexing one file: parse, let the language extract symbols and imports, then the passes
//! that are the same for every language, in one walk of the tree: identifier occurrences
//! (flagged when they name a definition), TODO-style comments, complexity (lines of code,
//! block nesting, decisions) and syntax errors.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};

use tree_sitter::{Node, Parser, Tree};

use crate::lang::{Cx, Lang, Spec};
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

/// Parse `content` as `lang`.
pub fn parse(lang: Lang, content: &[u8]) -> Option<Tree> {
    PARSERS.with(|p| {
        let mut parsers = p.borrow_mut();
        let parser = parsers.entry(lang.as_str()).or_insert_with(|| {
            let mut parser = Parser::new();
            // Every grammar here is one the linked tree-sitter accepts (ABI 14-15).
            let _ = parser.set_language(&lang.grammar());
            parser
        });
        parser.parse(content, None)
    })
}

/// Index one file. Files of no known language, binary files (a NUL byte) and files over
/// [`MAX_PARSE_BYTES`] get only their hash and size.
pub fn index_file(path: &str, content: &[u8]) -> FileIndex {
    let mut out = FileIndex {
        path: path.to_string(),
        lang: Lang::of_path(path),
        hash: hash(content),
        bytes: content.len() as u64,
        lines: line_count(content),
        ..FileIndex::default()
    };
    let Some(lang) = out.lang else {
        return out;
    };
    if content.len() > MAX_PARSE_BYTES || content.contains(&0) {
        out.lang = None;
        return out;
    }
    let Some(tree) = parse(lang, content) else {
        return out;
    };
    {
        let mut cx = Cx {
            src: content,
            out: &mut out,
            lang,
        };
        lang.extract(&tree, &mut cx);
    }
    generic(lang.spec(), tree.root_node(), content, &mut out);
    out
}

fn line_count(content: &[u8]) -> u32 {
    let n = content.iter().filter(|&&b| b == b'\n').count();
    let last = usize::from(!content.is_empty() && !content.ends_with(b"\n"));
    (n + last) as u32
}

struct Walk<'s> {
    spec: &'static Spec,
    src: &'s [u8],
    defs: HashSet<(u32, u32)>,
    names: BTreeMap<String, Vec<(u32, u32, bool)>>,
    code_lines: Vec<bool>,
    todos: Vec<Todo>,
    errors: Vec<SyntaxError>,
    decisions: u32,
    max_depth: u32,
}

fn generic(spec: &'static Spec, root: Node<'_>, src: &[u8], out: &mut FileIndex) {
    let mut w = Walk {
        spec,
        src,
        defs: out.definitions.iter().map(|d| (d.line, d.column)).collect(),
        names: BTreeMap::new(),
        code_lines: vec![false; out.lines as usize + 2],
        todos: Vec::new(),
        errors: Vec::new(),
        decisions: 0,
        max_depth: 0,
    };
    w.visit(root, 0);
    // Names sorted (BTreeMap order), occurrences in source order.
    let mut occurrences = Vec::new();
    out.names = Vec::with_capacity(w.names.len());
    for (i, (name, occ)) in std::mem::take(&mut w.names).into_iter().enumerate() {
        out.names.push(name);
        for (line, column, is_definition) in occ {
            occurrences.push(Occurrence {
                name: i as u32,
                line,
                column,
                is_definition,
            });
        }
    }
    occurrences.sort_by_key(|o| (o.line, o.column));
    out.occurrences = occurrences;
    let loc = w.code_lines.iter().filter(|&&c| c).count() as u32;
    out.complexity = Complexity::scored(loc, w.max_depth, 1 + w.decisions);
    out.todos = w.todos;
    out.errors = w.errors;
}

impl Walk<'_> {
    fn visit(&mut self, node: Node<'_>, depth: u32) {
        let kind = node.kind();
        if self.spec.comments.contains(&kind) {
            self.comment(node);
            return;
        }
        if node.is_error() || node.is_missing() {
            if self.errors.len() < MAX_ERRORS {
                let (s, e) = (node.start_position(), node.end_position());
                let message = if node.is_missing() {
                    format!("missing `{kind}`")
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
                return;
            }
        }
        if self.spec.decisions.contains(&kind) {
            self.decisions += 1;
        }
        let depth = if self.spec.blocks.contains(&kind) {
            let d = depth + 1;
            self.max_depth = self.max_depth.max(d);
            d
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
            if node.is_named() && self.spec.identifiers.contains(&kind) {
                let text = &self.src[node.byte_range()];
                if let Ok(name) = std::str::from_utf8(text) {
                    let line = s as u32 + 1;
                    let column = node.start_position().column as u32;
                    let def = self.defs.contains(&(line, column));
                    self.names
                        .entry(name.to_string())
                        .or_default()
                        .push((line, column, def));
                }
            }
            return;
        }
        let mut c = node.walk();
        for child in node.children(&mut c) {
            self.visit(child, depth);
        }
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
