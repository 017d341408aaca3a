//! Every record `index_file` makes under a directory, one JSON line per file (with its
//! names and a digest of its occurrences, which the JSON leaves out): run it on two builds
//! and compare the outputs to show a change to the extractors or the scan changed nothing.
//! `cargo run --release -p ultra-index --example dump_records -- DIR [LANG...] > out.jsonl`

#[path = "support/sources.rs"]
mod sources;

use std::io::Write;
use std::path::Path;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: dump_records DIR [LANG...]");
        std::process::exit(2);
    };
    let only: Vec<String> = args.collect();
    let root = Path::new(&root);
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for (path, bytes, _) in sources::sources(root, &only) {
        let r = ultra_index::index_file(&path, &bytes);
        serde_json::to_writer(&mut out, &r)?;
        let names: Vec<&str> = r.names.iter().collect();
        let mut digest: u64 = 0;
        for o in r.occurrences.iter() {
            let one = u64::from(o.name) * 7919
                + u64::from(o.line) * 31
                + u64::from(o.column) * 2
                + u64::from(o.is_definition);
            digest = digest.wrapping_mul(1_000_003).wrapping_add(one);
        }
        writeln!(out, " {} {} {digest}", names.join(","), r.occurrences.len())?;
    }
    out.flush()
}
