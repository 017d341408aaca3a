//! Seed 003's terminals: real PTYs running the user's shell in the workspace, with a
//! scrubbed environment. Output is kept in a scrollback ring (read with `terminal.read
//! {since}`) and pushed as `terminal.output` events to whoever created the terminal;
//! `terminal.wait` blocks until the process exits or its output matches a pattern. The
//! whole process group is killed on `terminal.dispose`, when the creating session ends,
//! and when the server stops. Agents' access is governed by `security.allowTerminalAccess`
//! (on by default, as in seed 003); the policy table can make any of these ask a person.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::events::EventBus;
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Source};

use crate::Services;

/// Output kept per terminal; older output is dropped (and `read` says so).
pub const SCROLLBACK_BYTES: usize = 1 << 20;
/// Most terminals open at once.
pub const MAX_TERMINALS: usize = 32;
/// `terminal.wait`'s default and longest timeout.
const WAIT_DEFAULT_MS: u64 = 30_000;
const WAIT_MAX_MS: u64 = 600_000;
/// Environment variables passed through from the server's own (everything else is left
/// out, so secrets in the server's environment do not reach agents' commands).
const PASS_ENV: [&str; 6] = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ"];

/// Register the `terminal.*` commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Create)?;
    r.register(SendText)?;
    r.register(ReadOutput)?;
    r.register(Wait)?;
    r.register(Dispose)?;
    r.register(List)?;
    r.register(Show)?;
    r.register(GetActive)?;
    r.register(Resize)?;
    Ok(())
}

/// The terminals of a workspace.
#[derive(Default)]
pub struct Terminals {
    inner: Mutex<State>,
}

#[derive(Default)]
struct State {
    by_id: BTreeMap<String, Arc<Term>>,
    active: Option<String>,
    next: u64,
}

struct Term {
    id: String,
    name: String,
    cwd: String,
    pid: Option<u32>,
    /// The session that created it (its output events carry it; its end disposes it).
    session: Option<String>,
    writer: Mutex<Box<dyn Write + Send>>,
    /// Kept for resizing; reads end when the shell exits, not when this is dropped.
    master: Mutex<Box<dyn portable_pty::MasterPty + Send>>,
    out: Mutex<Output>,
    changed: Condvar,
}

#[derive(Default)]
struct Output {
    buf: std::collections::VecDeque<u8>,
    /// Absolute offset of `buf[0]` in everything the terminal has printed.
    start: u64,
    exited: bool,
    exit_code: Option<i64>,
    /// Where output stood when text was last sent: `terminal.wait` looks from here by
    /// default, so output that comes before the wait call is not missed.
    input_mark: u64,
}

impl Output {
    fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Output from `since` (clamped to what is kept), at most `max` bytes.
    fn from(&self, since: u64, max: usize) -> (String, u64, bool) {
        let from = since.max(self.start);
        let skip = (from - self.start) as usize;
        let bytes: Vec<u8> = self.buf.iter().skip(skip).take(max).copied().collect();
        let next = from + bytes.len() as u64;
        (
            String::from_utf8_lossy(&bytes).into_owned(),
            next,
            since < self.start,
        )
    }
}

impl Terminals {
    fn get(&self, id: &str) -> Result<Arc<Term>, CommandError> {
        let st = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        st.by_id.get(id).cloned().ok_or_else(|| {
            CommandError::new(ErrorCode::TerminalNotFound, format!("no terminal `{id}`"))
                .with_details(json!({ "terminals": st.by_id.keys().collect::<Vec<_>>() }))
                .with_suggestion("list them with terminal.list, or create one with terminal.create")
        })
    }

    /// Whether terminal `id` exists and its shell has not exited.
    pub fn alive(&self, id: &str) -> bool {
        self.get(id)
            .is_ok_and(|t| !t.out.lock().unwrap_or_else(|p| p.into_inner()).exited)
    }

