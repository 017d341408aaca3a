//! Reindex latency after a one-line edit in a 5,000-line file (issue 5's benchmark):
//! `cargo run --release -p ultra-index --example reindex_latency [FILE]`. Without FILE a
//! Rust file of 5,000 lines is generated. Prints p50 / p99 / max over 300 edits, for a
//! full reindex and for the incremental one open buffers get (the previous tree reused).

use std::time::Instant;

fn main() {
    let (path, mut text) = match std::env::args().nth(1) {
        Some(p) => {
            let t = std::fs::read_to_string(&p).unwrap_or_default();
            (p, t)
        }
        None => {
            let mut t = String::new();
            for i in 0..1000 {
                t.push_str(&format!(
                    "/// Doc {i}.\npub fn f{i}(a: u32, b: &str) -> u32 {{\n    let x = a + {i};\n    if b.is_empty() {{ x }} else {{ x * 2 }}\n}}\n"
                ));
            }
            ("gen.rs".to_string(), t)
        }
    };
    let lines = text.lines().count();
    // `REINDEX_ONLY=incremental` skips the full-reparse pass (for profiling).
    let only_incremental = std::env::var("REINDEX_ONLY").is_ok_and(|v| v == "incremental");
    for incremental in [false, true] {
        if only_incremental && !incremental {
            continue;
        }
        let mut times = Vec::new();
        let (_, mut state) = ultra_index::passes::index_incremental(&path, text.as_bytes(), None);
        for i in 0..300 {
            // One line changes: a digit typed in the middle of the file.
            let at = text.len() / 2;
            let at = (0..=at)
                .rev()
                .find(|&j| text.is_char_boundary(j))
                .unwrap_or(0);
            text.insert_str(at, &format!("{}", i % 10));
            let t = Instant::now();
            let old = if incremental { state.take() } else { None };
            let (record, next) =
                ultra_index::passes::index_incremental(&path, text.as_bytes(), old);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(record);
            state = next;
        }
        times.sort_by(f64::total_cmp);
        let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "{path}: {lines} lines, {} KB; {} reindex after a one-line edit: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            text.len() / 1024,
            if incremental { "incremental" } else { "full" },
            p(0.5),
            p(0.99),
            p(1.0)
        );
    }
}
