//! Rust: the node kinds of the generic passes, and symbols and imports from the tree.

use tree_sitter::Node;

use super::{Cx, FieldExt, KindSet, Lang, Spec, children, each_node, has_child, line, qualified};
use crate::model::{Class, DefKind, Function, Method, Property};

pub(crate) static SPEC: Spec = Spec {
    comments: &["line_comment", "block_comment"],
    opaque_bodies: &["function_item"],
    items_in_bodies: ITEMS,
};

/// Items, which may also sit in a function's body (helpers, test fixtures, local impls).
const ITEMS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "union_item",
    "enum_item",
    "trait_item",
    "impl_item",
    "type_item",
    "const_item",
    "static_item",
    "macro_definition",
    "mod_item",
    "use_declaration",
    "extern_crate_declaration",
];

/// The code that may hold items below module level inside an `impl`, `trait` or module
/// that [`items`] does not read as items: its functions' bodies and its constants' values.
fn bodies<'t>(src: &[u8], node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        body_of(src, child, out);
        match child.kind_name() {
            "mod_item" | "impl_item" | "trait_item" | "foreign_mod_item" => {
                bodies_under(src, child, out)
            }
            "ERROR" => bodies(src, child, out),
            _ => {}
        }
    }
}

/// [`bodies`] in `item`'s body, when it has one.
fn bodies_under<'t>(src: &[u8], item: Node<'t>, out: &mut Vec<Node<'t>>) {
    if let Some(body) = item.by_field("body") {
        bodies(src, body, out);
    }
}

/// The body of a function, or the value of a constant or static that has a block (only a
/// block can declare an item: most constants, and windows-sys has tens of thousands, have
/// none).
fn body_of<'t>(src: &[u8], item: Node<'t>, out: &mut Vec<Node<'t>>) {
    match item.kind_name() {
        "function_item" => out.extend(item.by_field("body")),
        "const_item" | "static_item" if src[item.byte_range()].contains(&b'{') => {
            out.extend(item.by_field("value"))
        }
        _ => {}
    }
}

/// Whether `w` is a keyword an item starts with (`fn`, `struct`, `impl`, `use`, …): an
/// item can only be declared in code that holds one.
pub(crate) fn starts_item(w: &[u8]) -> bool {
    // A `match` on the word compiles to a switch on its length, then one comparison.
    matches!(
        w,
        b"fn"
            | b"struct"
            | b"enum"
            | b"union"
            | b"trait"
            | b"impl"
            | b"type"
            | b"const"
            | b"static"
            | b"mod"
            | b"use"
            | b"extern"
            | b"macro_rules"
    )
}

/// Where in `text` a keyword an item starts with stands as a word, offset by `base`.
/// (`'static` and `.union` are not.)
fn item_keywords(text: &[u8], base: usize) -> Vec<usize> {
    super::word_marks(text, base, b"'.", starts_item)
}

/// Methods found in an `impl` block, merged into the type's [`Class`] at the end when the
/// type is declared in the same file.
struct Impl {
    ty: String,
    trait_name: Option<String>,
    methods: Vec<Method>,
}

/// Functions, classes, definitions and imports.
pub(crate) fn extract(root: Node<'_>, cx: &mut Cx<'_>) {
    let mut impls = Vec::new();
    let mut mods = Vec::new();
    // The code that may hold items below module level, in source order.
    let mut found = Vec::new();
    items(root, cx, &mut impls, &mut mods, &mut found);
    // Items inside function bodies and other blocks, at any depth: a block is read as an
    // item list when the walk meets its first item. Only nodes whose text has an item's
    // keyword are walked: most bodies have none, and a word scan costs a fraction of a walk.
    let is_item = KindSet::of(Lang::Rust, "rust-items", ITEMS);
    let is_block = KindSet::of(Lang::Rust, "rust-block", &["block"]);
    let mut read_blocks: Vec<usize> = Vec::new();
    for body in found {
        let marks = item_keywords(&cx.src[body.byte_range()], body.start_byte());
        if marks.is_empty() {
            continue;
        }
        each_node(body, |node, ancestors| {
            // Only a node that holds an item's keyword can hold the item.
            if !super::marked_in(&marks, node.start_byte(), node.end_byte()) {
                return false;
            }
            if is_item.has(node)
                && let Some(&parent) = ancestors.last().filter(|&&p| is_block.has(p))
                && !read_blocks.contains(&parent.id())
            {
                read_blocks.push(parent.id());
                // Its functions' bodies are walked on from here.
                items(parent, cx, &mut impls, &mut Vec::new(), &mut Vec::new());
            }
            true
        });
    }
    for imp in impls {
        let Some(class) = cx
            .out
            .classes
            .iter_mut()
            .find(|c| c.name == imp.ty && c.kind != "trait")
        else {
            continue;
        };
        class.methods.extend(imp.methods);
        if let Some(t) = imp.trait_name
            && !class.implements.contains(&t)
        {
            class.implements.push(t);
        }
    }
}

