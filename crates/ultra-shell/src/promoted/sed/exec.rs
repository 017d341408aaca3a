//! The stream editor: runs a parsed sed [`Script`] over the input files (or stdin), one
//! cycle per line, with the pattern and hold spaces, range states, the append queue, `w`
//! files and in-place output through staged (atomic) files.

use std::io::{BufRead, BufReader, BufWriter, Write};

use regex::bytes::{CaptureLocations, Regex};
use ultra_workspace::RelPath;

use super::parse::{Addr, Case, Cmd, Op, Part, Script, Subst};
use crate::command::Cx;
use crate::run::fs::{ShellFs, Staged};

const BUF: usize = 256 * 1024;

/// Options that shape a run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-n` (or `#n`).
    pub quiet: bool,
    /// `-s`: `$` and line numbers per file.
    pub separate: bool,
    /// `-i`: write each file's output back to it.
    pub in_place: bool,
    /// `-iSUFFIX`: keep the original under this name (`*` stands for the file name).
    pub backup_suffix: Option<String>,
    /// `-z`: lines end in NUL.
    pub null_data: bool,
    /// `-l N`: wrap width of `l` (0: never).
    pub line_length: usize,
    /// `POSIXLY_CORRECT`: `N` on the last line quits without printing.
    pub posix: bool,
}

/// A failure that ends the run: message and exit status.
struct Fail(String, i32);

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Fail {
        Fail(format!("couldn't write: {e}"), 4)
    }
}

type R<T> = Result<T, Fail>;

/// How a cycle ended.
enum Flow {
    /// End of script: autoprint.
    End,
    /// `d`: no autoprint.
    Delete,
    /// `D` with a newline: run the script again without reading.
    Restart,
    /// `q`/`Q`: exit status and whether to autoprint.
    Quit(i32, bool),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Inactive,
    Active,
    Closed,
}

#[derive(Debug, Clone, Copy)]
struct Range {
    state: State,
    end: u64,
}

enum Pending<'s> {
    Text(&'s [u8]),
    File(&'s str),
    Line(Vec<u8>),
}

enum WFile {
    Stdout,
    Stderr,
    File {
        w: Box<BufWriter<Staged>>,
        missing: bool,
    },
}

enum Src {
    Stdin,
    File(BufReader<std::fs::File>),
}

/// The input: the named files in turn, with one-line lookahead for `$`.
struct Input<'io> {
    names: Vec<String>,
    next: usize,
    cur: Option<Src>,
    cur_name: String,
    stdin: &'io mut dyn BufRead,
    stderr: &'io mut dyn Write,
    fs: &'io ShellFs,
    cwd: &'io RelPath,
    separate: bool,
    delim: u8,
    line_no: u64,
    status: i32,
    /// A new file was opened since this was last cleared.
    switched: bool,
}

impl Input<'_> {
    fn open_next(&mut self) -> bool {
        while self.next < self.names.len() {
            let name = self.names[self.next].clone();
            self.next += 1;
            let src = if name == "-" {
                Src::Stdin
            } else {
                match self.fs.open_read(self.cwd, &name) {
                    Ok(f) => {
                        if f.metadata().is_ok_and(|m| m.is_dir()) {
                            let _ = writeln!(
                                self.stderr,
                                "sed: couldn't edit {name}: not a regular file"
                            );
                            self.status = 2;
                            continue;
                        }
                        Src::File(BufReader::with_capacity(BUF, f))
                    }
                    Err(e) => {
                        let _ = writeln!(self.stderr, "sed: can't read {name}: {e}");
                        self.status = 2;
                        continue;
                    }
                }
            };
            self.cur = Some(src);
            self.cur_name = name;
            self.switched = true;
            if self.separate {
                self.line_no = 0;
            }
            return true;
        }
        false
    }

    fn exhausted(&mut self) -> R<bool> {
        let r: &mut dyn BufRead = match self.cur.as_mut() {
            None => return Ok(true),
            Some(Src::Stdin) => &mut *self.stdin,
            Some(Src::File(f)) => f,
        };
        match r.fill_buf() {
            Ok(b) => Ok(b.is_empty()),
            Err(e) => Err(Fail(format!("read error on {}: {e}", self.cur_name), 2)),
        }
    }

    /// Append the next line to `buf`; whether it ended in the delimiter, or `None` at the
    /// end of the input.
    fn read_line(&mut self, buf: &mut Vec<u8>) -> R<Option<bool>> {
        loop {
            if self.cur.is_none() && !self.open_next() {
                return Ok(None);
            }
            if self.exhausted()? {
                self.cur = None;
                continue;
            }
            let r: &mut dyn BufRead = match self.cur.as_mut() {
                None => continue,
                Some(Src::Stdin) => &mut *self.stdin,
                Some(Src::File(f)) => f,
            };
            if let Err(e) = r.read_until(self.delim, buf) {
                return Err(Fail(format!("read error on {}: {e}", self.cur_name), 2));
            }
            self.line_no += 1;
            let chomped = buf.last() == Some(&self.delim);
            if chomped {
                buf.pop();
            }
            return Ok(Some(chomped));
        }
    }

    /// Whether the current line is the last (of the file with `-s`).
    fn is_last(&mut self) -> R<bool> {
        if !self.exhausted()? {
            return Ok(false);
        }
        if self.separate {
            return Ok(true);
        }
        loop {
            self.cur = None;
            if !self.open_next() {
                return Ok(true);
            }
            if !self.exhausted()? {
                return Ok(false);
            }
        }
    }
}

