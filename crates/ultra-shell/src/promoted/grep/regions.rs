//! One large file searched on every core. The file is split at line ends into a region per
//! thread, each read with `pread` by its own searcher. Counts and yes/no answers (`-c`,
//! `-l`, `-L`, `-q`) add up across regions. Printed lines come out in file order: the first
//! region prints as it is searched, the others hand their lines over in batches (a few MiB
//! at most waiting per region), printed once the regions before them are done, numbered
//! from the start of the file. Context lines and `-m` keep a file on one thread.

use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::mpsc;

use grep_searcher::{Searcher, Sink, SinkMatch};

use super::print::Printer;
use super::search::{Cfg, HEAD, NulsEndLines};

/// Files shorter than this are searched on one thread (splitting would cost more).
pub(super) const MIN_LEN: u64 = 16 << 20;

/// Where a file is split, and whether it is binary (a NUL in its first block).
pub(super) struct Split {
    /// Region `k` is `bounds[k]..bounds[k + 1]`; each starts at a line start.
    bounds: Vec<u64>,
    pub(super) binary: bool,
}

/// Split `file` (`len` bytes) into up to `threads` regions. `None` when it cannot be split:
/// a UTF-16 byte-order mark makes the searcher transcode the whole file from its start.
pub(super) fn split(
    cfg: &Cfg<'_>,
    file: &std::fs::File,
    len: u64,
    threads: usize,
) -> std::io::Result<Option<Split>> {
    let mut head = vec![0; HEAD];
    let n = read_full_at(file, &mut head, 0)?;
    let head = &head[..n];
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        return Ok(None);
    }
    let binary = !cfg.a.text && memchr::memchr(0, head).is_some();
    let mut bounds = vec![0];
    for i in 1..threads as u64 {
        let at = next_line_start(file, len * i / threads as u64, len)?;
        if at > *bounds.last().unwrap_or(&0) && at < len {
            bounds.push(at);
        }
    }
    bounds.push(len);
    Ok(Some(Split { bounds, binary }))
}