/// The items of a source file, inline module, or `extern` block; the code below them
/// that may hold more items (functions' bodies, constants' blocks) goes to `found`.
fn items<'t>(
    node: Node<'t>,
    cx: &mut Cx<'_>,
    impls: &mut Vec<Impl>,
    mods: &mut Vec<String>,
    found: &mut Vec<Node<'t>>,
) {
    for child in children(node) {
        body_of(cx.src, child, found);
        match child.kind_name() {
            "function_item" | "function_signature_item" => {
                let exported = has_child(child, "visibility_modifier");
                function(cx, child, None, exported);
            }
            "struct_item" | "union_item" => structure(cx, child),
            "enum_item" => enumeration(cx, child),
            "trait_item" => {
                bodies_under(cx.src, child, found);
                trait_item(cx, child);
            }
            "impl_item" => {
                bodies_under(cx.src, child, found);
                impls.extend(impl_item(cx, child));
            }
            "type_item" => cx.define_named(child, DefKind::Type, None),
            "const_item" | "static_item" => cx.define_named(child, DefKind::Const, None),
            "macro_definition" => cx.define_named(child, DefKind::Function, None),
            "mod_item" => {
                cx.define_named(child, DefKind::Module, None);
                let Some(name) = cx.field(child, "name") else {
                    bodies_under(cx.src, child, found);
                    continue;
                };
                if let Some(body) = child.by_field("body") {
                    mods.push(name);
                    items(body, cx, impls, mods, found);
                    mods.pop();
                } else {
                    let mut path = mods.clone();
                    path.push(name.clone());
                    cx.import(child, format!("mod:{}", path.join("/")), vec![name]);
                }
            }
            "foreign_mod_item" => {
                if let Some(body) = child.by_field("body") {
                    items(body, cx, impls, mods, found);
                }
            }
            "use_declaration" => {
                if let Some(arg) = child.by_field("argument") {
                    let mut found = Vec::new();
                    use_tree(cx, arg, "", &mut found);
                    for (source, names) in found {
                        cx.import(child, source, names);
                    }
                }
            }
            "extern_crate_declaration" => {
                if let Some(name) = cx.field(child, "name") {
                    let alias = cx.field(child, "alias").unwrap_or_else(|| name.clone());
                    cx.import(child, name, vec![alias]);
                }
            }
            // Recovered items can sit inside an ERROR node.
            "ERROR" => items(child, cx, impls, mods, found),
            _ => {}
        }
    }
}

/// The `///` (or `/** */`) doc comment above an item, skipping its attributes and blank
/// lines (rustdoc attaches a doc comment across them).
fn doc(cx: &Cx<'_>, node: Node<'_>) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    let mut in_block = false;
    for l in cx.lines_above(node) {
        if in_block {
            block.push(l);
            if l.starts_with("/*") {
                in_block = false;
                // A `/** ... */` doc block (not `/*` or `/***`).
                let is_doc = l.starts_with("/**") && !l.starts_with("/***");
                if !is_doc {
                    break;
                }
                for b in block.drain(..) {
                    let t = b
                        .trim_start_matches("/**")
                        .trim_end_matches("*/")
                        .trim()
                        .trim_start_matches('*')
                        .trim();
                    lines.push(t.to_string());
                }
            }
            continue;
        }
        if l.is_empty() || (l.starts_with("#[") && l.ends_with(']')) {
            continue;
        }
        if let Some(rest) = l.strip_prefix("///") {
            if rest.starts_with('/') {
                break;
            }
            lines.push(rest.trim().to_string());
            continue;
        }
        if l.ends_with("*/") {
            if l.starts_with("/**") && !l.starts_with("/***") {
                let inner = l.trim_start_matches("/**").trim_end_matches("*/").trim();
                lines.push(inner.to_string());
                continue;
            }
            if l.starts_with("/*") {
                break;
            }
            in_block = true;
            block.push(l);
            continue;
        }
        break;
    }
    lines.reverse();
    let text: Vec<String> = lines.into_iter().filter(|l| !l.is_empty()).collect();
    (!text.is_empty()).then(|| text.join("\n"))
}