/// Run `script` over `files` (stdin when empty); the exit status.
pub fn run(
    script: &Script,
    opts: &Options,
    files: &[String],
    io: &mut crate::command::Io<'_>,
    cx: &Cx<'_>,
) -> i32 {
    let names = if files.is_empty() {
        vec!["-".to_string()]
    } else {
        files.to_vec()
    };
    let crate::command::Io {
        stdin,
        stdout,
        stderr,
    } = io;
    let mut ed = Editor {
        script,
        opts,
        fs: cx.fs,
        cwd: cx.cwd,
        stdout: BufWriter::with_capacity(BUF, &mut **stdout),
        inplace: None,
        missing_nl: false,
        delim: if opts.null_data { 0 } else { b'\n' },
        input: Input {
            names,
            next: 0,
            cur: None,
            cur_name: String::new(),
            stdin: &mut **stdin,
            stderr: &mut **stderr,
            fs: cx.fs,
            cwd: cx.cwd,
            separate: opts.separate || opts.in_place,
            delim: if opts.null_data { 0 } else { b'\n' },
            line_no: 0,
            status: 0,
            switched: false,
        },
        ps: Vec::with_capacity(1024),
        hold: Vec::new(),
        scratch: Vec::with_capacity(1024),
        chomped: true,
        hold_chomped: true,
        tflag: false,
        appends: Vec::new(),
        ranges: script
            .cmds
            .iter()
            .map(|c| Range {
                state: if matches!(c.a1, Some(Addr::Line(0))) {
                    State::Active
                } else {
                    State::Inactive
                },
                end: 0,
            })
            .collect(),
        last_re: None,
        wfiles: Vec::new(),
        rfiles: Vec::new(),
        locs: Vec::new(),
    };
    let result = ed.open_files().and_then(|()| ed.main_loop());
    let mut status = match result {
        Ok(Some(code)) if code != 0 => code,
        Ok(_) => ed.input.status,
        Err(Fail(msg, code)) => {
            let _ = writeln!(ed.input.stderr, "sed: {msg}");
            ed.inplace = None;
            code
        }
    };
    if let Err(Fail(msg, code)) = ed.finish() {
        let _ = writeln!(ed.input.stderr, "sed: {msg}");
        status = code;
    }
    status
}

struct Editor<'s, 'io> {
    script: &'s Script,
    opts: &'s Options,
    fs: &'io ShellFs,
    cwd: &'io RelPath,
    stdout: BufWriter<&'io mut dyn Write>,
    inplace: Option<(BufWriter<Staged>, String)>,
    /// The main output's last line lacked its newline (GNU's `missing_newline`).
    missing_nl: bool,
    delim: u8,
    input: Input<'io>,
    ps: Vec<u8>,
    hold: Vec<u8>,
    scratch: Vec<u8>,
    chomped: bool,
    /// The hold space's "ended in a newline" flag; GNU carries it along with the text.
    hold_chomped: bool,
    tflag: bool,
    appends: Vec<Pending<'s>>,
    ranges: Vec<Range>,
    last_re: Option<&'s Regex>,
    wfiles: Vec<WFile>,
    rfiles: Vec<Option<BufReader<std::fs::File>>>,
    locs: Vec<(*const Regex, CaptureLocations)>,
}

