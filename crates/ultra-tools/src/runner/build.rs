//! `build` as a dual-mode command (seed 004): the project's own build, found from the
//! workspace root (`ultra_runner::build`: Cargo.toml, package.json's `build` script, go.mod,
//! a Makefile), run as argv like `run_tests` with a scrubbed environment, a timeout that
//! kills the process group, and capped output. In the shell its output pipes like any command's
//! (`build 2>&1 | grep error`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use ultra_runner::build::{detect, plan};
use ultra_runner::policy::{Line, Stage};
use ultra_runner::{MAX_TIMEOUT_MS, execute};
use ultra_shell::promoted::cli::scan;
use ultra_shell::promoted::{Issue, Promoted, PromotedSpec, Risk, TypedExample};
use ultra_shell::run::{Cx, Example, Io};

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

impl Promoted for Build {
    type Args = BuildArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "build",
        summary: "Build the project: cargo build, npm run build, go build ./... or make, as found in the workspace root.",
        usage: "build [--clean] [--release] [--timeout MS]",
        cli_examples: &["build", "build --release", "build 2>&1 | grep -n error"],
        // The standard fixture has no project file.
        example: Example {
            args: &[],
            stdin: "",
            stdout: "",
            status: 1,
        },
        typed_example: TypedExample {
            args: "{}",
            stdout: "",
            status: 1,
        },
        max_risk: Risk {
            runs: true,
            ..Risk::OVERWRITE
        },
    };

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
            Some(t) if t == 0 || t > MAX_TIMEOUT_MS => Err(vec![Issue::new(
                "timeout",
                "invalid_value",
                format!("timeout is 1..={} milliseconds", MAX_TIMEOUT_MS),
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

    fn execute(&self, a: BuildArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let root = cx.fs.root().path();
        let Some(system) = detect(root) else {
            let _ = writeln!(
                io.stderr,
                "build: no build found in the workspace root (looked for Cargo.toml, a `build` script in package.json, go.mod, a Makefile); use run_command for anything else"
            );
            return 1;
        };
        let steps = match plan(system, a.clean, a.release, root) {
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
        let ran = match execute(root, &line, timeout, MAX_OUTPUT, None, sandbox.as_ref()) {
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
