//! The outline parse (function bodies that declare nothing left out) against the whole
//! parse, on real Rust: this workspace's own sources and the crates in cargo's registry
//! (the ones this build downloaded). Every record must be the same but for syntax errors
//! inside left-out bodies.
//!
//! `ULTRA_OUTLINE_CORPUS=dir` checks the Rust files under `dir` instead, all of them (the
//! benchmark's vendored crates, for one).

use std::path::{Path, PathBuf};

use ultra_index::{FileIndex, index_file, passes::index_outline};

/// Files read from cargo's registry in a test run (a debug build parses slowly).
const REGISTRY_FILES: usize = 1500;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && e.file_name() != "target" {
            rust_files(&path, out);
        } else if kind.is_file() && path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = std::env::var_os("ULTRA_OUTLINE_CORPUS") {
        rust_files(Path::new(&dir), &mut files);
        return files;
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    rust_files(&workspace.join("crates"), &mut files);
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(home) = home {
        let mut registry = Vec::new();
        rust_files(&home.join("registry/src"), &mut registry);
        // Spread over every crate rather than the first few.
        let step = registry.len().div_ceil(REGISTRY_FILES).max(1);
        files.extend(registry.into_iter().step_by(step));
    }
    files
}

/// The record without what the outline may leave out.
fn comparable(mut r: FileIndex) -> FileIndex {
    r.errors.clear();
    r.outline = false;
    r
}

#[test]
fn the_outline_gives_the_whole_parses_record_but_for_errors_in_bodies() {
    let files = corpus();
    let (mut outlined, mut checked, mut with_errors) = (0, 0, 0);
    let mut differ = Vec::new();
    for path in &files {
        let Ok(content) = std::fs::read(path) else {
            continue;
        };
        let name = path.to_string_lossy();
        let whole = index_file(&name, &content);
        let outline = index_outline(&name, &content);
        outlined += usize::from(outline.outline);
        // Errors the outline reports are the whole parse's, never new ones.
        for e in &outline.errors {
            assert!(
                whole.errors.contains(e),
                "{name}: the outline found {e:?}, the whole parse did not"
            );
        }
        if !whole.errors.is_empty() {
            // Recovery around an error may read a region differently with fewer tokens.
            with_errors += 1;
            continue;
        }
        checked += 1;
        if comparable(whole.clone()) != comparable(outline.clone()) {
            differ.push(name.to_string());
        }
    }
    eprintln!(
        "{} files: {checked} compared, {with_errors} with syntax errors, {outlined} outlined",
        files.len()
    );
    assert!(differ.is_empty(), "records differ: {differ:#?}");
    assert!(
        outlined * 2 > checked,
        "only {outlined} of {checked} files had a body left out"
    );
}

#[test]
fn left_out_bodies_are_the_ones_that_declare_nothing() {
    let src = r#"
/// Doc.
pub fn plain(x: u32) -> u32 {
    let s = "fn not_an_item() { }"; // fn nor this
    let c = '{';
    let t: &'static str = "static";
    x + s.len() as u32 + c as u32 + t.len() as u32
}

fn with_helper() {
    fn helper() -> u8 { let v = vec![1, 2, 3]; v.iter().sum::<u8>() + 1 + 2 + 3 + 4 }
    helper();
}

fn in_macro() {
    let _ = quote! { fn generated() { let a = 1; let b = 2; a + b + 3 + 4 + 5 + 6 } };
}

trait T {
    fn required(&self);
    fn provided(&self) -> [u8; 4] { let a = [0u8; 4]; let b = a; let c = b; c }
}

impl S { fn method(&self) -> u8 { let a = 1; let b = 2; let c = 3; a + b + c } }

macro_rules! make {
    ($t:ty) => { impl $t { fn made(&self) -> u32 { let a = 1; let b = 2; a + b + 3 + 4 + 5 + 6 + 7 + 8 } } };
}

#[cfg_attr(x, doc = { fn in_attribute() { let a = 1; let b = 2; let c = 3; a + b + c + 4 + 5 + 6; } "" })]
fn attributed() -> u32 { let a = 1; let b = 2; let c = 3; a + b + c + 4 + 5 + 6 + 7 }
"#;
    let whole = index_file("a.rs", src.as_bytes());
    let outline = index_outline("a.rs", src.as_bytes());
    assert!(outline.outline);
    assert_eq!(comparable(whole.clone()), comparable(outline));
    let names: Vec<&str> = whole.functions.iter().map(|f| f.name.as_str()).collect();
    for f in [
        "plain",
        "with_helper",
        "helper",
        "in_macro",
        "required",
        "provided",
        "method",
    ] {
        assert!(names.contains(&f), "{f} missing from {names:?}");
    }
}

#[test]
fn an_error_inside_a_left_out_body_is_the_only_difference() {
    let src = "pub fn broken(x: u32) -> u32 {\n    let y = x +;\n    let z = y * 2 + 1 + 3;\n    z\n}\n\npub fn after() {}\n";
    let whole = index_file("b.rs", src.as_bytes());
    let outline = index_outline("b.rs", src.as_bytes());
    assert_eq!(whole.errors.len(), 1, "{:?}", whole.errors);
    assert!(outline.outline && outline.errors.is_empty());
    assert_eq!(comparable(whole), comparable(outline));
}

#[test]
fn unbalanced_brackets_parse_whole() {
    let src = "pub fn open(x: u32) -> u32 {\n    let y = (x + 1;\n    let z = y * 2 + 1 + 3 + 4 + 5;\n    z\n}\n";
    let outline = index_outline("c.rs", src.as_bytes());
    assert!(!outline.outline);
    assert_eq!(outline, index_file("c.rs", src.as_bytes()));
}

#[test]
fn a_brace_the_finder_takes_for_a_body_wrongly_is_caught_by_the_tree() {
    // The finder does not track `<`: the const block in the return type looks like the body.
    let src = "pub fn sized<const N: usize>() -> Buf<{ N * 2 + LONG_CONSTANT_NAME_ONE + LONG_CONSTANT_NAME_TWO }> {\n    Buf::new()\n}\n";
    let outline = index_outline("d.rs", src.as_bytes());
    assert!(!outline.outline);
    assert_eq!(outline, index_file("d.rs", src.as_bytes()));
}
