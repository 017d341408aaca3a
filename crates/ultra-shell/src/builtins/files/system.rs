//! `whoami`, `which` and `clear`.

use crate::command::{Builtin, Cx, Example, Io, Risk};

/// `whoami`: always `ultra`.
pub static WHOAMI: Builtin = Builtin {
    name: "whoami",
    usage: "whoami",
    example: Example {
        args: &[],
        stdin: "",
        stdout: "ultra\n",
        status: 0,
    },
    max_risk: Risk::READ,
    risk: None,
    run: &whoami,
    typed: None,
};

fn whoami(_: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    i32::from(writeln!(io.stdout, "ultra").is_err())
}

/// `which NAME...`: `NAME: shell built-in` for built-ins; status 1 if any is not one.
pub static WHICH: Builtin = Builtin {
    name: "which",
    usage: "which NAME...",
    example: Example {
        args: &["cat"],
        stdin: "",
        stdout: "cat: shell built-in\n",
        status: 0,
    },
    max_risk: Risk::READ,
    risk: None,
    run: &which,
    typed: None,
};

fn which(args: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    let mut status = 0;
    for a in args {
        if a == "cd" || crate::builtins::lookup(a).is_some() {
            if writeln!(io.stdout, "{a}: shell built-in").is_err() {
                return 1;
            }
        } else {
            status = 1;
        }
    }
    status
}

/// `clear`: home the cursor and clear the screen.
pub static CLEAR: Builtin = Builtin {
    name: "clear",
    usage: "clear",
    example: Example {
        args: &[],
        stdin: "",
        stdout: "\x1b[H\x1b[2J",
        status: 0,
    },
    max_risk: Risk::READ,
    risk: None,
    run: &clear,
    typed: None,
};

fn clear(_: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    i32::from(io.stdout.write_all(b"\x1b[H\x1b[2J").is_err())
}
