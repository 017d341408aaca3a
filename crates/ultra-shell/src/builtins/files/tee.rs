//! `tee`.

use std::io::Write;

use crate::builtins::basic::complain;
use crate::command::{Builtin, Cx, Example, Io, Risk};
use crate::opts::parse_opts;

use super::usage_error;

/// `tee [-a] [FILE...]`.
pub static TEE: Builtin = Builtin::new("tee", "tee [-a] [FILE...]", &tee)
    .example(Example::new(&["copy.txt"], "x\n").stdin("x\n"))
    .max_risk(Risk::WRITE);

enum TeeOut {
    Replace(crate::run::fs::Staged),
    Append(crate::run::fs::Staged),
}

fn tee(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "ai", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &TEE, &m),
    };
    let mut status = 0;
    let mut outs: Vec<(String, TeeOut)> = Vec::new();
    for f in &o.operands {
        let r = if o.has('a') {
            cx.fs.append(cx.cwd, f).map(TeeOut::Append)
        } else {
            cx.fs.create(cx.cwd, f).map(TeeOut::Replace)
        };
        match r {
            Ok(w) => outs.push((f.clone(), w)),
            Err(e) => {
                complain(io, "tee", f, e);
                status = 1;
            }
        }
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut stdout_ok = true;
    loop {
        let n = match io.stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = writeln!(io.stderr, "tee: read error: {e}");
                status = 1;
                break;
            }
        };
        if stdout_ok && io.stdout.write_all(&buf[..n]).is_err() {
            stdout_ok = false;
            status = 1;
        }
        outs.retain_mut(|(name, w)| {
            let r = match w {
                TeeOut::Replace(a) => a.write_all(&buf[..n]),
                TeeOut::Append(f) => f.write_all(&buf[..n]),
            };
            if let Err(e) = r {
                let _ = writeln!(io.stderr, "tee: {name}: {e}");
                status = 1;
                return false;
            }
            true
        });
    }
    for (name, w) in outs {
        let r = match w {
            TeeOut::Replace(a) => a.commit(),
            TeeOut::Append(f) => f.commit(),
        };
        if let Err(e) = r {
            complain(io, "tee", &name, e);
            status = 1;
        }
    }
    status
}
