//! Differential tests of `ultra sh` against bash: every case in `tests/shell_cases/*.txt`
//! (`### name` starts a case; the lines up to the next `###` are its script) runs once with
//! `bash -c` and once with `ultra sh`, each in a fresh copy of the same fixture tree, and
//! must print the same stdout and exit with the same status. Intended differences are
//! listed in `tests/shell_cases/INTENDED_DIFFERENCES.md` and kept out of the cases.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixture every case starts from.
const FIXTURE: &[(&str, &str)] = &[
    ("notes.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\n"),
    ("fruits.txt", "banana\napple\ncherry\napple\ndate\n"),
    (
        "data.csv",
        "name,age,city\nada,36,london\nalan,41,wilmslow\ngrace,85,arlington\n",
    ),
    ("my file.txt", "a file with spaces\nin its name\n"),
    ("empty.txt", ""),
    ("noeol.txt", "no newline at the end"),
    (".hidden", "secret\n"),
    ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
    (
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    ),
    ("src/util/mod.rs", "pub mod strings;\n"),
    (
        "src/util/strings.rs",
        "pub fn shout(s: &str) -> String {\n    s.to_uppercase()\n}\n",
    ),
    ("docs/readme.md", "# Title\n\nSome text.\n"),
];

struct Case {
    file: String,
    name: String,
    script: String,
}

fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shell_cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut cur: Option<(String, Vec<&str>)> = None;
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("###") {
                if let Some((n, lines)) = cur.take() {
                    out.push(Case {
                        file: file.clone(),
                        name: n,
                        script: lines.join("\n"),
                    });
                }
                cur = Some((name.trim().to_string(), Vec::new()));
            } else if let Some((_, lines)) = cur.as_mut() {
                lines.push(line);
            }
        }
        if let Some((n, lines)) = cur {
            out.push(Case {
                file: file.clone(),
                name: n,
                script: lines.join("\n"),
            });
        }
    }
    out
}

fn write_fixture(dir: &Path) {
    for (path, text) in FIXTURE {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

struct Outcome {
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

fn outcome(o: std::process::Output) -> Outcome {
    Outcome {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        status: o.status.code(),
    }
}

fn run_case(case: &Case) -> (Outcome, Outcome) {
    let tmp = tempfile::tempdir().unwrap();
    let (bash_dir, ultra_dir, state) = (
        tmp.path().join("bash"),
        tmp.path().join("ultra"),
        tmp.path().join("state"),
    );
    for d in [&bash_dir, &ultra_dir, &state] {
        std::fs::create_dir_all(d).unwrap();
    }
    write_fixture(&bash_dir);
    write_fixture(&ultra_dir);
    let bash = Command::new("bash")
        .arg("-c")
        .arg(&case.script)
        .current_dir(&bash_dir)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("HOME", &bash_dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("bash runs");
    let ultra = Command::new(env!("CARGO_BIN_EXE_ultra"))
        .arg("sh")
        .arg("--root")
        .arg(&ultra_dir)
        .arg(&case.script)
        .current_dir(&ultra_dir)
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("HOME", &state)
        .env("XDG_STATE_HOME", &state)
        .env("XDG_RUNTIME_DIR", &state)
        .env_remove("ULTRA_SOCKET")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("ultra runs");
    (outcome(bash), outcome(ultra))
}

#[test]
fn ultra_sh_matches_bash() {
    let cases = cases();
    assert!(cases.len() >= 70, "only {} cases found", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let (b, u) = run_case(case);
        if b.stdout != u.stdout || b.status != u.status {
            failures.push(format!(
                "=== {} / {}\n--- script\n{}\n--- bash (status {:?})\n{}--- bash stderr\n{}--- ultra (status {:?})\n{}--- ultra stderr\n{}",
                case.file, case.name, case.script, b.status, b.stdout, b.stderr, u.status,
                u.stdout, u.stderr
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
