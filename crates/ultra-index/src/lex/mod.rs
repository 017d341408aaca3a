//! A lexical scan of a file for the passes that need every token but no structure:
//! identifier occurrences, comments (for TODOs), lines of code, decision points and block
//! nesting. It reads the bytes once, as a tagger or a complexity tool such as lizard does,
//! instead of walking the parse tree: visiting every node of a tree costs about a third of
//! parsing it, and this scan costs a few percent.
//!
//! The scan is resumable at any row start from the [`State`] recorded there, so an edit is
//! scanned from its first row until the state at a row start is the old one again
//! (see `generic.rs`).

use crate::lang::Lang;

mod keywords;
mod strings;
#[cfg(test)]
mod tests;

/// What the scanner tells about the text, in source order.
pub(crate) trait Sink<'s> {
    /// An identifier (not a keyword) starting at `row`, `col` (bytes).
    fn ident(&mut self, name: &'s str, row: usize, col: usize);
    /// The part of a comment on one row: `from..to` in the text.
    fn comment(&mut self, row: usize, from: usize, to: usize);
    /// Something other than a comment or blank is on `row`.
    fn code(&mut self, row: usize);
    /// A decision point (branch, loop, case, catch, `&&`, `||`, ...) starts on `row`.
    fn decision(&mut self, row: usize);
    /// A block opens on `row` at nesting `depth` (1 for the outermost).
    fn block(&mut self, row: usize, depth: u32);
    /// Row `row` starts in `state`; `false` stops the scan there.
    fn row_start(&mut self, row: usize, state: &State) -> bool;
    /// Rust and C only: a bracket, `;` or `!` at byte `at` (on `row`, at byte column `col`), for
    /// the outline's body finder (`outline.rs`).
    fn punct(&mut self, _b: u8, _at: usize, _row: usize, _col: usize) {}
    /// Rust only: a keyword (not a member's name) at byte `at`.
    fn keyword(&mut self, _w: &'s [u8], _at: usize) {}
}

/// A string's kind: enough to find its end, and to resume inside it at a row start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Quote {
    /// `"`, `'` or `` ` ``.
    q: u8,
    /// `"""` / `'''`.
    triple: bool,
    /// Backslashes escape nothing (Rust `r"..."`, Python `r'...'`, Go's backquotes).
    raw: bool,
    /// `{`/`${` opens code (Python f-strings, JS template literals).
    interp: bool,
    /// May run over a newline (else the newline ends it, as recovery does).
    multiline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    #[default]
    Code,
    /// Inside a block comment, nested this deep (Rust nests them).
    Comment(u8),
    Str(Quote),
    /// Inside a C++ raw string; its delimiter is only known from its start, so a scan
    /// does not resume here (see [`State::resumable`]).
    CppRaw,
}

/// Most open indentation levels (Python) and interpolations kept; deeper ones are counted
/// in the depth but not returned to.
const STACK: usize = 12;
const INTERP: usize = 4;

/// Everything the scan knows at a row start: scanning from here with the same bytes
/// gives the same results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct State {
    mode: Mode,
    /// Rust raw string: its `#`s; C++ raw string: a hash of its delimiter.
    tag: u16,
    /// Open braces (Python: open indentation levels).
    depth: u16,
    /// Open brackets (Python: a line inside them continues the last).
    parens: u16,
    /// The line continues after a backslash (Python).
    cont: bool,
    /// A `/` here starts a regex (JavaScript).
    regex_ok: bool,
    /// The last token was `.` (or `->`, `::`): a keyword here is a member's name.
    after_dot: bool,
    /// Between `impl` and its `{` (Rust: `for` there is not a loop).
    in_impl: bool,
    /// Python: the indentation of each open level.
    indents: [u16; STACK],
    /// Open interpolations: the brace depth they close at, and the string they return to.
    interp: [(u16, Quote); INTERP],
    n_interp: u8,
}

impl State {
    /// Whether a scan can start at a row in this state.
    pub fn resumable(&self) -> bool {
        self.mode != Mode::CppRaw
    }
}

/// How a language's tokens look.
struct Syntax {
    slash_comments: bool,
    hash_comments: bool,
    nested_comments: bool,
    dollar_idents: bool,
    /// Rust: `r#"..."#`, `b'x'`, lifetimes, `=>` arms, `?`.
    rust: bool,
    /// Python: string prefixes, triple quotes, f-strings, indentation blocks, `and`/`or`.
    python: bool,
    /// JavaScript/TypeScript: template literals, regex literals, `?` and `??`.
    js: bool,
    /// C/C++: preprocessor lines, raw strings, `?:`.
    c: bool,
    /// Go: backquoted raw strings.
    go: bool,
    /// Java: text blocks, `?:` (not wildcards).
    java: bool,
    keyword: fn(&[u8]) -> Kw,
}

