//! `ultra -c`: run commands through the workspace's server, or in process when none runs.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Map, Value, json};
use ultra_commands::Services;
use ultra_core::{Config, Registry};
use ultra_ipc::{Caller, Client};
use ultra_protocol::{
    CommandError, CommandResult, ErrorCode, PositionEncoding, Source, SourceKind,
};

/// What the command line asked for.
pub struct Options {
    /// `-c` values in order.
    pub commands: Vec<String>,
    /// `-a` values, each paired with the `-c` before it (see [`pair`]).
    pub args: Vec<(usize, String)>,
    pub json: bool,
    /// Write nothing; show what would change (always in process).
    pub dry_run: bool,
    pub socket: Option<PathBuf>,
    pub agent: Option<String>,
    pub session: Option<String>,
    pub source: Option<String>,
    pub position_encoding: Option<String>,
}

/// Pair each `-c` with its arguments. `commands` and `args` carry their argv indices. One
/// `-a` applies to every command without inline arguments (as in seed 000); several pair
/// with the nearest `-c` before each.
pub fn pair(
    commands: &[(usize, String)],
    args: &[(usize, String)],
) -> Result<Vec<(String, Option<String>)>, String> {
    let mut out: Vec<(String, Option<String>)> =
        commands.iter().map(|(_, c)| (c.clone(), None)).collect();
    if args.len() == 1 {
        for o in out.iter_mut() {
            if !o.0.contains(':') {
                o.1 = Some(args[0].1.clone());
            }
        }
        return Ok(out);
    }
    for (ai, a) in args {
        let Some(ci) = commands.iter().rposition(|(ci, _)| ci < ai) else {
            return Err(format!("-a {a} comes before any -c"));
        };
        if out[ci].1.is_some() {
            return Err(format!(
                "two -a for `{}`; merge them into one JSON object",
                out[ci].0
            ));
        }
        out[ci].1 = Some(a.clone());
    }
    Ok(out)
}

/// The local registry, for schemas (shorthand arguments, listings).
fn registry() -> Registry<Services> {
    let mut r = Registry::new();
    // The built-in set has no duplicates (a test checks), so this cannot fail.
    let _ = ultra_commands::register_all(&mut r);
    r
}

/// Turn `command:arg` shorthand into JSON arguments, guided by the command's schema: a JSON
/// object is used as is; a number fills `line`; otherwise `path` if the command has one,
/// else its only required parameter.
pub fn inline_args(registry: &Registry<Services>, command: &str, arg: &str) -> Value {
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(arg) {
        return v;
    }
    let schema = registry
        .get(command)
        .map(|c| c.args.clone())
        .unwrap_or(Value::Null);
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required = ultra_core::schema::strings(schema.get("required"));
    if let Ok(n) = arg.parse::<u64>()
        && props.contains_key("line")
    {
        return json!({ "line": n });
    }
    let key = if props.contains_key("path") {
        "path".to_string()
    } else if required.len() == 1 {
        required[0].clone()
    } else {
        "value".to_string()
    };
    let mut m = Map::new();
    m.insert(key, Value::String(arg.to_string()));
    Value::Object(m)
}

fn parse_source(opts: &Options) -> Result<SourceKind, String> {
    match opts.source.as_deref() {
        None if opts.agent.is_some() => Ok(SourceKind::Ai),
        None | Some("cli") => Ok(SourceKind::Cli),
        Some("ai") => Ok(SourceKind::Ai),
        Some("ipc") => Ok(SourceKind::Ipc),
        Some("extension") => Ok(SourceKind::Extension),
        Some(other) => Err(format!(
            "--source must be cli, ai, ipc or extension, not `{other}`"
        )),
    }
}

