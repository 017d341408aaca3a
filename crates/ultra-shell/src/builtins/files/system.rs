//! `whoami`, `which` and `clear`.

use super::*;

/// `whoami`: always `ultra`.
pub struct Whoami;

impl Builtin for Whoami {
    fn name(&self) -> &'static str {
        "whoami"
    }
    fn usage(&self) -> &'static str {
        "whoami"
    }
    fn example(&self) -> Example {
        Example {
            args: &[],
            stdin: "",
            stdout: "ultra\n",
            status: 0,
        }
    }
    fn run(&self, _: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
        i32::from(writeln!(io.stdout, "ultra").is_err())
    }
}

/// `which NAME...`: `NAME: shell built-in` for built-ins; status 1 if any is not one.
pub struct Which;

impl Builtin for Which {
    fn name(&self) -> &'static str {
        "which"
    }
    fn usage(&self) -> &'static str {
        "which NAME..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["cat"],
            stdin: "",
            stdout: "cat: shell built-in\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
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
}

/// `clear`: home the cursor and clear the screen.
pub struct Clear;

impl Builtin for Clear {
    fn name(&self) -> &'static str {
        "clear"
    }
    fn usage(&self) -> &'static str {
        "clear"
    }
    fn example(&self) -> Example {
        Example {
            args: &[],
            stdin: "",
            stdout: "\x1b[H\x1b[2J",
            status: 0,
        }
    }
    fn run(&self, _: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
        i32::from(io.stdout.write_all(b"\x1b[H\x1b[2J").is_err())
    }
}
