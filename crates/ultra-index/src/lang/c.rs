//! C and C++: the node kinds of the generic passes, and symbols and imports from the tree.

use tree_sitter::Node;

use super::{Cx, FieldExt, Lang, Spec, children, end_line, has_child, line, qualified};
use crate::model::{Class, DefKind, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["comment"],
    opaque_bodies: &["function_definition"],
    items_in_bodies: &[],
};

/// A function or method declared without a body: recorded at the end unless the same file
/// also defines it.
struct Proto<'t> {
    name: Node<'t>,
    whole: Node<'t>,
    class: Option<String>,
    f: Function,
}

#[derive(Default)]
struct State<'t> {
    protos: Vec<Proto<'t>>,
    /// Out-of-class method definitions (`void Foo::bar() {}`): (class, method).
    methods: Vec<(String, Method)>,
}

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    let mut st = State::default();
    decls(root, cx, &mut st);
    let protos = std::mem::take(&mut st.protos);
    for p in protos {
        let defined = cx
            .out
            .functions
            .iter()
            .any(|f| f.qualified == p.f.qualified);
        if !defined {
            cx.function(p.name, p.whole, p.class.as_deref(), p.f);
        }
    }
    for (class, m) in st.methods {
        if let Some(c) = cx.out.classes.iter_mut().find(|c| c.name == class)
            && !c
                .methods
                .iter()
                .any(|x| x.name == m.name && x.params == m.params)
        {
            c.methods.push(m);
        }
    }
    cx.out.functions.sort_by_key(|f| f.line_start);
    cx.out.definitions.sort_by_key(|d| (d.line, d.column));
}

/// The declarations of a translation unit, namespace, `extern "C"` block, or
/// preprocessor conditional.
fn decls<'t>(node: Node<'t>, cx: &mut Cx<'_>, st: &mut State<'t>) {
    for child in children(node) {
        match child.kind_name() {
            "preproc_include" => include(cx, child),
            "preproc_def" | "preproc_function_def" => macro_def(cx, child, node),
            "preproc_ifdef"
            | "preproc_if"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list"
            | "template_declaration"
            | "ERROR" => {
                decls(child, cx, st);
            }
            "namespace_definition" => {
                cx.define_named(child, DefKind::Module, None);
                if let Some(body) = child.by_field("body") {
                    decls(body, cx, st);
                }
            }
            "function_definition" => {
                let exported = !is_static(cx, child);
                if let Some((class, m)) = function(cx, child, None, exported, st)
                    && let Some(class) = class
                {
                    st.methods.push((class, m));
                }
            }
            "declaration" => declaration(cx, child, st),
            "type_definition" => typedef(cx, child, st),
            "alias_declaration" => cx.define_named(child, DefKind::Type, None),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
                class_like(cx, child, None, st);
            }
            _ => {}
        }
    }
}

/// Whether a declaration has the `static` storage class.
fn is_static(cx: &Cx<'_>, node: Node<'_>) -> bool {
    children(node)
        .into_iter()
        .any(|c| c.kind_name() == "storage_class_specifier" && cx.text(c) == "static")
}

/// The doc comment above `first`, else above `then` (a template or typedef around it, or
/// the specifier inside one).
fn doc(cx: &Cx<'_>, first: Node<'_>, then: Node<'_>) -> Option<String> {
    cx.doc_above(first)
        .or_else(|| (then != first).then(|| cx.doc_above(then)).flatten())
}

/// `#include "x.h"` → `x.h`; `#include <x.h>` → `<x.h>`.
fn include(cx: &mut Cx<'_>, node: Node<'_>) {
    let Some(path) = node.by_field("path") else {
        return;
    };
    let text = cx.text(path);
    let source = if path.kind_name() == "string_literal" {
        text.trim_matches('"').to_string()
    } else {
        text.trim().to_string()
    };
    if !source.is_empty() {
        cx.import(node, source, Vec::new());
    }
}

/// `#define NAME ...` → a `Const`, except an include guard's `#define`.
fn macro_def(cx: &mut Cx<'_>, node: Node<'_>, parent: Node<'_>) {
    let Some(name) = node.by_field("name") else {
        return;
    };
    let guard = node.kind_name() == "preproc_def"
        && node.by_field("value").is_none()
        && parent.kind_name() == "preproc_ifdef"
        && cx.field(parent, "name") == Some(cx.text(name));
    if !guard {
        // The directive's node ends after its newline: end at its last part instead.
        let last = node
            .by_field("value")
            .or_else(|| node.by_field("parameters"))
            .unwrap_or(name);
        cx.define(name, DefKind::Const, last, None);
    }
}