/// What a word is besides an identifier.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kw {
    Ident,
    Keyword,
    /// A keyword that is a decision point.
    Decision,
}

fn syntax(lang: Lang) -> Syntax {
    let base = Syntax {
        slash_comments: true,
        hash_comments: false,
        nested_comments: false,
        dollar_idents: false,
        rust: false,
        python: false,
        js: false,
        c: false,
        go: false,
        java: false,
        keyword: keywords::c,
    };
    use keywords as k;
    match lang {
        Lang::Rust => Syntax {
            nested_comments: true,
            rust: true,
            keyword: k::rust,
            ..base
        },
        Lang::Python => Syntax {
            slash_comments: false,
            hash_comments: true,
            python: true,
            keyword: k::python,
            ..base
        },
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => Syntax {
            dollar_idents: true,
            js: true,
            keyword: k::js,
            ..base
        },
        Lang::Go => Syntax {
            go: true,
            keyword: k::go,
            ..base
        },
        Lang::Java => Syntax {
            java: true,
            keyword: k::java,
            ..base
        },
        Lang::C | Lang::Cpp => Syntax { c: true, ..base },
    }
}

/// Scan `src` from byte `at`, the start of row `row`, in `state`, until its end or until
/// the sink stops it at a row start.
pub(crate) fn scan<'s>(
    lang: Lang,
    src: &'s [u8],
    at: usize,
    row: usize,
    state: State,
    sink: &mut impl Sink<'s>,
) {
    let mut s = Scanner {
        syn: syntax(lang),
        src,
        text: std::str::from_utf8(&src[at.min(src.len())..]).ok(),
        base: at,
        at,
        row,
        line: at,
        st: state,
        fresh: true,
        logical: true,
        cpp_delim: Vec::new(),
    };
    s.run(sink);
}

struct Scanner<'s> {
    syn: Syntax,
    src: &'s [u8],
    /// `src[base..]` as text when it is valid UTF-8 (nearly always): a name is then cut
    /// from it instead of being validated again.
    text: Option<&'s str>,
    base: usize,
    at: usize,
    row: usize,
    /// Where the current row starts.
    line: usize,
    st: State,
    /// No token yet on this row.
    fresh: bool,
    /// The row starts a logical line (Python: not inside brackets, not continued).
    logical: bool,
    cpp_delim: Vec<u8>,
}

/// Whether `b` continues a word (`$` aside): ASCII letters, digits, `_`, and any byte of
/// a multi-byte character.
pub(crate) fn ident_byte(b: u8) -> bool {
    WORD[usize::from(b)]
}

/// [`ident_byte`] in JavaScript and TypeScript, where `$` continues a word too.
pub(crate) fn ident_byte_js(b: u8) -> bool {
    WORD_JS[usize::from(b)]
}

/// Bytes that continue a word, as tables (a word is most of what the scan reads).
const WORD: [bool; 256] = word_table(false);
const WORD_JS: [bool; 256] = word_table(true);

const fn word_table(dollar: bool) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || (dollar && c == b'$');
        b += 1;
    }
    t
}

impl<'s> Scanner<'s> {
    fn peek(&self, k: usize) -> u8 {
        self.src.get(self.at + k).copied().unwrap_or(0)
    }

    fn run(&mut self, sink: &mut impl Sink<'s>) {
        self.begin_row(sink);
        while self.at < self.src.len() {
            match self.st.mode {
                Mode::Code => self.code(sink),
                Mode::Comment(_) => self.block_comment(sink),
                Mode::Str(q) => self.string(q),
                Mode::CppRaw => self.cpp_raw(),
            }
            if self.at < self.src.len() && self.src[self.at] == b'\n' && !self.newline(sink) {
                return;
            }
        }
    }

    /// Past the newline at `at`; `false` when the sink stops the scan.
    fn newline(&mut self, sink: &mut impl Sink<'s>) -> bool {
        self.at += 1;
        self.row += 1;
        self.line = self.at;
        if let Mode::Str(q) = self.st.mode
            && !q.multiline
            && !self.st.cont
        {
            // An unterminated one-line string ends at the newline.
            self.st.mode = Mode::Code;
        }
        if !sink.row_start(self.row, &self.st) {
            return false;
        }
        self.begin_row(sink);
        true
    }

