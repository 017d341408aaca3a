//! Windows of lines from a file: as much as one answer holds, from a given line, with the
//! file's line count and hash. A read of a few lines of a 100 MB log used to read and hash
//! all of it, every call. For a big file that is not open, a line map (where every
//! [`STRIDE`]th line starts, the line count, the content hash) is kept instead, and trusted
//! while `stat` of the open file shows it unchanged: the test open buffers already follow
//! the disk by ([`DiskState::unchanged`]: inode, size, mtime, ctime, and a ctime not too
//! close to when the bytes were hashed). A page then costs a seek and what it shows.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use crate::buffer::DiskState;
use crate::{RelPath, WsError};

use super::Workspace;

/// One mark every this many lines.
const STRIDE: usize = 1024;
/// Files smaller than this are read whole each time: a map would save little.
pub const WINDOW_FROM_BYTES: u64 = 1 << 20;
/// Maps kept, most recent first.
const KEEP: usize = 8;

/// Text from the start of one line of a file, at most so many bytes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// From the start of the line asked for: whole lines (the last one without a newline
    /// only at the end of the file), or, when that first line alone is longer than the
    /// window, as much of its start as fits.
    pub text: String,
    /// The whole length of the first line (without its line ending), when `text` holds
    /// only its start.
    pub first_line_len: Option<u64>,
    /// Lines in the file, as people count them.
    pub total_lines: u32,
    /// The content hash of the whole file.
    pub hash: String,
}

/// Where the lines of one file start, and what the file was when they were counted.
#[derive(Debug, Clone)]
pub(crate) struct LineMap {
    /// `None` for a text that is no file's (see [`window_of`]).
    disk: Option<DiskState>,
    lines: u32,
    /// Byte offset of line `k * STRIDE` (0-based), for every such line.
    marks: Vec<u64>,
}

impl LineMap {
    fn of(bytes: &[u8], disk: Option<DiskState>) -> LineMap {
        let mut marks = vec![0];
        let mut newlines = 0usize;
        for i in memchr::memchr_iter(b'\n', bytes) {
            newlines += 1;
            if newlines.is_multiple_of(STRIDE) && i + 1 < bytes.len() {
                marks.push(i as u64 + 1);
            }
        }
        let unterminated = !bytes.is_empty() && !bytes.ends_with(b"\n");
        LineMap {
            disk,
            lines: (newlines + usize::from(unterminated)) as u32,
            marks,
        }
    }
}

/// The maps kept, most recent first, and how many files were read whole (for tests).
#[derive(Debug, Default)]
pub(crate) struct LineMaps(Vec<(RelPath, LineMap)>, u64);

impl LineMaps {
    /// The map of `rel`, if the file (as `meta` shows it now) is unchanged since.
    fn get(&mut self, rel: &RelPath, meta: &crate::root::Meta) -> Option<&LineMap> {
        let i = self.0.iter().position(|(p, _)| p == rel)?;
        if !self.0[i].1.disk.as_ref().is_some_and(|d| d.unchanged(meta)) {
            self.0.remove(i);
            return None;
        }
        let hit = self.0.remove(i);
        self.0.insert(0, hit);
        Some(&self.0[0].1)
    }

    fn put(&mut self, rel: RelPath, map: LineMap) {
        self.0.retain(|(p, _)| p != &rel);
        self.0.insert(0, (rel, map));
        self.0.truncate(KEEP);
    }
}

/// The window of `max_bytes` from line `start` (1-based) of `text`, as
/// [`Workspace::read_window`] gives it for a file holding `text`.
pub fn window_of(text: &str, start: u32, max_bytes: usize) -> Window {
    let map = LineMap::of(text.as_bytes(), None);
    let cursor = std::io::Cursor::new(text.as_bytes());
    read_window(cursor, &map, start, max_bytes).unwrap_or_else(|_| Window {
        text: String::new(),
        first_line_len: None,
        total_lines: map.lines,
        hash: String::new(),
    })
}

