//! The Go extractor on a small module: snapshots per file plus the facts that matter most.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir_with_refs, class, def, func, index};
use ultra_index::DefKind;

#[test]
fn go_snapshots() {
    check_dir_with_refs(
        "go",
        &[
            ("main.go", &["Run", "logger", "Version"]),
            ("store/store.go", &["Store", "Add", "items"]),
        ],
    );
}

#[test]
fn main_go() {
    let idx = index("go", "main.go");
    let run = func(&idx, "Run");
    assert!(run.is_exported);
    assert_eq!(
        run.params,
        ["ctx context.Context", "s *store.Store", "names ...string"]
    );
    assert_eq!(run.return_type.as_deref(), Some("error"));
    assert_eq!(
        run.doc.as_deref(),
        Some("Run starts the shop and\nwaits for ctx.")
    );
    assert!(!func(&idx, "main").is_exported);
    let pair = func(&idx, "pair");
    assert_eq!(pair.params, ["a int", "b int"]);
    assert_eq!(pair.return_type.as_deref(), Some("(sum int, err error)"));
    assert_eq!(def(&idx, "Version").kind, DefKind::Const);
    assert_eq!(def(&idx, "altName").kind, DefKind::Const);
    assert_eq!(def(&idx, "verbose").kind, DefKind::Variable);
    // A definition is flagged; the call in main is not.
    let refs: Vec<_> = idx.references_to("Run").collect();
    assert_eq!(refs.len(), 2);
    assert!(refs[0].is_definition && !refs[1].is_definition);
    let imports: Vec<(&str, &str)> = idx
        .imports
        .iter()
        .map(|i| (i.source.as_str(), i.names[0].as_str()))
        .collect();
    assert_eq!(
        imports,
        [
            ("context", "context"),
            ("fmt", "fmt"),
            ("strings", "str"),
            ("embed", "_"),
            ("math", "."),
            ("example.com/shop/store", "store"),
            ("os", "os"),
        ]
    );
}

#[test]
fn store_go() {
    let idx = index("go", "store/store.go");
    let store = class(&idx, "Store");
    assert_eq!(store.kind, "struct");
    assert!(store.is_exported);
    assert_eq!(store.implements, ["sync.Mutex", "Audit"]);
    let props: Vec<&str> = store.properties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(props, ["items"]);
    let methods: Vec<&str> = store.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(methods, ["Add", "Get", "count", "String"]);
    let add = func(&idx, "Store.Add");
    assert!(add.is_exported);
    assert_eq!(add.params, ["item Item"]);
    assert!(!func(&idx, "Store.count").is_exported);
    let d = idx
        .definitions
        .iter()
        .find(|d| d.name == "Add" && d.container.as_deref() == Some("Store"))
        .unwrap();
    assert_eq!(d.kind, DefKind::Method);
    let repo = class(&idx, "Repository");
    assert_eq!(repo.kind, "interface");
    assert!(repo.is_abstract);
    assert_eq!(repo.implements, ["fmt.Stringer"]);
    assert_eq!(repo.methods.len(), 2);
    assert_eq!(def(&idx, "ID").kind, DefKind::Type);
    assert_eq!(def(&idx, "Price").kind, DefKind::Type);
    assert!(idx.classes.iter().all(|c| c.name != "ID"));
    assert_eq!(func(&idx, "List.Push").params, ["v T"]);
}

#[test]
fn broken_go_still_indexes() {
    let idx = index("go", "broken.go");
    assert!(!idx.errors.is_empty());
    func(&idx, "Good");
    func(&idx, "Later");
    class(&idx, "After");
}

#[test]
fn truncated_files_never_panic() {
    lang_support::prefixes_never_panic("go", &["main.go", "store/store.go"]);
}
