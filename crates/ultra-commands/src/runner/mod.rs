//! Seed 001's `run_command`: a command line, parsed and judged stage by stage
//! ([`policy`]), then run as argv (no shell in between: what was judged is what runs) in
//! the workspace root, with a scrubbed environment, its own process group (killed whole on
//! timeout), capped output, and the exit code and duration in the answer.

pub mod build;
pub mod policy;
pub mod programs;
pub(crate) mod sandbox;
pub mod test_runner;
pub mod watch;

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::syntax::ast::AndOrOp;

use crate::Services;
use policy::{Line, Rules, Verdict};
use sandbox::Sandbox;
use std::sync::Arc;

/// Register `run.command` and `run.tests`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(RunCommand)?;
    r.register(test_runner::RunTests)?;
    r.register(watch::TestWatchList)?;
    r.register(watch::StopTestWatch)?;
    Ok(())
}

const DEFAULT_TIMEOUT_MS: u64 = 30_000;
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
const DEFAULT_MAX_OUTPUT: usize = 256 * 1024;
/// What a program sees of Ultra's environment: the basics and where toolchains live;
/// `LD_*`, `GIT_*`, `BASH_ENV`, `PAGER`, tokens and the rest are dropped.
const PASS_ENV: [&str; 11] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "TZ",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOCACHE",
    "VIRTUAL_ENV",
];

/// Arguments of `run.command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    /// The command line: plain words joined by `&&`, `||`, `;` and `|` (no variables,
    /// globs or redirections).
    pub command: String,
    /// Milliseconds before the whole process group is killed (default 30000, at most
    /// 600000).
    pub timeout: Option<u64>,
}

/// What ran.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// The last pipeline's status (-1 when killed by a signal).
    pub exit_code: i32,
    /// Milliseconds.
    pub duration: u64,
    pub timed_out: bool,
    /// Output past the cap was dropped.
    pub truncated: bool,
    /// It ran in the sandbox: no network, writes only in the workspace, temp and caches.
    pub sandboxed: bool,
}

/// `run.command`.
pub struct RunCommand;

static RUN: CommandSpec = CommandSpec::new(
    "run.command",
    "Run: Command",
    "Run",
    "Run a command line in the workspace root (seed 001's run_command) and return stdout, stderr, exitCode and duration. Words are plain (no $variables, globs or redirections); stages join with &&, || , ; and |. Every stage is judged: denied ones (rm -rf, sudo, git push --force, ...) are refused, allow-listed ones (npm, node, git status/diff/log/show/branch, tsc, vitest, jest, eslint, prettier, ...) run at once, anything else waits for a person who sees the full argv. Timeout 30 s by default (max 600 s) kills the whole process group.",
)
.touches(Touches::PROCESSES.and(Touches::WRITE))
.tool_name("run_command")
.open_world()
.long()
.examples(&[
    Example {
        description: "A denied command is refused without asking anyone",
        args: r#"{"command": "rm -rf build"}"#,
        error: Some("POLICY_DENIED"),
        ..Example::EMPTY
    },
    Example {
        description: "Variables are not expanded, so they are refused",
        args: r#"{"command": "echo $HOME"}"#,
        error: Some("POLICY_DENIED"),
        ..Example::EMPTY
    },
]);

fn rules(services: &Services) -> Result<Rules, CommandError> {
    Rules::from_config(&services.config.run).map_err(|e| {
        CommandError::new(
            ErrorCode::InvalidArguments,
            format!("ultra.config.json: {e}"),
        )
        .with_suggestion("fix the rule or its examples in the `run` section")
    })
}

fn judged(services: &Services, a: &RunArgs) -> Result<(Line, Verdict), CommandError> {
    let refuse = |why: String| {
        CommandError::new(ErrorCode::PolicyDenied, format!("run_command refuses `{}`: {why}", a.command))
            .with_details(serde_json::json!({ "command": a.command }))
            .with_suggestion("run plain commands (argv words joined by && || ; |); for file work use the shell, write or edit tools")
    };
    let line = policy::parse(&a.command).map_err(refuse)?;
    let verdict = rules(services)?.judge(&line);
    if let Verdict::Deny(why) = &verdict {
        return Err(refuse(why.clone()));
    }
    Ok((line, verdict))
}

impl Command<Services> for RunCommand {
    type Args = RunArgs;
    type Output = RunOutput;