/// Run `ultra -c ...`.
pub fn run(root: &Path, opts: Options, command_indices: Vec<usize>) -> ExitCode {
    let commands: Vec<(usize, String)> = command_indices
        .into_iter()
        .zip(opts.commands.iter().cloned())
        .collect();
    let pairs = match pair(&commands, &opts.args) {
        Ok(p) => p,
        Err(e) => return usage_error(&e),
    };
    let kind = match parse_source(&opts) {
        Ok(k) => k,
        Err(e) => return usage_error(&e),
    };
    let encoding = match opts.position_encoding.as_deref() {
        None => None,
        Some(e) => match serde_json::from_value::<PositionEncoding>(Value::String(e.to_string())) {
            Ok(enc) => Some(enc),
            Err(_) => {
                return usage_error(&format!(
                    "--position-encoding must be utf-32, utf-16 or utf-8, not `{e}`"
                ));
            }
        },
    };
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => return usage_error(&e.to_string()),
    };
    let mut registry = registry();
    // `o:src/a.ts` with a config alias `o` fills `o`'s target's arguments. A bad alias is
    // reported by whatever runs the call (the server, or the in-process build).
    for (alias, target) in &config.commands.aliases {
        let _ = registry.add_alias(alias, target);
    }
    let mut calls = Vec::new();
    for (cmd, args) in pairs {
        let (id, inline) = match cmd.split_once(':') {
            Some((id, arg)) => (id.to_string(), Some(arg.to_string())),
            None => (cmd, None),
        };
        let value = match (inline, args) {
            (Some(arg), _) => inline_args(&registry, &id, &arg),
            (None, Some(a)) => match serde_json::from_str(&a) {
                Ok(v) => v,
                Err(e) => return usage_error(&format!("-a for `{id}` is not valid JSON: {e}")),
            },
            (None, None) => Value::Object(Map::new()),
        };
        calls.push((id, value));
    }
    let socket = opts
        .socket
        .clone()
        .unwrap_or_else(|| ultra_ipc::resolve_socket_path(root, &config.ipc));
    let caller = Caller {
        source: Some(kind),
        agent_id: opts.agent.clone(),
        session_id: opts.session.clone(),
    };
    if opts.dry_run {
        if opts.socket.is_some() {
            return usage_error(
                "--dry-run runs in process against the disk; it cannot go through a server's socket",
            );
        }
        let source = source_of(kind, &opts, encoding);
        return in_process(root, config, calls, source, opts.json, true);
    }
    match Client::connect(&socket) {
        Ok(mut client) => {
            if let Some(enc) = encoding {
                let ident = json!({ "source": kind, "agentId": opts.agent, "sessionId": opts.session, "positionEncoding": enc });
                if let Err(e) = client.call("session.identify", ident) {
                    report(&CommandResult::err(e.command_error()), opts.json);
                    return ExitCode::from(1);
                }
            }
            for (id, args) in calls {
                let result = match client.execute(&id, args, &caller) {
                    Ok(r) => r,
                    Err(e) => CommandResult::err(e.command_error()),
                };
                if !report(&result, opts.json) {
                    return ExitCode::from(1);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) if e.is_not_running() && opts.socket.is_none() => {
            let source = source_of(kind, &opts, encoding);
            in_process(root, config, calls, source, opts.json, false)
        }
        Err(e) => {
            eprintln!("Error: {e}");
            eprintln!("  → start a server with `ultra serve`, or drop --socket to run in process");
            ExitCode::from(1)
        }
    }
}

/// One call from the command line (source `cli`), through the workspace's running server
/// when there is one, else in this process: its result, printed by the caller.
pub fn call(
    root: &Path,
    socket: Option<PathBuf>,
    id: &str,
    args: Value,
) -> Result<CommandResult, String> {
    let config = Config::load(root).map_err(|e| e.to_string())?;
    let explicit = socket.is_some();
    let socket = socket.unwrap_or_else(|| ultra_ipc::resolve_socket_path(root, &config.ipc));
    let caller = Caller {
        source: Some(SourceKind::Cli),
        agent_id: None,
        session_id: None,
    };
    match Client::connect(&socket) {
        Ok(mut client) => Ok(client
            .execute(id, args, &caller)
            .unwrap_or_else(|e| CommandResult::err(e.command_error()))),
        // A socket asked for by name must answer; the workspace's own may not be there.
        Err(e) if e.is_not_running() && !explicit => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start: {e}"))?;
            runtime.block_on(async {
                let mode = ultra_commands::Mode {
                    one_shot: true,
                    dry_run: false,
                };
                let exec =
                    ultra_commands::build_with(root, config, mode).map_err(|e| e.to_string())?;
                Ok(exec.execute(id, args, Source::new(SourceKind::Cli)).await)
            })
        }
        Err(e) => Err(e.to_string()),
    }
}

fn source_of(kind: SourceKind, opts: &Options, encoding: Option<PositionEncoding>) -> Source {
    let mut source = Source::new(kind);
    source.agent_id = opts.agent.clone();
    source.session_id = opts.session.clone();
    source.position_encoding = encoding;
    source
}

