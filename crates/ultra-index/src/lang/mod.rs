//! The nine languages: detection by file name, their tree-sitter grammars, the node kinds
//! the generic passes need (identifiers, comments, decisions, blocks), and dispatch to each
//! language's symbol and import extractor.

mod c;
mod go;
mod java;
mod js;
mod python;
mod rust;

pub(crate) use rust::starts_item as rust_item_keyword;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

use crate::model::{Class, DefKind, Definition, FileIndex, Function, Import};

/// A language the index understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
    Java,
    C,
    Cpp,
}

impl Lang {
    /// Every language.
    pub const ALL: [Lang; 9] = [
        Lang::Rust,
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Go,
        Lang::Java,
        Lang::C,
        Lang::Cpp,
    ];

    /// The language of a file, from its name.
    pub fn of_path(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" => Lang::Cpp,
            _ => return None,
        })
    }

    /// The name used in answers (`typescript`).
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
        }
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }

    /// The node kinds the generic passes use.
    pub(crate) fn spec(self) -> &'static Spec {
        match self {
            Lang::Rust => &rust::SPEC,
            Lang::Python => &python::SPEC,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &js::SPEC,
            Lang::Go => &go::SPEC,
            Lang::Java => &java::SPEC,
            Lang::C | Lang::Cpp => &c::SPEC,
        }
    }

    /// Fill functions, classes, definitions and imports (unresolved) from the tree.
    pub(crate) fn extract(self, tree: &Tree, cx: &mut Cx<'_>) {
        let root = tree.root_node();
        match self {
            Lang::Rust => rust::extract(root, cx),
            Lang::Python => python::extract(root, cx),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => js::extract(root, cx),
            Lang::Go => go::extract(root, cx),
            Lang::Java => java::extract(root, cx),
            Lang::C | Lang::Cpp => c::extract(root, cx),
        }
    }
}

/// Node kinds, per language, that the extractors and the incremental reindex share.
/// (Occurrences, complexity and TODOs are lexical: `lex/`.)
pub(crate) struct Spec {
    /// Comment nodes.
    pub comments: &'static [&'static str],
    /// Nodes whose `body` the extractor never looks into (what a function is does not
    /// depend on the statements in it): an edit inside one leaves the symbols as they
    /// were, lines shifted.
    pub opaque_bodies: &'static [&'static str],
    /// Node kinds that define or import something even inside an opaque body (a Rust
    /// `fn` nested in a function): an edit that touches one is extracted again.
    pub items_in_bodies: &'static [&'static str],
}

/// What a language extractor writes into, with helpers for the common steps.
pub(crate) struct Cx<'a> {
    pub src: &'a [u8],
    pub out: &'a mut FileIndex,
    pub lang: Lang,
}

