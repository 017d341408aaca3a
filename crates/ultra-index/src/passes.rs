//! Indexing one file: parse, let the language extract symbols and imports, then run the
//! passes that are the same for every language ([`crate::generic`]). Open buffers keep an
//! [`Incremental`] state so that each edit reparses and rewalks only around itself.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;

pub use tree_sitter::Tree;
use tree_sitter::{InputEdit, Parser};

use crate::generic::{DefSpots, Generic};
use crate::lang::{Cx, Lang};
use crate::model::{Class, Definition, FileIndex, Function, Import};
use crate::outline::{Body, Finder};

/// Files larger than this are recorded but not parsed.
pub const MAX_PARSE_BYTES: usize = 4 << 20;

thread_local! {
    /// One parser per thread and language: creating one costs more than a small file's parse.
    static PARSERS: RefCell<BTreeMap<&'static str, Parser>> = const { RefCell::new(BTreeMap::new()) };
}

/// The content hash used to skip unchanged files.
pub fn hash(content: &[u8]) -> String {
    blake3::hash(content).to_hex().to_string()
}

/// Parse `content` as `lang`; with `old` (the previous tree, already told of the edit
/// with [`edit_for`]) tree-sitter reuses what did not change.
pub fn parse(lang: Lang, content: &[u8], old: Option<&Tree>) -> Option<Tree> {
    let content = parse_input(lang, content);
    with_parser(lang, |parser| parser.parse(&*content, old))
}

/// `f` with this thread's parser for `lang`.
fn with_parser<R>(lang: Lang, f: impl FnOnce(&mut Parser) -> R) -> R {
    PARSERS.with(|p| {
        let mut parsers = p.borrow_mut();
        let parser = parsers.entry(lang.as_str()).or_insert_with(|| {
            let mut parser = Parser::new();
            // Every grammar here is one the linked tree-sitter accepts (ABI 14-15).
            let _ = parser.set_language(&lang.grammar());
            parser
        });
        f(parser)
    })
}

/// What the parser is given for `content`: the same bytes, except that syntax the grammar
/// predates is blanked out with spaces (so every node's position is still right for
/// `content`). TypeScript 4.7's variance annotations (`interface Cache<in out K>`) would
/// otherwise turn whole declarations into error nodes with tree-sitter-typescript 0.23,
/// the newest published grammar.
fn parse_input(lang: Lang, content: &[u8]) -> Cow<'_, [u8]> {
    if !matches!(lang, Lang::TypeScript | Lang::Tsx) {
        return Cow::Borrowed(content);
    }
    let mut out: Option<Vec<u8>> = None;
    let word_at = |i: usize, w: &[u8]| {
        content[i..].starts_with(w)
            && content
                .get(i + w.len())
                .is_some_and(|c| c.is_ascii_whitespace())
    };
    let skip_space = |mut i: usize| {
        while content.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    for at in memchr::memchr2_iter(b'<', b',', content) {
        // `<in T`, `, out U`, `<in out V`, `<const in T`: modifiers before a type parameter.
        let mut i = skip_space(at + 1);
        if word_at(i, b"const") {
            i = skip_space(i + 5);
        }
        let start = i;
        let mut end = i;
        for w in [&b"in"[..], b"out"] {
            if word_at(i, w) {
                end = i + w.len();
                i = skip_space(end);
            }
        }
        let names_a_parameter = content
            .get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_' || *c == b'$');
        if end > start && names_a_parameter {
            let bytes = out.get_or_insert_with(|| content.to_vec());
            bytes[start..end].fill(b' ');
        }
    }
    out.map_or(Cow::Borrowed(content), Cow::Owned)
}

/// The edit from `old` to `new` as the parser sees them (see [`parse_input`]), for
/// `Tree::edit` before an incremental [`parse`].
pub fn edit_for(lang: Lang, old: &[u8], new: &[u8]) -> InputEdit {
    edit_between(&parse_input(lang, old), &parse_input(lang, new))
}

