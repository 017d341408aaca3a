//! Go: the node kinds of the generic passes, and symbols and imports from the tree.

use tree_sitter::Node;

use super::{Cx, FieldExt, Spec, children, end_line, line, qualified};
use crate::model::{Class, DefKind, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["comment"],
    opaque_bodies: &["function_declaration", "method_declaration"],
    items_in_bodies: &[],
};

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    let mut methods: Vec<(String, Method)> = Vec::new();
    top_level(root, cx, &mut methods);
    // Methods join their receiver's class when it is declared in this file.
    for (recv, m) in methods {
        if let Some(c) = cx.out.classes.iter_mut().find(|c| c.name == recv) {
            c.methods.push(m);
        }
    }
}

fn top_level(node: Node<'_>, cx: &mut Cx<'_>, methods: &mut Vec<(String, Method)>) {
    for child in children(node) {
        match child.kind_name() {
            "function_declaration" => {
                function(cx, child, None);
            }
            "method_declaration" => {
                let recv = child
                    .by_field("receiver")
                    .and_then(|r| {
                        children(r)
                            .into_iter()
                            .find(|p| p.kind_name() == "parameter_declaration")
                    })
                    .and_then(|p| p.by_field("type"))
                    .map(|t| type_name(cx, t));
                if let Some(recv) = recv
                    && let Some(m) = function(cx, child, Some(&recv))
                {
                    methods.push((recv, m));
                }
            }
            "type_declaration" => {
                for spec in children(child) {
                    match spec.kind_name() {
                        "type_spec" => type_spec(cx, spec, child),
                        "type_alias" => cx.define_named(spec, DefKind::Type, None),
                        _ => {}
                    }
                }
            }
            "const_declaration" => values(cx, child, "const_spec", DefKind::Const),
            "var_declaration" => values(cx, child, "var_spec", DefKind::Variable),
            "import_declaration" => imports(cx, child),
            "ERROR" => top_level(child, cx, methods),
            _ => {}
        }
    }
}

/// Exported: the name starts with an upper-case letter.
fn exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The comment block above a spec, or above its declaration when the spec is its first.
fn doc(cx: &Cx<'_>, spec: Node<'_>, decl: Node<'_>) -> Option<String> {
    cx.doc_above(spec).or_else(|| {
        let first = children(decl)
            .into_iter()
            .find(|c| c.kind_name() != "comment");
        (first == Some(spec) || spec == decl)
            .then(|| cx.doc_above(decl))
            .flatten()
    })
}

/// The base name of a receiver or embedded type: `Store` for `*Store`, `List[T]`, `pkg.Store`.
fn type_name(cx: &Cx<'_>, node: Node<'_>) -> String {
    match node.kind_name() {
        "pointer_type" | "parenthesized_type" => children(node)
            .into_iter()
            .next()
            .map_or_else(|| cx.squished(node), |t| type_name(cx, t)),
        "generic_type" => node
            .by_field("type")
            .map_or_else(|| cx.squished(node), |t| type_name(cx, t)),
        "qualified_type" => node
            .by_field("name")
            .map_or_else(|| cx.squished(node), |t| cx.text(t)),
        _ => cx.squished(node),
    }
}

/// Each parameter as `name type` (`a, b int` gives `a int` and `b int`).
fn params(cx: &Cx<'_>, list: Option<Node<'_>>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(list) = list else {
        return out;
    };
    for p in children(list) {
        if !matches!(
            p.kind_name(),
            "parameter_declaration" | "variadic_parameter_declaration"
        ) {
            continue;
        }
        let mut c = p.walk();
        let names: Vec<Node<'_>> = p
            .children_by_field_name("name", &mut c)
            .filter(|n| n.is_named())
            .collect();
        let ty = p.by_field("type").map(|t| cx.squished(t));
        if names.len() > 1
            && let Some(ty) = &ty
        {
            let dots = if p.kind_name() == "variadic_parameter_declaration" {
                "..."
            } else {
                ""
            };
            for n in names {
                out.push(format!("{} {dots}{ty}", cx.text(n)));
            }
        } else {
            out.push(cx.squished(p));
        }
    }
    out
}

