//! `ultra`: the command line.
//!
//! - `ultra -c CMD [-a JSON] ...` runs commands: through the workspace's server when one is
//!   running, otherwise in process on the current workspace (the embedded default).
//! - `ultra serve` runs the server for a workspace on a Unix socket; when started from a
//!   terminal it also asks there before risky agent calls.
//! - `ultra commands` lists the registry.

mod approve;
mod cli;
mod edit;
mod index;
mod lsp;
mod mcp;
mod root;
mod serve;
mod sh;
mod tools;

/// Charges allocations to the request a thread works for, so a shell call can be
/// stopped at its memory limit (see `ultra_budget`).
#[global_allocator]
static ALLOC: ultra_budget::Counting = ultra_budget::Counting;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgAction, Parser, Subcommand};

const AFTER_HELP: &str = r#"Examples:
  # Open files in the terminal editor (attaches to a running `ultra serve`, else hosts)
  ultra src/app.ts src/index.ts

  # Run a command on the workspace (through a running server, or in process)
  ultra -c ultra.getWorkspaceInfo

  # Full arguments as JSON
  ultra -c ultra.openFile -a '{"path":"src/app.ts","line":42}'

  # Shorthand: `command:arg` fills the command's main parameter
  ultra -c ultra.getFileContent:src/app.ts

  # Several commands; each -a goes with the -c before it
  ultra -c ultra.openFile:src/app.ts -c ultra.goToLine -a '{"line":42}'

  # An agent with tracking, JSON output
  ultra -c ultra.getFileContent:src/app.ts --agent claude --session abc123 --json

  # Serve the workspace on its Unix socket
  ultra serve

  # What can be run
  ultra commands
"#;

/// Ultra: one command protocol for people and AI agents driving a code workspace.
/// What each tool profile holds and what it costs a model, kept true by
/// `tests/tools.rs::help_states_what_profiles_cost`.
const TOOLS_PROFILES: &str = "\
Profiles, with what a model is shown (name, description and input schema, as in the
Anthropic list; tokens at 4 bytes each):
  default    the seed tools, `shell` and the shell's typed tools: 34 tools, about 8k tokens
  read-only  of those, the ones that only read: 17 tools, about 3.4k tokens
  edit       of those, all but `shell`: 32 tools, about 7.6k tokens
  full       every command an agent may run: 154 tools, about 25k tokens
MCP's tools/list also carries each tool's title, hints and output schema, which clients
do not show the model (default: about 52 KB).";

#[derive(Debug, Parser)]
#[command(name = "ultra", version, after_help = AFTER_HELP)]
struct Cli {
    /// Execute a command (repeatable). `command:arg` is shorthand for its main argument.
    #[arg(short = 'c', long = "command", value_name = "CMD", action = ArgAction::Append)]
    command: Vec<String>,
    /// JSON arguments for the command before it (one -a applies to every -c without args).
    #[arg(short = 'a', long = "args", value_name = "JSON", action = ArgAction::Append)]
    args: Vec<String>,
    /// Print results as JSON.
    #[arg(short = 'j', long)]
    json: bool,
    /// Run in process and write nothing: print the diff of every file the commands would
    /// change. Commands that start programs, use terminals or the network, or write git's
    /// index are refused (DRY_RUN).
    #[arg(long)]
    dry_run: bool,
    /// The server's socket (default: the workspace's socket; `$ULTRA_SOCKET`).
    #[arg(short = 's', long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Agent identifier, for tracking; implies `--source ai`.
    #[arg(long, value_name = "ID")]
    agent: Option<String>,
    /// Session identifier, for tracking.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Who is calling: cli (default), ai, ipc or extension.
    #[arg(long, value_name = "KIND")]
    source: Option<String>,
    /// How `character` in positions counts: utf-32 (Unicode scalar values, default),
    /// utf-16 (LSP, JavaScript) or utf-8 (bytes).
    #[arg(long, value_name = "ENC")]
    position_encoding: Option<String>,
    /// The workspace root (default: the nearest directory up from here holding
    /// ultra.config.json or .git, else the current directory).
    #[arg(long, value_name = "DIR", global = true)]
    root: Option<PathBuf>,
    /// Files to open in the terminal editor (`ultra src/app.rs`); with no command and no
    /// subcommand, `ultra` is the editor.
    #[arg(value_name = "FILES")]
    files: Vec<PathBuf>,
    #[command(subcommand)]
    sub: Option<Sub>,
}

