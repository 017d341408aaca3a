//! Fixture snapshot tests shared by the per-language extractor tests: every file under
//! `tests/fixtures/<dir>/` is indexed and summarised as pretty JSON, compared with
//! `tests/snapshots/<dir>/<path with / as __>.json`. `UPDATE_SNAPSHOTS=1` rewrites them.

#![allow(clippy::unwrap_used, dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use ultra_index::{DefKind, FileIndex, index_file};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Index `rel` (a path under `tests/fixtures/<dir>/`), as the workspace-relative path `rel`.
pub fn index(dir: &str, rel: &str) -> FileIndex {
    let content = std::fs::read(root().join("fixtures").join(dir).join(rel)).unwrap();
    index_file(rel, &content)
}

fn files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(base, &p, out);
        } else {
            out.push(
                p.strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

fn kind(k: DefKind) -> String {
    serde_json::to_value(k)
        .unwrap()
        .as_str()
        .unwrap_or("?")
        .to_string()
}

fn flags(pairs: &[(bool, &str)]) -> String {
    let f: Vec<&str> = pairs.iter().filter(|(b, _)| *b).map(|(_, s)| *s).collect();
    if f.is_empty() {
        String::new()
    } else {
        format!(" [{}]", f.join(", "))
    }
}

/// The reviewed summary of one file's index.
pub fn summary(f: &FileIndex) -> Value {
    let functions: Vec<Value> = f
        .functions
        .iter()
        .map(|x| {
            json!({
                "qualified": x.qualified,
                "params": x.params,
                "async": x.is_async,
                "exported": x.is_exported,
                "returnType": x.return_type,
                "lines": format!("{}-{}", x.line_start, x.line_end),
                "signature": x.signature,
                "doc": x.doc,
            })
        })
        .collect();
    let classes: Vec<Value> = f
        .classes
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "kind": c.kind,
                "lines": format!("{}-{}", c.line_start, c.line_end),
                "abstract": c.is_abstract,
                "exported": c.is_exported,
                "extends": c.extends,
                "implements": c.implements,
                "methods": c.methods.iter().map(|m| format!("{}({}){}", m.name, m.params.join(", "), flags(&[(m.is_static, "static"), (m.is_async, "async")]))).collect::<Vec<_>>(),
                "properties": c.properties.iter().map(|p| format!("{}{}", p.name, flags(&[(p.is_static, "static"), (p.is_readonly, "readonly")]))).collect::<Vec<_>>(),
                "doc": c.doc,
            })
        })
        .collect();
    let definitions: Vec<String> = f
        .definitions
        .iter()
        .map(|d| {
            let name = match &d.container {
                Some(c) => format!("{c}.{}", d.name),
                None => d.name.clone(),
            };
            format!(
                "{} {name} @{}:{}-{}",
                kind(d.kind),
                d.line,
                d.column,
                d.line_end
            )
        })
        .collect();
    let imports: Vec<String> = f
        .imports
        .iter()
        .map(|i| format!("{}: {} [{}]", i.line, i.source, i.names.join(", ")))
        .collect();
    json!({
        "path": f.path,
        "lang": f.lang.map(|l| l.as_str()),
        "functions": functions,
        "classes": classes,
        "definitions": definitions,
        "imports": imports,
        "syntaxErrors": f.errors.len(),
    })
}

fn diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let mut out = String::new();
    let n = a.len().max(b.len());
    for i in 0..n {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                if let Some(x) = x {
                    let _ = writeln!(out, "{:4} - {x}", i + 1);
                }
                if let Some(y) = y {
                    let _ = writeln!(out, "{:4} + {y}", i + 1);
                }
            }
        }
    }
    out
}

/// Compare (or with `UPDATE_SNAPSHOTS=1`, write) the snapshot of every fixture under `dir`.
pub fn check_dir(dir: &str) {
    let base = root().join("fixtures").join(dir);
    let mut rels = Vec::new();
    files(&base, &base, &mut rels);
    assert!(!rels.is_empty(), "no fixtures under {}", base.display());
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let snap_dir = root().join("snapshots").join(dir);
    let mut failures = Vec::new();
    for rel in rels {
        let idx = index(dir, &rel);
        let text = serde_json::to_string_pretty(&summary(&idx)).unwrap() + "\n";
        let snap = snap_dir.join(format!("{}.json", rel.replace('/', "__")));
        if update {
            std::fs::create_dir_all(&snap_dir).unwrap();
            std::fs::write(&snap, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(old) if old == text => {}
            Ok(old) => failures.push(format!(
                "{} differs:\n{}",
                snap.display(),
                diff(&old, &text)
            )),
            Err(_) => failures.push(format!(
                "{} missing (run with UPDATE_SNAPSHOTS=1)",
                snap.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "snapshot mismatches:\n{}",
        failures.join("\n")
    );
}
