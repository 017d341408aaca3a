//! Python: the node kinds of the generic passes, and symbols and imports from the tree.

use std::collections::HashSet;

use tree_sitter::Node;

use super::{Cx, FieldExt, KindSet, Lang, Spec, children, each_node, end_line, has_child, line};
use crate::model::{Class, DefKind, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["comment"],
    // Imports are found anywhere in the tree, so no body is opaque.
    opaque_bodies: &[],
    items_in_bodies: &[],
};

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    let all = dunder_all(cx, root);
    block(cx, root, all.as_ref());
    nested_and_imports(cx, root);
    cx.out.definitions.sort_by_key(|d| (d.line, d.column));
}

/// In one walk of the tree: every `import` and `from … import`, at any depth; and the
/// functions and classes defined inside functions (closures, local handlers, test
/// helpers), as ctags indexes them: not exported, no container. Those the module-level
/// pass defined (its classes' methods too) are left as they are.
fn nested_and_imports(cx: &mut Cx<'_>, root: Node<'_>) {
    let mut seen = cx.defined_spots();
    let nothing_public = HashSet::new();
    let wanted = KindSet::of(
        Lang::Python,
        "py-nested",
        &[
            "import_statement",
            "import_from_statement",
            "future_import_statement",
            "function_definition",
            "class_definition",
        ],
    );
    // Imports, functions and classes are statements: only what holds statements is
    // looked into, never an expression (most of the tree).
    let holds_statements = KindSet::of(
        Lang::Python,
        "py-statements",
        &[
            "module",
            "block",
            "decorated_definition",
            "if_statement",
            "elif_clause",
            "else_clause",
            "for_statement",
            "while_statement",
            "try_statement",
            "except_clause",
            "except_group_clause",
            "finally_clause",
            "with_statement",
            "match_statement",
            "case_clause",
            "ERROR",
        ],
    );
    // Only a node whose text holds one of these words can hold what the walk looks for.
    let marks = super::few_word_marks(cx.src, b".", &[b"def", b"class", b"import"]);
    let marked = |from: usize, to: usize| super::marked_in(&marks, from, to);
    each_node(root, |node, ancestors| {
        if !wanted.has(node) {
            return holds_statements.has(node) && marked(node.start_byte(), node.end_byte());
        }
        match node.kind_name() {
            "function_definition" | "class_definition" => {
                if let Some(name) = node.by_field("name")
                    && !seen.contains(&(line(name), name.start_position().column as u32))
                {
                    let whole = ancestors
                        .last()
                        .copied()
                        .filter(|p| p.kind_name() == "decorated_definition")
                        .unwrap_or(node);
                    definition(cx, whole, None, Some(&nothing_public));
                    seen.extend(cx.out.definitions.iter().map(|d| (d.line, d.column)));
                }
                // Past its own keyword.
                marked(node.start_byte() + 1, node.end_byte())
            }
            _ => {
                import(cx, node);
                false
            }
        }
    });
}

/// The names listed in a module-level `__all__ = [...]`, when there is one.
fn dunder_all(cx: &Cx<'_>, root: Node<'_>) -> Option<HashSet<String>> {
    for stmt in children(root) {
        let Some(a) = assignment_of(stmt) else {
            continue;
        };
        let (Some(left), Some(right)) = (a.by_field("left"), a.by_field("right")) else {
            continue;
        };
        if cx.text(left) == "__all__" && matches!(right.kind_name(), "list" | "tuple") {
            return Some(
                children(right)
                    .into_iter()
                    .filter(|s| s.kind_name() == "string")
                    .map(|s| string_value(cx, s))
                    .collect(),
            );
        }
    }
    None
}

