//! Running a parsed script: expansion, pipelines, `&&`/`||`/`;`, redirects, here-documents,
//! compound commands and functions ([`control`]), the built-ins that change the shell itself
//! ([`special`]), and the session state (`cd`, variables, `$?`).
//!
//! Every stage of a pipeline runs on its own thread, connected by OS pipes, so bytes stream
//! with bounded memory and a stage that stops reading (`head -3`) stops the ones before it
//! (their next write fails with a broken pipe). Pipeline stages run on a copy of the session
//! state, as bash runs them in subshells; a single command runs in the session itself, so
//! `cd` and `X=1` stick.

mod arith;
mod cond;
mod control;
mod expand;
pub mod fs;
pub mod glob;
mod simple;
mod special;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;
use std::sync::{Arc, Mutex};

use ultra_workspace::RelPath;

// What commands are and run with, where commands declared above the shell found them.
pub use crate::command::{Builtin, Commands, Cx, Example, Io, Risk, read_all};
use crate::plan::Plan;
use crate::syntax::ast::{Command, CompoundCommand, Pipeline, Script};
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

/// Most pipeline stages of one shell running at once (a recursive function in a pipeline,
/// `f() { f | f; }`, would otherwise start threads without end).
pub const MAX_LIVE_STAGES: usize = 256;

/// Deepest nesting of function calls (bash's `FUNCNEST`; bash itself has no default).
pub const MAX_CALL_DEPTH: usize = 100;

/// Stack of the thread a script with compound commands runs on: room for
/// [`MAX_CALL_DEPTH`] calls of nested constructs in a debug build. Reserved, not committed.
const SCRIPT_STACK_BYTES: usize = 256 << 20;

/// A shell session's state: variables, working directory and the last status.
#[derive(Debug, Clone)]
pub struct Env {
    /// Shell variables (also what `env` prints).
    pub vars: BTreeMap<String, String>,
    /// The working directory, relative to the root.
    pub cwd: RelPath,
    /// `$?`.
    pub status: i32,
    /// The positional parameters `$1`, `$2`, ... (`set --`, function arguments).
    pub args: Vec<String>,
    /// Functions defined in the current call (a call does not see an earlier call's).
    pub functions: BTreeMap<String, Arc<CompoundCommand>>,
    /// A `break`, `continue`, `return` or `exit` on its way out of the constructs it leaves.
    flow: Option<Flow>,
    /// For each function call under way, the variables `local` replaced and their values
    /// before it (`None`: it was unset).
    locals: Vec<Vec<(String, Option<String>)>>,
    /// Loops enclosing the running command in the current function (or script).
    loops: usize,
    /// `set -e`, `-u`, `-o pipefail`, `-x`: for the current call.
    options: Options,
    /// Conditions being run (`if c`, `while c`, `a && b`): `set -e` does not apply there.
    conditions: usize,
}

/// The shell options `set` takes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// `-e`: a failing command ends the script.
    pub errexit: bool,
    /// `-u`: expanding an unset variable is an error that ends the script.
    pub nounset: bool,
    /// `-o pipefail`: a pipeline fails when any stage fails.
    pub pipefail: bool,
    /// `-x`: each command is printed to stderr before it runs.
    pub xtrace: bool,
}

/// Control leaving the constructs around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// `break N`: leave N loops.
    Break(usize),
    /// `continue N`: leave N-1 loops and go on with the Nth.
    Continue(usize),
    /// `return`: leave the function.
    Return,
    /// `exit`, or a write to a closed output in a loop: leave the script (or subshell).
    Exit,
    /// The call ran past its time or memory: leave everything.
    Stop,
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
            args: Vec::new(),
            functions: BTreeMap::new(),
            flow: None,
            locals: Vec::new(),
            loops: 0,
            options: Options::default(),
            conditions: 0,
        }
    }
}

/// A command's three streams, as the runtime hands them down. `Send`, so a pipeline stage
/// inside a compound command can take its part to another thread.
pub(super) struct Streams<'s> {
    pub stdin: &'s mut (dyn BufRead + Send),
    pub stdout: &'s mut (dyn Write + Send),
    pub stderr: &'s mut (dyn Write + Send),
}

