//! Where an index's memory goes: indexes every file under a directory as `ultra index`
//! does and prints the heap bytes each part of the records takes (estimated from lengths
//! and capacities), to decide what must be resident and what can stay in the store.
//!
//! `cargo run --release -p ultra-index --example index_memory -- DIR`

use std::collections::BTreeMap;
use std::mem::size_of;

use ultra_index::FileIndex;
use ultra_index::build::{Exclude, index_files, walk};

fn s(x: &str) -> usize {
    size_of::<String>() + x.len()
}

fn strings(v: &[String]) -> usize {
    v.iter().map(|x| s(x)).sum::<usize>()
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: index_memory DIR");
    let root = std::path::Path::new(&dir);
    let exclude: Vec<String> = ["/target/", "/build/", "/dist/", "/coverage/"]
        .map(String::from)
        .to_vec();
    let files = walk(root, &Exclude::new(root, &exclude), &|_| true);
    let mut parts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut add = |k: &'static str, bytes: usize, n: usize| {
        *parts.entry(k).or_default() += bytes;
        *counts.entry(k).or_default() += n;
    };
    let mut on_record = |f: FileIndex, _: &[u8]| {
        add(
            "header",
            size_of::<FileIndex>() + f.path.len() + f.hash.len(),
            1,
        );
        add(
            "names",
            f.names.heap_bytes() + size_of::<ultra_index::Names>(),
            f.names.len(),
        );
        add(
            "occurrences",
            f.occurrences.heap_bytes(),
            f.occurrences.len(),
        );
        add(
            "definitions",
            f.definitions
                .iter()
                .map(|d| {
                    size_of::<ultra_index::Definition>()
                        + d.name.len()
                        + d.container.as_ref().map_or(0, |c| c.len())
                })
                .sum(),
            f.definitions.len(),
        );
        add(
            "functions",
            f.functions
                .iter()
                .map(|x| {
                    size_of::<ultra_index::Function>()
                        + x.name.len()
                        + x.qualified.len()
                        + strings(&x.params)
                        + x.signature.len()
                        + x.doc.as_ref().map_or(0, |d| d.len())
                        + x.return_type.as_ref().map_or(0, |d| d.len())
                })
                .sum(),
            f.functions.len(),
        );
        add(
            "classes",
            f.classes
                .iter()
                .map(|c| {
                    size_of::<ultra_index::Class>()
                        + c.name.len()
                        + c.doc.as_ref().map_or(0, |d| d.len())
                        + c.methods
                            .iter()
                            .map(|m| 64 + m.name.len() + strings(&m.params))
                            .sum::<usize>()
                        + c.properties
                            .iter()
                            .map(|p| 32 + p.name.len())
                            .sum::<usize>()
                        + strings(&c.implements)
                })
                .sum(),
            f.classes.len(),
        );
        add(
            "imports",
            f.imports
                .iter()
                .map(|i| 80 + i.source.len() + strings(&i.names))
                .sum(),
            f.imports.len(),
        );
        add(
            "todos",
            f.todos
                .iter()
                .map(|t| 80 + t.text.len() + t.context.len() + t.kind.len())
                .sum(),
            f.todos.len(),
        );
        add(
            "errors",
            f.errors.iter().map(|e| 48 + e.message.len()).sum(),
            f.errors.len(),
        );
    };
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    index_files(files, &[], threads, &mut on_record, &mut |_| {});
    let total: usize = parts.values().sum();
    for (k, v) in &parts {
        println!(
            "{k:>12} {:>8.1} MiB {:>10} items",
            *v as f64 / 1048576.0,
            counts[k]
        );
    }
    println!("{:>12} {:>8.1} MiB", "total", total as f64 / 1048576.0);
}
