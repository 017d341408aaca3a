//! `ultra [FILES...]`: the terminal editor. With an `ultra serve` running for the
//! workspace it attaches to it (a person and agents then edit the same buffers); otherwise
//! it hosts the workspace itself and serves the socket so agents can join.

use std::io::IsTerminal;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use ultra_core::Config;

/// Open the editor on `files` (paths as given on the command line).
pub fn run(root: &Path, files: &[PathBuf], socket: Option<PathBuf>) -> ExitCode {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "ultra: the editor needs a terminal; to run commands without one use `ultra -c COMMAND` (see `ultra --help`)"
        );
        return ExitCode::from(2);
    }
    let rel = match relative_files(root, files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let socket = socket.unwrap_or_else(|| ultra_ipc::resolve_socket_path(root, &config.ipc));
    let session = format!("editor-{}", std::process::id());
    match ultra_editor::Remote::connect(socket.clone(), session.clone()) {
        Ok(remote) => return finish(ultra_editor::run(Box::new(remote), &rel)),
        Err(e) if !e.is_not_running() => {
            let e = e.command_error();
            eprintln!(
                "ultra: cannot attach to the server at {}: {}",
                socket.display(),
                e.message
            );
            if let Some(s) = &e.suggestion {
                eprintln!("  {s}");
            }
            return ExitCode::from(1);
        }
        Err(_) => {}
    }
    host(root, config, socket, session, &rel)
}

/// No server runs: serve the workspace from this process while the editor is open.
fn host(
    root: &Path,
    config: Config,
    socket: PathBuf,
    session: String,
    files: &[String],
) -> ExitCode {
    let runtime = match crate::serve::runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let exec = match ultra_commands::build(root, config.clone()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(2);
        }
    };
    let stop = tokio_util::sync::CancellationToken::new();
    let served = runtime.block_on(async {
        match ultra_ipc::Server::bind(exec.clone(), &socket, &config.ipc).await {
            Ok(server) => {
                let stopped = stop.clone().cancelled_owned();
                tokio::spawn(async move {
                    let _ = server.run_until(stopped).await;
                });
                true
            }
            Err(_) => false,
        }
    });
    let _guard = runtime.enter();
    let _watch = ultra_commands::watch::spawn(exec.clone()).ok();
    let _index_watch = exec.services().watch_index().ok();
    let _warm = exec.services().warm_up(exec.events().clone());
    // The person at the editor answers agents' confirmations.
    let _approver = exec.attach_approver();
    let backend = ultra_editor::Local::new(
        exec.clone(),
        runtime.handle().clone(),
        session,
        served.then_some(socket),
    );
    let result = ultra_editor::run(Box::new(backend), files);
    stop.cancel();
    finish(result)
}

fn finish(result: std::io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ultra: {e}");
            ExitCode::from(1)
        }
    }
}

/// Paths given on the command line as workspace-relative paths (from the current
/// directory, `..` resolved by name); a path outside the workspace is an error.
fn relative_files(root: &Path, files: &[PathBuf]) -> Result<Vec<String>, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    files
        .iter()
        .map(|f| {
            let abs = if f.is_absolute() {
                f.clone()
            } else {
                cwd.join(f)
            };
            let mut norm = PathBuf::new();
            for c in abs.components() {
                match c {
                    Component::ParentDir => {
                        norm.pop();
                    }
                    Component::CurDir => {}
                    other => norm.push(other),
                }
            }
            // The root was canonicalised; so is the file's directory where it exists.
            let norm = match (norm.parent(), norm.file_name()) {
                (Some(dir), Some(name)) => dir
                    .canonicalize()
                    .map(|d| d.join(name))
                    .unwrap_or(norm.clone()),
                _ => norm,
            };
            norm.strip_prefix(root)
                .map(|r| r.to_string_lossy().into_owned())
                .map_err(|_| {
                    format!(
                        "{} is outside the workspace {} (run ultra from inside it, or pass --root)",
                        f.display(),
                        root.display()
                    )
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_become_workspace_relative() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().canonicalize().expect("canon");
        std::fs::create_dir(root.join("src")).expect("mkdir");
        let rel = relative_files(
            &root,
            &[
                root.join("src/a.rs"),
                root.join("src/../b.rs"),
                root.join("new.txt"),
            ],
        )
        .expect("inside");
        assert_eq!(rel, ["src/a.rs", "b.rs", "new.txt"]);
        assert!(relative_files(&root, &[root.join("../x")]).is_err());
    }
}
