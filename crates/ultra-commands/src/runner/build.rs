//! `build` as a dual-mode command (seed 004): the project's own build, found from the
//! workspace root (Cargo.toml, package.json's `build` script, go.mod, a Makefile), run as
//! argv like `run_tests` with a scrubbed environment, a timeout that kills the process
//! group, and capped output. In the shell its output pipes like any command's
//! (`build 2>&1 | grep error`).

use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use ultra_shell::promoted::cli::scan;
use ultra_shell::promoted::{Issue, Promoted, Risk};
use ultra_shell::run::{Cx, Example, Io};

use super::policy::{Line, Stage};

/// `build`.
pub struct Build;

const DEFAULT_TIMEOUT_MS: u64 = 300_000;
const MAX_OUTPUT: usize = 256 * 1024;

/// Arguments of `build`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BuildArgs {
    /// Remove earlier build output first (`cargo clean`, `go clean`, `make clean`,
    /// `npm run clean`).
    #[serde(default)]
    pub clean: bool,
    /// An optimised build (Cargo projects: `--release`).
    #[serde(default)]
    pub release: bool,
    /// Milliseconds before the build is killed (default 300000, at most 600000).
    pub timeout: Option<u64>,
}

/// The build systems `build` knows, in the order it looks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum System {
    Cargo,
    Npm,
    Go,
    Make,
}

fn detect(root: &Path) -> Option<System> {
    if root.join("Cargo.toml").is_file() {
        return Some(System::Cargo);
    }
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        let pkg: Value = serde_json::from_str(&text).unwrap_or_default();
        if pkg["scripts"].get("build").is_some() {
            return Some(System::Npm);
        }
    }
    if root.join("go.mod").is_file() {
        return Some(System::Go);
    }
    if ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .any(|m| root.join(m).is_file())
    {
        return Some(System::Make);
    }
    None
}

/// The program a build runs in `root` (for restricted-command checks), if it finds a build.
pub(crate) fn program(root: &Path) -> Option<&'static str> {
    detect(root).map(|s| match s {
        System::Cargo => "cargo",
        System::Npm => "npm",
        System::Go => "go",
        System::Make => "make",
    })
}

/// The argv lists a call runs, in order.
fn plan(system: System, a: &BuildArgs, root: &Path) -> Result<Vec<Vec<String>>, String> {
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    if a.release && system != System::Cargo {
        return Err("--release applies to Cargo projects; other builds choose their profile in their own configuration".into());
    }
    let mut steps = Vec::new();
    if a.clean {
        steps.push(match system {
            System::Cargo => words(&["cargo", "clean"]),
            System::Go => words(&["go", "clean"]),
            System::Make => words(&["make", "clean"]),
            System::Npm => {
                let text = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
                let pkg: Value = serde_json::from_str(&text).unwrap_or_default();
                if pkg["scripts"].get("clean").is_none() {
                    return Err("package.json has no `clean` script to run".into());
                }
                words(&["npm", "run", "clean"])
            }
        });
    }
    steps.push(match system {
        System::Cargo if a.release => words(&["cargo", "build", "--release"]),
        System::Cargo => words(&["cargo", "build"]),
        System::Npm => words(&["npm", "run", "build"]),
        System::Go => words(&["go", "build", "./..."]),
        System::Make => words(&["make"]),
    });
    Ok(steps)
}

impl Promoted for Build {
    type Args = BuildArgs;