    fn spec(&self) -> &'static CommandSpec {
        &RUN
    }

    fn programs(&self, _s: &Services, a: &RunArgs) -> Vec<String> {
        self::programs::in_line(&a.command)
    }

    fn precheck(
        &self,
        services: &Services,
        _source: &ultra_protocol::Source,
        a: &RunArgs,
    ) -> Result<(), CommandError> {
        judged(services, a).map(|_| ())
    }

    /// Allow-listed lines are ordinary writes; the rest reach outside the workspace, which
    /// the default policy puts to a person.
    /// Allow-listed lines run at once in the sandbox (they still run the project's code:
    /// `npm test`); without a sandbox, or for any other line, a person is asked.
    fn annotations_in(&self, services: &Services, a: &RunArgs) -> Annotations {
        match judged(services, a) {
            Ok((_, Verdict::Allow)) if sandbox::offered(&services.config.run) => {
                Annotations::default()
            }
            _ => RUN.annotations,
        }
    }

    fn preview(&self, _services: &Services, a: &RunArgs) -> Option<String> {
        let line = policy::parse(&a.command).ok()?;
        let argv: Vec<String> = line.stages().map(|s| format!("  {:?}", s.argv)).collect();
        Some(format!("Run in the workspace root:\n{}\n", argv.join("\n")))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: RunArgs) -> Result<RunOutput, CommandError> {
        // Policy saw the verdict through `annotations_in`: a line that is not allow-listed
        // reaches this point only if a person approved it, a rule in the config allows it,
        // or auto-apply is on.
        // What a person approved runs as approved; what an agent runs unasked is confined.
        let (line, verdict) = judged(cx.services, &a)?;
        let (timeout, cap) = limits(cx.services, a.timeout, DEFAULT_TIMEOUT_MS);
        let sandbox = agent_sandbox(cx).filter(|_| verdict == Verdict::Allow);
        execute(
            cx.services.root_path(),
            &line,
            timeout,
            cap,
            None,
            sandbox.as_ref(),
        )
    }
}

/// The sandbox for an agent's call that reached its handler without a person (only those
/// can, when a sandbox is offered; see `annotations_in`). People's calls run unconfined.
pub(crate) fn agent_sandbox(cx: &Cx<'_, Services>) -> Option<Arc<Sandbox>> {
    if crate::util::is_human(cx) {
        return None;
    }
    sandbox::usable(&cx.services.config.run, cx.services.root_path())
}

/// A run's timeout (the caller's, else `default_ms`, at most 600 s) and output cap (from
/// config `run.maxOutputBytes`).
pub(crate) fn limits(
    services: &Services,
    timeout_ms: Option<u64>,
    default_ms: u64,
) -> (Duration, usize) {
    let timeout = Duration::from_millis(timeout_ms.unwrap_or(default_ms).clamp(1, MAX_TIMEOUT_MS));
    let cap = services
        .config
        .run
        .max_output_bytes
        .unwrap_or(DEFAULT_MAX_OUTPUT);
    (timeout, cap)
}

/// Stops a run from another thread: the process group running now is killed at once, and
/// nothing after it starts.
#[derive(Default)]
pub(crate) struct Cancel {
    stopped: std::sync::atomic::AtomicBool,
    group: std::sync::atomic::AtomicI32,
}

impl Cancel {
    pub(crate) fn cancel(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        self.stopped.store(true, SeqCst);
        kill_group(self.group.load(SeqCst));
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Run every list of a line, honouring `&&` and `||`, within `timeout` overall; a
/// cancelled run ends like a timed-out one.
fn execute(
    root: &std::path::Path,
    line: &Line,
    timeout: Duration,
    cap: usize,
    cancel: Option<&Cancel>,
    sandbox: Option<&Arc<Sandbox>>,
) -> Result<RunOutput, CommandError> {
    let started = Instant::now();
    let deadline = started + timeout;
    let mut out = Collected::new(cap);
    let mut status = 0;
    let mut timed_out = false;
    'lists: for list in &line.lists {
        for (op, pipeline) in list {
            let run = match op {
                None => true,
                Some(AndOrOp::And) => status == 0,
                Some(AndOrOp::Or) => status != 0,
            };
            if !run {
                continue;
            }
            match run_pipeline(root, pipeline, deadline, &mut out, cancel, sandbox)? {
                Some(s) => status = s,
                None => {
                    timed_out = true;
                    status = -1;
                    break 'lists;
                }
            }
        }
    }
    Ok(RunOutput {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        exit_code: status,
        duration: started.elapsed().as_millis() as u64,
        timed_out,
        truncated: out.truncated,
        sandboxed: sandbox.is_some(),
    })
}

struct Collected {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    cap: usize,
    truncated: bool,
}

impl Collected {
    fn new(cap: usize) -> Collected {
        Collected {
            stdout: Vec::new(),
            stderr: Vec::new(),
            cap,
            truncated: false,
        }
    }
}

/// Read a pipe to its end on a thread, keeping at most `cap` bytes.
fn drain(
    mut pipe: impl Read + Send + 'static,
    cap: usize,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        let mut cut = false;
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    cut |= n > room;
                }
            }
        }
        (kept, cut)
    })
}