/// How many lines of the file are selected; with `any`, each region stops at its first.
/// `first` searches the region at the start of the file; `rest`, which must not sniff for
/// a byte-order mark, the others.
pub(super) fn count(
    cfg: &Cfg<'_>,
    first: &Searcher,
    rest: &Searcher,
    file: &std::fs::File,
    split: &Split,
    any: bool,
) -> std::io::Result<u64> {
    let counts = std::thread::scope(|scope| {
        let handles: Vec<_> = split
            .bounds
            .windows(2)
            .map(|w| {
                let mut searcher = if w[0] == 0 {
                    first.clone()
                } else {
                    rest.clone()
                };
                let region = NulsEndLines {
                    inner: Region::new(file, w[0], w[1], false),
                    zap: split.binary,
                };
                scope.spawn(move || {
                    let mut sink = Counter { selected: 0, any };
                    searcher
                        .search_reader(&cfg.matcher, region, &mut sink)
                        .map(|()| sink.selected)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<std::io::Result<Vec<u64>>>()
    })?;
    Ok(counts.iter().sum())
}

/// Print the selected lines of a text file through `printer`, in file order. A write that
/// fails leaves `printer.broken` set and ends the search.
pub(super) fn print(
    cfg: &Cfg<'_>,
    first: &Searcher,
    rest: &Searcher,
    file: &std::fs::File,
    split: &Split,
    printer: &mut Printer<'_, '_>,
) -> std::io::Result<()> {
    std::thread::scope(|scope| {
        let mut later = Vec::new();
        for w in split.bounds.windows(2).skip(1) {
            let (tx, rx) = mpsc::sync_channel(BATCHES);
            let mut searcher = rest.clone();
            let mut region = Region::new(file, w[0], w[1], true);
            scope.spawn(move || {
                let mut sink = Collect {
                    batch: Batch::default(),
                    tx: tx.clone(),
                    start: w[0],
                };
                let searched = searcher.search_reader(&cfg.matcher, &mut region, &mut sink);
                let _ = tx.send(Handed::Lines(std::mem::take(&mut sink.batch)));
                let _ = tx.send(Handed::Done(searched.map(|()| region.newlines)));
            });
            later.push(rx);
        }
        let end = split.bounds.get(1).copied().unwrap_or(0);
        let mut region = Region::new(file, 0, end, true);
        if let Err(e) = first
            .clone()
            .search_reader(&cfg.matcher, &mut region, &mut *printer)
        {
            return if printer.broken { Ok(()) } else { Err(e) };
        }
        // Lines of later regions are numbered after every line before them.
        let mut lines_before = region.newlines;
        for rx in later {
            for handed in rx {
                match handed {
                    Handed::Lines(batch) => {
                        for (number, offset, at, to) in batch.lines {
                            let number = number.map(|n| n + lines_before);
                            if let Err(e) = printer.select(number, offset, &batch.bytes[at..to]) {
                                return if printer.broken { Ok(()) } else { Err(e) };
                            }
                        }
                    }
                    Handed::Done(Ok(newlines)) => lines_before += newlines,
                    Handed::Done(Err(e)) => return Err(e),
                }
            }
        }
        Ok(())
    })
}

/// Batches a region may have waiting for the printer.
const BATCHES: usize = 4;
/// A batch is handed over once its lines hold this many bytes.
const BATCH_BYTES: usize = 1 << 20;

/// Selected lines of a region: (line number within the region, byte offset in the file,
/// where the line's bytes are in `bytes`).
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    lines: Vec<(Option<u64>, u64, usize, usize)>,
}

enum Handed {
    Lines(Batch),
    /// The region is searched: how many newlines it holds, or why it could not be.
    Done(std::io::Result<u64>),
}

/// Collects a later region's selected lines into batches for the printer.
struct Collect {
    batch: Batch,
    tx: mpsc::SyncSender<Handed>,
    start: u64,
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        let at = self.batch.bytes.len();
        self.batch.bytes.extend_from_slice(m.bytes());
        let line = (m.line_number(), self.start + m.absolute_byte_offset());
        self.batch
            .lines
            .push((line.0, line.1, at, self.batch.bytes.len()));
        if self.batch.bytes.len() >= BATCH_BYTES {
            let full = std::mem::take(&mut self.batch);
            // The printer is gone (its output closed): stop.
            return Ok(self.tx.send(Handed::Lines(full)).is_ok());
        }
        Ok(true)
    }
}

/// Where the first line starting at or after `at` starts (`len` if none does).
fn next_line_start(file: &std::fs::File, mut at: u64, len: u64) -> std::io::Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    // The line containing byte `at - 1` ends at the first newline from there.
    at -= 1;
    let mut buf = vec![0; 64 * 1024];
    while at < len {
        let n = read_full_at(file, &mut buf, at)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(at + i as u64 + 1);
        }
        at += n as u64;
    }
    Ok(len)
}

fn read_full_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(got) => n += got,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Bytes `pos..end` of a file, read with `pread` (threads share the file, not an offset).
/// When `counting`, it counts the newlines it passes on (printing numbers the lines of a
/// region after those of the regions before it).
struct Region<'f> {
    file: &'f std::fs::File,
    pos: u64,
    end: u64,
    counting: bool,
    newlines: u64,
}

impl<'f> Region<'f> {
    fn new(file: &'f std::fs::File, pos: u64, end: u64, counting: bool) -> Self {
        Region {
            file,
            pos,
            end,
            counting,
            newlines: 0,
        }
    }
}

impl Read for Region<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.end - self.pos).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        if self.counting {
            self.newlines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        }
        Ok(n)
    }
}

/// Counts selected lines; with `any`, stops at the first.
struct Counter {
    selected: u64,
    any: bool,
}

impl Sink for Counter {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, _m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.selected += 1;
        Ok(!self.any)
    }
}
