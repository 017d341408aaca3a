//! The C and C++ extractor on small projects: snapshots per file plus the facts that
//! matter most.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir_with_refs, class, def, func, index};
use ultra_index::DefKind;

#[test]
fn c_snapshots() {
    check_dir_with_refs(
        "c",
        &[
            ("buffer.h", &["buffer_t", "buffer_new", "BUFFER_H"]),
            ("buffer.c", &["grow", "buffer_free", "buffer_count", "b"]),
            ("common.h", &["point"]),
        ],
    );
}

#[test]
fn cpp_snapshots() {
    check_dir_with_refs(
        "cpp",
        &[
            ("shapes.hpp", &["Shape", "area", "Circle"]),
            ("shapes.cpp", &["area", "created", "helper"]),
            ("util.hpp", &["clamp"]),
        ],
    );
}

#[test]
fn c_buffer_h() {
    let idx = index("c", "buffer.h");
    // Prototypes index as functions so headers answer get_function.
    let new = func(&idx, "buffer_new");
    assert_eq!(new.params, ["size_t cap"]);
    assert_eq!(new.return_type.as_deref(), Some("buffer_t *"));
    assert_eq!(new.doc.as_deref(), Some("Allocate an empty buffer."));
    assert!(new.is_exported);
    assert_eq!(
        func(&idx, "buffer_append").params,
        ["buffer_t *b", "const char *s", "size_t n"]
    );
    let buffer = class(&idx, "buffer");
    assert_eq!(buffer.kind, "struct");
    let props: Vec<(&str, bool)> = buffer
        .properties
        .iter()
        .map(|p| (p.name.as_str(), p.is_readonly))
        .collect();
    assert_eq!(
        props,
        [
            ("data", false),
            ("len", false),
            ("cap", false),
            ("flags", true)
        ]
    );
    assert_eq!(def(&idx, "buffer_t").kind, DefKind::Type);
    assert_eq!(class(&idx, "mode_t2").kind, "enum");
    assert_eq!(def(&idx, "MODE_WRITE").kind, DefKind::Const);
    assert_eq!(class(&idx, "value").kind, "union");
    assert_eq!(def(&idx, "cmp_fn").kind, DefKind::Type);
    assert_eq!(def(&idx, "BUFFER_MIN").kind, DefKind::Const);
    assert_eq!(def(&idx, "BUFFER_LEN").kind, DefKind::Const);
    assert_eq!(def(&idx, "buffer_count").kind, DefKind::Variable);
    // The include guard is not a definition.
    assert!(idx.definitions.iter().all(|d| d.name != "BUFFER_H"));
    let imports: Vec<&str> = idx.imports.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(imports, ["<stddef.h>", "common.h"]);
}

#[test]
fn c_buffer_c() {
    let idx = index("c", "buffer.c");
    assert!(!func(&idx, "grow").is_exported);
    assert!(func(&idx, "buffer_new").is_exported);
    assert_eq!(
        func(&idx, "buffer_new").doc.as_deref(),
        Some("Allocate an empty buffer.\nReturns NULL when out of memory.")
    );
    // The static prototype of `grow` is dropped: the file defines it.
    assert_eq!(idx.functions.iter().filter(|f| f.name == "grow").count(), 1);
    assert_eq!(
        func(&idx, "hash").params,
        ["const unsigned char * s", "..."]
    );
    assert_eq!(func(&idx, "main").params, ["int argc", "char **argv"]);
    assert_eq!(def(&idx, "empty").kind, DefKind::Variable);
    assert_eq!(def(&idx, "other").kind, DefKind::Variable);
    let refs: Vec<_> = idx.references_to("buffer_free").collect();
    assert!(refs.iter().any(|r| r.is_definition));
    assert!(refs.iter().any(|r| !r.is_definition));
    let imports: Vec<&str> = idx.imports.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(imports, ["<stdlib.h>", "<string.h>", "buffer.h"]);
}

#[test]
fn c_common_h() {
    let idx = index("c", "common.h");
    assert_eq!(class(&idx, "status").kind, "enum");
    assert_eq!(class(&idx, "point").properties.len(), 2);
}

