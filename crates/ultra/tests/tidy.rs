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
