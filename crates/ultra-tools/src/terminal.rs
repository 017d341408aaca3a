//! Seed 003's terminals: real PTYs running the user's shell in the workspace, with a
//! scrubbed environment. Output is kept in a scrollback ring (read with `terminal.read
//! {since}`) and pushed as `terminal.output` events to whoever created the terminal;
//! `terminal.wait` blocks until the process exits or its output matches a pattern. The
//! whole process group is killed on `terminal.dispose`, when the creating session ends,
//! and when the server stops. Agents' access is governed by `security.allowTerminalAccess`
//! (on by default, as in seed 003); the policy table can make any of these ask a person.

use std::collections::HashMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode};
pub use ultra_term::{
    Created, MAX_TERMINALS, OutputPage, SCROLLBACK_BYTES, TerminalInfo, Terminals, Waited,
};
use ultra_term::{Size, Spawn, shell_program};

use ultra_services::Services;

/// `terminal.wait`'s default and longest timeout.
const WAIT_DEFAULT_MS: u64 = 30_000;
const WAIT_MAX_MS: u64 = 600_000;

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

/// `terminal.create`.
pub struct Create;

impl Command<Services> for Create {
    type Args = CreateArgs;
    type Output = Created;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn programs(&self, _s: &Services, _a: &CreateArgs) -> Vec<String> {
        vec![shell_program().to_string()]
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: CreateArgs) -> Result<Created, CommandError> {
        create(cx, a)
    }
}

/// Start a terminal for the caller (`terminal.create`, and the editor's panel).
pub fn create(cx: &Cx<'_, Services>, a: CreateArgs) -> Result<Created, CommandError> {
    let size = Size::new(a.rows, a.cols)?;
    let human = cx.source.kind == ultra_protocol::SourceKind::Human;
    let (cwd, dir) = match a.cwd.as_deref().filter(|c| !c.is_empty() && *c != ".") {
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
    terminals(cx).spawn(
        Spawn {
            name: a.name,
            cwd,
            dir,
            env: a.env,
            size,
            session: cx.source.session_id.clone(),
        },
        cx.events,
    )
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

impl Command<Services> for SendText {
    type Args = SendTextArgs;
    type Output = Done;

    const SPEC: CommandSpec = CommandSpec::new(
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

    /// Best effort: what the shell in the terminal will run, read from the text's words.
    fn programs(&self, _s: &Services, a: &SendTextArgs) -> Vec<String> {
        ultra_runner::programs::in_line(&a.text)
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: SendTextArgs) -> Result<Done, CommandError> {
        terminals(cx).send_text(&a.terminal_id, &a.text, a.add_new_line.unwrap_or(true))?;
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

/// `terminal.read`.
pub struct ReadOutput;

impl Command<Services> for ReadOutput {
    type Args = ReadArgs;
    type Output = OutputPage;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, a: ReadArgs) -> Result<OutputPage, CommandError> {
        terminals(cx).read(
            &a.terminal_id,
            a.since,
            a.max_bytes.unwrap_or(65_536).max(1),
        )
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

/// `terminal.wait`.
pub struct Wait;

impl Command<Services> for Wait {
    type Args = WaitArgs;
    type Output = Waited;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, a: WaitArgs) -> Result<Waited, CommandError> {
        let pattern = match &a.until {
            Until::Exit(_) => None,
            Until::Output { output } => Some(output.as_str()),
        };
        let timeout =
            Duration::from_millis(a.timeout_ms.unwrap_or(WAIT_DEFAULT_MS).min(WAIT_MAX_MS));
        terminals(cx).wait(&a.terminal_id, pattern, a.since, timeout)
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

impl Command<Services> for Dispose {
    type Args = TerminalArgs;
    type Output = Done;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Done, CommandError> {
        terminals(cx).dispose(&a.terminal_id)?;
        Ok(Done { success: true })
    }
}

/// `{terminals}`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TerminalList {
    pub terminals: Vec<TerminalInfo>,
}

pub use ultra_services::util::NoArgs;

/// `terminal.list`.
pub struct List;

impl Command<Services> for List {
    type Args = NoArgs;
    type Output = TerminalList;

    const SPEC: CommandSpec = CommandSpec::new(
        "terminal.list",
        "List Terminals",
        "Terminal",
        "Every open terminal: terminalId (and seed 003's id), name, working directory, pid (and seed 003's processId), and whether (and how) it exited.",
    )
    .touches(Touches::TERMINALS)
    .read_only()
    .examples(&[Example {
        description: "One terminal",
        args: "{}",
        setup: &[("terminal.create", r#"{"name": "dev"}"#)],
        expect: Some(r#"{"terminals": [{"terminalId": "term-1", "id": "term-1", "name": "dev"}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<TerminalList, CommandError> {
        Ok(TerminalList {
            terminals: terminals(cx).list(),
        })
    }
}

/// `terminal.show`.
pub struct Show;

impl Command<Services> for Show {
    type Args = TerminalArgs;
    type Output = Done;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Done, CommandError> {
        terminals(cx).show(&a.terminal_id)?;
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

impl Command<Services> for GetActive {
    type Args = NoArgs;
    type Output = Active;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Active, CommandError> {
        let t = terminals(cx).active()?;
        Ok(Active {
            terminal_id: t.terminal_id,
            name: t.name,
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

impl Command<Services> for Resize {
    type Args = ResizeArgs;
    type Output = Done;

    const SPEC: CommandSpec = CommandSpec::new(
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

    fn run(&self, cx: &mut Cx<'_, Services>, a: ResizeArgs) -> Result<Done, CommandError> {
        let size = Size::new(Some(a.rows), Some(a.cols))?;
        terminals(cx).resize(&a.terminal_id, size)?;
        Ok(Done { success: true })
    }
}