/// What reindexing an open buffer keeps between edits: the text and tree last indexed,
/// the language's symbols, and the generic passes' results by row.
pub struct Incremental {
    text: Vec<u8>,
    tree: Tree,
    symbols: Symbols,
    generic: Generic,
}

impl std::fmt::Debug for Incremental {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incremental")
            .field("bytes", &self.text.len())
            .finish_non_exhaustive()
    }
}

/// What a language's extractor produced.
#[derive(Debug, Clone, Default)]
struct Symbols {
    functions: Vec<Function>,
    classes: Vec<Class>,
    definitions: Vec<Definition>,
    imports: Vec<Import>,
}

impl Symbols {
    fn of(out: &FileIndex) -> Symbols {
        Symbols {
            functions: out.functions.clone(),
            classes: out.classes.clone(),
            definitions: out.definitions.clone(),
            imports: out.imports.clone(),
        }
    }

    /// Lines after the edit move by the lines it added or removed.
    fn shift(mut self, edit: &InputEdit) -> Symbols {
        let after = edit.old_end_position.row as u32 + 1;
        let delta = edit.new_end_position.row as i64 - edit.old_end_position.row as i64;
        let f = |l: &mut u32| {
            if *l > after {
                *l = (i64::from(*l) + delta) as u32;
            }
        };
        for x in &mut self.functions {
            f(&mut x.line_start);
            f(&mut x.line_end);
        }
        for x in &mut self.classes {
            f(&mut x.line_start);
            f(&mut x.line_end);
        }
        for x in &mut self.definitions {
            f(&mut x.line);
            f(&mut x.line_end);
        }
        for x in &mut self.imports {
            f(&mut x.line);
        }
        self
    }

    fn into(self, out: &mut FileIndex) {
        out.functions = self.functions;
        out.classes = self.classes;
        out.definitions = self.definitions;
        out.imports = self.imports;
    }
}

