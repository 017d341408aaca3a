//! `whoami`, `which` and `clear`.

use crate::command::{Builtin, Cx, Example, Io};

/// `whoami`: always `ultra`.
pub static WHOAMI: Builtin =
    Builtin::new("whoami", "whoami", &whoami).example(Example::new(&[], "ultra\n"));

fn whoami(_: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    i32::from(writeln!(io.stdout, "ultra").is_err())
}

/// `which NAME...`: `NAME: shell built-in` for built-ins; status 1 if any is not one.
pub static WHICH: Builtin = Builtin::new("which", "which NAME...", &which)
    .example(Example::new(&["cat"], "cat: shell built-in\n"));

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
pub static CLEAR: Builtin =
    Builtin::new("clear", "clear", &clear).example(Example::new(&[], "\x1b[H\x1b[2J"));

fn clear(_: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    i32::from(io.stdout.write_all(b"\x1b[H\x1b[2J").is_err())
}
