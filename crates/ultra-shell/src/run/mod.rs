//! Running a parsed script: expansion, pipelines, `&&`/`||`/`;`, redirects, here-documents,
//! and the session state (`cd`, variables, `$?`).
//!
//! Every stage of a pipeline runs on its own thread, connected by OS pipes, so bytes stream
//! with bounded memory and a stage that stops reading (`head -3`) stops the ones before it
//! (their next write fails with a broken pipe). Pipeline stages run on a copy of the session
//! state, as bash runs them in subshells; a single command runs in the session itself, so
//! `cd` and `X=1` stick.

mod arith;
mod expand;
pub mod fs;
pub mod glob;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::Mutex;

use ultra_workspace::RelPath;

// What commands are and run with, where commands declared above the shell found them.
pub use crate::command::{Builtin, Commands, Cx, Example, Io, Risk, read_all};
use crate::plan::Plan;
use crate::syntax::ast::{AndOrOp, Pipeline, RedirectKind, RedirectTarget, Script, SimpleCommand};
use fs::ShellFs;

/// Stack of a pipeline stage's thread: room for the deepest awk or sed program their
/// parsers accept (debug builds take about 20 KiB a nesting level). Reserved, not
/// committed: untouched pages cost nothing.
const STAGE_STACK_BYTES: usize = 32 << 20;

/// Most fields one glob may expand to.
pub const MAX_GLOB: usize = 10_000;

/// Most bytes a variable may hold (sessions keep variables between calls).
pub const MAX_VAR: usize = 1 << 20;

/// Most bytes of parameter values one command's words may expand to.
pub const MAX_EXPANSION: usize = 16 << 20;

/// A shell session's state: variables, working directory and the last status.
#[derive(Debug, Clone)]
pub struct Env {
    /// Shell variables (also what `env` prints).
    pub vars: BTreeMap<String, String>,
    /// The working directory, relative to the root.
    pub cwd: RelPath,
    /// `$?`.
    pub status: i32,
}

impl Env {
    /// A session at the root with a few standard variables.
    pub fn new(root: &RelPath) -> Env {
        let mut vars = BTreeMap::new();
        vars.insert("HOME".to_string(), "/".to_string());
        vars.insert("PWD".to_string(), "/".to_string());
        vars.insert("USER".to_string(), "ultra".to_string());
        Env {
            vars,
            cwd: root.clone(),
            status: 0,
        }
    }
}

/// Where fd 1 or 2 of a command goes.
#[derive(Debug, Clone, Copy)]
enum Target {
    CallerOut,
    CallerErr,
    Sink(usize),
}

/// A file opened by a redirect.
enum Sink {
    /// `>`: replaced atomically when the command ends.
    Replace(fs::Staged),
    /// `>>`: appended to as the command writes (or, when writes are checked, once it ends).
    Append(fs::Staged),
    /// `/dev/null`: discarded.
    Null,
}

/// The one path outside the workspace a redirect may name: it reads as empty and discards
/// writes, as scripts expect.
const DEV_NULL: &str = "/dev/null";

/// The caller's streams and the redirect files, shared by a command's stdout and stderr.
struct Router<'a> {
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
    sinks: Vec<Sink>,
    out: Target,
    err: Target,
}

/// fd 1 or 2 of a command, writing wherever the redirects sent it.
struct Port<'r, 'a> {
    router: &'r std::cell::RefCell<Router<'a>>,
    fd: u8,
}

impl Write for Port<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut r = self.router.borrow_mut();
        let t = if self.fd == 1 { r.out } else { r.err };
        match t {
            Target::CallerOut => r.stdout.write(buf),
            Target::CallerErr => r.stderr.write(buf),
            Target::Sink(i) => match &mut r.sinks[i] {
                Sink::Replace(a) => a.write(buf),
                Sink::Append(f) => f.write(buf),
                Sink::Null => Ok(buf.len()),
            },
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut r = self.router.borrow_mut();
        r.stdout.flush()?;
        r.stderr.flush()
    }
}

/// A problem a script ran into that an agent can act on, reported besides stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// `unknown_command`.
    pub code: &'static str,
    /// The command word.
    pub command: String,
    /// What happened.
    pub message: String,
    /// Built-ins with a similar name.
    pub closest: Vec<&'static str>,
}