/// Run the calls in this process. A one-shot run's buffers die with it, so when every call
/// succeeds the files they changed are saved (and named on stderr); when one fails, nothing
/// more is saved and the dropped changes are named. A dry run writes nothing and prints the
/// diff of each file the run would change.
fn in_process(
    root: &Path,
    config: Config,
    calls: Vec<(String, Value)>,
    source: Source,
    json: bool,
    dry_run: bool,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return usage_error(&format!("cannot start: {e}")),
    };
    runtime.block_on(async move {
        let mode = ultra_commands::Mode {
            one_shot: true,
            dry_run,
        };
        let exec = match ultra_commands::build_with(root, config, mode) {
            Ok(e) => e,
            Err(e) => return usage_error(&e.to_string()),
        };
        // A person at this terminal can answer "ask" policies; without one they fail fast.
        let _approver = std::io::stdin()
            .is_terminal()
            .then(|| crate::serve::spawn_prompter(exec.clone()));
        for (id, args) in calls {
            let result = match dry_run
                .then(|| refused_in_dry_run(exec.registry(), &id))
                .flatten()
            {
                Some(err) => CommandResult::err(err),
                None => exec.execute(&id, args, source.clone()).await,
            };
            let ok = report(&result, json);
            // A one-shot process leaves freeing a (possibly large) result to the OS.
            std::mem::forget(result);
            if !ok {
                let dropped = dirty_paths(&exec);
                if !dropped.is_empty() {
                    eprintln!(
                        "ultra: the run failed, so its unsaved changes to {} were not written",
                        dropped.join(", ")
                    );
                }
                return ExitCode::from(1);
            }
        }
        if dry_run {
            return show_dry_run(&exec, json);
        }
        save_run(&exec, &source).await
    })
}

/// Why a dry run will not run `id`: it would start programs, use a terminal or the
/// network, or write git's index, none of which the file layer can hold back.
fn refused_in_dry_run(registry: &Registry<Services>, id: &str) -> Option<CommandError> {
    let info = registry.get(id)?;
    let t = info.touches;
    // libgit2 writes the index and objects itself, past the file layer.
    let git_write = (info.category == "Git" || info.id == "shell.git") && t.files_write;
    (t.processes || t.terminals || t.network || git_write).then(|| {
        CommandError::new(
            ErrorCode::DryRun,
            format!("{} cannot run in a dry run: it starts programs, uses terminals or the network, or writes git's index", info.id),
        )
        .with_suggestion("run it without --dry-run, or leave it out of the dry run")
    })
}

fn dirty_paths(exec: &ultra_core::Executor<Services>) -> Vec<String> {
    exec.services()
        .ws()
        .buffers()
        .filter(|b| b.is_dirty())
        .map(|b| b.path.to_string())
        .collect()
}

/// Save what the run changed, as the caller; name the files on stderr.
async fn save_run(exec: &ultra_core::Executor<Services>, source: &Source) -> ExitCode {
    let mut written = Vec::new();
    for path in dirty_paths(exec) {
        let r = exec
            .execute("ultra.save", json!({ "path": path }), source.clone())
            .await;
        if !r.success {
            eprintln!("ultra: the run's change to {path} was not written:");
            print_diagnostics(&r);
            return ExitCode::from(1);
        }
        written.push(path);
    }
    if !written.is_empty() {
        eprintln!("ultra: wrote {}", written.join(", "));
    }
    ExitCode::SUCCESS
}

/// Print the diff of every file the run would change; nothing was written.
fn show_dry_run(exec: &ultra_core::Executor<Services>, json: bool) -> ExitCode {
    let mut changes = Vec::new();
    {
        let ws = exec.services().ws();
        for b in ws.buffers().filter(|b| b.is_dirty()) {
            let path = b.path.to_string();
            let disk = ws
                .root()
                .read(&b.path)
                .ok()
                .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_default();
            let new = b.rope.to_string();
            let diff = ultra_workspace::workspace::file_diff(&path, &disk, &new);
            changes.push((path, diff));
        }
    }
    if json {
        let list: Vec<Value> = changes
            .iter()
            .map(|(p, d)| json!({ "path": p, "diff": d }))
            .collect();
        print_json(&json!({ "dryRun": true, "changes": list }));
    } else {
        for (_, d) in &changes {
            print_text(d.trim_end_matches('\n'));
        }
    }
    eprintln!(
        "ultra: dry run: {} file(s) would change; nothing was written",
        changes.len()
    );
    ExitCode::SUCCESS
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("ultra: {message}");
    ExitCode::from(2)
}

