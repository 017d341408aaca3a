//! Terminals: real PTYs running the user's shell with a scrubbed environment. A reader
//! thread per terminal fills a scrollback ring and emits `terminal.output` and
//! `terminal.closed` events tagged with the creating session; a terminal is killed (its
//! process group and every process in its session) when disposed, when its session ends
//! and when [`Terminals`] is dropped. The `terminal.*` commands are thin handlers over
//! [`Terminals`].

mod term;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use ultra_core::events::EventBus;
use ultra_protocol::{CommandError, ErrorCode};

use term::{Output, Term, pump};

/// Output kept per terminal; older output is dropped (and `read` says so).
pub const SCROLLBACK_BYTES: usize = 1 << 20;
/// Most terminals open at once.
pub const MAX_TERMINALS: usize = 32;
/// Environment variables passed through from the server's own (everything else is left
/// out, so secrets in the server's environment do not reach agents' commands).
const PASS_ENV: [&str; 6] = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ"];

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

/// A terminal size, checked.
#[derive(Debug, Clone, Copy)]
pub struct Size(PtySize);

impl Size {
    /// A size from optional rows (default 24, 2 to 500) and columns (default 120, 2 to 1000).
    pub fn new(rows: Option<u16>, cols: Option<u16>) -> Result<Size, CommandError> {
        let (rows, cols) = (rows.unwrap_or(24), cols.unwrap_or(120));
        if !(2..=500).contains(&rows) || !(2..=1000).contains(&cols) {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("{rows} rows by {cols} columns is not a terminal size"),
            )
            .with_suggestion("give 2 to 500 rows and 2 to 1000 columns"));
        }
        Ok(Size(PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        }))
    }
}

/// What to start: [`Terminals::spawn`]'s argument.
pub struct Spawn {
    /// A name to show (default `Terminal N`).
    pub name: Option<String>,
    /// The working directory as shown, from the workspace root ("" for the root).
    pub cwd: String,
    /// The working directory itself, already confined by the caller.
    pub dir: PathBuf,
    /// Extra environment variables.
    pub env: HashMap<String, String>,
    /// Rows and columns.
    pub size: Size,
    /// The session creating it: its output events carry it and its end disposes it.
    pub session: Option<String>,
}

/// What `terminal.create` answers.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    pub terminal_id: String,
    pub name: String,
    pub pid: Option<u32>,
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

/// A terminal in `terminal.list`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TerminalInfo {
    pub terminal_id: String,
    /// Seed 003's `TerminalInfo.id`: the same as `terminalId`.
    pub id: String,
    pub name: String,
    /// Seed 003's `TerminalInfo.processId`: the shell's pid, as `pid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_id: Option<u32>,
    /// Working directory, from the workspace root ("" for the root).
    pub cwd: String,
    pub pid: Option<u32>,
    pub exited: bool,
    pub exit_code: Option<i64>,
}

/// The shell a terminal runs: bash where there is one.
pub fn shell_program() -> &'static str {
    ["/bin/bash", "/bin/sh"]
        .into_iter()
        .find(|s| std::path::Path::new(s).exists())
        .unwrap_or("/bin/sh")
}

fn io_error(what: &str, e: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorCode::IoError, format!("could not {what}: {e}"))
}

