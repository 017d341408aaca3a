//! The test runners `run_tests` knows: which one a project uses (seed 001's order for
//! JavaScript, then cargo, pytest and go), its argv for a path and a name filter, running it
//! once like `run_command` does, and the pass, fail and skip counts read from its summary
//! line.

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use ultra_protocol::CommandError;

use crate::policy::{Line, Stage};
use crate::{Cancel, Sandbox};

/// The runners `run_tests` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    Vitest,
    Jest,
    Npm,
    Cargo,
    Pytest,
    Go,
}

fn exists(root: &Path, names: &[&str]) -> bool {
    names.iter().any(|n| root.join(n).is_file())
}

/// Seed 001's detection order, then Rust, Python and Go projects.
pub fn detect(root: &Path) -> Option<Runner> {
    if exists(
        root,
        &[
            "vitest.config.ts",
            "vitest.config.js",
            "vitest.config.mts",
            "vitest.config.mjs",
        ],
    ) {
        return Some(Runner::Vitest);
    }
    if exists(
        root,
        &[
            "jest.config.js",
            "jest.config.ts",
            "jest.config.cjs",
            "jest.config.mjs",
        ],
    ) {
        return Some(Runner::Jest);
    }
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        let pkg: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let has = |name: &str| {
            ["devDependencies", "dependencies"]
                .iter()
                .any(|k| pkg[k].get(name).is_some())
        };
        if has("vitest") {
            return Some(Runner::Vitest);
        }
        if has("jest") {
            return Some(Runner::Jest);
        }
        return Some(Runner::Npm);
    }
    if exists(root, &["Cargo.toml"]) {
        return Some(Runner::Cargo);
    }
    if exists(
        root,
        &[
            "pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
            "conftest.py",
        ],
    ) {
        return Some(Runner::Pytest);
    }
    if exists(root, &["go.mod"]) {
        return Some(Runner::Go);
    }
    None
}

/// The argv for a runner, a path and a test-name filter.
pub fn argv(runner: Runner, path: Option<&str>, filter: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = match runner {
        Runner::Vitest => vec!["npx", "vitest", "--run"],
        Runner::Jest => vec!["npx", "jest"],
        Runner::Npm => vec!["npm", "test", "--"],
        Runner::Cargo => vec!["cargo", "test"],
        Runner::Pytest => vec!["python3", "-m", "pytest"],
        Runner::Go => vec!["go", "test", "-v"],
    }
    .into_iter()
    .map(String::from)
    .collect();
    match runner {
        Runner::Cargo => {
            // `tests/auth.rs` is the integration test target `auth`.
            if let Some(target) = path
                .and_then(|p| p.strip_prefix("tests/"))
                .and_then(|p| p.strip_suffix(".rs"))
            {
                v.extend(["--test".into(), target.into()]);
            }
            if let Some(f) = filter {
                v.push(f.into());
            }
        }
        Runner::Go => {
            v.push(path.map_or("./...".into(), |p| {
                format!("./{}", p.trim_start_matches("./"))
            }));
            if let Some(f) = filter {
                v.extend(["-run".into(), f.into()]);
            }
        }
        _ => {
            if let Some(p) = path {
                v.push(p.into());
            }
            if let Some(f) = filter {
                let flag = match runner {
                    Runner::Vitest => "-t",
                    Runner::Jest => "--testNamePattern",
                    Runner::Pytest => "-k",
                    _ => "-t",
                };
                v.extend([flag.into(), f.into()]);
            }
        }
    }
    v
}

/// Counts read from a runner's summary.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Stats {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// The number just before `word` in `text` (`3 passed`), summed over every occurrence.
fn count_before(text: &str, word: &str) -> usize {
    text.match_indices(word)
        .filter_map(|(i, _)| {
            let before = text[..i].trim_end();
            let digits: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse::<usize>().ok()
        })
        .sum()
}

/// Read the counts from the runner's output; `None` when no summary was recognised.
pub fn stats(runner: Runner, output: &str) -> Option<Stats> {
    let s = match runner {
        Runner::Cargo => {
            let lines: String = output
                .lines()
                .filter(|l| l.starts_with("test result:"))
                .collect::<Vec<_>>()
                .join("\n");
            if lines.is_empty() {
                return None;
            }
            Stats {
                passed: count_before(&lines, " passed"),
                failed: count_before(&lines, " failed"),
                skipped: count_before(&lines, " ignored"),
                total: 0,
            }
        }
        Runner::Go => {
            let n = |tag: &str| {
                output
                    .lines()
                    .filter(|l| l.trim_start().starts_with(tag))
                    .count()
            };
            let s = Stats {
                passed: n("--- PASS"),
                failed: n("--- FAIL"),
                skipped: n("--- SKIP"),
                total: 0,
            };
            if s == Stats::default() {
                return None;
            }
            s
        }
        Runner::Pytest => {
            let line = output.lines().rev().find(|l| {
                l.contains(" in ")
                    && (l.contains(" passed") || l.contains(" failed") || l.contains(" error"))
            })?;
            Stats {
                passed: count_before(line, " passed"),
                failed: count_before(line, " failed") + count_before(line, " error"),
                skipped: count_before(line, " skipped"),
                total: 0,
            }
        }
        Runner::Vitest | Runner::Jest | Runner::Npm => {
            // vitest: "Tests  1 failed | 4 passed (5)"; jest: "Tests:  1 failed, 4 passed, 5 total".
            let line = output.lines().rev().find(|l| {
                l.trim_start().starts_with("Tests") && l.contains(" passed")
                    || l.trim_start().starts_with("Tests:")
            })?;
            Stats {
                passed: count_before(line, " passed"),
                failed: count_before(line, " failed"),
                skipped: count_before(line, " skipped") + count_before(line, " todo"),
                total: 0,
            }
        }
    };
    Some(Stats {
        total: s.passed + s.failed + s.skipped,
        ..s
    })
}