    /// Kill every terminal `session` created (its connection ended).
    pub fn end_session(&self, session: &str) {
        let ids: Vec<String> = {
            let st = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            st.by_id
                .values()
                .filter(|t| t.session.as_deref() == Some(session))
                .map(|t| t.id.clone())
                .collect()
        };
        for id in ids {
            self.remove(&id);
        }
    }

    fn remove(&self, id: &str) -> Option<Arc<Term>> {
        let mut st = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let t = st.by_id.remove(id)?;
        if st.active.as_deref() == Some(id) {
            st.active = st.by_id.keys().next_back().cloned();
        }
        drop(st);
        t.kill();
        Some(t)
    }
}

impl Drop for Terminals {
    fn drop(&mut self) {
        let st = self.inner.get_mut().unwrap_or_else(|p| p.into_inner());
        for t in st.by_id.values() {
            t.kill();
        }
    }
}

impl Term {
    /// Kill everything the terminal started: its shell's process group and every process
    /// in the shell's session (an interactive shell puts background jobs in groups of
    /// their own, but they stay in its session).
    fn kill(&self) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        // SAFETY: kill(2) has no memory-safety preconditions; a negative pid names a
        // process group. The shell leads its own session and group (portable-pty calls
        // setsid), so these signals reach only what the terminal started.
        unsafe {
            libc::kill(-pid, libc::SIGHUP);
        }
        for p in session_members(pid) {
            // SAFETY: as above.
            unsafe {
                libc::kill(p, libc::SIGKILL);
            }
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }

    fn info(&self) -> TerminalInfo {
        let out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        TerminalInfo {
            terminal_id: self.id.clone(),
            name: self.name.clone(),
            cwd: self.cwd.clone(),
            pid: self.pid,
            exited: out.exited,
            exit_code: out.exit_code,
        }
    }
}

/// The processes whose session id is `sid` (from `/proc/*/stat`).
fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // After the command name's closing parenthesis: state ppid pgrp session ...
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest.split_whitespace().collect())
                .unwrap_or_default();
            fields.get(3).and_then(|s| s.parse::<i32>().ok()) == Some(sid)
        })
        .collect()
}

/// Copy the PTY's output into the scrollback and out as events until it ends, then record
/// the exit status.
/// The text in `bytes` up to a character cut off at the end, which stays in `bytes`
/// (invalid bytes become U+FFFD).
fn take_text(bytes: &mut Vec<u8>) -> String {
    let keep = match std::str::from_utf8(bytes) {
        Ok(_) => 0,
        // An incomplete sequence at the very end (at most 3 bytes) waits for more.
        Err(e) if e.error_len().is_none() => bytes.len() - e.valid_up_to(),
        Err(_) => 0,
    };
    let tail = bytes.split_off(bytes.len() - keep);
    let text = String::from_utf8_lossy(bytes).into_owned();
    *bytes = tail;
    text
}

fn pump(
    term: Arc<Term>,
    mut reader: Box<dyn Read + Send>,
    mut child: Box<dyn portable_pty::Child + Send + Sync>,
    events: EventBus,
) {
    let source = Source {
        session_id: term.session.clone(),
        ..Source::new(ultra_protocol::SourceKind::Internal)
    };
    let mut chunk = [0u8; 8192];
    // A character split across two reads waits here for the rest of its bytes.
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        {
            let mut out = term.out.lock().unwrap_or_else(|p| p.into_inner());
            out.buf.extend(&chunk[..n]);
            let over = out.buf.len().saturating_sub(SCROLLBACK_BYTES);
            if over > 0 {
                out.buf.drain(..over);
                out.start += over as u64;
            }
        }
        term.changed.notify_all();
        partial.extend_from_slice(&chunk[..n]);
        let data = take_text(&mut partial);
        events.emit_with(
            "terminal.output",
            Some(&source),
            || json!({ "terminalId": term.id, "data": data }),
        );
    }
    let code = child.wait().ok().map(|s| i64::from(s.exit_code()));
    {
        let mut out = term.out.lock().unwrap_or_else(|p| p.into_inner());
        out.exited = true;
        out.exit_code = code;
    }
    term.changed.notify_all();
    events.emit(
        "terminal.closed",
        json!({ "terminalId": term.id, "exitCode": code }),
        Some(&source),
    );
}

