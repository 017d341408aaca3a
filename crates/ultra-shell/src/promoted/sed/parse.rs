//! sed script text → commands: addresses, the command letters with their arguments
//! (`s`, `y`, text for `a`/`i`/`c`, file names, labels), blocks and label resolution,
//! with GNU's error messages and character positions.

use regex::bytes::{Regex, RegexBuilder};

use crate::promoted::posix_re::{self, Flavor};

/// A parsed script.
#[derive(Debug, Default)]
pub struct Script {
    /// The commands in order; blocks and branches refer to indices.
    pub cmds: Vec<Cmd>,
    /// The script began with `#n` on a line of its own (like `-n`).
    pub quiet: bool,
    /// Distinct file names written by `w`, `W` and `s///w`, in order of appearance.
    pub wfiles: Vec<String>,
    /// Distinct file names read line by line by `R`.
    pub rfiles: Vec<String>,
}

impl Script {
    /// Whether any command writes a file.
    pub fn writes_files(&self) -> bool {
        self.wfiles
            .iter()
            .any(|f| f != "/dev/stdout" && f != "/dev/stderr")
    }
}

/// One address.
#[derive(Debug)]
pub enum Addr {
    /// Line N (0 only as the start of `0,/re/`).
    Line(u64),
    /// `$`.
    Last,
    /// `/re/`; `None` is the empty regex (the last one used).
    Re(Option<Regex>),
    /// `first~step`.
    Step(u64, u64),
    /// `addr1,+N` (second address only).
    Plus(u64),
    /// `addr1,~N` (second address only).
    Mult(u64),
}

/// A command with its addresses.
#[derive(Debug)]
pub struct Cmd {
    pub a1: Option<Addr>,
    pub a2: Option<Addr>,
    pub negate: bool,
    pub op: Op,
}

/// One piece of an `s` replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal bytes.
    Lit(Vec<u8>),
    /// `&` (0) or `\1`..`\9`.
    Group(usize),
    /// `\U`, `\L`, `\u`, `\l`, `\E`.
    Case(Case),
}

/// GNU case conversion in replacements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    End,
}

/// The `s` command.
#[derive(Debug)]
pub struct Subst {
    /// `None`: the empty regex (the last one used).
    pub re: Option<Regex>,
    pub repl: Vec<Part>,
    pub global: bool,
    /// Replace the Nth match (1 by default; with `g`, the Nth and later).
    pub nth: u64,
    pub print: bool,
    /// Index into [`Script::wfiles`].
    pub wfile: Option<usize>,
    /// The replacement refers to `\1`..`\9` (captures needed).
    pub groups: bool,
    /// The replacement uses case conversion.
    pub cases: bool,
}

/// What a command does.
#[derive(Debug)]
pub enum Op {
    /// `{`: the index of the matching `}`.
    Block(usize),
    EndBlock,
    Label,
    /// `b`: the target index (`None`: the end of the script).
    Branch(Option<usize>),
    /// `t`.
    BranchIfSub(Option<usize>),
    /// `T`.
    BranchIfNot(Option<usize>),
    Subst(Box<Subst>),
    Translate(Box<[u8; 256]>),
    Append(Vec<u8>),
    Insert(Vec<u8>),
    Change(Vec<u8>),
    Print,
    PrintFirst,
    Delete,
    DeleteFirst,
    Next,
    NextAppend,
    Get,
    GetAppend,
    Hold,
    HoldAppend,
    Exchange,
    LineNum,
    List(Option<usize>),
    Quit(i32),
    QuitSilent(i32),
    ReadFile(String),
    /// `R`: index into [`Script::rfiles`].
    ReadLine(usize),
    /// `w`: index into [`Script::wfiles`].
    Write(usize),
    WriteFirst(usize),
    Zap,
    FileName,
    Nop,
}

/// A script error at a byte offset of the joined script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Bytes consumed when the error was found (GNU's "char N").
    pub pos: usize,
    pub msg: String,
}

/// A script made of pieces (`-e` expressions or `-f` files), joined by newlines as GNU
/// joins them; errors name the piece.
pub struct Source<'a> {
    pub pieces: &'a [Piece],
}

