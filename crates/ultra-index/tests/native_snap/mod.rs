//! Snapshot support for the Rust, Go, C and C++ extractor tests: index a fixture file, turn
//! the result into a stable, reviewable JSON summary, and compare it with the stored one
//! under `tests/snapshots/` (rewritten when `UPDATE_SNAPSHOTS=1`).

#![allow(clippy::unwrap_used, dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use ultra_index::{FileIndex, index_file};

/// The crate's `tests/` directory.
fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Index `fixtures/<rel>` under the workspace-relative path `rel`.
pub fn index(rel: &str) -> FileIndex {
    let content = std::fs::read(tests_dir().join("fixtures").join(rel)).unwrap();
    index_file(rel, &content)
}

/// The reviewable summary of an index; `refs` are names whose occurrences are listed.
pub fn summary(idx: &FileIndex, refs: &[&str]) -> Value {
    let functions: Vec<Value> = idx
        .functions
        .iter()
        .map(|f| {
            json!({
                "qualified": f.qualified,
                "params": f.params,
                "async": f.is_async,
                "exported": f.is_exported,
                "returnType": f.return_type,
                "lines": format!("{}-{}", f.line_start, f.line_end),
                "signature": f.signature,
                "doc": f.doc,
            })
        })
        .collect();
    let classes: Vec<Value> = idx
        .classes
        .iter()
        .map(|c| {
            let methods: Vec<String> = c
                .methods
                .iter()
                .map(|m| {
                    let mut flags = String::new();
                    if m.is_static {
                        flags.push_str("static ");
                    }
                    if m.is_async {
                        flags.push_str("async ");
                    }
                    format!("{flags}{}({})", m.name, m.params.join(", "))
                })
                .collect();
            let properties: Vec<String> = c
                .properties
                .iter()
                .map(|p| {
                    let mut flags = String::new();
                    if p.is_static {
                        flags.push_str("static ");
                    }
                    if p.is_readonly {
                        flags.push_str("readonly ");
                    }
                    format!("{flags}{}", p.name)
                })
                .collect();
            json!({
                "name": c.name,
                "kind": c.kind,
                "lines": format!("{}-{}", c.line_start, c.line_end),
                "exported": c.is_exported,
                "abstract": c.is_abstract,
                "extends": c.extends,
                "implements": c.implements,
                "methods": methods,
                "properties": properties,
                "doc": c.doc,
            })
        })
        .collect();
    let definitions: Vec<String> = idx
        .definitions
        .iter()
        .map(|d| {
            let kind = serde_json::to_value(d.kind).unwrap();
            let container = d
                .container
                .as_deref()
                .map(|c| format!(" in {c}"))
                .unwrap_or_default();
            format!(
                "{} {} {}:{}-{}{container}",
                kind.as_str().unwrap_or("?"),
                d.name,
                d.line,
                d.column,
                d.line_end
            )
        })
        .collect();
    let imports: Vec<String> = idx
        .imports
        .iter()
        .map(|i| format!("{} {} [{}]", i.line, i.source, i.names.join(", ")))
        .collect();
    let mut references = serde_json::Map::new();
    for name in refs {
        let list: Vec<String> = idx
            .references_to(name)
            .map(|r| {
                let def = if r.is_definition { " def" } else { "" };
                format!("{}:{}{def}", r.line, r.column)
            })
            .collect();
        references.insert((*name).to_string(), json!(list));
    }
    json!({
        "path": idx.path,
        "lang": idx.lang,
        "functions": functions,
        "classes": classes,
        "definitions": definitions,
        "imports": imports,
        "errors": idx.errors.len(),
        "references": references,
    })
}

/// Index `rel`, summarize it, and compare with (or, with `UPDATE_SNAPSHOTS=1`, write)
/// `snapshots/<rel with / as __>.json`. Returns the index for further assertions.
pub fn check(rel: &str, refs: &[&str]) -> FileIndex {
    let idx = index(rel);
    let actual = serde_json::to_string_pretty(&summary(&idx, refs)).unwrap() + "\n";
    let file = tests_dir()
        .join("snapshots")
        .join(format!("{}.json", rel.replace('/', "__")));
    if std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::write(&file, &actual).unwrap();
        return idx;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}; run with UPDATE_SNAPSHOTS=1",
            file.display()
        )
    });
    if expected != actual {
        panic!(
            "snapshot {} differs (- stored, + actual; UPDATE_SNAPSHOTS=1 rewrites it):\n{}",
            file.display(),
            diff(&expected, &actual)
        );
    }
    idx
}

/// A line diff (longest common subsequence), changed lines only with their line numbers.
fn diff(a: &str, b: &str) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+{:4} {}\n", j + 1, b[j]));
            j += 1;
        } else {
            out.push_str(&format!("-{:4} {}\n", i + 1, a[i]));
            i += 1;
        }
    }
    out
}

/// The definition named `name` (first one), for assertions.
pub fn def<'a>(idx: &'a FileIndex, name: &str) -> &'a ultra_index::Definition {
    idx.definitions
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name} in {}", idx.path))
}

/// The function with qualified name `q`, for assertions.
pub fn func<'a>(idx: &'a FileIndex, q: &str) -> &'a ultra_index::Function {
    idx.functions
        .iter()
        .find(|f| f.qualified == q)
        .unwrap_or_else(|| panic!("no function {q} in {}", idx.path))
}

/// The class named `name`, for assertions.
pub fn class<'a>(idx: &'a FileIndex, name: &str) -> &'a ultra_index::Class {
    idx.classes
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no class {name} in {}", idx.path))
}

/// Index every prefix (in steps) of each fixture: broken input must never panic.
pub fn prefixes_never_panic(files: &[&str]) {
    for rel in files {
        let content = std::fs::read(tests_dir().join("fixtures").join(rel)).unwrap();
        for cut in (0..content.len()).step_by(7) {
            let idx = index_file(rel, &content[..cut]);
            assert!(idx.lines as usize <= content.len() + 1);
        }
    }
}
