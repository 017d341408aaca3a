//! Simple commands: expansion, prefix assignments, redirects, and the choice between a
//! function, a built-in that changes the shell ([`super::special`]) and a table command.

use std::io::{BufRead, BufReader, Write};
use std::sync::Mutex;

use super::expand::Ex;
use super::{
    Cx, DEV_NULL, Diagnostic, Env, Flow, Io, MAX_VAR, Port, Router, Shell, Sink, Streams, Target,
    WithStreams,
};
use crate::plan::Plan;
use crate::syntax::ast::{Redirect, RedirectKind, RedirectTarget, SimpleCommand};

/// A command's redirects, opened: where its streams go until it ends.
pub(super) struct Opened {
    sinks: Vec<Sink>,
    stdin: Option<Box<dyn BufRead + Send>>,
    out: Target,
    err: Target,
}

/// Reports a failed expansion; `fatal` (`set -u`) ends the script with status 127.
fn expansion_failed(msg: &str, fatal: bool, stderr: &mut (dyn Write + Send), env: &mut Env) -> i32 {
    let _ = writeln!(stderr, "ultra sh: {msg}");
    if fatal {
        env.flow = Some(Flow::Exit);
        return 127;
    }
    1
}

/// A word as `set -x` shows it: quoted when it would not read back as itself.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Shell {
    /// Run one simple command with its redirects.
    pub(super) fn command(
        &self,
        cmd: &SimpleCommand,
        plan: Option<&Plan>,
        env: &mut Env,
        io: Streams<'_>,
    ) -> i32 {
        let mut x = Ex::new(env, plan, &mut *io.stderr);
        let argv = match self.expand_words(&cmd.words, &mut x) {
            Ok(a) => a,
            Err(msg) => {
                let fatal = x.fatal;
                return expansion_failed(&msg, fatal, io.stderr, env);
            }
        };
        let mut vars = env.vars.clone();
        let mut trace = String::new();
        for a in &cmd.assignments {
            let value = match self.expand_string(&a.value, &mut x) {
                Ok(v) => v,
                Err(msg) => {
                    let fatal = x.fatal;
                    return expansion_failed(&msg, fatal, io.stderr, env);
                }
            };
            if env.options.xtrace {
                trace.push_str(&format!("{}={} ", a.name, quote(&value)));
            }
            // `x=$x$x` repeated doubles: a session must not keep a huge variable.
            if value.len() > MAX_VAR {
                let _ = writeln!(
                    x.stderr,
                    "ultra sh: {}: the value would be {} bytes, over the {MAX_VAR}-byte limit for a variable",
                    a.name,
                    value.len()
                );
                return 1;
            }
            vars.insert(a.name.clone(), value);
        }
        // `x=$(cmd)` alone leaves the substitution's status in `$?`.
        let sub_status = x.status;
        if env.options.xtrace {
            let words: Vec<String> = argv.iter().map(|a| quote(a)).collect();
            trace.push_str(&words.join(" "));
            let _ = writeln!(io.stderr, "+ {}", trace.trim_end());
        }
        let opened = match self.open_redirects(&cmd.redirects, env, io.stderr) {
            Ok(o) => o,
            Err(msg) => {
                let _ = writeln!(io.stderr, "ultra sh: {msg}");
                return 1;
            }
        };
        if argv.is_empty() {
            // Assignments alone set session variables; redirects alone create files.
            env.vars = vars;
            let status = sub_status.unwrap_or(0);
            return self.redirected(opened, io, &mut |_| status);
        }
        let name = argv[0].as_str();
        if let Some(body) = env.functions.get(name).cloned() {
            let args = argv[1..].to_vec();
            // Prefix assignments hold for the call only.
            let saved = std::mem::replace(&mut env.vars, vars);
            let status = self.redirected(opened, io, &mut |io| {
                self.call(name, &body, args.clone(), plan, env, io)
            });
            let after = std::mem::replace(&mut env.vars, saved);
            // What the function set stays; the prefixes do not.
            for (k, v) in after {
                if !cmd.assignments.iter().any(|a| a.name == k) {
                    env.vars.insert(k, v);
                }
            }
            return status;
        }
        if super::special::is_special(name) {
            return self.redirected(opened, io, &mut |io| self.special(&argv, &vars, env, io));
        }
        let Some(builtin) = self.commands.get(name) else {
            let closest = self.commands.closest(name);
            let hint = if closest.is_empty() {
                String::new()
            } else {
                format!(" (did you mean: {})", closest.join(", "))
            };
            let _ = writeln!(io.stderr, "ultra sh: {name}: command not found{hint}");
            let mut d = self.diagnostics.lock().unwrap_or_else(|p| p.into_inner());
            if d.len() < 100 {
                d.push(Diagnostic {
                    code: "unknown_command",
                    command: name.to_string(),
                    message: format!("{name}: command not found; the shell runs only built-in commands and functions the script defines, nothing is spawned"),
                    closest,
                });
            }
            return 127;
        };
        // Arguments the plan read from these same (literal) words; `--help` is answered
        // from the words.
        let mut typed = plan
            .filter(|_| argv[1..] != ["--help"])
            .and_then(|p| p.take(cmd))
            .zip(builtin.typed.as_ref());
        let cx = Cx {
            fs: &self.fs,
            cwd: &env.cwd,
            vars: &vars,
        };
        self.redirected(opened, io, &mut |io| {
            let mut io = Io {
                stdin: io.stdin,
                stdout: io.stdout,
                stderr: io.stderr,
            };
            match typed.take() {
                Some((args, t)) => (t.run)(args, &mut io, &cx),
                None => (builtin.run)(&argv[1..], &mut io, &cx),
            }
        })
    }

    /// Opens `redirects`, left to right: files written with `>` appear (atomically) when the
    /// command ends; `>>` appends as it goes.
    pub(super) fn open_redirects(
        &self,
        redirects: &[Redirect],
        env: &Env,
        stderr: &mut (dyn Write + Send),
    ) -> Result<Opened, String> {
        let mut x = Ex::new(env, None, stderr);
        let mut sinks: Vec<Sink> = Vec::new();
        let mut new_stdin: Option<Box<dyn BufRead + Send>> = None;
        let (mut out, mut err) = (Target::CallerOut, Target::CallerErr);
        for r in redirects {
            match (&r.kind, &r.target) {
                (RedirectKind::Read, RedirectTarget::Word(w)) => {
                    let path = self.expand_string(w, &mut x)?;
                    if path == DEV_NULL {
                        new_stdin = Some(Box::new(std::io::empty()));
                        continue;
                    }
                    let file = self
                        .fs
                        .open_read(&env.cwd, &path)
                        .map_err(|e| format!("{path}: {e}"))?;
                    new_stdin = Some(Box::new(BufReader::new(file)));
                }
                (RedirectKind::HereDoc { .. }, RedirectTarget::HereDoc(h)) => {
                    let body = if h.expand {
                        self.expand_parts(&h.parts, &mut x)?
                    } else {
                        h.body.clone()
                    };
                    new_stdin = Some(Box::new(std::io::Cursor::new(body.into_bytes())));
                }
                (
                    RedirectKind::Write
                    | RedirectKind::WriteBoth
                    | RedirectKind::Append
                    | RedirectKind::AppendBoth,
                    RedirectTarget::Word(w),
                ) => {
                    let path = self.expand_string(w, &mut x)?;
                    let sink = if path == DEV_NULL {
                        Sink::Null
                    } else if matches!(r.kind, RedirectKind::Write | RedirectKind::WriteBoth) {
                        Sink::Replace(
                            self.fs
                                .create(&env.cwd, &path)
                                .map_err(|e| format!("{path}: {e}"))?,
                        )
                    } else {
                        Sink::Append(
                            self.fs
                                .append(&env.cwd, &path)
                                .map_err(|e| format!("{path}: {e}"))?,
                        )
                    };
                    sinks.push(sink);
                    let t = Target::Sink(sinks.len() - 1);
                    match (r.kind, r.fd) {
                        (RedirectKind::WriteBoth | RedirectKind::AppendBoth, _) => {
                            out = t;
                            err = t;
                        }
                        (_, 2) => err = t,
                        (_, 1) => out = t,
                        (_, fd) => {
                            return Err(format!(
                                "{fd}: only file descriptors 1 and 2 can be redirected"
                            ));
                        }
                    }
                }
                (RedirectKind::Dup, RedirectTarget::Fd(to)) => match (r.fd, to) {
                    (2, 1) => err = out,
                    (1, 2) => out = err,
                    (a, b) if a == *b => {}
                    (a, b) => return Err(format!("{a}>&{b}: only 1 and 2 can be duplicated")),
                },
                _ => return Err("unsupported redirect".to_string()),
            }
        }
        Ok(Opened {
            sinks,
            stdin: new_stdin,
            out,
            err,
        })
    }

    /// Runs `f` with the streams `opened` chose, then lands the files it wrote.
    pub(super) fn redirected(
        &self,
        opened: Opened,
        io: Streams<'_>,
        f: &mut WithStreams<'_>,
    ) -> i32 {
        let Streams {
            stdin,
            stdout,
            stderr,
        } = io;
        let Opened {
            sinks,
            stdin: mut new_stdin,
            out,
            err,
        } = opened;
        if sinks.is_empty() && matches!((out, err), (Target::CallerOut, Target::CallerErr)) {
            // Nothing to route: the caller's streams as they are.
            let stdin: &mut (dyn BufRead + Send) = match new_stdin.as_mut() {
                Some(b) => b.as_mut(),
                None => stdin,
            };
            return f(Streams {
                stdin,
                stdout,
                stderr,
            });
        }
        let router = Mutex::new(Router {
            stdout,
            stderr,
            sinks,
            out,
            err,
        });
        let status = {
            let stdin: &mut (dyn BufRead + Send) = match new_stdin.as_mut() {
                Some(b) => b.as_mut(),
                None => stdin,
            };
            let (mut o, mut e) = (
                Port {
                    router: &router,
                    fd: 1,
                },
                Port {
                    router: &router,
                    fd: 2,
                },
            );
            f(Streams {
                stdin,
                stdout: &mut o,
                stderr: &mut e,
            })
        };
        let router = router.into_inner().unwrap_or_else(|p| p.into_inner());
        for sink in router.sinks {
            let landed = match sink {
                Sink::Replace(a) => a.commit(),
                Sink::Append(file) => file.commit(),
                Sink::Null => Ok(()),
            };
            if let Err(e) = landed {
                let _ = writeln!(router.stderr, "ultra sh: cannot write: {e}");
                return 1;
            }
        }
        status
    }

    pub(super) fn cd(&self, args: &[String], env: &mut Env, stderr: &mut dyn Write) -> i32 {
        let target = args.first().map(String::as_str).unwrap_or("/");
        let target = if target == "/" || target == "~" {
            ""
        } else {
            target
        };
        match self
            .fs
            .resolve_read(&env.cwd, if target.is_empty() { "/" } else { target })
        {
            Ok(rel) => match self.fs.root().stat(&rel) {
                Ok(m) if m.kind == ultra_workspace::root::Kind::Dir => {
                    env.vars.insert("PWD".into(), format!("/{}", rel.as_str()));
                    env.cwd = rel;
                    0
                }
                Ok(_) => {
                    let _ = writeln!(stderr, "cd: {target}: Not a directory");
                    1
                }
                Err(e) => {
                    let _ = writeln!(stderr, "cd: {target}: {e}");
                    1
                }
            },
            Err(e) => {
                let _ = writeln!(stderr, "cd: {target}: {e}");
                1
            }
        }
    }
}