impl<'s> Editor<'s, '_> {
    fn open_files(&mut self) -> R<()> {
        for name in &self.script.wfiles {
            let w = match name.as_str() {
                "/dev/stdout" => WFile::Stdout,
                "/dev/stderr" => WFile::Stderr,
                _ => {
                    let f = self
                        .fs
                        .create(self.cwd, name)
                        .map_err(|e| Fail(format!("couldn't open file {name}: {e}"), 4))?;
                    WFile::File {
                        w: Box::new(BufWriter::new(f)),
                        missing: false,
                    }
                }
            };
            self.wfiles.push(w);
        }
        for name in &self.script.rfiles {
            let f = self.fs.open_read(self.cwd, name).ok().map(BufReader::new);
            self.rfiles.push(f);
        }
        Ok(())
    }

    fn finish(&mut self) -> R<()> {
        self.stdout.flush()?;
        self.finish_inplace()?;
        for w in self.wfiles.drain(..) {
            if let WFile::File { w, .. } = w {
                let f = (*w)
                    .into_inner()
                    .map_err(|e| Fail(e.error().to_string(), 4))?;
                f.commit()?;
            }
        }
        Ok(())
    }

    fn finish_inplace(&mut self) -> R<()> {
        let Some((w, name)) = self.inplace.take() else {
            return Ok(());
        };
        let f = w
            .into_inner()
            .map_err(|e| Fail(format!("couldn't write {name}: {}", e.error()), 4))?;
        if let Some(suffix) = &self.opts.backup_suffix {
            let backup = backup_name(&name, suffix);
            let copy = || -> Result<(), String> {
                let mut from = self
                    .fs
                    .open_read(self.cwd, &name)
                    .map_err(|e| e.to_string())?;
                let mut to = self
                    .fs
                    .create(self.cwd, &backup)
                    .map_err(|e| e.to_string())?;
                std::io::copy(&mut from, &mut to).map_err(|e| e.to_string())?;
                to.commit().map_err(|e| e.to_string())
            };
            copy().map_err(|e| Fail(format!("couldn't write backup {backup}: {e}"), 4))?;
        }
        f.commit()
            .map_err(|e| Fail(format!("couldn't write {name}: {e}"), 4))
    }

    fn start_inplace(&mut self) -> R<()> {
        self.finish_inplace()?;
        let name = self.input.cur_name.clone();
        if name == "-" {
            return Err(Fail("couldn't edit -: not a regular file".into(), 4));
        }
        let f = self
            .fs
            .create(self.cwd, &name)
            .map_err(|e| Fail(format!("couldn't open temporary file for {name}: {e}"), 4))?;
        self.inplace = Some((BufWriter::with_capacity(BUF, f), name));
        self.missing_nl = false;
        Ok(())
    }

    fn out(&mut self) -> &mut dyn Write {
        match &mut self.inplace {
            Some((w, _)) => w,
            None => &mut self.stdout,
        }
    }

    /// Write text to the main output after any missing newline.
    fn emit_raw(&mut self, text: &[u8]) -> R<()> {
        if self.missing_nl {
            self.missing_nl = false;
            let d = [self.delim];
            self.out().write_all(&d)?;
        }
        self.out().write_all(text)?;
        Ok(())
    }

    /// Write a line to the main output, with its newline when `nl`.
    fn emit(&mut self, text: &[u8], nl: bool) -> R<()> {
        self.emit_raw(text)?;
        if nl {
            let d = [self.delim];
            self.out().write_all(&d)?;
        } else {
            self.missing_nl = true;
        }
        Ok(())
    }

    fn emit_ps(&mut self) -> R<()> {
        let ps = std::mem::take(&mut self.ps);
        let r = self.emit(&ps, self.chomped);
        self.ps = ps;
        r
    }

    fn write_to(&mut self, i: usize, first_line: bool) -> R<()> {
        let delim = self.delim;
        let text: &[u8] = if first_line {
            match self.ps.iter().position(|&b| b == delim) {
                Some(p) => &self.ps[..p],
                None => &self.ps,
            }
        } else {
            &self.ps
        };
        let nl = first_line || self.chomped;
        match &mut self.wfiles[i] {
            WFile::Stdout => {
                let text = text.to_vec();
                self.emit(&text, nl)?;
            }
            WFile::Stderr => {
                self.stdout.flush()?;
                let e = &mut self.input.stderr;
                e.write_all(text)?;
                if nl {
                    e.write_all(&[delim])?;
                }
            }
            WFile::File { w, missing } => {
                if *missing {
                    w.write_all(&[delim])?;
                }
                w.write_all(text)?;
                if nl {
                    w.write_all(&[delim])?;
                }
                *missing = !nl;
            }
        }
        Ok(())
    }

    fn flush_appends(&mut self) -> R<()> {
        if self.appends.is_empty() {
            return Ok(());
        }
        let mut list = std::mem::take(&mut self.appends);
        for p in list.drain(..) {
            match p {
                Pending::Text(t) => self.emit_raw(t)?,
                Pending::Line(l) => self.emit_raw(&l)?,
                Pending::File(name) => {
                    if name == "/dev/stdin" {
                        let mut v = Vec::new();
                        let _ = std::io::Read::read_to_end(&mut self.input.stdin, &mut v);
                        self.emit_raw(&v)?;
                    } else if let Ok(mut f) = self.fs.open_read(self.cwd, name)
                        && f.metadata().is_ok_and(|m| m.is_file())
                    {
                        self.emit_raw(b"")?;
                        std::io::copy(&mut f, self.out())?;
                    }
                }
            }
        }
        self.appends = list;
        Ok(())
    }

    /// Read the next line into the pattern space (appending when `append`).
    fn read(&mut self, append: bool) -> R<bool> {
        self.flush_appends()?;
        if !append {
            self.ps.clear();
        }
        match self.input.read_line(&mut self.ps)? {
            None => Ok(false),
            Some(chomped) => {
                self.chomped = chomped;
                self.tflag = false;
                if self.input.switched {
                    self.input.switched = false;
                    if self.opts.in_place {
                        self.start_inplace()?;
                    }
                }
                Ok(true)
            }
        }
    }

    fn main_loop(&mut self) -> R<Option<i32>> {
        let mut restart = false;
        loop {
            if !restart && !self.read(false)? {
                self.flush_appends()?;
                return Ok(None);
            }
            restart = false;
            match self.execute()? {
                Flow::End => {
                    if !self.opts.quiet {
                        self.emit_ps()?;
                    }
                }
                Flow::Delete => {}
                Flow::Restart => restart = true,
                Flow::Quit(code, print) => {
                    if print && !self.opts.quiet {
                        self.emit_ps()?;
                    }
                    self.flush_appends()?;
                    return Ok(Some(code));
                }
            }
        }
    }

    fn regex(&mut self, re: Option<&'s Regex>) -> R<&'s Regex> {
        match re {
            Some(r) => {
                self.last_re = Some(r);
                Ok(r)
            }
            None => self
                .last_re
                .ok_or_else(|| Fail("no previous regular expression".into(), 1)),
        }
    }

    fn match_addr(&mut self, a: &'s Addr) -> R<bool> {
        let line = self.input.line_no;
        Ok(match a {
            Addr::Line(n) => line == *n,
            Addr::Last => self.input.is_last()?,
            Addr::Re(re) => {
                let re = self.regex(re.as_ref())?;
                re.is_match(&self.ps)
            }
            Addr::Step(first, step) => {
                if *step == 0 {
                    line == *first
                } else {
                    line >= *first && (line - first).is_multiple_of(*step)
                }
            }
            Addr::Plus(_) | Addr::Mult(_) => false,
        })
    }

    fn selected(&mut self, pc: usize, cmd: &'s Cmd) -> R<bool> {
        let m = match (&cmd.a1, &cmd.a2) {
            (None, _) => true,
            (Some(a1), None) => self.match_addr(a1)?,
            (Some(a1), Some(a2)) => self.match_range(pc, a1, a2)?,
        };
        Ok(m != cmd.negate)
    }

    fn match_range(&mut self, pc: usize, a1: &'s Addr, a2: &'s Addr) -> R<bool> {
        let line = self.input.line_no;
        let r = self.ranges[pc];
        if r.state != State::Active {
            // GNU: a range whose first line number went by without the command being run
            // (`1d;1,3p`) starts at the first line that reaches it, unless its end has
            // passed too.
            let late = r.state == State::Inactive
                && matches!(a1, Addr::Line(n) if *n >= 1 && *n < line)
                && !matches!(a2, Addr::Line(m) if *m < line);
            if !late && !self.match_addr(a1)? {
                return Ok(false);
            }
            let end = match a2 {
                Addr::Line(n) => {
                    if *n <= line {
                        return Ok(true);
                    }
                    *n
                }
                Addr::Plus(n) => {
                    if *n == 0 {
                        return Ok(true);
                    }
                    line.saturating_add(*n)
                }
                Addr::Mult(n) => {
                    if *n == 0 || line.is_multiple_of(*n) {
                        return Ok(true);
                    }
                    (line / n + 1) * n
                }
                _ => 0,
            };
            self.ranges[pc] = Range {
                state: State::Active,
                end,
            };
            return Ok(true);
        }
        match a2 {
            Addr::Line(_) | Addr::Plus(_) | Addr::Mult(_) => {
                if r.end <= line {
                    self.ranges[pc].state = State::Closed;
                }
                Ok(line <= r.end)
            }
            _ => {
                if self.match_addr(a2)? {
                    self.ranges[pc].state = State::Closed;
                }
                Ok(true)
            }
        }
    }

    fn execute(&mut self) -> R<Flow> {
        let script = self.script;
        let cmds = &script.cmds;
        let mut pc = 0;
        let mut ticks: u32 = 0;
        while pc < cmds.len() {
            // A branch can loop forever (`:a;ba`): stop when the call's time is up.
            ticks = ticks.wrapping_add(1);
            if let Some(o) = self.fs.over_at(ticks) {
                return Err(Fail(
                    format!(
                        "stopped: the script ran past the command's {} limit",
                        o.what()
                    ),
                    4,
                ));
            }
            let cmd = &cmds[pc];
            if !self.selected(pc, cmd)? {
                pc = match cmd.op {
                    Op::Block(end) => end + 1,
                    _ => pc + 1,
                };
                continue;
            }
            let here = pc;
            pc += 1;
            match &cmd.op {
                Op::Block(_) | Op::EndBlock | Op::Label | Op::Nop => {}
                Op::Branch(t) => pc = t.unwrap_or(cmds.len()),
                Op::BranchIfSub(t) => {
                    if self.tflag {
                        self.tflag = false;
                        pc = t.unwrap_or(cmds.len());
                    }
                }
                Op::BranchIfNot(t) => {
                    if self.tflag {
                        self.tflag = false;
                    } else {
                        pc = t.unwrap_or(cmds.len());
                    }
                }
                Op::Subst(s) => self.subst(s)?,
                Op::Translate(table) => {
                    for b in &mut self.ps {
                        *b = table[usize::from(*b)];
                    }
                }
                Op::Append(t) => self.appends.push(Pending::Text(t)),
                Op::Insert(t) => self.emit_raw(t)?,
                Op::Change(t) => {
                    if self.ranges[here].state != State::Active || cmd.a2.is_none() {
                        self.emit_raw(t)?;
                    }
                    return Ok(Flow::Delete);
                }
                Op::Print => self.emit_ps()?,
                Op::PrintFirst => {
                    let delim = self.delim;
                    let end = self
                        .ps
                        .iter()
                        .position(|&b| b == delim)
                        .unwrap_or(self.ps.len());
                    let first = self.ps[..end].to_vec();
                    self.emit(&first, true)?;
                }
                Op::Delete => return Ok(Flow::Delete),
                Op::DeleteFirst => {
                    let delim = self.delim;
                    match self.ps.iter().position(|&b| b == delim) {
                        None => return Ok(Flow::Delete),
                        Some(i) => {
                            self.ps.drain(..=i);
                            return Ok(Flow::Restart);
                        }
                    }
                }
                Op::Next => {
                    if self.input.is_last()? {
                        return Ok(if self.opts.posix {
                            Flow::Delete
                        } else {
                            Flow::End
                        });
                    }
                    if !self.opts.quiet {
                        self.emit_ps()?;
                    }
                    if !self.read(false)? {
                        return Ok(Flow::Delete);
                    }
                }
                Op::NextAppend => {
                    if self.input.is_last()? {
                        return Ok(if self.opts.posix {
                            Flow::Delete
                        } else {
                            Flow::End
                        });
                    }
                    let len = self.ps.len();
                    self.ps.push(self.delim);
                    if !self.read(true)? {
                        self.ps.truncate(len);
                        return Ok(Flow::End);
                    }
                }
                Op::Get => {
                    self.ps.clear();
                    self.ps.extend_from_slice(&self.hold);
                    self.chomped = self.hold_chomped;
                }
                Op::GetAppend => {
                    self.ps.push(self.delim);
                    self.ps.extend_from_slice(&self.hold);
                    self.chomped = self.hold_chomped;
                }
                Op::Hold => {
                    self.hold.clear();
                    self.hold.extend_from_slice(&self.ps);
                    self.hold_chomped = self.chomped;
                }
                Op::HoldAppend => {
                    self.hold.push(self.delim);
                    self.hold.extend_from_slice(&self.ps);
                    self.hold_chomped = self.chomped;
                }
                Op::Exchange => {
                    std::mem::swap(&mut self.ps, &mut self.hold);
                    std::mem::swap(&mut self.chomped, &mut self.hold_chomped);
                }
                Op::LineNum => {
                    let text = format!("{}\n", self.input.line_no);
                    self.emit_raw(text.as_bytes())?;
                }
                Op::List(width) => self.list(width.unwrap_or(self.opts.line_length))?,
                Op::Quit(code) => return Ok(Flow::Quit(*code, true)),
                Op::QuitSilent(code) => return Ok(Flow::Quit(*code, false)),
                Op::ReadFile(name) => self.appends.push(Pending::File(name)),
                Op::ReadLine(i) => {
                    if let Some(r) = &mut self.rfiles[*i] {
                        let mut line = Vec::new();
                        if r.read_until(self.delim, &mut line).unwrap_or(0) > 0 {
                            self.appends.push(Pending::Line(line));
                        }
                    }
                }
                Op::Write(i) => self.write_to(*i, false)?,
                Op::WriteFirst(i) => self.write_to(*i, true)?,
                Op::Zap => self.ps.clear(),
                Op::FileName => {
                    let text = format!("{}\n", self.input.cur_name);
                    self.emit_raw(text.as_bytes())?;
                }
            }
        }
        Ok(Flow::End)
    }

    fn list(&mut self, width: usize) -> R<()> {
        let limit = width.checked_sub(1);
        let mut buf = Vec::with_capacity(self.ps.len() * 2 + 4);
        let mut col = 0;
        for &b in &self.ps {
            let mut rep = [0u8; 4];
            let n = match b {
                b'\\' => put(&mut rep, b"\\\\"),
                7 => put(&mut rep, b"\\a"),
                8 => put(&mut rep, b"\\b"),
                12 => put(&mut rep, b"\\f"),
                b'\n' => put(&mut rep, b"\\n"),
                b'\r' => put(&mut rep, b"\\r"),
                b'\t' => put(&mut rep, b"\\t"),
                11 => put(&mut rep, b"\\v"),
                0x20..=0x7e => put(&mut rep, &[b]),
                _ => put(&mut rep, format!("\\{b:03o}").as_bytes()),
            };
            if let Some(limit) = limit
                && col + n > limit
            {
                buf.extend_from_slice(b"\\\n");
                col = 0;
            }
            buf.extend_from_slice(&rep[..n]);
            col += n;
        }
        buf.extend_from_slice(b"$\n");
        self.emit_raw(&buf)
    }

    fn subst(&mut self, s: &'s Subst) -> R<()> {
        let re = self.regex(s.re.as_ref())?;
        let key: *const Regex = re;
        let li = match self.locs.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.locs.push((key, re.capture_locations()));
                self.locs.len() - 1
            }
        };
        // One substitution can multiply a line (`s/a/<64 KiB>/g`): stop at the call's
        // memory before growing past it.
        let room = self.fs.room();
        let locs = &mut self.locs[li].1;
        let ps = &self.ps;
        let out = &mut self.scratch;
        out.clear();
        let mut pos = 0;
        let mut copied = 0;
        let mut count = 0u64;
        let mut prev_end: Option<usize> = None;
        let mut did = false;
        let need_caps = s.groups;
        while pos <= ps.len() {
            let (ms, me) = if need_caps {
                match re.captures_read_at(locs, ps, pos) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            } else {
                match re.find_at(ps, pos) {
                    Some(m) => (m.start(), m.end()),
                    None => break,
                }
            };
            if ms == me && prev_end == Some(ms) {
                // An empty match right after a match does not count (GNU).
                pos = ms + 1;
                continue;
            }
            count += 1;
            if count >= s.nth {
                out.extend_from_slice(&ps[copied..ms]);
                expand(out, &s.repl, ps, (ms, me), locs, need_caps, s.cases);
                if out.len() > room {
                    out.clear();
                    out.shrink_to(ps.len());
                    return Err(Fail(
                        "stopped: the substitution ran past the command's memory limit".into(),
                        4,
                    ));
                }
                copied = me;
                did = true;
                if !s.global {
                    break;
                }
            }
            prev_end = Some(me);
            pos = if me == ms { me + 1 } else { me };
        }
        if !did {
            return Ok(());
        }
        out.extend_from_slice(&ps[copied..]);
        std::mem::swap(&mut self.ps, &mut self.scratch);
        self.tflag = true;
        if s.print {
            self.emit_ps()?;
        }
        if let Some(w) = s.wfile {
            self.write_to(w, false)?;
        }
        Ok(())
    }
}

