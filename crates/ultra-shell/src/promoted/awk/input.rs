//! Record reading: a large reusable buffer filled from any reader and split into records by
//! RS (a single byte, paragraph mode for `RS=""`, or a regex as gawk allows).

use std::io::Read;

use super::re::Re as Regex;

/// How records are separated.
#[derive(Debug, Clone)]
pub enum RsMode {
    Byte(u8),
    Paragraph,
    Regex(Regex),
    /// `--csv`: a newline outside double quotes (a `\r` before it is dropped).
    Csv,
}

/// What ended the last record (gawk's `RT`).
#[derive(Debug, Default, Clone, Copy)]
enum Sep {
    #[default]
    None,
    Byte(u8),
    Newlines(usize),
    /// A regex match, as a range of the buffer (valid until the next read).
    Span(usize, usize),
}

/// Buffered record reader over some byte source.
#[derive(Debug, Default)]
pub struct Reader {
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    sep: Sep,
}

const CHUNK: usize = 64 * 1024;

impl Reader {
    /// The text that ended the record last read (gawk's `RT`): empty at the end of input.
    pub fn terminator(&self, out: &mut Vec<u8>) {
        out.clear();
        match self.sep {
            Sep::None => {}
            Sep::Byte(b) => out.push(b),
            Sep::Newlines(n) => out.resize(n, b'\n'),
            Sep::Span(a, z) => out.extend_from_slice(self.buf.get(a..z).unwrap_or_default()),
        }
    }

    fn refill(&mut self, src: &mut dyn Read) -> std::io::Result<()> {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let old = self.buf.len();
        let want = CHUNK.max(old);
        self.buf.resize(old + want, 0);
        loop {
            match src.read(&mut self.buf[old..]) {
                Ok(n) => {
                    self.buf.truncate(old + n);
                    if n == 0 {
                        self.eof = true;
                    }
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(old);
                    self.eof = true;
                    return Err(e);
                }
            }
        }
    }

    /// Read the next record into `out` (replacing its content); false at the end.
    pub fn next(
        &mut self,
        src: &mut dyn Read,
        rs: &RsMode,
        out: &mut Vec<u8>,
    ) -> std::io::Result<bool> {
        out.clear();
        self.sep = Sep::None;
        match rs {
            RsMode::Byte(b) => {
                let mut scanned = 0;
                loop {
                    let hay = &self.buf[self.pos + scanned..];
                    if let Some(i) = memchr::memchr(*b, hay) {
                        let end = self.pos + scanned + i;
                        out.extend_from_slice(&self.buf[self.pos..end]);
                        self.pos = end + 1;
                        self.sep = Sep::Byte(*b);
                        return Ok(true);
                    }
                    if self.eof {
                        if self.pos < self.buf.len() {
                            out.extend_from_slice(&self.buf[self.pos..]);
                            self.pos = self.buf.len();
                            return Ok(true);
                        }
                        return Ok(false);
                    }
                    scanned = self.buf.len() - self.pos;
                    self.refill(src)?;
                }
            }
            RsMode::Paragraph => {
                // Skip leading newlines.
                loop {
                    while self.pos < self.buf.len() && self.buf[self.pos] == b'\n' {
                        self.pos += 1;
                    }
                    if self.pos < self.buf.len() || self.eof {
                        break;
                    }
                    self.refill(src)?;
                }
                let mut scanned = 0;
                loop {
                    let hay = &self.buf[self.pos + scanned..];
                    if let Some(i) = memchr::memmem::find(hay, b"\n\n") {
                        let end = self.pos + scanned + i;
                        out.extend_from_slice(&self.buf[self.pos..end]);
                        // The separator is the whole run of newlines (RS may change
                        // before the next record).
                        self.pos = end;
                        let mut n = 0;
                        loop {
                            while self.pos < self.buf.len() && self.buf[self.pos] == b'\n' {
                                self.pos += 1;
                                n += 1;
                            }
                            if self.pos < self.buf.len() || self.eof {
                                break;
                            }
                            self.refill(src)?;
                        }
                        self.sep = Sep::Newlines(n);
                        return Ok(true);
                    }
                    if self.eof {
                        if self.pos < self.buf.len() {
                            let mut end = self.buf.len();
                            while end > self.pos && self.buf[end - 1] == b'\n' {
                                end -= 1;
                            }
                            self.sep = Sep::Newlines(self.buf.len() - end);
                            out.extend_from_slice(&self.buf[self.pos..end]);
                            self.pos = self.buf.len();
                            return Ok(true);
                        }
                        return Ok(false);
                    }
                    scanned = (self.buf.len() - self.pos).saturating_sub(1);
                    self.refill(src)?;
                }
            }
            RsMode::Csv => {
                // Quote state and how far the record was scanned survive a refill, so a
                // long quoted field is read once, not once per refill.
                let mut scanned = 0;
                let mut quoted = false;
                loop {
                    let hay = &self.buf[self.pos + scanned..];
                    let mut end = None;
                    for (k, &c) in hay.iter().enumerate() {
                        match c {
                            b'"' => quoted = !quoted,
                            b'\n' if !quoted => {
                                end = Some(self.pos + scanned + k);
                                break;
                            }
                            _ => {}
                        }
                    }
                    if let Some(end) = end {
                        let body = &self.buf[self.pos..end];
                        let body = body.strip_suffix(b"\r").unwrap_or(body);
                        out.extend_from_slice(body);
                        self.pos = end + 1;
                        self.sep = Sep::Byte(b'\n');
                        return Ok(true);
                    }
                    if self.eof {
                        if self.pos < self.buf.len() {
                            // An unclosed quote runs to the end; the last newline still
                            // ends the record.
                            let body = &self.buf[self.pos..];
                            let body = body.strip_suffix(b"\n").unwrap_or(body);
                            let body = body.strip_suffix(b"\r").unwrap_or(body);
                            out.extend_from_slice(body);
                            self.pos = self.buf.len();
                            return Ok(true);
                        }
                        return Ok(false);
                    }
                    scanned = self.buf.len() - self.pos;
                    self.refill(src)?;
                }
            }
            RsMode::Regex(re) => loop {
                let hay = &self.buf[self.pos..];
                let found = re.find_iter(hay).find(|m| m.0 != m.1);
                if let Some((ms, me)) = found
                    && (self.pos + me < self.buf.len() || self.eof)
                {
                    out.extend_from_slice(&hay[..ms]);
                    self.sep = Sep::Span(self.pos + ms, self.pos + me);
                    self.pos += me;
                    return Ok(true);
                }
                if self.eof {
                    if self.pos < self.buf.len() {
                        out.extend_from_slice(&self.buf[self.pos..]);
                        self.pos = self.buf.len();
                        return Ok(true);
                    }
                    return Ok(false);
                }
                self.refill(src)?;
            },
        }
    }
}

