//! The parse floor: the files `ultra index` would index under a directory, read and parsed
//! with tree-sitter on N threads and nothing else (no symbols, no store), with the
//! allocator `ultra` has. A cold index cannot be faster than this; `bench/index_scale.py` prints the two side by side.
//!
//! `cargo run --release -p ultra-index --example parse_floor -- DIR [THREADS]` prints one
//! JSON line: seconds, files, bytes, and per language the files whose tree has an error
//! node, the bytes in error nodes at the top level (where whole declarations are lost),
//! and the five files with most of those, to see what the grammars cannot parse.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ultra_index::Lang;
use ultra_index::build::{Exclude, MAX_FILE_BYTES, schedule, walk};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: parse_floor DIR [THREADS]");
        std::process::exit(2);
    };
    let threads: usize = args
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let root = std::path::Path::new(&dir);
    // The default `index.exclude` (ultra-core's config).
    let exclude: Vec<String> = ["/target/", "/build/", "/dist/", "/coverage/"]
        .map(String::from)
        .to_vec();
    let mut files: Vec<_> = walk(root, &Exclude::new(root, &exclude), &|_| true)
        .into_iter()
        .filter(|f| f.len <= MAX_FILE_BYTES && Lang::of_path(&f.path).is_some())
        .collect();
    // In the order `ultra index` takes them (biggest first), so the floor is as well
    // scheduled as the index.
    schedule(&mut files, &[]);
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let bytes = AtomicUsize::new(0);
    let errors: Mutex<BTreeMap<&'static str, Vec<(usize, String)>>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(f) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let (Ok(content), Some(lang)) = (std::fs::read(&f.abs), Lang::of_path(&f.path))
                    else {
                        continue;
                    };
                    bytes.fetch_add(content.len(), Ordering::Relaxed);
                    if let Some(tree) = ultra_index::passes::parse(lang, &content, None)
                        && tree.root_node().has_error()
                    {
                        let root = tree.root_node();
                        let mut c = root.walk();
                        let lost: usize = root
                            .children(&mut c)
                            .filter(|n| n.is_error())
                            .map(|n| n.byte_range().len())
                            .sum();
                        let mut e = errors.lock().unwrap_or_else(|p| p.into_inner());
                        e.entry(lang.as_str())
                            .or_default()
                            .push((lost, f.path.clone()));
                    }
                }
            });
        }
    });
    let secs = started.elapsed().as_secs_f64();
    let errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    let per_lang: serde_json::Map<String, serde_json::Value> = errors
        .into_iter()
        .map(|(lang, mut paths)| {
            paths.sort_by(|a, b| b.cmp(a));
            let n = paths.len();
            let lost: usize = paths.iter().map(|(l, _)| l).sum();
            paths.truncate(5);
            let worst: Vec<String> = paths.iter().map(|(l, p)| format!("{p} ({l} B)")).collect();
            (
                lang.to_string(),
                serde_json::json!({ "files": n, "topLevelErrorBytes": lost, "worst": worst }),
            )
        })
        .collect();
    println!(
        "{}",
        serde_json::json!({
            "seconds": secs,
            "threads": threads,
            // The same allocator as `ultra` (linking ultra-budget makes it the malloc).
            "allocator": ultra_budget::allocator(),
            "files": files.len(),
            "bytes": bytes.load(Ordering::Relaxed),
            "withErrors": per_lang,
        })
    );
}
