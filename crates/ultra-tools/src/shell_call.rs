//! What every shell call shares, whichever command makes it (the `shell` script tool, one
//! built-in as `shell.<name>`, a promoted command as a typed tool): its result, its capped
//! output, its session, one command run on the workspace, and how a declared
//! [`Risk`] becomes a spec and policy annotations.

use std::collections::BTreeMap;
use std::io::Write;

use schemars::JsonSchema;
use serde::Serialize;
use ultra_core::Cx;
use ultra_core::command::{CommandSpec, Touches};
use ultra_protocol::command::Annotations;
use ultra_shell::command::{Io, Risk};
use ultra_workspace::RelPath;

use crate::shell_writes::{Refusal, SHELL_TIME_LIMIT, finish, shell_fs};
use ultra_services::Services;

/// Default cap on captured stdout and stderr, each.
pub(crate) const DEFAULT_MAX_OUTPUT: usize = 64 * 1024;

/// The standard fixture built-in examples run on.
pub(crate) const FIXTURE: &[(&str, &str)] =
    &[("f.txt", "b\na\nc\n"), ("src/main.rs", "fn main() {}\n")];

/// Result of `ultra.shell.run`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// The last command's status (0 success, 1 failure or no match, 2 usage, 127 unknown).
    pub exit_code: i32,
    /// Output was cut at `maxOutput`.
    pub truncated: bool,
    /// The session's working directory afterwards, from the workspace root.
    pub cwd: String,
    /// Problems an agent can act on (e.g. an unknown command, with the closest built-ins).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ShellError>,
}

/// A structured problem from a script.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShellError {
    /// `unknown_command`, `write_refused`, `output_capped`.
    pub code: String,
    pub command: String,
    pub message: String,
    /// Built-ins with a similar name.
    pub closest: Vec<String>,
}

impl From<Refusal> for ShellError {
    fn from(r: Refusal) -> ShellError {
        ShellError {
            code: "write_refused".to_string(),
            command: r.path,
            message: r.reason,
            closest: Vec::new(),
        }
    }
}

/// Collects up to `cap` bytes; past that, writes to stdout fail so the script stops
/// producing. Stderr keeps accepting, and its last [`TAIL`] bytes are kept: the final
/// lines (why a script stopped) are the ones worth reading.
pub(crate) struct Capped {
    pub(crate) buf: Vec<u8>,
    cap: usize,
    pub(crate) truncated: bool,
    tail: Vec<u8>,
    /// Stderr: writes past the cap succeed, into the tail.
    keeps_tail: bool,
}

/// Bytes kept from past the cap.
const TAIL: usize = 1024;

impl Capped {
    /// For stdout.
    pub(crate) fn new(cap: usize) -> Capped {
        Capped {
            buf: Vec::new(),
            cap,
            truncated: false,
            tail: Vec::new(),
            keeps_tail: false,
        }
    }

    /// For stderr.
    pub(crate) fn stderr(cap: usize) -> Capped {
        Capped {
            keeps_tail: true,
            ..Capped::new(cap)
        }
    }

    /// What was kept, with the last whole lines past the cap after a marker.
    pub(crate) fn text_with_tail(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.buf).into_owned();
        let tail = match self.tail.iter().position(|b| *b == b'\n') {
            // Whole lines only, unless the tail is one unfinished line.
            Some(i) if i + 1 < self.tail.len() => &self.tail[i + 1..],
            _ => &self.tail[..],
        };
        if !tail.is_empty() {
            text.push_str("\n[... output past the limit left out; its last lines:]\n");
            text.push_str(&String::from_utf8_lossy(tail));
        }
        text
    }

    fn keep_tail(&mut self, b: &[u8]) {
        self.tail
            .extend_from_slice(&b[b.len().saturating_sub(TAIL)..]);
        let extra = self.tail.len().saturating_sub(TAIL);
        self.tail.drain(..extra);
    }
}

