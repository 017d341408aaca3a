//! Java: the node kinds of the generic passes, and symbols and imports from the tree.

use tree_sitter::Node;

use super::{Cx, FieldExt, Spec, children, compact_str, end_line, has_child, line};
use crate::model::{Class, DefKind, Definition, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["line_comment", "block_comment"],
    opaque_bodies: &[
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
    ],
    items_in_bodies: &[],
};

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    top(cx, root);
    cx.out.definitions.sort_by_key(|d| (d.line, d.column));
}

fn top(cx: &mut Cx<'_>, node: Node<'_>) {
    for n in children(node) {
        match n.kind_name() {
            "package_declaration" => {
                if let Some(name) = children(n)
                    .into_iter()
                    .find(|c| matches!(c.kind_name(), "scoped_identifier" | "identifier"))
                {
                    cx.out.definitions.push(Definition {
                        name: cx.text(name),
                        kind: DefKind::Module,
                        line: line(name),
                        column: name.start_position().column as u32,
                        line_end: end_line(n),
                        container: None,
                    });
                }
            }
            "import_declaration" => import(cx, n),
            "ERROR" => top(cx, n),
            _ => type_declaration(cx, n, None, false),
        }
    }
}

/// `import a.b.C;` → `a.b.C` [C]; `import a.b.*;` → `a.b` [*]; `import static a.B.c;` → `a.B.c` [c].
fn import(cx: &mut Cx<'_>, n: Node<'_>) {
    let Some(path) = children(n)
        .into_iter()
        .find(|c| matches!(c.kind_name(), "scoped_identifier" | "identifier"))
    else {
        return;
    };
    let source = cx.text(path);
    let names = if has_child(n, "asterisk") {
        vec!["*".to_string()]
    } else {
        vec![source.rsplit('.').next().unwrap_or(&source).to_string()]
    };
    cx.import(n, source, names);
}

/// The modifier keywords and annotations of a declaration.
fn modifiers(cx: &Cx<'_>, node: Node<'_>) -> Vec<String> {
    let Some(m) = children(node)
        .into_iter()
        .find(|c| c.kind_name() == "modifiers")
    else {
        return Vec::new();
    };
    let mut c = m.walk();
    m.children(&mut c)
        .filter(|k| !k.is_named())
        .map(|k| cx.text(k))
        .collect()
}

/// A type without type arguments (`List<T>` → `List`).
fn base_name(s: &str) -> String {
    compact_str(s.split('<').next().unwrap_or(s))
}

fn type_list(cx: &Cx<'_>, node: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for c in children(node) {
        if c.kind_name() == "type_list" {
            out.extend(children(c).iter().map(|t| base_name(&cx.text(*t))));
        }
    }
    out
}

/// A class, interface, enum, record or annotation type; `container` is the enclosing type.
fn type_declaration(cx: &mut Cx<'_>, n: Node<'_>, container: Option<&str>, in_interface: bool) {
    let (kind, def_kind) = match n.kind_name() {
        "class_declaration" | "record_declaration" => ("class", DefKind::Class),
        "interface_declaration" | "annotation_type_declaration" => {
            ("interface", DefKind::Interface)
        }
        "enum_declaration" => ("enum", DefKind::Enum),
        _ => return,
    };
    let Some(name_node) = n.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let mods = modifiers(cx, n);
    let mut c = Class {
        is_abstract: kind == "interface" || mods.iter().any(|m| m == "abstract"),
        is_exported: mods.iter().any(|m| m == "public") || in_interface,
        ..cx.class_at(&name, kind, n)
    };
    if let Some(s) = n.by_field("superclass") {
        c.extends = children(s).first().map(|t| base_name(&cx.text(*t)));
    }
    if let Some(i) = n.by_field("interfaces") {
        c.implements = type_list(cx, i);
    }
    if let Some(e) = children(n)
        .into_iter()
        .find(|c| c.kind_name() == "extends_interfaces")
    {
        let mut bases = type_list(cx, e).into_iter();
        c.extends = bases.next();
        c.implements.extend(bases);
    }
    // Record components are its fields.
    if n.kind_name() == "record_declaration"
        && let Some(ps) = n.by_field("parameters")
    {
        for p in children(ps) {
            if let Some(pn) = p.by_field("name") {
                c.properties.push(Property {
                    name: cx.text(pn),
                    is_static: false,
                    is_readonly: true,
                });
                cx.define(pn, DefKind::Variable, p, Some(&name));
            }
        }
    }
    if let Some(body) = n.by_field("body") {
        body_members(cx, body, &mut c, kind == "interface");
    }
    cx.define(name_node, def_kind, n, container);
    cx.out.classes.push(c);
}

