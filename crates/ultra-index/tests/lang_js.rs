//! TypeScript, TSX and JavaScript extraction: fixture snapshots and the important facts.

#![allow(clippy::unwrap_used)]

mod lang_support;

use lang_support::{check_dir, func, index};
use ultra_index::DefKind;

#[test]
fn ts_snapshots() {
    check_dir("ts");
}

#[test]
fn js_snapshots() {
    check_dir("js");
}

#[test]
fn ts_class_methods_and_arrow_functions() {
    let f = index("ts", "src/services/user.ts");
    let find = func(&f, "UserService.findById");
    assert!(find.is_async && find.is_exported);
    assert_eq!(find.params, ["id: UserId"]);
    assert_eq!(
        find.return_type.as_deref(),
        Some("Promise<User | undefined>")
    );
    assert_eq!(find.doc.as_deref(), Some("Find one user by id."));
    assert_eq!((find.line_start, find.line_end), (23, 30));
    assert!(!func(&f, "UserService.hash").is_exported);
    let c = f.classes.iter().find(|c| c.name == "UserService").unwrap();
    assert_eq!(c.extends.as_deref(), Some("BaseService"));
    assert_eq!(c.implements, ["Repository"]);
    let create = c.methods.iter().find(|m| m.name == "create").unwrap();
    assert!(create.is_static && !create.is_async);
    let table = c.properties.iter().find(|p| p.name == "tableName").unwrap();
    assert!(table.is_static && table.is_readonly);
    assert!(c.properties.iter().any(|p| p.name == "db"));
    // The class name is a definition occurrence; its other uses are references.
    let refs: Vec<_> = f.references_to("UserService").collect();
    assert_eq!(refs.iter().filter(|r| r.is_definition).count(), 1);
    assert!(refs.iter().any(|r| r.line == 10 && r.is_definition));
    assert!(refs.iter().any(|r| r.line == 45 && !r.is_definition));
    assert!(
        f.references_to("findById")
            .any(|r| r.line == 23 && r.is_definition)
    );

    let d = index("ts", "src/utils/date.ts");
    let fmt = func(&d, "formatDate");
    assert!(fmt.is_exported, "exported by `export {{ formatDate }}`");
    assert_eq!(
        fmt.params,
        ["date: Date", "format: string = DEFAULT_FORMAT"]
    );
    assert_eq!(fmt.return_type.as_deref(), Some("string"));
    assert_eq!(fmt.doc.as_deref(), Some("Format a date as ISO day."));
    assert!(func(&d, "parseDate").is_async);
    assert!(func(&d, "isWeekend").is_exported);
    assert_eq!(
        d.functions
            .iter()
            .filter(|x| x.name == "overloaded")
            .count(),
        1
    );
    let kinds: Vec<_> = d
        .definitions
        .iter()
        .map(|x| (x.name.as_str(), x.kind))
        .collect();
    assert!(kinds.contains(&("DEFAULT_FORMAT", DefKind::Const)));
    assert!(kinds.contains(&("locale", DefKind::Variable)));
    assert!(kinds.contains(&("maximum", DefKind::Const)));
    assert!(kinds.contains(&("formatDate", DefKind::Function)));
    assert!(f.references_to("formatDate").next().is_none());
    assert!(
        d.references_to("formatDate")
            .any(|r| r.line == 6 && r.column == 6 && r.is_definition)
    );
}