/// A function, or a method of `recv` (`Recv.name`); returns the class's method entry.
fn function(cx: &mut Cx<'_>, node: Node<'_>, recv: Option<&str>) -> Option<Method> {
    let name_node = node.by_field("name")?;
    let name = cx.text(name_node);
    let params = params(cx, node.by_field("parameters"));
    let f = Function {
        qualified: qualified(recv, &name),
        name: name.clone(),
        params: params.clone(),
        is_async: false,
        is_exported: exported(&name),
        return_type: node.by_field("result").map(|t| cx.squished(t)),
        signature: cx.signature(node, node.by_field("body")),
        doc: cx.doc_above(node),
        line_start: line(node),
        line_end: end_line(node),
    };
    cx.function(name_node, node, recv, f);
    Some(Method {
        name,
        is_static: false,
        is_async: false,
        params,
    })
}

/// `type X struct {...}`, `type X interface {...}`, and other named types.
fn type_spec(cx: &mut Cx<'_>, spec: Node<'_>, decl: Node<'_>) {
    let Some(name_node) = spec.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let ty = spec.by_field("type");
    let (kind, def_kind) = match ty.map(|t| t.kind_name()) {
        Some("struct_type") => ("struct", DefKind::Struct),
        Some("interface_type") => ("interface", DefKind::Interface),
        _ => {
            cx.define(name_node, DefKind::Type, spec, None);
            return;
        }
    };
    let mut class = Class {
        name: name.clone(),
        kind: kind.to_string(),
        is_abstract: kind == "interface",
        is_exported: exported(&name),
        doc: doc(cx, spec, decl),
        line_start: line(spec),
        line_end: end_line(spec),
        ..Class::default()
    };
    let mut abstract_methods = Vec::new();
    if let Some(ty) = ty {
        if kind == "struct" {
            let list = children(ty)
                .into_iter()
                .find(|c| c.kind_name() == "field_declaration_list");
            for f in list.map(children).unwrap_or_default() {
                if f.kind_name() != "field_declaration" {
                    continue;
                }
                let mut c = f.walk();
                let names: Vec<String> = f
                    .children_by_field_name("name", &mut c)
                    .filter(|n| n.is_named())
                    .map(|n| cx.text(n))
                    .collect();
                if names.is_empty() {
                    // An embedded type.
                    if let Some(t) = f.by_field("type") {
                        class
                            .implements
                            .push(cx.squished(t).trim_start_matches('*').to_string());
                    }
                }
                for name in names {
                    class.properties.push(Property {
                        name,
                        is_static: false,
                        is_readonly: false,
                    });
                }
            }
        } else {
            for m in children(ty) {
                match m.kind_name() {
                    "method_elem" => abstract_methods.push(m),
                    "type_elem" => class.implements.push(cx.squished(m)),
                    _ => {}
                }
            }
        }
    }
    cx.class(name_node, spec, def_kind, class);
    let mut methods = Vec::new();
    for m in abstract_methods {
        methods.extend(function(cx, m, Some(&name)));
    }
    if let Some(c) = cx.out.classes.iter_mut().rev().find(|c| c.name == name) {
        c.methods = methods;
    }
}

/// `const` and `var` specs (grouped or not).
fn values(cx: &mut Cx<'_>, decl: Node<'_>, spec_kind: &str, kind: DefKind) {
    for spec in children(decl) {
        if spec.kind_name() == "var_spec_list" {
            values(cx, spec, spec_kind, kind);
            continue;
        }
        if spec.kind_name() != spec_kind {
            continue;
        }
        let mut c = spec.walk();
        let names: Vec<Node<'_>> = spec
            .children_by_field_name("name", &mut c)
            .filter(|n| n.kind_name() == "identifier" && cx.text(*n) != "_")
            .collect();
        for n in names {
            cx.define(n, kind, spec, None);
        }
    }
}

/// Each import spec: the path without quotes, named by its alias or last element.
fn imports(cx: &mut Cx<'_>, node: Node<'_>) {
    for child in children(node) {
        match child.kind_name() {
            "import_spec_list" => imports(cx, child),
            "import_spec" => {
                let Some(path) = cx.field(child, "path") else {
                    continue;
                };
                let path = path.trim_matches(['"', '`']).to_string();
                if path.is_empty() {
                    continue;
                }
                let name = cx
                    .field(child, "name")
                    .unwrap_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_string());
                cx.import(child, path, vec![name]);
            }
            _ => {}
        }
    }
}
