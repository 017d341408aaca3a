//! The Rust extractor on a small crate: snapshots per file plus the facts that matter most.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir_with_refs, class, def, func, index};
use ultra_index::DefKind;

#[test]
fn rust_snapshots() {
    check_dir_with_refs(
        "rust",
        &[
            ("src/lib.rs", &["register", "MAX_AREA", "Registry", "Entry"]),
            ("src/shapes.rs", &["Circle", "area", "radius"]),
            ("src/util/mod.rs", &["clamp"]),
            ("src/broken.rs", &["After"]),
        ],
    );
}

#[test]
fn lib_rs() {
    let idx = index("rust", "src/lib.rs");
    let reg = func(&idx, "register");
    assert!(reg.is_exported);
    assert_eq!(
        reg.params,
        ["reg: &mut Registry", "name: &str", "shape: Box<dyn Shape>"]
    );
    assert_eq!(reg.return_type.as_deref(), Some("bool"));
    assert_eq!(
        reg.doc.as_deref(),
        Some("Adds a shape, refusing ones that are too large.\nReturns whether it was added.")
    );
    let load = func(&idx, "load_all");
    assert!(load.is_async && load.is_exported);
    assert_eq!(load.params, ["names: Vec<String>", "scale: f64"]);
    assert!(!func(&idx, "describe").is_exported);
    // Items of inline modules are indexed too.
    assert_eq!(def(&idx, "reveal").kind, DefKind::Function);
    assert_eq!(def(&idx, "DEPTH").kind, DefKind::Const);
    assert_eq!(def(&idx, "inner").kind, DefKind::Module);
    // The definition of `register` is flagged, a use is not.
    let d = def(&idx, "register");
    let refs: Vec<_> = idx.references_to("register").collect();
    assert!(
        refs.iter()
            .any(|r| r.is_definition && r.line == d.line && r.column == d.column)
    );
    let sources: Vec<&str> = idx.imports.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "alloc",
            "mod:shapes",
            "mod:util",
            "std::collections::HashMap",
            "std::collections::hash_map::Entry",
            "std::fmt",
            "std::fmt::Display",
            "crate::shapes::*",
            "self::util::clamp",
        ]
    );
    let show = idx
        .imports
        .iter()
        .find(|i| i.source == "std::fmt::Display")
        .unwrap();
    assert_eq!(show.names, ["Show"]);
}

#[test]
fn shapes_rs() {
    let idx = index("rust", "src/shapes.rs");
    let circle = class(&idx, "Circle");
    assert_eq!(circle.kind, "struct");
    assert!(circle.is_exported);
    assert_eq!(circle.implements, ["Shape"]);
    let names: Vec<&str> = circle.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["new", "grow", "fetch_radius", "area", "unit"]);
    assert!(circle.methods[0].is_static);
    assert!(!circle.methods[1].is_static);
    assert!(!circle.methods[2].is_static && circle.methods[2].is_async);
    let props: Vec<&str> = circle.properties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(props, ["radius", "center"]);
    assert_eq!(circle.doc.as_deref(), Some("A circle."));
    let shape = class(&idx, "Shape");
    assert_eq!(shape.kind, "trait");
    assert!(shape.is_abstract);
    assert_eq!(shape.methods.len(), 3);
    let new = func(&idx, "Circle.new");
    assert_eq!(new.name, "new");
    assert_eq!(new.params, ["r: f64"]);
    assert_eq!(new.return_type.as_deref(), Some("Self"));
    let d = idx
        .definitions
        .iter()
        .find(|d| d.name == "new" && d.container.as_deref() == Some("Circle"))
        .unwrap();
    assert_eq!(d.kind, DefKind::Method);
    // `impl Shape for Square` puts methods on Square and the trait in its implements.
    assert_eq!(class(&idx, "Square").implements, ["Shape"]);
    assert_eq!(func(&idx, "Square.area").params, ["&self"]);
    assert_eq!(class(&idx, "Kind").kind, "enum");
    assert_eq!(class(&idx, "Bits").kind, "union");
}

#[test]
fn util_mod_rs() {
    let idx = index("rust", "src/util/mod.rs");
    assert!(func(&idx, "clamp").is_exported);
    assert!(func(&idx, "unused").is_exported);
}

#[test]
fn broken_rs_still_indexes() {
    let idx = index("rust", "src/broken.rs");
    assert!(!idx.errors.is_empty());
    for f in ["before", "after"] {
        func(&idx, f);
    }
    assert_eq!(class(&idx, "After").kind, "struct");
}

#[test]
fn truncated_files_never_panic() {
    lang_support::prefixes_never_panic("rust", &["src/lib.rs", "src/shapes.rs"]);
}

/// Items inside function bodies are definitions too (ctags indexes them): test helpers,
/// local types and their impls, at any depth; `use` inside a body is an import.
#[test]
fn items_inside_function_bodies() {
    let src = "fn outer() {\n    fn helper() -> u8 { 1 }\n    struct Local { f: u8 }\n    impl Local {\n        fn get(&self) -> u8 { self.f }\n    }\n    let c = || {\n        fn in_closure() {}\n    };\n    use crate::net::Conn;\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        fn fixture() {}\n    }\n}\n";
    let f = ultra_index::index_file("src/lib.rs", src.as_bytes());
    let got = lang_support::defs(&f);
    for want in [
        ("outer", None, 1),
        ("helper", None, 2),
        ("Local", None, 3),
        ("get", Some("Local"), 5),
        ("in_closure", None, 8),
        ("tests", None, 14),
        ("t", None, 16),
        ("fixture", None, 17),
    ] {
        assert!(got.contains(&want), "{want:?} in {got:?}");
    }
    assert!(
        f.imports.iter().any(|i| i.source == "crate::net::Conn"),
        "{:?}",
        f.imports
    );
    let local = f.classes.iter().find(|c| c.name == "Local").unwrap();
    assert_eq!(local.methods.len(), 1);
}

/// Every kind of item is found in a body, however it starts (`pub`, `unsafe`, `async`,
/// attributes), and in a constant's value; a body with none of their keywords is skipped
/// unwalked without losing anything (`'static` and `.union` are not keywords there).
#[test]
fn every_item_kind_inside_bodies() {
    let src = "fn host() {\n    const C: u8 = 1;\n    static S: u8 = 2;\n    type T = u8;\n    enum E { A }\n    trait Tr {}\n    union U { a: u8 }\n    mod m {}\n    macro_rules! mac { () => {} }\n    pub(crate) unsafe fn uf() {}\n    #[inline] async fn af() {}\n    let s: &'static str = \"x\";\n}\nconst K: u8 = { fn in_const() -> u8 { 1 } in_const() };\nfn plain(a: &'static str) -> usize { a.len() + x.union(y) }\n";
    let f = ultra_index::index_file("src/lib.rs", src.as_bytes());
    let got = lang_support::defs(&f);
    for (name, line) in [
        ("C", 2),
        ("S", 3),
        ("T", 4),
        ("E", 5),
        ("Tr", 6),
        ("U", 7),
        ("m", 8),
        ("mac", 9),
        ("uf", 10),
        ("af", 11),
        ("K", 14),
        ("in_const", 14),
        ("plain", 15),
    ] {
        assert!(
            got.iter().any(|(n, _, l)| *n == name && *l == line),
            "{name}:{line} in {got:?}"
        );
    }
}