    fn name(&self) -> &'static str {
        "build"
    }
    fn summary(&self) -> &'static str {
        "Build the project: cargo build, npm run build, go build ./... or make, as found in the workspace root."
    }
    fn usage(&self) -> &'static str {
        "build [--clean] [--release] [--timeout MS]"
    }
    fn cli_examples(&self) -> &'static [&'static str] {
        &["build", "build --release", "build 2>&1 | grep -n error"]
    }
    fn example(&self) -> Example {
        // The standard fixture has no project file.
        Example {
            args: &[],
            stdin: "",
            stdout: "",
            status: 1,
        }
    }
    fn typed_example(&self) -> (&'static str, &'static str) {
        ("{}", "")
    }
    fn typed_example_status(&self) -> i32 {
        1
    }

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let o = scan(
            args,
            "crt:",
            &[("clean", 'c'), ("release", 'r'), ("timeout", 't')],
        )?;
        if let Some(w) = o.operands.first() {
            return Err(vec![Issue::new(
                "",
                "invalid_value",
                format!("build takes no operands ('{w}'); to run something else use run_command"),
            )]);
        }
        let timeout = match o.last('t') {
            Some(t) => {
                Some(ultra_shell::promoted::cli::count("--timeout", t).map_err(|i| vec![i])?)
            }
            None => None,
        };
        Ok(json!({ "clean": o.has('c'), "release": o.has('r'), "timeout": timeout }))
    }

    fn validate(&self, a: &BuildArgs) -> Result<(), Vec<Issue>> {
        match a.timeout {
            Some(t) if t == 0 || t > super::MAX_TIMEOUT_MS => Err(vec![Issue::new(
                "timeout",
                "invalid_value",
                format!("timeout is 1..={} milliseconds", super::MAX_TIMEOUT_MS),
            )]),
            _ => Ok(()),
        }
    }

    /// A build runs the project's code (build scripts, npm scripts) and writes its output
    /// directories; `clean` deletes them.
    fn risk(&self, a: &BuildArgs) -> Risk {
        let base = if a.clean {
            Risk::OVERWRITE
        } else {
            Risk::WRITE
        };
        Risk { runs: true, ..base }
    }
    fn max_risk(&self) -> Risk {
        Risk {
            runs: true,
            ..Risk::OVERWRITE
        }
    }

    fn execute(&self, a: BuildArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let root = cx.fs.root().path();
        let Some(system) = detect(root) else {
            let _ = writeln!(
                io.stderr,
                "build: no build found in the workspace root (looked for Cargo.toml, a `build` script in package.json, go.mod, a Makefile); use run_command for anything else"
            );
            return 1;
        };
        let steps = match plan(system, &a, root) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(io.stderr, "build: {e}");
                return 2;
            }
        };
        let line = Line {
            lists: vec![
                steps
                    .iter()
                    .enumerate()
                    .map(|(i, argv)| {
                        let op = (i > 0).then_some(ultra_shell::syntax::ast::AndOrOp::And);
                        (op, vec![Stage { argv: argv.clone() }])
                    })
                    .collect(),
            ],
        };
        let timeout = Duration::from_millis(a.timeout.unwrap_or(DEFAULT_TIMEOUT_MS));
        let shown: Vec<String> = steps.iter().map(|s| s.join(" ")).collect();
        // An agent's build is confined (policy asked a person if no sandbox is offered).
        let sandbox = if cx.fs.is_human() {
            None
        } else {
            super::sandbox::for_agent_at(root)
        };
        let ran = match super::execute(root, &line, timeout, MAX_OUTPUT, None, sandbox.as_ref()) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(io.stderr, "build: {}", e.message);
                return 127;
            }
        };
        let _ = io.stdout.write_all(ran.stdout.as_bytes());
        let _ = io.stderr.write_all(ran.stderr.as_bytes());
        let status = if ran.timed_out { 124 } else { ran.exit_code };
        let _ = writeln!(
            io.stderr,
            "build: `{}` {} in {:.1} s{}{}",
            shown.join(" && "),
            if ran.timed_out {
                "timed out".to_string()
            } else {
                format!("exited {}", ran.exit_code)
            },
            ran.duration as f64 / 1000.0,
            if ran.truncated { " (output cut)" } else { "" },
            if ran.sandboxed {
                " (sandboxed: no network, writes only in the workspace)"
            } else {
                ""
            }
        );
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_and_plans() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        assert_eq!(detect(root), None);
        std::fs::write(root.join("Makefile"), "all:\n").expect("write");
        assert_eq!(detect(root), Some(System::Make));
        std::fs::write(root.join("go.mod"), "module x\n").expect("write");
        assert_eq!(detect(root), Some(System::Go));
        // A package.json without a build script is not a build.
        std::fs::write(root.join("package.json"), r#"{"scripts": {"test": "x"}}"#).expect("write");
        assert_eq!(detect(root), Some(System::Go));
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts": {"build": "tsc"}}"#,
        )
        .expect("write");
        assert_eq!(detect(root), Some(System::Npm));
        std::fs::write(root.join("Cargo.toml"), "").expect("write");
        assert_eq!(detect(root), Some(System::Cargo));

        let args = |clean, release| BuildArgs {
            clean,
            release,
            timeout: None,
        };
        let joined = |s: System, a: BuildArgs| {
            plan(s, &a, root).map(|p| p.iter().map(|v| v.join(" ")).collect::<Vec<_>>())
        };
        assert_eq!(
            joined(System::Cargo, args(true, true)).expect("plan"),
            ["cargo clean", "cargo build --release"]
        );
        assert_eq!(
            joined(System::Go, args(false, false)).expect("plan"),
            ["go build ./..."]
        );
        assert!(joined(System::Make, args(false, true)).is_err());
        // npm has no standard clean: only a `clean` script counts.
        assert!(joined(System::Npm, args(true, false)).is_err());
    }
}
