//! TypeScript, TSX and JavaScript: the node kinds of the generic passes, and symbols and imports from the tree.
//! This module reads the module level; `nested.rs` what lies below it and what the grammar
//! could not parse; `imports.rs` the imports.

mod imports;
mod nested;

use imports::unquote;
use nested::{nested_and_imports, recover};

use std::collections::HashSet;

use tree_sitter::Node;

use super::{
    Cx, FieldExt, Spec, children, each_node, end_line, has_child, line, qualified, squish_str,
};
use crate::model::{Class, DefKind, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["comment"],
    // Imports are found anywhere in the tree, so no body is opaque.
    opaque_bodies: &[],
    items_in_bodies: &[],
};

/// What the walk learns on the way that only applies at the end.
#[derive(Default)]
struct State {
    /// Local names exported by `export { a, b as c }`, `export default a`, `module.exports`.
    exported: HashSet<String>,
    /// Qualified names of methods that stay private however their class is exported.
    private: HashSet<String>,
}

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    let mut st = State::default();
    if root.is_error() {
        // The whole file is one error node.
        recover(cx, root);
    }
    for child in children(root) {
        statement(cx, &mut st, child, child, false);
    }
    nested_and_imports(cx, &mut st, root);
    // Names exported after their declaration.
    for f in &mut cx.out.functions {
        if f.qualified == f.name && st.exported.contains(&f.name) {
            f.is_exported = true;
        }
    }
    for c in &mut cx.out.classes {
        if st.exported.contains(&c.name) && !c.is_exported {
            c.is_exported = true;
            let prefix = format!("{}.", c.name);
            for f in &mut cx.out.functions {
                if f.qualified.starts_with(&prefix)
                    && !f.name.starts_with('#')
                    && !st.private.contains(&f.qualified)
                {
                    f.is_exported = true;
                }
            }
        }
    }
    cx.out.definitions.sort_by_key(|d| (d.line, d.column));
    cx.out.imports.sort_by_key(|i| i.line);
}