fn assignment_of(stmt: Node<'_>) -> Option<Node<'_>> {
    if stmt.kind_name() != "expression_statement" {
        return None;
    }
    stmt.named_child(0)
        .filter(|a| a.kind_name() == "assignment")
}

/// Module-level statements (and those nested in `if`, `try`, `with` at module level).
fn block(cx: &mut Cx<'_>, node: Node<'_>, all: Option<&HashSet<String>>) {
    for stmt in children(node) {
        match stmt.kind_name() {
            "function_definition" | "class_definition" | "decorated_definition" => {
                definition(cx, stmt, None, all);
            }
            "expression_statement" => {
                if let Some(a) = assignment_of(stmt) {
                    module_assignment(cx, a, stmt, all);
                }
            }
            "type_alias_statement" => {
                if let Some(n) = stmt.named_child(0).and_then(|t| first_identifier(t)) {
                    cx.define(n, DefKind::Type, stmt, None);
                }
            }
            "if_statement" | "try_statement" | "with_statement" | "elif_clause" | "else_clause"
            | "except_clause" | "finally_clause" | "block" => block(cx, stmt, all),
            _ => {}
        }
    }
}

fn first_identifier(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind_name() == "identifier" {
        return Some(node);
    }
    node.named_child(0).and_then(first_identifier)
}

fn is_public(name: &str, all: Option<&HashSet<String>>) -> bool {
    match all {
        Some(all) => all.contains(name),
        None => !name.starts_with('_'),
    }
}

fn is_const_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// `X = …` at module level: variables (constants when ALL_CAPS); `f = lambda …` is a function.
fn module_assignment(cx: &mut Cx<'_>, a: Node<'_>, stmt: Node<'_>, all: Option<&HashSet<String>>) {
    let Some(left) = a.by_field("left") else {
        return;
    };
    let right = a.by_field("right");
    if left.kind_name() == "identifier"
        && let Some(r) = right.filter(|r| r.kind_name() == "lambda")
    {
        let name = cx.text(left);
        let f = Function {
            qualified: name.clone(),
            params: params(cx, r),
            is_async: false,
            is_exported: is_public(&name, all),
            return_type: None,
            signature: cx.signature(stmt, r.by_field("body")),
            doc: cx.doc_above(stmt),
            line_start: line(stmt),
            line_end: end_line(stmt),
            name,
        };
        cx.function(left, stmt, None, f);
        return;
    }
    let mut names = Vec::new();
    targets(left, &mut names);
    for n in names {
        let kind = if is_const_name(&cx.text(n)) {
            DefKind::Const
        } else {
            DefKind::Variable
        };
        cx.define(n, kind, stmt, None);
    }
    // `a = b = 1`
    if let Some(r) = right.filter(|r| r.kind_name() == "assignment") {
        module_assignment(cx, r, stmt, all);
    }
}

/// The identifiers an assignment target binds.
fn targets<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind_name() {
        "identifier" => out.push(node),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "parenthesized_expression"
        | "list_splat_pattern" => {
            for c in children(node) {
                targets(c, out);
            }
        }
        _ => {}
    }
}

/// A `def`, `class` or decorated one; `class` is the enclosing class.
fn definition(
    cx: &mut Cx<'_>,
    node: Node<'_>,
    class: Option<&mut Class>,
    all: Option<&HashSet<String>>,
) {
    let (def, decorators) = if node.kind_name() == "decorated_definition" {
        let decorators: Vec<String> = children(node)
            .into_iter()
            .filter(|d| d.kind_name() == "decorator")
            .map(|d| {
                d.named_child(0)
                    .map_or_else(String::new, |e| decorator_name(&cx.text(e)))
            })
            .collect();
        match node.by_field("definition") {
            Some(d) => (d, decorators),
            None => return,
        }
    } else {
        (node, Vec::new())
    };
    match def.kind_name() {
        "function_definition" => function(cx, def, node, &decorators, class, all),
        "class_definition" => {
            let container = class.map(|c| c.name.clone());
            class_definition(cx, def, node, container.as_deref(), all);
        }
        _ => {}
    }
}

/// `abc.abstractmethod(x)` → `abc.abstractmethod`.
fn decorator_name(s: &str) -> String {
    s.split('(').next().unwrap_or(s).trim().to_string()
}

fn params(cx: &Cx<'_>, f: Node<'_>) -> Vec<String> {
    cx.params(f.by_field("parameters"))
}

