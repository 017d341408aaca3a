//! `ultra serve`, and the terminal prompt that answers confirmations.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};
use ultra_commands::Services;
use ultra_core::{Config, Executor};
use ultra_protocol::event::names;
use ultra_protocol::{Source, SourceKind};

/// Stack of a runtime worker: commands run on them (the shell's awk and sed included),
/// and debug builds take about 20 KiB a nesting level. Reserved, not committed.
pub const WORKER_STACK_BYTES: usize = 32 << 20;

/// The runtime a serving process runs on (two workers: the machine's cores).
pub fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Room for the deepest program the shell's parsers accept (see ultra-shell).
        .thread_stack_size(WORKER_STACK_BYTES)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("ultra: cannot start: {e}");
            ExitCode::from(2)
        })
}

/// Run the server until SIGINT or SIGTERM.
pub fn run(
    root: &Path,
    socket: Option<PathBuf>,
    no_prompt: bool,
    confirm: bool,
    auto_apply: bool,
) -> ExitCode {
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    runtime.block_on(async move {
        let exec = match ultra_commands::build(root, config.clone()) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("ultra: {e}");
                return ExitCode::from(2);
            }
        };
        if auto_apply {
            exec.set_auto_apply(true);
            eprintln!("  auto-apply: on (agents' edits, creates and deletes run without asking)");
        }
        let socket = socket.unwrap_or_else(|| ultra_ipc::resolve_socket_path(root, &config.ipc));
        let server = match ultra_ipc::Server::bind(exec.clone(), &socket, &config.ipc).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ultra: {e}");
                return ExitCode::from(1);
            }
        };
        let ws = match bind_ws(&exec, &config, root).await {
            Ok(ws) => ws,
            Err(e) => {
                eprintln!("ultra: {e}");
                return ExitCode::from(1);
            }
        };
        if confirm
            && std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
                .is_err()
        {
            eprintln!("ultra: --confirm needs a terminal to ask on, and this process has none");
            return ExitCode::from(2);
        }
        let prompts = confirm || (!no_prompt && std::io::stdin().is_terminal());
        let _watch = match ultra_commands::watch::spawn(exec.clone()) {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!(
                    "  file watching off ({e}); external changes are noticed on the next command"
                );
                None
            }
        };
        // The code index follows file-system events, and builds in the background;
        // answers meanwhile say `warming`.
        let _index_watch = match exec.services().watch_index() {
            Ok(w) => Some(w),
            Err(e) => {
                eprintln!("  code index: no file watching ({e}); each query walks the tree");
                None
            }
        };
        exec.services().announce_diagnostics(exec.events().clone());
        let warm = exec.services().warm_up(exec.events().clone());
        let _sweep = sweep_after(warm, exec.services().root_path().to_path_buf());
        eprintln!(
            "ultra {} serving {}",
            env!("CARGO_PKG_VERSION"),
            exec.services().root_path().display()
        );
        eprintln!("  socket: {}", socket.display());
        if let Some((ws, _)) = &ws
            && let Some(addr) = ws.local_addr()
        {
            eprintln!("  websocket: ws://{addr}");
            eprintln!("  mcp: http://{addr}/mcp (Authorization: Bearer <websocket token>)");
            // For clients that cannot send the header (MCP Inspector 0.15): a key in the
            // URL, not the token, accepted from this machine only.
            if let Ok(key) = ws.url_key() {
                eprintln!("  mcp without headers (this machine only): http://{addr}/mcp?key={key}");
            }
            // The ticket signs this person in; it is not the token and lives in memory only.
            match ws.ui_ticket() {
                Ok(ticket) => eprintln!(
                    "  web UI: http://{addr}/ui/#ticket={ticket} (signs in as you for {} hours)",
                    ultra_ws::tickets::TICKET_TTL.as_secs() / 3600
                ),
                Err(e) => eprintln!("  web UI: no sign-in ticket ({e})"),
            }
        }
        if let Some((_, token)) = &ws {
            eprintln!("  websocket token: {token}");
        }
        if let Some(p) = exec.audit().path() {
            eprintln!("  audit log: {}", p.display());
        }
        eprintln!(
            "  confirmations: {}",
            if prompts {
                "asked here"
            } else {
                "no prompt (asks fail with CONFIRMATION_REQUIRED)"
            }
        );
        // Scripts wait for this line to know the socket accepts connections.
        println!("ready {}", socket.display());
        let _ = std::io::stdout().flush();
        let _prompter = prompts.then(|| spawn_prompter(exec.clone()));
        let stopping = tokio_util::sync::CancellationToken::new();
        if let Some((ws, _)) = ws {
            let stop = stopping.clone().cancelled_owned();
            tokio::spawn(async move {
                if let Err(e) = ws.run_until(stop).await {
                    eprintln!("ultra: {e}");
                }
            });
        }
        let stop = async move {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => return std::future::pending().await,
                };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            stopping.cancel();
        };
        match server.run_until(stop).await {
            Ok(()) => {
                eprintln!("ultra: stopped");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("ultra: {e}");
                ExitCode::from(1)
            }
        }
    })
}

