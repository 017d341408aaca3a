//! `ultra sh SCRIPT`: run a script in the built-in shell, in process, on the workspace.
//!
//! The script is admitted through the executor exactly as the `shell` tool's call would be
//! (`ultra.shell.run` from a `cli` source: its risk, the programs it names such as `git` and
//! `build`, the security settings, policy and its confirmation) and recorded in the audit
//! log; then it runs here, in the same shell the server builds, streaming stdin and stdout
//! rather than capturing them.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;
use ultra_core::Config;
use ultra_protocol::{CommandResult, Source, SourceKind};
use ultra_shell::run::Env;
use ultra_shell::run::fs::ShellFs;

/// Exit status when the executor refuses the script (policy, security settings): the
/// shell's "cannot execute".
const REFUSED: u8 = 126;

/// Parse, admit and run `script`; the exit code is the script's status (2 for a parse
/// error or a workspace that cannot be opened, 126 for a refusal).
pub fn run(root: &std::path::Path, script: &str) -> ExitCode {
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = match ultra_shell::parse(script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ultra sh: {e} [{}]", e.code());
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ultra: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    let mode = ultra_commands::Mode {
        one_shot: true,
        dry_run: false,
    };
    let exec = match ultra_commands::build_with(root, config, mode) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let source = Source::new(SourceKind::Cli);
    let args = json!({ "script": script });
    let started = Instant::now();
    let admitted = runtime.block_on(async {
        // A person at this terminal can answer "ask" policies; without one they fail fast.
        let _approver = std::io::stdin()
            .is_terminal()
            .then(|| crate::serve::spawn_prompter(exec.clone()));
        exec.admit("ultra.shell.run", &args, &source).await
    });
    let id = match admitted {
        Ok(id) => id,
        Err(refused) => {
            if let Some(e) = &refused.error {
                eprintln!("ultra sh: {} [{}]", e.message, e.code.as_str());
                if let Some(s) = &e.suggestion {
                    eprintln!("  {s}");
                }
            }
            exec.record(&source, "ultra.shell.run", &args, &refused, started);
            return ExitCode::from(REFUSED);
        }
    };
    let services = exec.services();
    // The command line is not a person at an editor: restricted paths apply. `grep code`
    // searches the workspace's (persisted) code index.
    let fs = ShellFs::new(services.shell_root().clone(), false)
        .with_code(services.code_search())
        .with_text(services.text_search());
    let shell = ultra_tools::promoted::shell(fs);
    let mut env = Env::new(&ultra_workspace::RelPath::default());
    // Unlocked handles: the first pipeline stage may read stdin from another thread.
    let mut input = std::io::BufReader::new(std::io::stdin());
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let mut err = std::io::stderr();
    let status = shell.run(&parsed, &mut env, &mut input, &mut out, &mut err);
    drop(out);
    let result = CommandResult::ok(json!({ "exitCode": status }));
    exec.record(&source, id, &args, &result, started);
    ExitCode::from(status.clamp(0, 255) as u8)
}
