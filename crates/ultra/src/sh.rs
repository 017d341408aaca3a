//! `ultra sh SCRIPT`: run a script in the built-in shell, in process, on the workspace.

use std::process::ExitCode;
use std::sync::Arc;

use ultra_core::Config;
use ultra_shell::run::Env;
use ultra_shell::run::fs::ShellFs;
use ultra_workspace::Root;
use ultra_workspace::root::RootOptions;

/// Parse and run `script`; the exit code is the script's status (2 for a parse error).
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
    let opts = RootOptions {
        restricted: config.security.restricted_paths.clone(),
        hardlink_reads: config.security.allow_hardlink_reads.clone(),
        ..RootOptions::default()
    };
    let root = match Root::open(root, opts) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    // The command line is not a person at an editor: restricted paths apply.
    let mut fs = ShellFs::new(root.clone(), false);
    // `grep code` searches the workspace's (persisted) code index.
    if let Ok(services) = ultra_commands::services::Services::open(
        root.path(),
        &config,
        ultra_commands::Mode::default(),
    ) {
        fs = fs.with_code(services.code_search());
    }
    let shell = ultra_commands::promoted::shell(fs);
    let mut env = Env::new(&ultra_workspace::RelPath::default());
    // Unlocked handles: the first pipeline stage may read stdin from another thread.
    let mut input = std::io::BufReader::new(std::io::stdin());
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let mut err = std::io::stderr();
    let status = shell.run(&parsed, &mut env, &mut input, &mut out, &mut err);
    drop(out);
    ExitCode::from(status.clamp(0, 255) as u8)
}