fn body_members(cx: &mut Cx<'_>, body: Node<'_>, c: &mut Class, interface: bool) {
    let class_name = c.name.clone();
    for m in children(body) {
        match m.kind_name() {
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration" => {
                method(cx, m, c, interface);
            }
            "annotation_type_element_declaration" => {
                if let Some(n) = m.by_field("name") {
                    c.methods.push(Method {
                        name: cx.text(n),
                        ..Method::default()
                    });
                    cx.define(n, DefKind::Method, m, Some(&class_name));
                }
            }
            "field_declaration" | "constant_declaration" => {
                let mods = modifiers(cx, m);
                let constant = m.kind_name() == "constant_declaration" || interface;
                let is_static = constant || mods.iter().any(|x| x == "static");
                let is_readonly = constant || mods.iter().any(|x| x == "final");
                for d in children(m) {
                    if d.kind_name() != "variable_declarator" {
                        continue;
                    }
                    let Some(n) = d.by_field("name") else {
                        continue;
                    };
                    c.properties.push(Property {
                        name: cx.text(n),
                        is_static,
                        is_readonly,
                    });
                    let kind = if is_static && is_readonly {
                        DefKind::Const
                    } else {
                        DefKind::Variable
                    };
                    cx.define(n, kind, m, Some(&class_name));
                }
            }
            "enum_constant" => {
                if let Some(n) = m.by_field("name") {
                    c.properties.push(Property {
                        name: cx.text(n),
                        is_static: true,
                        is_readonly: true,
                    });
                    cx.define(n, DefKind::Const, m, Some(&class_name));
                }
            }
            "enum_body_declarations" => body_members(cx, m, c, interface),
            "class_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "annotation_type_declaration"
            | "enum_declaration" => type_declaration(cx, m, Some(&class_name), interface),
            _ => {}
        }
    }
}

fn method(cx: &mut Cx<'_>, m: Node<'_>, c: &mut Class, interface: bool) {
    let Some(name_node) = m.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let mods = modifiers(cx, m);
    let params = cx.params(m.by_field("parameters"));
    let is_static = mods.iter().any(|x| x == "static");
    c.methods.push(Method {
        name: name.clone(),
        is_static,
        is_async: false,
        params: params.clone(),
    });
    let body = m.by_field("body");
    if interface && body.is_none() {
        // An interface's abstract method: listed in the interface, not a function.
        cx.define(name_node, DefKind::Method, m, Some(&c.name));
        return;
    }
    let exported =
        mods.iter().any(|x| x == "public") || (interface && !mods.iter().any(|x| x == "private"));
    let f = Function {
        qualified: format!("{}.{name}", c.name),
        params,
        is_async: false,
        is_exported: exported,
        return_type: m.by_field("type").map(|t| cx.text(t)),
        signature: cx.signature(m, body).trim_end_matches(';').to_string(),
        doc: cx.doc_above(m),
        line_start: line(m),
        line_end: end_line(m),
        name,
    };
    let class_name = c.name.clone();
    cx.function(name_node, m, Some(&class_name), f);
}
