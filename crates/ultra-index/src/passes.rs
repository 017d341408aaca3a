//! Indexing one file: parse, let the language extract symbols and imports, then run the
//! passes that are the same for every language ([`crate::generic`]). Open buffers keep an
//! [`Incremental`] state so that each edit reparses and rewalks only around itself.

use std::cell::RefCell;
use std::collections::BTreeMap;

use tree_sitter::Parser;
pub use tree_sitter::Tree;

use crate::generic::{DefSpots, Generic};
use crate::lang::{Cx, Lang};
use crate::model::FileIndex;

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

/// What reindexing an open buffer keeps between edits: the text and tree last indexed,
/// and the generic passes' results by row.
pub struct Incremental {
    text: Vec<u8>,
    tree: Tree,
    generic: Generic,
}

impl std::fmt::Debug for Incremental {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incremental")
            .field("bytes", &self.text.len())
            .finish_non_exhaustive()
    }
}

/// How many incremental reindexes walked only the edited rows, and how many walked the
/// whole tree (for tests and benchmarks).
#[doc(hidden)]
pub fn incremental_counts() -> (u64, u64) {
    use std::sync::atomic::Ordering;
    let [a, b] = &crate::generic::UPDATES;
    (a.load(Ordering::Relaxed), b.load(Ordering::Relaxed))
}

/// Index one file. Files of no known language, binary files (a NUL byte) and files over
/// [`MAX_PARSE_BYTES`] get only their hash and size.
pub fn index_file(path: &str, content: &[u8]) -> FileIndex {
    let mut out = FileIndex::default();
    if let Some((tree, lang)) = begin(path, content, None, &mut out) {
        let generic = Generic::full(lang, &tree, content, &def_spots(&out));
        finish(&mut out, generic);
    }
    out
}

/// [`index_file`] for text that changed since `prev` was taken: the edit is found by
/// comparing the texts, the old tree is reused so that only the edited region is
/// reparsed, and only the rows it touched are walked again. Returns the state for the
/// next edit (none for files that are not parsed).
pub fn index_incremental(
    path: &str,
    content: &[u8],
    prev: Option<Incremental>,
) -> (FileIndex, Option<Incremental>) {
    let mut out = FileIndex::default();
    let old = prev.map(|p| {
        let edit = edit_between(&p.text, content);
        let mut tree = p.tree;
        tree.edit(&edit);
        (tree, edit, p.generic)
    });
    let Some((tree, lang)) = begin(path, content, old.as_ref().map(|o| &o.0), &mut out) else {
        return (out, None);
    };
    let defs = def_spots(&out);
    let generic = match old {
        Some((old_tree, edit, generic)) => {
            generic.update(lang, &old_tree, &tree, &edit, content, &defs)
        }
        None => Generic::full(lang, &tree, content, &defs),
    };
    out.names = generic.names.clone();
    out.occurrences = generic.occurrences.clone();
    out.todos = generic.todos.clone();
    out.errors = generic.errors.clone();
    out.complexity = generic.complexity();
    let state = Incremental {
        text: content.to_vec(),
        tree,
        generic,
    };
    (out, Some(state))
}

/// Fill the record's header, parse, and run the language's extractor; `None` for files
/// that are not parsed.
fn begin(
    path: &str,
    content: &[u8],
    old: Option<&Tree>,
    out: &mut FileIndex,
) -> Option<(Tree, Lang)> {
    *out = FileIndex {
        path: path.to_string(),
        lang: Lang::of_path(path),
        hash: hash(content),
        bytes: content.len() as u64,
        lines: line_count(content),
        ..FileIndex::default()
    };
    let lang = out.lang?;
    if content.len() > MAX_PARSE_BYTES || content.contains(&0) {
        out.lang = None;
        return None;
    }
    let tree = parse(lang, content, old)?;
    let mut cx = Cx {
        src: content,
        out,
        lang,
    };
    lang.extract(&tree, &mut cx);
    Some((tree, lang))
}

fn def_spots(out: &FileIndex) -> DefSpots {
    out.definitions.iter().map(|d| (d.line, d.column)).collect()
}

fn finish(out: &mut FileIndex, generic: Generic) {
    out.complexity = generic.complexity();
    out.names = generic.names;
    out.occurrences = generic.occurrences;
    out.todos = generic.todos;
    out.errors = generic.errors;
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

#[cfg(test)]
mod tests {
    use super::{Generic, def_spots, finish, index_file, index_incremental};

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

    /// A small deterministic generator (xorshift64*), so a failure reproduces.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

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
        let (fast_before, _) = super::incremental_counts();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut edits = 0;
        for (path, original) in &files {
            // Bigger files too: the fixture twice over.
            for copies in [1, 2] {
                let start = original.repeat(copies);
                let mut text = start.clone();
                let (_, mut state) = index_incremental(path, text.as_bytes(), None);
                for round in 0..60 {
                    if round % 30 == 29 {
                        // A big change: back to the start.
                        text = start.clone();
                    } else {
                        let at = boundary(&text, rng.below(text.len() + 1));
                        let del = if rng.below(3) == 0 { rng.below(12) } else { 0 };
                        let end = boundary(&text, at + del).max(at);
                        let ins = if rng.below(5) == 0 {
                            ""
                        } else {
                            SNIPPETS[rng.below(SNIPPETS.len())]
                        };
                        text.replace_range(at..end, ins);
                    }
                    let (inc, next) = index_incremental(path, text.as_bytes(), state);
                    // The same tree walked whole must give the same results. (A fresh parse
                    // can differ where there are syntax errors: tree-sitter's error recovery
                    // depends on the trees it reuses, as in every editor using it.)
                    let mut full = inc.clone();
                    if let Some(next) = &next {
                        let lang = inc.lang.unwrap();
                        let g = Generic::full(lang, &next.tree, text.as_bytes(), &def_spots(&inc));
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
                                        r.names[o.name as usize], o.line, o.column, o.is_definition
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
        let (fast_after, _) = super::incremental_counts();
        let fast = fast_after - fast_before;
        eprintln!("{fast} of {edits} edits rewalked only their rows");
        // Most edits must take the fast path (other tests run in parallel and only add to it).
        assert!(
            fast * 2 > edits,
            "only {fast} of {edits} edits rewalked just their rows"
        );
    }
}
