//! Python extraction: fixture snapshots and the important facts.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir, index};
use ultra_index::DefKind;

#[test]
fn python_snapshots() {
    check_dir("python");
}

#[test]
fn python_classes_methods_and_docstrings() {
    let m = index("python", "shop/models.py");
    let base = m.classes.iter().find(|c| c.name == "Base").unwrap();
    assert!(base.is_abstract);
    assert_eq!(base.extends.as_deref(), Some("ABC"));
    assert!(
        base.methods
            .iter()
            .any(|x| x.name == "create" && x.is_static)
    );
    assert!(
        base.methods
            .iter()
            .any(|x| x.name == "validate" && x.is_static)
    );
    let post = m.classes.iter().find(|c| c.name == "Post").unwrap();
    assert_eq!(post.implements, ["Serializable"]);
    let props: Vec<_> = post.properties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(props, ["author", "title", "body", "_draft"]);
    let publish = m
        .functions
        .iter()
        .find(|f| f.qualified == "Post.publish")
        .unwrap();
    assert!(publish.is_async && publish.is_exported);
    assert_eq!(publish.params, ["self", "*", "notify: bool = True"]);
    assert_eq!(publish.return_type.as_deref(), Some("None"));
    assert_eq!(
        publish.doc.as_deref(),
        Some("Publish the post.\n\nSends notifications when asked.")
    );
    let user = m.classes.iter().find(|c| c.name == "User").unwrap();
    assert_eq!(user.line_start, 32, "decorators belong to the class");
    let display = m
        .functions
        .iter()
        .find(|f| f.qualified == "User.display")
        .unwrap();
    assert_eq!(
        (display.line_start, display.signature.as_str()),
        (42, "def display(self) -> str")
    );
    assert!(
        !m.functions
            .iter()
            .find(|f| f.qualified == "_private")
            .unwrap()
            .is_exported
    );
    let defs: Vec<_> = m
        .definitions
        .iter()
        .filter(|d| d.container.is_none())
        .map(|d| (d.name.as_str(), d.kind))
        .collect();
    assert!(defs.contains(&("MAX_ITEMS", DefKind::Const)));
    assert!(defs.contains(&("default_currency", DefKind::Variable)));
    assert!(defs.contains(&("notify_all", DefKind::Function)));
    assert!(
        m.references_to("notify_all")
            .any(|r| r.line == 75 && r.is_definition)
    );
    assert!(
        m.references_to("notify_all")
            .any(|r| r.line == 66 && !r.is_definition)
    );
}

#[test]
fn python_imports_and_exports() {
    let o = index("python", "shop/services/orders.py");
    let imports: Vec<_> = o
        .imports
        .iter()
        .map(|i| (i.source.as_str(), i.names.join(",")))
        .collect();
    for expected in [
        ("os.path", "p"),
        ("sys", "sys"),
        ("..", "models"),
        ("..models", "*"),
        ("..models", "User,Post"),
        ("ujson", "fast_json"),
        (".payments", "Gateway"),
        ("logging", "logging"),
    ] {
        assert!(
            imports.contains(&(expected.0, expected.1.to_string())),
            "{expected:?} in {imports:?}"
        );
    }
    let init = index("python", "shop/__init__.py");
    assert!(
        init.imports
            .iter()
            .any(|i| i.source == ".models" && i.names == ["User", "Article"])
    );
    let f = |n: &str| {
        init.functions
            .iter()
            .find(|f| f.name == n)
            .unwrap()
            .is_exported
    };
    assert!(f("make_shop") && !f("helper"), "`__all__` decides");
    let b = index("python", "shop/broken.py");
    assert!(!b.errors.is_empty());
    assert!(b.classes.iter().any(|c| c.name == "Survivor"));
}

/// Functions and classes inside functions are definitions, as ctags indexes them:
/// closures, local handlers, classes in tests, at any depth, decorated or not.
#[test]
fn nested_functions_and_classes() {
    let src = "def outer():\n    def inner(x):\n        def deepest():\n            pass\n        return x\n    @wraps(inner)\n    def wrapped():\n        pass\n    class Local:\n        def method(self):\n            def helper():\n                pass\n    return inner\n\nclass Top:\n    def m(self):\n        def handler(sender):\n            pass\n";
    let f = ultra_index::index_file("t.py", src.as_bytes());
    let got = lang_support::defs(&f);
    for want in [
        ("outer", None, 1),
        ("inner", None, 2),
        ("deepest", None, 3),
        ("wrapped", None, 7),
        ("Local", None, 9),
        ("method", Some("Local"), 10),
        ("helper", None, 11),
        ("Top", None, 15),
        ("m", Some("Top"), 16),
        ("handler", None, 17),
    ] {
        assert!(got.contains(&want), "{want:?} in {got:?}");
    }
    assert_eq!(got.len(), 10, "{got:?}");
    let inner = f.functions.iter().find(|x| x.name == "inner").unwrap();
    assert!(!inner.is_exported);
}