/// One `-e` expression or `-f` file's text.
#[derive(Debug, Clone)]
pub struct Piece {
    pub text: String,
    /// `Some(name)` for a script file.
    pub file: Option<String>,
}

impl Piece {
    /// The text joined into the script: a file's without its last newline; an expression
    /// as given (its own newline matters: `i\` then a newline inserts an empty line).
    fn body(&self) -> &str {
        match self.file {
            Some(_) => self.text.strip_suffix('\n').unwrap_or(&self.text),
            None => &self.text,
        }
    }
}

impl Source<'_> {
    /// The joined text.
    pub fn joined(&self) -> String {
        let texts: Vec<&str> = self.pieces.iter().map(Piece::body).collect();
        texts.join("\n")
    }

    /// GNU's wording for where `pos` lies: `-e expression #2, char 3` or `file x line 2`.
    pub fn locate(&self, pos: usize) -> String {
        let mut start = 0;
        let mut expr = 0;
        for (i, p) in self.pieces.iter().enumerate() {
            let body = p.body();
            if p.file.is_none() {
                expr += 1;
            }
            let end = start + body.len();
            if pos <= end || i + 1 == self.pieces.len() {
                let local = pos.saturating_sub(start).min(body.len());
                return match &p.file {
                    Some(name) => {
                        let line = body.as_bytes()[..local.min(body.len())]
                            .iter()
                            .filter(|&&b| b == b'\n')
                            .count()
                            + 1;
                        format!("file {name} line {line}")
                    }
                    None => format!("-e expression #{expr}, char {local}"),
                };
            }
            start = end + 1;
        }
        format!("-e expression #1, char {pos}")
    }
}

/// Parse `text` (the joined script). `extended`: `-E`.
///
/// # Errors
/// The first problem, with its position.
pub fn parse(text: &str, extended: bool) -> Result<Script, ParseError> {
    parse_with(text, extended, false)
}

