//! The outline parse (function bodies that declare nothing left out) against the whole
//! parse, on real Rust and C: this workspace's own sources and the crates in cargo's
//! registry (the ones this build downloaded, C sources bundled with them included). Every
//! record must be the same but for syntax errors inside left-out bodies.
//!
//! `ULTRA_OUTLINE_CORPUS=dir` checks the Rust and C files under `dir` instead, all of them
//! (the benchmark's vendored crates, for one).

use std::path::{Path, PathBuf};

use ultra_index::{FileIndex, index_file, passes::index_outline};

/// Files read from cargo's registry in a test run (a debug build parses slowly).
const REGISTRY_FILES: usize = 1000;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && e.file_name() != "target" {
            sources(&path, out);
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|x| x == "rs" || x == "c" || x == "h")
        {
            out.push(path);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = std::env::var_os("ULTRA_OUTLINE_CORPUS") {
        sources(Path::new(&dir), &mut files);
        return files;
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    sources(&workspace.join("crates"), &mut files);
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(home) = home {
        let mut registry = Vec::new();
        sources(&home.join("registry/src"), &mut registry);
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
    let (mut outlined, mut checked, mut with_errors, mut errors_differ) = (0, 0, 0, 0);
    let mut differ = Vec::new();
    for path in &files {
        let Ok(content) = std::fs::read(path) else {
            continue;
        };
        let name = path.to_string_lossy();
        let whole = index_file(&name, &content);
        let outline = index_outline(&name, &content);
        outlined += usize::from(outline.outline);
        if !whole.errors.is_empty() {
            // Recovery around an error may read a region differently with fewer tokens
            // (C's macro-heavy files, mostly): counted, not compared.
            with_errors += 1;
            errors_differ += usize::from(comparable(whole) != comparable(outline));
            continue;
        }
        assert!(
            outline.errors.is_empty(),
            "{name}: the outline found {:?}, the whole parse nothing",
            outline.errors
        );
        checked += 1;
        if comparable(whole.clone()) != comparable(outline.clone()) {
            differ.push(name.to_string());
        }
    }
    eprintln!(
        "{} files: {checked} compared, {with_errors} with syntax errors \
         ({errors_differ} of them with another record in outline), {outlined} outlined",
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

#[test]
fn c_function_bodies_are_left_out_and_macros_are_not_taken_for_them() {
    let src = r#"#include "a.h"
#define SWAP(a, b) { int t = a; a = b; b = t; t = t + 0; a = a + 0; b = b + 0; }
#define LONG(a) \
    { int t = a; t = t + 1; t = t + 2; t = t + 3; t = t + 4; t = t + 5; }
static int helper(int x) {
    int y = x * 2 + 1; int z = y * 3 + 7; return z + y + x; /* { */
}
struct point { int x; int y; };
static const int table[] = { 1, 2, 3 };
int main(int argc, char **argv) {
    struct local { int a; } l = { 1 };
    return helper(argc) + l.a + table[0] + 1 + 2 + 3 + 4 + 5;
}
"#;
    let whole = index_file("a.c", src.as_bytes());
    let outline = index_outline("a.c", src.as_bytes());
    assert!(whole.errors.is_empty(), "{:?}", whole.errors);
    assert!(outline.outline);
    assert_eq!(comparable(whole.clone()), comparable(outline));
    let names: Vec<&str> = whole.functions.iter().map(|f| f.name.as_str()).collect();
    for f in ["helper", "main"] {
        assert!(names.contains(&f), "{f} missing from {names:?}");
    }
}