impl<'a> Cx<'a> {
    /// A node's source text (lossy for invalid UTF-8).
    pub fn text(&self, node: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[node.byte_range()]).into_owned()
    }

    /// The text of the field `field` of `node`.
    pub fn field(&self, node: Node<'_>, field: &'static str) -> Option<String> {
        node.by_field(field).map(|n| self.text(n))
    }

    /// A node's source text with runs of whitespace collapsed to one space.
    pub fn squished(&self, node: Node<'_>) -> String {
        squish_str(&self.text(node))
    }

    /// A node's source text with all whitespace removed (paths: `std :: fmt` → `std::fmt`).
    pub fn compact(&self, node: Node<'_>) -> String {
        compact_str(&self.text(node))
    }

    /// Whether `node` is a comment in this language.
    pub fn is_comment(&self, node: Node<'_>) -> bool {
        self.lang.spec().comments.contains(&node.kind_name())
    }

    /// The entries of a parameter list (none without one), each as written with whitespace
    /// squished, comments left out.
    pub fn params(&self, list: Option<Node<'_>>) -> Vec<String> {
        list.map_or_else(Vec::new, |list| {
            children(list)
                .into_iter()
                .filter(|p| !self.is_comment(*p))
                .map(|p| self.squished(p))
                .collect()
        })
    }

    /// A class-like record named `name` of kind `kind` spanning `whole`, with the doc
    /// comment above `whole`; the caller fills in the rest.
    pub fn class_at(&self, name: &str, kind: &str, whole: Node<'_>) -> Class {
        Class {
            name: name.to_string(),
            kind: kind.to_string(),
            doc: self.doc_above(whole),
            line_start: line(whole),
            line_end: end_line(whole),
            ..Class::default()
        }
    }

    /// Where the definitions recorded so far have their names, as `(line, column)`: a
    /// later pass skips what an earlier one defined.
    pub fn defined_spots(&self) -> std::collections::HashSet<(u32, u32)> {
        self.out
            .definitions
            .iter()
            .map(|d| (d.line, d.column))
            .collect()
    }

    /// Whether a definition's name is at `node`.
    pub fn is_defined_at(&self, node: Node<'_>) -> bool {
        let (l, c) = (line(node), node.start_position().column as u32);
        self.out
            .definitions
            .iter()
            .any(|d| d.line == l && d.column == c)
    }

    /// A definition named by `node`'s `name` field, spanning `node`.
    pub fn define_named(&mut self, node: Node<'_>, kind: DefKind, container: Option<&str>) {
        if let Some(name) = node.by_field("name") {
            self.define(name, kind, node, container);
        }
    }

    /// Record a definition whose name is `name_node`, spanning `whole`.
    pub fn define(
        &mut self,
        name_node: Node<'_>,
        kind: DefKind,
        whole: Node<'_>,
        container: Option<&str>,
    ) {
        let name = self.text(name_node);
        if name.is_empty() {
            return;
        }
        self.out.definitions.push(Definition {
            name,
            kind,
            line: line(name_node),
            column: name_node.start_position().column as u32,
            line_end: end_line(whole),
            container: container.map(str::to_string),
        });
    }

    /// Record a function (or method, when `class` is given) and its definition.
    pub fn function(
        &mut self,
        name_node: Node<'_>,
        whole: Node<'_>,
        class: Option<&str>,
        f: Function,
    ) {
        let kind = if class.is_some() {
            DefKind::Method
        } else {
            DefKind::Function
        };
        self.define(name_node, kind, whole, class);
        self.out.functions.push(f);
    }

    /// Record a class-like declaration and its definition.
    pub fn class(&mut self, name_node: Node<'_>, whole: Node<'_>, kind: DefKind, c: Class) {
        self.define(name_node, kind, whole, None);
        self.out.classes.push(c);
    }

    /// Record an import of `source` at `node`'s line.
    pub fn import(&mut self, node: Node<'_>, source: String, names: Vec<String>) {
        self.out.imports.push(Import {
            source,
            line: line(node),
            names,
            resolved: None,
        });
    }

    /// The doc comment just above `node`: consecutive comment siblings ending on the line
    /// before it, with comment markers removed.
    pub fn doc_above(&self, node: Node<'_>) -> Option<String> {
        // Read the source lines above, not sibling nodes: `prev_sibling` scans from the
        // parent's first child, which made documenting every item of a big file quadratic.
        let python = self.lang == Lang::Python;
        let mut lines = Vec::new();
        let mut in_block = false;
        for l in self.lines_above(node) {
            let is_comment = if in_block {
                if l.starts_with("/*") {
                    in_block = false;
                }
                true
            } else if python {
                l.starts_with('#')
            } else if l.starts_with("//") || (l.starts_with("/*") && l.ends_with("*/")) {
                true
            } else if l.ends_with("*/") {
                in_block = true;
                true
            } else {
                false
            };
            if !is_comment || l.is_empty() {
                break;
            }
            lines.push(l);
        }
        if lines.is_empty() {
            return None;
        }
        lines.reverse();
        let text: Vec<String> = lines
            .iter()
            .map(|l| {
                l.trim()
                    .trim_start_matches("///")
                    .trim_start_matches("//!")
                    .trim_start_matches("//")
                    .trim_start_matches("/**")
                    .trim_start_matches("/*")
                    .trim_end_matches("*/")
                    .trim_start_matches('*')
                    .trim_start_matches('#')
                    .trim()
                    .to_string()
            })
            .filter(|l| !l.is_empty())
            .collect();
        (!text.is_empty()).then(|| text.join("\n"))
    }

    /// The source lines above `node`'s first line, nearest first, trimmed.
    pub fn lines_above(&self, node: Node<'_>) -> impl Iterator<Item = &'a str> + 'a {
        let src: &'a [u8] = self.src;
        let start = node.start_byte().min(src.len());
        let mut end = src[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        std::iter::from_fn(move || {
            if end == 0 {
                return None;
            }
            let nl = end - 1;
            let begin = src[..nl]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            end = begin;
            Some(std::str::from_utf8(&src[begin..nl]).unwrap_or("").trim())
        })
    }

    /// The first line of `node`'s text up to its body (`{` or `:`), for signatures.
    pub fn signature(&self, node: Node<'_>, body: Option<Node<'_>>) -> String {
        let end = body.map_or(node.end_byte(), |b| b.start_byte());
        let s = String::from_utf8_lossy(&self.src[node.start_byte()..end.max(node.start_byte())]);
        let mut sig = squish_str(&s);
        if sig.len() > 300 {
            let mut cut = 300;
            while !sig.is_char_boundary(cut) {
                cut -= 1;
            }
            sig.truncate(cut);
            sig.push('…');
        }
        sig.trim_end_matches([':', '{', ' ']).to_string()
    }
}