    /// At a row start: whether it starts a logical line, and a row inside a string is
    /// code (an empty one too: it is inside a token).
    fn begin_row(&mut self, sink: &mut impl Sink<'s>) {
        self.fresh = true;
        self.logical = self.st.mode == Mode::Code && !self.st.cont && self.st.parens == 0;
        self.st.cont = false;
        if matches!(self.st.mode, Mode::Str(_) | Mode::CppRaw) && self.at < self.src.len() {
            sink.code(self.row);
        }
    }

    /// One token (or blank) in code; stops at a newline.
    fn code(&mut self, sink: &mut impl Sink<'s>) {
        let b = self.src[self.at];
        match b {
            b'\n' => {}
            b' ' | b'\t' | b'\r' | 0x0c => {
                self.at += 1;
                while self.at < self.src.len() && matches!(self.src[self.at], b' ' | b'\t') {
                    self.at += 1;
                }
            }
            b'/' if self.syn.slash_comments && self.peek(1) == b'/' => self.line_comment(sink),
            b'/' if self.syn.slash_comments && self.peek(1) == b'*' => {
                self.at += 2;
                self.st.mode = Mode::Comment(1);
                let from = self.at - 2;
                self.comment_rest(from, sink);
            }
            b'#' if self.syn.hash_comments => self.line_comment(sink),
            _ => {
                self.token(b, sink);
                self.fresh = false;
            }
        }
    }

    fn line_comment(&mut self, sink: &mut impl Sink<'s>) {
        let from = self.at;
        let end = memchr_nl(self.src, from);
        sink.comment(self.row, from, end);
        self.at = end;
    }

    fn block_comment(&mut self, sink: &mut impl Sink<'s>) {
        let from = self.at;
        self.comment_rest(from, sink);
    }

    /// Scan a block comment from `at` to its end or the row's end; `from` is where its
    /// part on this row starts.
    fn comment_rest(&mut self, from: usize, sink: &mut impl Sink<'s>) {
        let Mode::Comment(mut nest) = self.st.mode else {
            return;
        };
        while self.at < self.src.len() {
            match self.src[self.at] {
                b'\n' => break,
                b'*' if self.peek(1) == b'/' => {
                    self.at += 2;
                    nest -= 1;
                    if nest == 0 {
                        self.st.mode = Mode::Code;
                        sink.comment(self.row, from, self.at);
                        return;
                    }
                }
                b'/' if self.syn.nested_comments && self.peek(1) == b'*' => {
                    self.at += 2;
                    nest = nest.saturating_add(1);
                }
                _ => self.at += 1,
            }
        }
        self.st.mode = Mode::Comment(nest);
        sink.comment(self.row, from, self.at);
    }

    /// A token that is not blank or a comment, starting with `b`.
    fn token(&mut self, b: u8, sink: &mut impl Sink<'s>) {
        if self.fresh {
            sink.code(self.row);
        }
        if self.syn.python && self.fresh && self.logical {
            self.indent(sink);
        }
        let private = b == b'#' && self.syn.js && ident_byte(self.peek(1));
        if ident_byte(b) && !b.is_ascii_digit() || (b == b'$' && self.syn.dollar_idents) || private
        {
            self.word(sink);
            return;
        }
        self.st.after_dot = false;
        let regex_ok = std::mem::replace(&mut self.st.regex_ok, true);
        if (self.syn.rust || self.syn.c)
            && matches!(b, b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'!')
        {
            sink.punct(b, self.at, self.row, self.at - self.line);
        }
        match b {
            b'0'..=b'9' => {
                self.number();
                self.st.regex_ok = false;
            }
            b'"' | b'\'' | b'`' => self.quote(b, sink),
            b'.' => {
                self.at += 1;
                self.st.after_dot = !self.syn.rust || self.peek(0) != b'.';
            }
            b'-' if self.peek(1) == b'>' && self.syn.c => {
                self.at += 2;
                self.st.after_dot = true;
            }
            b':' if self.peek(1) == b':' => {
                self.at += 2;
                self.st.after_dot = !self.syn.rust && !self.syn.c;
            }
            b'{' => {
                self.at += 1;
                self.st.in_impl = false;
                if self.syn.python {
                    self.st.parens = self.st.parens.saturating_add(1);
                } else {
                    self.st.depth = self.st.depth.saturating_add(1);
                    sink.block(self.row, u32::from(self.st.depth));
                }
            }
            b'}' => {
                self.at += 1;
                self.close_brace();
            }
            b'(' | b'[' => {
                self.at += 1;
                if self.syn.python {
                    self.st.parens = self.st.parens.saturating_add(1);
                }
            }
            b')' | b']' => {
                self.at += 1;
                if self.syn.python {
                    self.st.parens = self.st.parens.saturating_sub(1);
                }
                self.st.regex_ok = false;
            }
            b';' => {
                self.at += 1;
                self.st.in_impl = false;
            }
            b'&' | b'|' if self.peek(1) == b && !self.syn.python => {
                self.at += 2;
                sink.decision(self.row);
            }
            b'=' if self.syn.rust && self.peek(1) == b'>' => {
                self.at += 2;
                sink.decision(self.row);
            }
            b'?' => self.question(sink),
            b'/' if self.syn.js && regex_ok => self.regex(),
            b'#' if self.syn.c && self.fresh => self.directive(),
            b'\\' if self.syn.python && self.peek(1) == b'\n' => {
                self.at += 1;
                self.st.cont = true;
            }
            b'!' if self.syn.python && self.st.n_interp > 0 => {
                // `{x!r}`: a conversion, not a name.
                self.at += 1;
                if matches!(self.peek(0), b'r' | b's' | b'a') && matches!(self.peek(1), b'}' | b':')
                {
                    self.at += 1;
                }
            }
            _ => self.at += 1,
        }
    }