/// A `fn` item (or signature), recorded as a function or, with `owner`, a method
/// `Owner.name`. Returns the method entry for the owner's class.
fn function(
    cx: &mut Cx<'_>,
    node: Node<'_>,
    owner: Option<&str>,
    exported: bool,
) -> Option<Method> {
    let name_node = node.by_field("name")?;
    let name = cx.text(name_node);
    let mut params = Vec::new();
    let mut has_self = false;
    if let Some(list) = node.by_field("parameters") {
        for p in children(list) {
            match p.kind_name() {
                "attribute_item" | "line_comment" | "block_comment" => continue,
                "self_parameter" => has_self = true,
                "parameter"
                    if p.by_field("pattern")
                        .is_some_and(|pat| pat.kind_name() == "self") =>
                {
                    has_self = true;
                }
                _ => {}
            }
            params.push(cx.squished(p));
        }
    }
    // Modifiers come before the name.
    let mut cursor = node.walk();
    let is_async = node
        .children(&mut cursor)
        .take_while(|c| c.start_byte() < name_node.start_byte())
        .any(|c| c.kind_name() == "function_modifiers" && has_child(c, "async"));
    // Only a method's entry in its type needs the name and parameters a second time.
    let method = owner.map(|_| (name.clone(), params.clone()));
    let f = Function {
        qualified: qualified(owner, &name),
        name,
        params,
        is_async,
        is_exported: exported,
        return_type: node.by_field("return_type").map(|t| cx.squished(t)),
        signature: cx
            .signature(node, node.by_field("body"))
            .trim_end_matches([';', ' '])
            .to_string(),
        doc: doc(cx, node),
        line_start: line(node),
        line_end: super::end_line(node),
    };
    cx.function(name_node, node, owner, f);
    let (name, params) = method?;
    Some(Method {
        name,
        is_static: !has_self,
        is_async,
        params,
    })
}

/// A class-like with everything but methods filled in.
fn class_shell(cx: &Cx<'_>, node: Node<'_>, name: &str, kind: &str) -> Class {
    Class {
        name: name.to_string(),
        kind: kind.to_string(),
        is_exported: has_child(node, "visibility_modifier"),
        doc: doc(cx, node),
        line_start: line(node),
        line_end: super::end_line(node),
        ..Class::default()
    }
}

/// Fields of a `{ named }` or `( ordered )` field list.
fn fields(cx: &Cx<'_>, body: Node<'_>) -> Vec<Property> {
    let mut out = Vec::new();
    match body.kind_name() {
        "field_declaration_list" => {
            for f in children(body) {
                if f.kind_name() == "field_declaration"
                    && let Some(name) = cx.field(f, "name")
                {
                    out.push(Property {
                        name,
                        is_static: false,
                        is_readonly: false,
                    });
                }
            }
        }
        "ordered_field_declaration_list" => {
            let mut c = body.walk();
            let count = body.children_by_field_name("type", &mut c).count();
            for i in 0..count {
                out.push(Property {
                    name: i.to_string(),
                    is_static: false,
                    is_readonly: false,
                });
            }
        }
        _ => {}
    }
    out
}

/// `struct` and `union` items.
fn structure(cx: &mut Cx<'_>, node: Node<'_>) {
    let Some(name_node) = node.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let kind = if node.kind_name() == "union_item" {
        "union"
    } else {
        "struct"
    };
    let mut class = class_shell(cx, node, &name, kind);
    if let Some(body) = node.by_field("body") {
        class.properties = fields(cx, body);
    }
    cx.class(name_node, node, DefKind::Struct, class);
}

/// `enum` items: variants are static read-only properties and `Const` definitions.
fn enumeration(cx: &mut Cx<'_>, node: Node<'_>) {
    let Some(name_node) = node.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let mut class = class_shell(cx, node, &name, "enum");
    let mut variants = Vec::new();
    if let Some(body) = node.by_field("body") {
        for v in children(body) {
            if v.kind_name() == "enum_variant"
                && let Some(vn) = v.by_field("name")
            {
                class.properties.push(Property {
                    name: cx.text(vn),
                    is_static: true,
                    is_readonly: true,
                });
                variants.push((vn, v));
            }
        }
    }
    cx.class(name_node, node, DefKind::Enum, class);
    for (vn, v) in variants {
        cx.define(vn, DefKind::Const, v, Some(&name));
    }
}