/// The function declarator under a declarator chain, and the `*`/`&` it passed through.
fn function_declarator<'t>(mut node: Node<'t>) -> Option<(Node<'t>, String)> {
    let mut ptr = String::new();
    for _ in 0..32 {
        match node.kind_name() {
            "function_declarator" => {
                // A parenthesized inner declarator is a function pointer, not a function.
                let inner = node.by_field("declarator")?;
                return (inner.kind_name() != "parenthesized_declarator").then_some((node, ptr));
            }
            "pointer_declarator" => {
                ptr.push('*');
                node = node.by_field("declarator")?;
            }
            "reference_declarator" => {
                ptr.push_str(if has_child(node, "&&") { "&&" } else { "&" });
                node = children(node).into_iter().last()?;
            }
            "attributed_declarator" | "parenthesized_declarator" => {
                node = children(node).into_iter().next()?;
            }
            _ => return None,
        }
    }
    None
}

/// The identifier a (non-function) declarator declares.
fn declared_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    for _ in 0..32 {
        match node.kind_name() {
            "identifier" | "field_identifier" | "type_identifier" => return Some(node),
            "init_declarator"
            | "pointer_declarator"
            | "array_declarator"
            | "function_declarator" => {
                node = node.by_field("declarator")?;
            }
            "reference_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                node = children(node)
                    .into_iter()
                    .find(|c| c.kind_name() != "attribute_specifier")?;
            }
            _ => return None,
        }
    }
    None
}

/// A function's name node and its class, from the declarator's name: `f`, `Foo::f`,
/// `Foo<T>::f`, `~Foo`, `operator+`.
fn function_name<'t>(cx: &Cx<'_>, node: Node<'t>) -> Option<(Node<'t>, Option<String>)> {
    match node.kind_name() {
        "qualified_identifier" => {
            let scope = node.by_field("scope");
            let name = node.by_field("name")?;
            let (leaf, inner) = function_name(cx, name)?;
            let class = inner.or_else(|| {
                scope.map(|s| match s.kind_name() {
                    "template_type" => cx.field(s, "name").unwrap_or_else(|| cx.squished(s)),
                    _ => cx.squished(s),
                })
            });
            Some((leaf, class))
        }
        "template_function" => Some((node.by_field("name")?, None)),
        _ => Some((node, None)),
    }
}

/// Each parameter's text, without a lone `void`.
fn params(cx: &Cx<'_>, list: Option<Node<'_>>) -> Vec<String> {
    let ps = cx.params(list);
    if ps.len() == 1 && ps[0] == "void" {
        return Vec::new();
    }
    ps
}

/// A function definition or declaration (`node`, whose `declarator` leads to the function
/// declarator). Definitions are recorded now, declarations become prototypes. Returns the
/// method's class (from `class` or a `Foo::` qualifier) and its method entry.
fn function<'t>(
    cx: &mut Cx<'_>,
    node: Node<'t>,
    class: Option<&str>,
    exported: bool,
    st: &mut State<'t>,
) -> Option<(Option<String>, Method)> {
    let (decl, ptr) = function_declarator(node.by_field("declarator")?)?;
    let (name_node, scope) = function_name(cx, decl.by_field("declarator")?)?;
    let name = cx.squished(name_node);
    if name.is_empty() {
        return None;
    }
    let class = class.map(str::to_string).or(scope);
    let params = params(cx, decl.by_field("parameters"));
    let trailing = children(decl)
        .into_iter()
        .find(|c| c.kind_name() == "trailing_return_type")
        .and_then(|t| children(t).into_iter().next());
    let return_type = match (trailing, node.by_field("type")) {
        (Some(t), _) => Some(cx.squished(t)),
        (None, Some(t)) => {
            let mut parts: Vec<String> = children(node)
                .into_iter()
                .filter(|c| c.kind_name() == "type_qualifier" && c.end_byte() <= t.start_byte())
                .map(|c| cx.text(c))
                .collect();
            parts.push(cx.squished(t));
            let mut ty = parts.join(" ");
            if !ptr.is_empty() {
                ty.push(' ');
                ty.push_str(&ptr);
            }
            Some(ty)
        }
        (None, None) => None,
    };
    let body = node.by_field("body");
    // `template <...>` belongs to the item.
    let outer = node
        .parent()
        .filter(|p| p.kind_name() == "template_declaration")
        .unwrap_or(node);
    let is_static = is_static(cx, node);
    let f = Function {
        qualified: qualified(class.as_deref(), &name),
        name: name.clone(),
        params: params.clone(),
        is_async: false,
        is_exported: exported,
        return_type,
        signature: cx
            .signature(node, body)
            .trim_end_matches([';', ' '])
            .to_string(),
        doc: doc(cx, node, outer),
        line_start: line(outer),
        line_end: end_line(node),
    };
    if node.kind_name() == "function_definition" {
        cx.function(name_node, node, class.as_deref(), f);
    } else {
        st.protos.push(Proto {
            name: name_node,
            whole: node,
            class: class.clone(),
            f,
        });
    }
    Some((
        class,
        Method {
            name,
            is_static,
            is_async: false,
            params,
        },
    ))
}

