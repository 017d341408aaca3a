//! Where a cold index spends its time, on one thread: tree-sitter's parse alone against
//! the whole of [`ultra_index::index_file`], per language, and the slowest files.
//! `cargo run --release -p ultra-index --example parse_throughput DIR`

#[path = "support/sources.rs"]
mod sources;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let root = Path::new(&root);
    let mut slowest = Vec::new();
    // Per language: parse seconds, index seconds, bytes.
    let mut by_lang: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
    for (path, bytes, lang) in sources::sources(root, &[]) {
        let t = Instant::now();
        let tree = ultra_index::passes::parse(lang, &bytes, None);
        let parse = t.elapsed().as_secs_f64();
        drop(tree);
        let t = Instant::now();
        std::hint::black_box(ultra_index::index_file(&path, &bytes));
        let all = t.elapsed().as_secs_f64();
        let e = by_lang.entry(lang.as_str()).or_default();
        e.0 += parse;
        e.1 += all;
        e.2 += bytes.len();
        slowest.push((all, parse, bytes.len(), path));
    }
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Linking ultra-budget gives this the allocator `ultra` has.
    println!("allocator: {}", ultra_budget::allocator());
    println!("slowest files (index s, parse s, bytes):");
    for (all, parse, n, path) in slowest.iter().take(10) {
        println!("  {all:.3} {parse:.3} {n} {path}");
    }
    for (lang, (parse, all, bytes)) in by_lang {
        let mb = bytes as f64 / 1e6;
        println!(
            "{lang}: {mb:.1} MB; parse {parse:.2} s ({:.1} MB/s), index {all:.2} s ({:.1} MB/s)",
            mb / parse,
            mb / all
        );
    }
}
