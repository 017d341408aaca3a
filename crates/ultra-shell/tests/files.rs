//! The file built-ins on a real temp workspace: confinement (protected paths and paths
//! outside the root are refused before anything changes), symlinks, and the outputs the
//! bash differential tests cannot compare (`stat`, `tree`, `which`, `whoami`, `clear`,
//! `ls -l`).

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
        let r = dir.path().join("root");
        std::fs::create_dir_all(r.join("src/sub")).unwrap();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::write(r.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(r.join("ultra.config.json"), "{}\n").unwrap();
        std::fs::write(r.join("f.txt"), "b\na\nc\n").unwrap();
        std::fs::write(r.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(r.join("src/sub/x.rs"), "\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside\n").unwrap();
        std::os::unix::fs::symlink("f.txt", r.join("link")).unwrap();
        std::os::unix::fs::symlink("src", r.join("dlink")).unwrap();
        let root = Arc::new(Root::open(&r, RootOptions::default()).unwrap());
        Ws {
            shell: ultra_shell::shell(ShellFs::new(root, false), &[]),
            env: Env::new(&RelPath::default()),
            dir,
        }
    }

    fn run(&mut self, script: &str) -> (String, String, i32) {
        common::run_in(&self.shell, &mut self.env, script)
    }

    fn exists(&self, rel: &str) -> bool {
        self.dir.path().join(rel).symlink_metadata().is_ok()
    }
}

#[test]
fn protected_and_outside_paths_are_refused() {
    let mut ws = Ws::new();
    for script in [
        "rm -rf .git",
        "rm -f .git/config",
        "rm ultra.config.json",
        "mv ultra.config.json x.json",
        "mv f.txt .git/f.txt",
        "cp f.txt .git/",
        "cp f.txt ultra.config.json",
        "touch .git/new",
        "mkdir .git/d",
        "rmdir .git",
        "echo x | tee .git/t",
        "rm ../secret.txt",
        "rm -rf ..",
        "rm -rf /",
        "cp f.txt ../copied.txt",
        "cp ../secret.txt in.txt",
        "mv f.txt ../moved.txt",
        "touch ../touched",
        "mkdir ../made",
        "mkdir -p ../made/deep",
        "echo x | tee ../teed",
        "echo ../secret.txt | xargs rm",
        "ls ..",
        "diff ../secret.txt f.txt",
    ] {
        let (_, err, status) = ws.run(script);
        assert_ne!(status, 0, "{script} succeeded");
        assert!(!err.is_empty(), "{script} printed no error");
    }
    for p in [
        "root/.git/config",
        "root/ultra.config.json",
        "root/f.txt",
        "secret.txt",
    ] {
        assert!(ws.exists(p), "{p} is gone");
    }
    for p in [
        "root/x.json",
        "root/.git/f.txt",
        "root/.git/new",
        "root/.git/d",
        "root/.git/t",
        "root/in.txt",
        "copied.txt",
        "moved.txt",
        "touched",
        "made",
        "teed",
    ] {
        assert!(!ws.exists(p), "{p} was created");
    }
    assert_eq!(
        std::fs::read_to_string(ws.dir.path().join("root/ultra.config.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn rm_removes_symlinks_not_targets() {
    let mut ws = Ws::new();
    assert_eq!(ws.run("rm link").2, 0);
    assert_eq!(ws.run("rm -r dlink").2, 0);
    assert!(!ws.exists("root/link") && !ws.exists("root/dlink"));
    assert!(ws.exists("root/f.txt") && ws.exists("root/src/main.rs"));
}

#[test]
fn outputs_without_a_bash_twin() {
    let mut ws = Ws::new();
    assert_eq!(
        ws.run("stat f.txt src link").0,
        "  File: f.txt\n  Size: 6\n  Type: regular file\n  File: src\n  Size: 4096\n  Type: directory\n  File: link\n  Size: 5\n  Type: symbolic link\n"
            .replace("4096", &std::fs::metadata(ws.dir.path().join("root/src")).unwrap().len().to_string())
    );
    assert_eq!(
        ws.run("tree src").0,
        "src\n├── main.rs\n└── sub\n    └── x.rs\n\n1 directory, 2 files\n"
    );
    assert_eq!(ws.run("tree -d -L 1").0, ".\n└── src\n\n1 directory\n");
    let (out, _, st) = ws.run("which cat cd nosuch");
    assert_eq!(
        (out.as_str(), st),
        ("cat: shell built-in\ncd: shell built-in\n", 1)
    );
    assert_eq!(ws.run("whoami").0, "ultra\n");
    assert_eq!(ws.run("clear").0, "\x1b[H\x1b[2J");
    let out = ws.run("ls -l f.txt").0;
    assert!(
        out.starts_with("-rw") && out.ends_with(" 1 6 f.txt\n"),
        "{out}"
    );
    assert_eq!(ws.run("ls -l link").0.chars().next(), Some('l'));
    assert_eq!(ws.run("date -d @86399 +%s:%T").0, "86399:23:59:59\n");
    // touch leaves an existing file's content alone.
    ws.run("touch f.txt");
    assert_eq!(ws.run("cat f.txt").0, "b\na\nc\n");
    // xargs runs built-ins only.
    assert_eq!(ws.run("echo f.txt | xargs -n1 cat").0, "b\na\nc\n");
}