/// `ultra lsp ...`.
#[derive(Debug, Subcommand)]
enum LspAction {
    /// Each language's server: state, pid, position encoding, command, last error.
    Status {
        /// Print the `lsp.status` result as JSON.
        #[arg(long)]
        json: bool,
        /// The server's socket (default: the workspace's).
        #[arg(short = 's', long, value_name = "PATH")]
        socket: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Serve the workspace on its Unix socket until interrupted.
    Serve {
        /// Socket path (default: `$XDG_RUNTIME_DIR/ultra/<workspace-hash>.sock`).
        #[arg(short = 's', long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// Do not prompt on this terminal for confirmations.
        #[arg(long, conflicts_with = "confirm")]
        no_prompt: bool,
        /// Prompt for confirmations on the controlling terminal even when stdin is not one
        /// (fails at start if there is no terminal).
        #[arg(long)]
        confirm: bool,
        /// Run agents' edits, creates, deletes and destructive commands without asking
        /// (seed 001's auto-apply; rules in ultra.config.json still apply).
        #[arg(long)]
        auto_apply: bool,
    },
    /// Run a script in Ultra's built-in shell, in process on the workspace (no `sh`).
    ///
    /// The script is admitted as the `shell` tool's call would be (policy for the `cli`
    /// source, security settings) and recorded in the audit log. Exit status: the
    /// script's; 2 when it does not parse; 126 when policy refuses it.
    Sh {
        /// The script, e.g. `'cat src/*.rs | head -3'`.
        script: String,
    },
    /// Index the workspace's code now (progress on stderr: a bar on a terminal, a line a
    /// second otherwise; the index persists, so later commands start warm).
    Index {
        /// Forget the stored index and parse every file.
        #[arg(long)]
        cold: bool,
        /// Print the summary as JSON.
        #[arg(long = "json-summary")]
        json: bool,
    },
    /// Language servers: `ultra lsp status` shows each language's server (running, idle,
    /// failed with its error, not found, disabled), from the running server if there is one.
    Lsp {
        #[command(subcommand)]
        action: LspAction,
    },
    /// Serve the workspace's tools over MCP on stdin/stdout (for an MCP client that starts
    /// Ultra as its server).
    Mcp {
        /// Which tools: default, read-only, edit, full, or a comma-separated list of tool
        /// names (default: `mcp.profile` in ultra.config.json, else `default`).
        #[arg(long, value_name = "PROFILE")]
        profile: Option<String>,
        /// Run agents' edits, creates, deletes and destructive commands without asking
        /// (seed 001's auto-apply; rules in ultra.config.json still apply).
        #[arg(long)]
        auto_apply: bool,
    },
    /// List calls waiting for a person's approval (refused with CONFIRMATION_REQUIRED
    /// while no one was there to ask).
    Pending,
    /// Approve a waiting call, shown on this terminal first; the agent's next identical
    /// call runs once.
    Approve {
        /// Its id, e.g. `defer-1a2b3c4d5e6f`.
        id: String,
    },
    /// Deny a waiting call.
    Deny {
        /// Its id.
        id: String,
    },
    /// Print AI-exposed commands as tool definitions for an LLM client.
    #[command(after_long_help = TOOLS_PROFILES)]
    Tools {
        /// mcp, openai or anthropic.
        #[arg(long, default_value = "mcp")]
        format: String,
        /// Which tools: default (those with a tool name), read-only, edit, full, or a
        /// comma-separated list of tool names.
        #[arg(long, value_name = "PROFILE")]
        profile: Option<String>,
        /// Every AI-exposed command (`--profile full`).
        #[arg(long)]
        all: bool,
        /// With `--format openai`: functions valid for OpenAI's strict mode (every
        /// property required, optional ones nullable); one whose arguments cannot be
        /// strict says `"strict": false`.
        #[arg(long)]
        strict: bool,
    },
    /// List commands (filtered by a fuzzy query).
    Commands {
        /// Fuzzy search over ids, titles and descriptions.
        query: Option<String>,
        /// Print JSON with schemas.
        #[arg(short = 'j', long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // argv positions pair each -a with the -c before it.
    let command_indices: Vec<usize> = matches
        .indices_of("command")
        .map(|i| i.collect())
        .unwrap_or_default();
    let arg_indices: Vec<usize> = matches
        .indices_of("args")
        .map(|i| i.collect())
        .unwrap_or_default();
    // `-c` and its options do not mix with a subcommand. (Checked here rather than with
    // clap's `args_conflicts_with_subcommands`, which would also refuse the global
    // `--root` before the subcommand: `ultra --root DIR serve`.)
    if cli.sub.is_some()
        && (!cli.command.is_empty()
            || !cli.args.is_empty()
            || cli.json
            || cli.dry_run
            || cli.socket.is_some()
            || cli.agent.is_some()
            || cli.session.is_some()
            || cli.source.is_some())
    {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "-c, -a, --json, --socket, --agent, --session and --source cannot be used with a subcommand (use `serve --socket PATH` for the server's socket)",
            )
            .exit();
    }
    let root = match root::workspace_root(cli.root.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.sub {
        Some(Sub::Serve {
            socket,
            no_prompt,
            confirm,
            auto_apply,
        }) => serve::run(&root, socket, no_prompt, confirm, auto_apply),
        Some(Sub::Sh { script }) => sh::run(&root, &script),
        Some(Sub::Index { cold, json }) => index::run(&root, cold, json),
        Some(Sub::Lsp {
            action: LspAction::Status { json, socket },
        }) => lsp::status(&root, socket, json),
        Some(Sub::Pending) => approve::list(&root),
        Some(Sub::Approve { id }) => approve::answer(&root, &id, true),
        Some(Sub::Deny { id }) => approve::answer(&root, &id, false),
        Some(Sub::Mcp {
            profile,
            auto_apply,
        }) => mcp::run(&root, profile.as_deref(), auto_apply),
        Some(Sub::Tools {
            format,
            profile,
            all,
            strict,
        }) => tools::run(&format, profile.as_deref(), all, strict),
        Some(Sub::Commands { query, json }) => cli::list_commands(&root, query.as_deref(), json),
        None if !cli.command.is_empty() => {
            let opts = cli::Options {
                commands: cli.command,
                args: arg_indices.into_iter().zip(cli.args).collect(),
                json: cli.json,
                dry_run: cli.dry_run,
                socket: cli.socket,
                agent: cli.agent,
                session: cli.session,
                source: cli.source,
                position_encoding: cli.position_encoding,
            };
            cli::run(&root, opts, command_indices)
        }
        None if !cli.files.is_empty() || std::io::IsTerminal::is_terminal(&std::io::stdin()) => {
            edit::run(&root, &cli.files, cli.socket)
        }
        None => {
            let _ = Cli::command().print_help();
            ExitCode::from(2)
        }
    }
}