/// A top-level `declaration`: prototypes, global variables, and any struct/enum it
/// defines.
fn declaration<'t>(cx: &mut Cx<'_>, node: Node<'t>, st: &mut State<'t>) {
    if let Some(ty) = node.by_field("type")
        && matches!(
            ty.kind_name(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        )
    {
        class_like(cx, ty, None, st);
    }
    let exported = !is_static(cx, node);
    let mut c = node.walk();
    let declarators: Vec<Node<'t>> = node.children_by_field_name("declarator", &mut c).collect();
    for d in declarators {
        if function_declarator(d).is_some() {
            // A prototype: `function` finds the declarator again from `node`, so handle
            // declarations with one declarator (the usual case) through it.
            if let Some((Some(class), m)) = function(cx, node, None, exported, st) {
                st.methods.push((class, m));
            }
            break;
        }
        if let Some(name) = declared_name(d) {
            cx.define(name, DefKind::Variable, node, None);
        }
    }
}

/// `typedef`: the struct/union/enum it defines (named by the typedef when anonymous) and
/// a `Type` definition per name.
fn typedef<'t>(cx: &mut Cx<'_>, node: Node<'t>, st: &mut State<'t>) {
    let mut c = node.walk();
    let names: Vec<Node<'t>> = node
        .children_by_field_name("declarator", &mut c)
        .filter_map(declared_name)
        .collect();
    if let Some(ty) = node.by_field("type")
        && matches!(
            ty.kind_name(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        )
    {
        let anonymous = ty.by_field("name").is_none();
        class_like(cx, ty, names.first().copied().filter(|_| anonymous), st);
        if anonymous {
            // The typedef name already names the class.
            for n in names.iter().skip(1) {
                cx.define(*n, DefKind::Type, node, None);
            }
            return;
        }
    }
    for n in names {
        cx.define(n, DefKind::Type, node, None);
    }
}

/// A `struct`, `union`, `enum` or `class` with a body; `typedef_name` names an anonymous
/// one.
fn class_like<'t>(
    cx: &mut Cx<'_>,
    spec: Node<'t>,
    typedef_name: Option<Node<'t>>,
    st: &mut State<'t>,
) {
    let Some(body) = spec.by_field("body") else {
        return;
    };
    let Some(name_node) = spec.by_field("name").or(typedef_name) else {
        return;
    };
    let name_node = match name_node.kind_name() {
        "template_type" => name_node.by_field("name").unwrap_or(name_node),
        "qualified_identifier" => name_node.by_field("name").unwrap_or(name_node),
        _ => name_node,
    };
    let name = cx.text(name_node);
    let (kind, def_kind) = match spec.kind_name() {
        "class_specifier" => ("class", DefKind::Class),
        "union_specifier" => ("union", DefKind::Struct),
        "enum_specifier" => ("enum", DefKind::Enum),
        _ => ("struct", DefKind::Struct),
    };
    // The whole declaration: a typedef, a template, or the specifier itself.
    let outer = spec
        .parent()
        .filter(|p| {
            matches!(
                p.kind_name(),
                "type_definition" | "template_declaration" | "declaration"
            )
        })
        .unwrap_or(spec);
    let mut class = Class {
        name: name.clone(),
        kind: kind.to_string(),
        is_exported: true,
        doc: doc(cx, outer, spec),
        line_start: line(outer),
        line_end: end_line(spec),
        ..Class::default()
    };
    if let Some(bases) = children(spec)
        .into_iter()
        .find(|c| c.kind_name() == "base_class_clause")
    {
        let mut names = children(bases)
            .into_iter()
            .filter(|b| !matches!(b.kind_name(), "access_specifier" | "virtual" | "comment"))
            .map(|b| cx.squished(b));
        class.extends = names.next();
        class.implements = names.collect();
    }
    if kind == "enum" {
        let mut enumerators = Vec::new();
        for e in children(body) {
            if e.kind_name() == "enumerator"
                && let Some(n) = e.by_field("name")
            {
                class.properties.push(Property {
                    name: cx.text(n),
                    is_static: true,
                    is_readonly: true,
                });
                enumerators.push((n, e));
            }
        }
        cx.class(name_node, spec, def_kind, class);
        for (n, e) in enumerators {
            cx.define(n, DefKind::Const, e, Some(&name));
        }
        return;
    }
    cx.class(name_node, spec, def_kind, class);
    let index = cx.out.classes.len() - 1;
    let cpp = cx.lang == Lang::Cpp;
    let mut public = kind != "class";
    let mut methods = Vec::new();
    let mut properties = Vec::new();
    let mut is_abstract = false;
    members(
        cx,
        body,
        &name,
        cpp,
        &mut public,
        &mut methods,
        &mut properties,
        &mut is_abstract,
        st,
    );
    if let Some(c) = cx.out.classes.get_mut(index) {
        c.methods = methods;
        c.properties = properties;
        c.is_abstract = is_abstract;
    }
}

