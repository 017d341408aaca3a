//! Reindex latency after a one-line edit in a 5,000-line file (issue 5's benchmark):
//! `cargo run --release -p ultra-index --example reindex_latency [FILE]`.
//!
//! Without FILE, a Rust file of 1,000 documented functions (5,000 lines) is generated and
//! two kinds of one-line edit are timed, 300 each at seeded random places:
//! - `body`: a digit typed into a number in a function body (what typing mostly is);
//! - `signature`: a digit typed into a parameter's name (the symbols change).
//!
//! With FILE, each edit indents a random line of the file by one space.
//!
//! Each kind is timed for a full reindex and for the incremental one open buffers get.
//! `REINDEX_ONLY=incremental` skips the full reindex and `REINDEX_KIND=body` (say) times
//! only that kind of edit (for profiling).

use std::time::Instant;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
    }
}

/// Where the `i`th edit goes in `text`, and what it inserts.
type Edit = fn(&str, &mut Rng) -> (usize, &'static str);

fn main() {
    let only_incremental = std::env::var("REINDEX_ONLY").is_ok_and(|v| v == "incremental");
    let cases: Vec<(String, String, &str, Edit)> = match std::env::args().nth(1) {
        Some(p) => {
            let t = std::fs::read_to_string(&p).unwrap_or_default();
            vec![(p, t, "indent", indent_a_line)]
        }
        None => {
            let mut t = String::new();
            for i in 0..1000 {
                t.push_str(&format!(
                    "/// Doc {i}.\npub fn f{i}(a: u32, b: &str) -> u32 {{\n    let x = a + {i};\n    if b.is_empty() {{ x }} else {{ x * 2 }}\n}}\n"
                ));
            }
            vec![
                ("gen.rs".into(), t.clone(), "body", type_in_a_body),
                ("gen.rs".into(), t, "signature", type_in_a_signature),
            ]
        }
    };
    let only_kind = std::env::var("REINDEX_KIND").ok();
    for (path, original, kind, edit) in cases {
        if only_kind.as_deref().is_some_and(|k| k != kind) {
            continue;
        }
        let lines = original.lines().count();
        for incremental in [false, true] {
            if only_incremental && !incremental {
                continue;
            }
            let mut text = original.clone();
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut times = Vec::new();
            let (_, mut state) =
                ultra_index::passes::index_incremental(&path, text.as_bytes(), None);
            for _ in 0..300 {
                let (at, typed) = edit(&text, &mut rng);
                text.insert_str(at, typed);
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
                "{path}: {lines} lines, {} KB, {kind} edits; {} reindex: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                text.len() / 1024,
                if incremental { "incremental" } else { "full" },
                p(0.5),
                p(0.99),
                p(1.0)
            );
        }
    }
}

/// Starts of lines containing `needle`, after it.
fn after_each(text: &str, needle: &str) -> Vec<usize> {
    text.match_indices(needle)
        .map(|(i, _)| i + needle.len())
        .collect()
}

fn type_in_a_body(text: &str, rng: &mut Rng) -> (usize, &'static str) {
    let spots = after_each(text, "let x = a + ");
    (spots[rng.below(spots.len())], "7")
}

fn type_in_a_signature(text: &str, rng: &mut Rng) -> (usize, &'static str) {
    let spots = after_each(text, "(a");
    (spots[rng.below(spots.len())], "7")
}

fn indent_a_line(text: &str, rng: &mut Rng) -> (usize, &'static str) {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts.retain(|&s| s < text.len());
    (starts[rng.below(starts.len())], " ")
}