/// One statement at module (or namespace) level. `outer` is the node that spans the whole
/// item (the `export` statement around a declaration), for lines, docs and signatures.
fn statement(cx: &mut Cx<'_>, st: &mut State, node: Node<'_>, outer: Node<'_>, exported: bool) {
    match node.kind_name() {
        "export_statement" => export_statement(cx, st, node),
        // Overload signatures (`function_signature` outside `declare`) are left out: the
        // implementation that follows is the function.
        "function_declaration" | "generator_function_declaration" => {
            if let Some(name) = node.by_field("name") {
                function(cx, name, node, outer, exported);
            }
        }
        "class_declaration" | "abstract_class_declaration" | "class" => {
            let name = node.by_field("name");
            class(cx, st, name, node, outer, exported);
        }
        "interface_declaration" => interface(cx, node, outer, exported),
        "type_alias_declaration" => {
            if let Some(name) = node.by_field("name") {
                cx.define(name, DefKind::Type, outer, None);
            }
        }
        "enum_declaration" => enumeration(cx, node, outer, exported),
        "lexical_declaration" | "variable_declaration" => variables(cx, st, node, outer, exported),
        "ERROR" => {
            recover(cx, node);
            for child in children(node) {
                statement(cx, st, child, child, false);
            }
        }
        "ambient_declaration" => {
            for child in children(node) {
                if child.kind_name() == "function_signature" {
                    if let Some(name) = child.by_field("name") {
                        function(cx, name, child, outer, exported);
                    }
                } else {
                    statement(cx, st, child, outer, exported);
                }
            }
        }
        "internal_module" | "module" => {
            if let Some(name) = node.by_field("name")
                && name.kind_name() != "string"
            {
                cx.define(name, DefKind::Module, outer, None);
            }
            if let Some(body) = node.by_field("body") {
                for child in children(body) {
                    statement(cx, st, child, child, false);
                }
            }
        }
        "expression_statement" => {
            for child in children(node) {
                match child.kind_name() {
                    "internal_module" => statement(cx, st, child, outer, exported),
                    "assignment_expression" => commonjs_export(cx, st, child, outer),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn export_statement(cx: &mut Cx<'_>, st: &mut State, node: Node<'_>) {
    if node.by_field("source").is_some() {
        // A re-export: an import, recorded by `imports`.
        return;
    }
    for child in children(node) {
        if child.kind_name() == "export_clause" {
            for spec in children(child) {
                if let Some(name) = spec.by_field("name") {
                    st.exported.insert(cx.text(name));
                }
            }
        }
    }
    if let Some(decl) = node.by_field("declaration") {
        statement(cx, st, decl, node, true);
    } else if let Some(value) = node.by_field("value") {
        // `export default …`
        match value.kind_name() {
            "identifier" => {
                st.exported.insert(cx.text(value));
            }
            "class" | "class_declaration" | "abstract_class_declaration" => {
                let name = value.by_field("name");
                class(cx, st, name, value, node, true);
            }
            "function_expression"
            | "arrow_function"
            | "generator_function"
            | "function_declaration" => match value.by_field("name") {
                Some(name) => function(cx, name, value, node, true),
                None => {
                    let f = make_function(cx, "default".into(), None, value, node, true);
                    cx.out.functions.push(f);
                }
            },
            _ => {}
        }
    }
}

/// `module.exports = …`, `module.exports.x = …`, `exports.x = …`.
fn commonjs_export(cx: &mut Cx<'_>, st: &mut State, assign: Node<'_>, outer: Node<'_>) {
    let (Some(left), Some(right)) = (assign.by_field("left"), assign.by_field("right")) else {
        return;
    };
    let target = cx.text(left);
    if target == "module.exports" {
        match right.kind_name() {
            "identifier" => {
                st.exported.insert(cx.text(right));
            }
            "object" => {
                for prop in children(right) {
                    match prop.kind_name() {
                        "shorthand_property_identifier" => {
                            st.exported.insert(cx.text(prop));
                        }
                        "pair" => {
                            let (Some(key), Some(value)) =
                                (prop.by_field("key"), prop.by_field("value"))
                            else {
                                continue;
                            };
                            if value.kind_name() == "identifier" {
                                st.exported.insert(cx.text(value));
                            } else if is_function(value) && key.kind_name() == "property_identifier"
                            {
                                function(cx, key, value, prop, true);
                            }
                        }
                        "method_definition" => {
                            if let Some(name) = prop.by_field("name") {
                                function(cx, name, prop, prop, true);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "class" => {
                if let Some(name) = right.by_field("name") {
                    class(cx, st, Some(name), right, outer, true);
                }
            }
            _ if is_function(right) => {
                if let Some(name) = right.by_field("name") {
                    function(cx, name, right, outer, true);
                }
            }
            _ => {}
        }
    } else if (target.starts_with("exports.") || target.starts_with("module.exports."))
        && left.kind_name() == "member_expression"
        && let Some(prop) = left.by_field("property")
    {
        if right.kind_name() == "identifier" {
            st.exported.insert(cx.text(right));
        } else if is_function(right) {
            function(cx, prop, right, outer, true);
        } else if right.kind_name() == "class" {
            class(cx, st, Some(prop), right, outer, true);
        }
    }
}

fn is_function(node: Node<'_>) -> bool {
    matches!(
        node.kind_name(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// `const`, `let` and `var` declarations: functions and classes named after the variable,
/// else constants and variables.
fn variables(cx: &mut Cx<'_>, st: &mut State, node: Node<'_>, outer: Node<'_>, exported: bool) {
    let kind = match node.by_field("kind").map(|k| cx.text(k)) {
        Some(k) if k == "const" => DefKind::Const,
        _ => DefKind::Variable,
    };
    for decl in children(node) {
        if decl.kind_name() != "variable_declarator" {
            continue;
        }
        let Some(name) = decl.by_field("name") else {
            continue;
        };
        let value = decl.by_field("value");
        match value {
            Some(v) if name.kind_name() == "identifier" && is_function(v) => {
                function(cx, name, v, outer, exported);
            }
            Some(v) if name.kind_name() == "identifier" && v.kind_name() == "class" => {
                class(cx, st, Some(name), v, outer, exported);
            }
            _ => {
                let mut names = Vec::new();
                pattern_names(name, &mut names);
                for n in names {
                    cx.define(n, kind, outer, None);
                }
            }
        }
    }
}

/// The identifiers a binding pattern binds.
fn pattern_names<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind_name() {
        "identifier" | "shorthand_property_identifier_pattern" => out.push(node),
        "pair_pattern" => {
            if let Some(v) = node.by_field("value") {
                pattern_names(v, out);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(l) = node.by_field("left") {
                pattern_names(l, out);
            }
        }
        "object_pattern" | "array_pattern" | "rest_pattern" => {
            for c in children(node) {
                pattern_names(c, out);
            }
        }
        _ => {}
    }
}

/// A parameter list as written, one entry per parameter, whitespace collapsed (an arrow
/// function's lone unparenthesized parameter too).
fn params(cx: &Cx<'_>, f: Node<'_>) -> Vec<String> {
    match (f.by_field("parameters"), f.by_field("parameter")) {
        (None, Some(p)) => vec![cx.squished(p)],
        (list, _) => cx.params(list),
    }
}

fn return_type(cx: &Cx<'_>, f: Node<'_>) -> Option<String> {
    f.by_field("return_type")
        .map(|r| squish_str(cx.text(r).trim_start_matches(':').trim()))
}

/// The function record for `f` (any function-like node) spanning `outer`.
fn make_function(
    cx: &Cx<'_>,
    name: String,
    class: Option<&str>,
    f: Node<'_>,
    outer: Node<'_>,
    exported: bool,
) -> Function {
    let qualified = qualified(class, &name);
    let start = first_decorator(outer);
    Function {
        qualified,
        params: params(cx, f),
        is_async: has_child(f, "async"),
        is_exported: exported,
        return_type: return_type(cx, f),
        signature: cx
            .signature(outer, f.by_field("body"))
            .trim_end_matches(';')
            .to_string(),
        doc: cx.doc_above(start),
        line_start: line(start),
        line_end: end_line(outer),
        name,
    }
}

/// The first of the decorators that precede a class member, or the member.
fn first_decorator(node: Node<'_>) -> Node<'_> {
    // Only class members have decorators beside them; a sibling is found by a walk from
    // the parent's first child, so asking for every function was quadratic in a module.
    if !matches!(
        node.kind_name(),
        "method_definition"
            | "method_signature"
            | "abstract_method_signature"
            | "public_field_definition"
            | "field_definition"
    ) {
        return node;
    }
    let mut first = node;
    let mut cur = node.prev_named_sibling();
    while let Some(p) = cur {
        if p.kind_name() != "decorator" {
            break;
        }
        first = p;
        cur = p.prev_named_sibling();
    }
    first
}

fn function(cx: &mut Cx<'_>, name: Node<'_>, f: Node<'_>, outer: Node<'_>, exported: bool) {
    let text = cx.text(name);
    let rec = make_function(cx, text, None, f, outer, exported);
    cx.function(name, outer, None, rec);
}

/// A type name without type arguments (`Repo<User>` → `Repo`).
fn base_name(s: &str) -> String {
    squish_str(s.split('<').next().unwrap_or(s))
}

/// A class declaration or expression; `name` is its name, or the variable it is assigned to.
fn class(
    cx: &mut Cx<'_>,
    st: &mut State,
    name: Option<Node<'_>>,
    node: Node<'_>,
    outer: Node<'_>,
    exported: bool,
) {
    let class_name = name.map_or_else(|| "default".to_string(), |n| cx.text(n));
    let mut c = Class {
        is_abstract: node.kind_name() == "abstract_class_declaration",
        is_exported: exported,
        ..cx.class_at(&class_name, "class", outer)
    };
    for h in children(node) {
        if h.kind_name() != "class_heritage" {
            continue;
        }
        for part in children(h) {
            match part.kind_name() {
                "extends_clause" => {
                    let first = part.by_field("value").or_else(|| part.named_child(0));
                    c.extends = first.map(|v| base_name(&cx.text(v)));
                }
                "implements_clause" => {
                    c.implements
                        .extend(children(part).iter().map(|t| base_name(&cx.text(*t))));
                }
                // JavaScript: `class A extends B`, the heritage is the expression itself.
                "comment" => {}
                _ if c.extends.is_none() => c.extends = Some(base_name(&cx.text(part))),
                _ => {}
            }
        }
    }
    if let Some(body) = node.by_field("body") {
        for m in children(body) {
            member(cx, st, &mut c, m, exported);
        }
    }
    if let Some(n) = name {
        cx.define(n, DefKind::Class, outer, None);
    }
    cx.out.classes.push(c);
}

/// One member of a class body.
fn member(cx: &mut Cx<'_>, st: &mut State, c: &mut Class, m: Node<'_>, exported: bool) {
    let class_name = c.name.clone();
    match m.kind_name() {
        "method_definition" | "abstract_method_signature" => {
            let Some(name) = m.by_field("name") else {
                return;
            };
            let text = cx.text(name);
            let private =
                text.starts_with('#') || accessibility(cx, m).is_some_and(|a| a != "public");
            let method = Method {
                name: text.clone(),
                is_static: has_child(m, "static"),
                is_async: has_child(m, "async"),
                params: params(cx, m),
            };
            if text == "constructor" {
                parameter_properties(cx, c, m);
            }
            let is_exported = exported && !private;
            if private {
                st.private.insert(format!("{class_name}.{text}"));
            }
            let rec = make_function(cx, text, Some(&class_name), m, m, is_exported);
            if name.kind_name() == "computed_property_name" {
                // `[Symbol.iterator]()`: no name leaf to define.
                cx.out.functions.push(rec);
            } else {
                cx.function(name, m, Some(&class_name), rec);
            }
            c.methods.push(method);
        }
        "public_field_definition" | "field_definition" => {
            let Some(name) = m.by_field("name").or_else(|| m.by_field("property")) else {
                return;
            };
            let text = cx.text(name);
            match m.by_field("value") {
                Some(v) if is_function(v) => {
                    let private = text.starts_with('#')
                        || accessibility(cx, m).is_some_and(|a| a != "public");
                    if private {
                        st.private.insert(format!("{class_name}.{text}"));
                    }
                    c.methods.push(Method {
                        name: text.clone(),
                        is_static: has_child(m, "static"),
                        is_async: has_child(v, "async"),
                        params: params(cx, v),
                    });
                    let rec =
                        make_function(cx, text, Some(&class_name), v, m, exported && !private);
                    cx.function(name, m, Some(&class_name), rec);
                }
                _ => {
                    c.properties.push(Property {
                        name: text,
                        is_static: has_child(m, "static"),
                        is_readonly: has_child(m, "readonly"),
                    });
                    cx.define(name, DefKind::Variable, m, Some(&class_name));
                }
            }
        }
        _ => {}
    }
}

/// `private`, `protected` or `public` on a TypeScript member.
fn accessibility(cx: &Cx<'_>, m: Node<'_>) -> Option<String> {
    children(m)
        .into_iter()
        .find(|c| c.kind_name() == "accessibility_modifier")
        .map(|a| cx.text(a))
}

/// TypeScript constructor parameters with `private`/`public`/`readonly` are properties.
fn parameter_properties(cx: &mut Cx<'_>, c: &mut Class, ctor: Node<'_>) {
    let Some(ps) = ctor.by_field("parameters") else {
        return;
    };
    for p in children(ps) {
        if !matches!(p.kind_name(), "required_parameter" | "optional_parameter") {
            continue;
        }
        let readonly = has_child(p, "readonly");
        if accessibility(cx, p).is_none() && !readonly {
            continue;
        }
        let Some(pat) = p.by_field("pattern") else {
            continue;
        };
        if pat.kind_name() != "identifier" {
            continue;
        }
        c.properties.push(Property {
            name: cx.text(pat),
            is_static: false,
            is_readonly: readonly,
        });
        let class_name = c.name.clone();
        cx.define(pat, DefKind::Variable, p, Some(&class_name));
    }
}

fn interface(cx: &mut Cx<'_>, node: Node<'_>, outer: Node<'_>, exported: bool) {
    let Some(name) = node.by_field("name") else {
        return;
    };
    let class_name = cx.text(name);
    let mut c = Class {
        is_abstract: true,
        is_exported: exported,
        ..cx.class_at(&class_name, "interface", outer)
    };
    for part in children(node) {
        if part.kind_name() == "extends_type_clause" {
            let bases: Vec<String> = children(part)
                .iter()
                .map(|t| base_name(&cx.text(*t)))
                .collect();
            let mut it = bases.into_iter();
            c.extends = it.next();
            c.implements.extend(it);
        }
    }
    if let Some(body) = node.by_field("body") {
        for m in children(body) {
            if m.kind_name() == "construct_signature" {
                // `new (): T`, a method named `new` as ctags has it.
                let mut c = m.walk();
                if let Some(new) = m.children(&mut c).find(|k| k.kind_name() == "new") {
                    cx.define(new, DefKind::Method, m, Some(&class_name));
                }
                continue;
            }
            let Some(n) = m.by_field("name") else {
                continue;
            };
            match m.kind_name() {
                "property_signature" => {
                    c.properties.push(Property {
                        name: cx.text(n),
                        is_static: false,
                        is_readonly: has_child(m, "readonly"),
                    });
                    cx.define(n, DefKind::Variable, m, Some(&class_name));
                }
                "method_signature" => {
                    c.methods.push(Method {
                        name: cx.text(n),
                        is_static: false,
                        is_async: false,
                        params: params(cx, m),
                    });
                    cx.define(n, DefKind::Method, m, Some(&class_name));
                }
                _ => {}
            }
        }
    }
    cx.class(name, outer, DefKind::Interface, c);
}

fn enumeration(cx: &mut Cx<'_>, node: Node<'_>, outer: Node<'_>, exported: bool) {
    let Some(name) = node.by_field("name") else {
        return;
    };
    let class_name = cx.text(name);
    let mut c = Class {
        is_exported: exported,
        ..cx.class_at(&class_name, "enum", outer)
    };
    if let Some(body) = node.by_field("body") {
        for m in children(body) {
            let n = match m.kind_name() {
                "property_identifier" => m,
                "enum_assignment" => match m.by_field("name") {
                    Some(n) => n,
                    None => continue,
                },
                _ => continue,
            };
            c.properties.push(Property {
                name: cx.text(n),
                is_static: true,
                is_readonly: true,
            });
            cx.define(n, DefKind::Const, m, Some(&class_name));
        }
    }
    cx.class(name, outer, DefKind::Enum, c);
}
