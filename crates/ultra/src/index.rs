//! `ultra index`: index the workspace now, with a progress bar on a terminal (a line a second
//! when stderr is a pipe or a file), and print what was indexed and how fast. The index
//! persists, so later commands start warm.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use ultra_core::Config;
use ultra_index::store::Totals;

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
    let start = Instant::now();
    if !cold && let Some((state, totals)) = exec.services().index_unchanged() {
        let summary = Summary {
            files: state.files,
            skipped: state.skipped,
            totals,
            parsed: 0,
            megabytes: 0.0,
            seconds: start.elapsed().as_secs_f64(),
        };
        summary.print(json);
        return ExitCode::SUCCESS;
    }
    let tty = std::io::stderr().is_terminal();
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
    let totals = code.totals();
    code.keep_totals(&totals);
    // Files this run read but could not index (too large, binary, unreadable) were counted
    // as done, not parsed.
    let summary = Summary {
        files: state.files,
        skipped: state.skipped,
        totals,
        parsed: parsed.done - parsed.skipped,
        megabytes: parsed.bytes as f64 / 1e6,
        seconds: start.elapsed().as_secs_f64(),
    };
    summary.print(json);
    code.forget_at_exit();
    ExitCode::SUCCESS
}

/// What `ultra index` reports.
struct Summary {
    files: usize,
    skipped: usize,
    totals: Totals,
    /// Files parsed by this run.
    parsed: usize,
    megabytes: f64,
    seconds: f64,
}

impl Summary {
    fn print(&self, json: bool) {
        let Summary {
            files,
            skipped,
            totals: t,
            parsed,
            megabytes: mb,
            seconds: secs,
        } = self;
        if json {
            println!(
                "{}",
                serde_json::json!({
                    "files": files, "parsed": parsed, "skipped": skipped,
                    "megabytes": mb, "seconds": secs, "definitions": t.definitions,
                    "references": t.references, "imports": t.imports,
                    "dependencyEdges": t.dependency_edges,
                })
            );
        } else {
            println!(
                "indexed {files} files ({parsed} parsed now, {skipped} skipped) in {secs:.2} s: {:.0} files/s, {:.1} MB/s",
                *parsed as f64 / secs.max(1e-9),
                mb / secs.max(1e-9)
            );
            println!(
                "{} definitions, {} references, {} imports ({} resolved to workspace files)",
                t.definitions, t.references, t.imports, t.dependency_edges
            );
        }
    }
}
