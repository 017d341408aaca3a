//! Imports resolved to workspace files, per language: relative and index-file imports in
//! TS/JS, Python packages and modules, Rust `mod` and `use crate::`/`super::`/`self::`, Go
//! packages (through `go.mod`), Java packages, C/C++ `#include "..."`. An import that names
//! no workspace file (a package, the standard library) resolves to nothing.

use crate::lang::Lang;

/// What resolution needs to know about the workspace.
pub trait Files {
    /// Whether `path` (workspace-relative) is an indexed file.
    fn exists(&self, path: &str) -> bool;
    /// Indexed files directly in directory `dir` ("" for the root), sorted.
    fn in_dir(&self, dir: &str) -> Vec<String>;
    /// Indexed files whose path ends with `/suffix` or equals `suffix`, sorted.
    fn with_suffix(&self, suffix: &str) -> Vec<String>;
    /// Go modules: (directory of `go.mod`, module path).
    fn go_modules(&self) -> Vec<(String, String)>;
    /// The directories a top-level Python package or module `top` is importable from
    /// (besides the root, `src/` and the importer's own package root), sorted.
    fn python_roots(&self, top: &str) -> Vec<String>;
    /// Whether some indexed file is called `name`, or is an `__init__.py` in a directory
    /// called `name`: a cheap "certainly not" for imports of the standard library and
    /// installed packages.
    fn may_name(&self, name: &str) -> bool;
}

/// The directory part of a path ("" at the root).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Join and normalise (`a/b` + `../c` → `a/c`); `None` when it climbs above the root.
pub(crate) fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

fn first(files: &dyn Files, candidates: impl IntoIterator<Item = String>) -> Vec<String> {
    candidates
        .into_iter()
        .find(|c| files.exists(c))
        .into_iter()
        .collect()
}

/// The workspace files `source` (imported by `importer`, written in `lang`) names.
pub fn resolve(
    files: &dyn Files,
    lang: Lang,
    importer: &str,
    source: &str,
    names: &[String],
) -> Vec<String> {
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => js(files, importer, source),
        Lang::Python => python(files, importer, source, names),
        Lang::Rust => rust(files, importer, source),
        Lang::Go => go(files, importer, source),
        Lang::Java => java(files, source, names),
        Lang::C | Lang::Cpp => c(files, importer, source),
    }
}

const JS_EXT: [&str; 8] = [
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts",
];

fn js(files: &dyn Files, importer: &str, source: &str) -> Vec<String> {
    if !(source.starts_with('.') || source.starts_with('/')) {
        return Vec::new();
    }
    let Some(base) = join(dir_of(importer), source.trim_start_matches('/')) else {
        return Vec::new();
    };
    if files.exists(&base) {
        return vec![base];
    }
    // ESM TypeScript writes `./a.js` for `a.ts`. Candidates are made one at a time: the
    // first that exists is the answer.
    let stem = base
        .strip_suffix(".js")
        .or_else(|| base.strip_suffix(".mjs"))
        .or_else(|| base.strip_suffix(".jsx"))
        .unwrap_or(&base);
    JS_EXT
        .iter()
        .map(|e| format!("{stem}{e}"))
        .chain(JS_EXT.iter().map(|e| format!("{base}/index{e}")))
        .find(|c| files.exists(c))
        .into_iter()
        .collect()
}