/// The members of a class body.
#[allow(clippy::too_many_arguments)]
fn members<'t>(
    cx: &mut Cx<'_>,
    body: Node<'t>,
    class: &str,
    cpp: bool,
    public: &mut bool,
    methods: &mut Vec<Method>,
    properties: &mut Vec<Property>,
    is_abstract: &mut bool,
    st: &mut State<'t>,
) {
    for m in children(body) {
        match m.kind_name() {
            "access_specifier" => *public = cx.text(m).trim_end_matches(':').trim() == "public",
            "function_definition" if cpp => {
                if let Some((_, method)) = function(cx, m, Some(class), *public, st) {
                    methods.push(method);
                }
            }
            "declaration" if cpp => {
                if let Some((_, method)) = function(cx, m, Some(class), *public, st) {
                    methods.push(method);
                }
            }
            "template_declaration"
            | "preproc_ifdef"
            | "preproc_if"
            | "preproc_else"
            | "preproc_elif" => {
                members(
                    cx,
                    m,
                    class,
                    cpp,
                    public,
                    methods,
                    properties,
                    is_abstract,
                    st,
                );
            }
            "field_declaration" => {
                let is_method = cpp
                    && m.by_field("declarator")
                        .and_then(function_declarator)
                        .is_some();
                if is_method {
                    if has_child(m, "virtual")
                        && m.by_field("default_value")
                            .is_some_and(|v| cx.text(v) == "0")
                    {
                        *is_abstract = true;
                    }
                    if let Some((_, method)) = function(cx, m, Some(class), *public, st) {
                        methods.push(method);
                    }
                    continue;
                }
                let is_static = is_static(cx, m);
                let is_readonly = children(m).into_iter().any(|c| {
                    c.kind_name() == "type_qualifier"
                        && matches!(cx.text(c).as_str(), "const" | "constexpr")
                });
                if let Some(ty) = m.by_field("type")
                    && matches!(
                        ty.kind_name(),
                        "struct_specifier"
                            | "union_specifier"
                            | "enum_specifier"
                            | "class_specifier"
                    )
                {
                    class_like(cx, ty, None, st);
                }
                let mut c = m.walk();
                let names: Vec<String> = m
                    .children_by_field_name("declarator", &mut c)
                    .filter_map(declared_name)
                    .map(|n| cx.text(n))
                    .collect();
                for name in names {
                    properties.push(Property {
                        name,
                        is_static,
                        is_readonly,
                    });
                }
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
                class_like(cx, m, None, st);
            }
            "alias_declaration" => cx.define_named(m, DefKind::Type, Some(class)),
            "type_definition" => typedef(cx, m, st),
            _ => {}
        }
    }
}