impl Streams<'_> {
    /// The same streams, lent to a nested call.
    pub fn reborrow(&mut self) -> Streams<'_> {
        Streams {
            stdin: &mut *self.stdin,
            stdout: &mut *self.stdout,
            stderr: &mut *self.stderr,
        }
    }
}

/// Work run with a command's streams.
type WithStreams<'f> = dyn FnMut(Streams<'_>) -> i32 + 'f;

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

/// The caller's streams and the redirect files, shared by a command's stdout and stderr
/// (and, for a compound command, by the stages of the pipelines inside it).
struct Router<'a> {
    stdout: &'a mut (dyn Write + Send),
    stderr: &'a mut (dyn Write + Send),
    sinks: Vec<Sink>,
    out: Target,
    err: Target,
}

/// fd 1 or 2 of a command, writing wherever the redirects sent it.
struct Port<'r, 'a> {
    router: &'r Mutex<Router<'a>>,
    fd: u8,
}

impl Write for Port<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut r = self.router.lock().unwrap_or_else(|p| p.into_inner());
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
        let mut r = self.router.lock().unwrap_or_else(|p| p.into_inner());
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
    /// Pipeline stages running now, on their own threads.
    live_stages: std::sync::atomic::AtomicUsize,
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
            live_stages: std::sync::atomic::AtomicUsize::new(0),
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
        let io = Streams {
            stdin,
            stdout,
            stderr,
        };
        self.run_script(script, None, env, io)
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
        let io = Streams {
            stdin,
            stdout,
            stderr,
        };
        self.run_script(plan.script(), Some(plan), env, io)
    }

    fn run_script(
        &self,
        script: &Script,
        plan: Option<&Plan>,
        env: &mut Env,
        mut io: Streams<'_>,
    ) -> i32 {
        let _charged = self.fs.charge();
        // Loops, functions and substitutions nest the runtime's calls as deep as the script
        // nests them: such a script runs on a thread with the stack for it.
        let status = if script.is_compound() {
            let spawned = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .name("ultra-sh-script".into())
                    .stack_size(SCRIPT_STACK_BYTES)
                    .spawn_scoped(scope, || {
                        let _charged = self.fs.charge();
                        self.top(script, plan, env, io.reborrow())
                    })
                    .map(|h| h.join())
            });
            match spawned {
                Ok(Ok(status)) => status,
                Ok(Err(_)) => 1,
                Err(e) => {
                    let _ = writeln!(io.stderr, "ultra sh: cannot start the script's thread: {e}");
                    1
                }
            }
        } else {
            self.top(script, plan, env, io.reborrow())
        };
        let _ = io.stdout.flush();
        status
    }

    /// Runs a whole script and ends what it began: the reason a limit stopped it, and the
    /// functions it defined (they last for one call).
    fn top(&self, script: &Script, plan: Option<&Plan>, env: &mut Env, mut io: Streams<'_>) -> i32 {
        let mut status = self.list(script, plan, env, io.reborrow());
        if env.flow == Some(Flow::Stop) || self.fs.over().is_some() {
            let what = self.fs.over().map_or("time", |o| o.what());
            let _ = writeln!(
                io.stderr,
                "ultra sh: stopped: the command ran past its {what} limit"
            );
            status = 124;
        }
        env.status = status;
        env.flow = None;
        env.loops = 0;
        env.locals.clear();
        env.functions.clear();
        env.options = Options::default();
        env.conditions = 0;
        status
    }

    fn pipeline(&self, p: &Pipeline, plan: Option<&Plan>, env: &mut Env, io: Streams<'_>) -> i32 {
        if !p.negated {
            return self.stages(p, plan, env, io);
        }
        // `! cmd` is a condition: `set -e` does not act inside it.
        env.conditions += 1;
        let status = self.stages(p, plan, env, io);
        env.conditions -= 1;
        i32::from(status == 0)
    }

    fn stages(&self, p: &Pipeline, plan: Option<&Plan>, env: &mut Env, io: Streams<'_>) -> i32 {
        let n = p.commands.len();
        if n == 1 {
            return self.exec(&p.commands[0], plan, env, io);
        }
        let Streams {
            stdin,
            stdout,
            stderr,
        } = io;
        let stderr = Mutex::new(stderr);
        let _stages = match StageSlots::take(&self.live_stages, n - 1) {
            Some(s) => s,
            None => {
                let _ = writeln!(
                    Shared(&stderr),
                    "ultra sh: more than {MAX_LIVE_STAGES} pipeline stages would run at once (a function that calls itself in a pipeline?)"
                );
                return 1;
            }
        };
        // Pipes between stages: stage i writes pipes[i].1, stage i+1 reads pipes[i].0.
        let mut pipes = Vec::with_capacity(n - 1);
        for _ in 0..n - 1 {
            match os_pipe() {
                Ok(p) => pipes.push(p),
                Err(e) => {
                    let _ = writeln!(Shared(&stderr), "ultra sh: cannot create a pipe: {e}");
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
                // Every stage runs on a copy of the state, as bash runs it in a subshell.
                let mut stage_env = env.clone();
                if i + 1 == n {
                    // The last stage runs here, writing to the caller's stdout.
                    let mut input: Box<dyn BufRead + Send> = match reader {
                        Some(r) => Box::new(BufReader::with_capacity(64 * 1024, r)),
                        None => Box::new(std::io::empty()),
                    };
                    let io = Streams {
                        stdin: &mut *input,
                        stdout,
                        stderr: &mut Shared(&stderr),
                    };
                    let status = self.exec(cmd, plan, &mut stage_env, io);
                    drop(input);
                    // `set -o pipefail`: the last stage that failed decides.
                    let mut failed = 0;
                    for h in handles {
                        match h.join() {
                            Ok(0) => {}
                            Ok(s) => failed = s,
                            Err(_) => failed = 1,
                        }
                    }
                    if env.options.pipefail && status == 0 {
                        return failed;
                    }
                    if stage_env.flow == Some(Flow::Stop) {
                        env.flow = Some(Flow::Stop);
                    }
                    return status;
                }
                let first = if i == 0 { first_stdin.take() } else { None };
                let writer = writer.expect("every stage but the last has a pipe to write");
                let stderr = &stderr;
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
                        let env = &mut stage_env;
                        let mut piped;
                        let mut empty = std::io::empty();
                        let stdin: &mut (dyn BufRead + Send) = match (first, reader) {
                            (Some(sin), _) => sin,
                            (None, Some(r)) => {
                                piped = BufReader::with_capacity(64 * 1024, r);
                                &mut piped
                            }
                            (None, None) => &mut empty,
                        };
                        let io = Streams {
                            stdin,
                            stdout: &mut out,
                            stderr: &mut err,
                        };
                        let status = self.exec(cmd, plan, env, io);
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

    /// Run one stage of a pipeline.
    fn exec(&self, cmd: &Command, plan: Option<&Plan>, env: &mut Env, io: Streams<'_>) -> i32 {
        match cmd {
            Command::Simple(c) => self.command(c, plan, env, io),
            Command::Compound(c) => self.compound(c, plan, env, io),
            Command::Function(def) => {
                env.functions.insert(def.name.clone(), def.body.clone());
                0
            }
        }
    }
}

/// Slots for a pipeline's threads, given back when it ends.
struct StageSlots<'a> {
    live: &'a std::sync::atomic::AtomicUsize,
    n: usize,
}

impl<'a> StageSlots<'a> {
    fn take(live: &'a std::sync::atomic::AtomicUsize, n: usize) -> Option<StageSlots<'a>> {
        use std::sync::atomic::Ordering;
        let before = live.fetch_add(n, Ordering::AcqRel);
        if before + n > MAX_LIVE_STAGES {
            live.fetch_sub(n, Ordering::AcqRel);
            return None;
        }
        Some(StageSlots { live, n })
    }
}

impl Drop for StageSlots<'_> {
    fn drop(&mut self) {
        self.live
            .fetch_sub(self.n, std::sync::atomic::Ordering::AcqRel);
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