fn function(
    cx: &mut Cx<'_>,
    def: Node<'_>,
    outer: Node<'_>,
    decorators: &[String],
    class: Option<&mut Class>,
    all: Option<&HashSet<String>>,
) {
    let Some(name_node) = def.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let body = def.by_field("body");
    let is_async = has_child(def, "async");
    let params = params(cx, def);
    let dunder = name.starts_with("__") && name.ends_with("__") && name.len() > 4;
    let (qualified, exported) = match &class {
        Some(c) => (
            format!("{}.{name}", c.name),
            c.is_exported && (!name.starts_with('_') || dunder),
        ),
        None => (name.clone(), is_public(&name, all)),
    };
    let f = Function {
        qualified,
        params: params.clone(),
        is_async,
        is_exported: exported,
        return_type: def.by_field("return_type").map(|r| cx.text(r)),
        signature: cx.signature(def, header_end(def).or(body)),
        doc: doc(cx, body, outer),
        line_start: line(outer),
        line_end: end_line(outer),
        name: name.clone(),
    };
    match class {
        Some(c) => {
            let is_static = decorators
                .iter()
                .any(|d| d == "staticmethod" || d == "classmethod");
            if decorators.iter().any(|d| d.ends_with("abstractmethod")) {
                c.is_abstract = true;
            }
            c.methods.push(Method {
                name: name.clone(),
                is_static,
                is_async,
                params,
            });
            if name == "__init__"
                && let Some(b) = body
            {
                let class_name = c.name.clone();
                self_assignments(cx, b, c, &class_name);
            }
            let class_name = c.name.clone();
            cx.function(name_node, outer, Some(&class_name), f);
        }
        None => cx.function(name_node, outer, None, f),
    }
}

