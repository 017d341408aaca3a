//! Every built-in's declared example runs on the standard fixture and prints exactly what it
//! says, with the status it says.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use ultra_shell::builtins::{ALL, every};
use ultra_shell::run::fs::ShellFs;
use ultra_shell::run::{Cx, Env, Io};
use ultra_workspace::root::RootOptions;
use ultra_workspace::{RelPath, Root};

#[test]
fn every_builtin_example_passes() {
    let mut failures = Vec::new();
    for b in every() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("f.txt"), "b\na\nc\n").unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        let fs = ShellFs::new(
            Arc::new(Root::open(dir.path(), RootOptions::default()).unwrap()),
            false,
        );
        let env = Env::new(&RelPath::default());
        let ex = b.example;
        let args: Vec<String> = ex.args.iter().map(|a| a.to_string()).collect();
        let mut stdin = std::io::Cursor::new(ex.stdin.as_bytes().to_vec());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = {
            let mut io = Io {
                stdin: &mut stdin,
                stdout: &mut out,
                stderr: &mut err,
            };
            (b.run)(
                &args,
                &mut io,
                &Cx {
                    fs: &fs,
                    cwd: &env.cwd,
                    vars: &env.vars,
                },
            )
        };
        let out = String::from_utf8_lossy(&out);
        if out != ex.stdout || status != ex.status {
            failures.push(format!(
                "{} {:?}: got status {status} stdout {out:?} (stderr {:?}), declared {} {:?}",
                b.name,
                ex.args,
                String::from_utf8_lossy(&err),
                ex.status,
                ex.stdout
            ));
        }
    }
    assert!(ALL.len() >= 30);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
