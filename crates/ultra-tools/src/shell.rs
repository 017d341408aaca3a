//! `ultra.shell.run`: the built-in shell as one command (the `shell` tool). Scripts run in
//! process on the confined workspace; no built-in spawns a process except `build`, which
//! runs the project's own build. Each session (by
//! `session`, else the caller's session or agent id) keeps its variables, working directory
//! and `$?` between calls.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::ParseError;
use ultra_shell::plan::Plan;

use crate::shell_call::{
    Capped, DEFAULT_MAX_OUTPUT, FIXTURE, confined, leak, output, risk_annotations, run_one,
    session_id, with_risk,
};
pub use crate::shell_call::{RunOutput, ShellError};
use ultra_services::Services;

/// Register the shell command, every plain built-in as `shell.<name>` and the promoted
/// ones as typed tools.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Run::new())?;
    for b in ultra_shell::builtins::ALL {
        r.register(BuiltinCommand::new(b))?;
    }
    crate::promoted::register(r)
}

/// Arguments of `ultra.shell.run`: the script as `script`, or as `command` (the name seed
/// 004's `shell` tool gives it); exactly one of them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(try_from = "RunWire")]
#[schemars(with = "RunWire")]
pub struct RunArgs {
    /// The script (from `script` or `command`).
    pub script: String,
    /// Session whose variables and working directory to use.
    pub session: Option<String>,
    /// Text fed to the script's stdin.
    pub stdin: String,
    /// Most bytes of stdout and of stderr returned.
    pub max_output: Option<usize>,
    /// Milliseconds an awk or sed loop may run.
    pub timeout_ms: Option<u64>,
    /// The script read once for the call: its judge and its run share it.
    plan: OnceLock<Result<Plan, ParseError>>,
}

/// `ultra.shell.run`'s arguments as clients send them (the command's schema); checked into
/// [`RunArgs`].
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunWire {
    /// The script: pipes, `&&`, `||`, `;`, redirects, here-docs, globs, `$VAR`, `cd`.
    pub script: Option<String>,
    /// The script, under the name seed 004 gives it: give `script` or `command`.
    pub command: Option<String>,
    /// Session whose variables and working directory to use (default: the caller's).
    pub session: Option<String>,
    /// Text fed to the script's stdin.
    #[serde(default)]
    pub stdin: String,
    /// Most bytes of stdout and of stderr (default 64 KiB); past it the script stops and
    /// `truncated` is set.
    pub max_output: Option<usize>,
    /// Milliseconds an awk or sed loop may run before it is stopped (default and most:
    /// 60000).
    pub timeout_ms: Option<u64>,
}

impl TryFrom<RunWire> for RunArgs {
    type Error = String;

    fn try_from(w: RunWire) -> Result<RunArgs, String> {
        let script = match (w.script, w.command) {
            (Some(s), None) | (None, Some(s)) => s,
            (Some(_), Some(_)) => {
                return Err("give the script as `script` or as `command`, not both".to_string());
            }
            (None, None) => {
                return Err(
                    "missing field `script` (the script to run; `command` is accepted too)"
                        .to_string(),
                );
            }
        };
        Ok(RunArgs {
            script,
            session: w.session,
            stdin: w.stdin,
            max_output: w.max_output,
            timeout_ms: w.timeout_ms,
            plan: OnceLock::new(),
        })
    }
}

impl RunArgs {
    /// The script, parsed and judged on first use.
    fn plan(&self) -> &Result<Plan, ParseError> {
        self.plan
            .get_or_init(|| Plan::new(&self.script, crate::promoted::shell_table()))
    }
}

/// The fixed part of the `shell` tool's description; the built-ins' usage lines are added
/// from the built-in table when the command is registered.
const INTRO: &str = "Run a script in Ultra's built-in shell on the confined workspace: POSIX sh (pipes, &&, ||, redirects, here-docs, globs, $VAR and ${...} forms, $(...), $((...)), if/for/while/case, functions with local, read, set -euo pipefail) plus [[ ]]; no arrays or &. Nothing spawns a process except `build` (the project's build); paths outside the workspace and protected paths are refused. A non-zero exitCode is a result, not an error.";

/// The `shell` description's budget in bytes. Seed 004 §6 caps it at about 4 KB; it is
/// part of every tool list a client loads, so it stays well under.
pub const DESCRIPTION_BUDGET: usize = 2048;

