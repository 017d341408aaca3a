//! What indexing adds to parsing, per language, measured steadily: the files are read
//! first, then indexed whole, indexed in outline (as a bulk index does: Rust and C
//! bodies that declare nothing left out) and parsed alone in turn, several passes, and the
//! fastest pass of each is kept (a noisy machine slows passes, it never speeds them up).
//! `cargo run --release -p ultra-index --example index_passes -- DIR [PASSES] [LANG...]`

#[path = "support/sources.rs"]
mod sources;

use std::path::Path;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: index_passes DIR [PASSES] [LANG...]");
        std::process::exit(2);
    };
    let passes: usize = args.next().and_then(|p| p.parse().ok()).unwrap_or(3);
    let only: Vec<String> = args.collect();
    let files: Vec<_> = sources::sources(Path::new(&root), &only).collect();
    let (mut index, mut outline, mut parse) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..passes.max(1) {
        let t = Instant::now();
        for (path, bytes, _) in &files {
            std::hint::black_box(ultra_index::index_file(path, bytes));
        }
        index = index.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for (path, bytes, _) in &files {
            std::hint::black_box(ultra_index::passes::index_outline(path, bytes));
        }
        outline = outline.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for (_, bytes, lang) in &files {
            std::hint::black_box(ultra_index::passes::parse(*lang, bytes, None));
        }
        parse = parse.min(t.elapsed().as_secs_f64());
    }
    // Linking ultra-budget gives this the allocator `ultra` has.
    println!(
        "{} files, {}: index {index:.3} s, parse {parse:.3} s, extra {:.3} s ({:.0}%); \
         outline index {outline:.3} s ({:.0}% of the parse)",
        files.len(),
        ultra_budget::allocator(),
        index - parse,
        (index - parse) / parse * 100.0,
        outline / parse * 100.0
    );
}