/// Splits a CSV record: fields separated by commas; a field that starts with `"` runs to
/// its closing `"`, with `""` standing for one quote and commas and newlines inside kept.
/// The field texts go to `text`, their ranges in it to `fields`. An empty record has none.
pub fn csv_fields(rec: &[u8], text: &mut Vec<u8>, fields: &mut Vec<(usize, usize)>) {
    if rec.is_empty() {
        return;
    }
    let mut i = 0;
    loop {
        let start = text.len();
        if rec.get(i) == Some(&b'"') {
            i += 1;
            while let Some(&c) = rec.get(i) {
                i += 1;
                if c == b'"' {
                    if rec.get(i) == Some(&b'"') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                text.push(c);
            }
        }
        // Plain text (or what follows a closing quote, kept as it is).
        let end = rec[i..]
            .iter()
            .position(|b| *b == b',')
            .map_or(rec.len(), |k| i + k);
        text.extend_from_slice(&rec[i..end]);
        fields.push((start, text.len()));
        if end == rec.len() {
            return;
        }
        i = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &str, rs: RsMode) -> Vec<String> {
        let mut r = Reader::default();
        let mut src = input.as_bytes();
        let mut out = Vec::new();
        let mut v = Vec::new();
        while r.next(&mut src, &rs, &mut out).unwrap_or(false) {
            v.push(String::from_utf8_lossy(&out).into_owned());
        }
        v
    }

    #[test]
    fn modes() {
        assert_eq!(all("a\nb\n\nc", RsMode::Byte(b'\n')), ["a", "b", "", "c"]);
        assert_eq!(all("\n\na\nb\n\n\nc\n\n", RsMode::Paragraph), ["a\nb", "c"]);
        assert_eq!(
            all("a,\"b\nc\"\r\nd\n\"e\"\"\nf\"", RsMode::Csv),
            ["a,\"b\nc\"", "d", "\"e\"\"\nf\""]
        );
        let re = super::super::re::compile(b"--+").ok();
        if let Some(re) = re {
            assert_eq!(all("a--b----c\n", RsMode::Regex(re)), ["a", "b", "c\n"]);
        }
    }
}