/// Read the window from `file` (the bytes `map` was made of).
fn read_window(
    file: impl Read + Seek,
    map: &LineMap,
    start: u32,
    max_bytes: usize,
) -> std::io::Result<Window> {
    let mut window = Window {
        text: String::new(),
        first_line_len: None,
        total_lines: map.lines,
        hash: map
            .disk
            .as_ref()
            .map(|d| d.hash.clone())
            .unwrap_or_default(),
    };
    let line = start.max(1) as usize - 1;
    if line >= map.lines as usize {
        return Ok(window);
    }
    let mut r = BufReader::with_capacity(64 << 10, file);
    r.seek(SeekFrom::Start(map.marks[line / STRIDE]))?;
    for _ in 0..line % STRIDE {
        skip_line(&mut r, None)?;
    }
    let max_bytes = max_bytes.max(1);
    let mut buf = Vec::with_capacity(max_bytes.min(1 << 20) + 1);
    (&mut r).take(max_bytes as u64 + 1).read_to_end(&mut buf)?;
    if buf.len() > max_bytes {
        match memchr::memrchr(b'\n', &buf[..max_bytes]) {
            // Whole lines only: the one the window cuts is the next window's.
            Some(i) => buf.truncate(i + 1),
            // The first line alone is longer than the window: its start, and its length
            // without its line ending (`\r\n` too, as `str::lines` has it).
            None => {
                let len = if buf[max_bytes] == b'\n' {
                    let crlf = buf[max_bytes - 1] == b'\r';
                    max_bytes as u64 - u64::from(crlf)
                } else {
                    let (rest, crlf) = skip_line(&mut r, Some(buf[max_bytes]))?;
                    buf.len() as u64 + rest - u64::from(crlf)
                };
                window.first_line_len = Some(len);
                buf.truncate((len as usize).min(max_bytes));
            }
        }
    }
    window.text = match String::from_utf8(buf) {
        Ok(t) => t,
        // A cut in the middle of a character: the window ends before it.
        Err(e) if e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).map_err(std::io::Error::other)?
        }
        Err(e) => return Err(std::io::Error::other(e)),
    };
    Ok(window)
}

/// Move past the rest of the current line and its newline: the bytes before the newline,
/// and whether the last of them (or `prev`, the byte before the first read) is a `\r`
/// that the newline follows.
fn skip_line(r: &mut impl BufRead, prev: Option<u8>) -> std::io::Result<(u64, bool)> {
    let mut n = 0;
    let mut last = prev;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok((n, false));
        }
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                let cr = if i > 0 {
                    chunk[i - 1] == b'\r'
                } else {
                    last == Some(b'\r')
                };
                r.consume(i + 1);
                return Ok((n + i as u64, cr));
            }
            None => {
                let l = chunk.len();
                last = chunk.last().copied();
                r.consume(l);
                n += l as u64;
            }
        }
    }
}