fn terminals<'a>(cx: &Cx<'a, Services>) -> &'a Terminals {
    cx.services.terminals()
}

// ---------------------------------------------------------------- create

/// Arguments of `terminal.create`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateArgs {
    /// A name to show (default `Terminal N`).
    pub name: Option<String>,
    /// Working directory, from the workspace root (default: the root).
    pub cwd: Option<String>,
    /// Extra environment variables (the server's own are not passed on, except PATH,
    /// HOME, USER, LOGNAME, LANG and TZ).
    #[serde(default)]
    pub env: HashMap<String, String>,
    /// Rows (default 24, 2 to 500).
    pub rows: Option<u16>,
    /// Columns (default 120, 2 to 1000).
    pub cols: Option<u16>,
}

/// A terminal size from optional rows and columns, checked.
fn size(rows: Option<u16>, cols: Option<u16>) -> Result<PtySize, CommandError> {
    let (rows, cols) = (rows.unwrap_or(24), cols.unwrap_or(120));
    if !(2..=500).contains(&rows) || !(2..=1000).contains(&cols) {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            format!("{rows} rows by {cols} columns is not a terminal size"),
        )
        .with_suggestion("give 2 to 500 rows and 2 to 1000 columns"));
    }
    Ok(PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    })
}

/// What `terminal.create` answers.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    pub terminal_id: String,
    pub name: String,
    pub pid: Option<u32>,
}

/// `terminal.create`.
pub struct Create;

static CREATE: CommandSpec = CommandSpec::new(
    "terminal.create",
    "Create Terminal",
    "Terminal",
    "Start a shell in a real terminal (PTY) in the workspace, with a scrubbed environment; its output streams as terminal.output events and stays readable with terminal.read.",
)
.touches(Touches::TERMINALS.and(Touches::PROCESSES))
.examples(&[Example {
    description: "A terminal in a subdirectory",
    args: r#"{"name": "build", "cwd": "src"}"#,
    files: &[("src/a.txt", "a\n")],
    expect: Some(r#"{"name": "build"}"#),
    ..Example::EMPTY
}]);

/// The shell a terminal runs: bash where there is one.
fn shell_program() -> &'static str {
    ["/bin/bash", "/bin/sh"]
        .into_iter()
        .find(|s| std::path::Path::new(s).exists())
        .unwrap_or("/bin/sh")
}

impl Command<Services> for Create {
    type Args = CreateArgs;
    type Output = Created;

    fn spec(&self) -> &'static CommandSpec {
        &CREATE
    }

    fn programs(&self, _s: &Services, _a: &CreateArgs) -> Vec<String> {
        vec![shell_program().to_string()]
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: CreateArgs) -> Result<Created, CommandError> {
        create(cx, a)
    }
}

