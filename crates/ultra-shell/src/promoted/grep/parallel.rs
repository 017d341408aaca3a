//! Searching a walk on every core, printing in walk order. The threads take turns dealing
//! themselves chunks of files from one walk and search a chunk into buffers; the calling
//! thread searches too, and prints the buffers in order between its own chunks. No thread
//! only waits: on two cores two threads run, not a walker, two searchers and a printer
//! (each hand-off between those was a sleep and a wake-up).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use grep_searcher::Searcher;
use ultra_workspace::{Root, WsError};

use super::search::{Cfg, Input, Searched, report, search_stream};
use super::walk::{Item, Walk};

/// Files taken from the walk at a time.
const CHUNK: usize = 64;
/// Chunks searched ahead of the one being printed, at most (so memory stays bounded).
const WINDOW: usize = 8;

/// What a walk's search found, for the caller's exit status and summary.
pub(super) struct Outcome {
    /// The output is gone, or `-q` has its answer.
    pub stopped: bool,
    /// A context group was printed (the next one starts with `--`).
    pub printed_group: bool,
    pub trouble: bool,
    pub any_selected: bool,
    /// Files skipped as hard-linked.
    pub hardlinked: usize,
}

/// What one file's search left to print.
struct Done {
    out: Vec<u8>,
    err: Vec<u8>,
    found: Searched,
    grouped: bool,
    hardlinked: bool,
}

/// What every searching thread shares.
struct Shared<'s, 'w> {
    cfg: &'s Cfg<'s>,
    root: &'s Root,
    no_messages: bool,
    /// The walk, and the number of the next chunk it deals.
    dealer: Mutex<(Walk<'w>, usize)>,
    stop: AtomicBool,
    /// Chunks printed so far.
    printed: AtomicUsize,
    gate: Mutex<()>,
    advanced: Condvar,
}

impl Shared<'_, '_> {
    fn deal(&self) -> Option<(usize, Vec<Item>)> {
        let mut d = self.dealer.lock().unwrap_or_else(|e| e.into_inner());
        let items: Vec<Item> = std::iter::from_fn(|| d.0.next()).take(CHUNK).collect();
        if items.is_empty() {
            return None;
        }
        d.1 += 1;
        Some((d.1 - 1, items))
    }

    /// Search a chunk's files into buffers, up to the first that says stop.
    fn search(&self, items: Vec<Item>, searcher: &mut Searcher, head: &mut Vec<u8>) -> Vec<Done> {
        let mut results = Vec::with_capacity(items.len());
        for item in items {
            let mut done = Done {
                out: Vec::new(),
                err: Vec::new(),
                found: Searched::default(),
                grouped: false,
                hardlinked: false,
            };
            match item {
                Item::Error(msg) => {
                    done.found.trouble = true;
                    if !self.no_messages {
                        let _ = writeln!(done.err, "{msg}");
                    }
                }
                Item::NoMatch { label } => {
                    done.found = report(
                        self.cfg,
                        &label,
                        0,
                        false,
                        false,
                        &mut done.out,
                        &mut done.err,
                    );
                }
                Item::File { dir, name, label } => match self.root.open_file_in(&dir, &name) {
                    Ok((f, meta)) => {
                        done.found = search_stream(
                            self.cfg,
                            searcher,
                            head,
                            &label,
                            Input::File(f, Some(meta.len)),
                            &mut done.out,
                            &mut done.err,
                            &mut done.grouped,
                            self.no_messages,
                        );
                    }
                    Err(WsError::HardLinked(_)) => done.hardlinked = true,
                    Err(e) => {
                        done.found.trouble = true;
                        if !self.no_messages {
                            let _ = writeln!(done.err, "grep: {label}: {e}");
                        }
                    }
                },
            }
            let quit = done.found.stop;
            results.push(done);
            if quit {
                break;
            }
        }
        results
    }