/// The `shell` description (seed 004 §6): the intro, then every command by name. The
/// promoted ones are typed tools too, whose descriptions and schemas give their flags; the
/// other built-ins take the GNU tools' flags.
pub fn shell_description() -> String {
    struct Names(Vec<&'static str>);
    impl ultra_shell::promoted::Visitor for Names {
        fn visit<P: ultra_shell::promoted::Promoted>(&mut self, _: &'static P) {
            self.0.push(P::SPEC.name);
        }
    }
    let mut promoted = Names(Vec::new());
    ultra_shell::promoted::visit(&mut promoted);
    crate::promoted::external(&mut promoted);
    let names: Vec<&str> = ultra_shell::builtins::ALL.iter().map(|b| b.name).collect();
    format!(
        "{INTRO}\n\nAlso typed tools (each tool's fields are its flags): {}\nWith GNU flags: {}",
        promoted.0.join(" "),
        names.join(" ")
    )
}

/// `ultra.shell.run`.
pub struct Run {
    spec: &'static CommandSpec,
}

static RUN: CommandSpec = CommandSpec::new("ultra.shell.run", "Shell: Run Script", "Shell", INTRO)
    .render(ultra_core::render::output)
    .touches(Touches::PROCESSES.and(Touches::WRITE))
    .tool_name("shell")
    .long()
    .examples(&[
        Example {
            description: "Count lines of the Rust files",
            args: r#"{"script": "cat src/*.rs | wc -l"}"#,
            files: &[
                ("src/a.rs", "fn a() {}\n"),
                ("src/b.rs", "fn b() {}\nfn c() {}\n"),
            ],
            expect: Some(r#"{"stdout": "3\n", "exitCode": 0}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Loop over files with a condition",
            args: r#"{"script": "for f in src/*.rs; do if grep -q main \"$f\"; then echo \"${f##*/}\"; fi; done"}"#,
            files: &[
                ("src/a.rs", "fn main() {}\n"),
                ("src/b.rs", "fn b() {}\n"),
            ],
            expect: Some(r#"{"stdout": "a.rs\n", "exitCode": 0}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Variables and the working directory persist in the session",
            args: r#"{"script": "echo $X; pwd", "session": "s1"}"#,
            files: &[("src/a.rs", "")],
            setup: &[(
                "ultra.shell.run",
                r#"{"script": "X=1; cd src", "session": "s1"}"#,
            )],
            expect: Some(r#"{"stdout": "1\n/src\n", "cwd": "src"}"#),
            ..Example::EMPTY
        },
        Example {
            description: "An unknown command is reported with the closest built-ins",
            args: r#"{"script": "grpe x f.txt"}"#,
            expect: Some(
                r#"{"exitCode": 127, "errors": [{"code": "unknown_command", "command": "grpe"}]}"#,
            ),
            ..Example::EMPTY
        },
        Example {
            description: "A syntax error names its position",
            args: r#"{"script": "echo \"abc"}"#,
            error: Some("SHELL_SYNTAX_ERROR"),
            ..Example::EMPTY
        },
    ]);

impl Run {
    /// The command, its description generated from the built-in table.
    pub fn new() -> Run {
        let mut spec = RUN;
        spec.description = leak(shell_description());
        Run {
            spec: Box::leak(Box::new(spec)),
        }
    }
}

impl Default for Run {
    fn default() -> Self {
        Run::new()
    }
}

impl Command<Services> for Run {
    type Args = RunArgs;
    type Output = RunOutput;

    fn programs(&self, s: &Services, a: &RunArgs) -> Vec<String> {
        // The plan `annotations` and `run` share: the script is parsed once.
        let mut v = match a.plan() {
            Ok(plan) => ultra_runner::programs::in_script(plan.script()),
            Err(_) => ultra_runner::programs::in_line(&a.script),
        };
        if v.iter().any(|p| p == "build") {
            v.extend(ultra_runner::programs::of_build(s.root_path()));
        }
        v
    }

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn annotations(&self, args: &RunArgs) -> Annotations {
        match args.plan() {
            Ok(plan) => risk_annotations(plan.risk()),
            // A script that does not parse fails before it runs.
            Err(_) => Annotations {
                read_only: true,
                ..Annotations::default()
            },
        }
    }

    fn annotations_in(&self, services: &Services, args: &RunArgs) -> Annotations {
        confined(services, self.annotations(args))
    }

    fn preview(&self, _services: &Services, args: &RunArgs) -> Option<String> {
        Some(format!("Run in Ultra's shell:\n{}\n", args.script))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: RunArgs) -> Result<RunOutput, CommandError> {
        let plan = match args.plan.into_inner() {
            Some(plan) => plan,
            None => Plan::new(&args.script, crate::promoted::shell_table()),
        }
        .map_err(|e| {
            let pos = e.pos();
            CommandError::new(ErrorCode::ShellSyntax, format!("{}:{}: {e}", pos.line, pos.column))
                .with_details(json!({ "code": e.code(), "line": pos.line, "column": pos.column, "offset": pos.offset }))
                .with_suggestion("quote the word, or use only the supported syntax (POSIX sh with if/for/while/case, functions, $(...), [[ ]]; no arrays, ((...)), & or <(...))")
        })?;
        let session = session_id(cx, args.session.as_deref());
        let mut env = cx.services.take_shell_session(&session);
        let limit = args
            .timeout_ms
            .map_or(crate::shell_writes::SHELL_TIME_LIMIT, |ms| {
                std::time::Duration::from_millis(ms).min(crate::shell_writes::SHELL_TIME_LIMIT)
            });
        let (fs, hook) = crate::shell_writes::shell_fs(cx, limit);
        let shell = crate::promoted::shell(fs);
        let cap = args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT).min(16 << 20);
        let mut out = Capped::new(cap);
        let mut err = Capped::stderr(cap);
        let mut stdin = std::io::Cursor::new(args.stdin.into_bytes());
        let status = shell.run_plan(&plan, &mut env, &mut stdin, &mut out, &mut err);
        let mut errors: Vec<ShellError> = shell
            .take_diagnostics()
            .into_iter()
            .map(|d| ShellError {
                code: d.code.to_string(),
                command: d.command,
                message: d.message,
                closest: d.closest.into_iter().map(String::from).collect(),
            })
            .collect();
        drop(shell);
        errors.extend(
            crate::shell_writes::finish(cx, &hook)
                .into_iter()
                .map(ShellError::from),
        );
        let result = output(out, err, status, &env.cwd, errors);
        cx.services.put_shell_session(&session, env);
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    fn risk(s: &str) -> (bool, bool) {
        let plan = ultra_shell::plan::Plan::new(s, crate::promoted::shell_table()).expect("parses");
        let a = super::risk_annotations(plan.risk());
        (a.read_only, a.destructive)
    }

    #[test]
    fn shell_description_lists_every_builtin_within_budget() {
        let d = super::shell_description();
        assert!(d.len() <= super::DESCRIPTION_BUDGET, "{}", d.len());
        for b in ultra_shell::builtins::ALL {
            assert!(d.contains(&format!(" {}", b.name)), "{} missing", b.name);
        }
        for p in ultra_shell::promoted::builtins() {
            assert!(d.contains(&format!(" {}", p.name)), "{} missing", p.name);
        }
        assert!(d.contains(" git build"), "{d}");
    }

    #[test]
    fn risk_follows_what_the_script_does() {
        // The built-ins' own cases are in ultra-shell's `plan` tests.
        // Commands declared above the shell are judged too: a commit is put to a person.
        assert_eq!(risk("git status -s | awk '{print $2}'"), (true, false));
        assert_eq!(risk("git add a.ts"), (false, false));
        assert_eq!(risk("git add a.ts && git commit -m x"), (false, true));
        assert_eq!(risk("git $SUB"), (false, true));
        assert_eq!(risk("build 2>&1 | grep error"), (false, false));
        assert_eq!(risk("build --clean"), (false, true));
    }
}

/// Arguments of a `shell.<name>` command.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BuiltinArgs {
    /// The command-line arguments, exactly as the command receives them (no globbing or
    /// variable expansion; use `ultra.shell.run` for that).
    #[serde(default)]
    pub args: Vec<String>,
    /// Text fed to stdin.
    #[serde(default)]
    pub stdin: String,
    /// Session whose working directory and variables to use.
    pub session: Option<String>,
    /// Most bytes of stdout and of stderr returned (default 64 KiB).
    pub max_output: Option<usize>,
}

/// One built-in as its own registry command, `shell.<name>`, so it is reachable from every
/// surface with typed arguments. Not offered to agents as a separate tool: the `shell` tool
/// covers them.
pub struct BuiltinCommand {
    builtin: &'static ultra_shell::command::Builtin,
    spec: &'static CommandSpec,
}

impl BuiltinCommand {
    /// The command for `builtin`. Its spec is built once at registration and lives for the
    /// process.
    pub fn new(builtin: &'static ultra_shell::command::Builtin) -> BuiltinCommand {
        let name = builtin.name;
        let ex = builtin.example;
        let example = Example {
            description: leak(format!("{name} {}", ex.args.join(" "))),
            args: leak(json!({ "args": ex.args, "stdin": ex.stdin }).to_string()),
            files: FIXTURE,
            expect: Some(leak(
                json!({ "stdout": ex.stdout, "exitCode": ex.status }).to_string(),
            )),
            ..Example::EMPTY
        };
        let spec = CommandSpec::new(
            leak(format!("shell.{name}")),
            leak(format!("Shell: {name}")),
            "Shell",
            leak(format!("The built-in `{}` on the workspace, without a shell: arguments are passed as given.", builtin.usage)),
        )
        .render(ultra_core::render::output)
        .not_ai_exposed()
        .long()
        .examples(Box::leak(vec![example].into_boxed_slice()));
        let spec = with_risk(spec, builtin.max_risk);
        BuiltinCommand {
            builtin,
            spec: Box::leak(Box::new(spec)),
        }
    }
}

impl Command<Services> for BuiltinCommand {
    type Args = BuiltinArgs;
    type Output = RunOutput;

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn annotations(&self, args: &BuiltinArgs) -> Annotations {
        risk_annotations(self.builtin.risk_of(&args.args))
    }

    fn annotations_in(&self, services: &Services, args: &BuiltinArgs) -> Annotations {
        confined(services, self.annotations(args))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: BuiltinArgs) -> Result<RunOutput, CommandError> {
        let session = session_id(cx, args.session.as_deref());
        let env = cx.services.take_shell_session(&session);
        let cap = args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT).min(16 << 20);
        let result = run_one(
            cx,
            &env.cwd,
            &env.vars,
            args.stdin.into_bytes(),
            cap,
            |io, shell_cx| (self.builtin.run)(&args.args, io, shell_cx),
        );
        cx.services.put_shell_session(&session, env);
        Ok(result)
    }
}