/// Start a terminal for the caller (`terminal.create`, and the editor's panel).
pub(crate) fn create(cx: &Cx<'_, Services>, a: CreateArgs) -> Result<Created, CommandError> {
    let pty_size = size(a.rows, a.cols)?;
    let human = cx.source.kind == ultra_protocol::SourceKind::Human;
    let (cwd_rel, cwd_abs) = match a.cwd.as_deref().filter(|c| !c.is_empty() && *c != ".") {
        None => (String::new(), cx.services.root_path().to_path_buf()),
        Some(c) => {
            let rel = cx.services.ws().resolve_read(c, human)?;
            let abs = cx.services.root_path().join(rel.as_str());
            if !abs.is_dir() {
                return Err(CommandError::new(
                    ErrorCode::NotADirectory,
                    format!("{c} is not a directory"),
                ));
            }
            (rel.as_str().to_string(), abs)
        }
    };
    for k in a.env.keys() {
        if k.is_empty() || k.contains('=') || k.contains('\0') {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("`{k}` is not an environment variable name"),
            ));
        }
    }
    let terms = terminals(cx);
    let (id, name) = {
        let mut st = terms.inner.lock().unwrap_or_else(|p| p.into_inner());
        if st.by_id.len() >= MAX_TERMINALS {
            return Err(CommandError::new(
                ErrorCode::TooLarge,
                format!("{MAX_TERMINALS} terminals are open already"),
            )
            .with_suggestion("dispose of one with terminal.dispose"));
        }
        st.next += 1;
        let n = st.next;
        (
            format!("term-{n}"),
            a.name.clone().unwrap_or_else(|| format!("Terminal {n}")),
        )
    };
    let pty = native_pty_system()
        .openpty(pty_size)
        .map_err(|e| io_error("open a terminal", e))?;
    let shell = shell_program();
    let mut cmd = CommandBuilder::new(shell);
    if shell.ends_with("bash") {
        cmd.args(["--noprofile", "--norc"]);
    }
    cmd.env_clear();
    for k in PASS_ENV {
        if let Ok(v) = std::env::var(k) {
            cmd.env(k, v);
        }
    }
    cmd.env("TERM", "xterm-256color");
    cmd.env("PS1", "$ ");
    for (k, v) in &a.env {
        cmd.env(k, v);
    }
    cmd.cwd(&cwd_abs);
    let child = pty
        .slave
        .spawn_command(cmd)
        .map_err(|e| io_error("start the shell", e))?;
    // Only the child keeps the slave open, so reads end when it exits.
    drop(pty.slave);
    let reader = pty
        .master
        .try_clone_reader()
        .map_err(|e| io_error("read the terminal", e))?;
    let writer = pty
        .master
        .take_writer()
        .map_err(|e| io_error("write to the terminal", e))?;
    let pid = child.process_id();
    let term = Arc::new(Term {
        id: id.clone(),
        name: name.clone(),
        cwd: cwd_rel,
        pid,
        session: cx.source.session_id.clone(),
        writer: Mutex::new(writer),
        master: Mutex::new(pty.master),
        out: Mutex::new(Output::default()),
        changed: Condvar::new(),
    });
    let events = cx.events.clone();
    let pumped = term.clone();
    std::thread::Builder::new()
        .name(format!("ultra-{id}"))
        .spawn(move || pump(pumped, reader, child, events))
        .map_err(|e| io_error("start the terminal's reader", e))?;
    {
        let mut st = terms.inner.lock().unwrap_or_else(|p| p.into_inner());
        st.by_id.insert(id.clone(), term);
        st.active = Some(id.clone());
    }
    Ok(Created {
        terminal_id: id,
        name,
        pid,
    })
}

fn io_error(what: &str, e: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorCode::IoError, format!("could not {what}: {e}"))
}

// ---------------------------------------------------------------- sendText

/// Arguments of `terminal.sendText`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendTextArgs {
    pub terminal_id: String,
    pub text: String,
    /// End with a newline, which runs a command line (default true).
    pub add_new_line: Option<bool>,
}

/// `{success}`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Done {
    pub success: bool,
}

/// `terminal.sendText`.
pub struct SendText;