impl Terminals {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, id: &str) -> Result<Arc<Term>, CommandError> {
        let st = self.state();
        st.by_id.get(id).cloned().ok_or_else(|| {
            CommandError::new(ErrorCode::TerminalNotFound, format!("no terminal `{id}`"))
                .with_details(json!({ "terminals": st.by_id.keys().collect::<Vec<_>>() }))
                .with_suggestion("list them with terminal.list, or create one with terminal.create")
        })
    }

    /// Whether terminal `id` exists and its shell has not exited.
    pub fn alive(&self, id: &str) -> bool {
        self.get(id).is_ok_and(|t| !t.out().exited)
    }

    /// Kill every terminal `session` created (its connection ended).
    pub fn end_session(&self, session: &str) {
        let ids: Vec<String> = {
            let st = self.state();
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
        let mut st = self.state();
        let t = st.by_id.remove(id)?;
        if st.active.as_deref() == Some(id) {
            st.active = st.by_id.keys().next_back().cloned();
        }
        drop(st);
        t.kill();
        Some(t)
    }

    /// Start [`shell_program`] in a new PTY, with only [`PASS_ENV`] of the server's
    /// environment plus `s.env`; it becomes the active terminal.
    pub fn spawn(&self, s: Spawn, events: &EventBus) -> Result<Created, CommandError> {
        for k in s.env.keys() {
            if k.is_empty() || k.contains('=') || k.contains('\0') {
                return Err(CommandError::new(
                    ErrorCode::InvalidArguments,
                    format!("`{k}` is not an environment variable name"),
                ));
            }
        }
        let (id, name) = {
            let mut st = self.state();
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
                s.name.clone().unwrap_or_else(|| format!("Terminal {n}")),
            )
        };
        let pty = native_pty_system()
            .openpty(s.size.0)
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
        for (k, v) in &s.env {
            cmd.env(k, v);
        }
        cmd.cwd(&s.dir);
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
            cwd: s.cwd,
            pid,
            session: s.session,
            writer: Mutex::new(writer),
            master: Mutex::new(pty.master),
            out: Mutex::new(Output::default()),
            changed: Condvar::new(),
        });
        let events = events.clone();
        let pumped = term.clone();
        std::thread::Builder::new()
            .name(format!("ultra-{id}"))
            .spawn(move || pump(pumped, reader, child, events))
            .map_err(|e| io_error("start the terminal's reader", e))?;
        {
            let mut st = self.state();
            st.by_id.insert(id.clone(), term);
            st.active = Some(id.clone());
        }
        Ok(Created {
            terminal_id: id,
            name,
            pid,
        })
    }

    /// Type `text` into terminal `id` (then Enter, with `new_line`); later waits look at
    /// output from here.
    pub fn send_text(&self, id: &str, text: &str, new_line: bool) -> Result<(), CommandError> {
        let t = self.get(id)?;
        if t.out().exited {
            return Err(CommandError::new(
                ErrorCode::TerminalNotFound,
                format!("terminal `{id}` has exited"),
            )
            .with_suggestion("read its last output with terminal.read, then create a new one"));
        }
        {
            let mut out = t.out();
            out.input_mark = out.end();
        }
        let mut text = text.to_string();
        if new_line {
            text.push('\r');
        }
        let mut w = t.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(text.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| io_error("write to the terminal", e))
    }

    /// Terminal `id`'s output from offset `since`, at most `max` bytes.
    pub fn read(&self, id: &str, since: u64, max: usize) -> Result<OutputPage, CommandError> {
        let t = self.get(id)?;
        let out = t.out();
        let (data, next, truncated) = out.from(since, max);
        Ok(OutputPage {
            data,
            next,
            truncated,
            exited: out.exited,
            exit_code: out.exit_code,
        })
    }

    /// Block until terminal `id` exits (`pattern` None) or its output from `since` (default:
    /// the last [`send_text`](Self::send_text)) matches the regex `pattern`, or `timeout`
    /// passes.
    pub fn wait(
        &self,
        id: &str,
        pattern: Option<&str>,
        since: Option<u64>,
        timeout: Duration,
    ) -> Result<Waited, CommandError> {
        let t = self.get(id)?;
        let pattern = match pattern {
            None => None,
            Some(p) => Some(regex::Regex::new(p).map_err(|e| {
                CommandError::new(ErrorCode::InvalidArguments, format!("until.output: {e}"))
            })?),
        };
        let deadline = Instant::now() + timeout;
        let mut out = t.out();
        let since = since.unwrap_or(out.input_mark);
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

    /// Close terminal `id`, killing everything it started.
    pub fn dispose(&self, id: &str) -> Result<(), CommandError> {
        self.get(id)?;
        self.remove(id);
        Ok(())
    }

    /// Every open terminal, by id.
    pub fn list(&self) -> Vec<TerminalInfo> {
        self.state().by_id.values().map(|t| t.info()).collect()
    }

    /// Make terminal `id` the active one.
    pub fn show(&self, id: &str) -> Result<(), CommandError> {
        self.get(id)?;
        self.state().active = Some(id.to_string());
        Ok(())
    }

    /// The active terminal (the last created or shown).
    pub fn active(&self) -> Result<TerminalInfo, CommandError> {
        let id = self.state().active.clone().ok_or_else(|| {
            CommandError::new(ErrorCode::TerminalNotFound, "no terminal is open")
                .with_suggestion("create one with terminal.create")
        })?;
        Ok(self.get(&id)?.info())
    }

    /// Resize terminal `id`; the program in it gets SIGWINCH.
    pub fn resize(&self, id: &str, size: Size) -> Result<(), CommandError> {
        let term = self.get(id)?;
        let master = term.master.lock().unwrap_or_else(|p| p.into_inner());
        master
            .resize(size.0)
            .map_err(|e| io_error("resize the terminal", e))
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
