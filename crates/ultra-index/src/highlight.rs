//! Syntax highlighting for editors: each grammar's own `highlights.scm` run over the part of
//! a file on screen. A [`Highlighter`] keeps the last text and tree of one buffer, so an
//! edit reparses only around itself (the same way the index's incremental path does), and
//! [`Highlighter::spans`] runs the query only over the requested bytes.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::{Query, QueryCursor, StreamingIterator, Tree};

use crate::lang::Lang;
use crate::passes::{MAX_PARSE_BYTES, edit_for, parse};

/// Highlight scopes are wire data: the protocol defines them, the editor colours them.
pub use ultra_protocol::view::Scope;

/// The scope of a capture name such as `function.method` (by its first part).
pub fn scope_of_capture(name: &str) -> Option<Scope> {
    if name == "variable.builtin" || name == "function.builtin" || name == "type.builtin" {
        return Some(Scope::Builtin);
    }
    let head = name.split('.').next().unwrap_or(name);
    Some(match head {
        "keyword" | "conditional" | "repeat" | "include" | "exception" | "storageclass" => {
            Scope::Keyword
        }
        "string" | "character" => Scope::String,
        "comment" => Scope::Comment,
        "function" | "method" => Scope::Function,
        "type" | "constructor" => Scope::Type,
        "number" | "float" => Scope::Number,
        "constant" | "boolean" => Scope::Constant,
        "property" | "field" => Scope::Property,
        "operator" => Scope::Operator,
        "punctuation" | "delimiter" => Scope::Punctuation,
        "attribute" | "annotation" => Scope::Attribute,
        "module" | "namespace" => Scope::Module,
        "label" => Scope::Label,
        "tag" => Scope::Tag,
        "escape" => Scope::Escape,
        "variable" | "parameter" => Scope::Variable,
        _ => return None,
    })
}

/// One highlighted run of bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub scope: Scope,
}

/// A syntax error in the tree, by bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxMark {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

/// The highlight query text of a language; TypeScript and TSX build on JavaScript's, C++
/// on C's, as editors that ship these grammars do.
fn query_sources(lang: Lang) -> Vec<&'static str> {
    match lang {
        Lang::Rust => vec![tree_sitter_rust::HIGHLIGHTS_QUERY],
        Lang::Python => vec![tree_sitter_python::HIGHLIGHTS_QUERY],
        Lang::JavaScript => vec![
            tree_sitter_javascript::HIGHLIGHT_QUERY,
            tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
        ],
        Lang::TypeScript => vec![
            tree_sitter_typescript::HIGHLIGHTS_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY,
        ],
        Lang::Tsx => vec![
            tree_sitter_typescript::HIGHLIGHTS_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY,
            tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
        ],
        Lang::Go => vec![tree_sitter_go::HIGHLIGHTS_QUERY],
        Lang::Java => vec![tree_sitter_java::HIGHLIGHTS_QUERY],
        Lang::C => vec![tree_sitter_c::HIGHLIGHT_QUERY],
        Lang::Cpp => vec![
            tree_sitter_cpp::HIGHLIGHT_QUERY,
            tree_sitter_c::HIGHLIGHT_QUERY,
        ],
    }
}

/// A compiled query with each capture's scope.
struct Compiled {
    query: Query,
    scopes: Vec<Option<Scope>>,
}

/// The language's query, compiled once. Parts that do not compile against the grammar
/// are left out (a base language's query may name nodes a dialect lacks).
fn compiled(lang: Lang) -> Option<&'static Compiled> {
    static ALL: OnceLock<std::sync::Mutex<HashMap<Lang, Option<&'static Compiled>>>> =
        OnceLock::new();
    let all = ALL.get_or_init(Default::default);
    let mut all = all.lock().unwrap_or_else(|p| p.into_inner());
    *all.entry(lang).or_insert_with(|| {
        let grammar = lang.grammar();
        let mut text = String::new();
        for part in query_sources(lang) {
            let candidate = format!("{text}\n{part}");
            if Query::new(&grammar, &candidate).is_ok() {
                text = candidate;
            }
        }
        let query = Query::new(&grammar, &text).ok()?;
        let scopes = query
            .capture_names()
            .iter()
            .map(|n| scope_of_capture(n))
            .collect();
        Some(&*Box::leak(Box::new(Compiled { query, scopes })))
    })
}

