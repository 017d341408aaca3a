//! Imports: `import` statements, re-exports, `require('x')` and `import('x')`.

use super::*;

/// The import `node` makes, if any: an `import` statement, a re-export, a `require('x')`
/// or `import('x')` call. Whether to look inside it for more.
pub(super) fn import(cx: &mut Cx<'_>, node: Node<'_>) -> bool {
    match node.kind_name() {
        "import_statement" => {
            import_statement(cx, node);
            false
        }
        "export_statement" => {
            let Some(src) = node.by_field("source") else {
                return true;
            };
            let mut names = Vec::new();
            for c in children(node) {
                match c.kind_name() {
                    "export_clause" => {
                        for s in children(c) {
                            if let Some(n) = s.by_field("name") {
                                names.push(cx.text(n));
                            }
                        }
                    }
                    "namespace_export" => {
                        names.extend(
                            children(c)
                                .into_iter()
                                .filter(|n| n.kind_name() != "comment")
                                .map(|n| unquote(&cx.text(n))),
                        );
                    }
                    _ => {}
                }
            }
            if names.is_empty() && has_child(node, "*") {
                names.push("*".into());
            }
            let source = unquote(&cx.text(src));
            cx.import(node, source, names);
            false
        }
        "call_expression" => {
            if let Some(source) = call_import(cx, node) {
                let names = bound_names(cx, node);
                cx.import(node, source, names);
            }
            true
        }
        _ => true,
    }
}

pub(super) fn import_statement(cx: &mut Cx<'_>, node: Node<'_>) {
    let mut names = Vec::new();
    let mut source = node.by_field("source").map(|s| unquote(&cx.text(s)));
    for c in children(node) {
        match c.kind_name() {
            "import_clause" => {
                for part in children(c) {
                    match part.kind_name() {
                        "identifier" => names.push(cx.text(part)),
                        "namespace_import" => {
                            names.extend(
                                children(part)
                                    .into_iter()
                                    .filter(|n| n.kind_name() == "identifier")
                                    .map(|n| cx.text(n)),
                            );
                        }
                        "named_imports" => {
                            for s in children(part) {
                                if let Some(n) = s.by_field("alias").or_else(|| s.by_field("name"))
                                {
                                    names.push(cx.text(n));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            // `import fs = require('fs')`
            "import_require_clause" => {
                for part in children(c) {
                    match part.kind_name() {
                        "identifier" => names.push(cx.text(part)),
                        "string" => source = Some(unquote(&cx.text(part))),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(source) = source {
        cx.import(node, source, names);
    }
}

/// The module a `require('x')` or `import('x')` call names.
fn call_import(cx: &Cx<'_>, call: Node<'_>) -> Option<String> {
    let f = call.by_field("function")?;
    let is_import =
        f.kind_name() == "import" || (f.kind_name() == "identifier" && cx.text(f) == "require");
    if !is_import {
        return None;
    }
    let args = call.by_field("arguments")?;
    let first = children(args)
        .into_iter()
        .find(|a| a.kind_name() != "comment")?;
    match first.kind_name() {
        "string" => Some(unquote(&cx.text(first))),
        "template_string"
            if !children(first)
                .iter()
                .any(|c| c.kind_name() == "template_substitution") =>
        {
            Some(unquote(&cx.text(first)))
        }
        _ => None,
    }
}

/// The local names a `require`/`import()` result is bound to (`const {a, b} = require('x')`).
fn bound_names(cx: &Cx<'_>, call: Node<'_>) -> Vec<String> {
    let mut cur = call;
    while let Some(p) = cur.parent() {
        match p.kind_name() {
            "await_expression" | "parenthesized_expression" => cur = p,
            "variable_declarator" => {
                let mut nodes = Vec::new();
                if let Some(n) = p.by_field("name") {
                    pattern_names(n, &mut nodes);
                }
                return nodes.into_iter().map(|n| cx.text(n)).collect();
            }
            _ => break,
        }
    }
    Vec::new()
}

pub(super) fn unquote(s: &str) -> String {
    s.trim().trim_matches(['"', '\'', '`']).to_string()
}