#[test]
fn c_broken_still_indexes() {
    let idx = index("c", "broken.c");
    assert!(!idx.errors.is_empty());
    func(&idx, "good");
    func(&idx, "later");
    class(&idx, "after");
}

#[test]
fn cpp_shapes_hpp() {
    let idx = index("cpp", "shapes.hpp");
    let shape = class(&idx, "Shape");
    assert_eq!(shape.kind, "class");
    assert!(shape.is_abstract);
    assert_eq!(shape.doc.as_deref(), Some("Anything with an area."));
    let count = shape.properties.iter().find(|p| p.name == "count").unwrap();
    assert!(count.is_static);
    let circle = class(&idx, "Circle");
    assert!(!circle.is_abstract);
    assert_eq!(circle.extends.as_deref(), Some("Shape"));
    assert_eq!(circle.implements, ["Named"]);
    let names: Vec<&str> = circle.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Circle", "~Circle", "area", "unit", "radius"]);
    assert!(circle.methods[3].is_static);
    let kpi = circle.properties.iter().find(|p| p.name == "kPi").unwrap();
    assert!(kpi.is_static && kpi.is_readonly);
    assert!(class(&idx, "Named").properties[0].is_readonly);
    assert_eq!(
        func(&idx, "Circle.radius").return_type.as_deref(),
        Some("double")
    );
    assert!(func(&idx, "Circle.unit").is_exported);
    assert_eq!(class(&idx, "Color").kind, "enum");
    assert_eq!(class(&idx, "Point").kind, "struct");
    assert_eq!(class(&idx, "Stack").kind, "class");
    assert_eq!(def(&idx, "geo").kind, DefKind::Module);
    assert_eq!(def(&idx, "detail").kind, DefKind::Module);
    assert_eq!(def(&idx, "ShapeList").kind, DefKind::Type);
    assert_eq!(def(&idx, "uint").kind, DefKind::Type);
    assert_eq!(func(&idx, "total_area").params, ["const ShapeList &shapes"]);
    let area = idx
        .definitions
        .iter()
        .find(|d| d.name == "area" && d.container.as_deref() == Some("Shape"))
        .unwrap();
    assert_eq!(area.kind, DefKind::Method);
}

#[test]
fn cpp_shapes_cpp() {
    let idx = index("cpp", "shapes.cpp");
    let area = func(&idx, "Circle.area");
    assert_eq!(area.name, "area");
    assert_eq!(area.doc.as_deref(), Some("Pi r squared."));
    assert_eq!(func(&idx, "Stack.pop").return_type.as_deref(), Some("T"));
    func(&idx, "Circle.Circle");
    func(&idx, "Circle.~Circle");
    func(&idx, "Point.operator+");
    assert_eq!(func(&idx, "main").return_type.as_deref(), Some("int"));
    assert!(func(&idx, "helper").is_exported);
    assert_eq!(def(&idx, "created").kind, DefKind::Variable);
    // `int Shape::count = 0;` defines a member, not a global.
    assert!(idx.definitions.iter().all(|d| d.name != "count"));
    let d = idx
        .definitions
        .iter()
        .find(|d| d.name == "area" && d.container.as_deref() == Some("Circle"))
        .unwrap();
    let refs: Vec<_> = idx.references_to("area").collect();
    assert!(refs.iter().any(|r| r.is_definition && r.line == d.line));
    assert!(refs.iter().any(|r| !r.is_definition));
    let imports: Vec<&str> = idx.imports.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(imports, ["shapes.hpp", "<cmath>"]);
}

#[test]
fn cpp_util_hpp() {
    let idx = index("cpp", "util.hpp");
    assert_eq!(func(&idx, "clamp").params, ["int v", "int lo", "int hi"]);
    assert_eq!(def(&idx, "util").kind, DefKind::Module);
}

#[test]
fn truncated_files_never_panic() {
    lang_support::prefixes_never_panic("c", &["buffer.h", "buffer.c"]);
    lang_support::prefixes_never_panic("cpp", &["shapes.hpp", "shapes.cpp"]);
}
