//! The awk interpreter: a tree walker over the resolved AST with globals in a vector, locals
//! in frames, lazily split fields stored as byte ranges of the reused record buffer, buffered
//! output, and every file access through the shell's confined file system.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufRead, BufWriter, Write};
use std::rc::Rc;

use super::re::Re as Regex;

use super::ast::*;
use super::format;
use super::input::{Reader, RsMode};
use super::parser::strip;
use super::re;
use super::value::{Value, looks_numeric, push_num, str_to_num};
use crate::command::Cx;
use crate::run::fs::Staged;

#[path = "gawk.rs"]
mod gawk;

/// A fast hasher for array keys (FxHash's mixing).
#[derive(Default, Clone, Copy)]
pub struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        self.0 = h;
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn finish(&self) -> u64 {
        // The multiply only carries entropy upward: fold the high bits back down so the
        // table's low index bits differ for keys that differ late (`key1`, `key2`).
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(0xff51_afd7_ed55_8ccd) ^ (h >> 29)
    }
}

type Array = HashMap<Box<[u8]>, Value, BuildHasherDefault<Fx>>;

/// Why evaluation stopped early.
pub enum Jump {
    Next,
    NextFile,
    Exit,
    Fatal(String),
    /// Output failed (a closed pipe): stop without a message.
    Quiet,
}

enum Flow {
    Normal,
    Break,
    Continue,
    Return(Value),
}

type R<T> = Result<T, Jump>;

fn fatal<T>(msg: impl Into<String>) -> R<T> {
    Err(Jump::Fatal(msg.into()))
}

enum FsMode {
    Space,
    Byte(u8),
    Regex(Regex),
    Chars,
    /// gawk's `FPAT`: the fields are the matches.
    Fpat(Regex),
    /// `--csv`: comma-separated, `"quoted"` fields with `""` for a quote (gawk 5.3).
    Csv,
}

enum InSrc {
    Stdin,
    File(std::fs::File),
    /// `/dev/null`: empty.
    Null,
}

enum Output {
    /// Boxed: a staged file carries its file system handle, many times the other variants.
    File(Box<BufWriter<Staged>>),
    Stdout,
    Stderr,
    /// `/dev/null`: discarded.
    Null,
}

enum Place {
    Var(VarRef),
    Nf,
    Field(usize),
    Elem(usize, Vec<u8>),
}

const MAX_DEPTH: usize = 10_000;
/// Stack bytes the interpreter lets recursion use (pipeline threads have 2 MB stacks).
const STACK_BUDGET: usize = 1 << 20;

#[inline(never)]
fn stack_addr() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}
const NOPROC: &str = "Ultra's shell spawns no processes";

/// Run-time state of one awk program.
pub struct Interp<'a> {
    prog: &'a Program,
    regexes: Vec<Regex>,
    /// The regex literals compiled the other way round for case (`IGNORECASE`), swapped
    /// with `regexes` when it changes.
    other_regexes: Option<Vec<Regex>>,
    /// gawk's `IGNORECASE` is on.
    icase: bool,
    /// gawk's `FPAT` decides the fields (since it was last assigned, after `FS`).
    fpat_on: bool,
    /// `$0` was assigned a string (or rebuilt): it compares as a string.
    rec_str: bool,
    /// Which fields (by number) were assigned a string since the record was split.
    str_fields: Vec<bool>,
    /// The slot of gawk's `RT` when the program uses it.
    rt: Option<u32>,
    dyn_re: HashMap<Vec<u8>, Regex>,
    globals: Vec<Value>,
    arrays: Vec<Array>,
    stack: Vec<Value>,
    astack: Vec<usize>,
    base: usize,
    cur_fn: Option<usize>,
    depth: usize,
    record: Vec<u8>,
    fields: Vec<(usize, usize)>,
    /// `--csv`: the fields without their quotes; `fields` index into it while
    /// `fields_in_csv` (a rebuilt record's fields index into `record` again).
    csv_text: Vec<u8>,
    fields_in_csv: bool,
    /// `--csv` was given: FS and RS stay CSV's.
    csv: bool,
    split: bool,
    scan_pos: usize,
    nf: usize,
    fs: FsMode,
    rs: RsMode,
    ofs: Vec<u8>,
    ors: Vec<u8>,
    subsep: Vec<u8>,
    convfmt: Vec<u8>,
    ofmt: Vec<u8>,
    stdin: &'a mut dyn BufRead,
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
    cx: &'a Cx<'a>,
    out: Vec<u8>,
    outputs: Vec<(Vec<u8>, Output)>,
    inputs: Vec<(Vec<u8>, Reader, InSrc)>,
    main_reader: Reader,
    main_src: Option<InSrc>,
    argi: usize,
    used_file: bool,
    range_on: Vec<bool>,
    exit_code: i32,
    status: i32,
    seed: f64,
    rng: u64,
    keybuf: Vec<u8>,
    linebuf: Vec<u8>,
    spare: Vec<u8>,
    stack_top: usize,
    /// Loop iterations and records since the clock was last read.
    ticks: u32,
}