#[test]
fn ts_types_abstract_and_imports() {
    let t = index("ts", "src/types/user.ts");
    let kinds: Vec<_> = t
        .definitions
        .iter()
        .filter(|x| x.container.is_none())
        .map(|x| (x.name.as_str(), x.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("User", DefKind::Interface),
            ("UserId", DefKind::Type),
            ("Role", DefKind::Enum),
            ("Repository", DefKind::Interface),
            ("Internal", DefKind::Interface)
        ]
    );
    let user = &t.classes[0];
    assert_eq!(user.kind, "interface");
    assert!(
        user.properties
            .iter()
            .any(|p| p.name == "id" && p.is_readonly)
    );
    assert_eq!(user.methods[0].name, "greet");

    let b = index("ts", "src/base/service.ts");
    assert!(b.classes[0].is_abstract && b.classes[0].is_exported);

    let i = index("ts", "src/index.ts");
    let imports: Vec<_> = i
        .imports
        .iter()
        .map(|x| (x.source.as_str(), x.names.join(",")))
        .collect();
    assert!(imports.contains(&("./services/user", "*".into())));
    assert!(imports.contains(&("./auth/service", "AuthService,login".into())));
    assert!(imports.contains(&("./polyfills", String::new())));

    let u = index("ts", "src/services/user.ts");
    let db = u.imports.iter().find(|x| x.source == "db-client").unwrap();
    assert_eq!(db.names, ["Database", "Row", "DbError"]);
    assert_eq!(
        u.imports
            .iter()
            .find(|x| x.source == "node:crypto")
            .unwrap()
            .names,
        ["crypto"]
    );

    let d = index("ts", "src/utils/date.ts");
    assert!(
        d.imports
            .iter()
            .any(|x| x.source == "./locales/en" && x.line == 22)
    );

    let a = index("ts", "src/auth/service.ts");
    let auth = a.classes.iter().find(|c| c.name == "AuthService").unwrap();
    assert_eq!(auth.line_start, 23, "decorators belong to the class");
    assert_eq!(func(&a, "AuthService.verify").line_start, 28);
    assert_eq!(
        func(&a, "AuthService.verify").doc.as_deref(),
        Some("Checks a token.")
    );
}

#[test]
fn tsx_components() {
    let f = index("ts", "src/components/UserCard.tsx");
    assert_eq!(f.lang, Some(ultra_index::Lang::Tsx));
    let card = func(&f, "UserCard");
    assert!(card.is_exported);
    assert_eq!(card.params, ["{ user, onSelect }"]);
    assert!(func(&f, "UserList").is_exported);
    assert!(func(&f, "Legacy.render").line_end > func(&f, "Legacy.render").line_start);
    assert!(f.errors.is_empty());
}

#[test]
fn syntax_errors_keep_what_parses() {
    let f = index("ts", "src/broken.ts");
    assert!(!f.errors.is_empty());
    for name in ["fine", "StillHere.method", "after"] {
        func(&f, name);
    }
    assert!(f.classes.iter().any(|c| c.name == "StillHere"));
}

#[test]
fn js_commonjs_and_esm() {
    let u = index("js", "lib/util.js");
    assert!(func(&u, "slugify").is_exported);
    assert!(func(&u, "clamp").is_exported);
    assert!(
        func(&u, "internal").is_exported,
        "`exports.internal = internal`"
    );

    let s = index("js", "lib/store.js");
    let store = &s.classes[0];
    assert!(store.is_exported, "`module.exports = Store`");
    assert_eq!(store.extends.as_deref(), Some("EventEmitter"));
    assert!(
        store
            .methods
            .iter()
            .any(|m| m.name == "entries" && m.is_async)
    );
    assert!(
        store
            .methods
            .iter()
            .any(|m| m.name == "from" && m.is_static)
    );
    assert!(!func(&s, "Store.#touch").is_exported);
    assert!(s.references_to("#data").any(|r| r.is_definition));

    let i = index("js", "lib/index.js");
    let util = i.imports.iter().find(|x| x.source == "./util").unwrap();
    assert_eq!(util.names, ["slugify", "limit"]);
    assert!(
        i.imports
            .iter()
            .any(|x| x.source == "./polyfill" && x.names.is_empty())
    );
    assert!(func(&i, "pagePath").is_exported);
    assert!(!func(&i, "loadPlugins").is_exported);

    let a = index("js", "src/app.mjs");
    let start = func(&a, "start");
    assert!(start.is_async && start.is_exported);
    assert!(
        a.imports
            .iter()
            .any(|x| x.source == "./setup.mjs" && x.names == ["setup"])
    );
    assert!(
        a.imports
            .iter()
            .any(|x| x.source == "./helper.mjs" && x.names == ["helper"])
    );
    assert!(
        a.classes
            .iter()
            .any(|c| c.name == "Router" && c.is_exported)
    );
}