/// `s` with runs of whitespace collapsed to one space (and none at either end).
pub(crate) fn squish_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// `s` with all whitespace removed.
pub(crate) fn compact_str(s: &str) -> String {
    s.split_whitespace().collect()
}

/// `name` qualified by its owner: `Owner.name`, or `name` without one.
pub(crate) fn qualified(owner: Option<&str>, name: &str) -> String {
    owner.map_or_else(|| name.to_string(), |o| format!("{o}.{name}"))
}

/// A node's first line, 1-based.
pub(crate) fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

/// A node's last line, 1-based.
pub(crate) fn end_line(node: Node<'_>) -> u32 {
    node.end_position().row as u32 + 1
}

/// Every node below `root` (and `root`), in source order, with one cursor; `visit` gets
/// the node and its ancestors up to `root` (its parent last) and returns whether to
/// descend into the node's children.
pub(crate) fn each_node<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool) {
    let mut cursor = root.walk();
    // The ancestors of the cursor's node below `root` and `root` itself: `Node::parent`
    // descends from the tree's root at each call, which made asking it in a walk costly.
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        if visit(node, &ancestors) && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

/// Where in `text` a word `pick` accepts starts, offset by `base`, leaving out words right
/// after a byte in `not_after` (a property `x.class`, a lifetime `'static`). A node whose
/// text holds no such word cannot hold what the word begins, so a walk need not enter it.
pub(crate) fn word_marks(
    text: &[u8],
    base: usize,
    not_after: &[u8],
    pick: impl Fn(&[u8]) -> bool,
) -> Vec<usize> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !crate::lex::ident_byte(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && crate::lex::ident_byte(text[i]) {
            i += 1;
        }
        let after = start.checked_sub(1).map(|b| text[b]);
        if pick(&text[start..i]) && !after.is_some_and(|b| not_after.contains(&b)) {
            found.push(base + start);
        }
    }
    found
}

/// [`word_marks`] for a few whole `words`, each found with a vectorised search: faster
/// than reading every word when the words are few.
pub(crate) fn few_word_marks(text: &[u8], not_after: &[u8], words: &[&[u8]]) -> Vec<usize> {
    let mut found = Vec::new();
    for w in words {
        for at in memchr::memmem::find_iter(text, w) {
            let before = at.checked_sub(1).map(|b| text[b]);
            let after = text.get(at + w.len()).copied();
            let whole = !before.is_some_and(crate::lex::ident_byte)
                && !after.is_some_and(crate::lex::ident_byte);
            if whole && !before.is_some_and(|b| not_after.contains(&b)) {
                found.push(at);
            }
        }
    }
    found.sort_unstable();
    found
}

/// Whether a mark of `marks` (sorted) lies in `from..to`.
pub(crate) fn marked_in(marks: &[usize], from: usize, to: usize) -> bool {
    let at = marks.partition_point(|&m| m < from);
    marks.get(at).is_some_and(|&m| m < to)
}

