//! Single-thread cost of each indexing phase over a directory: read, parse, and the whole
//! of `index_file` (parse, symbols, generic passes), to see what costs beyond parsing.
//!
//! `cargo run --release -p ultra-index --example phase_cost -- DIR`

use std::time::{Duration, Instant};

use ultra_index::Lang;
use ultra_index::build::{Exclude, walk};

fn main() {
    let dir = std::env::args().nth(1).expect("usage: phase_cost DIR");
    let root = std::path::Path::new(&dir);
    let files = walk(root, &Exclude::none(), &|_| true);
    let mut per_lang: std::collections::BTreeMap<&str, (Duration, Duration, usize)> =
        Default::default();
    let (mut parse, mut whole) = (Duration::ZERO, Duration::ZERO);
    for f in files.iter().filter(|f| f.len <= 4 << 20) {
        let Some(lang) = Lang::of_path(&f.path) else {
            continue;
        };
        let Ok(content) = std::fs::read(&f.abs) else {
            continue;
        };
        let t = Instant::now();
        let _tree = ultra_index::passes::parse(lang, &content, None);
        let p = t.elapsed();
        let t = Instant::now();
        let _rec = ultra_index::index_file(&f.path, &content);
        let w = t.elapsed();
        parse += p;
        whole += w;
        let e = per_lang.entry(lang.as_str()).or_default();
        e.0 += p;
        e.1 += w;
        e.2 += content.len();
    }
    for (l, (p, w, b)) in &per_lang {
        println!(
            "{l:>10}: {:>6.1} MB parse {:>6.2} s  index_file {:>6.2} s  extra {:>4.0}%",
            *b as f64 / 1e6,
            p.as_secs_f64(),
            w.as_secs_f64(),
            (w.as_secs_f64() / p.as_secs_f64() - 1.0) * 100.0
        );
    }
    println!(
        "all: parse {:.2} s, index_file {:.2} s",
        parse.as_secs_f64(),
        whole.as_secs_f64()
    );
}
