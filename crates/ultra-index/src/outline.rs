//! The outline parse of a whole tree's files: function bodies that declare nothing are
//! left out of the parse, as ctags never reads them. In Rust, a body is left out when it
//! holds no nested item (`fn`, `impl`, `use`, ...); in C, every function body is (the
//! extractor reads nothing inside one). Such bodies are a quarter of a Rust tree's bytes
//! and more of its parse, and nothing the index keeps comes from their syntax: names,
//! TODOs and complexity come from the lexical scan (`lex/`), which still reads every byte.
//!
//! The bodies are found by that same scan, before the parse ([`Finder`] is fed its
//! brackets and keywords), and tree-sitter is told to parse only what lies around them
//! (`set_included_ranges`), each body parsed as an empty `{}` block. A body the finder got
//! wrong would change the tree, so [`holds`] checks that each left-out range is the inside
//! of a function's body block; if one is not, the file is parsed whole.
//!
//! What is lost: syntax errors inside a left-out body. So only files indexed in bulk (a
//! walk of many files) are parsed this way; a file opened, edited, saved through Ultra or
//! changed on disk alone is parsed whole, and a record says which it got
//! ([`crate::FileIndex::outline`]).

use tree_sitter::{Point, Range, Tree};

use crate::lang::Lang;

/// Bodies smaller than this are parsed: skipping them saves less than the range costs.
const MIN_BODY: usize = 48;

/// A function body left out of the parse: its braces' bytes and positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Body {
    open: usize,
    open_at: Point,
    close: usize,
    close_at: Point,
}

/// An open bracket, as the finder tracks it.
#[derive(Debug, Clone, Copy)]
struct Open {
    /// `{`, `(` or `[`.
    kind: u8,
    byte: usize,
    at: Point,
    /// A function's body (`{` after `fn name ...`).
    body: bool,
    /// Holds an item's keyword: a body that does is parsed.
    items: bool,
    /// A macro's token tree (`quote! { .. }`, `macro_rules! m { .. }`): a `fn` in it is
    /// not an item tree-sitter parses.
    macro_tree: bool,
}

/// Finds, from the lexical scan's tokens, the function bodies that declare nothing.
#[derive(Debug, Default)]
pub(crate) struct Finder {
    /// C, where the extractor reads nothing inside a function (Rust otherwise).
    c: bool,
    stack: Vec<Open>,
    /// The bracket depth at a `fn name` whose body has not opened yet.
    pending_fn: Option<usize>,
    /// The next opening bracket starts a macro's token tree.
    macro_next: bool,
    /// Macro token trees open.
    in_macro: usize,
    /// Brackets did not pair up: the file is parsed whole.
    broken: bool,
    found: Vec<Body>,
}

impl Finder {
    /// The finder for `lang`'s bodies, if it has one.
    pub fn of(lang: Lang) -> Option<Finder> {
        match lang {
            Lang::Rust => Some(Finder::default()),
            Lang::C => Some(Finder {
                c: true,
                ..Finder::default()
            }),
            _ => None,
        }
    }

    /// A name: Rust's `union` and `macro_rules` start items, though the scan reads them
    /// as names.
    pub fn ident(&mut self, name: &str) {
        if !self.c
            && matches!(name, "union" | "macro_rules")
            && let Some(top) = self.stack.last_mut()
        {
            top.items = true;
        }
    }

    /// A keyword at byte `at` of `src`.
    pub fn keyword(&mut self, src: &[u8], w: &[u8], at: usize) {
        // `'static` is a lifetime.
        if !crate::lang::rust_item_keyword(w) || at.checked_sub(1).is_some_and(|b| src[b] == b'\'')
        {
            return;
        }
        if let Some(top) = self.stack.last_mut() {
            top.items = true;
        }
        if w == b"fn"
            && self.in_macro == 0
            && next_non_blank(src, at + 2).is_some_and(crate::lex::ident_byte)
        {
            self.pending_fn = Some(self.stack.len());
        }
    }

    /// A bracket, `;` or `!` at byte `at`, at `row`, `col`.
    pub fn punct(&mut self, src: &[u8], b: u8, at: usize, row: usize, col: usize) {
        let point = Point { row, column: col };
        match b {
            b'!' | b';' if self.c => {}
            b'!' => {
                // `name!(..)`, or `macro_rules! name { .. }`.
                let after_name = at
                    .checked_sub(1)
                    .is_some_and(|p| crate::lex::ident_byte(src[p]));
                let opens = next_non_blank(src, at + 1).is_some_and(|c| b"([{".contains(&c));
                self.macro_next = after_name && (opens || src[..at].ends_with(b"macro_rules"));
            }
            b';' => {
                if self.pending_fn == Some(self.stack.len()) {
                    self.pending_fn = None;
                }
            }
            b'{' | b'(' | b'[' => {
                let (body, macro_tree) = if self.c {
                    (b == b'{' && self.c_body(src, at), false)
                } else {
                    self.rust_opening(src, b, at)
                };
                self.in_macro += usize::from(macro_tree);
                self.stack.push(Open {
                    kind: b,
                    byte: at,
                    at: point,
                    body,
                    items: false,
                    macro_tree,
                });
            }
            _ => self.close(b, at, point),
        }
    }

