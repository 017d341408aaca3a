//! One large file searched on every core, for the answers that add up across parts of a
//! file: a count or a yes/no (`-c`, `-l`, `-L`, `-q`). The file is split at line ends into
//! a region per thread; each is read with `pread` by its own searcher and the counts are
//! summed. (Printing lines stays on one thread: their order and numbers run through the
//! whole file.)

use std::io::Read;
use std::os::unix::fs::FileExt;

use grep_searcher::{Searcher, Sink, SinkMatch};

use super::search::{Cfg, HEAD, NulsEndLines, Output};

/// Files shorter than this are searched on one thread (splitting would cost more).
pub(super) const MIN_LEN: u64 = 16 << 20;

/// How many lines of `file` (`len` bytes long) are selected, and whether it is binary (a
/// NUL in its first block). `None` when the file cannot be split: a UTF-16 byte-order mark
/// makes the searcher transcode the whole file from its start.
/// `first` searches the region at the start of the file; `rest`, which must not sniff for
/// a byte-order mark, the others.
pub(super) fn count(
    cfg: &Cfg<'_>,
    first: &Searcher,
    rest: &Searcher,
    file: &std::fs::File,
    len: u64,
    threads: usize,
) -> std::io::Result<Option<(u64, bool)>> {
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
    // With `-l`/`-q` a region's first match is its answer.
    let any = matches!(cfg.output, Output::Quiet | Output::FilesWith);
    let counts = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                let mut searcher = if start == 0 {
                    first.clone()
                } else {
                    rest.clone()
                };
                scope.spawn(move || {
                    let reader = NulsEndLines {
                        inner: Region {
                            file,
                            pos: start,
                            end,
                        },
                        zap: binary,
                    };
                    let mut sink = Counter { selected: 0, any };
                    searcher
                        .search_reader(&cfg.matcher, reader, &mut sink)
                        .map(|()| sink.selected)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<std::io::Result<Vec<u64>>>()
    })?;
    Ok(Some((counts.iter().sum(), binary)))
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
struct Region<'f> {
    file: &'f std::fs::File,
    pos: u64,
    end: u64,
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
