//! Definitions below module level, as ctags finds them, and declarations in what the
//! grammar could not parse.

use super::imports::import;
use super::*;
use crate::lang::{FieldExt, KindSet};

/// Declarations whose syntax the grammar could not follow. Error recovery can swallow
/// whole declarations into an error node, or into a wrongly parsed neighbour, so the lines
/// of the error node's span are read as a tolerant tagger such as ctags reads them: a
/// line that starts with a declaring keyword (after `export`, `default`, `declare`,
/// `abstract`, `async`) declares the name that follows, unless that name sits in a
/// comment or a string.
pub(super) fn recover(cx: &mut Cx<'_>, error: Node<'_>) {
    let mut root = error;
    while let Some(p) = root.parent() {
        root = p;
    }
    let span = error.byte_range();
    let mut line_start = span.start;
    while line_start < span.end {
        let line_end = memchr::memchr(b'\n', &cx.src[line_start..span.end])
            .map_or(span.end, |i| line_start + i);
        if let Some((kind, from, to)) = declared_on_line(&cx.src[line_start..line_end]) {
            let (from, to) = (line_start + from, line_start + to);
            if let Some(name) = root.descendant_for_byte_range(from, to)
                && name.byte_range() == (from..to)
                && matches!(
                    name.kind_name(),
                    "identifier" | "type_identifier" | "property_identifier"
                )
                && !in_literal(name)
                && !cx.is_defined_at(name)
            {
                cx.define(name, kind, name, None);
            }
        }
        line_start = line_end + 1;
    }
}