fn put(rep: &mut [u8; 4], s: &[u8]) -> usize {
    rep[..s.len()].copy_from_slice(s);
    s.len()
}

/// Append one replacement to `out`.
fn expand(
    out: &mut Vec<u8>,
    repl: &[Part],
    ps: &[u8],
    whole: (usize, usize),
    locs: &CaptureLocations,
    caps: bool,
    cases: bool,
) {
    let group = |g: usize| -> &[u8] {
        if g == 0 {
            &ps[whole.0..whole.1]
        } else if caps {
            locs.get(g).map_or(&[][..], |(a, b)| &ps[a..b])
        } else {
            &[]
        }
    };
    if !cases {
        for p in repl {
            match p {
                Part::Lit(l) => out.extend_from_slice(l),
                Part::Group(g) => out.extend_from_slice(group(*g)),
                Part::Case(_) => {}
            }
        }
        return;
    }
    let mut mode: Option<Case> = None;
    let mut one: Option<Case> = None;
    let push = |out: &mut Vec<u8>, bytes: &[u8], mode: Option<Case>, one: &mut Option<Case>| {
        for &b in bytes {
            let c = match one.take() {
                Some(Case::UpperOne) => b.to_ascii_uppercase(),
                Some(Case::LowerOne) => b.to_ascii_lowercase(),
                _ => match mode {
                    Some(Case::Upper) => b.to_ascii_uppercase(),
                    Some(Case::Lower) => b.to_ascii_lowercase(),
                    _ => b,
                },
            };
            out.push(c);
        }
    };
    for p in repl {
        match p {
            Part::Lit(l) => push(out, l, mode, &mut one),
            Part::Group(g) => push(out, group(*g), mode, &mut one),
            Part::Case(c) => match c {
                Case::Upper | Case::Lower => mode = Some(*c),
                Case::UpperOne | Case::LowerOne => one = Some(*c),
                Case::End => {
                    mode = None;
                    one = None;
                }
            },
        }
    }
}

/// The backup name for `file` with `suffix` (`*` in the suffix stands for the file name).
fn backup_name(file: &str, suffix: &str) -> String {
    if !suffix.contains('*') {
        return format!("{file}{suffix}");
    }
    let (dir, base) = match file.rfind('/') {
        Some(i) => (&file[..=i], &file[i + 1..]),
        None => ("", file),
    };
    let name = suffix.replace('*', base);
    if name.contains('/') {
        name
    } else {
        format!("{dir}{name}")
    }
}
