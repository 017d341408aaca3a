//! Printing what a search selected, the way GNU grep does: names, numbers, byte offsets,
//! context separators and colours.

use std::io::Write;

use grep_matcher::Matcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use super::GrepArgs;
use super::fast::GrepMatcher;
use super::search::Output;

/// GNU grep's default colours (`GREP_COLORS` unset): matches, file names, numbers,
/// separators.
const MATCH: &str = "01;31";
const NAME: &str = "35";
const NUMBER: &str = "32";
const SEP: &str = "36";

/// Writes `text`, in `sgr` colour when `color` is on (as GNU grep writes it).
fn paint(out: &mut dyn Write, color: bool, sgr: &str, text: &[u8]) -> std::io::Result<()> {
    if color {
        write!(out, "\x1b[{sgr}m\x1b[K")?;
        out.write_all(text)?;
        out.write_all(b"\x1b[m\x1b[K")
    } else {
        out.write_all(text)
    }
}

/// The non-empty matches in `line`.
fn spans(matcher: &GrepMatcher, line: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let _ = matcher.find_iter(line, |mm| {
        if mm.start() < mm.end() {
            spans.push((mm.start(), mm.end()));
        }
        true
    });
    spans
}

/// Writes selected lines the way GNU grep does.
pub(super) struct Printer<'p, 'o> {
    pub(super) out: &'p mut (dyn Write + 'o),
    pub(super) label: &'p str,
    pub(super) names: bool,
    pub(super) matcher: &'p GrepMatcher,
    pub(super) a: &'p GrepArgs,
    pub(super) output: Output,
    pub(super) selected: u64,
    pub(super) printed_group: &'p mut bool,
    pub(super) group_open: bool,
    pub(super) broken: bool,
}

impl Printer<'_, '_> {
    fn context_on(&self) -> bool {
        self.a.after_context.or(self.a.context).unwrap_or(0) > 0
            || self.a.before_context.or(self.a.context).unwrap_or(0) > 0
    }

    /// A line's prefix: file name, line number and byte offset, as asked for.
    fn prefix(&mut self, sep: u8, number: Option<u64>, offset: u64) -> std::io::Result<()> {
        let color = self.a.color;
        if self.names {
            paint(self.out, color, NAME, self.label.as_bytes())?;
            paint(self.out, color, SEP, &[sep])?;
        }
        if let Some(n) = number {
            paint(self.out, color, NUMBER, n.to_string().as_bytes())?;
            paint(self.out, color, SEP, &[sep])?;
        }
        if self.a.byte_offset {
            paint(self.out, color, NUMBER, offset.to_string().as_bytes())?;
            paint(self.out, color, SEP, &[sep])?;
        }
        Ok(())
    }

    fn line(
        &mut self,
        sep: u8,
        number: Option<u64>,
        offset: u64,
        bytes: &[u8],
        matched: bool,
    ) -> std::io::Result<()> {
        self.prefix(sep, number, offset)?;
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        if self.a.color && matched && !self.a.invert_match {
            let mut at = 0;
            for (s, e) in spans(self.matcher, body) {
                self.out.write_all(&body[at..s])?;
                paint(self.out, true, MATCH, &body[s..e])?;
                at = e;
            }
            self.out.write_all(&body[at..])?;
        } else {
            self.out.write_all(body)?;
        }
        self.out.write_all(b"\n")
    }

    /// The first line printed from a file opens a group; with context on, groups are
    /// separated by `--` across files too. (Within a file the searcher reports breaks.)
    fn open(&mut self) -> std::io::Result<()> {
        if self.group_open {
            return Ok(());
        }
        self.group_open = true;
        if self.context_on() {
            if *self.printed_group {
                paint(self.out, self.a.color, SEP, b"--")?;
                self.out.write_all(b"\n")?;
            }
            *self.printed_group = true;
        }
        Ok(())
    }

    /// A selected line (number and offset as the user counts them); false when the
    /// search of this input should stop.
    pub(super) fn select(
        &mut self,
        number: Option<u64>,
        offset: u64,
        bytes: &[u8],
    ) -> Result<bool, std::io::Error> {
        self.selected += 1;
        match self.output {
            Output::Quiet | Output::FilesWith => return Ok(false),
            Output::FilesWithout | Output::Count => return Ok(true),
            Output::Lines => {}
        }
        self.open().map_err(|e| self.fail(e))?;
        if self.a.only_matching {
            if self.a.invert_match {
                return Ok(true);
            }
            // Without its terminator, so `$` matches at the line's end.
            let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
            for (s, e) in spans(self.matcher, body) {
                self.line(b':', number, offset + s as u64, &body[s..e], true)
                    .map_err(|e| self.fail(e))?;
            }
            return Ok(true);
        }
        self.line(b':', number, offset, bytes, true)
            .map_err(|e| self.fail(e))?;
        Ok(true)
    }

    fn fail(&mut self, e: std::io::Error) -> std::io::Error {
        self.broken = true;
        e
    }
}

impl Sink for Printer<'_, '_> {
    type Error = std::io::Error;

    fn begin(&mut self, _s: &Searcher) -> Result<bool, std::io::Error> {
        Ok(true)
    }

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.select(m.line_number(), m.absolute_byte_offset(), m.bytes())
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if self.output != Output::Lines || self.a.only_matching {
            return Ok(true);
        }
        self.open().map_err(|e| self.fail(e))?;
        self.line(
            b'-',
            c.line_number(),
            c.absolute_byte_offset(),
            c.bytes(),
            false,
        )
        .map_err(|e| self.fail(e))?;
        Ok(true)
    }

    fn context_break(&mut self, _s: &Searcher) -> Result<bool, std::io::Error> {
        if self.output == Output::Lines && !self.a.only_matching {
            paint(self.out, self.a.color, SEP, b"--")
                .and_then(|()| self.out.write_all(b"\n"))
                .map_err(|e| self.fail(e))?;
        }
        Ok(true)
    }
}