static SEND_TEXT: CommandSpec = CommandSpec::new(
    "terminal.sendText",
    "Send Text to Terminal",
    "Terminal",
    "Type text into a terminal; with addNewLine (the default) it runs as a command line.",
)
.touches(Touches::TERMINALS.and(Touches::PROCESSES))
.examples(&[Example {
    description: "Run a command",
    args: r#"{"terminalId": "term-1", "text": "echo hi"}"#,
    setup: &[("terminal.create", "{}")],
    expect: Some(r#"{"success": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for SendText {
    type Args = SendTextArgs;
    type Output = Done;

    fn spec(&self) -> &'static CommandSpec {
        &SEND_TEXT
    }

    /// Best effort: what the shell in the terminal will run, read from the text's words.
    fn programs(&self, _s: &Services, a: &SendTextArgs) -> Vec<String> {
        crate::runner::programs::in_line(&a.text)
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: SendTextArgs) -> Result<Done, CommandError> {
        let t = terminals(cx).get(&a.terminal_id)?;
        if t.out.lock().unwrap_or_else(|p| p.into_inner()).exited {
            return Err(CommandError::new(
                ErrorCode::TerminalNotFound,
                format!("terminal `{}` has exited", a.terminal_id),
            )
            .with_suggestion("read its last output with terminal.read, then create a new one"));
        }
        {
            let mut out = t.out.lock().unwrap_or_else(|p| p.into_inner());
            out.input_mark = out.end();
        }
        let mut text = a.text;
        if a.add_new_line.unwrap_or(true) {
            text.push('\r');
        }
        let mut w = t.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(text.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| io_error("write to the terminal", e))?;
        Ok(Done { success: true })
    }
}

// ---------------------------------------------------------------- read

/// Arguments of `terminal.read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReadArgs {
    pub terminal_id: String,
    /// Output offset to read from: the `next` of the previous read (default 0).
    #[serde(default)]
    pub since: u64,
    /// Most bytes returned (default 65,536).
    pub max_bytes: Option<usize>,
}

/// Output of a terminal.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputPage {
    pub data: String,
    /// Pass as `since` to continue.
    pub next: u64,
    /// Output before `since` was dropped from the scrollback.
    pub truncated: bool,
    pub exited: bool,
    pub exit_code: Option<i64>,
}

/// `terminal.read`.
pub struct ReadOutput;

static READ: CommandSpec = CommandSpec::new(
    "terminal.read",
    "Read Terminal Output",
    "Terminal",
    "A terminal's output from an offset (the pull API for clients without notifications), whether it exited and its exit code; output stays readable after the process ends.",
)
.touches(Touches::TERMINALS)
.read_only()
.examples(&[Example {
    description: "Everything so far",
    args: r#"{"terminalId": "term-1"}"#,
    setup: &[("terminal.create", "{}")],
    expect: Some(r#"{"exited": false}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for ReadOutput {
    type Args = ReadArgs;
    type Output = OutputPage;

    fn spec(&self) -> &'static CommandSpec {
        &READ
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: ReadArgs) -> Result<OutputPage, CommandError> {
        let t = terminals(cx).get(&a.terminal_id)?;
        let out = t.out.lock().unwrap_or_else(|p| p.into_inner());
        let (data, next, truncated) = out.from(a.since, a.max_bytes.unwrap_or(65_536).max(1));
        Ok(OutputPage {
            data,
            next,
            truncated,
            exited: out.exited,
            exit_code: out.exit_code,
        })
    }
}

// ---------------------------------------------------------------- wait

/// What to wait for.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", untagged)]
pub enum Until {
    /// `"exit"`: the process ends.
    Exit(ExitWord),
    /// `{"output": "regex"}`: output after `since` matches.
    Output { output: String },
}

/// The word `exit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExitWord {
    Exit,
}

/// Arguments of `terminal.wait`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitArgs {
    pub terminal_id: String,
    pub until: Until,
    /// Give up after this long (default 30,000, at most 600,000).
    pub timeout_ms: Option<u64>,
    /// Look at output from this offset (default: from the last `terminal.sendText`, so
    /// output that arrived before this call counts).
    pub since: Option<u64>,
}

/// What `terminal.wait` saw.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Waited {
    /// The condition was met (false: timed out, or the process exited first).
    pub matched: bool,
    pub timed_out: bool,
    /// The output from `since` to now.
    pub data: String,
    pub next: u64,
    pub exited: bool,
    pub exit_code: Option<i64>,
}

/// `terminal.wait`.
pub struct Wait;