/// Spawn a pipeline's stages, stdout to the next stdin; `None` on timeout (the group is
/// killed), else the last stage's status.
fn run_pipeline(
    root: &std::path::Path,
    stages: &[policy::Stage],
    deadline: Instant,
    out: &mut Collected,
    cancel: Option<&Cancel>,
    sandbox: Option<&Arc<Sandbox>>,
) -> Result<Option<i32>, CommandError> {
    if cancel.is_some_and(Cancel::is_cancelled) {
        return Ok(None);
    }
    let mut children: Vec<Child> = Vec::new();
    let mut readers = Vec::new();
    let mut group = 0;
    let mut previous: Option<std::process::ChildStdout> = None;
    for (i, stage) in stages.iter().enumerate() {
        let last = i + 1 == stages.len();
        let mut p = Process::new(&stage.argv[0]);
        p.args(&stage.argv[1..])
            .current_dir(root)
            .env_clear()
            .envs(
                PASS_ENV
                    .iter()
                    .filter_map(|k| std::env::var_os(k).map(|v| (*k, v))),
            )
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .stdin(match previous.take() {
                Some(prev) => Stdio::from(prev),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // One group for the pipeline, so a timeout kills everything it started.
            .process_group(group);
        if let Some(sb) = sandbox {
            sb.apply(&mut p);
        }
        let mut child = match p.spawn() {
            Ok(c) => c,
            Err(e) => {
                kill_group(group);
                return Err(CommandError::new(
                    ErrorCode::FileNotFound,
                    format!("cannot run `{}`: {e}", stage.argv[0]),
                )
                .with_suggestion("check the program name; PATH is the server's"));
            }
        };
        if group == 0 {
            group = child.id() as i32;
            if let Some(c) = cancel {
                c.group.store(group, std::sync::atomic::Ordering::SeqCst);
                // A cancel that came while spawning found no group to kill.
                if c.is_cancelled() {
                    kill_group(group);
                }
            }
        }
        if let Some(err) = child.stderr.take() {
            readers.push((false, drain(err, out.cap)));
        }
        if last {
            if let Some(o) = child.stdout.take() {
                readers.push((true, drain(o, out.cap)));
            }
        } else {
            previous = child.stdout.take();
        }
        children.push(child);
    }
    let mut status = None;
    let mut timed_out = false;
    for (i, child) in children.iter_mut().enumerate() {
        loop {
            match child.try_wait() {
                Ok(Some(s)) => {
                    if i + 1 == stages.len() {
                        status = Some(s.code().unwrap_or(-1));
                    }
                    break;
                }
                Ok(None)
                    if Instant::now() >= deadline || cancel.is_some_and(Cancel::is_cancelled) =>
                {
                    timed_out = true;
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        if timed_out {
            break;
        }
    }
    if timed_out {
        kill_group(group);
        for c in &mut children {
            let _ = c.wait();
        }
    }
    // Stragglers that kept a pipe open (a background child) go with the group too.
    kill_group(group);
    if let Some(c) = cancel {
        // The id may be reused by an unrelated group from now on.
        c.group.store(0, std::sync::atomic::Ordering::SeqCst);
    }
    for (is_out, r) in readers {
        if let Ok((bytes, cut)) = r.join() {
            let dest = if is_out {
                &mut out.stdout
            } else {
                &mut out.stderr
            };
            let room = out.cap.saturating_sub(dest.len());
            dest.extend_from_slice(&bytes[..bytes.len().min(room)]);
            out.truncated |= cut || bytes.len() > room;
        }
    }
    Ok(if timed_out {
        None
    } else {
        Some(status.unwrap_or(-1))
    })
}

fn kill_group(group: i32) {
    if group > 0 {
        // SAFETY: killpg only sends a signal; a group that is gone gives ESRCH.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
}
