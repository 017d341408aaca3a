//! Tidy checks that keep the layout honest: the crate graph only has the edges
//! ARCHITECTURE.md allows (arrows point down), every source file starts with a `//!` doc,
//! and the codemap names every crate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `ultra-*` crates a manifest depends on (normal dependencies only).
fn internal_deps(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps && t.starts_with("ultra-") {
            out.push(
                t.split(['.', ' ', '='])
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    out
}

/// The allowed edges, from ARCHITECTURE.md's `crate-graph` block: `crate: dep dep ...`.
fn allowed_edges() -> BTreeMap<String, Vec<String>> {
    let doc = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let block = doc
        .split("```crate-graph\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a ```crate-graph block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, deps) = l.split_once(':').expect("`crate: deps` lines");
            (
                name.trim().to_string(),
                deps.split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect()
}

#[test]
fn crate_graph_points_down() {
    let allowed = allowed_edges();
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(repo().join("crates")).expect("crates dir") {
        let dir = entry.expect("entry").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let Some(ok) = allowed.get(name.as_str()) else {
            panic!("crate {name} is not in the layer table; add it here and to ARCHITECTURE.md");
        };
        for dep in internal_deps(&manifest) {
            assert!(
                ok.contains(&dep),
                "{name} depends on {dep}, which ARCHITECTURE.md does not allow"
            );
        }
        seen.push(name);
    }
    assert_eq!(seen.len(), allowed.len(), "crates found: {seen:?}");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_starts_with_a_doc_comment() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo().join("crates")).expect("crates dir") {
        let src = entry.expect("entry").path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 20);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .unwrap_or_default()
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "modules without a leading //! doc: {missing:?}"
    );
}

#[test]
fn the_codemap_names_every_crate() {
    let arch = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    for entry in std::fs::read_dir(repo().join("crates")).expect("crates dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        assert!(
            arch.contains(&format!("crates/{name}`")),
            "ARCHITECTURE.md has no section for crates/{name}"
        );
    }
}

/// A crate's modules (`[]` for lib.rs/main.rs, `["runner", "watch"]` for runner/watch.rs)
/// with the text of the file, test modules left out.
fn modules(src: &Path) -> Vec<(Vec<String>, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(src).ok()?.with_extension("");
            let mut path: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if matches!(
                path.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                path.pop();
            }
            let text = std::fs::read_to_string(&f).ok()?;
            // Code only: doc links and comments are not imports.
            let text: String = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .lines()
                .map(|l| l.split("//").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            Some((path, text))
        })
        .collect()
}

/// The module paths a file names through `crate::` and `super::`.
fn references(module: &[String], is_mod_rs: bool, text: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .map(str::trim)
            .take_while(|p| {
                !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            })
            .map(str::to_string)
            .collect()
    };
    let mut out = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            // `super` of a mod.rs/lib.rs file is its module's parent; of a.rs, the parent too.
            let mut b = module.to_vec();
            if is_mod_rs || !b.is_empty() {
                b.pop();
            }
            b
        }),
    ] {
        for (i, _) in text.match_indices(prefix) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &text[i + prefix.len()..];
            let heads: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect()
            } else {
                vec![
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                        .collect(),
                ]
            };
            for h in heads {
                let mut p = base.clone();
                p.extend(ident(&h));
                out.push(p);
            }
        }
    }
    out
}

/// Crates whose modules form a DAG: a sibling module never imports one that imports it
/// back, so each can be read (and moved) with only what lies below it.
const ACYCLIC: &[&str] = &["ultra-commands", "ultra-tools", "ultra-services"];

#[test]
fn no_import_cycles_between_sibling_modules() {
    let mut cycles = Vec::new();
    for name in ACYCLIC {
        let src = repo().join("crates").join(name).join("src");
        let mods = modules(&src);
        // parent -> (child -> children it reaches)
        let mut edges: BTreeMap<Vec<String>, BTreeMap<String, std::collections::BTreeSet<String>>> =
            BTreeMap::new();
        let known: std::collections::BTreeSet<&Vec<String>> = mods.iter().map(|(p, _)| p).collect();
        for (path, text) in &mods {
            let file_is_mod = path.is_empty()
                || known
                    .iter()
                    .any(|k| k.len() > path.len() && k.starts_with(path));
            for target in references(path, file_is_mod, text) {
                let common = path.iter().zip(&target).take_while(|(a, b)| a == b).count();
                let (Some(from), Some(to)) = (path.get(common), target.get(common)) else {
                    continue;
                };
                let mut sib = path[..common].to_vec();
                sib.push(to.clone());
                if !known.contains(&sib) {
                    continue; // an item, not a module
                }
                edges
                    .entry(path[..common].to_vec())
                    .or_default()
                    .entry(from.clone())
                    .or_default()
                    .insert(to.clone());
            }
        }
        for (parent, graph) in &edges {
            for (a, tos) in graph {
                for b in tos {
                    // a -> b and b ->* a
                    let mut seen = std::collections::BTreeSet::new();
                    let mut stack = vec![b.clone()];
                    while let Some(n) = stack.pop() {
                        if &n == a {
                            cycles.push(format!(
                                "{name}: {}::{{{a} -> {b} -> ... -> {a}}}",
                                parent.join("::")
                            ));
                            break;
                        }
                        if seen.insert(n.clone()) {
                            stack.extend(graph.get(&n).into_iter().flatten().cloned());
                        }
                    }
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules that import each other: {cycles:#?}"
    );
}

/// Files that may grow past [`MAX_LINES`]: the awk and sed parsers and interpreters, each
/// one grammar or one machine that reads best whole.
const LONG_ALLOWED: &[&str] = &[
    "ultra-shell/src/promoted/awk/parser.rs",
    "ultra-shell/src/promoted/awk/interp.rs",
    "ultra-shell/src/promoted/sed/parse.rs",
    "ultra-shell/src/promoted/sed/exec.rs",
];

/// The most lines a source file has before it is split by responsibility.
const MAX_LINES: usize = 900;

#[test]
fn source_files_stay_short() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(repo().join("crates")).expect("crates dir") {
        let src = entry.expect("entry").path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    let crates = repo().join("crates");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&crates).ok()?.to_string_lossy().into_owned();
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            (n > MAX_LINES && !LONG_ALLOWED.contains(&rel.as_str())).then(|| format!("{rel}: {n}"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split them by responsibility): {long:#?}"
    );
}
