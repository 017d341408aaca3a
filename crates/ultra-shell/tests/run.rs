//! The runtime on a real temp workspace: lists, pipelines, redirects, here-documents, globs,
//! `cd`, variables, unknown commands and confinement.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use ultra_shell::run::fs::ShellFs;
use ultra_shell::run::{Env, Shell};
use ultra_workspace::root::RootOptions;
use ultra_workspace::{RelPath, Root};

struct Ws {
    dir: tempfile::TempDir,
    shell: Shell,
    env: Env,
}

impl Ws {
    fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/src")).unwrap();
        std::fs::write(dir.path().join("root/f.txt"), "b\na\nc\n").unwrap();
        std::fs::write(dir.path().join("root/src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(dir.path().join("root/src/lib.rs"), "pub fn x() {}\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside\n").unwrap();
        let root = Arc::new(Root::open(&dir.path().join("root"), RootOptions::default()).unwrap());
        Ws {
            shell: ultra_shell::shell(ShellFs::new(root, false), &[]),
            env: Env::new(&RelPath::default()),
            dir,
        }
    }

    /// Run a script; (stdout, stderr, status).
    fn run(&mut self, script: &str) -> (String, String, i32) {
        common::run_in(&self.shell, &mut self.env, script)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join("root").join(rel)).unwrap()
    }
}

#[test]
fn lists_status_and_variables() {
    let mut ws = Ws::new();
    assert_eq!(
        ws.run("true && echo a || echo b; false && echo c || echo d")
            .0,
        "a\nd\n"
    );
    assert_eq!(ws.run("false; echo $?").0, "1\n");
    assert_eq!(ws.run("X='a  b'; echo $X; echo \"$X\"").0, "a b\na  b\n");
    // Assignments persist in the session; prefix assignments do not.
    ws.run("Y=1");
    assert_eq!(ws.run("echo $Y").0, "1\n");
    assert!(ws.run("Z=2 env").0.contains("Z=2"));
    assert_eq!(ws.run("echo [$Z]").0, "[]\n");
}

#[test]
fn pipelines_redirects_and_heredocs() {
    let mut ws = Ws::new();
    assert_eq!(ws.run("cat f.txt | cat | cat").0, "b\na\nc\n");
    let (_, _, st) = ws.run("cat f.txt > out.txt; echo more >> out.txt");
    assert_eq!(st, 0);
    assert_eq!(ws.read("out.txt"), "b\na\nc\nmore\n");
    assert_eq!(ws.run("cat < out.txt").0, "b\na\nc\nmore\n");
    assert_eq!(ws.run("cat <<EOF\nhi $Q\nEOF\n").0, "hi \n");
    assert_eq!(ws.run("Q=x; cat <<'EOF'\nhi $Q\nEOF\n").0, "hi $Q\n");
    // 2>&1 after > sends both to the file; before it, stderr goes to the original stdout.
    let (out, err, _) = ws.run("cat nope > both.txt 2>&1");
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    assert!(ws.read("both.txt").contains("nope"));
    let (out, err, _) = ws.run("cat nope 2>&1 > only.txt");
    assert!(out.contains("nope") && err.is_empty(), "{out:?} {err:?}");
    assert_eq!(ws.read("only.txt"), "");
    assert_eq!(ws.run("cat nope 2>/dev/null; echo $?").0, "1\n");
}

#[test]
fn globs_and_cd() {
    let mut ws = Ws::new();
    assert_eq!(ws.run("echo src/*.rs").0, "src/lib.rs src/main.rs\n");
    assert_eq!(ws.run("echo 'src/*.rs'").0, "src/*.rs\n");
    assert_eq!(ws.run("echo nomatch/*.zz").0, "nomatch/*.zz\n");
    assert_eq!(
        ws.run("cd src && echo *.rs && pwd").0,
        "lib.rs main.rs\n/src\n"
    );
    assert_eq!(ws.run("cat ../f.txt").0, "b\na\nc\n");
    // A pipeline stage runs in a copy of the session: its cd does not stick.
    ws.run("cd .. | true");
    assert_eq!(ws.run("pwd").0, "/src\n");
}

#[test]
fn unknown_commands_and_confinement() {
    let mut ws = Ws::new();
    let (_, err, st) = ws.run("cta f.txt");
    assert_eq!(st, 127);
    assert!(
        err.contains("command not found") && err.contains("cat"),
        "{err}"
    );
    let (out, err, st) = ws.run("cat ../secret.txt");
    assert_eq!((out.as_str(), st), ("", 1));
    assert!(err.contains("outside the workspace"), "{err}");
    let (_, err, st) = ws.run("echo x > ../escape.txt");
    assert_eq!(st, 1);
    assert!(err.contains("outside"), "{err}");
    assert!(!ws.dir.path().join("escape.txt").exists());
    let (_, err, st) = ws.run("echo x > .git/config");
    assert_eq!(st, 1);
    assert!(err.contains("protected"), "{err}");
    assert_eq!(ws.run("cd ..; echo $?").0, "1\n");
}
