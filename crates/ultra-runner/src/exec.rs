//! Running a judged command line: every stage as argv (no shell in between: what was judged
//! is what runs) in the workspace root, with a scrubbed environment, its own process group
//! (killed whole on timeout or cancel), capped output, and the exit code and duration in
//! the answer.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command as Process, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use ultra_core::config::RunConfig;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::syntax::ast::AndOrOp;

use crate::policy::{self, Line};
use crate::sandbox::Sandbox;

/// The longest timeout a run may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
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

/// A run's timeout (the caller's, else `default_ms`, at most 600 s) and output cap (from
/// config `run.maxOutputBytes`).
pub fn limits(config: &RunConfig, timeout_ms: Option<u64>, default_ms: u64) -> (Duration, usize) {
    let timeout = Duration::from_millis(timeout_ms.unwrap_or(default_ms).clamp(1, MAX_TIMEOUT_MS));
    let cap = config.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT);
    (timeout, cap)
}

/// Stops a run from another thread: the process group running now is killed at once, and
/// nothing after it starts.
#[derive(Default)]
pub struct Cancel {
    stopped: std::sync::atomic::AtomicBool,
    group: std::sync::atomic::AtomicI32,
}

impl Cancel {
    /// Kill the run in progress and start nothing more.
    pub fn cancel(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        self.stopped.store(true, SeqCst);
        kill_group(self.group.load(SeqCst));
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Run every list of a line, honouring `&&` and `||`, within `timeout` overall; a
/// cancelled run ends like a timed-out one.
pub fn execute(
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
