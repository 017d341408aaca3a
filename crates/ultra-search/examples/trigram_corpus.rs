//! What a trigram index of a real tree costs and buys, before it is wired in (issue 23):
//! build time, postings and their size, and for a few queries the candidates it selects
//! and the time to verify them against a search of every file (both in memory, so the
//! disk is out of it). The walk is the search's: gitignore-aware, hidden files left out;
//! binary files (a NUL in the first 8 KiB) and files over 4 MiB are skipped.
//! `cargo run --release -p ultra-search --example trigram_corpus -- DIR`

use std::time::Instant;

use ultra_search::trigram::{Query, TrigramIndex};

fn main() {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: trigram_corpus DIR");
        std::process::exit(2);
    };
    let t = Instant::now();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in ignore::WalkBuilder::new(&root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        if bytes.len() > 4 << 20 || bytes[..bytes.len().min(8192)].contains(&0) {
            continue;
        }
        files.push((entry.path().to_string_lossy().into_owned(), bytes));
    }
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    println!(
        "{} text files, {:.1} MB, read in {:.2?}",
        files.len(),
        bytes as f64 / 1e6,
        t.elapsed()
    );

    let t = Instant::now();
    let all: Vec<Vec<u32>> = files
        .iter()
        .map(|(_, text)| ultra_search::trigram::grams(text))
        .collect();
    let taking = t.elapsed();
    let t = Instant::now();
    let mut idx = TrigramIndex::new();
    for ((path, _), grams) in files.iter().zip(&all) {
        idx.upsert_grams(path, grams);
    }
    let inserting = t.elapsed();
    let t = Instant::now();
    idx.freeze();
    let freezing = t.elapsed();
    let build = taking + inserting + freezing;
    println!(
        "trigrams taken in {taking:.2?}, inserted in {inserting:.2?}, frozen in {freezing:.2?}"
    );
    let (grams, postings, encoded) = idx.stats();
    println!(
        "built in {build:.2?} (one thread): {grams} distinct trigrams, {postings} postings \
         in {:.1} MB ({:.0}% of the text; {:.1} MB as u32)",
        encoded as f64 / 1e6,
        encoded as f64 / bytes as f64 * 100.0,
        postings as f64 * 4.0 / 1e6,
    );

    let queries: [(&str, bool, bool); 6] = [
        ("spawn_blocking", false, false),
        ("clone", false, false),
        ("Django", false, true),
        (r"fn \w+_test\(", true, false),
        (r"impl\s+Drop\s+for", true, false),
        (r"\w+Error", true, false),
    ];
    let by_path: std::collections::HashMap<&str, &[u8]> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    println!("| query | candidates | files matching | index + verify | scan all |");
    println!("|---|---|---|---|---|");
    for (q, is_regex, ci) in queries {
        let pattern = if is_regex {
            q.to_string()
        } else {
            regex::escape(q)
        };
        let re = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(ci)
            .build()
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        let t = Instant::now();
        let plan = Query::regex(&pattern, ci).unwrap_or(Query::All);
        let cands = idx.candidates(&plan);
        let hits = match &cands {
            Some(c) => c.iter().filter(|p| re.is_match(by_path[*p])).count(),
            None => files.iter().filter(|f| re.is_match(&f.1)).count(),
        };
        let indexed = t.elapsed();
        let t = Instant::now();
        let scanned = files.iter().filter(|f| re.is_match(&f.1)).count();
        let scan = t.elapsed();
        assert_eq!(hits, scanned, "{q}");
        println!(
            "| `{q}`{} | {} | {hits} | {indexed:.2?} | {scan:.2?} |",
            if ci { " (i)" } else { "" },
            cands.map_or("all".to_string(), |c| c.len().to_string())
        );
    }
}