/// Runs scripts on one workspace.
pub struct Shell {
    fs: ShellFs,
    diagnostics: Mutex<Vec<Diagnostic>>,
    /// The commands it runs: given, so the runtime knows none of them by itself.
    commands: Commands,
}

/// A `Write` shared by the stages of a pipeline (stderr), one write at a time.
struct Shared<'m, 'w>(&'m Mutex<&'w mut (dyn Write + Send)>);

impl Write for Shared<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).flush()
    }
}

fn os_pipe() -> std::io::Result<(std::fs::File, std::fs::File)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array we own; each becomes a File exactly once.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the fds are fresh and owned by nothing else.
    Ok(unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    })
}

impl Shell {
    /// A shell over `fs` running `commands` (the layer above chooses the table).
    pub fn new(fs: ShellFs, commands: Commands) -> Shell {
        Shell {
            fs,
            diagnostics: Mutex::new(Vec::new()),
            commands,
        }
    }

    /// The commands this shell runs.
    pub fn commands(&self) -> &Commands {
        &self.commands
    }

    /// The diagnostics gathered since the last call.
    pub fn take_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.diagnostics.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The file access this shell uses.
    pub fn fs(&self) -> &ShellFs {
        &self.fs
    }

    /// Run a script; returns the last status (also left in `env.status`).
    pub fn run(
        &self,
        script: &Script,
        env: &mut Env,
        stdin: &mut (dyn BufRead + Send),
        stdout: &mut (dyn Write + Send),
        stderr: &mut (dyn Write + Send),
    ) -> i32 {
        self.run_script(script, None, env, stdin, stdout, stderr)
    }

    /// Run a judged script, with the typed arguments its judge already built.
    pub fn run_plan(
        &self,
        plan: &Plan,
        env: &mut Env,
        stdin: &mut (dyn BufRead + Send),
        stdout: &mut (dyn Write + Send),
        stderr: &mut (dyn Write + Send),
    ) -> i32 {
        self.run_script(plan.script(), Some(plan), env, stdin, stdout, stderr)
    }