/// [`parse`] for `-z` (`null_data`): then the `M` flag's `^` and `$` match at NUL bytes,
/// the line separator of that mode, as in GNU sed.
///
/// # Errors
/// The first problem, with its position.
pub fn parse_with(text: &str, extended: bool, null_data: bool) -> Result<Script, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        ere: extended,
        null_data,
        script: Script::default(),
        blocks: Vec::new(),
        labels: Vec::new(),
        jumps: Vec::new(),
    };
    p.program()?;
    let Parser {
        mut script,
        blocks,
        labels,
        jumps,
        ..
    } = p;
    if !blocks.is_empty() {
        return Err(ParseError {
            pos: 0,
            msg: "unmatched `{'".into(),
        });
    }
    for (at, name) in jumps {
        let target = if name.is_empty() {
            None
        } else {
            match labels.iter().find(|(n, _)| *n == name) {
                Some((_, i)) => Some(*i),
                None => {
                    return Err(ParseError {
                        pos: usize::MAX,
                        msg: format!("can't find label for jump to `{name}'"),
                    });
                }
            }
        };
        match &mut script.cmds[at].op {
            Op::Branch(t) | Op::BranchIfSub(t) | Op::BranchIfNot(t) => *t = target,
            _ => {}
        }
    }
    Ok(script)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    ere: bool,
    /// `-z`: records end at NUL bytes.
    null_data: bool,
    script: Script,
    /// Indices of open `{`.
    blocks: Vec<usize>,
    labels: Vec<(String, usize)>,
    jumps: Vec<(usize, String)>,
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            pos: self.pos,
            msg: msg.into(),
        })
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.pos += 1;
        }
    }

    fn number(&mut self) -> Option<u64> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return None;
        }
        let digits = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("0");
        Some(digits.parse().unwrap_or(u64::MAX))
    }

    fn program(&mut self) -> Result<(), ParseError> {
        if self.s.starts_with(b"#n") && matches!(self.s.get(2), None | Some(b'\n')) {
            self.script.quiet = true;
        }
        loop {
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_whitespace() || c == b';')
            {
                self.pos += 1;
            }
            let Some(c) = self.peek() else {
                return Ok(());
            };
            if c == b'#' {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.pos += 1;
                }
                continue;
            }
            self.command()?;
        }
    }

    fn address(&mut self, second: bool) -> Result<Option<Addr>, ParseError> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let addr = match c {
            b'/' | b'\\' => {
                self.pos += 1;
                let delim = if c == b'\\' {
                    match self.next() {
                        Some(b'\n') | None => return self.err("unexpected `,'"),
                        Some(d) => d,
                    }
                } else {
                    b'/'
                };
                let Some(pat) = self.delimited(delim, true) else {
                    return self.err("unterminated address regex");
                };
                let (mut icase, mut multi) = (false, false);
                loop {
                    match self.peek() {
                        Some(b'I') => icase = true,
                        Some(b'M') => multi = true,
                        _ => break,
                    }
                    self.pos += 1;
                }
                Addr::Re(self.regex(&pat, icase, multi)?)
            }
            b'0'..=b'9' => {
                let n = self.number().unwrap_or(0);
                if self.peek() == Some(b'~') && !second {
                    self.pos += 1;
                    let step = self.number().unwrap_or(0);
                    Addr::Step(n, step)
                } else {
                    Addr::Line(n)
                }
            }
            b'$' => {
                self.pos += 1;
                Addr::Last
            }
            b'+' | b'~' if second => {
                self.pos += 1;
                let Some(n) = self.number() else {
                    return self.err("expected newer version of sed");
                };
                if c == b'+' {
                    Addr::Plus(n)
                } else {
                    Addr::Mult(n)
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(addr))
    }

    /// Read up to an unescaped `delim`, GNU's `match_slash`: `\delim` becomes `delim`, and
    /// in a regex `\n` becomes a newline; other escapes are kept for later. `None` when
    /// the text ends (or, in a regex, a bare newline comes) first.
    fn delimited(&mut self, delim: u8, regex: bool) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let c = self.next()?;
            if c == b'[' && regex {
                // A bracket expression is taken whole: the delimiter is an ordinary
                // character inside it (`s/[/]/x/`), as in GNU sed 4.9.
                if let Some(len) = self.bracket_len() {
                    out.push(b'[');
                    out.extend_from_slice(&self.s[self.pos..self.pos + len]);
                    self.pos += len;
                    continue;
                }
            }
            if c == delim {
                return Some(out);
            }
            if c == b'\n' && regex {
                return None;
            }
            if c == b'\\' {
                let e = self.next()?;
                if e == delim {
                    if !regex && e == b'&' {
                        out.push(b'\\');
                    }
                    out.push(e);
                } else if e == b'n' && regex {
                    out.push(b'\n');
                } else if e == b'\n' {
                    if !regex {
                        out.push(b'\\');
                    }
                    out.push(b'\n');
                } else {
                    out.push(b'\\');
                    out.push(e);
                }
                continue;
            }
            out.push(c);
        }
    }

    /// With `self.pos` just past a `[`: the length of the rest of the bracket expression
    /// through its `]` (a leading `^` and `]`, and `[:class:]`, `[=c=]`, `[.c.]` inside, are
    /// part of it); `None` when it does not close on this line.
    fn bracket_len(&self) -> Option<usize> {
        let b = &self.s[self.pos..];
        let mut i = 0;
        if b.first() == Some(&b'^') {
            i += 1;
        }
        if b.get(i) == Some(&b']') {
            i += 1;
        }
        while let Some(&c) = b.get(i) {
            match c {
                b'\n' => return None,
                b']' => return Some(i + 1),
                b'[' if matches!(b.get(i + 1), Some(b':' | b'=' | b'.')) => {
                    let kind = b[i + 1];
                    let close = b[i + 2..]
                        .windows(2)
                        .position(|w| w[0] == kind && w[1] == b']')?;
                    i += 2 + close + 2;
                }
                _ => i += 1,
            }
        }
        None
    }

    fn regex(&self, pat: &[u8], icase: bool, multi: bool) -> Result<Option<Regex>, ParseError> {
        if pat.is_empty() {
            return Ok(None);
        }
        compile_with(pat, self.ere, icase, multi, self.null_data)
            .map(Some)
            .map_err(|msg| ParseError { pos: self.pos, msg })
    }

    fn end_of_cmd(&mut self) -> Result<(), ParseError> {
        self.skip_blanks();
        match self.peek() {
            None | Some(b'}' | b'#') => Ok(()),
            Some(b'\n' | b';') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => {
                self.pos += 1;
                self.err("extra characters after command")
            }
        }
    }

    fn label(&mut self, branch: bool) -> String {
        self.skip_blanks();
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() || c == b';' || (branch && c == b'}') {
                break;
            }
            self.pos += 1;
        }
        let name = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        name
    }

    fn filename(&mut self) -> Result<String, ParseError> {
        self.skip_blanks();
        let start = self.pos;
        while self.peek().is_some_and(|c| c != b'\n') {
            self.pos += 1;
        }
        if start == self.pos {
            return self.err("missing filename in r/R/w/W commands");
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn wfile(&mut self, name: String) -> usize {
        match self.script.wfiles.iter().position(|f| *f == name) {
            Some(i) => i,
            None => {
                self.script.wfiles.push(name);
                self.script.wfiles.len() - 1
            }
        }
    }

    /// Text of `a`, `i`, `c` (GNU's `read_text`), escapes resolved, ending in a newline
    /// (empty for a bare `a\` at the end).
    fn text(&mut self) -> Result<Vec<u8>, ParseError> {
        self.skip_blanks();
        let Some(c) = self.next() else {
            return self.err("expected \\ after `a', `c' or `i'");
        };
        if c == b'\\' {
            match self.next() {
                None => return Ok(Vec::new()),
                Some(b'\n') => {}
                Some(_) => self.pos -= 1,
            }
        } else {
            self.pos -= 1;
        }
        let mut raw = Vec::new();
        while let Some(c) = self.next() {
            if c == b'\n' {
                break;
            }
            if c == b'\\' {
                match self.next() {
                    Some(e) => {
                        raw.push(b'\\');
                        raw.push(e);
                    }
                    None => break,
                }
                continue;
            }
            raw.push(c);
        }
        let mut out = unescape(&raw, false);
        out.push(b'\n');
        Ok(out)
    }

    fn command(&mut self) -> Result<(), ParseError> {
        let a1 = self.address(false)?;
        let mut a2 = None;
        if a1.is_some() {
            self.skip_blanks();
            if self.peek() == Some(b',') {
                self.pos += 1;
                self.skip_blanks();
                a2 = self.address(true)?;
                if a2.is_none() {
                    self.pos += 1;
                    return self.err("unexpected `,'");
                }
            }
        }
        self.skip_blanks();
        let mut negate = false;
        if self.peek() == Some(b'!') {
            self.pos += 1;
            negate = true;
            self.skip_blanks();
            if self.peek() == Some(b'!') {
                self.pos += 1;
                return self.err("multiple `!'s");
            }
        }
        let Some(c) = self.next() else {
            return self.err("missing command");
        };
        if matches!(a1, Some(Addr::Line(0))) && !matches!(a2, Some(Addr::Re(_))) {
            return self.err("invalid usage of line address 0");
        }
        let has_addr = a1.is_some();
        let one_addr_only = |p: &Self| -> Result<(), ParseError> {
            if a2.is_some() {
                return p.err("command only uses one address");
            }
            Ok(())
        };
        let index = self.script.cmds.len();
        let op = match c {
            b'{' => {
                self.blocks.push(index);
                Op::Block(usize::MAX)
            }
            b'}' => {
                if has_addr {
                    return self.err("unexpected `}'");
                }
                let Some(open) = self.blocks.pop() else {
                    return self.err("unexpected `}'");
                };
                self.script.cmds[open].op = Op::Block(index);
                self.end_of_cmd()?;
                Op::EndBlock
            }
            b':' => {
                if has_addr {
                    return self.err(": doesn't want any addresses");
                }
                let name = self.label(false);
                if name.is_empty() {
                    return self.err("\":\" lacks a label");
                }
                self.labels.push((name, index));
                Op::Label
            }
            b'b' | b't' | b'T' => {
                let name = self.label(true);
                self.jumps.push((index, name));
                match c {
                    b'b' => Op::Branch(None),
                    b't' => Op::BranchIfSub(None),
                    _ => Op::BranchIfNot(None),
                }
            }
            b'a' | b'i' | b'c' => {
                let t = self.text()?;
                match c {
                    b'a' => Op::Append(t),
                    b'i' => Op::Insert(t),
                    _ => Op::Change(t),
                }
            }
            b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'x'
            | b'z' | b'F' => {
                self.end_of_cmd()?;
                match c {
                    b'=' => Op::LineNum,
                    b'd' => Op::Delete,
                    b'D' => Op::DeleteFirst,
                    b'g' => Op::Get,
                    b'G' => Op::GetAppend,
                    b'h' => Op::Hold,
                    b'H' => Op::HoldAppend,
                    b'n' => Op::Next,
                    b'N' => Op::NextAppend,
                    b'p' => Op::Print,
                    b'P' => Op::PrintFirst,
                    b'x' => Op::Exchange,
                    b'z' => Op::Zap,
                    _ => Op::FileName,
                }
            }
            b'l' | b'L' | b'q' | b'Q' => {
                if c == b'L' {
                    return self.err("unknown command: `L'");
                }
                if c != b'l' {
                    one_addr_only(self)?;
                }
                self.skip_blanks();
                let n = self.number();
                self.end_of_cmd()?;
                match c {
                    b'l' => Op::List(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX))),
                    b'q' => Op::Quit(exit_code(n)),
                    _ => Op::QuitSilent(exit_code(n)),
                }
            }
            b'r' => Op::ReadFile(self.filename()?),
            b'R' => {
                let name = self.filename()?;
                let i = match self.script.rfiles.iter().position(|f| *f == name) {
                    Some(i) => i,
                    None => {
                        self.script.rfiles.push(name);
                        self.script.rfiles.len() - 1
                    }
                };
                Op::ReadLine(i)
            }
            b'w' | b'W' => {
                let name = self.filename()?;
                let i = self.wfile(name);
                if c == b'w' {
                    Op::Write(i)
                } else {
                    Op::WriteFirst(i)
                }
            }
            b's' => Op::Subst(Box::new(self.subst()?)),
            b'y' => Op::Translate(self.translate()?),
            b'e' => {
                return self.err("e is not available: Ultra's shell spawns no processes");
            }
            b'v' => {
                self.label(false);
                Op::Nop
            }
            _ => {
                let ch = String::from_utf8_lossy(&self.s[self.pos - 1..self.pos]).into_owned();
                return self.err(format!("unknown command: `{ch}'"));
            }
        };
        self.script.cmds.push(Cmd { a1, a2, negate, op });
        Ok(())
    }

    fn subst(&mut self) -> Result<Subst, ParseError> {
        let delim = match self.next() {
            None | Some(b'\n' | b'\\') => return self.err("unterminated `s' command"),
            Some(d) => d,
        };
        let Some(pat) = self.delimited(delim, true) else {
            return self.err("unterminated `s' command");
        };
        let Some(rep) = self.delimited(delim, false) else {
            return self.err("unterminated `s' command");
        };
        let mut s = Subst {
            re: None,
            repl: Vec::new(),
            global: false,
            nth: 1,
            print: false,
            wfile: None,
            groups: false,
            cases: false,
        };
        let (mut icase, mut multi, mut nth_seen) = (false, false, false);
        loop {
            match self.next() {
                None | Some(b'\n' | b';') => break,
                Some(b'}' | b'#') => {
                    self.pos -= 1;
                    break;
                }
                Some(b' ' | b'\t') => {}
                Some(b'i' | b'I') => icase = true,
                Some(b'm' | b'M') => multi = true,
                Some(b'e') => {
                    return self.err("e is not available: Ultra's shell spawns no processes");
                }
                Some(b'p') => {
                    if s.print {
                        return self.err("multiple `p' options to `s' command");
                    }
                    s.print = true;
                }
                Some(b'g') => {
                    if s.global {
                        return self.err("multiple `g' options to `s' command");
                    }
                    s.global = true;
                }
                Some(b'w') => {
                    let name = self.filename()?;
                    s.wfile = Some(self.wfile(name));
                    break;
                }
                Some(b'0'..=b'9') => {
                    if nth_seen {
                        return self.err("multiple number options to `s' command");
                    }
                    self.pos -= 1;
                    let n = self.number().unwrap_or(0);
                    if n == 0 {
                        return self.err("number option to `s' command may not be zero");
                    }
                    s.nth = n;
                    nth_seen = true;
                }
                Some(_) => return self.err("unknown option to `s'"),
            }
        }
        s.re = self.regex(&pat, icase, multi)?;
        s.repl = replacement(&rep);
        let max_group = s
            .repl
            .iter()
            .filter_map(|p| match p {
                Part::Group(g) => Some(*g),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        s.groups = max_group > 0;
        s.cases = s.repl.iter().any(|p| matches!(p, Part::Case(_)));
        if let Some(re) = &s.re
            && max_group >= re.captures_len()
        {
            return self.err(format!(
                "invalid reference \\{max_group} on `s' command's RHS"
            ));
        }
        Ok(s)
    }

    fn translate(&mut self) -> Result<Box<[u8; 256]>, ParseError> {
        let delim = match self.next() {
            None | Some(b'\n' | b'\\') => return self.err("unterminated `y' command"),
            Some(d) => d,
        };
        let mut sides = Vec::new();
        for _ in 0..2 {
            let mut side = Vec::new();
            loop {
                let Some(c) = self.next() else {
                    return self.err("unterminated `y' command");
                };
                if c == delim {
                    break;
                }
                if c == b'\\' {
                    match self.next() {
                        Some(b'n') => side.push(b'\n'),
                        Some(b'\\') => side.push(b'\\'),
                        Some(e) if e == delim => side.push(e),
                        Some(b't') => side.push(b'\t'),
                        Some(b'\n') => side.push(b'\n'),
                        Some(b'a') => side.push(0x07),
                        Some(b'f') => side.push(0x0c),
                        Some(b'v') => side.push(0x0b),
                        Some(b'r') => side.push(b'\r'),
                        Some(k @ (b'x' | b'o' | b'd')) => {
                            match numeric_byte(k, &self.s[self.pos..]) {
                                Some((n, len)) => {
                                    self.pos += len;
                                    side.push(n);
                                }
                                None => side.push(k),
                            }
                        }
                        Some(e) => {
                            side.push(b'\\');
                            side.push(e);
                        }
                        None => return self.err("unterminated `y' command"),
                    }
                    continue;
                }
                side.push(c);
            }
            sides.push(side);
        }
        if sides[0].len() != sides[1].len() {
            return self.err("strings for `y' command are different lengths");
        }
        let mut table = Box::new([0u8; 256]);
        for (i, t) in table.iter_mut().enumerate() {
            *t = u8::try_from(i).unwrap_or(0);
        }
        for (&a, &b) in sides[0].iter().zip(&sides[1]) {
            table[usize::from(a)] = b;
        }
        self.end_of_cmd()?;
        Ok(table)
    }
}

fn exit_code(n: Option<u64>) -> i32 {
    n.map_or(0, |n| i32::try_from(n & 0xff).unwrap_or(0))
}

/// Compile a sed regex (bytes of the script between delimiters).
///
/// # Errors
/// The regex error's message.
pub fn compile(pat: &[u8], ere: bool, icase: bool, multi: bool) -> Result<Regex, String> {
    compile_with(pat, ere, icase, multi, false)
}

/// [`compile`]; with `null_data`, `M`'s line separator is NUL.
///
/// # Errors
/// The regex error's message.
pub fn compile_with(
    pat: &[u8],
    ere: bool,
    icase: bool,
    multi: bool,
    null_data: bool,
) -> Result<Regex, String> {
    let pat = numeric_escapes(pat);
    let flavor = if ere { Flavor::Extended } else { Flavor::Basic };
    let translated = bytes_back(&posix_re::translate(&pat, flavor)?);
    let build = |unicode: bool| {
        RegexBuilder::new(&translated)
            .case_insensitive(icase)
            .multi_line(multi)
            .line_terminator(if null_data { 0 } else { b'\n' })
            .unicode(unicode)
            .dot_matches_new_line(true)
            .build()
    };
    build(false)
        .or_else(|_| build(true))
        .map_err(|e| crate::promoted::posix_re::short(&e))
}

/// Where [`numeric_escapes`] puts the byte a `\xHH`-style escape names, for the regex
/// translation to carry through untouched (a private-use plane no script uses).
const BYTE_BASE: u32 = 0x10_FF00;

/// GNU sed's `\xHH`, `\oNNN`, `\dNNN` and `\cX` in a regex: each names one byte, put in
/// the pattern before it is read (so `\x2e` is `.`, any character), in brackets too. A
/// byte past ASCII is carried as a private-use character that [`bytes_back`] turns into a
/// regex byte escape after translation.
fn numeric_escapes(pat: &[u8]) -> String {
    let mut out = String::with_capacity(pat.len());
    let mut i = 0;
    while i < pat.len() {
        if pat[i] == b'\\' && i + 1 < pat.len() {
            let k = pat[i + 1];
            let byte = match k {
                b'x' | b'o' | b'd' => numeric_byte(k, &pat[i + 2..]).map(|(b, len)| (b, 2 + len)),
                b'c' => pat
                    .get(i + 2)
                    .filter(|c| c.is_ascii())
                    .map(|c| (c.to_ascii_uppercase() ^ 0x40, 3)),
                _ => None,
            };
            if let Some((b, len)) = byte {
                // An ASCII result is the character itself, special or not (`\x2e` is any
                // character, as in GNU sed 4.9); another byte is carried to the end.
                out.push(if b.is_ascii() {
                    char::from(b)
                } else {
                    char::from_u32(BYTE_BASE + u32::from(b)).unwrap_or('\u{FFFD}')
                });
                i += len;
                continue;
            }
            // Any other escape, `\\` included, stays for the translation.
            out.push('\\');
            out.push_str(&String::from_utf8_lossy(&pat[i + 1..i + 2]));
            i += 2;
            continue;
        }
        let end = (i + 1..=pat.len())
            .find(|&e| e == pat.len() || pat[e] == b'\\')
            .unwrap_or(pat.len());
        out.push_str(&String::from_utf8_lossy(&pat[i..end]));
        i = end;
    }
    out
}

/// The translated regex with [`numeric_escapes`]' bytes as byte escapes.
fn bytes_back(translated: &str) -> String {
    let mut out = String::with_capacity(translated.len());
    for c in translated.chars() {
        match u32::from(c).checked_sub(BYTE_BASE) {
            Some(b) if b < 0x100 => out.push_str(&format!("\\x{b:02X}")),
            _ => out.push(c),
        }
    }
    out
}

/// GNU sed's `\dNNN`, `\oNNN` and `\xHH` (`kind` is the letter): the byte the digits at
/// the start of `digits` name (taken modulo 256, as GNU does) and how many digits it took;
/// `None` when no digit follows.
fn numeric_byte(kind: u8, digits: &[u8]) -> Option<(u8, usize)> {
    let (radix, most) = match kind {
        b'd' => (10, 3),
        b'o' => (8, 3),
        b'x' => (16, 2),
        _ => return None,
    };
    let mut n = 0u32;
    let mut len = 0;
    while len < most
        && let Some(d) = digits.get(len).and_then(|b| char::from(*b).to_digit(radix))
    {
        n = n * radix + d;
        len += 1;
    }
    (len > 0).then_some(((n & 0xff) as u8, len))
}

/// Resolve the escapes of `a`/`i`/`c` text (`literal_other`: keep unknown escapes'
/// backslash).
fn unescape(raw: &[u8], literal_other: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        i += 1;
        if c != b'\\' || i >= raw.len() {
            out.push(c);
            continue;
        }
        let e = raw[i];
        i += 1;
        match e {
            b'a' => out.push(7),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'c' if i < raw.len() => {
                out.push(raw[i].to_ascii_uppercase() ^ 0x40);
                i += 1;
            }
            b'd' | b'o' | b'x' => match numeric_byte(e, &raw[i..]) {
                Some((n, len)) => {
                    out.push(n);
                    i += len;
                }
                None => out.push(e),
            },
            _ => {
                if literal_other {
                    out.push(b'\\');
                }
                out.push(e);
            }
        }
    }
    out
}

