//! Text filters in the style of GNU coreutils: `head`, `tail`, `wc`, `sort`, `uniq`, `tac`,
//! `cut`, `tr`, `basename`, `dirname`, `seq`, and bash's `printf`.
//!
//! Everything works on bytes as coreutils does under `LC_ALL=C` (except `wc -m`, which counts
//! UTF-8 characters). Streaming filters read line by line or in chunks; `sort`, `tac` and
//! `tail -c` buffer their input up to [`MAX_BUFFER`]. A failed write to stdout (the reader
//! went away) ends a command quietly.

use std::io::{BufRead, BufReader, Read, Write};

use crate::command::Cx;
use crate::opts::Opts;

/// Most bytes a buffering command (`sort`, `tac`, `tail`) holds.
pub const MAX_BUFFER: usize = 256 << 20;

/// The output went away (or failed): stop quietly.
struct Quit;

impl From<std::io::Error> for Quit {
    fn from(_: std::io::Error) -> Quit {
        Quit
    }
}

type Res = Result<i32, Quit>;

/// `cmd: msg` plus the usage line; returns `code`.
fn usage_error(err: &mut dyn Write, cmd: &str, msg: &str, usage: &str, code: i32) -> i32 {
    let _ = writeln!(err, "{cmd}: {msg}");
    let _ = writeln!(err, "Usage: {usage}");
    code
}

fn warn(err: &mut dyn Write, cmd: &str, path: &str, msg: impl std::fmt::Display) {
    let _ = writeln!(err, "{cmd}: {path}: {msg}");
}

/// A command's input: its stdin or an opened file.
enum Input<'a> {
    Stdin(&'a mut dyn BufRead),
    File(BufReader<std::fs::File>),
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Input::Stdin(s) => s.read(buf),
            Input::File(f) => f.read(buf),
        }
    }
}

impl BufRead for Input<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Input::Stdin(s) => s.fill_buf(),
            Input::File(f) => f.fill_buf(),
        }
    }
    fn consume(&mut self, n: usize) {
        match self {
            Input::Stdin(s) => s.consume(n),
            Input::File(f) => f.consume(n),
        }
    }
}

/// Open `path` (`-` is stdin) or describe why not.
fn open<'a>(stdin: &'a mut dyn BufRead, cx: &Cx<'_>, path: &str) -> Result<Input<'a>, String> {
    if path == "-" {
        return Ok(Input::Stdin(stdin));
    }
    match cx.fs.open_read(cx.cwd, path) {
        Ok(f) => {
            if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                return Err("Is a directory".to_string());
            }
            Ok(Input::File(BufReader::with_capacity(64 * 1024, f)))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Read everything, failing past [`MAX_BUFFER`] bytes in all (`used` counts across calls).
fn read_capped(r: &mut dyn Read, used: &mut usize, out: &mut Vec<u8>) -> Result<(), String> {
    let room = (MAX_BUFFER - (*used).min(MAX_BUFFER)) as u64;
    let before = out.len();
    r.take(room + 1)
        .read_to_end(out)
        .map_err(|e| e.to_string())?;
    *used += out.len() - before;
    if *used > MAX_BUFFER {
        return Err("input exceeds the 256 MiB buffering limit".to_string());
    }
    Ok(())
}

fn operands_or_stdin(o: &Opts) -> Vec<String> {
    if o.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        o.operands.clone()
    }
}

/// A blank as `sort -b` and `uniq -f` skip it.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn display_name(path: &str) -> &str {
    if path == "-" { "standard input" } else { path }
}

mod cut;
mod head_tail;
mod names;
mod printf;
mod seq;
mod sort;
mod tac;
mod tr;
mod uniq;
mod wc;

pub use cut::CUT;
pub use head_tail::{HEAD, TAIL};
pub use names::{BASENAME, DIRNAME};
pub use printf::PRINTF;
pub use seq::SEQ;
pub use sort::SORT;
pub use tac::TAC;
pub use tr::TR;
pub use uniq::UNIQ;
pub use wc::WC;