/// `trait` items: abstract classes whose methods are its `fn`s; the first supertrait is
/// `extends`, the rest `implements`.
fn trait_item(cx: &mut Cx<'_>, node: Node<'_>) {
    let Some(name_node) = node.by_field("name") else {
        return;
    };
    let name = cx.text(name_node);
    let mut class = class_shell(cx, node, &name, "trait");
    class.is_abstract = true;
    if let Some(bounds) = node.by_field("bounds") {
        let mut supers = children(bounds)
            .into_iter()
            .filter(|b| !matches!(b.kind_name(), "lifetime" | "line_comment" | "block_comment"))
            .map(|b| cx.squished(b));
        class.extends = supers.next();
        class.implements = supers.collect();
    }
    let exported = class.is_exported;
    cx.class(name_node, node, DefKind::Trait, class);
    let Some(body) = node.by_field("body") else {
        return;
    };
    let mut methods = Vec::new();
    members(cx, body, &name, exported, &mut methods);
    if let Some(c) = cx
        .out
        .classes
        .iter_mut()
        .rev()
        .find(|c| c.name == name && c.kind == "trait")
    {
        c.methods = methods;
    }
}

/// The `fn`s, associated types and consts of a trait or impl body.
fn members(
    cx: &mut Cx<'_>,
    body: Node<'_>,
    owner: &str,
    exported: bool,
    methods: &mut Vec<Method>,
) {
    for m in children(body) {
        match m.kind_name() {
            "function_item" | "function_signature_item" => {
                let exported = exported || has_child(m, "visibility_modifier");
                methods.extend(function(cx, m, Some(owner), exported));
            }
            "associated_type" | "type_item" => cx.define_named(m, DefKind::Type, Some(owner)),
            "const_item" => cx.define_named(m, DefKind::Const, Some(owner)),
            _ => {}
        }
    }
}

/// The name of the type an `impl` is for: `Foo` for `Foo<T>`, `a::Foo`, `&Foo`.
fn type_name(cx: &Cx<'_>, node: Node<'_>) -> String {
    match node.kind_name() {
        "generic_type" | "reference_type" | "pointer_type" => node
            .by_field("type")
            .map_or_else(|| cx.squished(node), |t| type_name(cx, t)),
        "scoped_type_identifier" => node
            .by_field("name")
            .map_or_else(|| cx.squished(node), |t| cx.text(t)),
        _ => cx.squished(node),
    }
}

/// `impl [Trait for] Type { ... }`: methods `Type.name`.
fn impl_item(cx: &mut Cx<'_>, node: Node<'_>) -> Option<Impl> {
    let ty = type_name(cx, node.by_field("type")?);
    let trait_name = node.by_field("trait").map(|t| cx.squished(t));
    let mut methods = Vec::new();
    if let Some(body) = node.by_field("body") {
        members(cx, body, &ty, trait_name.is_some(), &mut methods);
    }
    Some(Impl {
        ty,
        trait_name,
        methods,
    })
}

/// The leaf paths of a `use` tree, with the names each brings in.
fn use_tree(cx: &Cx<'_>, node: Node<'_>, prefix: &str, out: &mut Vec<(String, Vec<String>)>) {
    let join = |p: &str, s: String| if p.is_empty() { s } else { format!("{p}::{s}") };
    let last = |s: &str| s.rsplit("::").next().unwrap_or(s).to_string();
    match node.kind_name() {
        "self" if !prefix.is_empty() => out.push((prefix.to_string(), vec![last(prefix)])),
        "identifier" | "scoped_identifier" | "crate" | "self" | "super" | "metavariable" => {
            let path = join(prefix, cx.compact(node));
            let name = last(&path);
            out.push((path, vec![name]));
        }
        "use_as_clause" => {
            let Some(path) = node.by_field("path") else {
                return;
            };
            let p = cx.compact(path);
            let full = if p == "self" && !prefix.is_empty() {
                prefix.to_string()
            } else {
                join(prefix, p)
            };
            let alias = cx.field(node, "alias").unwrap_or_else(|| last(&full));
            out.push((full, vec![alias]));
        }
        "use_wildcard" => {
            let base = children(node)
                .into_iter()
                .find(|c| !matches!(c.kind_name(), "line_comment" | "block_comment"))
                .map(|c| cx.compact(c));
            let path = match base {
                Some(b) => join(prefix, format!("{b}::*")),
                None => join(prefix, "*".to_string()),
            };
            out.push((path, Vec::new()));
        }
        "use_list" => {
            for c in children(node) {
                use_tree(cx, c, prefix, out);
            }
        }
        "scoped_use_list" => {
            let p = match node.by_field("path") {
                Some(path) => join(prefix, cx.compact(path)),
                None => prefix.to_string(),
            };
            if let Some(list) = node.by_field("list") {
                use_tree(cx, list, &p, out);
            }
        }
        _ => {}
    }
}