/// Parse an `s` replacement into parts.
fn replacement(rep: &[u8]) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut lit = Vec::new();
    let flush = |lit: &mut Vec<u8>, parts: &mut Vec<Part>| {
        if !lit.is_empty() {
            parts.push(Part::Lit(std::mem::take(lit)));
        }
    };
    let mut i = 0;
    while i < rep.len() {
        let c = rep[i];
        i += 1;
        if c == b'&' {
            flush(&mut lit, &mut parts);
            parts.push(Part::Group(0));
            continue;
        }
        if c != b'\\' || i >= rep.len() {
            lit.push(c);
            continue;
        }
        let e = rep[i];
        match e {
            b'0'..=b'9' => {
                i += 1;
                flush(&mut lit, &mut parts);
                parts.push(Part::Group(usize::from(e - b'0')));
            }
            b'U' | b'L' | b'u' | b'l' | b'E' => {
                i += 1;
                flush(&mut lit, &mut parts);
                parts.push(Part::Case(match e {
                    b'U' => Case::Upper,
                    b'L' => Case::Lower,
                    b'u' => Case::UpperOne,
                    b'l' => Case::LowerOne,
                    _ => Case::End,
                }));
            }
            b'\n' => {
                i += 1;
                lit.push(b'\n');
            }
            b'&' => {
                i += 1;
                lit.push(b'&');
            }
            _ => {
                // Let the text escapes (\n, \t, \cX, \xHH, ...) resolve the rest.
                let start = i - 1;
                let mut end = i + 1;
                if matches!(e, b'c') {
                    end = (i + 2).min(rep.len());
                } else if matches!(e, b'd' | b'o' | b'x') {
                    let max = if e == b'x' { 2 } else { 3 };
                    while end < rep.len() && end - i - 1 < max && rep[end].is_ascii_hexdigit() {
                        end += 1;
                    }
                }
                lit.extend(unescape(&rep[start..end], false));
                i = end;
            }
        }
    }
    flush(&mut lit, &mut parts);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        match parse(s, false) {
            Ok(_) => String::new(),
            Err(e) => format!("{} {}", e.pos, e.msg),
        }
    }

    #[test]
    fn errors_like_gnu() {
        assert_eq!(err("s/x"), "3 unterminated `s' command");
        assert_eq!(err("p;s/x"), "5 unterminated `s' command");
        assert_eq!(err("k"), "1 unknown command: `k'");
        assert_eq!(err("s/a/b/gg"), "8 multiple `g' options to `s' command");
        assert_eq!(
            err("s/a/b/0"),
            "7 number option to `s' command may not be zero"
        );
        assert_eq!(err("s/a/b/x"), "7 unknown option to `s'");
        assert_eq!(
            err("y/ab/c/"),
            "7 strings for `y' command are different lengths"
        );
        assert_eq!(err("r"), "1 missing filename in r/R/w/W commands");
        assert_eq!(err("1,2q"), "4 command only uses one address");
        assert_eq!(err("3!!p"), "3 multiple `!'s");
        assert_eq!(err(":"), "1 \":\" lacks a label");
        assert_eq!(err("1:a"), "2 : doesn't want any addresses");
        assert_eq!(err("p}"), "2 unexpected `}'");
        assert_eq!(err("2{p"), "0 unmatched `{'");
        assert_eq!(err("0,3d"), "4 invalid usage of line address 0");
        assert_eq!(err("1,2,3p"), "4 unknown command: `,'");
        assert_eq!(err("a"), "1 expected \\ after `a', `c' or `i'");
    }

    #[test]
    fn replacement_parts() {
        assert_eq!(
            replacement(b"<&\\1\\n\\t\\&>"),
            vec![
                Part::Lit(b"<".to_vec()),
                Part::Group(0),
                Part::Group(1),
                Part::Lit(b"\n\t&>".to_vec())
            ]
        );
    }

    #[test]
    fn locate_names_piece() {
        let pieces = vec![
            Piece {
                text: "p".into(),
                file: None,
            },
            Piece {
                text: "s/x".into(),
                file: None,
            },
        ];
        let src = Source { pieces: &pieces };
        assert_eq!(src.joined(), "p\ns/x");
        assert_eq!(src.locate(5), "-e expression #2, char 3");
    }
}
