//! Ultra's built-in shell: a bash subset parsed into an AST ([`syntax`]), run in process by
//! [`run`] over built-in commands ([`builtins`]) on the confined workspace. No built-in
//! spawns a process.
//!
//! Layers, bottom up: [`command`] says what a command is (a [`command::Builtin`]: data plus
//! a function) and knows none; [`run`] runs scripts over the [`command::Commands`] table it
//! is given; [`plan`] reads a script once (its risk, its typed arguments); [`promoted`] and
//! [`builtins`] declare the commands; [`shell`] and [`commands`] assemble the table.
//!
//! Parsing never panics: every malformed or unsupported input becomes a [`ParseError`] with
//! a stable [`code`](ParseError::code) and the [`Pos`] it names.
//!
//! Supported: words with single quotes, double quotes (with `$NAME`, `${NAME}`, `$?`, `$1`,
//! `$@`, `$#` ... and the `\"`, `\\`, `\$`, `` \` `` escapes) and backslash escapes; unquoted
//! globs `*`, `?`, `[...]` (recorded as [`WordPart::Glob`]); pipelines; `&&`, `||`, `;` and
//! newlines; comments; `NAME=value` assignments alone or as prefixes; redirects `<`, `>`,
//! `>|`, `>>`, `N>`, `N>>`, `N<`, `N>&M`, `&>`, `&>>`; here-documents `<<EOF`, `<<'EOF'`,
//! `<<"EOF"`, `<<-EOF`; arithmetic expansion `$((...))` (`run::arith`, 64-bit, no
//! assignment operators).
//!
//! POSIX's parameter operators `${X:-w}`, `${X:+w}`, `${X:?w}`, `${#X}`, `${X%p}`,
//! `${X%%p}`, `${X#p}`, `${X##p}` (with or without `:`); command substitution `$(...)` and
//! backquotes; compound commands `if`, `for`, `while`, `until`, `case`, `{ }`, `( )`,
//! `[[ ]]`, `!`; functions `f() { ...; }` (the runtime adds `local`, `return`, `break`,
//! `continue`, `read`, `shift`, `set --`, `exit`).
//!
//! Refused with `unsupported_syntax`: arrays, `((...))`, `${X:=w}` and bash's
//! `${X/a/b}`-style operators, process substitution, `&`, here-strings, `select`, `;&`.
//!
//! ```
//! let script = ultra_shell::parse("X=1 grep -n 'a b' *.rs | head -3 > out && echo $?").unwrap();
//! assert_eq!(
//!     script.to_string(),
//!     r#"(&& (pipe (cmd X="1" "grep" "-n" q"a b" g"*"+".rs") (cmd "head" "-3" (1> "out"))) (cmd "echo" $?))"#
//! );
//! ```

pub mod builtins;
pub mod calendar;
pub mod command;
pub mod numfmt;
pub mod opts;
pub mod plan;
pub mod promoted;
pub mod run;
pub mod syntax;

pub use syntax::ast::{
    AndOr, AndOrOp, Assignment, HereDoc, Pipeline, Redirect, RedirectKind, RedirectTarget, Script,
    SimpleCommand, Span, Word, WordPart,
};
pub use syntax::error::{ParseError, Pos};

/// A shell over `fs` running `extra` (commands declared by a layer above, found first)
/// and then this crate's own commands: the one way every front end builds its shell.
pub fn shell(fs: run::fs::ShellFs, extra: &'static [&'static command::Builtin]) -> run::Shell {
    run::Shell::new(fs, commands(extra))
}

/// The command table of [`shell`].
pub fn commands(extra: &'static [&'static command::Builtin]) -> command::Commands {
    command::Commands::new(&[extra, builtins::ALL, promoted::builtins()])
}

/// The largest input accepted, in bytes (1 MiB).
pub const MAX_INPUT: usize = 1 << 20;
/// The most simple commands one input may contain.
pub const MAX_COMMANDS: usize = 1000;
/// The longest word accepted, in bytes of source.
pub const MAX_WORD: usize = 64 * 1024;
/// The deepest nesting of compound commands and substitutions a script may have.
pub const MAX_NESTING: usize = 64;
/// The most tokens (words, operators, redirects, newlines) one input may contain.
pub const MAX_TOKENS: usize = 100_000;

/// Parses a script.
///
/// # Errors
/// A [`ParseError`] for malformed or unsupported input, or input over the limits
/// ([`MAX_INPUT`], [`MAX_COMMANDS`], [`MAX_WORD`], [`MAX_TOKENS`]).
pub fn parse(input: &str) -> Result<Script, ParseError> {
    if input.len() > MAX_INPUT {
        return Err(ParseError::InputTooLarge {
            len: input.len(),
            limit: MAX_INPUT,
            pos: Pos::at(input, 0),
        });
    }
    syntax::parse_at(input, 0)
}