    /// A helper thread: deal, stay within the printer's window, search, hand over.
    fn work(&self, mut searcher: Searcher, done: mpsc::Sender<(usize, Vec<Done>)>) {
        let mut head = Vec::new();
        while !self.stop.load(Ordering::Relaxed) {
            let Some((c, items)) = self.deal() else {
                return;
            };
            if c >= self.printed.load(Ordering::Acquire) + WINDOW {
                let mut g = self.gate.lock().unwrap_or_else(|e| e.into_inner());
                while c >= self.printed.load(Ordering::Acquire) + WINDOW
                    && !self.stop.load(Ordering::Relaxed)
                {
                    g = self.advanced.wait(g).unwrap_or_else(|e| e.into_inner());
                }
            }
            let results = self.search(items, &mut searcher, &mut head);
            if done.send((c, results)).is_err() {
                return;
            }
        }
    }

    /// Tell threads waiting for the window that it moved (or that the search stopped).
    fn advance(&self, printed: usize) {
        self.printed.store(printed, Ordering::Release);
        let _g = self.gate.lock().unwrap_or_else(|e| e.into_inner());
        self.advanced.notify_all();
    }
}

/// Chunks' results, printed in walk order as they complete.
struct Collator<'o> {
    pending: BTreeMap<usize, Vec<Done>>,
    /// The next chunk to print.
    want: usize,
    outcome: Outcome,
    out: &'o mut dyn Write,
    err: &'o mut dyn Write,
}

impl Collator<'_> {
    /// Take chunk `c`'s results and print every chunk now next in order; true when the
    /// search should stop.
    fn add(&mut self, c: usize, results: Vec<Done>) -> bool {
        self.pending.insert(c, results);
        let o = &mut self.outcome;
        while let Some(results) = self.pending.remove(&self.want) {
            self.want += 1;
            for done in results {
                // A file whose lines open a context group follows an earlier one.
                if done.grouped && o.printed_group {
                    let _ = self.out.write_all(b"--\n");
                }
                o.printed_group |= done.grouped;
                let _ = self.err.write_all(&done.err);
                o.trouble |= done.found.trouble;
                o.any_selected |= done.found.selected > 0;
                o.hardlinked += usize::from(done.hardlinked);
                if self.out.write_all(&done.out).is_err() || done.found.stop {
                    o.stopped = true;
                    return true;
                }
            }
        }
        false
    }
}

/// Search every file of `walk` on `threads` threads (this one included) and print the
/// results in walk order.
#[allow(clippy::too_many_arguments)]
pub(super) fn search_walk(
    cfg: &Cfg<'_>,
    searcher: &Searcher,
    root: &Root,
    no_messages: bool,
    walk: Walk<'_>,
    threads: usize,
    printed_group: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Outcome {
    let shared = Shared {
        cfg,
        root,
        no_messages,
        dealer: Mutex::new((walk, 0)),
        stop: AtomicBool::new(false),
        printed: AtomicUsize::new(0),
        gate: Mutex::new(()),
        advanced: Condvar::new(),
    };
    let mut coll = Collator {
        pending: BTreeMap::new(),
        want: 0,
        outcome: Outcome {
            stopped: false,
            printed_group,
            trouble: false,
            any_selected: false,
            hardlinked: 0,
        },
        out,
        err,
    };
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            let (shared, done_tx, searcher) = (&shared, done_tx.clone(), searcher.clone());
            scope.spawn(move || shared.work(searcher, done_tx));
        }
        drop(done_tx);
        let (mut searcher, mut head) = (searcher.clone(), Vec::new());
        let mut stopped = false;
        // Search a chunk, then print what is ready; once the walk is dealt out, wait for
        // the chunks still being searched.
        while !stopped {
            let Some((c, items)) = shared.deal() else {
                break;
            };
            let results = shared.search(items, &mut searcher, &mut head);
            stopped = coll.add(c, results);
            while let (false, Ok((c, results))) = (stopped, done_rx.try_recv()) {
                stopped = coll.add(c, results);
            }
            shared.advance(coll.want);
        }
        if !stopped {
            for (c, results) in done_rx.iter() {
                stopped = coll.add(c, results);
                shared.advance(coll.want);
                if stopped {
                    break;
                }
            }
        }
        if stopped {
            shared.stop.store(true, Ordering::Relaxed);
            shared.advance(coll.want);
        }
        // Dropping the receiver ends helpers blocked on a send; the stop flag ends the
        // rest at their next chunk.
        drop(done_rx);
    });
    coll.outcome
}