/// A child by field name, with the field's id looked up once per grammar and name:
/// tree-sitter's own lookup compares the name with each of the grammar's field names at
/// every call, which was a tenth of the extractors' time.
pub(crate) trait FieldExt<'t> {
    /// The child in field `name` (`Node::child_by_field_name` without the lookup of
    /// the name in the grammar at each call).
    fn by_field(&self, name: &'static str) -> Option<Node<'t>>;
    /// The node's kind (`Node::kind` without measuring and validating the name at each
    /// call).
    fn kind_name(&self) -> &'t str;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn by_field(&self, name: &'static str) -> Option<Node<'t>> {
        // A direct-mapped cache by (grammar, name): hashing the key into a map cost as
        // much as the child lookup it serves. Field ids are never 0, so 0 is "no field".
        type Slots = [(usize, usize, u16); 64];
        thread_local! {
            static IDS: std::cell::RefCell<Slots> = const { std::cell::RefCell::new([(0, 0, 0); 64]) };
        }
        let lang = self.language();
        let key = (lang.clone().into_raw() as usize, name.as_ptr() as usize);
        let slot = ((key.1 >> 2) ^ (key.0 >> 4)) % 64;
        let id = IDS.with(|ids| {
            let mut ids = ids.borrow_mut();
            let (l, n, id) = ids[slot];
            if (l, n) == key {
                return id;
            }
            let id = lang.field_id_for_name(name).map_or(0, |id| id.get());
            ids[slot] = (key.0, key.1, id);
            id
        });
        self.child_by_field_id(std::num::NonZero::new(id)?.get())
    }

    fn kind_name(&self) -> &'t str {
        let grammar = self.language().clone().into_raw() as usize;
        // ERROR's id (u16::MAX) lies past the grammar's kinds, and so does a grammar
        // not in `Lang`: both get the slow path.
        kind_names()
            .iter()
            .find(|(g, _)| *g == grammar)
            .and_then(|(_, names)| names.get(usize::from(self.kind_id())))
            .copied()
            .unwrap_or_else(|| self.kind())
    }
}

/// Per grammar (by address), in the order of [`Lang::ALL`], its node kinds' names by kind id.
fn kind_names() -> &'static [(usize, Vec<&'static str>)] {
    static NAMES: std::sync::OnceLock<Vec<(usize, Vec<&'static str>)>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        Lang::ALL
            .iter()
            .map(|lang| {
                // Kept for the process's life, as its names are.
                let g: &'static tree_sitter::Language = Box::leak(Box::new(lang.grammar()));
                let names = (0..g.node_kind_count() as u16)
                    .map(|id| g.node_kind_for_id(id).unwrap_or(""))
                    .collect();
                (g.clone().into_raw() as usize, names)
            })
            .collect()
    })
}

/// Node kinds by name, as a table by kind id: a walk over every node asks it instead of
/// `Node::kind`, which measures and checks the kind's name at each call.
pub(crate) struct KindSet(Vec<bool>);

impl KindSet {
    /// The set of `kinds` (named or anonymous) in `lang`'s grammar, built once per
    /// language and `key`.
    pub fn of(lang: Lang, key: &'static str, kinds: &[&str]) -> &'static KindSet {
        type Sets = std::collections::HashMap<(Lang, &'static str), &'static KindSet>;
        static SETS: std::sync::OnceLock<std::sync::Mutex<Sets>> = std::sync::OnceLock::new();
        let mut sets = SETS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        sets.entry((lang, key)).or_insert_with(|| {
            let at = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
            let table = kind_names()[at]
                .1
                .iter()
                .map(|k| kinds.contains(k))
                .collect();
            Box::leak(Box::new(KindSet(table)))
        })
    }

    pub fn has(&self, node: Node<'_>) -> bool {
        self.0
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false)
    }
}

/// The named children of `node`.
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c).collect()
}

/// Whether `node` has an (anonymous or named) child of kind `kind`.
pub(crate) fn has_child(node: Node<'_>, kind: &str) -> bool {
    let mut c = node.walk();
    node.children(&mut c).any(|n| n.kind_name() == kind)
}

#[cfg(test)]
mod tests {
    use super::{FieldExt, Lang, each_node};

    /// `kind_name` is `Node::kind` for every node, ERROR and aliased nodes included, in
    /// every grammar.
    #[test]
    fn kind_names_are_the_kinds() {
        let src = b"fn f( { let x = 1; } struct S; def g(:\n  pass\nclass C { m() {} }\nint main() { return 0; }\n";
        for lang in Lang::ALL {
            let Some(tree) = crate::passes::parse(lang, src, None) else {
                continue;
            };
            let mut seen = 0;
            each_node(tree.root_node(), |node, _| {
                assert_eq!(node.kind_name(), node.kind(), "{lang:?}");
                seen += 1;
                true
            });
            assert!(seen > 10, "{lang:?}: {seen} nodes");
            assert!(
                tree.root_node().has_error(),
                "{lang:?}: no ERROR node tried"
            );
        }
    }
}