/// The highlighting state of one buffer.
pub struct Highlighter {
    lang: Lang,
    text: Vec<u8>,
    tree: Tree,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter")
            .field("lang", &self.lang)
            .field("bytes", &self.text.len())
            .finish_non_exhaustive()
    }
}

impl Highlighter {
    /// Parse `content` for highlighting; `None` for files too large to parse.
    pub fn new(lang: Lang, content: Vec<u8>) -> Option<Highlighter> {
        if content.len() > MAX_PARSE_BYTES {
            return None;
        }
        let tree = parse(lang, &content, None)?;
        Some(Highlighter {
            lang,
            text: content,
            tree,
        })
    }

    /// The language.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// Bring the tree up to `content`, reparsing only what changed. Returns false (and
    /// keeps nothing useful) when the new text is too large to parse.
    pub fn update(&mut self, content: Vec<u8>) -> bool {
        if content == self.text {
            return true;
        }
        if content.len() > MAX_PARSE_BYTES {
            return false;
        }
        let edit = edit_for(self.lang, &self.text, &content);
        self.tree.edit(&edit);
        match parse(self.lang, &content, Some(&self.tree)) {
            Some(tree) => {
                self.tree = tree;
                self.text = content;
                true
            }
            None => false,
        }
    }

    /// Syntax errors (error and missing nodes) that overlap `bytes`, from the current
    /// tree: the markers an editor draws without waiting for the index.
    pub fn errors(&self, bytes: Range<usize>) -> Vec<SyntaxMark> {
        let mut out = Vec::new();
        let mut cursor = self.tree.walk();
        if !self.tree.root_node().has_error() {
            return out;
        }
        'walk: loop {
            let node = cursor.node();
            let r = node.byte_range();
            let overlaps = r.start < bytes.end.max(bytes.start + 1) && r.end >= bytes.start;
            if overlaps && (node.is_error() || node.is_missing()) {
                out.push(SyntaxMark {
                    start: r.start,
                    end: r.end,
                    message: if node.is_missing() {
                        format!("missing `{}`", node.kind())
                    } else {
                        "syntax error".to_string()
                    },
                });
                if out.len() >= 200 {
                    break;
                }
            } else if overlaps && node.has_error() && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        out
    }

