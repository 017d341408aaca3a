//! Temporary: every record as JSON lines, to diff two builds.
use std::io::Write;
use std::path::Path;
fn main() {
    let root = std::env::args().nth(1).unwrap();
    let only: Vec<String> = std::env::args().skip(2).collect();
    let root = Path::new(&root);
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for found in ultra_index::build::walk(root, &ultra_index::build::Exclude::none(), &|_| true) {
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
        let r = ultra_index::index_file(&found.path, &bytes);
        serde_json::to_writer(&mut out, &r).unwrap();
        let names: Vec<&str> = r.names.iter().collect();
        let mut d: u64 = 0;
        for o in r.occurrences.iter() {
            d = d.wrapping_mul(1_000_003).wrapping_add(
                o.name as u64 * 7919
                    + o.line as u64 * 31
                    + o.column as u64 * 2
                    + o.is_definition as u64,
            );
        }
        write!(out, " {} {} {}", names.join(","), r.occurrences.len(), d).unwrap();
        writeln!(out).unwrap();
    }
}