    fn run_script(
        &self,
        script: &Script,
        plan: Option<&Plan>,
        env: &mut Env,
        stdin: &mut (dyn BufRead + Send),
        stdout: &mut (dyn Write + Send),
        stderr: &mut (dyn Write + Send),
    ) -> i32 {
        let _charged = self.fs.charge();
        let stderr = Mutex::new(stderr);
        let mut stdin: &mut (dyn BufRead + Send) = stdin;
        'items: for item in &script.items {
            let pipelines = std::iter::once((None, &item.first))
                .chain(item.rest.iter().map(|(op, p)| (Some(op), p)));
            for (op, p) in pipelines {
                let run = match op {
                    None => true,
                    Some(AndOrOp::And) => env.status == 0,
                    Some(AndOrOp::Or) => env.status != 0,
                };
                if run {
                    env.status = self.pipeline(p, plan, env, &mut stdin, stdout, &stderr);
                }
                if let Some(o) = self.fs.over() {
                    // Say why the output stops here, and run nothing more.
                    let _ = writeln!(
                        Shared(&stderr),
                        "ultra sh: stopped: the command ran past its {} limit",
                        o.what()
                    );
                    env.status = 124;
                    break 'items;
                }
            }
        }
        let _ = stdout.flush();
        env.status
    }

    fn pipeline(
        &self,
        p: &Pipeline,
        plan: Option<&Plan>,
        env: &mut Env,
        stdin: &mut &mut (dyn BufRead + Send),
        stdout: &mut (dyn Write + Send),
        stderr: &Mutex<&mut (dyn Write + Send)>,
    ) -> i32 {
        let n = p.commands.len();
        if n == 1 {
            return self.command(
                &p.commands[0],
                plan,
                env,
                *stdin,
                stdout,
                &mut Shared(stderr),
            );
        }
        // Pipes between stages: stage i writes pipes[i].1, stage i+1 reads pipes[i].0.
        let mut pipes = Vec::with_capacity(n - 1);
        for _ in 0..n - 1 {
            match os_pipe() {
                Ok(p) => pipes.push(p),
                Err(e) => {
                    let _ = writeln!(Shared(stderr), "ultra sh: cannot create a pipe: {e}");
                    return 1;
                }
            }
        }
        let mut readers: Vec<Option<std::fs::File>> = Vec::with_capacity(n);
        let mut writers: Vec<Option<std::fs::File>> = Vec::with_capacity(n);
        readers.push(None);
        for (r, w) in pipes {
            writers.push(Some(w));
            readers.push(Some(r));
        }
        writers.push(None);
        std::thread::scope(|scope| {
            let mut handles: Vec<std::thread::ScopedJoinHandle<'_, i32>> = Vec::new();
            let mut first_stdin = Some(stdin);
            for (i, cmd) in p.commands.iter().enumerate() {
                let reader = readers[i].take();
                let writer = writers[i].take();
                let mut stage_env = env.clone();
                if i + 1 == n {
                    // The last stage runs here, writing to the caller's stdout.
                    let mut input: Box<dyn BufRead + Send> = match reader {
                        Some(r) => Box::new(BufReader::with_capacity(64 * 1024, r)),
                        None => Box::new(std::io::empty()),
                    };
                    let status = self.command(
                        cmd,
                        plan,
                        &mut stage_env,
                        &mut *input,
                        stdout,
                        &mut Shared(stderr),
                    );
                    drop(input);
                    for h in handles {
                        let _ = h.join();
                    }
                    return status;
                }
                let first = if i == 0 { first_stdin.take() } else { None };
                let writer = writer.expect("every stage but the last has a pipe to write");
                // Stages get the stack a deep (but bounded) awk or sed program needs.
                let spawned = std::thread::Builder::new()
                    .name("ultra-sh-stage".into())
                    .stack_size(STAGE_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let _charged = self.fs.charge();
                        // A stage past the call's limits finds its pipe closed, so an
                        // endless producer (`seq 1 1e12 | tail -1`) stops too.
                        let metered = Metered {
                            inner: writer,
                            fs: &self.fs,
                        };
                        let mut out = std::io::BufWriter::with_capacity(64 * 1024, metered);
                        let mut err = Shared(stderr);
                        let status = match (first, reader) {
                            (Some(sin), _) => {
                                self.command(cmd, plan, &mut stage_env, *sin, &mut out, &mut err)
                            }
                            (None, Some(r)) => {
                                let mut input = BufReader::with_capacity(64 * 1024, r);
                                self.command(
                                    cmd,
                                    plan,
                                    &mut stage_env,
                                    &mut input,
                                    &mut out,
                                    &mut err,
                                )
                            }
                            (None, None) => self.command(
                                cmd,
                                plan,
                                &mut stage_env,
                                &mut std::io::empty(),
                                &mut out,
                                &mut err,
                            ),
                        };
                        let _ = out.flush();
                        status
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        let _ = writeln!(
                            Shared(stderr),
                            "ultra sh: cannot start a pipeline stage: {e}"
                        );
                        return 1;
                    }
                }
            }
            0
        })
    }

    /// Run one simple command with its redirects.
    fn command(
        &self,
        cmd: &SimpleCommand,
        plan: Option<&Plan>,
        env: &mut Env,
        stdin: &mut dyn BufRead,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
    ) -> i32 {
        let argv = match self.expand_words(&cmd.words, env) {
            Ok(a) => a,
            Err(msg) => {
                let _ = writeln!(stderr, "ultra sh: {msg}");
                return 1;
            }
        };
        let mut vars = env.vars.clone();
        for a in &cmd.assignments {
            let value = match self.expand_string(&a.value, env) {
                Ok(v) => v,
                Err(msg) => {
                    let _ = writeln!(stderr, "ultra sh: {msg}");
                    return 1;
                }
            };
            // `x=$x$x` repeated doubles: a session must not keep a huge variable.
            if value.len() > MAX_VAR {
                let _ = writeln!(
                    stderr,
                    "ultra sh: {}: the value would be {} bytes, over the {MAX_VAR}-byte limit for a variable",
                    a.name,
                    value.len()
                );
                return 1;
            }
            vars.insert(a.name.clone(), value);
        }
        if argv.is_empty() {
            // Assignments alone set session variables; redirects alone create files.
            env.vars = vars;
            let mut sink = std::io::sink();
            return match self.with_redirects(cmd, env, stdin, &mut sink, stderr, &mut |_, _| 0) {
                Ok(s) => s,
                Err(msg) => {
                    let _ = writeln!(stderr, "ultra sh: {msg}");
                    1
                }
            };
        }
        let name = argv[0].clone();
        if name == "cd" {
            return self.cd(&argv[1..], env, stderr);
        }
        let Some(builtin) = self.commands.get(&name) else {
            let closest = self.commands.closest(&name);
            let hint = if closest.is_empty() {
                String::new()
            } else {
                format!(" (did you mean: {})", closest.join(", "))
            };
            let _ = writeln!(stderr, "ultra sh: {name}: command not found{hint}");
            let mut d = self.diagnostics.lock().unwrap_or_else(|p| p.into_inner());
            if d.len() < 100 {
                d.push(Diagnostic {
                    code: "unknown_command",
                    command: name.clone(),
                    message: format!("{name}: command not found; the shell runs only built-in commands, nothing is spawned"),
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
        let cwd = env.cwd.clone();
        let fs = self.fs.clone();
        let mut run = |io: &mut Io<'_>, vars: &BTreeMap<String, String>| {
            let cx = Cx {
                fs: &fs,
                cwd: &cwd,
                vars,
            };
            match typed.take() {
                Some((args, t)) => (t.run)(args, io, &cx),
                None => (builtin.run)(&argv[1..], io, &cx),
            }
        };
        let result = {
            let vars_ref = &vars;
            self.with_redirects(cmd, env, stdin, stdout, stderr, &mut |io, _| {
                run(io, vars_ref)
            })
        };
        match result {
            Ok(s) => s,
            Err(msg) => {
                let _ = writeln!(stderr, "ultra sh: {msg}");
                1
            }
        }
    }

    /// Apply `cmd`'s redirects, left to right, around `f`. Files written with `>` appear
    /// (atomically) when the command ends; `>>` appends as it goes.
    fn with_redirects(
        &self,
        cmd: &SimpleCommand,
        env: &Env,
        stdin: &mut dyn BufRead,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
        f: &mut dyn FnMut(&mut Io<'_>, &Env) -> i32,
    ) -> Result<i32, String> {
        let mut sinks: Vec<Sink> = Vec::new();
        let mut new_stdin: Option<Box<dyn BufRead>> = None;
        let (mut out, mut err) = (Target::CallerOut, Target::CallerErr);
        for r in &cmd.redirects {
            match (&r.kind, &r.target) {
                (RedirectKind::Read, RedirectTarget::Word(w))
                    if self.expand_string(w, env)? == DEV_NULL =>
                {
                    new_stdin = Some(Box::new(std::io::empty()));
                }
                (RedirectKind::Read, RedirectTarget::Word(w)) => {
                    let path = self.expand_string(w, env)?;
                    let file = self
                        .fs
                        .open_read(&env.cwd, &path)
                        .map_err(|e| format!("{path}: {e}"))?;
                    new_stdin = Some(Box::new(BufReader::new(file)));
                }
                (RedirectKind::HereDoc { .. }, RedirectTarget::HereDoc(h)) => {
                    let body = if h.expand {
                        self.expand_parts(&h.parts, env)?
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
                    let path = self.expand_string(w, env)?;
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
        let router = std::cell::RefCell::new(Router {
            stdout,
            stderr,
            sinks,
            out,
            err,
        });
        let status = {
            let stdin: &mut dyn BufRead = match new_stdin.as_mut() {
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
            let mut io = Io {
                stdin,
                stdout: &mut o,
                stderr: &mut e,
            };
            f(&mut io, env)
        };
        let router = router.into_inner();
        for sink in router.sinks {
            match sink {
                Sink::Replace(a) => a.commit().map_err(|e| format!("cannot write: {e}"))?,
                Sink::Append(file) => file.commit().map_err(|e| format!("cannot write: {e}"))?,
                Sink::Null => {}
            }
        }
        Ok(status)
    }

    fn cd(&self, args: &[String], env: &mut Env, stderr: &mut dyn Write) -> i32 {
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

/// A pipe that refuses writes once the call is past its time or memory.
struct Metered<'f, W> {
    inner: W,
    fs: &'f ShellFs,
}

impl<W: Write> Write for Metered<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(o) = self.fs.over() {
            return Err(std::io::Error::other(format!(
                "the command ran past its {} limit",
                o.what()
            )));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