/// The WebSocket server of seed 003, unless `enabled` is false, and where its token comes
/// from (for the start-up message; never the token itself). With the default settings a
/// port already in use only turns it off, with a warning; when the config asks for it, it is
/// an error.
async fn bind_ws(
    exec: &Arc<Executor<Services>>,
    config: &Config,
    root: &Path,
) -> Result<Option<(ultra_ws::WsServer<Services>, String)>, String> {
    if config.enabled == Some(false) {
        return Ok(None);
    }
    let env = std::env::var("ULTRA_TOKEN").ok();
    let token = ultra_ws::Token::resolve(
        config.token.as_deref(),
        env.as_deref(),
        &ultra_commands::state_dir(root),
    )
    .map_err(|e| e.to_string())?;
    let said = match &token.source {
        ultra_ws::TokenSource::Config => "from ultra.config.json".to_string(),
        ultra_ws::TokenSource::Env => "from ULTRA_TOKEN".to_string(),
        ultra_ws::TokenSource::File(p) => format!("in {}", p.display()),
    };
    let opts = ultra_ws::Options {
        host: config.host.clone(),
        port: config.port,
        token,
        allowed_origins: config.allowed_origins.clone(),
        ui_http_allow: config.ui.http_allow.clone(),
        requests_per_second: config
            .rate_limit
            .enabled
            .then_some(config.rate_limit.requests_per_second),
        max_message_bytes: config.ipc.max_line_bytes,
        max_batch: config.ipc.max_batch,
        idle_timeout: std::time::Duration::from_secs(config.session_idle_seconds.max(1)),
    };
    let profile = ultra_core::tools::Profile::parse(config.mcp.profile.as_deref().unwrap_or(""))
        .map_err(|e| format!("mcp.profile: {e}"))?;
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    if !config.host.is_empty() && !hosts.contains(&config.host) {
        hosts.push(config.host.clone());
    }
    match ultra_ws::WsServer::bind(exec.clone(), opts).await {
        // MCP's streamable HTTP rides on the same listener, behind the same checks and the
        // token as a bearer.
        Ok(ws) => Ok(Some((
            ws.mount(ultra_mcp::http_router(
                ultra_mcp::McpServer::new(exec.clone(), &profile),
                hosts,
            )),
            said,
        ))),
        Err(e) if config.enabled.is_none() => {
            eprintln!("  websocket off: {e}");
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Remove the temp files that interrupted writes left (a crash between a temp file's
/// creation and its rename) once `warm_up` has built the index: the sweep walks the whole
/// tree, and at start the cores and the disk are the index's (a query waits for its walk).
fn sweep_after(warm_up: std::thread::JoinHandle<()>, root: PathBuf) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let _ = warm_up.join();
        // A root of its own: the workspace's lock is not held for the walk.
        let Ok(root) = ultra_workspace::Root::open(&root, Default::default()) else {
            return;
        };
        let swept = root.sweep_temp_files(200_000);
        if swept > 0 {
            eprintln!("  removed {swept} temp file(s) left by an interrupted write");
        }
    })
}

/// Answer confirmations from this process's terminal: each `confirmation.requested` event
/// is shown with its arguments, and the person's y/n runs `ultra.confirm.approve` or
/// `ultra.confirm.deny` as a `human` source. Registered as an approver before it returns,
/// so an "ask" issued right after is not refused for want of one.
pub fn spawn_prompter(exec: Arc<Executor<Services>>) -> tokio::task::JoinHandle<()> {
    let mut rx = exec.events().subscribe();
    let guard = exec.attach_approver();
    tokio::spawn(async move {
        let _guard = guard;
        loop {
            let event = match rx.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            if event.event != names::CONFIRMATION_REQUESTED {
                continue;
            }
            let id = event
                .data
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let question = describe(&event.data);
            let answer = tokio::task::spawn_blocking(move || ask_tty(&question))
                .await
                .ok()
                .flatten()
                .unwrap_or(false);
            let command = if answer {
                "ultra.confirm.approve"
            } else {
                "ultra.confirm.deny"
            };
            let r = exec
                .execute(command, json!({ "id": id }), Source::new(SourceKind::Human))
                .await;
            if let Some(e) = r.error {
                eprintln!("  (not applied: {})", e.message);
            }
        }
    })
}

fn describe(data: &Value) -> String {
    let command = data.get("command").and_then(Value::as_str).unwrap_or("?");
    let who = data.get("source").map(|s| {
        let kind = s.get("type").and_then(Value::as_str).unwrap_or("?");
        match s.get("agentId").and_then(Value::as_str) {
            Some(a) => format!("{kind} ({a})"),
            None => kind.to_string(),
        }
    });
    let mut args = data.get("args").map(|a| a.to_string()).unwrap_or_default();
    if args.len() > 400 {
        args.truncate(400);
        args.push('…');
    }
    let reason = data.get("reason").and_then(Value::as_str).unwrap_or("");
    // The diff or content the call would change, indented under the question.
    let preview = data
        .get("preview")
        .and_then(Value::as_str)
        .map(|p| {
            let lines: Vec<String> = p.lines().take(60).map(|l| format!("    {l}")).collect();
            format!("{}\n", lines.join("\n"))
        })
        .unwrap_or_default();
    format!(
        "\n{} wants to run {command} {args}\n  ({reason})\n{preview}Approve? [y/N] ",
        who.unwrap_or_else(|| "?".into())
    )
}

/// Ask on the controlling terminal (not stdin, which may be a pipe): `None` when there is
/// no terminal, else whether the person said yes.
pub fn ask_tty(question: &str) -> Option<bool> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let mut out = &tty;
    let _ = out.write_all(question.as_bytes());
    let _ = out.flush();
    let mut line = String::new();
    let mut reader = std::io::BufReader::new(&tty);
    if reader.read_line(&mut line).is_err() {
        return Some(false);
    }
    Some(matches!(line.trim(), "y" | "Y" | "yes" | "Yes"))
}