/// The kind of what a line declares and its name's byte range in the line, when the line
/// starts with a declaration.
fn declared_on_line(line: &[u8]) -> Option<(DefKind, usize, usize)> {
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let skip_space = |mut i: usize| {
        while line.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let word_end = |i: usize| {
        let mut j = i;
        while line.get(j).copied().is_some_and(is_word) {
            j += 1;
        }
        j
    };
    let mut i = skip_space(0);
    loop {
        let end = word_end(i);
        let kind = match &line[i..end] {
            b"export" | b"default" | b"declare" | b"abstract" | b"async" => {
                i = skip_space(end);
                continue;
            }
            b"function" => DefKind::Function,
            b"class" => DefKind::Class,
            b"interface" => DefKind::Interface,
            b"type" => DefKind::Type,
            b"enum" => DefKind::Enum,
            b"namespace" | b"module" => DefKind::Module,
            b"const" => DefKind::Const,
            b"let" | b"var" => DefKind::Variable,
            _ => return None,
        };
        let mut at = skip_space(end);
        if kind == DefKind::Function && line.get(at) == Some(&b'*') {
            at = skip_space(at + 1);
        }
        let name_end = word_end(at);
        let starts_well = line
            .get(at)
            .is_some_and(|c| !c.is_ascii_digit() && is_word(*c));
        // `type` and `module` are also common names (`type = 1`, `module.exports`).
        let declares = starts_well && (at > end || kind == DefKind::Function);
        return declares.then_some((kind, at, name_end));
    }
}

/// Whether `node` lies in a comment or a string.
pub(super) fn in_literal(node: Node<'_>) -> bool {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if matches!(
            n.kind_name(),
            "comment" | "string" | "template_string" | "string_fragment"
        ) {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// In one walk of the tree: every import (see [`import`]), and the definitions the
/// module-level pass does not reach, as ctags finds them: functions and
/// classes declared inside function bodies, blocks and IIFE/UMD wrappers; functions bound
/// to variables there; functions assigned to properties (`x.y = function`,
/// `X.prototype.m = function`); methods of object literals; TypeScript overload
/// signatures and the functions of `declare namespace` blocks. A name already defined at
/// its position is left as the module-level pass recorded it.
pub(super) fn nested_and_imports(cx: &mut Cx<'_>, st: &mut State, root: Node<'_>) {
    let mut seen = cx.defined_spots();
    let is_new = |seen: &mut HashSet<(u32, u32)>, n: Node<'_>| {
        seen.insert((line(n), n.start_position().column as u32))
    };
    // What the match below and `import` look at; every other node is only walked through.
    let wanted = KindSet::of(
        cx.lang,
        "js-nested",
        &[
            "import_statement",
            "export_statement",
            "call_expression",
            "function_declaration",
            "generator_function_declaration",
            "function_signature",
            "class_declaration",
            "abstract_class_declaration",
            "method_signature",
            "variable_declarator",
            "assignment_expression",
            "pair",
            "method_definition",
        ],
    );
    // Nothing is defined or imported inside these: types (most of a `.d.ts`), literals.
    let opaque = KindSet::of(
        cx.lang,
        "js-opaque",
        &[
            "type_annotation",
            "type_arguments",
            "type_parameters",
            "object_type",
            "interface_body",
            "type_alias_declaration",
            "enum_body",
            "string",
            "regex",
            "number",
            "comment",
        ],
    );
    let is_class_body = KindSet::of(cx.lang, "js-class-body", &["class_body"]);
    let marks = definition_marks(cx.src);
    // Whether `node`'s text holds a mark: only then can a node below it define or import.
    let marked =
        |node: Node<'_>| crate::lang::marked_in(&marks, node.start_byte(), node.end_byte());
    each_node(root, |node, ancestors| {
        let parent = ancestors.last().copied();
        if !wanted.has(node) {
            // A class body's overload signatures have no mark of their own.
            return !opaque.has(node) && (marked(node) || is_class_body.has(node));
        }
        if !import(cx, node) {
            return false;
        }
        {
            match node.kind_name() {
                "function_declaration" | "generator_function_declaration" => {
                    if let Some(name) = node.by_field("name")
                        && is_new(&mut seen, name)
                    {
                        function(cx, name, node, node, false);
                    }
                }
                "function_signature" => {
                    if let Some(name) = node.by_field("name")
                        && is_new(&mut seen, name)
                    {
                        cx.define(name, DefKind::Function, node, None);
                    }
                }
                "class_declaration" | "abstract_class_declaration" => {
                    if let Some(name) = node.by_field("name")
                        && is_new(&mut seen, name)
                    {
                        class(cx, st, Some(name), node, node, false);
                        // Its members are defined now; keep them from being defined again.
                        for d in &cx.out.definitions {
                            seen.insert((d.line, d.column));
                        }
                    }
                }
                "method_signature" if parent.is_some_and(|p| p.kind_name() == "class_body") => {
                    // An overload of a class method.
                    if let Some(name) = node.by_field("name")
                        && is_new(&mut seen, name)
                    {
                        let owner = enclosing_class(cx, ancestors);
                        cx.define(name, DefKind::Method, node, owner.as_deref());
                    }
                }
                "variable_declarator" => {
                    if let (Some(name), Some(value)) =
                        (node.by_field("name"), node.by_field("value"))
                        && name.kind_name() == "identifier"
                        && is_function(value)
                        && is_new(&mut seen, name)
                    {
                        let outer = parent.unwrap_or(node);
                        function(cx, name, value, outer, false);
                    }
                }
                "assignment_expression" => {
                    if let (Some(left), Some(right)) =
                        (node.by_field("left"), node.by_field("right"))
                        && left.kind_name() == "member_expression"
                        && is_function(right)
                        && let Some(prop) = left.by_field("property")
                        && prop.kind_name() == "property_identifier"
                        && is_new(&mut seen, prop)
                    {
                        let owner = left
                            .by_field("object")
                            .map(|o| owner_name(cx, o))
                            .filter(|o| !o.is_empty());
                        let outer = match parent {
                            Some(p) if p.kind_name() == "expression_statement" => p,
                            _ => node,
                        };
                        property_function(cx, prop, right, outer, owner.as_deref());
                    }
                }
                "pair" => {
                    if let (Some(key), Some(value)) = (node.by_field("key"), node.by_field("value"))
                        && is_function(value)
                        && matches!(key.kind_name(), "property_identifier" | "string")
                        && let Some(owner) = object_owner(cx, ancestors)
                        && is_new(&mut seen, key)
                    {
                        property_function(cx, key, value, node, Some(&owner));
                    }
                }
                "method_definition" if parent.is_some_and(|p| p.kind_name() == "object") => {
                    if let Some(name) = node.by_field("name")
                        && name.kind_name() == "property_identifier"
                        && let Some(owner) = object_owner(cx, ancestors)
                        && is_new(&mut seen, name)
                    {
                        property_function(cx, name, node, node, Some(&owner));
                    }
                }
                _ => {}
            }
        }
        marked(node)
    });
}

/// Where in `text` something the walk above looks for can start: the words `function`,
/// `class`, `import`, `export` and `require`, an `=` or `:` before what may be an arrow
/// function, and a `{` after `=` or `:` (an object whose shorthand methods have a name to
/// belong to). Every node the walk acts on holds one, except the members of a class body
/// and of such an object, whose parent does; so a node without one is not walked into.
/// Marks in comments and strings only cost a needless descent.
fn definition_marks(text: &[u8]) -> Vec<usize> {
    let is_ident = crate::lex::ident_byte_js;
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if is_ident(c) {
            let start = i;
            while i < text.len() && is_ident(text[i]) {
                i += 1;
            }
            // A property (`x.class`) is not a keyword.
            let after_dot = start > 0 && text[start - 1] == b'.';
            let word = &text[start..i];
            if !after_dot
                && matches!(
                    word,
                    b"function" | b"class" | b"import" | b"export" | b"require"
                )
            {
                found.push(start);
            }
            continue;
        }
        match c {
            // A value that may be an arrow function: `= (a) =>`, `: async x =>`, `= <T>(`,
            // `= x =>` (an arrow elsewhere, such as a callback, defines nothing).
            b'=' | b':'
                if !matches!(text.get(i + 1), Some(b'=' | b'>' | b':'))
                    && arrow_starts(text, i + 1) =>
            {
                found.push(i)
            }
            b'{' => {
                let before = text[..i]
                    .iter()
                    .rposition(|b| !b.is_ascii_whitespace())
                    .map(|j| text[j]);
                if matches!(before, Some(b'=' | b':')) {
                    found.push(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// A function stored in a property: a method of `owner` when there is one.
fn property_function(
    cx: &mut Cx<'_>,
    name: Node<'_>,
    f: Node<'_>,
    outer: Node<'_>,
    owner: Option<&str>,
) {
    let text = unquote(&cx.text(name));
    if text.is_empty() {
        return;
    }
    let rec = make_function(cx, text, owner, f, outer, false);
    cx.function(name, outer, owner, rec);
    if name.kind_name() == "string"
        && let Some(d) = cx.out.definitions.last_mut()
    {
        d.name = unquote(&d.name);
    }
}

/// The owner a property assignment's object names: `X` for `X.prototype`, `a.b` for
/// `a.b`, nothing for `this`.
fn owner_name(cx: &Cx<'_>, object: Node<'_>) -> String {
    let text = cx.compact(object);
    let text = text.strip_suffix(".prototype").unwrap_or(&text);
    if text == "this" || text.len() > 80 {
        String::new()
    } else {
        text.to_string()
    }
}

/// What the object literal holding a member (whose `ancestors` are given, its parent
/// last) is called: the variable it initialises, or the property it is assigned to.
/// (Anonymous objects, such as arguments and return values, name no owner, and their
/// functions are not definitions.)
fn object_owner(cx: &Cx<'_>, ancestors: &[Node<'_>]) -> Option<String> {
    let [.., holder, _object] = ancestors else {
        return None;
    };
    let name = match holder.kind_name() {
        "variable_declarator" => holder.by_field("name")?,
        "assignment_expression" => holder.by_field("left")?,
        "pair" => holder.by_field("key")?,
        _ => return None,
    };
    let name = owner_name(cx, name);
    (!name.is_empty() && !name.contains(['{', '[', '('])).then_some(name)
}

/// The name of the class whose body holds a member (whose `ancestors` are given).
fn enclosing_class(cx: &Cx<'_>, ancestors: &[Node<'_>]) -> Option<String> {
    let [.., class, _body] = ancestors else {
        return None;
    };
    class.by_field("name").map(|n| cx.text(n))
}

/// Whether what follows `at` (after blanks) may start an arrow function: `(`, `<`,
/// `async`, or a name and then `=>`.
fn arrow_starts(text: &[u8], at: usize) -> bool {
    let skip_blank = |mut i: usize| {
        while text.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let i = skip_blank(at);
    match text.get(i) {
        Some(b'(' | b'<') => true,
        Some(&c) if crate::lex::ident_byte_js(c) => {
            let mut j = i;
            while text.get(j).copied().is_some_and(crate::lex::ident_byte_js) {
                j += 1;
            }
            &text[i..j] == b"async" || text[skip_blank(j)..].starts_with(b"=>")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::definition_marks;

    #[test]
    fn marks_are_keywords_arrows_and_named_objects() {
        let src = b"x.class = require('a'); const o = { a() {} }; if (y) { f(() => 1) } k: {} \
            g = x => x; h: async () => 0; i = (1 + 2);";
        let at = |s: &str| {
            let needle = s.as_bytes();
            src.windows(needle.len()).position(|w| w == needle).unwrap()
        };
        assert_eq!(
            definition_marks(src),
            [
                at("require"),
                at("{ a("),
                at("k: {") + 3,
                at("= x =>"),
                at(": async"),
                at("= (1")
            ]
        );
    }
}
