//! The harness the differential tests share: a workspace of small fixture files, the
//! shell runtime over it, and the same script under bash with the GNU tools.

#![allow(clippy::unwrap_used, dead_code)]

use std::process::{Command, Stdio};
use std::sync::Arc;

use ultra_shell::run::fs::ShellFs;
use ultra_shell::run::{Env, Shell};
use ultra_workspace::root::RootOptions;
use ultra_workspace::{RelPath, Root};

const FILES: &[(&str, &str)] = &[
    ("f.txt", "b\na\nc\n"),
    (
        "f.csv",
        "name,age,city\nbob,25,paris\nalice,30,berlin\ncarol,25,austin\ndave,100,rome\n",
    ),
    (
        "words.txt",
        "the quick  brown fox\n  jumps over   the lazy dog\n\nThe end\n",
    ),
    ("nums.txt", "10\n9\n-3\n2.5\n100\nabc\n0\n-10\n"),
    ("dup.txt", "a\na\nb\nB\nb\nc\nc\nc\nd\n"),
    (
        "pw.txt",
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\nnocolon\n",
    ),
    ("nonl.txt", "one\ntwo"),
    (
        "lines.txt",
        "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
    ),
    ("sp.txt", "a   b    c\n\t x  y\nzz\n"),
    (
        "mixed.txt",
        "banana 3\nApple 10\napple 2\nCherry 1\nbanana 3\n",
    ),
];

pub struct Ws {
    pub dir: tempfile::TempDir,
    shell: Shell,
    env: Env,
}

impl Ws {
    pub fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().join("root");
        std::fs::create_dir_all(root_dir.join("d")).unwrap();
        for (name, body) in FILES {
            std::fs::write(root_dir.join(name), body).unwrap();
        }
        let root = Arc::new(Root::open(&root_dir, RootOptions::default()).unwrap());
        Ws {
            shell: ultra_shell::shell(ShellFs::new(root, false), &[]),
            env: Env::new(&RelPath::default()),
            dir,
        }
    }

    /// Add (or replace) a fixture file, creating its directories.
    pub fn add(&self, name: &str, body: &str) {
        let path = self.dir.path().join("root").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }

    /// Run a script; (stdout, stderr, status).
    pub fn run(&mut self, script: &str) -> (String, String, i32) {
        run_in(&self.shell, &mut self.env, script)
    }

    /// The same script under real bash and GNU tools; (stdout, status).
    pub fn gnu(&self, script: &str) -> (String, i32) {
        let out = Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(self.dir.path().join("root"))
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }
}

/// Run every case through Ultra and through bash, and fail listing each one whose stdout
/// or exit status differs. `SHELL_DEBUG=1` prints every case's Ultra output.
pub fn differential(ws: &mut Ws, cases: &[&str]) {
    let has_bash = Command::new("bash").arg("-c").arg("true").status().is_ok();
    assert!(has_bash, "bash is needed as the oracle");
    let mut failures = Vec::new();
    for case in cases {
        let (out, err, status) = ws.run(case);
        let (gout, gstatus) = ws.gnu(case);
        if std::env::var("SHELL_DEBUG").is_ok() {
            eprintln!("== {case}\n{out}[{status}] {err}");
        }
        if out != gout || status != gstatus {
            failures.push(format!(
                "{case}\n  ultra: {out:?} status {status} (stderr {err:?})\n  gnu:   {gout:?} status {gstatus}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Run a script with `shell` in session `env`; (stdout, stderr, status).
pub fn run_in(shell: &Shell, env: &mut Env, script: &str) -> (String, String, i32) {
    let parsed = ultra_shell::parse(script).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = shell.run(&parsed, env, &mut std::io::empty(), &mut out, &mut err);
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
        status,
    )
}