/// What a test run gave.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestRun {
    pub runner: Runner,
    /// The argv that ran.
    pub command: Vec<String>,
    /// Exit code 0 and not timed out.
    pub passed: bool,
    pub exit_code: i32,
    /// stdout then stderr, capped.
    pub output: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    pub duration: u64,
    pub timed_out: bool,
    /// It ran in the sandbox (an agent's run): no network, writes only in the workspace,
    /// temp and caches.
    pub sandboxed: bool,
    /// With `watch`: the id of the watch now running in the background.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch_id: Option<String>,
}

/// Run `command` once and read its summary.
pub fn run_once(
    root: &Path,
    runner: Runner,
    command: &[String],
    timeout: std::time::Duration,
    cap: usize,
    cancel: Option<&Cancel>,
    sandbox: Option<&Arc<Sandbox>>,
) -> Result<TestRun, CommandError> {
    let line = Line {
        lists: vec![vec![(
            None,
            vec![Stage {
                argv: command.to_vec(),
            }],
        )]],
    };
    let ran = crate::execute(root, &line, timeout, cap, cancel, sandbox)?;
    let output = format!("{}{}", ran.stdout, ran.stderr);
    Ok(TestRun {
        runner,
        passed: ran.exit_code == 0 && !ran.timed_out,
        exit_code: ran.exit_code,
        stats: stats(runner, &output),
        output,
        command: command.to_vec(),
        duration: ran.duration,
        timed_out: ran.timed_out,
        sandboxed: ran.sandboxed,
        watch_id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        assert_eq!(detect(root), None);
        std::fs::write(root.join("go.mod"), "module x\n").expect("write");
        assert_eq!(detect(root), Some(Runner::Go));
        std::fs::write(root.join("pyproject.toml"), "").expect("write");
        assert_eq!(detect(root), Some(Runner::Pytest));
        std::fs::write(root.join("Cargo.toml"), "").expect("write");
        assert_eq!(detect(root), Some(Runner::Cargo));
        std::fs::write(root.join("package.json"), r#"{"scripts": {"test": "x"}}"#).expect("write");
        assert_eq!(detect(root), Some(Runner::Npm));
        std::fs::write(
            root.join("package.json"),
            r#"{"devDependencies": {"jest": "1"}}"#,
        )
        .expect("write");
        assert_eq!(detect(root), Some(Runner::Jest));
        std::fs::write(
            root.join("package.json"),
            r#"{"devDependencies": {"vitest": "1"}}"#,
        )
        .expect("write");
        assert_eq!(detect(root), Some(Runner::Vitest));
        std::fs::write(root.join("jest.config.js"), "").expect("write");
        assert_eq!(detect(root), Some(Runner::Jest));
        std::fs::write(root.join("vitest.config.ts"), "").expect("write");
        assert_eq!(detect(root), Some(Runner::Vitest));
    }

    #[test]
    fn argv_per_runner() {
        let j = |r, p, f| argv(r, p, f).join(" ");
        assert_eq!(
            j(Runner::Vitest, Some("tests/a.test.ts"), Some("login")),
            "npx vitest --run tests/a.test.ts -t login"
        );
        assert_eq!(
            j(Runner::Jest, None, Some("login")),
            "npx jest --testNamePattern login"
        );
        assert_eq!(
            j(Runner::Cargo, Some("tests/auth.rs"), Some("login")),
            "cargo test --test auth login"
        );
        assert_eq!(
            j(Runner::Pytest, Some("tests"), Some("login")),
            "python3 -m pytest tests -k login"
        );
        assert_eq!(
            j(Runner::Go, None, Some("Login")),
            "go test -v ./... -run Login"
        );
        assert_eq!(j(Runner::Npm, None, None), "npm test --");
    }

    #[test]
    fn summaries() {
        let s = |r, t| stats(r, t).map(|s| (s.total, s.passed, s.failed, s.skipped));
        assert_eq!(
            s(
                Runner::Cargo,
                "test result: ok. 3 passed; 1 failed; 2 ignored; 0 measured\ntest result: ok. 1 passed; 0 failed; 0 ignored"
            ),
            Some((7, 4, 1, 2))
        );
        assert_eq!(
            s(
                Runner::Pytest,
                "==== 3 passed, 1 failed, 2 skipped in 0.12s ===="
            ),
            Some((6, 3, 1, 2))
        );
        assert_eq!(
            s(Runner::Jest, "Tests:       1 failed, 4 passed, 5 total"),
            Some((5, 4, 1, 0))
        );
        assert_eq!(
            s(Runner::Vitest, " Tests  1 failed | 4 passed (5)"),
            Some((5, 4, 1, 0))
        );
        assert_eq!(
            s(
                Runner::Go,
                "--- PASS: TestA\n--- FAIL: TestB\n    --- SKIP: TestC"
            ),
            Some((3, 1, 1, 1))
        );
        assert_eq!(s(Runner::Cargo, "error: could not compile"), None);
    }
}