fn is_ident(s: &[u8]) -> bool {
    !s.is_empty()
        && (s[0].is_ascii_alphabetic() || s[0] == b'_')
        && s.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl<'a> Interp<'a> {
    /// Count a loop iteration or record: stop if the call holds too much memory, or
    /// (every few thousand ticks) if its time is up.
    fn tick(&mut self) -> R<()> {
        self.ticks = self.ticks.wrapping_add(1);
        match self.cx.fs.over_at(self.ticks) {
            Some(o) => fatal(format!(
                "stopped: the program ran past the command's {} limit",
                o.what()
            )),
            None => Ok(()),
        }
    }

    /// Set up a program run: `assigns` are the `-v` assignments, `operands` the files and
    /// `var=value` operands.
    pub fn new(
        prog: &'a Program,
        stdin: &'a mut dyn BufRead,
        stdout: &'a mut dyn Write,
        stderr: &'a mut dyn Write,
        cx: &'a Cx<'a>,
        operands: &[String],
    ) -> Result<Interp<'a>, String> {
        let mut regexes = Vec::with_capacity(prog.regexes.len());
        for r in &prog.regexes {
            regexes.push(re::build_with(r, false, prog.posix)?);
        }
        let n = prog.globals.len();
        let mut it = Interp {
            prog,
            regexes,
            other_regexes: None,
            icase: false,
            fpat_on: false,
            rec_str: false,
            str_fields: Vec::new(),
            rt: if prog.posix {
                None
            } else {
                prog.globals
                    .iter()
                    .position(|g| g == "RT")
                    .map(|i| i as u32)
            },
            dyn_re: HashMap::new(),
            globals: vec![Value::Uninit; n],
            arrays: (0..n).map(|_| Array::default()).collect(),
            stack: Vec::new(),
            astack: Vec::new(),
            base: 0,
            cur_fn: None,
            depth: 0,
            record: Vec::new(),
            fields: Vec::new(),
            csv_text: Vec::new(),
            fields_in_csv: false,
            csv: false,
            split: true,
            scan_pos: 0,
            nf: 0,
            fs: FsMode::Space,
            rs: RsMode::Byte(b'\n'),
            ofs: b" ".to_vec(),
            ors: b"\n".to_vec(),
            subsep: vec![0x1c],
            convfmt: b"%.6g".to_vec(),
            ofmt: b"%.6g".to_vec(),
            stdin,
            stdout,
            stderr,
            cx,
            out: Vec::with_capacity(1 << 16),
            outputs: Vec::new(),
            inputs: Vec::new(),
            main_reader: Reader::default(),
            main_src: None,
            argi: 1,
            used_file: false,
            range_on: vec![false; prog.ranges],
            exit_code: 0,
            status: 0,
            seed: 0.0,
            rng: 0x2545_f491_4f6c_dd1d,
            keybuf: Vec::new(),
            linebuf: Vec::new(),
            spare: Vec::new(),
            stack_top: stack_addr(),
            ticks: 0,
        };
        let g = &mut it.globals;
        g[G_NR as usize] = Value::Num(0.0);
        g[G_FNR as usize] = Value::Num(0.0);
        g[G_FS as usize] = Value::str(b" ");
        g[G_OFS as usize] = Value::str(b" ");
        g[G_ORS as usize] = Value::str(b"\n");
        g[G_RS as usize] = Value::str(b"\n");
        g[G_SUBSEP as usize] = Value::str(&[0x1c]);
        g[G_CONVFMT as usize] = Value::str(b"%.6g");
        g[G_OFMT as usize] = Value::str(b"%.6g");
        g[G_RSTART as usize] = Value::Num(0.0);
        g[G_RLENGTH as usize] = Value::Num(-1.0);
        g[G_FILENAME as usize] = Value::Uninit;
        g[G_ARGC as usize] = Value::Num((operands.len() + 1) as f64);
        let argv = &mut it.arrays[G_ARGV as usize];
        argv.insert(Box::from(&b"0"[..]), Value::str(b"awk"));
        for (i, o) in operands.iter().enumerate() {
            argv.insert(
                (i + 1).to_string().into_bytes().into_boxed_slice(),
                Value::input(o.as_bytes()),
            );
        }
        let env = &mut it.arrays[G_ENVIRON as usize];
        for (k, v) in cx.vars {
            env.insert(Box::from(k.as_bytes()), Value::input(v.as_bytes()));
        }
        Ok(it)
    }

    /// Apply a `var=value` assignment (`-v` or operand); false when it is not one.
    pub fn assign_operand(&mut self, text: &[u8]) -> R<bool> {
        let Some(eq) = text.iter().position(|&b| b == b'=') else {
            return Ok(false);
        };
        let name = &text[..eq];
        if !is_ident(name) {
            return Ok(false);
        }
        let value = super::lexer::unescape(&text[eq + 1..], !self.prog.posix);
        let name = lossy(name);
        if let Some(i) = self.prog.globals.iter().position(|g| *g == name) {
            if self.prog.global_array[i] {
                return fatal(format!("cannot assign to array `{name}'"));
            }
            if i == G_NF as usize {
                let n = str_to_num(&value);
                self.set_nf(n)?;
            } else {
                self.globals[i] = Value::input(&value);
                self.special_set(i as u32)?;
            }
        }
        Ok(true)
    }

    /// Run BEGIN, the main loop and END; the exit status.
    pub fn run(&mut self) -> i32 {
        self.stack_top = stack_addr();
        let r = self.run_inner();
        let code = match r {
            Ok(()) => {
                if self.exit_code != 0 {
                    self.exit_code
                } else {
                    self.status
                }
            }
            Err(Jump::Fatal(msg)) => {
                let _ = self.flush_out();
                let _ = writeln!(self.stderr, "awk: {msg}");
                2
            }
            Err(_) => 2,
        };
        let flushed = self.flush_out();
        let closed = self.close_all();
        if flushed.is_err() {
            return 2;
        }
        if let Err(msg) = closed {
            let _ = writeln!(self.stderr, "awk: {msg}");
            return 2;
        }
        code
    }

    fn run_inner(&mut self) -> R<()> {
        let prog = self.prog;
        let mut exiting = false;
        for b in &prog.begin {
            match self.exec_block(b) {
                Ok(_) => {}
                Err(Jump::Exit) => {
                    exiting = true;
                    break;
                }
                Err(Jump::Next | Jump::NextFile) => return fatal("`next' used in BEGIN action"),
                Err(e) => return Err(e),
            }
        }
        let reads = !prog.rules.is_empty()
            || !prog.end.is_empty()
            || !prog.beginfile.is_empty()
            || !prog.endfile.is_empty();
        if !exiting && reads {
            loop {
                match self.read_main_record() {
                    Ok(true) => {}
                    Ok(false) | Err(Jump::Exit) => break,
                    Err(e) => return Err(e),
                }
                match self.run_rules() {
                    Ok(()) | Err(Jump::Next) => {}
                    Err(Jump::NextFile) => match self.end_file() {
                        Ok(()) => {}
                        Err(Jump::Exit) => break,
                        Err(e) => return Err(e),
                    },
                    Err(Jump::Exit) => break,
                    Err(e) => return Err(e),
                }
            }
        }
        for b in &prog.end {
            match self.exec_block(b) {
                Ok(_) => {}
                Err(Jump::Exit) => break,
                Err(Jump::Next | Jump::NextFile) => return fatal("`next' used in END action"),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn run_rules(&mut self) -> R<()> {
        let prog = self.prog;
        for rule in &prog.rules {
            let matched = match &rule.pattern {
                Pattern::All => true,
                Pattern::Expr(e) => self.cond(e)?,
                Pattern::Range(a, b, k) => {
                    if self.range_on[*k] {
                        if self.cond(b)? {
                            self.range_on[*k] = false;
                        }
                        true
                    } else if self.cond(a)? {
                        if !self.cond(b)? {
                            self.range_on[*k] = true;
                        }
                        true
                    } else {
                        false
                    }
                }
            };
            if matched {
                match &rule.action {
                    None => {
                        let mut buf = std::mem::take(&mut self.linebuf);
                        buf.clear();
                        buf.extend_from_slice(&self.record);
                        buf.extend_from_slice(&self.ors);
                        let r = self.emit(None, &buf);
                        self.linebuf = buf;
                        r?;
                    }
                    Some(stmts) => {
                        self.exec_block(stmts)?;
                    }
                }
            }
        }
        Ok(())
    }

    // ---- output ----

    fn flush_out(&mut self) -> R<()> {
        if !self.out.is_empty() {
            let r = self.stdout.write_all(&self.out);
            self.out.clear();
            r.map_err(|_| Jump::Quiet)?;
        }
        self.stdout.flush().map_err(|_| Jump::Quiet)
    }

    fn close_all(&mut self) -> Result<(), String> {
        let mut err = Ok(());
        for (name, o) in std::mem::take(&mut self.outputs) {
            if let Err(e) = finish_output(o) {
                err = Err(format!("close of `{}' failed: {e}", lossy(&name)));
            }
        }
        err
    }

    fn emit(&mut self, redir: Option<&'a Redirect>, bytes: &[u8]) -> R<()> {
        let Some(redir) = redir else {
            self.out.extend_from_slice(bytes);
            if self.out.len() >= 1 << 16 {
                self.flush_out()?;
            }
            return Ok(());
        };
        let idx = self.output(redir)?;
        match &mut self.outputs[idx].1 {
            Output::Stdout => {
                self.out.extend_from_slice(bytes);
                if self.out.len() >= 1 << 16 {
                    self.flush_out()?;
                }
                Ok(())
            }
            Output::Stderr => {
                self.flush_out()?;
                self.stderr.write_all(bytes).map_err(|_| Jump::Quiet)
            }
            Output::File(w) => w
                .write_all(bytes)
                .map_err(|e| Jump::Fatal(format!("write failed: {e}"))),
            Output::Null => Ok(()),
        }
    }

    fn output(&mut self, redir: &'a Redirect) -> R<usize> {
        let (e, append) = match redir {
            Redirect::Pipe(_) => {
                return fatal(format!(
                    "output to a pipe (print | \"cmd\") is not available: {NOPROC}"
                ));
            }
            Redirect::File(e) => (e, false),
            Redirect::Append(e) => (e, true),
        };
        let mut name = Vec::new();
        self.push_str(e, &mut name)?;
        if let Some(i) = self.outputs.iter().position(|(n, _)| *n == name) {
            return Ok(i);
        }
        let o = match &name[..] {
            b"/dev/stdout" | b"-" => Output::Stdout,
            b"/dev/stderr" => Output::Stderr,
            b"/dev/null" => Output::Null,
            _ => {
                let path = lossy(&name);
                if path.is_empty() {
                    return fatal("expression for `>' redirection has null string value");
                }
                let r = if append {
                    self.cx
                        .fs
                        .append(self.cx.cwd, &path)
                        .map(|f| Output::File(Box::new(BufWriter::new(f))))
                } else {
                    self.cx
                        .fs
                        .create(self.cx.cwd, &path)
                        .map(|f| Output::File(Box::new(BufWriter::new(f))))
                };
                match r {
                    Ok(o) => o,
                    Err(e) => return fatal(format!("can't redirect to `{path}': {e}")),
                }
            }
        };
        self.outputs.push((name, o));
        Ok(self.outputs.len() - 1)
    }

    // ---- input ----

    fn read_main_record(&mut self) -> R<bool> {
        self.tick()?;
        let mut rec = std::mem::take(&mut self.spare);
        let got = self.read_main(&mut rec);
        if matches!(got, Ok(true)) {
            std::mem::swap(&mut self.record, &mut rec);
            self.reset_split();
            self.bump_nr();
        }
        self.spare = rec;
        got
    }

    fn bump_nr(&mut self) {
        let nr = self.globals[G_NR as usize].num() + 1.0;
        self.globals[G_NR as usize] = Value::Num(nr);
        let fnr = self.globals[G_FNR as usize].num() + 1.0;
        self.globals[G_FNR as usize] = Value::Num(fnr);
    }

    fn read_main(&mut self, buf: &mut Vec<u8>) -> R<bool> {
        loop {
            if let Some(src) = &mut self.main_src {
                let r = match src {
                    InSrc::Stdin => self.main_reader.next(&mut *self.stdin, &self.rs, buf),
                    InSrc::File(f) => self.main_reader.next(f, &self.rs, buf),
                    InSrc::Null => Ok(false),
                };
                match r {
                    Ok(true) => {
                        if let Some(rt) = self.rt {
                            let mut t = Vec::new();
                            self.main_reader.terminator(&mut t);
                            self.globals[rt as usize] = Value::Str(Rc::new(t));
                        }
                        return Ok(true);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        let _ = writeln!(self.stderr, "awk: read error: {e}");
                        self.status = 2;
                    }
                }
                self.end_file()?;
            }
            if !self.open_next_main()? {
                return Ok(false);
            }
            self.begin_file()?;
        }
    }

    /// Set gawk's `ERRNO` (when the program uses it) for a file that could not be opened.
    fn set_errno(&mut self, e: &ultra_workspace::WsError) {
        if self.prog.posix {
            return;
        }
        if let Some(i) = self.prog.globals.iter().position(|g| g == "ERRNO") {
            let msg = match e {
                ultra_workspace::WsError::NotFound(_) => "No such file or directory".to_string(),
                other => other.to_string(),
            };
            self.globals[i] = Value::str(msg.as_bytes());
        }
    }

    /// A file that could not be opened: run `BEGINFILE` with `ERRNO` set; whether it
    /// skipped the file with `nextfile`.
    fn beginfile_skips(&mut self, name: &[u8], e: &ultra_workspace::WsError) -> R<bool> {
        self.globals[G_FILENAME as usize] = Value::str(name);
        self.globals[G_FNR as usize] = Value::Num(0.0);
        self.set_errno(e);
        let prog = self.prog;
        for b in &prog.beginfile {
            match self.exec_block(b) {
                Ok(_) => {}
                Err(Jump::NextFile) => return Ok(true),
                Err(Jump::Next) => return fatal("`next' used in BEGINFILE action"),
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }

    /// Run gawk's `BEGINFILE` actions for the file just opened (`nextfile` skips it).
    fn begin_file(&mut self) -> R<()> {
        let prog = self.prog;
        if prog.beginfile.is_empty() {
            return Ok(());
        }
        if let Some(i) = prog.globals.iter().position(|g| g == "ERRNO") {
            self.globals[i] = Value::str(b"");
        }
        for b in &prog.beginfile {
            match self.exec_block(b) {
                Ok(_) => {}
                Err(Jump::NextFile) => return self.end_file(),
                Err(Jump::Next) => return fatal("`next' used in BEGINFILE action"),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Close the current main input and run gawk's `ENDFILE` actions.
    fn end_file(&mut self) -> R<()> {
        if self.main_src.take().is_none() {
            return Ok(());
        }
        let prog = self.prog;
        for b in &prog.endfile {
            match self.exec_block(b) {
                Ok(_) => {}
                Err(Jump::Next | Jump::NextFile) => {
                    return fatal("`next' used in ENDFILE action");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn open_next_main(&mut self) -> R<bool> {
        loop {
            let argc = self.globals[G_ARGC as usize].num();
            if (self.argi as f64) >= argc {
                if !self.used_file {
                    self.used_file = true;
                    self.main_src = Some(InSrc::Stdin);
                    self.main_reader = Reader::default();
                    self.globals[G_FNR as usize] = Value::Num(0.0);
                    return Ok(true);
                }
                return Ok(false);
            }
            let key = self.argi.to_string();
            self.argi += 1;
            let arg = match self.arrays[G_ARGV as usize].get(key.as_bytes()) {
                Some(v) => self.to_bytes(v),
                None => continue,
            };
            if arg.is_empty() {
                continue;
            }
            if self.assign_operand(&arg)? {
                continue;
            }
            self.used_file = true;
            let src = if &arg[..] == b"-" || &arg[..] == b"/dev/stdin" {
                InSrc::Stdin
            } else if &arg[..] == b"/dev/null" {
                InSrc::Null
            } else {
                match self.cx.fs.open_read(self.cx.cwd, &lossy(&arg)) {
                    Ok(f) => InSrc::File(f),
                    Err(e) => {
                        // gawk: BEGINFILE sees the failure in ERRNO and may skip the file
                        // with `nextfile`; otherwise it is fatal.
                        if !self.prog.beginfile.is_empty()
                            && !self.prog.posix
                            && self.beginfile_skips(&arg, &e)?
                        {
                            continue;
                        }
                        return fatal(format!(
                            "cannot open file `{}' for reading: {e}",
                            lossy(&arg)
                        ));
                    }
                }
            };
            self.main_src = Some(src);
            self.main_reader = Reader::default();
            self.globals[G_FILENAME as usize] = Value::str(&arg);
            self.globals[G_FNR as usize] = Value::Num(0.0);
            return Ok(true);
        }
    }

    fn getline(&mut self, src: &'a GetSrc, var: Option<&'a Expr>) -> R<Value> {
        match src {
            GetSrc::Cmd(_) => fatal(format!(
                "reading a command (\"cmd\" | getline) is not available: {NOPROC}"
            )),
            GetSrc::Main => {
                if var.is_none() {
                    let got = self.read_main_record()?;
                    return Ok(Value::Num(if got { 1.0 } else { 0.0 }));
                }
                let mut buf = Vec::new();
                if !self.read_main(&mut buf)? {
                    return Ok(Value::Num(0.0));
                }
                self.bump_nr();
                if let Some(v) = var {
                    self.assign_expr(v, Value::input(&buf))?;
                }
                Ok(Value::Num(1.0))
            }
            GetSrc::File(f) => {
                let mut name = Vec::new();
                self.push_str(f, &mut name)?;
                let idx = match self.inputs.iter().position(|(n, _, _)| *n == name) {
                    Some(i) => i,
                    None => {
                        let src = if &name[..] == b"-" || &name[..] == b"/dev/stdin" {
                            InSrc::Stdin
                        } else if &name[..] == b"/dev/null" {
                            InSrc::Null
                        } else {
                            match self.cx.fs.open_read(self.cx.cwd, &lossy(&name)) {
                                Ok(f) => InSrc::File(f),
                                Err(e) => {
                                    self.set_errno(&e);
                                    return Ok(Value::Num(-1.0));
                                }
                            }
                        };
                        self.inputs.push((name, Reader::default(), src));
                        self.inputs.len() - 1
                    }
                };
                let mut buf = Vec::new();
                let (_, reader, src) = &mut self.inputs[idx];
                let r = match src {
                    InSrc::Stdin => reader.next(&mut *self.stdin, &self.rs, &mut buf),
                    InSrc::File(f) => reader.next(f, &self.rs, &mut buf),
                    InSrc::Null => Ok(false),
                };
                match r {
                    Ok(true) => {}
                    Ok(false) => return Ok(Value::Num(0.0)),
                    Err(_) => return Ok(Value::Num(-1.0)),
                }
                if let Some(rt) = self.rt {
                    let mut t = Vec::new();
                    self.inputs[idx].1.terminator(&mut t);
                    self.globals[rt as usize] = Value::Str(Rc::new(t));
                }
                match var {
                    Some(v) => self.assign_expr(v, Value::input(&buf))?,
                    None => {
                        self.record = buf;
                        self.reset_split();
                    }
                }
                Ok(Value::Num(1.0))
            }
        }
    }

    // ---- records and fields ----

    /// The bytes `fields` index into.
    #[inline]
    fn field_text(&self) -> &[u8] {
        if self.fields_in_csv {
            &self.csv_text
        } else {
            &self.record
        }
    }

    /// `--csv`: records and fields by CSV's rules (`FS` and `RS` no longer apply).
    pub fn set_csv(&mut self) {
        self.csv = true;
        self.fs = FsMode::Csv;
        self.rs = RsMode::Csv;
    }

    #[inline]
    fn reset_split(&mut self) {
        self.split = false;
        self.fields_in_csv = false;
        self.fields.clear();
        self.scan_pos = 0;
        self.rec_str = false;
        self.str_fields.clear();
    }

    /// Whether field `i` holds a string assigned by the program (gawk keeps its type:
    /// it compares as a string even when it looks numeric), rather than input (strnum).
    #[inline]
    fn field_is_str(&self, i: usize) -> bool {
        if i == 0 {
            self.rec_str
        } else {
            self.str_fields.get(i).copied().unwrap_or(false)
        }
    }

    /// Split fields until `want` are known (or all of them), resuming where the last
    /// partial split stopped; single-space and single-byte FS split lazily.
    fn split_more(&mut self, want: usize) {
        let rec = &self.record;
        match &self.fs {
            FsMode::Space => {
                let n = rec.len();
                let mut i = self.scan_pos;
                while self.fields.len() < want {
                    while i < n && matches!(rec[i], b' ' | b'\t' | b'\n') {
                        i += 1;
                    }
                    if i >= n {
                        self.nf = self.fields.len();
                        self.split = true;
                        break;
                    }
                    let s = i;
                    while i < n && !matches!(rec[i], b' ' | b'\t' | b'\n') {
                        i += 1;
                    }
                    self.fields.push((s, i));
                }
                self.scan_pos = i;
            }
            FsMode::Byte(b) => {
                if rec.is_empty() {
                    self.nf = 0;
                    self.split = true;
                    return;
                }
                let mut s = self.scan_pos;
                while self.fields.len() < want {
                    match memchr::memchr(*b, &rec[s..]) {
                        Some(k) => {
                            self.fields.push((s, s + k));
                            s += k + 1;
                        }
                        None => {
                            self.fields.push((s, rec.len()));
                            self.nf = self.fields.len();
                            self.split = true;
                            break;
                        }
                    }
                }
                self.scan_pos = s;
            }
            _ => self.split_record(),
        }
    }

    fn split_record(&mut self) {
        self.fields.clear();
        self.scan_pos = 0;
        let rec = &self.record;
        match &self.fs {
            FsMode::Space | FsMode::Byte(_) => {
                self.split_more(usize::MAX);
                return;
            }
            FsMode::Regex(re) => {
                if !rec.is_empty() {
                    let mut s = 0;
                    for (ms, me) in re.find_iter(rec) {
                        if ms == me {
                            continue;
                        }
                        self.fields.push((s, ms));
                        s = me;
                    }
                    self.fields.push((s, rec.len()));
                }
            }
            FsMode::Chars => {
                for i in 0..rec.len() {
                    self.fields.push((i, i + 1));
                }
            }
            FsMode::Fpat(re) => {
                for m in re.find_iter(rec) {
                    self.fields.push(m);
                }
            }
            FsMode::Csv => {
                self.csv_text.clear();
                super::input::csv_fields(rec, &mut self.csv_text, &mut self.fields);
                self.fields_in_csv = true;
            }
        }
        self.nf = self.fields.len();
        self.split = true;
    }

    #[inline]
    fn ensure_split(&mut self) {
        if !self.split {
            self.split_more(usize::MAX);
        }
    }

    #[inline]
    fn field(&mut self, i: usize) -> &[u8] {
        if i == 0 {
            return &self.record;
        }
        if !self.split && i > self.fields.len() {
            self.split_more(i);
        }
        match self.fields.get(i - 1) {
            Some(&(s, e)) => &self.field_text()[s..e],
            None => &[],
        }
    }

    fn field_index(&mut self, e: &'a Expr) -> R<usize> {
        let n = match e {
            Expr::Num(n) => *n,
            _ => self.num(e)?,
        };
        if n < 0.0 {
            return fatal(format!("attempt to access field {}", n as i64));
        }
        Ok(n as usize)
    }

    fn rebuild(&mut self, n: usize, set: Option<(usize, &[u8])>) -> R<()> {
        // Each field costs its range and a separator: refuse a count past the memory cap
        // (`NF = 1e12`) rather than abort on the allocation.
        let cost = n.saturating_mul(16 + self.ofs.len());
        if cost > self.cx.fs.room() {
            return fatal(format!(
                "stopped: {n} fields would run past the command's memory limit"
            ));
        }
        self.ensure_split();
        // A rebuilt record is a string (gawk).
        self.rec_str = true;
        self.str_fields.truncate(n + 1);
        let mut rec = Vec::with_capacity(self.record.len() + 16);
        let mut fields = Vec::with_capacity(n);
        for j in 1..=n {
            if j > 1 {
                rec.extend_from_slice(&self.ofs);
            }
            let s = rec.len();
            match set {
                Some((i, v)) if i == j => rec.extend_from_slice(v),
                _ => {
                    if let Some(&(a, b)) = self.fields.get(j - 1) {
                        rec.extend_from_slice(&self.field_text()[a..b]);
                    }
                }
            }
            fields.push((s, rec.len()));
        }
        self.record = rec;
        self.fields = fields;
        self.fields_in_csv = false;
        self.nf = n;
        self.split = true;
        Ok(())
    }

    fn set_field(&mut self, i: usize, v: &[u8]) -> R<()> {
        if i == 0 {
            self.record.clear();
            self.record.extend_from_slice(v);
            self.reset_split();
            return Ok(());
        }
        self.ensure_split();
        let n = self.nf.max(i);
        self.rebuild(n, Some((i, v)))
    }

    fn set_nf(&mut self, n: f64) -> R<()> {
        if n < 0.0 {
            return fatal("NF set to negative value");
        }
        self.rebuild(n as usize, None)?;
        Ok(())
    }

    // ---- special variables ----

    fn special_set(&mut self, i: u32) -> R<()> {
        if i >= SPECIALS.len() as u32 {
            return Ok(());
        }
        let bytes = |it: &Interp<'a>| it.to_bytes(&it.globals[i as usize]);
        match i {
            // `--csv` fixes how records and fields are read (gawk ignores FS then).
            G_FS | G_RS if self.csv => {}
            G_FS => {
                self.ensure_split();
                let fs = bytes(self);
                self.fs = self.fs_mode(&fs)?;
                self.fpat_on = false;
            }
            G_RS => {
                let rs = bytes(self);
                self.rs = match rs.len() {
                    0 => RsMode::Paragraph,
                    1 => RsMode::Byte(rs[0]),
                    _ => RsMode::Regex(
                        re::build_with(&rs, self.icase, self.prog.posix).map_err(Jump::Fatal)?,
                    ),
                };
                if !self.fpat_on {
                    let fs = self.to_bytes(&self.globals[G_FS as usize]);
                    self.fs = self.fs_mode(&fs)?;
                }
            }
            G_IGNORECASE if !self.prog.posix => self.set_icase()?,
            G_FPAT if !self.prog.posix => {
                self.ensure_split();
                let fpat = bytes(self);
                let re =
                    re::build(&fpat, self.icase).map_err(|e| Jump::Fatal(format!("FPAT: {e}")))?;
                self.fs = FsMode::Fpat(re);
                self.fpat_on = true;
            }
            G_OFS => self.ofs = bytes(self),
            G_ORS => self.ors = bytes(self),
            G_SUBSEP => self.subsep = bytes(self),
            G_CONVFMT => self.convfmt = bytes(self),
            G_OFMT => self.ofmt = bytes(self),
            _ => {}
        }
        Ok(())
    }

    fn fs_mode(&self, fs: &[u8]) -> R<FsMode> {
        let para = matches!(self.rs, RsMode::Paragraph);
        Ok(if fs == b" " {
            FsMode::Space
        } else if fs.is_empty() {
            FsMode::Chars
        } else if fs.len() == 1 && fs[0] != b'\\' {
            if para {
                let esc: &[u8] = if b"\\]^-[".contains(&fs[0]) {
                    b"\\"
                } else {
                    b""
                };
                let pat = [b"[", esc, fs, b"\n]"].concat();
                FsMode::Regex(
                    re::build_with(&pat, self.icase, self.prog.posix).map_err(Jump::Fatal)?,
                )
            } else {
                FsMode::Byte(fs[0])
            }
        } else {
            // In paragraph mode newline separates fields only for a single-character FS
            // (gawk: not for a regex).
            let pat = fs.to_vec();
            FsMode::Regex(
                re::build_with(&pat, self.icase, self.prog.posix)
                    .map_err(|e| Jump::Fatal(format!("FS: {e}")))?,
            )
        })
    }

    // ---- conversions ----

    fn to_bytes(&self, v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        self.push_value(v, &mut out);
        out
    }

    fn push_value(&self, v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Uninit => {}
            Value::Num(n) => push_num(*n, &self.convfmt, out),
            Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
        }
    }

    /// Append the string value of `e` (numbers through CONVFMT).
    fn push_str(&mut self, e: &'a Expr, out: &mut Vec<u8>) -> R<()> {
        match e {
            Expr::Str(s) => out.extend_from_slice(s),
            Expr::Field(ix) => {
                let i = self.field_index(ix)?;
                let f = self.field(i);
                out.extend_from_slice(f);
            }
            Expr::Var(r) => {
                let v = self.var(*r);
                match v {
                    Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
                    Value::Num(n) => push_num(*n, &self.convfmt, out),
                    Value::Uninit => {}
                }
            }
            Expr::Concat(a, b) => {
                self.push_str(a, out)?;
                self.push_str(b, out)?;
            }
            Expr::Group(x) => self.push_str(x, out)?,
            _ => {
                let v = self.eval(e)?;
                self.push_value(&v, out);
            }
        }
        Ok(())
    }

    /// Append `e` as `print` shows it (numbers through OFMT).
    fn push_out(&mut self, e: &'a Expr, out: &mut Vec<u8>) -> R<()> {
        match e {
            Expr::Str(_) | Expr::Field(_) | Expr::Concat(..) => self.push_str(e, out),
            _ => {
                let v = self.eval(e)?;
                match v {
                    Value::Num(n) => push_num(n, &self.ofmt, out),
                    other => self.push_value(&other, out),
                }
                Ok(())
            }
        }
    }

    // ---- variables ----

    #[inline]
    fn var(&self, r: VarRef) -> &Value {
        match r {
            VarRef::Global(i) => &self.globals[i as usize],
            VarRef::Local(j) => &self.stack[self.base + j as usize],
        }
    }

    fn slot(&mut self, r: VarRef) -> &mut Value {
        match r {
            VarRef::Global(i) => &mut self.globals[i as usize],
            VarRef::Local(j) => &mut self.stack[self.base + j as usize],
        }
    }

    fn array_id(&self, r: VarRef) -> usize {
        match r {
            VarRef::Global(i) => i as usize,
            VarRef::Local(j) => self.astack[self.base + j as usize],
        }
    }

    fn is_array(&self, r: VarRef) -> bool {
        match r {
            VarRef::Global(i) => self.prog.global_array[i as usize],
            VarRef::Local(j) => self
                .cur_fn
                .is_some_and(|f| self.prog.funcs[f].array_param[j as usize]),
        }
    }

    fn set_var(&mut self, r: VarRef, v: Value) -> R<()> {
        match r {
            VarRef::Global(i) => {
                self.globals[i as usize] = v;
                if i < SPECIALS.len() as u32 {
                    self.special_set(i)?;
                }
            }
            VarRef::Local(j) => self.stack[self.base + j as usize] = v,
        }
        Ok(())
    }

    fn key(&mut self, subs: &'a [Expr], out: &mut Vec<u8>) -> R<()> {
        out.clear();
        for (k, s) in subs.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(&self.subsep.clone());
            }
            match s {
                Expr::Num(n) => push_num(*n, &self.convfmt, out),
                _ => self.push_str(s, out)?,
            }
        }
        Ok(())
    }

    fn place(&mut self, lv: &'a Expr) -> R<Place> {
        Ok(match lv {
            Expr::Var(r) => Place::Var(*r),
            Expr::Nf => Place::Nf,
            Expr::Field(ix) => Place::Field(self.field_index(ix)?),
            Expr::Index(r, subs) => {
                let mut k = std::mem::take(&mut self.keybuf);
                self.key(subs, &mut k)?;
                Place::Elem(self.array_id(*r), k)
            }
            Expr::Group(x) => self.place(x)?,
            _ => return fatal("assignment to a non-variable"),
        })
    }

    fn get_place(&mut self, p: &Place) -> Value {
        match p {
            Place::Var(r) => self.var(*r).clone(),
            Place::Nf => {
                self.ensure_split();
                Value::Num(self.nf as f64)
            }
            Place::Field(i) => Value::input(self.field(*i)),
            Place::Elem(id, k) => self.arrays[*id].get(&k[..]).cloned().unwrap_or_default(),
        }
    }

    fn set_place(&mut self, p: Place, v: Value) -> R<()> {
        match p {
            Place::Var(r) => self.set_var(r, v)?,
            Place::Nf => self.set_nf(v.num())?,
            Place::Field(i) => {
                let b = self.to_bytes(&v);
                self.set_field(i, &b)?;
                let is_str = matches!(v, Value::Str(_));
                if i == 0 {
                    self.rec_str = is_str;
                } else if is_str || i < self.str_fields.len() {
                    if i >= self.str_fields.len() {
                        self.str_fields.resize(i + 1, false);
                    }
                    self.str_fields[i] = is_str;
                }
            }
            Place::Elem(id, k) => {
                match self.arrays[id].get_mut(&k[..]) {
                    Some(slot) => *slot = v,
                    None => {
                        self.arrays[id].insert(Box::from(&k[..]), v);
                    }
                }
                self.keybuf = k;
            }
        }
        Ok(())
    }

    fn assign_expr(&mut self, lv: &'a Expr, v: Value) -> R<()> {
        let p = self.place(lv)?;
        self.set_place(p, v)
    }

    // ---- statements ----

    fn exec_block(&mut self, v: &'a [Stmt]) -> R<Flow> {
        for s in v {
            match self.exec(s)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &'a Stmt) -> R<Flow> {
        match s {
            Stmt::Expr(e) => {
                self.eval_discard(e)?;
            }
            Stmt::Print(args, redir) => {
                let mut buf = std::mem::take(&mut self.linebuf);
                buf.clear();
                if args.is_empty() {
                    buf.extend_from_slice(&self.record);
                } else {
                    for (k, a) in args.iter().enumerate() {
                        if k > 0 {
                            buf.extend_from_slice(&self.ofs);
                        }
                        if let Err(e) = self.push_out(a, &mut buf) {
                            self.linebuf = buf;
                            return Err(e);
                        }
                    }
                }
                buf.extend_from_slice(&self.ors);
                let r = self.emit(redir.as_ref(), &buf);
                self.linebuf = buf;
                r?;
            }
            Stmt::Printf(args, redir) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let fmt = self.to_bytes(&vals[0]);
                let mut buf = Vec::new();
                format::sprintf(&mut buf, &fmt, &vals[1..], &self.convfmt).map_err(Jump::Fatal)?;
                self.emit(redir.as_ref(), &buf)?;
            }
            Stmt::If(c, a, b) => {
                if self.cond(c)? {
                    return self.exec(a);
                } else if let Some(b) = b {
                    return self.exec(b);
                }
            }
            Stmt::While(c, b) => {
                while self.cond(c)? {
                    self.tick()?;
                    match self.exec(b)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
            }
            Stmt::Do(b, c) => loop {
                self.tick()?;
                match self.exec(b)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    _ => {}
                }
                if !self.cond(c)? {
                    break;
                }
            },
            Stmt::For(init, c, step, b) => {
                if let Some(i) = init {
                    self.exec(i)?;
                }
                loop {
                    if let Some(c) = c
                        && !self.cond(c)?
                    {
                        break;
                    }
                    self.tick()?;
                    match self.exec(b)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                    if let Some(st) = step {
                        self.exec(st)?;
                    }
                }
            }
            Stmt::ForIn(k, a, b) => {
                let id = self.array_id(*a);
                let mut keys: Vec<Box<[u8]>> = self.arrays[id].keys().cloned().collect();
                self.sort_for_in(id, &mut keys)?;
                // gawk walks a snapshot of the indices, deleted ones included.
                for key in keys {
                    self.set_var(*k, Value::input(&key))?;
                    self.tick()?;
                    match self.exec(b)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
            }
            Stmt::Block(v) => return self.exec_block(v),
            Stmt::Next => return Err(Jump::Next),
            Stmt::NextFile => return Err(Jump::NextFile),
            Stmt::Exit(e) => {
                if let Some(e) = e {
                    self.exit_code = self.num(e)? as i32;
                }
                return Err(Jump::Exit);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Delete(r, subs) => {
                let id = self.array_id(*r);
                match subs {
                    None => self.arrays[id].clear(),
                    Some(subs) => {
                        let mut k = std::mem::take(&mut self.keybuf);
                        self.key(subs, &mut k)?;
                        self.arrays[id].remove(&k[..]);
                        self.keybuf = k;
                    }
                }
            }
        }
        Ok(Flow::Normal)
    }

    fn eval_discard(&mut self, e: &'a Expr) -> R<()> {
        match e {
            Expr::Incr(lv, d, _) => {
                self.incr(lv, *d)?;
            }
            _ => {
                self.eval(e)?;
            }
        }
        Ok(())
    }

    // ---- expressions ----

    /// `lv += d`; the old and new values.
    fn incr(&mut self, lv: &'a Expr, d: f64) -> R<(f64, f64)> {
        match lv {
            Expr::Var(VarRef::Global(i)) if *i >= SPECIALS.len() as u32 => {
                let slot = &mut self.globals[*i as usize];
                let old = slot.num();
                *slot = Value::Num(old + d);
                Ok((old, old + d))
            }
            Expr::Var(VarRef::Local(j)) => {
                let slot = &mut self.stack[self.base + *j as usize];
                let old = slot.num();
                *slot = Value::Num(old + d);
                Ok((old, old + d))
            }
            Expr::Index(r, subs) => {
                let mut k = std::mem::take(&mut self.keybuf);
                let r2 = self.key(subs, &mut k);
                if let Err(e) = r2 {
                    self.keybuf = k;
                    return Err(e);
                }
                let id = self.array_id(*r);
                let arr = &mut self.arrays[id];
                let res = match arr.get_mut(&k[..]) {
                    Some(slot) => {
                        let old = slot.num();
                        *slot = Value::Num(old + d);
                        (old, old + d)
                    }
                    None => {
                        arr.insert(Box::from(&k[..]), Value::Num(d));
                        (0.0, d)
                    }
                };
                self.keybuf = k;
                Ok(res)
            }
            _ => {
                let p = self.place(lv)?;
                let old = self.get_place(&p).num();
                self.set_place(p, Value::Num(old + d))?;
                Ok((old, old + d))
            }
        }
    }

    fn cond(&mut self, e: &'a Expr) -> R<bool> {
        Ok(match e {
            Expr::Regex(i) => self.regexes[*i].is_match(&self.record),
            Expr::Cmp(op, a, b) => self.compare(*op, a, b)?,
            Expr::And(a, b) => self.cond(a)? && self.cond(b)?,
            Expr::Or(a, b) => self.cond(a)? || self.cond(b)?,
            Expr::Not(a) => !self.cond(a)?,
            Expr::Group(a) => self.cond(a)?,
            Expr::Num(n) => *n != 0.0,
            Expr::Match(neg, a, b) => self.matches(a, b)? != *neg,
            _ => self.eval(e)?.truthy(),
        })
    }

    fn num(&mut self, e: &'a Expr) -> R<f64> {
        Ok(match e {
            Expr::Num(n) => *n,
            Expr::Var(r) => self.var(*r).num(),
            Expr::Field(ix) => {
                let i = self.field_index(ix)?;
                str_to_num(self.field(i))
            }
            Expr::Nf => {
                self.ensure_split();
                self.nf as f64
            }
            Expr::Arith(op, a, b) => {
                let x = self.num(a)?;
                let y = self.num(b)?;
                arith(*op, x, y)?
            }
            Expr::Neg(a) => -self.num(a)?,
            Expr::Plus(a) | Expr::Group(a) => self.num(a)?,
            _ => self.eval(e)?.num(),
        })
    }

    fn regex_for(&mut self, e: &'a Expr) -> R<Regex> {
        if let Expr::Regex(i) = strip(e) {
            return Ok(self.regexes[*i].clone());
        }
        let mut pat = Vec::new();
        self.push_str(e, &mut pat)?;
        self.dyn_regex(&pat)
    }

    fn dyn_regex(&mut self, pat: &[u8]) -> R<Regex> {
        if let Some(r) = self.dyn_re.get(pat) {
            return Ok(r.clone());
        }
        let r = re::build_with(pat, self.icase, self.prog.posix)
            .map_err(|e| Jump::Fatal(format!("invalid regex /{}/: {e}", lossy(pat))))?;
        if self.dyn_re.len() > 500 {
            self.dyn_re.clear();
        }
        self.dyn_re.insert(pat.to_vec(), r.clone());
        Ok(r)
    }

    fn matches(&mut self, a: &'a Expr, b: &'a Expr) -> R<bool> {
        if let Expr::Regex(i) = strip(b) {
            if let Expr::Field(ix) = a {
                let n = self.field_index(ix)?;
                self.ensure_split();
                let re = &self.regexes[*i];
                let f = if n == 0 {
                    &self.record[..]
                } else {
                    match self.fields.get(n - 1) {
                        Some(&(s, e)) => &self.field_text()[s..e],
                        None => &[],
                    }
                };
                return Ok(re.is_match(f));
            }
            let mut s = Vec::new();
            self.push_str(a, &mut s)?;
            return Ok(self.regexes[*i].is_match(&s));
        }
        let mut s = Vec::new();
        self.push_str(a, &mut s)?;
        let re = self.regex_for(b)?;
        Ok(re.is_match(&s))
    }

    fn compare(&mut self, op: CmpOp, a: &'a Expr, b: &'a Expr) -> R<bool> {
        let simple = |e: &Expr| matches!(e, Expr::Num(_) | Expr::Str(_) | Expr::Var(_));
        if let Expr::Field(ix) = a
            && simple(b)
        {
            let i = self.field_index(ix)?;
            let bv = self.eval(b)?;
            return Ok(self.cmp_field(op, i, &bv, false));
        }
        if let Expr::Field(ix) = b
            && simple(a)
        {
            let i = self.field_index(ix)?;
            let av = self.eval(a)?;
            return Ok(self.cmp_field(op, i, &av, true));
        }
        let va = self.eval(a)?;
        let vb = self.eval(b)?;
        Ok(match (va.cmp_num(), vb.cmp_num()) {
            (Some(x), Some(y)) => num_cmp(op, x, y),
            _ => {
                let mut sa = self.to_bytes(&va);
                let mut sb = self.to_bytes(&vb);
                if self.icase {
                    sa.make_ascii_lowercase();
                    sb.make_ascii_lowercase();
                }
                ord_ok(op, sa.cmp(&sb))
            }
        })
    }

    fn cmp_field(&mut self, op: CmpOp, i: usize, v: &Value, swapped: bool) -> bool {
        let vn = v.cmp_num();
        if let Some(y) = vn
            && !self.field_is_str(i)
            && let Some(x) = looks_numeric(self.field(i))
        {
            return if swapped {
                num_cmp(op, y, x)
            } else {
                num_cmp(op, x, y)
            };
        }
        let mut vs = self.to_bytes(v);
        if self.icase {
            let mut f = self.field(i).to_vec();
            f.make_ascii_lowercase();
            vs.make_ascii_lowercase();
            let o = if swapped { vs.cmp(&f) } else { f.cmp(&vs) };
            return ord_ok(op, o);
        }
        let f = self.field(i);
        let o = if swapped {
            vs[..].cmp(f)
        } else {
            f.cmp(&vs[..])
        };
        ord_ok(op, o)
    }

    fn eval(&mut self, e: &'a Expr) -> R<Value> {
        Ok(match e {
            Expr::Num(n) => Value::Num(*n),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Regex(i) => {
                Value::Num(f64::from(u8::from(self.regexes[*i].is_match(&self.record))))
            }
            Expr::Var(r) => {
                if self.is_array(*r) {
                    return fatal("attempt to use array in a scalar context");
                }
                self.var(*r).clone()
            }
            Expr::Nf => {
                self.ensure_split();
                Value::Num(self.nf as f64)
            }
            Expr::Field(ix) => {
                let i = self.field_index(ix)?;
                if self.field_is_str(i) {
                    return Ok(Value::str(self.field(i)));
                }
                Value::input(self.field(i))
            }
            Expr::Index(r, subs) => {
                let mut k = std::mem::take(&mut self.keybuf);
                let kr = self.key(subs, &mut k);
                if let Err(err) = kr {
                    self.keybuf = k;
                    return Err(err);
                }
                let id = self.array_id(*r);
                let v = match self.arrays[id].get(&k[..]) {
                    Some(v) => v.clone(),
                    None => {
                        self.arrays[id].insert(Box::from(&k[..]), Value::Uninit);
                        Value::Uninit
                    }
                };
                self.keybuf = k;
                v
            }
            Expr::Assign(op, lv, rhs) => match op {
                None => {
                    if let Expr::Var(r) = **lv
                        && let Some(v) = self.append(r, rhs)?
                    {
                        return Ok(v);
                    }
                    let v = self.eval(rhs)?;
                    self.assign_expr(lv, v.clone())?;
                    v
                }
                Some(op) => {
                    // gawk evaluates the right side first (`a[i++] += i`).
                    let r = self.num(rhs)?;
                    let p = self.place(lv)?;
                    let cur = self.get_place(&p).num();
                    let n = arith(*op, cur, r)?;
                    self.set_place(p, Value::Num(n))?;
                    Value::Num(n)
                }
            },
            Expr::Incr(lv, d, pre) => {
                let (old, new) = self.incr(lv, *d)?;
                Value::Num(if *pre { new } else { old })
            }
            Expr::Cond(c, a, b) => {
                if self.cond(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::And(..) | Expr::Or(..) | Expr::Not(_) | Expr::Cmp(..) | Expr::Match(..) => {
                Value::Num(f64::from(u8::from(self.cond(e)?)))
            }
            Expr::Neg(_) | Expr::Plus(_) | Expr::Arith(..) => Value::Num(self.num(e)?),
            Expr::Concat(..) => {
                let mut out = Vec::new();
                self.push_str(e, &mut out)?;
                if out.len() > self.cx.fs.room() {
                    return fatal(
                        "stopped: a string ran past the command's memory limit".to_string(),
                    );
                }
                Value::Str(Rc::new(out))
            }
            Expr::In(subs, r) => {
                let mut k = Vec::new();
                self.key(subs, &mut k)?;
                let id = self.array_id(*r);
                Value::Num(f64::from(u8::from(self.arrays[id].contains_key(&k[..]))))
            }
            Expr::Call(fi, args) => self.call(*fi, args)?,
            Expr::Builtin(b, args) => self.builtin(b, args)?,
            Expr::Getline(src, var) => self.getline(src, var.as_deref())?,
            Expr::Group(x) => self.eval(x)?,
        })
    }

    /// `v = v x ...` appends to `v` in place (amortized, as gawk does) instead of copying
    /// the whole string on every iteration; `None` when `rhs` is not such a concatenation
    /// or `v` is special. The tail is evaluated first, so it must have no side effects.
    fn append(&mut self, r: VarRef, rhs: &'a Expr) -> R<Option<Value>> {
        // Most assignments are not appends: find out without allocating.
        let mut leftmost = rhs;
        while let Expr::Concat(a, _) = leftmost {
            leftmost = a;
        }
        if !matches!(leftmost, Expr::Var(v) if *v == r) || std::ptr::eq(leftmost, rhs) {
            return Ok(None);
        }
        let mut tail = Vec::new();
        let mut e = rhs;
        loop {
            match e {
                Expr::Concat(a, b) if pure(b) => {
                    tail.push(&**b);
                    e = a;
                }
                Expr::Var(v) if *v == r && !tail.is_empty() => break,
                _ => return Ok(None),
            }
        }
        if matches!(r, VarRef::Global(i) if i < SPECIALS.len() as u32) || self.is_array(r) {
            return Ok(None);
        }
        let mut more = Vec::new();
        for x in tail.iter().rev() {
            self.push_str(x, &mut more)?;
        }
        let mut s = match std::mem::take(self.slot(r)) {
            Value::Str(s) | Value::StrNum(s) => s,
            Value::Uninit => Rc::new(Vec::new()),
            Value::Num(n) => {
                let mut b = Vec::new();
                push_num(n, &self.convfmt, &mut b);
                Rc::new(b)
            }
        };
        if s.len() + more.len() > self.cx.fs.room() {
            return fatal("stopped: a string ran past the command's memory limit".to_string());
        }
        Rc::make_mut(&mut s).extend_from_slice(&more);
        *self.slot(r) = Value::Str(s.clone());
        Ok(Some(Value::Str(s)))
    }

    /// Function `fi`, if it may be called now: defined (gawk: fatal only when reached) and
    /// not nested past the depth and stack limits.
    fn callable(&self, fi: usize) -> R<&'a Func> {
        let f = &self.prog.funcs[fi];
        if !f.defined {
            return fatal(format!("function `{}' not defined", f.name));
        }
        if self.depth >= MAX_DEPTH || self.stack_top.abs_diff(stack_addr()) > STACK_BUDGET {
            return fatal(format!(
                "function `{}': function calls nested too deeply",
                f.name
            ));
        }
        Ok(f)
    }

    fn call(&mut self, fi: usize, args: &'a [Expr]) -> R<Value> {
        let f = self.callable(fi)?;
        if args.len() > f.params.len() {
            return fatal(format!(
                "function `{}' called with more arguments than declared",
                f.name
            ));
        }
        let mark = self.arrays.len();
        let np = f.params.len();
        let mut vals = Vec::with_capacity(np);
        let mut arrs = Vec::with_capacity(np);
        for j in 0..np {
            if f.array_param[j] {
                match args.get(j).map(strip) {
                    Some(Expr::Var(r)) => arrs.push(self.array_id(*r)),
                    Some(_) => {
                        return fatal(format!(
                            "function `{}': argument {} must be an array",
                            f.name,
                            j + 1
                        ));
                    }
                    None => {
                        self.arrays.push(Array::default());
                        arrs.push(self.arrays.len() - 1);
                    }
                }
                vals.push(Value::Uninit);
            } else {
                let v = match args.get(j) {
                    Some(Expr::Var(r)) if self.is_array(*r) => {
                        return fatal(format!(
                            "function `{}': array passed for scalar parameter `{}'",
                            f.name, f.params[j]
                        ));
                    }
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                vals.push(v);
                arrs.push(usize::MAX);
            }
        }
        self.run_frame(fi, vals, arrs, mark)
    }

    /// Call user function `fi` with argument values (gawk's sort comparison functions).
    fn call_values(&mut self, fi: usize, args: Vec<Value>) -> R<Value> {
        let f = self.callable(fi)?;
        let mark = self.arrays.len();
        let mut args = args.into_iter();
        let mut vals = Vec::with_capacity(f.params.len());
        let mut arrs = Vec::with_capacity(f.params.len());
        for j in 0..f.params.len() {
            let v = args.next().unwrap_or_default();
            if f.array_param[j] {
                self.arrays.push(Array::default());
                arrs.push(self.arrays.len() - 1);
                vals.push(Value::Uninit);
            } else {
                arrs.push(usize::MAX);
                vals.push(v);
            }
        }
        self.run_frame(fi, vals, arrs, mark)
    }

    fn run_frame(
        &mut self,
        fi: usize,
        vals: Vec<Value>,
        arrs: Vec<usize>,
        mark: usize,
    ) -> R<Value> {
        let prog = self.prog;
        let f = &prog.funcs[fi];
        let saved = (self.base, self.cur_fn);
        self.base = self.stack.len();
        self.stack.extend(vals);
        self.astack.extend(arrs);
        self.cur_fn = Some(fi);
        self.depth += 1;
        let r = self.exec_block(&f.body);
        self.depth -= 1;
        self.stack.truncate(self.base);
        self.astack.truncate(self.base);
        (self.base, self.cur_fn) = saved;
        self.arrays.truncate(mark.max(self.prog.globals.len()));
        match r? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Value::Uninit),
        }
    }

    fn str_arg(&mut self, e: &'a Expr) -> R<Vec<u8>> {
        let mut s = Vec::new();
        self.push_str(e, &mut s)?;
        Ok(s)
    }

    fn builtin(&mut self, b: &str, args: &'a [Expr]) -> R<Value> {
        let n = |x: f64| Ok(Value::Num(x));
        match b {
            "length" => {
                if args.is_empty() {
                    return n(self.record.len() as f64);
                }
                if let Expr::Var(r) = strip(&args[0])
                    && self.is_array(*r)
                {
                    if self.prog.posix {
                        return fatal("length: received array argument");
                    }
                    let id = self.array_id(*r);
                    return n(self.arrays[id].len() as f64);
                }
                let s = self.str_arg(&args[0])?;
                n(s.len() as f64)
            }
            "substr" => {
                let s = self.str_arg(&args[0])?;
                let m = self.num(&args[1])?;
                let len = s.len() as f64;
                let start = if m.is_nan() { 1.0 } else { m.trunc().max(1.0) };
                let end = match args.get(2) {
                    Some(c) => {
                        let c = self.num(c)?;
                        if c.is_nan() || c <= 0.0 {
                            return Ok(Value::str(b""));
                        }
                        (start + c.trunc()).min(len + 1.0)
                    }
                    None => len + 1.0,
                };
                if start > len || end <= start {
                    return Ok(Value::str(b""));
                }
                let a = start as usize - 1;
                let z = end as usize - 1;
                Ok(Value::str(&s[a..z]))
            }
            "index" => {
                let s = self.str_arg(&args[0])?;
                let t = self.str_arg(&args[1])?;
                let pos = if self.icase {
                    memchr::memmem::find(&s.to_ascii_lowercase(), &t.to_ascii_lowercase())
                } else {
                    memchr::memmem::find(&s, &t)
                };
                let pos = pos.map_or(0, |p| p + 1);
                n(pos as f64)
            }
            "split" => {
                let s = self.str_arg(&args[0])?;
                let Expr::Var(r) = strip(&args[1]) else {
                    return fatal("split: second argument is not an array");
                };
                let id = self.array_id(*r);
                let mode = match args.get(2) {
                    None => None,
                    Some(e) => Some(match strip(e) {
                        // An empty regex splits into characters, as "" does.
                        Expr::Regex(i) if self.prog.regexes[*i].is_empty() => FsMode::Chars,
                        Expr::Regex(i) => FsMode::Regex(self.regexes[*i].clone()),
                        _ => {
                            let sep = self.str_arg(e)?;
                            if sep == b" " {
                                FsMode::Space
                            } else if sep.is_empty() {
                                FsMode::Chars
                            } else if sep.len() == 1 && sep[0] != b'\\' {
                                FsMode::Byte(sep[0])
                            } else {
                                FsMode::Regex(self.dyn_regex(&sep)?)
                            }
                        }
                    }),
                };
                // Split with the field splitter on a scratch record.
                let saved_rec = std::mem::replace(&mut self.record, s);
                let saved_fields = std::mem::take(&mut self.fields);
                let saved_csv = (std::mem::take(&mut self.csv_text), self.fields_in_csv);
                let saved = (self.split, self.nf, self.scan_pos);
                let saved_fs = mode.map(|m| std::mem::replace(&mut self.fs, m));
                self.split_record();
                let parts: Vec<Value> = self
                    .fields
                    .iter()
                    .map(|&(a, z)| Value::input(&self.field_text()[a..z]))
                    .collect();
                // gawk's fourth argument: the separators, seps[i] between parts i and i+1
                // (and, for the blank splitting, leading and trailing blanks at 0 and n).
                let mut seps: Vec<(usize, Vec<u8>)> = Vec::new();
                if args.len() > 3 && self.fields_in_csv {
                    for i in 1..self.fields.len() {
                        seps.push((i, b",".to_vec()));
                    }
                } else if args.len() > 3 {
                    let (rec, f) = (&self.record, &self.fields);
                    for i in 1..f.len() {
                        seps.push((i, rec[f[i - 1].1..f[i].0].to_vec()));
                    }
                    if matches!(self.fs, FsMode::Space) {
                        let lead = f.first().map_or(rec.len(), |x| x.0);
                        if lead > 0 {
                            seps.push((0, rec[..lead].to_vec()));
                        }
                        if let Some(&(_, z)) = f.last()
                            && z < rec.len()
                        {
                            seps.push((f.len(), rec[z..].to_vec()));
                        }
                    }
                }
                if let Some(fs) = saved_fs {
                    self.fs = fs;
                }
                self.record = saved_rec;
                self.fields = saved_fields;
                (self.csv_text, self.fields_in_csv) = saved_csv;
                (self.split, self.nf, self.scan_pos) = saved;
                let arr = &mut self.arrays[id];
                arr.clear();
                let count = parts.len();
                for (i, v) in parts.into_iter().enumerate() {
                    arr.insert((i + 1).to_string().into_bytes().into_boxed_slice(), v);
                }
                if let Some(e) = args.get(3) {
                    if self.prog.posix {
                        return fatal("split: fourth argument is a gawk extension");
                    }
                    let Expr::Var(r) = strip(e) else {
                        return fatal("split: fourth argument is not an array");
                    };
                    let sid = self.array_id(*r);
                    let arr = &mut self.arrays[sid];
                    arr.clear();
                    for (i, sep) in seps {
                        arr.insert(
                            i.to_string().into_bytes().into_boxed_slice(),
                            Value::input(&sep),
                        );
                    }
                }
                n(count as f64)
            }
            "sub" | "gsub" => {
                let re = self.regex_for(&args[0])?;
                let repl = self.str_arg(&args[1])?;
                let p = match args.get(2) {
                    Some(t) => self.place(strip(t))?,
                    None => Place::Field(0),
                };
                let cur = self.get_place(&p);
                let s = self.to_bytes(&cur);
                // One gsub can multiply a record: stop at the call's memory, not past it.
                let Some((out, count)) = substitute(&re, &s, &repl, b == "gsub", self.cx.fs.room())
                else {
                    return fatal(format!("stopped: {b} ran past the command's memory limit"));
                };
                if count > 0 {
                    self.set_place(p, Value::Str(Rc::new(out)))?;
                } else if let Place::Elem(_, k) = p {
                    self.keybuf = k;
                }
                n(count as f64)
            }
            "match" => {
                let s = self.str_arg(&args[0])?;
                let re = self.regex_for(&args[1])?;
                let (start, len) = match args.get(2) {
                    Some(arr) => self.match_groups(&re, &s, arr)?,
                    None => match re.find(&s) {
                        Some((ms, me)) => ((ms + 1) as f64, (me - ms) as f64),
                        None => (0.0, -1.0),
                    },
                };
                self.globals[G_RSTART as usize] = Value::Num(start);
                self.globals[G_RLENGTH as usize] = Value::Num(len);
                n(start)
            }
            "sprintf" => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                let fmt = self.to_bytes(&vals[0]);
                let mut out = Vec::new();
                format::sprintf(&mut out, &fmt, &vals[1..], &self.convfmt).map_err(Jump::Fatal)?;
                Ok(Value::Str(Rc::new(out)))
            }
            "sin" => n(self.num(&args[0])?.sin()),
            "cos" => n(self.num(&args[0])?.cos()),
            "atan2" => {
                let y = self.num(&args[0])?;
                let x = self.num(&args[1])?;
                n(y.atan2(x))
            }
            "exp" => n(self.num(&args[0])?.exp()),
            "log" => {
                let x = self.num(&args[0])?;
                n(if x < 0.0 { -f64::NAN } else { x.ln() })
            }
            "sqrt" => {
                let x = self.num(&args[0])?;
                n(if x < 0.0 { -f64::NAN } else { x.sqrt() })
            }
            "int" => n(self.num(&args[0])?.trunc()),
            "rand" => {
                let mut x = self.rng;
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                self.rng = x;
                n((x >> 11) as f64 / (1u64 << 53) as f64)
            }
            "srand" => {
                let prev = self.seed;
                let s = match args.first() {
                    Some(e) => self.num(e)?,
                    None => std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs() as f64),
                };
                self.seed = s;
                self.rng = (s.to_bits() ^ 0x2545_f491_4f6c_dd1d) | 1;
                n(prev)
            }
            "tolower" | "toupper" => {
                let mut s = self.str_arg(&args[0])?;
                if b == "tolower" {
                    s.make_ascii_lowercase();
                } else {
                    s.make_ascii_uppercase();
                }
                Ok(Value::Str(Rc::new(s)))
            }
            "system" => fatal(format!("system() is not available: {NOPROC}")),
            "close" => {
                let name = self.str_arg(&args[0])?;
                let mut found = false;
                if let Some(i) = self.outputs.iter().position(|(nm, _)| *nm == name) {
                    let (_, o) = self.outputs.remove(i);
                    if matches!(o, Output::Stdout) {
                        self.flush_out()?;
                    }
                    finish_output(o).map_err(|e| Jump::Fatal(format!("close failed: {e}")))?;
                    found = true;
                }
                if let Some(i) = self.inputs.iter().position(|(nm, _, _)| *nm == name) {
                    self.inputs.remove(i);
                    found = true;
                }
                n(if found { 0.0 } else { -1.0 })
            }
            "fflush" => {
                self.flush_out()?;
                for (_, o) in &mut self.outputs {
                    let _ = match o {
                        Output::File(w) => w.flush(),
                        Output::Stderr => self.stderr.flush(),
                        Output::Stdout | Output::Null => Ok(()),
                    };
                }
                n(0.0)
            }
            _ => self.gawk_builtin(b, args),
        }
    }
}

fn finish_output(o: Output) -> std::io::Result<()> {
    match o {
        Output::File(w) => {
            let f = w.into_inner().map_err(|e| e.into_error())?;
            f.commit()
        }
        Output::Stdout | Output::Stderr | Output::Null => Ok(()),
    }
}

fn arith(op: Arith, x: f64, y: f64) -> R<f64> {
    Ok(match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => {
            if y == 0.0 {
                return fatal("division by zero attempted");
            }
            x / y
        }
        Arith::Mod => {
            if y == 0.0 {
                return fatal("division by zero attempted in `%'");
            }
            x % y
        }
        Arith::Pow => x.powf(y),
    })
}

fn num_cmp(op: CmpOp, x: f64, y: f64) -> bool {
    match op {
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
    }
}

fn ord_ok(op: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
    }
}

/// Expand a `sub`/`gsub` replacement for one match by gawk's rules (on the string's
/// bytes): `&` is the match, `\&` a literal `&`, `\\&` a backslash and the match, `\\\&` a
/// backslash and a literal `&`, `\\\\` two backslashes; any other backslash stays as it is.
fn push_repl(out: &mut Vec<u8>, repl: &[u8], m: &[u8]) {
    let mut i = 0;
    while i < repl.len() {
        let rest = &repl[i..];
        match repl[i] {
            b'\\' if rest.starts_with(b"\\\\\\&") => {
                out.extend_from_slice(b"\\&");
                i += 4;
            }
            b'\\' if rest.starts_with(b"\\\\\\\\") => {
                out.extend_from_slice(b"\\\\");
                i += 4;
            }
            b'\\' if rest.starts_with(b"\\\\&") => {
                out.push(b'\\');
                out.extend_from_slice(m);
                i += 3;
            }
            b'\\' if rest.starts_with(b"\\&") => {
                out.push(b'&');
                i += 2;
            }
            b'&' => {
                out.extend_from_slice(m);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// Whether evaluating `e` has no side effects (so the order it runs in cannot matter).
fn pure(e: &Expr) -> bool {
    match e {
        Expr::Str(_) | Expr::Num(_) | Expr::Var(_) | Expr::Nf => true,
        Expr::Field(ix) | Expr::Group(ix) => pure(ix),
        Expr::Concat(a, b) => pure(a) && pure(b),
        _ => false,
    }
}

/// Replace the first (or every) match of `re` in `s`; the result and the count, or `None`
/// once the result would pass `room` bytes.
pub fn substitute(
    re: &Regex,
    s: &[u8],
    repl: &[u8],
    global: bool,
    room: usize,
) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::with_capacity(s.len() + 16);
    let mut count = 0;
    let mut pos = 0;
    let mut last_end: Option<usize> = None;
    while pos <= s.len() {
        let Some((ms, me)) = re.find_at(s, pos) else {
            break;
        };
        if ms == me && last_end == Some(ms) {
            // An empty match right after the previous match: step over one byte.
            if ms < s.len() {
                out.push(s[ms]);
            }
            pos = ms + 1;
            last_end = None;
            continue;
        }
        out.extend_from_slice(&s[pos..ms]);
        push_repl(&mut out, repl, &s[ms..me]);
        if out.len() > room {
            return None;
        }
        count += 1;
        if ms == me {
            if ms < s.len() {
                out.push(s[ms]);
            }
            pos = ms + 1;
            last_end = None;
        } else {
            pos = me;
            last_end = Some(me);
        }
        if !global {
            break;
        }
    }
    if pos < s.len() {
        out.extend_from_slice(&s[pos..]);
    }
    Some((out, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gsub(re: &str, s: &str, r: &str) -> String {
        let re = re::compile(re.as_bytes()).ok();
        let Some(re) = re else { return String::new() };
        let (out, _) =
            substitute(&re, s.as_bytes(), r.as_bytes(), true, usize::MAX).expect("no limit");
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn gsub_semantics() {
        assert_eq!(gsub("x*", "abc", "-"), "-a-b-c-");
        assert_eq!(gsub("b*", "abbc", "X"), "XaXcX");
        assert_eq!(gsub("o", "foo", "[&]"), "f[o][o]");
        assert_eq!(gsub("o", "foo", "\\&"), "f&&");
    }
}
