//! What a shell command is: static data plus a function ([`Builtin`]), the [`Risk`] it
//! declares, its runnable [`Example`], and what it runs with ([`Io`], [`Cx`]). The runtime
//! receives a table of them ([`Commands`]); nothing here knows which commands exist, so
//! this module depends on nothing in the crate but the file access it hands to commands.

use std::any::Any;
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};

use ultra_workspace::RelPath;

use crate::run::fs::ShellFs;

/// A command's standard streams.
pub struct Io<'a> {
    pub stdin: &'a mut dyn BufRead,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
}

/// What a built-in may reach besides its streams.
pub struct Cx<'a> {
    /// Confined file access.
    pub fs: &'a ShellFs,
    /// The working directory.
    pub cwd: &'a RelPath,
    /// Variables visible to the command (session variables plus prefix assignments).
    pub vars: &'a BTreeMap<String, String>,
}

/// Running a command with `args` (without the command name). Exit status 0 is success; by
/// convention 1 is "false/no match" or a per-file failure, 2 a usage error.
pub type RunFn = dyn Fn(&[String], &mut Io<'_>, &Cx<'_>) -> i32 + Send + Sync;

/// What a call with these arguments may do to files, for policy.
pub type RiskFn = dyn Fn(&[String]) -> Risk + Send + Sync;

/// A command's arguments already read into its own typed form.
pub type TypedArgs = Box<dyn Any + Send>;

/// Reading a command's words into its typed arguments, with the risk they carry; `None`
/// when the words do not read.
pub type ReadFn = dyn Fn(&[String]) -> Option<(Risk, TypedArgs)> + Send + Sync;

/// Running a command with arguments a [`ReadFn`] built.
pub type RunTypedFn = dyn Fn(TypedArgs, &mut Io<'_>, &Cx<'_>) -> i32 + Send + Sync;

/// How a command that reads its words into typed arguments (a promoted command) is run in
/// two steps, so a script's judge builds the arguments once and the runtime runs them.
pub struct Typed {
    /// The typed arguments and their risk; `None` when the words do not read (the call
    /// then fails as it runs, having done nothing).
    pub read: &'static ReadFn,
    /// Runs a call with arguments [`Typed::read`] built.
    pub run: &'static RunTypedFn,
}

/// A command the shell runs: what describes it, and the function that runs it.
pub struct Builtin {
    /// The command name (`cat`).
    pub name: &'static str,
    /// One-line usage, e.g. `head [-n N] [FILE...]`.
    pub usage: &'static str,
    /// A runnable example on the standard fixture (`f.txt` holding `b\na\nc\n`, and
    /// `src/main.rs`); it is executed as a test.
    pub example: Example,
    /// The most any call may do (for arguments not known before the script runs).
    pub max_risk: Risk,
    /// What a call with given arguments may do, for commands whose risk depends on them;
    /// `None`: always [`Builtin::max_risk`].
    pub risk: Option<&'static RiskFn>,
    /// Runs a call.
    pub run: &'static RunFn,
    /// For commands with typed arguments: reading them and running with them apart.
    pub typed: Option<Typed>,
}

impl Builtin {
    /// A command that reads files only, with an empty example (set one with
    /// [`Builtin::example`]).
    pub const fn new(name: &'static str, usage: &'static str, run: &'static RunFn) -> Builtin {
        Builtin {
            name,
            usage,
            example: Example::new(&[], ""),
            max_risk: Risk::READ,
            risk: None,
            run,
            typed: None,
        }
    }

    /// The same command with its runnable example.
    pub const fn example(mut self, example: Example) -> Builtin {
        self.example = example;
        self
    }

    /// The same command declaring the most any call may do.
    pub const fn max_risk(mut self, risk: Risk) -> Builtin {
        self.max_risk = risk;
        self
    }

    /// The same command judging each call by its arguments.
    pub const fn risk(mut self, risk: &'static RiskFn) -> Builtin {
        self.risk = Some(risk);
        self
    }

    /// What a call with `args` may do to files.
    pub fn risk_of(&self, args: &[String]) -> Risk {
        self.risk.map_or(self.max_risk, |f| f(args))
    }
}

/// The commands a shell runs, looked up by name: where two share a name, the one listed
/// first wins (so a layer above can put its own commands before the built-ins).
#[derive(Clone, Default)]
pub struct Commands {
    list: Vec<&'static Builtin>,
}

impl Commands {
    /// The commands of `tables`, in order.
    pub fn new(tables: &[&'static [&'static Builtin]]) -> Commands {
        Commands {
            list: tables.iter().flat_map(|t| t.iter().copied()).collect(),
        }
    }

    /// The command called `name`.
    pub fn get(&self, name: &str) -> Option<&'static Builtin> {
        self.list.iter().copied().find(|b| b.name == name)
    }

    /// The most any command of the table may do.
    pub fn max_risk(&self) -> Risk {
        self.list.iter().fold(Risk::READ, |r, b| r.or(b.max_risk))
    }

    /// Every command, in lookup order.
    pub fn iter(&self) -> impl Iterator<Item = &'static Builtin> + '_ {
        self.list.iter().copied()
    }

    /// Up to three names close to an unknown one, for "command not found".
    pub fn closest(&self, name: &str) -> Vec<&'static str> {
        let mut scored: Vec<(usize, &'static str)> = self
            .iter()
            .map(|b| (strsim::levenshtein(name, b.name), b.name))
            .filter(|(d, _)| *d <= 2)
            .collect();
        scored.sort();
        scored.dedup();
        scored.into_iter().take(3).map(|(_, n)| n).collect()
    }
}

/// What a command may do to the workspace, for policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Risk {
    /// Changes files.
    pub writes: bool,
    /// May destroy data (deletes, or replaces a file's content).
    pub destructive: bool,
    /// Runs the project's own code (a build): the layer above confines it or asks a person.
    pub runs: bool,
}

impl Risk {
    /// Reads only.
    pub const READ: Risk = Risk {
        writes: false,
        destructive: false,
        runs: false,
    };
    /// Creates or changes files without destroying anything.
    pub const WRITE: Risk = Risk {
        writes: true,
        destructive: false,
        runs: false,
    };
    /// Deletes, or replaces content.
    pub const OVERWRITE: Risk = Risk {
        writes: true,
        destructive: true,
        runs: false,
    };

    /// Everything either may do.
    pub fn or(self, other: Risk) -> Risk {
        Risk {
            writes: self.writes || other.writes,
            destructive: self.destructive || other.destructive,
            runs: self.runs || other.runs,
        }
    }
}

/// A command's runnable example: arguments and stdin in, exact stdout and status out.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub args: &'static [&'static str],
    pub stdin: &'static str,
    pub stdout: &'static str,
    pub status: i32,
}

impl Example {
    /// `args` with empty stdin, printing `stdout` and succeeding.
    pub const fn new(args: &'static [&'static str], stdout: &'static str) -> Example {
        Example {
            args,
            stdin: "",
            stdout,
            status: 0,
        }
    }

    /// The same example fed `stdin`.
    pub const fn stdin(mut self, stdin: &'static str) -> Example {
        self.stdin = stdin;
        self
    }

    /// The same example ending with `status`.
    pub const fn status(mut self, status: i32) -> Example {
        self.status = status;
        self
    }
}

/// Read all of a reader into a string, lossily (for built-ins that need whole input).
pub fn read_all(r: &mut dyn Read) -> std::io::Result<String> {
    let mut v = Vec::new();
    r.read_to_end(&mut v)?;
    Ok(String::from_utf8_lossy(&v).into_owned())
}