/// Definitions below module level, as ctags indexes them: functions in function bodies,
/// blocks and UMD wrappers, functions bound to variables and properties there, prototype
/// methods, methods of named object literals; TypeScript overloads and `declare
/// namespace` functions. Functions of anonymous objects (arguments) are not definitions.
#[test]
fn nested_definitions_as_ctags_finds_them() {
    let defs = |f: &ultra_index::FileIndex| -> Vec<(String, Option<String>, u32)> {
        f.definitions
            .iter()
            .map(|d| (d.name.clone(), d.container.clone(), d.line))
            .collect()
    };
    let f = index("js", "vendor/umd.js");
    let got = defs(&f);
    let want: &[(&str, Option<&str>, u32)] = &[
        ("helper", None, 10),
        ("Queue", None, 14),
        ("push", None, 16),
        ("drain", Some("Queue"), 21),
        ("create", Some("Queue"), 25),
        ("run", Some("api"), 31),
        ("stop", Some("api"), 34),
        ("deep", Some("nested"), 36),
        ("Inner", None, 40),
        ("go", Some("Inner"), 41),
        ("inBlock", None, 47),
        // A shorthand method with no function or arrow in sight.
        ("reset", Some("plain"), 51),
        // An arrow bound to a variable in a block with no other definition.
        ("twice", None, 57),
    ];
    for (name, container, line) in want {
        assert!(
            got.iter()
                .any(|(n, c, l)| n == name && c.as_deref() == *container && l == line),
            "{name} ({container:?}) at {line}: {got:?}"
        );
    }
    assert!(!got.iter().any(|(n, _, _)| n == "onEvent"), "{got:?}");
    assert!(!got.iter().any(|(n, _, _)| n == "version"), "{got:?}");

    let d = index("ts", "src/utils/date.ts");
    let overloads: Vec<u32> = d
        .definitions
        .iter()
        .filter(|x| x.name == "overloaded")
        .map(|x| x.line)
        .collect();
    assert_eq!(overloads, [28, 29, 30]);

    let a = index("ts", "src/types/ambient.d.ts");
    let got = defs(&a);
    for (name, container, line) in [
        ("Shapes", None, 1),
        ("area", None, 2),
        ("Shape", None, 3),
        ("Inner", None, 6),
        ("perimeter", None, 7),
        ("distance", None, 12),
        ("Canvas", None, 15),
        ("draw", Some("Canvas"), 16),
        ("draw", Some("Canvas"), 17),
    ] {
        assert!(
            got.iter()
                .any(|(n, c, l)| n == name && c.as_deref() == container && *l == line),
            "{name} at {line}: {got:?}"
        );
    }
}

/// A generic call signature that tree-sitter-typescript 0.23 cannot parse turns the whole
/// file into one error node; the declarations in it are still found from their tokens,
/// and variance annotations (`in out K`) parse.
#[test]
fn declarations_survive_what_the_grammar_cannot_parse() {
    let f = index("ts", "src/utils/dual.ts");
    let got: Vec<(&str, u32)> = f
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.line))
        .collect();
    for want in [("dual", 1), ("apply", 8), ("LazyArg", 10)] {
        assert!(got.contains(&want), "{want:?} in {got:?}");
    }
    let v = ultra_index::index_file(
        "v.ts",
        b"export interface Cache<in out Key, out Value> {\n  get(key: Key): Value\n}\nexport function after(): void {}\n",
    );
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    let got: Vec<(&str, Option<&str>)> = v
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.container.as_deref()))
        .collect();
    assert_eq!(
        got,
        [("Cache", None), ("get", Some("Cache")), ("after", None)]
    );
    let sig = &v.classes[0];
    assert_eq!(sig.name, "Cache");
}

/// An interface's construct signature is its `new` method (as ctags has it).
#[test]
fn construct_signatures_are_new_methods() {
    let f = ultra_index::index_file(
        "e.d.ts",
        b"export interface EmptyErrorCtor {\n    /** doc */\n    new (): EmptyError;\n}\n",
    );
    let got = lang_support::defs(&f);
    assert_eq!(
        got,
        [
            ("EmptyErrorCtor", None, 1),
            ("new", Some("EmptyErrorCtor"), 3)
        ]
    );
}