    fn close_brace(&mut self) {
        let n = self.st.n_interp as usize;
        let depth_now = if self.syn.python {
            self.st.parens
        } else {
            self.st.depth
        };
        if n > 0 && n <= INTERP && self.st.interp[n - 1].0 + 1 == depth_now {
            let q = self.st.interp[n - 1].1;
            self.st.n_interp -= 1;
            self.st.interp[n - 1] = Default::default();
            if self.syn.python {
                self.st.parens -= 1;
            } else {
                self.st.depth -= 1;
            }
            self.st.mode = Mode::Str(q);
            return;
        }
        if self.syn.python {
            self.st.parens = self.st.parens.saturating_sub(1);
        } else {
            self.st.depth = self.st.depth.saturating_sub(1);
        }
    }

    /// Python: the first token of a logical line opens or closes indentation levels.
    fn indent(&mut self, sink: &mut impl Sink<'s>) {
        let mut width = 0u16;
        for &c in &self.src[self.line..self.at] {
            width = match c {
                b'\t' => (width / 8 + 1) * 8,
                _ => width.saturating_add(1),
            };
        }
        let mut n = self.st.depth as usize;
        while n > 0 && n <= STACK && self.st.indents[n - 1] > width {
            n -= 1;
            self.st.indents[n] = 0;
        }
        if n > STACK {
            // Deeper than kept: stay at the deepest level kept.
            n = STACK;
        }
        let top = if n == 0 { 0 } else { self.st.indents[n - 1] };
        if width > top {
            if n < STACK {
                self.st.indents[n] = width;
            }
            n += 1;
            sink.block(self.row, n as u32);
        }
        self.st.depth = n as u16;
    }

    fn number(&mut self) {
        let start = self.at;
        self.at += 1;
        while self.at < self.src.len() {
            let c = self.src[self.at];
            if ident_byte(c) {
                self.at += 1;
            } else if c == b'.' && self.peek(1).is_ascii_digit() {
                // `1.5` (Rust's `x.0.1` reads the same: a number either way).
                self.at += 1;
            } else if matches!(c, b'+' | b'-') && matches!(self.src[self.at - 1], b'e' | b'E') {
                // An exponent's sign, unless the number is hex (`0x1e+5` is a sum).
                let hex = self.src[start..self.at]
                    .iter()
                    .any(|&x| x == b'x' || x == b'X');
                if hex {
                    break;
                }
                self.at += 1;
            } else {
                break;
            }
        }
    }

