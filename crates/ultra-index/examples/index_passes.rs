//! TEMP: index_file over preloaded files, several passes; prints the fastest pass.
use std::path::Path;
use std::time::Instant;
fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().expect("DIR");
    let passes: usize = args.next().and_then(|p| p.parse().ok()).unwrap_or(3);
    let only: Vec<String> = args.collect();
    let mut files = Vec::new();
    for found in ultra_index::build::walk(
        Path::new(&root),
        &ultra_index::build::Exclude::none(),
        &|_| true,
    ) {
        let Some(lang) = ultra_index::Lang::of_path(&found.path) else {
            continue;
        };
        if !only.is_empty() && !only.iter().any(|l| l == lang.as_str()) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&found.abs) else {
            continue;
        };
        if bytes.len() > ultra_index::passes::MAX_PARSE_BYTES {
            continue;
        }
        files.push((found.path, bytes, lang));
    }
    let mut best_index = f64::MAX;
    let mut best_parse = f64::MAX;
    for _ in 0..passes {
        let t = Instant::now();
        for (path, bytes, _) in &files {
            std::hint::black_box(ultra_index::index_file(path, bytes));
        }
        best_index = best_index.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for (_, bytes, lang) in &files {
            std::hint::black_box(ultra_index::passes::parse(*lang, bytes, None));
        }
        best_parse = best_parse.min(t.elapsed().as_secs_f64());
    }
    eprintln!("allocator: {}", ultra_budget::allocator());
    println!(
        "{} files: index {best_index:.3} s, parse {best_parse:.3} s, extra {:.3} s",
        files.len(),
        best_index - best_parse
    );
}