/// The `:` that ends a `def` header (comments may sit between it and the body).
fn header_end(def: Node<'_>) -> Option<Node<'_>> {
    let mut c = def.walk();
    def.children(&mut c).filter(|n| n.kind_name() == ":").last()
}

/// The docstring of a `def` or `class` body, else the comment above the whole statement.
fn doc(cx: &Cx<'_>, body: Option<Node<'_>>, outer: Node<'_>) -> Option<String> {
    body.and_then(|b| docstring(cx, b))
        .or_else(|| cx.doc_above(outer))
}

/// A body's docstring: its first statement, when that is a string.
fn docstring(cx: &Cx<'_>, body: Node<'_>) -> Option<String> {
    let first = body.named_child(0)?;
    if first.kind_name() != "expression_statement" {
        return None;
    }
    let s = first.named_child(0).filter(|s| s.kind_name() == "string")?;
    let text = string_value(cx, s);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let joined = lines.join("\n");
    let trimmed = joined.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// A string literal's content without prefix and quotes.
fn string_value(cx: &Cx<'_>, s: Node<'_>) -> String {
    let parts: Vec<String> = children(s)
        .into_iter()
        .filter(|c| c.kind_name() == "string_content")
        .map(|c| cx.text(c))
        .collect();
    if !parts.is_empty() {
        return parts.concat();
    }
    let t = cx.text(s);
    t.trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .trim_matches(['"', '\''])
        .to_string()
}

fn class_definition(
    cx: &mut Cx<'_>,
    def: Node<'_>,
    outer: Node<'_>,
    container: Option<&str>,
    all: Option<&HashSet<String>>,
) {
    let Some(name_node) = def.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let mut bases = Vec::new();
    let mut is_abstract = false;
    if let Some(args) = def.by_field("superclasses") {
        for a in children(args) {
            match a.kind_name() {
                "keyword_argument" => {
                    if a.by_field("value")
                        .is_some_and(|v| cx.text(v).ends_with("ABCMeta"))
                    {
                        is_abstract = true;
                    }
                }
                "comment" | "list_splat" | "dictionary_splat" => {}
                _ => {
                    let t = cx.text(a);
                    if t == "ABC" || t == "abc.ABC" {
                        is_abstract = true;
                    }
                    bases.push(t.split('[').next().unwrap_or(&t).to_string());
                }
            }
        }
    }
    let body = def.by_field("body");
    let exported = match container {
        Some(_) => !name.starts_with('_'),
        None => is_public(&name, all),
    };
    let mut bases = bases.into_iter();
    let mut c = Class {
        name: name.clone(),
        kind: "class".into(),
        is_abstract,
        extends: bases.next(),
        implements: bases.collect(),
        is_exported: exported,
        doc: doc(cx, body, outer),
        line_start: line(outer),
        line_end: end_line(outer),
        ..Class::default()
    };
    if let Some(b) = body {
        class_body(cx, b, &mut c, all);
    }
    cx.define(name_node, DefKind::Class, outer, container);
    cx.out.classes.push(c);
}

fn class_body(cx: &mut Cx<'_>, body: Node<'_>, c: &mut Class, all: Option<&HashSet<String>>) {
    for stmt in children(body) {
        match stmt.kind_name() {
            "function_definition" | "class_definition" | "decorated_definition" => {
                definition(cx, stmt, Some(&mut *c), all);
            }
            "expression_statement" => {
                let Some(a) = assignment_of(stmt) else {
                    continue;
                };
                let Some(left) = a.by_field("left") else {
                    continue;
                };
                let annotation = a.by_field("type").map(|t| cx.text(t));
                // Annotated fields are instance fields (dataclasses), unless `ClassVar`.
                let is_static = annotation.as_deref().is_none_or(|t| t.contains("ClassVar"));
                let is_readonly = annotation.as_deref().is_some_and(|t| t.contains("Final"));
                let mut names = Vec::new();
                targets(left, &mut names);
                for n in names {
                    let text = cx.text(n);
                    if c.properties.iter().any(|p| p.name == text) {
                        continue;
                    }
                    c.properties.push(Property {
                        name: text,
                        is_static,
                        is_readonly,
                    });
                    let class_name = c.name.clone();
                    cx.define(n, DefKind::Variable, stmt, Some(&class_name));
                }
            }
            "if_statement" | "try_statement" | "block" | "else_clause" | "elif_clause" => {
                class_body(cx, stmt, c, all)
            }
            _ => {}
        }
    }
}

/// `self.x = …` anywhere in `__init__` (not in nested functions or classes).
fn self_assignments(cx: &mut Cx<'_>, node: Node<'_>, c: &mut Class, class_name: &str) {
    for n in children(node) {
        match n.kind_name() {
            "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {}
            "assignment" => {
                if let Some(left) = n.by_field("left") {
                    let mut attrs = Vec::new();
                    self_targets(cx, left, &mut attrs);
                    for attr in attrs {
                        let text = cx.text(attr);
                        if c.properties.iter().any(|p| p.name == text) {
                            continue;
                        }
                        let is_readonly = n
                            .by_field("type")
                            .is_some_and(|t| cx.text(t).contains("Final"));
                        c.properties.push(Property {
                            name: text,
                            is_static: false,
                            is_readonly,
                        });
                        cx.define(attr, DefKind::Variable, n, Some(class_name));
                    }
                }
                self_assignments(cx, n, c, class_name);
            }
            _ => self_assignments(cx, n, c, class_name),
        }
    }
}

fn self_targets<'t>(cx: &Cx<'_>, node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind_name() {
        "attribute" => {
            if node
                .by_field("object")
                .is_some_and(|o| cx.text(o) == "self")
                && let Some(a) = node.by_field("attribute")
            {
                out.push(a);
            }
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" => {
            for c in children(node) {
                self_targets(cx, c, out);
            }
        }
        _ => {}
    }
}

/// One `import` or `from … import` statement.
fn import(cx: &mut Cx<'_>, node: Node<'_>) {
    match node.kind_name() {
        "import_statement" => {
            for n in children(node) {
                match n.kind_name() {
                    "dotted_name" => {
                        let source = cx.text(n);
                        let first = source.split('.').next().unwrap_or(&source).to_string();
                        cx.import(node, source, vec![first]);
                    }
                    "aliased_import" => {
                        let source = n.by_field("name").map(|s| cx.text(s)).unwrap_or_default();
                        let alias = n.by_field("alias").map(|s| cx.text(s)).unwrap_or_default();
                        cx.import(node, source, vec![alias]);
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" | "future_import_statement" => {
            let module = node.by_field("module_name");
            let source = module.map_or_else(|| "__future__".to_string(), |m| cx.compact(m));
            let mut names = Vec::new();
            for n in children(node) {
                if module.is_some_and(|m| m.id() == n.id()) {
                    continue;
                }
                match n.kind_name() {
                    "dotted_name" | "identifier" => names.push(cx.text(n)),
                    "aliased_import" => {
                        if let Some(a) = n.by_field("alias") {
                            names.push(cx.text(a));
                        }
                    }
                    "wildcard_import" => names.push("*".into()),
                    _ => {}
                }
            }
            cx.import(node, source, names);
        }
        _ => {}
    }
}
