//! Fixture snapshot tests shared by the per-language extractor tests: every source file
//! under `tests/fixtures/<dir>/` is indexed and summarised as pretty JSON, compared with
//! `tests/snapshots/<dir>/<path with / as __>.json`. `UPDATE_SNAPSHOTS=1` rewrites them.
//! Also: one fixture's index, lookups for assertions, and the truncated-input check.

#![allow(clippy::unwrap_used, dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use ultra_index::{Class, DefKind, Definition, FileIndex, Function, Lang, index_file};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Index `rel` (a path under `tests/fixtures/<dir>/`), as the workspace-relative path `rel`.
pub fn index(dir: &str, rel: &str) -> FileIndex {
    let content = std::fs::read(root().join("fixtures").join(dir).join(rel)).unwrap();
    index_file(rel, &content)
}

/// The files under `dir` (relative to `base`) in a language the index knows, sorted.
fn files(base: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(base, &p, out);
        } else if Lang::of_path(&p.to_string_lossy()).is_some() {
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

/// The reviewed summary of one file's index; with `refs`, it also lists where each of
/// those names occurs (`line:column`, `def` for a definition).
pub fn summary(f: &FileIndex, refs: &[&str]) -> Value {
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
    let mut out = json!({
        "path": f.path,
        "lang": f.lang.map(|l| l.as_str()),
        "functions": functions,
        "classes": classes,
        "definitions": definitions,
        "imports": imports,
        "syntaxErrors": f.errors.len(),
    });
    if !refs.is_empty() {
        let references: serde_json::Map<String, Value> = refs
            .iter()
            .map(|name| {
                let list: Vec<String> = f
                    .references_to(name)
                    .map(|r| {
                        let def = if r.is_definition { " def" } else { "" };
                        format!("{}:{}{def}", r.line, r.column)
                    })
                    .collect();
                ((*name).to_string(), json!(list))
            })
            .collect();
        out["references"] = Value::Object(references);
    }
    out
}

/// A line diff (longest common subsequence): changed lines only, with their numbers.
fn diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
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
            let _ = writeln!(out, "{:4} + {}", j + 1, b[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "{:4} - {}", i + 1, a[i]);
            i += 1;
        }
    }
    out
}

/// Compare (or with `UPDATE_SNAPSHOTS=1`, write) the snapshot of every fixture under `dir`.
pub fn check_dir(dir: &str) {
    check_dir_with_refs(dir, &[]);
}

/// [`check_dir`], the snapshots of the files named in `refs` also listing the occurrences
/// of the names given with them.
pub fn check_dir_with_refs(dir: &str, refs: &[(&str, &[&str])]) {
    let base = root().join("fixtures").join(dir);
    let mut rels = Vec::new();
    files(&base, &base, &mut rels);
    assert!(!rels.is_empty(), "no fixtures under {}", base.display());
    for (rel, _) in refs {
        assert!(rels.iter().any(|r| r == rel), "no fixture {dir}/{rel}");
    }
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let snap_dir = root().join("snapshots").join(dir);
    let mut failures = Vec::new();
    for rel in rels {
        let idx = index(dir, &rel);
        let names = refs
            .iter()
            .find(|(r, _)| *r == rel)
            .map_or(&[][..], |(_, names)| names);
        let value = summary(&idx, names);
        let text = serde_json::to_string_pretty(&sort_keys(value.clone())).unwrap() + "\n";
        let snap = snap_dir.join(format!("{}.json", rel.replace('/', "__")));
        if update {
            std::fs::create_dir_all(&snap_dir).unwrap();
            std::fs::write(&snap, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snap) {
            // Compared as JSON: objects keep their insertion order when printed, and the
            // snapshots were written with sorted keys.
            Ok(old)
                if serde_json::from_str::<serde_json::Value>(&old).ok() == Some(value.clone()) => {}
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

/// The first definition named `name`.
pub fn def<'a>(f: &'a FileIndex, name: &str) -> &'a Definition {
    f.definitions
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name} in {}", f.path))
}

/// The function whose qualified name is `qualified`.
pub fn func<'a>(f: &'a FileIndex, qualified: &str) -> &'a Function {
    f.functions
        .iter()
        .find(|x| x.qualified == qualified)
        .unwrap_or_else(|| panic!("no function {qualified} in {}", f.path))
}

/// The class named `name`.
pub fn class<'a>(f: &'a FileIndex, name: &str) -> &'a Class {
    f.classes
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no class {name} in {}", f.path))
}

/// Index every prefix (in steps) of each fixture `dir/rel`: broken input must never panic.
pub fn prefixes_never_panic(dir: &str, rels: &[&str]) {
    for rel in rels {
        let content = std::fs::read(root().join("fixtures").join(dir).join(rel)).unwrap();
        for cut in (0..content.len()).step_by(7) {
            let idx = index_file(rel, &content[..cut]);
            assert!(idx.lines as usize <= content.len() + 1);
        }
    }
}

/// `v` with every object's keys in order, so that rewritten snapshots diff only where
/// the facts changed.
fn sort_keys(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => {
            let mut entries: Vec<_> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sort_keys(v)))
                    .collect(),
            )
        }
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.into_iter().map(sort_keys).collect())
        }
        v => v,
    }
}

/// A record's definitions as (name, container, line), for asserting what was found.
pub fn defs(f: &FileIndex) -> Vec<(&str, Option<&str>, u32)> {
    f.definitions
        .iter()
        .map(|d| (d.name.as_str(), d.container.as_deref(), d.line))
        .collect()
}