    /// A word: an identifier, a keyword, or a string's prefix.
    fn word(&mut self, sink: &mut impl Sink<'s>) {
        let start = self.at;
        let mut end = start + 1;
        let table = if self.syn.dollar_idents {
            &WORD_JS
        } else {
            &WORD
        };
        while end < self.src.len() && table[usize::from(self.src[end])] {
            end += 1;
        }
        let w = &self.src[start..end];
        let next = self.src.get(end).copied().unwrap_or(0);
        if (next == b'"' || next == b'\'' || (next == b'#' && self.syn.rust))
            && self.string_prefix(w, next, end, sink)
        {
            return;
        }
        self.at = end;
        let after_dot = std::mem::replace(&mut self.st.after_dot, false);
        // No keyword is longer than 16 bytes, and only Python's and C's few (`None`,
        // `NULL`) start with a capital: most names skip the table.
        let kind = if w.len() > 16 || (w[0].is_ascii_uppercase() && !self.syn.python && !self.syn.c)
        {
            Kw::Ident
        } else {
            (self.syn.keyword)(w)
        };
        let keyword = kind != Kw::Ident && !(after_dot && !(self.syn.rust && w == b"await"));
        if !keyword {
            self.st.regex_ok = false;
            if self.syn.python
                && self.fresh
                && self.logical
                && (w == b"case" || w == b"match")
                && self.soft(end)
            {
                if w == b"case" {
                    sink.decision(self.row);
                }
                return;
            }
            let name = match self.text {
                Some(text) => text.get(start - self.base..end - self.base),
                None => std::str::from_utf8(w).ok(),
            };
            if let Some(name) = name {
                sink.ident(name, self.row, start - self.line);
            }
            return;
        }
        self.st.regex_ok = true;
        if self.syn.rust {
            sink.keyword(w, start);
            match w {
                b"impl" => self.st.in_impl = true,
                b"for" if self.st.in_impl || self.next_non_blank(end) == b'<' => return,
                _ => {}
            }
        }
        if kind == Kw::Decision {
            sink.decision(self.row);
        }
    }

    /// Python's `match`/`case` at a line's start are keywords when the line is a clause
    /// header (`case 1:`), not a use of a name (`match = 1`, `case.x`).
    fn soft(&self, end: usize) -> bool {
        let next = self.next_non_blank(end);
        !matches!(next, b'=' | b'.' | b',' | b')' | b':' | b'\n' | 0)
            && self.src[end..memchr_nl(self.src, end)].contains(&b':')
    }

    fn next_non_blank(&self, from: usize) -> u8 {
        self.src[from..]
            .iter()
            .copied()
            .find(|&c| c != b' ' && c != b'\t')
            .unwrap_or(0)
    }

    fn question(&mut self, sink: &mut impl Sink<'s>) {
        let next = self.peek(1);
        self.at += 1;
        if self.syn.rust || self.syn.c {
            sink.decision(self.row);
        } else if self.syn.js {
            match next {
                b'?' => {
                    self.at += 1;
                    if self.peek(0) == b'=' {
                        self.at += 1;
                    }
                    sink.decision(self.row);
                }
                b'.' if !self.peek(1).is_ascii_digit() => {
                    self.at += 1;
                    self.st.after_dot = true;
                }
                // TypeScript's optional marks: `x?: T`, `f(x?)`, `x?,`, `x? =`.
                b':' | b')' | b',' | b'=' => {}
                _ => sink.decision(self.row),
            }
        } else if self.syn.java {
            let after = self.next_non_blank(self.at);
            let wildcard = matches!(after, b'>' | b',')
                || self.src[self.at..]
                    .trim_ascii_start()
                    .starts_with(b"extends ")
                || self.src[self.at..]
                    .trim_ascii_start()
                    .starts_with(b"super ");
            if !wildcard {
                sink.decision(self.row);
            }
        }
    }

    /// A JavaScript regex literal from `/`; ends at the row's end at the latest.
    fn regex(&mut self) {
        self.at += 1;
        let mut class = false;
        while self.at < self.src.len() {
            match self.src[self.at] {
                b'\n' => return,
                b'\\' if self.peek(1) == b'\n' => {
                    self.at += 1;
                    return;
                }
                b'\\' => self.at += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => {
                    self.at += 1;
                    while self.at < self.src.len() && self.src[self.at].is_ascii_alphabetic() {
                        self.at += 1;
                    }
                    self.st.regex_ok = false;
                    return;
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    /// A C preprocessor line's `#` and directive name; `#include`'s path is skipped.
    fn directive(&mut self) {
        self.at += 1;
        while matches!(self.peek(0), b' ' | b'\t') {
            self.at += 1;
        }
        let start = self.at;
        while self.at < self.src.len() && self.src[self.at].is_ascii_alphabetic() {
            self.at += 1;
        }
        if matches!(
            &self.src[start..self.at],
            b"include" | b"import" | b"include_next"
        ) {
            let end = memchr_nl(self.src, self.at);
            // Stop before a comment on the line.
            let line = &self.src[self.at..end];
            let cut = line
                .windows(2)
                .position(|w| w == b"//" || w == b"/*")
                .map_or(end, |p| self.at + p);
            self.at = cut;
        }
    }
}

fn memchr_nl(src: &[u8], from: usize) -> usize {
    src[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(src.len(), |p| from + p)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}