fn python(files: &dyn Files, importer: &str, source: &str, names: &[String]) -> Vec<String> {
    let dots = source.chars().take_while(|&c| c == '.').count();
    let rest = &source[dots..];
    let module_path = rest.replace('.', "/");
    let bases: Vec<String> = if dots > 0 {
        let mut d = dir_of(importer).to_string();
        for _ in 1..dots {
            d = dir_of(&d).to_string();
        }
        vec![d]
    } else {
        // Nothing in the workspace could be it (`import os`, `from typing import Any`).
        let last = module_path.rsplit('/').next().unwrap_or("");
        let could_be = |n: &str| files.may_name(&format!("{n}.py")) || files.may_name(n);
        if !could_be(last) && !names.iter().any(|n| could_be(n)) {
            return Vec::new();
        }
        // Absolute: from the importer's own package root, the root, a `src/` layout, the
        // importer's top directory, then wherever a package of that name starts (nearest
        // the importer first).
        let mut root = dir_of(importer);
        while !root.is_empty() && files.exists(&format!("{root}/__init__.py")) {
            root = dir_of(root);
        }
        let mut b = vec![root.to_string(), String::new(), "src".to_string()];
        if let Some(top) = importer.split('/').next()
            && importer.contains('/')
        {
            b.push(top.to_string());
        }
        let top = module_path.split('/').next().unwrap_or("");
        let mut elsewhere = files.python_roots(top);
        elsewhere.sort_by_key(|r| std::cmp::Reverse(shared_dirs(r, importer)));
        b.extend(elsewhere);
        let mut seen = std::collections::HashSet::new();
        b.retain(|d| seen.insert(d.clone()));
        b
    };
    let mut out = Vec::new();
    for base in bases {
        let module = join(&base, &module_path).unwrap_or_default();
        // `from pkg import sub` may name submodules.
        for n in names.iter().filter(|n| n.as_str() != "*") {
            let m = join(&module, n).unwrap_or_default();
            out.extend(first(
                files,
                [format!("{m}.py"), format!("{m}/__init__.py")],
            ));
        }
        if !out.is_empty() {
            return out;
        }
        if !module.is_empty() {
            out.extend(first(
                files,
                [format!("{module}.py"), format!("{module}/__init__.py")],
            ));
        } else {
            out.extend(first(
                files,
                [join(&base, "__init__.py").unwrap_or_default()],
            ));
        }
        if !out.is_empty() {
            return out;
        }
    }
    out
}

/// How many leading directories `dir` shares with `path`.
fn shared_dirs(dir: &str, path: &str) -> usize {
    dir.split('/')
        .zip(path.split('/'))
        .take_while(|(a, b)| a == b && !a.is_empty())
        .count()
}

/// The directory that holds a Rust module's children: `src/` for `lib.rs`/`main.rs`/
/// `mod.rs`, `src/foo/` for `src/foo.rs`.
fn rust_children_dir(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dir = dir_of(path);
    match name {
        "lib.rs" | "main.rs" | "mod.rs" => dir.to_string(),
        _ => join(dir, name.trim_end_matches(".rs")).unwrap_or_default(),
    }
}

/// The crate root file (`lib.rs` or `main.rs`) above `path`.
fn rust_crate_root(files: &dyn Files, path: &str) -> Option<String> {
    let mut dir = dir_of(path);
    let mut c = String::new();
    loop {
        for root in ["lib.rs", "main.rs"] {
            c.clear();
            if !dir.is_empty() {
                c.push_str(dir);
                c.push('/');
            }
            c.push_str(root);
            if files.exists(&c) {
                return Some(c);
            }
        }
        if dir.is_empty() {
            return None;
        }
        dir = dir_of(dir);
    }
}