    /// The highlighted spans that overlap `bytes`, in order and not overlapping each
    /// other: for nested captures the innermost wins; for one node captured by several
    /// patterns the first pattern wins (tree-sitter-highlight's rule).
    pub fn spans(&self, bytes: Range<usize>) -> Vec<Span> {
        let Some(c) = compiled(self.lang) else {
            return Vec::new();
        };
        let lo = bytes.start.min(self.text.len());
        let hi = bytes.end.min(self.text.len());
        if lo >= hi {
            return Vec::new();
        }
        let mut found: Vec<(usize, usize, u32, Scope)> = Vec::new();
        let mut cursor = QueryCursor::new();
        cursor.set_byte_range(lo..hi);
        let mut captures = cursor.captures(&c.query, self.tree.root_node(), self.text.as_slice());
        while let Some((m, i)) = captures.next() {
            let cap = m.captures()[*i];
            if let Some(scope) = c.scopes[cap.index as usize] {
                let r = cap.node.byte_range();
                if r.end > lo && r.start < hi {
                    found.push((
                        r.start.max(lo),
                        r.end.min(hi),
                        m.pattern_index as u32,
                        scope,
                    ));
                }
            }
        }
        // Outer nodes first so inner ones paint over them; same node: lowest pattern first.
        found.sort_by(|a, b| (a.0, b.1, a.2).cmp(&(b.0, a.1, b.2)));
        let mut paint: Vec<Option<Scope>> = vec![None; hi - lo];
        let mut last: Option<(usize, usize)> = None;
        for (s, e, _, scope) in found {
            if last == Some((s, e)) {
                continue;
            }
            last = Some((s, e));
            paint[s - lo..e - lo].fill(Some(scope));
        }
        let mut out: Vec<Span> = Vec::new();
        for (i, p) in paint.into_iter().enumerate() {
            let Some(scope) = p else { continue };
            match out.last_mut() {
                Some(sp) if sp.end == lo + i && sp.scope == scope => sp.end += 1,
                _ => out.push(Span {
                    start: lo + i,
                    end: lo + i + 1,
                    scope,
                }),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_a_query() {
        for lang in Lang::ALL {
            let c = compiled(lang).unwrap_or_else(|| panic!("{lang:?} has no query"));
            assert!(
                c.scopes.contains(&Some(Scope::Keyword)),
                "{lang:?} has no keyword capture"
            );
        }
    }

    fn scope_of(h: &Highlighter, text: &str, needle: &str) -> Option<Scope> {
        let at = text.find(needle).expect("needle");
        h.spans(0..text.len())
            .into_iter()
            .find(|s| s.start <= at && at < s.end)
            .map(|s| s.scope)
    }

    #[test]
    fn rust_tokens_get_their_scopes() {
        let text = "// note\nfn main() { let s = \"hi\"; let n = 42; }\n";
        let h = Highlighter::new(Lang::Rust, text.as_bytes().to_vec()).expect("parse");
        assert_eq!(scope_of(&h, text, "// note"), Some(Scope::Comment));
        assert_eq!(scope_of(&h, text, "fn"), Some(Scope::Keyword));
        assert_eq!(scope_of(&h, text, "main"), Some(Scope::Function));
        assert_eq!(scope_of(&h, text, "\"hi\""), Some(Scope::String));
        // tree-sitter-rust captures literals as `constant.builtin`.
        assert_eq!(scope_of(&h, text, "42"), Some(Scope::Constant));
    }

    #[test]
    fn typescript_uses_the_javascript_base() {
        let text = "const x: number = 1;\nfunction f() { return 'a'; }\n";
        let h = Highlighter::new(Lang::TypeScript, text.as_bytes().to_vec()).expect("parse");
        assert_eq!(scope_of(&h, text, "const"), Some(Scope::Keyword));
        assert_eq!(scope_of(&h, text, "'a'"), Some(Scope::String));
        assert_eq!(scope_of(&h, text, "number"), Some(Scope::Builtin));
    }

    #[test]
    fn an_update_gives_what_a_fresh_parse_gives() {
        let before = "fn a() {}\nfn b() {}\n";
        let after = "fn a() { let s = \"x\"; }\nfn b() {}\n";
        let mut h = Highlighter::new(Lang::Rust, before.as_bytes().to_vec()).expect("parse");
        assert!(h.update(after.as_bytes().to_vec()));
        let fresh = Highlighter::new(Lang::Rust, after.as_bytes().to_vec()).expect("parse");
        assert_eq!(h.spans(0..after.len()), fresh.spans(0..after.len()));
        assert_eq!(scope_of(&h, after, "\"x\""), Some(Scope::String));
    }

    #[test]
    fn errors_are_found_where_they_are() {
        let text = "fn a() { let x = ; }\nfn b() {}\n";
        let h = Highlighter::new(Lang::Rust, text.as_bytes().to_vec()).expect("parse");
        let errs = h.errors(0..text.len());
        assert!(!errs.is_empty());
        assert!(errs.iter().all(|e| e.end <= 21), "{errs:?}");
        assert!(h.errors(22..text.len()).is_empty());
        let ok = Highlighter::new(Lang::Rust, b"fn a() {}\n".to_vec()).expect("parse");
        assert!(ok.errors(0..10).is_empty());
    }

    #[test]
    fn spans_stay_inside_the_range_and_do_not_overlap() {
        let text = "fn main() { let s = \"a long string\"; }\n";
        let h = Highlighter::new(Lang::Rust, text.as_bytes().to_vec()).expect("parse");
        let spans = h.spans(22..30);
        assert!(!spans.is_empty());
        for w in spans.windows(2) {
            assert!(w[0].end <= w[1].start);
        }
        assert!(spans.iter().all(|s| s.start >= 22 && s.end <= 30));
    }
}