impl Write for Capped {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let room = self.cap.saturating_sub(self.buf.len());
        if room == 0 {
            self.truncated = true;
            if self.keeps_tail {
                self.keep_tail(b);
                return Ok(b.len());
            }
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "output limit reached",
            ));
        }
        let n = room.min(b.len());
        self.buf.extend_from_slice(&b[..n]);
        if n < b.len() {
            self.truncated = true;
            if self.keeps_tail {
                self.keep_tail(&b[n..]);
                return Ok(b.len());
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The result of a call from its captured streams. Output cut at the cap says so in
/// `errors` (`output_capped`), with how to see the rest.
pub(crate) fn output(
    out: Capped,
    err: Capped,
    exit_code: i32,
    cwd: &RelPath,
    mut errors: Vec<ShellError>,
) -> RunOutput {
    if out.truncated {
        errors.push(ShellError {
            code: "output_capped".to_string(),
            command: String::new(),
            message: format!(
                "stdout was cut at {} bytes and the command stopped there; narrow it (a path, \
                 a tighter pattern) or page through it (`| sed -n '2000,3000p'`)",
                out.cap
            ),
            closest: Vec::new(),
        });
    }
    RunOutput {
        stdout: String::from_utf8_lossy(&out.buf).into_owned(),
        stderr: err.text_with_tail(),
        exit_code,
        truncated: out.truncated || err.truncated,
        cwd: cwd.as_str().to_string(),
        errors,
    }
}

/// Run one command (`run`) on the workspace from `cwd` with `vars` and `stdin`, output
/// capped at `cap` bytes a stream, every write passing the workspace's checks.
pub(crate) fn run_one(
    cx: &mut Cx<'_, Services>,
    cwd: &RelPath,
    vars: &BTreeMap<String, String>,
    stdin: Vec<u8>,
    cap: usize,
    run: impl FnOnce(&mut Io<'_>, &ultra_shell::command::Cx<'_>) -> i32,
) -> RunOutput {
    let (fs, hook) = shell_fs(cx, SHELL_TIME_LIMIT);
    let charged = fs.charge();
    let mut out = Capped::new(cap);
    let mut err = Capped::stderr(cap);
    let status = {
        let mut stdin = std::io::Cursor::new(stdin);
        let mut io = Io {
            stdin: &mut stdin,
            stdout: &mut out,
            stderr: &mut err,
        };
        run(&mut io, &ultra_shell::command::Cx { fs: &fs, cwd, vars })
    };
    drop((charged, fs));
    let errors = finish(cx, &hook)
        .into_iter()
        .map(ShellError::from)
        .collect();
    // One command stopped by the cap (its write refused) did its work up to there: the
    // status of the refused write is not the command's answer (grep found matches).
    let status = if out.truncated { 0 } else { status };
    output(out, err, status, cwd, errors)
}

/// The shell session a call uses: the one named, else the caller's session or agent id.
pub(crate) fn session_id(cx: &Cx<'_, Services>, named: Option<&str>) -> String {
    named
        .map(str::to_string)
        .or_else(|| cx.source.session_id.clone())
        .or_else(|| cx.source.agent_id.clone())
        .unwrap_or_else(|| "default".to_string())
}

pub(crate) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// `spec` with what a command declaring `risk` at its most touches and may do.
pub(crate) fn with_risk(spec: CommandSpec, risk: Risk) -> CommandSpec {
    let mut spec = spec.touches(if risk.runs {
        Touches::PROCESSES.and(Touches::WRITE)
    } else if risk.writes {
        Touches::WRITE
    } else {
        Touches::READ
    });
    if !risk.writes {
        spec = spec.read_only();
    }
    if risk.destructive {
        spec = spec.destructive();
    }
    if risk.runs {
        spec = spec.open_world();
    }
    spec
}

/// A declared risk as policy annotations.
pub(crate) fn risk_annotations(risk: Risk) -> Annotations {
    Annotations {
        read_only: !risk.writes,
        destructive: risk.destructive,
        idempotent: !risk.writes,
        open_world: risk.runs,
    }
}

/// Annotations of a call as policy judges them: running the project's code (`build`)
/// counts as reaching outside the workspace only when no sandbox will confine it.
pub(crate) fn confined(services: &Services, mut a: Annotations) -> Annotations {
    if a.open_world && crate::runner::sandbox::offered(&services.config.run) {
        a.open_world = false;
    }
    a
}