thread_local! {
    /// Incremental reindexes on this thread that kept the symbols (the edit was inside a
    /// function body).
    static SYMBOLS_KEPT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// On this thread: how many incremental reindexes walked only the edited rows, how many
/// walked the whole tree, and how many kept the symbols (for tests and benchmarks).
#[doc(hidden)]
pub fn incremental_counts() -> (u64, u64, u64) {
    let (rows, full) = crate::generic::UPDATES.with(std::cell::Cell::get);
    (rows, full, SYMBOLS_KEPT.with(std::cell::Cell::get))
}

/// Index one file. Files of no known language, binary files (a NUL byte) and files over
/// [`MAX_PARSE_BYTES`] get only their hash and size.
pub fn index_file(path: &str, content: &[u8]) -> FileIndex {
    index(path, content, false)
}

/// [`index_file`] for a file indexed with many others (a walk of the tree): in Rust and
/// C, function bodies that declare nothing are left out of the parse (`outline.rs`), so the
/// record has no syntax errors from inside them and says so ([`FileIndex::outline`]).
/// Everything else in the record is what [`index_file`] gives.
pub fn index_outline(path: &str, content: &[u8]) -> FileIndex {
    index(path, content, true)
}

fn index(path: &str, content: &[u8], outline: bool) -> FileIndex {
    let mut out = header(path, content);
    let Some(lang) = out.lang else {
        return out;
    };
    let Some(finder) = outline.then(|| Finder::of(lang)).flatten() else {
        if let Some(tree) = parse(lang, content, None) {
            extract(lang, &tree, content, &mut out);
            let generic = Generic::full(lang, tree, content, &def_spots(&out));
            finish(&mut out, generic);
        }
        return out;
    };
    let (scan, bodies) = Generic::scan_first(lang, content, finder);
    let outlined = (!bodies.is_empty())
        .then(|| parse_outline(lang, content, &bodies))
        .flatten();
    out.outline = outlined.is_some();
    let Some(tree) = outlined.or_else(|| parse(lang, content, None)) else {
        return out;
    };
    extract(lang, &tree, content, &mut out);
    let defs = def_spots(&out);
    let generic = scan.finish(tree, content, &defs);
    finish(&mut out, generic);
    out
}

/// `content` parsed without the insides of `bodies`; `None` when tree-sitter refuses the
/// ranges or the tree shows the finder was wrong about one (see [`crate::outline::holds`]).
fn parse_outline(lang: Lang, content: &[u8], bodies: &[Body]) -> Option<Tree> {
    let ranges = crate::outline::included(bodies);
    let tree = with_parser(lang, |parser| {
        parser.set_included_ranges(&ranges).ok()?;
        let tree = parser.parse(content, None);
        // Back to the whole text for the next file.
        let _ = parser.set_included_ranges(&[]);
        tree
    })?;
    crate::outline::holds(lang, &tree, bodies).then_some(tree)
}

/// [`index_file`] for text that changed since `prev` was taken: the edit is found by
/// comparing the texts, the old tree is reused so that only the edited region is
/// reparsed, symbols are kept when the edit is inside a function body, and only the rows
/// it touched are walked again. Returns the state for the next edit (none for files that
/// are not parsed).
pub fn index_incremental(
    path: &str,
    content: &[u8],
    prev: Option<Incremental>,
) -> (FileIndex, Option<Incremental>) {
    let mut out = header(path, content);
    let Some(lang) = out.lang else {
        return (out, None);
    };
    let old = prev.map(|p| {
        let edit = edit_for(lang, &p.text, content);
        let mut tree = p.tree;
        tree.edit(&edit);
        (tree, edit, p.symbols, p.generic)
    });
    let Some(tree) = parse(lang, content, old.as_ref().map(|o| &o.0)) else {
        return (out, None);
    };
    let generic = match old {
        Some((old_tree, edit, symbols, generic)) => {
            let changed: Vec<tree_sitter::Range> = old_tree.changed_ranges(&tree).collect();
            // Around syntax errors tree-sitter's recovery may change more than it reports.
            let clean = generic.errors.is_empty() && !tree.root_node().has_error();
            if clean && inside_opaque_body(lang, &tree, &edit, &changed, &symbols) {
                SYMBOLS_KEPT.with(|k| k.set(k.get() + 1));
                symbols.shift(&edit).into(&mut out);
            } else {
                extract(lang, &tree, content, &mut out);
            }
            generic.update(lang, &tree, &edit, content, &def_spots(&out))
        }
        None => {
            extract(lang, &tree, content, &mut out);
            Generic::editable(lang, &tree, content, &def_spots(&out))
        }
    };
    out.names = generic.names.iter().collect();
    out.occurrences = generic.occurrences.iter().copied().collect();
    out.todos = generic.todos.clone();
    out.errors = generic.errors.clone();
    out.complexity = generic.complexity();
    let state = Incremental {
        text: content.to_vec(),
        tree,
        symbols: Symbols::of(&out),
        generic,
    };
    (out, Some(state))
}

/// The record's header; `lang` is `None` for files that are not parsed.
fn header(path: &str, content: &[u8]) -> FileIndex {
    let mut out = FileIndex {
        path: path.to_string(),
        lang: Lang::of_path(path),
        hash: hash(content),
        bytes: content.len() as u64,
        lines: line_count(content),
        ..FileIndex::default()
    };
    if content.len() > MAX_PARSE_BYTES || content.contains(&0) {
        out.lang = None;
    }
    out
}

/// Run the language's extractor.
fn extract(lang: Lang, tree: &Tree, content: &[u8], out: &mut FileIndex) {
    let mut cx = Cx {
        src: content,
        out,
        lang,
    };
    lang.extract(tree, &mut cx);
}

/// Whether the edit, and every change of syntax it made, lies strictly inside the body of
/// a node whose body the language's extractor never reads (a function's statements), with
/// the body's end on a later line, and touches no item that defines something there
/// (before or after the edit): then the symbols are the old ones, lines shifted. (Only
/// asked of trees without syntax errors.)
fn inside_opaque_body(
    lang: Lang,
    tree: &Tree,
    edit: &InputEdit,
    changed: &[tree_sitter::Range],
    old: &Symbols,
) -> bool {
    let opaque = lang.spec().opaque_bodies;
    if opaque.is_empty() {
        return false;
    }
    let (mut lo, mut hi) = (edit.start_byte, edit.new_end_byte);
    for r in changed {
        lo = lo.min(r.start_byte);
        hi = hi.max(r.end_byte);
    }
    let Some(mut node) = tree.root_node().descendant_for_byte_range(lo, hi) else {
        return false;
    };
    while let Some(parent) = node.parent() {
        if opaque.contains(&parent.kind()) && parent.child_by_field_name("body") == Some(node) {
            let items = lang.spec().items_in_bodies;
            let rows = edit.start_position.row as u32 + 1..=edit.old_end_position.row as u32 + 1;
            let defined_there = old.definitions.iter().any(|d| rows.contains(&d.line))
                || old.imports.iter().any(|i| rows.contains(&i.line));
            return lo > node.start_byte()
                && hi < node.end_byte()
                && node.end_position().row > edit.new_end_position.row
                && !defined_there
                && !touches_kind(node, lo, hi, items);
        }
        node = parent;
    }
    false
}

/// Whether a node of one of `kinds` below `node` overlaps bytes `lo..hi`.
fn touches_kind(node: tree_sitter::Node<'_>, lo: usize, hi: usize, kinds: &[&str]) -> bool {
    if kinds.is_empty() {
        return false;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.end_byte() < lo || child.start_byte() > hi {
            continue;
        }
        if kinds.contains(&child.kind()) || touches_kind(child, lo, hi, kinds) {
            return true;
        }
    }
    false
}

fn def_spots(out: &FileIndex) -> DefSpots {
    out.definitions.iter().map(|d| (d.line, d.column)).collect()
}

fn finish(out: &mut FileIndex, generic: Generic) {
    out.complexity = generic.complexity();
    out.names = generic.names.iter().collect();
    out.occurrences = generic.occurrences.into_iter().collect();
    out.todos = generic.todos;
    out.errors = generic.errors;
}

/// The single edit that turns `old` into `new`: the bytes between their common prefix and
/// common suffix.
pub(crate) fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
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

/// Lines in `content` as people count them: a final newline ends the last line rather
/// than starting an empty one.
pub fn line_count(content: &[u8]) -> u32 {
    let n = memchr::memchr_iter(b'\n', content).count();
    let last = usize::from(!content.is_empty() && !content.ends_with(b"\n"));
    (n + last) as u32
}

#[cfg(test)]
mod tests {
    use super::{Generic, def_spots, extract, finish, header, index_file, index_incremental};

    /// Reparsing with the previous tree gives exactly the record a full parse gives, edit
    /// after edit (inserts, deletes, replacements, at the start, middle and end, across
    /// lines and multi-byte characters).
    #[test]
    fn incremental_matches_full() {
        let mut text = String::from(
            "/// Doc.\npub fn a(x: u32) -> u32 { x + 1 }\n\nstruct S { f: i32 }\nimpl S { fn m(&self) -> i32 { self.f } }\n// TODO: é later\n",
        );
        let (_, mut state) = index_incremental("lib.rs", text.as_bytes(), None);
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
            text.replace_range(at..end, ins);
            let (inc, next) = index_incremental("lib.rs", text.as_bytes(), state);
            let full = index_file("lib.rs", text.as_bytes());
            assert_eq!(inc, full, "after editing at {at}: {text:?}");
            assert_eq!(inc.occurrences, full.occurrences);
            assert_eq!(inc.names, full.names);
            state = next;
        }
    }

    /// Typing in a function body keeps the symbols (lines below shifted), in each language
    /// whose extractor never reads bodies; the record equals a fresh index every time.
    #[test]
    fn typing_in_a_body_keeps_the_symbols() {
        let cases = [
            (
                "a.rs",
                "/// A.\npub fn a(x: u32) -> u32 {\n    let y = x;\n    y\n}\n\nstruct S;\nimpl S {\n    fn m(&self) {}\n}\n",
                "let y = x",
            ),
            (
                "a.go",
                "package a\n\nfunc A(x int) int {\n\ty := x\n\treturn y\n}\n\ntype T struct{}\n\nfunc (t T) M() {}\n",
                "y := x",
            ),
            (
                "A.java",
                "class A {\n  int a(int x) {\n    int y = x;\n    return y;\n  }\n  void b() {}\n}\n",
                "int y = x",
            ),
            (
                "a.c",
                "int a(int x) {\n    int y = x;\n    return y;\n}\n\nstatic void b(void) {}\n",
                "int y = x",
            ),
        ];
        for (path, text, anchor) in cases {
            let mut text = text.to_string();
            let (_, mut state) = index_incremental(path, text.as_bytes(), None);
            let (_, _, kept_before) = super::incremental_counts();
            // Typing after the anchor, and new lines before its line.
            for (i, typed) in ["1", "\n", " + 2", "\n\n", "4"].iter().enumerate() {
                let mut at = text.find(anchor).unwrap();
                if typed.starts_with('\n') {
                    at = text[..at].rfind('\n').unwrap() + 1;
                } else {
                    at += anchor.len();
                }
                text.insert_str(at, typed);
                let (inc, next) = index_incremental(path, text.as_bytes(), state);
                let fresh = index_file(path, text.as_bytes());
                assert!(fresh.errors.is_empty(), "{path}: {:?}", fresh.errors);
                assert_eq!(inc, fresh, "{path} after {i}: {text}");
                state = next;
            }
            let (_, _, kept_after) = super::incremental_counts();
            assert_eq!(
                kept_after - kept_before,
                5,
                "{path}: symbols were extracted again"
            );
        }
    }

    /// Rust items may sit in a function body: random edits inside bodies (plain typing,
    /// nested items added, lines deleted, items' lines edited) leave a record equal to a
    /// fresh index, and plain typing still keeps the symbols.
    #[test]
    fn items_inside_bodies_follow_incremental_edits() {
        let mut rng = Rng(0x0ddb_1a5e_5ca1_ab1e);
        let inserts = [
            "    let z = 1;\n",
            "    fn inner() -> u8 { 1 }\n",
            "    struct Local;\n",
            "    impl Local { fn go(&self) {} }\n",
            "    use crate::net::Conn;\n",
            "    const K: u8 = 2;\n",
            "    x + 1;\n",
        ];
        let mut text = String::from(
            "pub fn a(x: u32) -> u32 {\n    let y = x;\n    y\n}\n\nfn b() {\n    let q = 2;\n}\n",
        );
        let (_, mut state) = index_incremental("a.rs", text.as_bytes(), None);
        let (_, _, kept_before) = super::incremental_counts();
        for step in 0..300 {
            // A line strictly inside a body: after an opening line, before a closing one.
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let inside: Vec<usize> = (1..lines.len())
                .filter(|&i| {
                    lines[i].starts_with("    ") && lines[i - 1].trim_end().ends_with(['{', ';'])
                })
                .collect();
            let Some(&i) = inside.get(rng.below(inside.len())) else {
                break;
            };
            let at: usize = lines[..i].iter().map(|l| l.len()).sum();
            match rng.below(4) {
                0 if lines.len() > 12 => {
                    text.replace_range(at..at + lines[i].len(), "");
                }
                1 => {
                    // Rename whatever the line defines or says.
                    let col = at + 4 + rng.below(lines[i].len().saturating_sub(6));
                    if text.is_char_boundary(col) {
                        text.insert(col, 'w');
                    }
                }
                _ => text.insert_str(at, inserts[rng.below(inserts.len())]),
            }
            let (inc, next) = index_incremental("a.rs", text.as_bytes(), state);
            let fresh = index_file("a.rs", text.as_bytes());
            assert_eq!(inc, fresh, "step {step}: {text}");
            state = next;
        }
        let (_, _, kept_after) = super::incremental_counts();
        assert!(kept_after > kept_before, "no edit kept the symbols");

        // An item between plain statements deleted whole: nothing in the new tree shows it.
        let before = "fn c() {\n    let a = 1;\n    fn gone() {}\n    let b = 2;\n}\n";
        let (_, state) = index_incremental("c.rs", before.as_bytes(), None);
        let after = before.replace("    fn gone() {}\n", "");
        let (inc, _) = index_incremental("c.rs", after.as_bytes(), state);
        assert_eq!(inc, index_file("c.rs", after.as_bytes()));
    }

    /// Variance annotations are blanked before parsing; edits that add, remove or move
    /// them still leave the incremental record equal to a fresh one.
    #[test]
    fn variance_annotations_under_incremental_edits() {
        let steps = [
            "interface C<K, V> {\n  get(k: K): V\n}\nfunction f<T>(x: T) { return x < y }\n",
            "interface C<in K, V> {\n  get(k: K): V\n}\nfunction f<T>(x: T) { return x < y }\n",
            "interface C<in out K, out V> {\n  get(k: K): V\n}\nfunction f<T>(x: T) { return x < y }\n",
            "interface C<out K, in V> {\n  get(k: K): V\n}\nfunction f<in T>(x: T) { return x < y }\n",
            "interface C<outK, V> {\n  get(k: K): V\n}\nfunction f<T>(x: T) { return x <in y }\n",
            "interface C<out K, V> {\n  get(k: K): V\n}\nfunction f<const in T>(x: T) { return x }\n",
        ];
        let (_, mut state) = index_incremental("v.ts", steps[0].as_bytes(), None);
        for text in steps.iter().skip(1).chain(steps.iter().rev()) {
            let (inc, next) = index_incremental("v.ts", text.as_bytes(), state);
            assert_eq!(inc, index_file("v.ts", text.as_bytes()), "{text}");
            state = next;
        }
        let clean = index_file("v.ts", steps[2].as_bytes());
        assert!(clean.errors.is_empty(), "{:?}", clean.errors);
    }

    use crate::test_rng::Rng;

    const SNIPPETS: &[&str] = &[
        "x",
        "7",
        " ",
        "\n",
        "\n\n",
        "\r\n",
        "{",
        "}",
        "(",
        ")",
        "[",
        ";",
        "\"",
        "'",
        "`",
        "/*",
        "*/",
        "// TODO: later\n",
        "# FIXME: py\n",
        "/* NOTE: block\n   XXX: two */",
        "é",
        "    ",
        "foo",
        "new_name",
        "if a && b { c }",
        "fn g(a: u32) -> u32 { a }\n",
        "def h(self, x):\n    return x\n",
        "function k(a) { return a || 1; }\n",
        "class K { int m() { return 1; } }\n",
        "func (r *R) M() int { return 1 }\n",
        "int f(int a) { if (a) { return 1; } return 0; }\n",
        "'''doc'''",
        "\"\"\"",
        "#include \"x.h\"\n",
        "import os\n",
        // What moves the lexical scan's state at a row start: raw strings, interpolations,
        // continued lines, brackets left open.
        "r#\"",
        "\"#",
        "${",
        "f\"{x}\n{",
        "R\"d(",
        ")d\"",
        "\\\n",
        "/re/",
    ];

    fn fixtures() -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut out = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(text) = std::fs::read_to_string(&p) {
                    let rel = p.strip_prefix(&root).unwrap().to_string_lossy().to_string();
                    if crate::Lang::of_path(&rel).is_some() {
                        out.push((rel, text));
                    }
                }
            }
        }
        out.sort();
        out
    }

    fn boundary(text: &str, mut at: usize) -> usize {
        at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    #[test]
    fn random_edits_rewalk_only_their_rows_and_agree_with_a_full_walk() {
        let files = fixtures();
        assert!(files.len() >= 9, "fixtures: {}", files.len());
        let (fast_before, _, kept_before) = super::incremental_counts();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut edits = 0;
        for (path, original) in &files {
            // Bigger files too: the fixture twice over.
            for copies in [1, 2] {
                let start = original.repeat(copies);
                let mut text = start.clone();
                let (_, mut state) = index_incremental(path, text.as_bytes(), None);
                for round in 0..60 {
                    if round % 12 == 11 {
                        // A big change: back to the start.
                        text = start.clone();
                    } else {
                        let at = boundary(&text, rng.below(text.len() + 1));
                        let del = if rng.below(3) == 0 { rng.below(12) } else { 0 };
                        // Mostly typing that keeps the syntax (as people type most of the
                        // time), else anything.
                        let ins = match rng.below(10) {
                            0 => "",
                            1..=5 => ["x", "7", " ", "\n", "_b", "\n\n"][rng.below(6)],
                            _ => SNIPPETS[rng.below(SNIPPETS.len())],
                        };
                        let del = if ins.len() == 1 { 0 } else { del };
                        let end = boundary(&text, at + del).max(at);
                        text.replace_range(at..end, ins);
                    }
                    let (inc, next) = index_incremental(path, text.as_bytes(), state);
                    // The same tree walked whole must give the same results. (A fresh parse
                    // can differ where there are syntax errors: tree-sitter's error recovery
                    // depends on the trees it reuses, as in every editor using it.)
                    let mut full = header(path, text.as_bytes());
                    if let Some(next) = &next {
                        let lang = inc.lang.unwrap();
                        extract(lang, &next.tree, text.as_bytes(), &mut full);
                        let g = Generic::full(
                            lang,
                            next.tree.clone(),
                            text.as_bytes(),
                            &def_spots(&full),
                        );
                        finish(&mut full, g);
                    }
                    let fresh = index_file(path, text.as_bytes());
                    if fresh.errors.is_empty() {
                        assert_eq!(inc.errors, fresh.errors, "{path}: {text}");
                        assert_eq!(inc, fresh, "{path} after edit {round}: {text}");
                        assert_eq!(inc.occurrences, fresh.occurrences, "{path}: {text}");
                        assert_eq!(inc.names, fresh.names, "{path}: {text}");
                    }
                    if inc != full || inc.occurrences != full.occurrences || inc.names != full.names
                    {
                        let d = |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
                            format!("{a:?}") == format!("{b:?}")
                        };
                        let first_diff = |a: Vec<String>, b: Vec<String>| {
                            let i = (0..a.len().max(b.len()))
                                .find(|&i| a.get(i) != b.get(i))
                                .unwrap_or(0);
                            format!("at {i}: {:?} vs {:?}", a.get(i), b.get(i))
                        };
                        let occ = |r: &crate::FileIndex| {
                            r.occurrences
                                .iter()
                                .map(|o| {
                                    format!(
                                        "{} {}:{} {}",
                                        r.names.get(o.name as usize).unwrap_or_default(),
                                        o.line,
                                        o.column,
                                        o.is_definition
                                    )
                                })
                                .collect::<Vec<_>>()
                        };
                        let errs = |r: &crate::FileIndex| {
                            r.errors
                                .iter()
                                .map(|e| format!("{e:?}"))
                                .collect::<Vec<_>>()
                        };
                        eprintln!(
                            "occurrences {}\nerrors {}",
                            first_diff(occ(&inc), occ(&full)),
                            first_diff(errs(&inc), errs(&full))
                        );
                        panic!(
                            "{path} x{copies}, edit {round}: records differ (occurrences same: {}, names same: {}, todos same: {}, errors same: {}, complexity {:?} vs {:?})\n{text}",
                            d(&inc.occurrences, &full.occurrences),
                            d(&inc.names, &full.names),
                            d(&inc.todos, &full.todos),
                            d(&inc.errors, &full.errors),
                            inc.complexity,
                            full.complexity,
                        );
                    }
                    state = next;
                    edits += 1;
                }
            }
        }
        let (fast_after, _, kept_after) = super::incremental_counts();
        let fast = fast_after - fast_before;
        let kept = kept_after - kept_before;
        eprintln!("{fast} of {edits} edits rewalked only their rows, {kept} kept the symbols");
        assert!(kept > 0, "no edit kept the symbols");
        // Most edits must take the fast path (other tests run in parallel and only add to it).
        assert!(
            fast * 2 > edits,
            "only {fast} of {edits} edits rewalked just their rows"
        );
    }
}