    /// C: whether the `{` at `at` opens a function's body: `int f(void) {` outside any
    /// function and any bracket, not on a preprocessor line.
    fn c_body(&self, src: &[u8], at: usize) -> bool {
        self.stack.iter().all(|o| o.kind == b'{' && !o.body)
            && src[..at].trim_ascii_end().ends_with(b")")
            && !in_directive(src, at)
    }

    /// Rust: whether the bracket `b` at `at` opens a function's body, and whether it opens
    /// a macro's token tree.
    fn rust_opening(&mut self, src: &[u8], b: u8, at: usize) -> (bool, bool) {
        let body = b == b'{'
            && self.in_macro == 0
            && self.pending_fn == Some(self.stack.len())
            && !self.macro_next;
        if body {
            self.pending_fn = None;
        }
        // An attribute's brackets are a token tree too: `#[error("{}", { .. })]`.
        let attribute = b == b'[' && (src[..at].ends_with(b"#") || src[..at].ends_with(b"#!"));
        (body, std::mem::take(&mut self.macro_next) || attribute)
    }

    fn close(&mut self, b: u8, at: usize, point: Point) {
        let Some(open) = self.stack.pop() else {
            self.broken = true;
            return;
        };
        let opener = match b {
            b'}' => b'{',
            b')' => b'(',
            _ => b'[',
        };
        if self.pending_fn.is_some_and(|d| d > self.stack.len()) {
            self.pending_fn = None;
        }
        self.broken |= open.kind != opener;
        self.in_macro -= usize::from(open.macro_tree);
        if open.items {
            if let Some(parent) = self.stack.last_mut() {
                parent.items = true;
            }
        } else if open.body && at - open.byte > MIN_BODY {
            self.found.push(Body {
                open: open.byte,
                open_at: open.at,
                close: at,
                close_at: point,
            });
        }
    }

    /// The bodies to leave out, in source order; none when the brackets did not pair up.
    pub fn finish(self) -> Vec<Body> {
        if self.broken || !self.stack.is_empty() {
            return Vec::new();
        }
        let mut found = self.found;
        // A body is recorded when it closes, after any body inside it (there are none:
        // a nested `fn` makes its body kept), so the order is the closing order.
        found.sort_unstable_by_key(|b| b.open);
        found
    }
}

/// Whether byte `at` is on a preprocessor line (`#define F(x) { .. }`), continued lines
/// included.
fn in_directive(src: &[u8], at: usize) -> bool {
    let mut start = at;
    loop {
        start = src[..start]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let continued = start >= 2
            && src[..start - 1].trim_ascii_end().ends_with(b"\\")
            && src[start - 2] != b'\n';
        if !continued {
            break;
        }
        start -= 1;
    }
    src[start..].trim_ascii_start().starts_with(b"#")
}

fn next_non_blank(src: &[u8], from: usize) -> Option<u8> {
    src.get(from..)?
        .iter()
        .copied()
        .find(|c| !c.is_ascii_whitespace())
}

/// The ranges tree-sitter parses: everything but the inside of each body.
pub(crate) fn included(bodies: &[Body]) -> Vec<Range> {
    let mut ranges = Vec::with_capacity(bodies.len() + 1);
    let (mut from, mut from_at) = (0, Point { row: 0, column: 0 });
    for b in bodies {
        ranges.push(Range {
            start_byte: from,
            start_point: from_at,
            end_byte: b.open + 1,
            end_point: Point {
                row: b.open_at.row,
                column: b.open_at.column + 1,
            },
        });
        (from, from_at) = (b.close, b.close_at);
    }
    ranges.push(Range {
        start_byte: from,
        start_point: from_at,
        end_byte: usize::MAX,
        end_point: Point {
            row: usize::MAX,
            column: usize::MAX,
        },
    });
    ranges
}

/// Whether, in `tree` (of `lang`) parsed without them, each of `bodies` is the inside of
/// a function's body block: then the tree is the one a whole parse gives, bodies aside.
pub(crate) fn holds(lang: Lang, tree: &Tree, bodies: &[Body]) -> bool {
    let (block_kind, function_kind) = match lang {
        Lang::C => ("compound_statement", "function_definition"),
        _ => ("block", "function_item"),
    };
    let root = tree.root_node();
    bodies.iter().all(|b| {
        let Some(block) = root
            .descendant_for_byte_range(b.open, b.open + 1)
            .and_then(|brace| brace.parent())
        else {
            return false;
        };
        block.kind() == block_kind
            && block.start_byte() == b.open
            && block.end_byte() == b.close + 1
            && !block.has_error()
            && block.parent().is_some_and(|f| {
                f.kind() == function_kind && f.child_by_field_name("body") == Some(block)
            })
    })
}