/// The file of module `segments` below the module whose children live in `dir`: the
/// longest prefix that names a file.
fn rust_module(files: &dyn Files, dir: &str, segments: &[&str]) -> Vec<String> {
    for n in (1..=segments.len()).rev() {
        let rel = segments[..n].join("/");
        let base = join(dir, &rel).unwrap_or_default();
        let found = first(files, [format!("{base}.rs"), format!("{base}/mod.rs")]);
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

fn rust(files: &dyn Files, importer: &str, source: &str) -> Vec<String> {
    if let Some(name) = source.strip_prefix("mod:") {
        return rust_module(files, &rust_children_dir(importer), &[name]);
    }
    let segs: Vec<&str> = source
        .split("::")
        .filter(|s| !s.is_empty() && *s != "*")
        .collect();
    match segs.first().copied() {
        Some("crate") => {
            let Some(root) = rust_crate_root(files, importer) else {
                return Vec::new();
            };
            rust_module(files, dir_of(&root), &segs[1..])
        }
        Some("self") => rust_module(files, &rust_children_dir(importer), &segs[1..]),
        Some("super") => {
            // The parent module's children directory is this file's directory (for
            // `foo.rs` and `foo/mod.rs` alike).
            let mut dir = rust_children_dir(importer);
            let mut rest = &segs[..];
            while rest.first() == Some(&"super") {
                dir = dir_of(&dir).to_string();
                rest = &rest[1..];
            }
            let found = rust_module(files, &dir, rest);
            if !found.is_empty() {
                return found;
            }
            // An item of the parent module itself.
            first(
                files,
                [
                    format!("{dir}.rs"),
                    format!("{dir}/mod.rs"),
                    format!("{dir}/lib.rs"),
                    format!("{dir}/main.rs"),
                ],
            )
        }
        _ => Vec::new(),
    }
}

fn go(files: &dyn Files, importer: &str, source: &str) -> Vec<String> {
    let dir = if source.starts_with("./") || source.starts_with("../") {
        join(dir_of(importer), source)
    } else {
        files
            .go_modules()
            .into_iter()
            .find_map(|(mod_dir, module)| {
                let rest = source.strip_prefix(&module)?;
                if !(rest.is_empty() || rest.starts_with('/')) {
                    return None;
                }
                join(&mod_dir, rest.trim_start_matches('/'))
            })
    };
    let Some(dir) = dir else {
        return Vec::new();
    };
    files
        .in_dir(&dir)
        .into_iter()
        .filter(|f| f.ends_with(".go") && !f.ends_with("_test.go"))
        .collect()
}

fn java(files: &dyn Files, source: &str, names: &[String]) -> Vec<String> {
    let mut segs: Vec<&str> = source.split('.').collect();
    // `import a.b.*;` may arrive as source `a.b.*`, or as `a.b` with names `[*]`.
    let wildcard = segs.last() == Some(&"*") || names.iter().any(|n| n == "*");
    if segs.last() == Some(&"*") {
        segs.pop();
    }
    if wildcard {
        let dir = segs.join("/");
        let mut out: Vec<String> = files
            .with_suffix(&format!("{dir}/"))
            .into_iter()
            .filter(|f| f.ends_with(".java"))
            .collect();
        out.sort();
        return out;
    }
    // `a.b.C`, or `a.b.C.member` for static imports.
    for n in (1..=segs.len()).rev() {
        let found = files.with_suffix(&format!("{}.java", segs[..n].join("/")));
        if !found.is_empty() {
            return found.into_iter().take(1).collect();
        }
    }
    Vec::new()
}

fn c(files: &dyn Files, importer: &str, source: &str) -> Vec<String> {
    if source.starts_with('<') {
        return Vec::new();
    }
    let local = join(dir_of(importer), source);
    let mut c: Vec<String> = local.into_iter().collect();
    c.push(source.to_string());
    let found = first(files, c);
    if !found.is_empty() {
        return found;
    }
    files.with_suffix(source).into_iter().take(1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Set(Vec<&'static str>, Vec<(String, String)>);

    impl Files for Set {
        fn exists(&self, path: &str) -> bool {
            self.0.contains(&path)
        }
        fn in_dir(&self, dir: &str) -> Vec<String> {
            self.0
                .iter()
                .filter(|p| dir_of(p) == dir)
                .map(|p| p.to_string())
                .collect()
        }
        fn with_suffix(&self, suffix: &str) -> Vec<String> {
            self.0
                .iter()
                .filter(|p| {
                    **p == suffix
                        || p.ends_with(&format!("/{suffix}"))
                        || (suffix.ends_with('/') && p.contains(&format!("/{suffix}")))
                })
                .map(|p| p.to_string())
                .collect()
        }
        fn go_modules(&self) -> Vec<(String, String)> {
            self.1.clone()
        }
        fn may_name(&self, name: &str) -> bool {
            self.0.iter().any(|p| {
                p.rsplit('/').next() == Some(name) || p.ends_with(&format!("/{name}/__init__.py"))
            })
        }
        fn python_roots(&self, top: &str) -> Vec<String> {
            let mut roots: Vec<String> = self
                .0
                .iter()
                .filter_map(|p| p.strip_suffix(&format!("{top}/__init__.py")))
                .filter(|r| r.is_empty() || r.ends_with('/'))
                .map(|r| r.trim_end_matches('/').to_string())
                .filter(|r| !self.exists(&format!("{r}/__init__.py")))
                .collect();
            roots.sort();
            roots
        }
    }

    #[test]
    fn per_language() {
        let f = Set(
            vec![
                "src/a.ts",
                "src/util/index.ts",
                "src/b.js",
                "pkg/__init__.py",
                "pkg/models.py",
                "pkg/sub/x.py",
                "app.py",
                "crates/k/src/lib.rs",
                "crates/k/src/net.rs",
                "crates/k/src/net/tcp.rs",
                "svc/go.mod",
                "svc/internal/db/db.go",
                "svc/internal/db/db_test.go",
                "svc/main.go",
                "src/main/java/com/acme/Foo.java",
                "src/main/java/com/acme/Bar.java",
                "include/x.h",
                "lib/y.c",
                "lib/y.h",
            ],
            vec![("svc".into(), "example.com/svc".into())],
        );
        let r = |lang, imp: &str, src: &str, names: &[&str]| {
            let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
            resolve(&f, lang, imp, src, &names)
        };
        assert_eq!(r(Lang::TypeScript, "src/b.ts", "./a", &[]), ["src/a.ts"]);
        assert_eq!(r(Lang::TypeScript, "src/b.ts", "./a.js", &[]), ["src/a.ts"]);
        assert_eq!(
            r(Lang::TypeScript, "src/x/c.ts", "../util", &[]),
            ["src/util/index.ts"]
        );
        assert!(r(Lang::TypeScript, "src/b.ts", "react", &[]).is_empty());
        assert_eq!(
            r(Lang::Python, "pkg/sub/x.py", "..models", &["User"]),
            ["pkg/models.py"]
        );
        assert_eq!(
            r(Lang::Python, "pkg/models.py", ".", &["sub"]),
            ["pkg/__init__.py"]
        );
        assert_eq!(
            r(Lang::Python, "app.py", "pkg.models", &["User"]),
            ["pkg/models.py"]
        );
        assert_eq!(
            r(Lang::Python, "app.py", "pkg", &["models"]),
            ["pkg/models.py"]
        );
        assert!(r(Lang::Python, "app.py", "os.path", &[]).is_empty());
        assert_eq!(
            r(Lang::Rust, "crates/k/src/lib.rs", "mod:net", &[]),
            ["crates/k/src/net.rs"]
        );
        assert_eq!(
            r(Lang::Rust, "crates/k/src/net.rs", "mod:tcp", &[]),
            ["crates/k/src/net/tcp.rs"]
        );
        assert_eq!(
            r(
                Lang::Rust,
                "crates/k/src/net/tcp.rs",
                "crate::net::Conn",
                &[]
            ),
            ["crates/k/src/net.rs"]
        );
        assert_eq!(
            r(Lang::Rust, "crates/k/src/net/tcp.rs", "super::Conn", &[]),
            ["crates/k/src/net.rs"]
        );
        assert!(r(Lang::Rust, "crates/k/src/net.rs", "std::io::Read", &[]).is_empty());
        assert_eq!(
            r(Lang::Go, "svc/main.go", "example.com/svc/internal/db", &[]),
            ["svc/internal/db/db.go"]
        );
        assert!(r(Lang::Go, "svc/main.go", "fmt", &[]).is_empty());
        assert_eq!(
            r(Lang::Java, "x/Y.java", "com.acme.Foo", &[]),
            ["src/main/java/com/acme/Foo.java"]
        );
        assert_eq!(
            r(Lang::Java, "x/Y.java", "com.acme.Foo.bar", &[]),
            ["src/main/java/com/acme/Foo.java"]
        );
        assert_eq!(r(Lang::C, "lib/y.c", "y.h", &[]), ["lib/y.h"]);
        assert_eq!(r(Lang::C, "lib/y.c", "x.h", &[]), ["include/x.h"]);
        assert!(r(Lang::C, "lib/y.c", "<stdio.h>", &[]).is_empty());
    }
}
