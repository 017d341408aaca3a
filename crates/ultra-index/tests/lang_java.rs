//! Java extraction: fixture snapshots and the important facts.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir, index};
use ultra_index::DefKind;

#[test]
fn java_snapshots() {
    check_dir("java");
}

const BASE: &str = "src/main/java/com/acme/shop";

#[test]
fn java_classes_interfaces_enums() {
    let s = index("java", &format!("{BASE}/model/Shape.java"));
    let shape = &s.classes[0];
    assert!(shape.is_abstract && shape.is_exported);
    assert_eq!(shape.implements, ["Serializable", "Comparable"]);
    assert_eq!(shape.doc.as_deref(), Some("A shape with an area."));
    let uid = shape
        .properties
        .iter()
        .find(|p| p.name == "serialVersionUID")
        .unwrap();
    assert!(uid.is_static && uid.is_readonly);
    assert!(
        s.definitions
            .iter()
            .any(|d| d.name == "serialVersionUID" && d.kind == DefKind::Const)
    );
    assert!(
        s.definitions
            .iter()
            .any(|d| d.name == "com.acme.shop.model" && d.kind == DefKind::Module)
    );
    let ctor = s
        .functions
        .iter()
        .find(|f| f.qualified == "Shape.Shape")
        .unwrap();
    assert!(!ctor.is_exported && ctor.params == ["String name"]);

    let c = index("java", &format!("{BASE}/model/Circle.java"));
    assert_eq!(c.classes[0].extends.as_deref(), Some("Shape"));
    let unit = c
        .functions
        .iter()
        .find(|f| f.qualified == "Circle.unit")
        .unwrap();
    assert_eq!(unit.return_type.as_deref(), Some("Circle"));
    assert!(
        c.classes[0]
            .methods
            .iter()
            .any(|m| m.name == "unit" && m.is_static)
    );
    assert_eq!(c.imports[0].source, "java.lang.Math.PI");
    assert_eq!(c.imports[0].names, ["PI"]);

    let r = index("java", &format!("{BASE}/repo/Repository.java"));
    let repo = &r.classes[0];
    assert_eq!((repo.kind.as_str(), repo.is_abstract), ("interface", true));
    assert_eq!(repo.methods.len(), 5);
    // Only the methods with bodies are functions.
    let fns: Vec<_> = r.functions.iter().map(|f| f.qualified.as_str()).collect();
    assert_eq!(fns, ["Repository.exists", "Repository.empty"]);

    let e = index("java", &format!("{BASE}/model/Status.java"));
    assert_eq!(e.classes[0].kind, "enum");
    assert!(
        e.definitions
            .iter()
            .any(|d| d.name == "Status" && d.kind == DefKind::Enum)
    );
    assert!(e.references_to("PAID").any(|r| r.is_definition));
}

#[test]
fn java_nested_and_imports() {
    let o = index("java", &format!("{BASE}/service/OrderService.java"));
    let place = o
        .functions
        .iter()
        .find(|f| f.qualified == "OrderService.place")
        .unwrap();
    assert_eq!(place.params, ["Order order", "String... tags"]);
    assert_eq!(
        place.doc.as_deref(),
        Some("Places an order and notifies listeners.")
    );
    assert!(o.functions.iter().any(|f| f.qualified == "Order.status"));
    let inner = o
        .definitions
        .iter()
        .find(|d| d.name == "Order" && d.kind == DefKind::Class)
        .unwrap();
    assert_eq!(inner.container.as_deref(), Some("OrderService"));
    assert!(
        o.imports
            .iter()
            .any(|i| i.source == "com.acme.shop.model" && i.names == ["*"])
    );
    assert!(
        o.references_to("OrderService")
            .any(|r| r.line == 10 && r.is_definition)
    );

    let b = index("java", &format!("{BASE}/service/Broken.java"));
    assert!(!b.errors.is_empty());
    assert!(b.functions.iter().any(|f| f.qualified == "Broken.after"));
}
