//! `ultra index`: index the workspace now, with a progress bar on a terminal (a line a second
//! when stderr is a pipe or a file), and print what was indexed and how fast. The index
//! persists, so later commands start warm.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use ultra_core::Config;

/// Index `root` (from scratch when `cold`).
pub fn run(root: &std::path::Path, cold: bool, json: bool) -> ExitCode {
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let exec = match ultra_commands::build(root, config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let tty = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut last = Instant::now();
    let mut parsed = ultra_index::build::Progress::default();
    let mut announced = false;
    let (code, state) = exec.services().index_now(cold, &mut |p| {
        parsed = p;
        if !tty {
            // A log gets lines, not carriage returns: how much there is at the start, then
            // where it stands every second.
            if !announced {
                announced = true;
                last = Instant::now();
                eprintln!("ultra index: {} files to index", p.total);
            } else if last.elapsed().as_secs() >= 1 && p.done < p.total {
                last = Instant::now();
                eprintln!(
                    "ultra index: {}/{} files ({}%), {:.1} MB, {:.0} s",
                    p.done,
                    p.total,
                    p.done * 100 / p.total.max(1),
                    p.bytes as f64 / 1e6,
                    start.elapsed().as_secs_f64()
                );
            }
        } else if last.elapsed().as_millis() >= 100 || p.done == p.total {
            last = Instant::now();
            let width = 30;
            let filled = (p.done * width).checked_div(p.total).unwrap_or(width);
            let _ = write!(
                std::io::stderr(),
                "\r[{}{}] {}/{} files, {:.1} MB",
                "#".repeat(filled),
                " ".repeat(width - filled),
                p.done,
                p.total,
                p.bytes as f64 / 1e6
            );
        }
    });
    if tty && parsed.total > 0 {
        eprintln!();
    }
    let secs = start.elapsed().as_secs_f64();
    let idx = code.read();
    let (mut symbols, mut refs, mut imports) = (0usize, 0usize, 0usize);
    for f in idx.files() {
        symbols += f.definitions.len();
        refs += f.occurrences.len();
        imports += f.imports.len();
    }
    let graph = idx.graph();
    let edges: usize = graph.deps.values().map(Vec::len).sum();
    drop(graph);
    drop(idx);
    let mb = parsed.bytes as f64 / 1e6;
    // Files this run read but could not index (too large, binary, unreadable) were counted
    // as done, not parsed.
    let parsed_now = parsed.done - parsed.skipped;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "files": state.files, "parsed": parsed_now, "skipped": state.skipped,
                "megabytes": mb, "seconds": secs, "definitions": symbols,
                "references": refs, "imports": imports, "dependencyEdges": edges,
            })
        );
    } else {
        println!(
            "indexed {} files ({} parsed now, {} skipped) in {:.2} s: {:.0} files/s, {:.1} MB/s",
            state.files,
            parsed_now,
            state.skipped,
            secs,
            parsed_now as f64 / secs.max(1e-9),
            mb / secs.max(1e-9)
        );
        println!(
            "{symbols} definitions, {refs} references, {imports} imports ({edges} resolved to workspace files)"
        );
    }
    code.forget_at_exit();
    ExitCode::SUCCESS
}