/// Print a result; returns whether it succeeded.
pub fn report(result: &CommandResult, json: bool) -> bool {
    if json {
        print_json(result);
    } else if result.success {
        match &result.data {
            Some(Value::String(s)) => print_text(s),
            Some(v) if !v.is_null() => print_json(v),
            _ => {}
        }
    }
    if !json {
        print_diagnostics(result);
    }
    result.success
}

/// JSON on stdout: indented for a person at a terminal, one compact line for a program
/// (a third of the bytes for an agent to read, and as fast to write as to search).
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) {
    use std::io::{IsTerminal, Write};
    let stdout = std::io::stdout();
    let pretty = stdout.is_terminal();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = if pretty {
        serde_json::to_writer_pretty(&mut out, value)
    } else {
        serde_json::to_writer(&mut out, value)
    }
    .map_err(std::io::Error::from)
    .and_then(|()| out.write_all(b"\n"))
    .and_then(|()| out.flush());
    stdout_done(written);
}

/// Text and a newline on stdout.
pub fn print_text(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    stdout_done(written);
}

/// A reader that went away (`ultra ... | head`) ends the process quietly, as it does the
/// other tools of a pipeline (status 141, 128 + SIGPIPE); any other failure is said.
fn stdout_done(written: std::io::Result<()>) {
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(141),
        Err(e) => eprintln!("ultra: cannot write output: {e}"),
    }
}

fn print_diagnostics(result: &CommandResult) {
    if !result.warnings.is_empty() {
        eprintln!("\nWarnings:");
        for w in &result.warnings {
            eprintln!("  ⚠ [{}] {}", w.code, w.message);
        }
    }
    if let Some(err) = &result.error {
        print_error(err);
    }
    if let Some(fb) = &result.feedback {
        if !fb.violations.is_empty() {
            eprintln!("\nViolations:");
            for v in &fb.violations {
                eprintln!("  ✗ [{}] {}", v.rule, v.message);
                if let Some(m) = &v.matched_content {
                    eprintln!("    Found: {m}");
                }
                if let Some(l) = &v.location {
                    eprintln!(
                        "    At: {}:{}:{}",
                        l.path,
                        l.range.start.line + 1,
                        l.range.start.character + 1
                    );
                }
            }
        }
        if !fb.suggestions.is_empty() {
            eprintln!("\nSuggestions:");
            for s in &fb.suggestions {
                eprintln!("  → {}", s.description);
                if let Some(r) = &s.replacement {
                    eprintln!("    Use: {r}");
                }
                if !s.documentation.is_empty() {
                    eprintln!("    See: {}", s.documentation.join(", "));
                }
            }
        }
        if let Some(n) = fb.prior_violation_count.filter(|n| *n > 0) {
            eprintln!("\n{n} earlier violation(s) by this agent in this session.");
        }
    }
}

fn print_error(err: &CommandError) {
    eprintln!("Error: {} [{}]", err.message, err.code);
    if err.code == ErrorCode::InvalidArguments
        && let Some(d) = &err.details
    {
        if let Some(usage) = d.get("usage").and_then(Value::as_str) {
            eprintln!("  Usage: {usage}");
        }
        if let Some(ex) = d.get("examples").and_then(Value::as_array) {
            for e in ex.iter().take(3) {
                eprintln!("  Example: -a '{e}'");
            }
        }
    }
    if let Some(closest) = err
        .details
        .as_ref()
        .and_then(|d| d.get("closest"))
        .and_then(Value::as_array)
        && !closest.is_empty()
    {
        let names: Vec<String> = closest.iter().map(|c| c.to_string()).collect();
        eprintln!("  Closest: {}", names.join(", "));
    }
    if let Some(diff) = err
        .details
        .as_ref()
        .and_then(|d| d.get("diff"))
        .and_then(Value::as_str)
    {
        eprintln!("  Diff since your version:\n{diff}");
    }
    if let Some(s) = &err.suggestion {
        eprintln!("  → {s}");
    }
}

/// `ultra commands [QUERY]`.
pub fn list_commands(_root: &Path, query: Option<&str>, json: bool) -> ExitCode {
    let registry = registry();
    let list = match query {
        Some(q) => registry.search(q),
        None => registry.all().collect(),
    };
    if json {
        print_json(&list);
        return ExitCode::SUCCESS;
    }
    let width = list.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for c in list {
        let summary = c.description.split(". ").next().unwrap_or("");
        let key = c
            .keybinding
            .as_deref()
            .map(|k| format!(" [{k}]"))
            .unwrap_or_default();
        print_text(&format!("{:width$}  {}{key}: {summary}", c.id, c.title));
    }
    ExitCode::SUCCESS
}
