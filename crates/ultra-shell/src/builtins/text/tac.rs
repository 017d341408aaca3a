//! `tac`.

use std::io::{BufWriter, Write};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::getopt;

use super::{open, operands_or_stdin, read_capped, usage_error, warn};

/// `tac [FILE...]`.
pub static TAC: Builtin =
    Builtin::new("tac", "tac [FILE...]", &tac).example(Example::new(&["f.txt"], "c\na\nb\n"));

fn tac(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match getopt(args, "", &[]) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "tac", &m, TAC.usage, 1),
    };
    let mut status = 0;
    let mut used = 0;
    for f in operands_or_stdin(&o) {
        let mut input = match open(&mut *io.stdin, cx, &f) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(io.stderr, "tac: failed to open '{f}' for reading: {e}");
                status = 1;
                continue;
            }
        };
        let mut data = Vec::new();
        if let Err(e) = read_capped(&mut input, &mut used, &mut data) {
            warn(io.stderr, "tac", &f, e);
            status = 1;
            continue;
        }
        drop(input);
        // Records end after each '\n'; a last one without it is printed as it is.
        let mut recs: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
        recs.reverse();
        let mut out = BufWriter::new(&mut *io.stdout);
        let r = (|| -> std::io::Result<()> {
            for r in recs {
                out.write_all(r)?;
            }
            out.flush()
        })();
        if r.is_err() {
            return 1;
        }
    }
    status
}