impl Workspace {
    /// Lines from `start` (1-based) of a file as it is now, at most `max_bytes` of them,
    /// with its line count and content hash: an open buffer's (first brought in step with
    /// the disk, as every read does), else the disk's. A file of [`WINDOW_FROM_BYTES`] or
    /// more that is not open keeps its line map, so the next window from it reads only
    /// itself. Refuses what [`Root::read`](crate::Root::read) refuses.
    pub fn read_window(
        &mut self,
        rel: &RelPath,
        start: u32,
        max_bytes: usize,
    ) -> Result<Window, WsError> {
        if self.buffers.contains_key(rel) {
            self.sync_disk(rel)?;
        }
        if let Some(buf) = self.buffers.get_mut(rel) {
            let hash = buf.hash();
            return Ok(Window {
                hash,
                ..window_of(&buf.rope.to_string(), start, max_bytes)
            });
        }
        let (file, meta) = self.root.open_file_meta(rel)?;
        let big = meta.len >= WINDOW_FROM_BYTES;
        if big
            && let Some(map) = self.line_maps.get(rel, &meta)
            && let Ok(w) = read_window(&file, map, start, max_bytes)
        {
            return Ok(w);
        }
        drop(file);
        let (text, disk) = self.read_disk_text(rel)?;
        self.line_maps.1 += 1;
        let map = LineMap::of(text.as_bytes(), Some(disk));
        let w = read_window(
            std::io::Cursor::new(text.as_bytes()),
            &map,
            start,
            max_bytes,
        )
        .map_err(|e| WsError::io("read", rel.as_str(), e))?;
        if big {
            self.line_maps.put(rel.clone(), map);
        }
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::window_of;

    /// The oracle: the same window cut from the whole text with `str` operations.
    fn expected(text: &str, start: u32, max: usize) -> (String, Option<u64>) {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let from = start.max(1) as usize - 1;
        if from >= lines.len() {
            return (String::new(), None);
        }
        let rest: String = lines[from..].concat();
        if rest.len() <= max {
            return (rest, None);
        }
        let mut out = String::new();
        for l in &lines[from..] {
            if out.len() + l.len() > max {
                break;
            }
            out.push_str(l);
        }
        if !out.is_empty() {
            return (out, None);
        }
        let first = lines[from];
        let bare = first.strip_suffix('\n').unwrap_or(first);
        let bare_len = bare
            .strip_suffix('\r')
            .filter(|_| first.ends_with('\n'))
            .unwrap_or(bare)
            .len();
        let mut cut = max.min(bare_len);
        while !first.is_char_boundary(cut) {
            cut -= 1;
        }
        (first[..cut].to_string(), Some(bare_len as u64))
    }

    /// A model of the disk against `read_window` on a real file: rewritten in place (same
    /// inode, sometimes the same size with its mtime put back), replaced, grown, shrunk
    /// below the size maps are kept for; read at random lines right after each write and
    /// again once the write is old enough for `stat` to be trusted. Every window is the
    /// one cut from what the file holds then, with its hash, and the reads after the pause
    /// but the first come from the kept map rather than a read of the whole file.
    #[test]
    fn windows_follow_every_write() {
        use crate::workspace::{Workspace, WorkspaceOptions};
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
        let rel = ws.root().lexical("big.log").unwrap();
        let path = dir.path().join("big.log");
        let mut seed = 0x2545_f491_u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n.max(1)
        };
        let (mut reads, mut full, mut content) = (0u64, 0u64, String::new());
        for step in 0..18 {
            let width = 20 + next(60) as usize;
            let lines = 2 * (super::WINDOW_FROM_BYTES as usize / width) + next(3000) as usize;
            let mut text: String = (0..lines)
                .map(|i| {
                    format!(
                        "{step:02} {i:07} {}\n",
                        "x".repeat(next(width as u64) as usize)
                    )
                })
                .collect();
            match step % 6 {
                // The same size, mtime put back: only ctime tells.
                1 if !content.is_empty() => {
                    text = content.replacen("x", "y", 1);
                    let old = std::fs::metadata(&path).unwrap().modified().unwrap();
                    std::fs::write(&path, &text).unwrap();
                    std::fs::File::options()
                        .write(true)
                        .open(&path)
                        .unwrap()
                        .set_modified(old)
                        .unwrap();
                }
                // Replaced by a new file (a new inode).
                2 => {
                    let tmp = dir.path().join("big.tmp");
                    std::fs::write(&tmp, &text).unwrap();
                    std::fs::rename(&tmp, &path).unwrap();
                }
                // Too small for a map: read whole, elsewhere.
                4 => {
                    text.truncate(text.len() / 4);
                    let cut = text.rfind('\n').map_or(0, |i| i + 1);
                    text.truncate(cut);
                    std::fs::write(&path, &text).unwrap();
                }
                _ => std::fs::write(&path, &text).unwrap(),
            }
            content = text;
            let total = content.lines().count() as u64;
            for round in 0..2 {
                if round == 1 {
                    std::thread::sleep(std::time::Duration::from_millis(130));
                }
                for _ in 0..4 {
                    let start = next(total + 3) as u32;
                    let max = 1 + next(9000) as usize;
                    let whole_before = ws.line_maps.1;
                    let got = ws.read_window(&rel, start, max).unwrap();
                    if (content.len() as u64) < super::WINDOW_FROM_BYTES {
                        assert!(
                            ws.line_maps.1 == whole_before + 1,
                            "step {step}: a small file was mapped"
                        );
                    } else {
                        reads += 1;
                        full += ws.line_maps.1 - whole_before;
                    }
                    let want = window_of(&content, start, max);
                    assert_eq!(
                        got.text, want.text,
                        "step {step}, line {start}, {max} bytes"
                    );
                    assert_eq!(got.first_line_len, want.first_line_len, "step {step}");
                    assert_eq!(got.total_lines, want.total_lines, "step {step}");
                    assert_eq!(
                        got.hash,
                        crate::text::hash_bytes(content.as_bytes()),
                        "step {step}"
                    );
                }
            }
        }
        // Right after a write every read is a whole one (its `stat` cannot be trusted
        // yet); after the pause, only the first: 5 of each step's 8.
        assert!(
            full * 4 < reads * 3,
            "{full} whole reads for {reads} windows"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Windows from every kind of line (long, empty, `\r\n`, several-byte characters,
        /// no final newline) and every start, including past the end and across a mark.
        #[test]
        fn windows_match_the_text(
            lines in proptest::collection::vec("[a-z€😀]{0,40}\r?", 0..2200),
            last_nl in any::<bool>(),
            start in 0u32..2300,
            max in 1usize..200,
        ) {
            let mut text = lines.join("\n");
            if last_nl && !text.is_empty() {
                text.push('\n');
            }
            let w = window_of(&text, start, max);
            let (want, len) = expected(&text, start, max);
            prop_assert_eq!(w.text, want);
            prop_assert_eq!(w.first_line_len, len);
            prop_assert_eq!(w.total_lines as usize, text.lines().count());
        }
    }
}