static WAIT: CommandSpec = CommandSpec::new(
    "terminal.wait",
    "Wait for Terminal",
    "Terminal",
    "Block until a terminal's process exits (`until: \"exit\"`) or its output matches a regex (`until: {\"output\": \"...\"}`), or timeoutMs passes; answers with the output meanwhile and the exit code.",
)
.touches(Touches::TERMINALS)
.read_only()
.long()
.examples(&[Example {
    description: "Wait for a command's output",
    args: r#"{"terminalId": "term-1", "until": {"output": "ready"}, "since": 0, "timeoutMs": 10000}"#,
    setup: &[("terminal.create", "{}"), ("terminal.sendText", r#"{"terminalId": "term-1", "text": "echo rea''dy"}"#)],
    expect: Some(r#"{"matched": true, "timedOut": false}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Wait {
    type Args = WaitArgs;
    type Output = Waited;

    fn spec(&self) -> &'static CommandSpec {
        &WAIT
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: WaitArgs) -> Result<Waited, CommandError> {
        let t = terminals(cx).get(&a.terminal_id)?;
        let pattern = match &a.until {
            Until::Exit(_) => None,
            Until::Output { output } => Some(regex::Regex::new(output).map_err(|e| {
                CommandError::new(ErrorCode::InvalidArguments, format!("until.output: {e}"))
            })?),
        };
        let timeout =
            Duration::from_millis(a.timeout_ms.unwrap_or(WAIT_DEFAULT_MS).min(WAIT_MAX_MS));
        let deadline = Instant::now() + timeout;
        let mut out = t.out.lock().unwrap_or_else(|p| p.into_inner());
        let since = a.since.unwrap_or(out.input_mark);
        loop {
            let (data, next, _) = out.from(since, SCROLLBACK_BYTES);
            let matched = match &pattern {
                None => out.exited,
                Some(re) => re.is_match(&data),
            };
            let now = Instant::now();
            if matched || out.exited || now >= deadline {
                return Ok(Waited {
                    matched,
                    timed_out: !matched && !out.exited,
                    data,
                    next,
                    exited: out.exited,
                    exit_code: out.exit_code,
                });
            }
            out = t
                .changed
                .wait_timeout(out, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }
}

// ---------------------------------------------------------------- dispose, list, show, active

/// An argument naming a terminal.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TerminalArgs {
    pub terminal_id: String,
    /// Accepted for seed 003's `terminal.show`; there is no focus to keep here.
    #[serde(default)]
    pub preserve_focus: bool,
}

/// `terminal.dispose`.
pub struct Dispose;

static DISPOSE: CommandSpec = CommandSpec::new(
    "terminal.dispose",
    "Dispose Terminal",
    "Terminal",
    "Close a terminal, killing everything it started (its process group and session).",
)
.touches(Touches::TERMINALS)
.examples(&[Example {
    description: "Close it",
    args: r#"{"terminalId": "term-1"}"#,
    setup: &[("terminal.create", "{}")],
    expect: Some(r#"{"success": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Dispose {
    type Args = TerminalArgs;
    type Output = Done;

    fn spec(&self) -> &'static CommandSpec {
        &DISPOSE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Done, CommandError> {
        let terms = terminals(cx);
        terms.get(&a.terminal_id)?;
        terms.remove(&a.terminal_id);
        Ok(Done { success: true })
    }
}

/// A terminal in `terminal.list`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TerminalInfo {
    pub terminal_id: String,
    pub name: String,
    /// Working directory, from the workspace root ("" for the root).
    pub cwd: String,
    pub pid: Option<u32>,
    pub exited: bool,
    pub exit_code: Option<i64>,
}

/// `{terminals}`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalList {
    pub terminals: Vec<TerminalInfo>,
}

pub use crate::util::NoArgs;

/// `terminal.list`.
pub struct List;

static LIST: CommandSpec = CommandSpec::new(
    "terminal.list",
    "List Terminals",
    "Terminal",
    "Every open terminal: id, name, working directory, pid, and whether (and how) it exited.",
)
.touches(Touches::TERMINALS)
.read_only()
.examples(&[Example {
    description: "One terminal",
    args: "{}",
    setup: &[("terminal.create", r#"{"name": "dev"}"#)],
    expect: Some(r#"{"terminals": [{"terminalId": "term-1", "name": "dev"}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for List {
    type Args = NoArgs;
    type Output = TerminalList;

    fn spec(&self) -> &'static CommandSpec {
        &LIST
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<TerminalList, CommandError> {
        let st = terminals(cx)
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        Ok(TerminalList {
            terminals: st.by_id.values().map(|t| t.info()).collect(),
        })
    }
}

/// `terminal.show`.
pub struct Show;

static SHOW: CommandSpec = CommandSpec::new(
    "terminal.show",
    "Show Terminal",
    "Terminal",
    "Make a terminal the active one.",
)
.touches(Touches::TERMINALS)
.idempotent()
.examples(&[Example {
    description: "Activate it",
    args: r#"{"terminalId": "term-1"}"#,
    setup: &[("terminal.create", "{}")],
    expect: Some(r#"{"success": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Show {
    type Args = TerminalArgs;
    type Output = Done;

    fn spec(&self) -> &'static CommandSpec {
        &SHOW
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Done, CommandError> {
        let terms = terminals(cx);
        terms.get(&a.terminal_id)?;
        terms.inner.lock().unwrap_or_else(|p| p.into_inner()).active = Some(a.terminal_id);
        Ok(Done { success: true })
    }
}

/// `{terminalId, name}` of the active terminal.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Active {
    pub terminal_id: String,
    pub name: String,
}

/// `terminal.getActive`.
pub struct GetActive;

static GET_ACTIVE: CommandSpec = CommandSpec::new(
    "terminal.getActive",
    "Get Active Terminal",
    "Terminal",
    "The active terminal (the last created or shown).",
)
.touches(Touches::TERMINALS)
.read_only()
.examples(&[Example {
    description: "The one just created",
    args: "{}",
    setup: &[("terminal.create", r#"{"name": "dev"}"#)],
    expect: Some(r#"{"terminalId": "term-1", "name": "dev"}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetActive {
    type Args = NoArgs;
    type Output = Active;

    fn spec(&self) -> &'static CommandSpec {
        &GET_ACTIVE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Active, CommandError> {
        let terms = terminals(cx);
        let id = terms
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .active
            .clone()
            .ok_or_else(|| {
                CommandError::new(ErrorCode::TerminalNotFound, "no terminal is open")
                    .with_suggestion("create one with terminal.create")
            })?;
        let t = terms.get(&id)?;
        Ok(Active {
            terminal_id: t.id.clone(),
            name: t.name.clone(),
        })
    }
}

// ---------------------------------------------------------------- resize

/// Arguments of `terminal.resize`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResizeArgs {
    pub terminal_id: String,
    /// Rows (2 to 500).
    pub rows: u16,
    /// Columns (2 to 1000).
    pub cols: u16,
}

/// `terminal.resize`.
pub struct Resize;

static RESIZE: CommandSpec = CommandSpec::new(
    "terminal.resize",
    "Resize Terminal",
    "Terminal",
    "Change a terminal's size (rows and columns); the program in it is told (SIGWINCH), as when a terminal window is resized.",
)
.touches(Touches::TERMINALS)
.idempotent()
.examples(&[Example {
    description: "Make it 40 by 100",
    args: r#"{"terminalId": "term-1", "rows": 40, "cols": 100}"#,
    setup: &[("terminal.create", "{}")],
    expect: Some(r#"{"success": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Resize {
    type Args = ResizeArgs;
    type Output = Done;

    fn spec(&self) -> &'static CommandSpec {
        &RESIZE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: ResizeArgs) -> Result<Done, CommandError> {
        let want = size(Some(a.rows), Some(a.cols))?;
        let term = terminals(cx).get(&a.terminal_id)?;
        let master = term.master.lock().unwrap_or_else(|p| p.into_inner());
        master
            .resize(want)
            .map_err(|e| io_error("resize the terminal", e))?;
        Ok(Done { success: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_reads_arrive_whole() {
        let mut b = "a\u{e9}".as_bytes()[..2].to_vec();
        assert_eq!(take_text(&mut b), "a");
        assert_eq!(b, [0xc3]);
        b.push(0xa9);
        b.extend_from_slice(b"z");
        assert_eq!(take_text(&mut b), "\u{e9}z");
        assert!(b.is_empty());
        let mut bad = vec![b'x', 0xff, b'y'];
        assert_eq!(take_text(&mut bad), "x\u{fffd}y");
    }
}
