//! `ultra.shell.run`: the built-in shell as one command (the `shell` tool). Scripts run in
//! process on the confined workspace; no built-in spawns a process except `build`, which
//! runs the project's own build. Each session (by
//! `session`, else the caller's session or agent id) keeps its variables, working directory
//! and `$?` between calls.

use std::io::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::run::Shell;
use ultra_shell::{RedirectKind, Script};

use crate::services::Services;

/// Register the shell command, every plain built-in as `shell.<name>` and the promoted
/// ones as typed tools.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Run::new())?;
    for b in ultra_shell::builtins::ALL {
        r.register(BuiltinCommand::new(*b))?;
    }
    crate::promoted::register(r)
}

/// Default cap on captured stdout and stderr, each.
pub(crate) const DEFAULT_MAX_OUTPUT: usize = 64 * 1024;

/// Arguments of `ultra.shell.run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    /// The script: pipes, `&&`, `||`, `;`, redirects, here-docs, globs, `$VAR`, `cd`.
    pub script: String,
    /// Session whose variables and working directory to use (default: the caller's
    /// session or agent id).
    pub session: Option<String>,
    /// Text fed to the script's stdin.
    #[serde(default)]
    pub stdin: String,
    /// Most bytes of stdout and of stderr returned (default 64 KiB); output past it stops
    /// the script's writer and sets `truncated`.
    pub max_output: Option<usize>,
    /// Milliseconds an awk or sed loop in the script may run before it is stopped with an
    /// error (default and most: 60000).
    pub timeout_ms: Option<u64>,
}

/// Result of `ultra.shell.run`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// The last command's status (0 success, 1 failure or no match, 2 usage, 127 unknown).
    pub exit_code: i32,
    /// Output was cut at `maxOutput`.
    pub truncated: bool,
    /// The session's working directory afterwards, from the workspace root.
    pub cwd: String,
    /// Problems an agent can act on (e.g. an unknown command, with the closest built-ins).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ShellError>,
}

/// A structured problem from a script.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShellError {
    /// `unknown_command`.
    pub code: String,
    pub command: String,
    pub message: String,
    /// Built-ins with a similar name.
    pub closest: Vec<String>,
}

/// The fixed part of the `shell` tool's description; the built-ins' usage lines are added
/// from the built-in table when the command is registered.
const INTRO: &str = "Run a script in Ultra's built-in shell on the confined workspace: pipes, &&, ||, ;, redirects (> >> < 2>&1 &>), here-docs, globs, $VAR, cd. Nothing spawns a process (but `build`, which runs the project's build); paths outside the workspace and protected paths are refused. A non-zero exitCode is a result, not an error; a script that does not parse is SHELL_SYNTAX_ERROR with the position; an unknown command is listed in `errors` with the closest built-ins.";

/// The description budget for LLM tool lists (seed 004 §6).
pub const DESCRIPTION_BUDGET: usize = 4096;

/// The `shell` description (seed 004 §6): the intro, the promoted commands in detail
/// (summary, usage, an example), then the other built-ins by usage line while they fit in
/// [`DESCRIPTION_BUDGET`] bytes, and by name after that.
pub fn shell_description() -> String {
    struct Detail(String);
    impl ultra_shell::promoted::Visitor for Detail {
        fn visit<P: ultra_shell::promoted::Promoted>(&mut self, p: &'static P) {
            self.0.push_str(&format!(
                "\n- {}: {}\n  {}",
                p.name(),
                p.summary(),
                p.usage()
            ));
            if let Some(e) = p.cli_examples().first() {
                self.0.push_str(&format!("\n  e.g. {e}"));
            }
        }
    }
    let mut detail = Detail(format!(
        "{INTRO}\n\nCommands with typed tools of their own:"
    ));
    ultra_shell::promoted::visit(&mut detail);
    crate::promoted::external(&mut detail);
    let mut d = detail.0;
    d.push_str("\n\nOther built-ins:");
    let rest = ultra_shell::builtins::ALL;
    let mut names_only = Vec::new();
    for b in rest {
        let line = format!("\n  {}", b.usage());
        // Keep room for the names that might not fit.
        if d.len() + line.len() + 16 * rest.len() < DESCRIPTION_BUDGET {
            d.push_str(&line);
        } else {
            names_only.push(b.name());
        }
    }
    if !names_only.is_empty() {
        d.push_str(&format!("\n  also: {}", names_only.join(" ")));
    }
    d
}

/// `ultra.shell.run`.
pub struct Run {
    spec: &'static CommandSpec,
}

static RUN: CommandSpec = CommandSpec::new("ultra.shell.run", "Shell: Run Script", "Shell", INTRO)
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

/// The risk of a script, from each command's declared risk for its arguments (words not
/// known before the script runs count at the command's most) and its redirects.
/// (Unparsable scripts fail before they run, so they are treated as reads.)
fn annotations(script: &Script) -> Annotations {
    let mut a = Annotations {
        read_only: true,
        idempotent: true,
        ..Annotations::default()
    };
    for item in &script.items {
        for p in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for c in &p.commands {
                let name = c.words.first().and_then(|w| w.as_plain()).unwrap_or("");
                let risk = match crate::promoted::lookup(name) {
                    None => ultra_shell::run::Risk::READ,
                    Some(b) => {
                        let args: Option<Vec<String>> =
                            c.words[1..].iter().map(|w| w.as_literal()).collect();
                        match args {
                            Some(args) => b.risk(&args),
                            None => b.max_risk(),
                        }
                    }
                };
                let writes_file = c.redirects.iter().any(|r| {
                    matches!(
                        r.kind,
                        RedirectKind::Write
                            | RedirectKind::Append
                            | RedirectKind::WriteBoth
                            | RedirectKind::AppendBoth
                    )
                });
                if risk.writes || writes_file {
                    a.read_only = false;
                    a.idempotent = false;
                }
                if risk.runs {
                    a.open_world = true;
                }
                if risk.destructive || c.redirects.iter().any(|r| r.kind == RedirectKind::Write) {
                    a.destructive = true;
                }
            }
        }
    }
    a
}

/// Collects up to `cap` bytes; past that, writes fail so the script stops producing.
pub(crate) struct Capped {
    pub(crate) buf: Vec<u8>,
    cap: usize,
    pub(crate) truncated: bool,
}

impl Capped {
    pub(crate) fn new(cap: usize) -> Capped {
        Capped {
            buf: Vec::new(),
            cap,
            truncated: false,
        }
    }
}

impl Write for Capped {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let room = self.cap.saturating_sub(self.buf.len());
        if room == 0 {
            self.truncated = true;
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "output limit reached",
            ));
        }
        let n = room.min(b.len());
        self.buf.extend_from_slice(&b[..n]);
        if n < b.len() {
            self.truncated = true;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Command<Services> for Run {
    type Args = RunArgs;
    type Output = RunOutput;

    fn programs(&self, s: &Services, a: &RunArgs) -> Vec<String> {
        let mut v = crate::runner::programs::in_line(&a.script);
        if v.iter().any(|p| p == "build") {
            v.extend(crate::runner::programs::of_build(s.root_path()));
        }
        v
    }

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn annotations(&self, args: &RunArgs) -> Annotations {
        match ultra_shell::parse(&args.script) {
            Ok(s) => annotations(&s),
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
        let script = ultra_shell::parse(&args.script).map_err(|e| {
            let pos = e.pos();
            CommandError::new(ErrorCode::ShellSyntax, format!("{}:{}: {e}", pos.line, pos.column))
                .with_details(json!({ "code": e.code(), "line": pos.line, "column": pos.column, "offset": pos.offset }))
                .with_suggestion("quote the word, or use only the supported syntax (no $(...), subshells, if/for, &)")
        })?;
        let session = session_id(cx, args.session.as_deref());
        let mut env = cx.services.take_shell_session(&session);
        let limit = args
            .timeout_ms
            .map_or(crate::shell_writes::SHELL_TIME_LIMIT, |ms| {
                std::time::Duration::from_millis(ms).min(crate::shell_writes::SHELL_TIME_LIMIT)
            });
        let (fs, hook) = crate::shell_writes::shell_fs(cx, limit);
        let shell = Shell::new(fs).with_commands(crate::promoted::shell_commands());
        let cap = args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT).min(16 << 20);
        let mut out = Capped::new(cap);
        let mut err = Capped::new(cap);
        let mut stdin = std::io::Cursor::new(args.stdin.into_bytes());
        let status = shell.run(&script, &mut env, &mut stdin, &mut out, &mut err);
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
        errors.extend(crate::shell_writes::finish(cx, &hook));
        let cwd = env.cwd.as_str().to_string();
        cx.services.put_shell_session(&session, env);
        Ok(RunOutput {
            stdout: String::from_utf8_lossy(&out.buf).into_owned(),
            stderr: String::from_utf8_lossy(&err.buf).into_owned(),
            exit_code: status,
            truncated: out.truncated || err.truncated,
            cwd,
            errors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::annotations;

    fn risk(s: &str) -> (bool, bool) {
        let a = annotations(&ultra_shell::parse(s).expect("parses"));
        (a.read_only, a.destructive)
    }

    #[test]
    fn shell_description_lists_every_builtin_within_budget() {
        let d = super::shell_description();
        assert!(d.len() <= super::DESCRIPTION_BUDGET, "{}", d.len());
        for b in ultra_shell::builtins::ALL {
            assert!(d.contains(b.name()), "{} missing", b.name());
        }
        assert!(d.contains("head [-n"), "{d}");
        for p in ultra_shell::promoted::CLI {
            assert!(
                d.contains(&format!("- {}: ", p.name())),
                "{} missing",
                p.name()
            );
            assert!(d.contains(p.usage()), "{} usage missing", p.name());
        }
    }

    #[test]
    fn risk_follows_what_the_script_does() {
        assert_eq!(risk("cat a | sort | head -3"), (true, false));
        assert_eq!(risk("mkdir x && touch x/y"), (false, false));
        assert_eq!(risk("echo hi >> log"), (false, false));
        assert_eq!(risk("echo hi > f"), (false, true));
        assert_eq!(risk("rm -rf build"), (false, true));
        assert_eq!(risk("ls | xargs rm"), (false, true));
        assert_eq!(risk("ls | xargs -n 1 rm"), (false, true));
        assert_eq!(risk("grep -rn x src | sed 's/a/b/'"), (true, false));
        assert_eq!(risk("sed -i 's/a/b/' f"), (false, true));
        assert_eq!(risk("sed -n 'w out' f"), (false, false));
        assert_eq!(risk("replace f a b"), (false, false));
        assert_eq!(risk("write f x"), (false, true));
        assert_eq!(risk("write -a f x"), (false, false));
        assert_eq!(risk("awk '{print $1}' f"), (true, false));
        assert_eq!(risk("awk '{print > \"o\"}' f"), (false, true));
        // Words not known until the script runs count at the command's most.
        assert_eq!(risk("sed $OPTS f"), (false, true));
        assert_eq!(risk("grep $P f"), (true, false));
        // Commands declared above the shell are judged too: a commit is put to a person.
        assert_eq!(risk("git status -s | awk '{print $2}'"), (true, false));
        assert_eq!(risk("git add a.ts"), (false, false));
        assert_eq!(risk("git add a.ts && git commit -m x"), (false, true));
        assert_eq!(risk("git $SUB"), (false, true));
        assert_eq!(risk("build 2>&1 | grep error"), (false, false));
        assert_eq!(risk("build --clean"), (false, true));
    }
}

/// A command's declared risk as policy annotations.
pub(crate) fn risk_annotations(risk: ultra_shell::run::Risk) -> Annotations {
    Annotations {
        read_only: !risk.writes,
        destructive: risk.destructive,
        idempotent: !risk.writes,
        open_world: risk.runs,
    }
}

/// Annotations of a call as policy judges them: running the project's code (`build`)
/// counts as reaching outside the workspace only when no sandbox will confine it.
pub(crate) fn confined(services: &Services, mut a: Annotations) -> Annotations {
    if a.open_world && crate::runner::sandbox::offered(&services.config.run) {
        a.open_world = false;
    }
    a
}

/// The shell session a call uses: the one named, else the caller's session or agent id.
fn session_id(cx: &Cx<'_, Services>, named: Option<&str>) -> String {
    named
        .map(str::to_string)
        .or_else(|| cx.source.session_id.clone())
        .or_else(|| cx.source.agent_id.clone())
        .unwrap_or_else(|| "default".to_string())
}

/// The standard fixture built-in examples run on.
pub(crate) const FIXTURE: &[(&str, &str)] =
    &[("f.txt", "b\na\nc\n"), ("src/main.rs", "fn main() {}\n")];

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
    builtin: &'static dyn ultra_shell::run::Builtin,
    spec: &'static CommandSpec,
}

pub(crate) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

impl BuiltinCommand {
    /// The command for `builtin`. Its spec is built once at registration and lives for the
    /// process.
    pub fn new(builtin: &'static dyn ultra_shell::run::Builtin) -> BuiltinCommand {
        let name = builtin.name();
        let ex = builtin.example();
        let example = Example {
            description: leak(format!("{name} {}", ex.args.join(" "))),
            args: leak(json!({ "args": ex.args, "stdin": ex.stdin }).to_string()),
            files: FIXTURE,
            expect: Some(leak(
                json!({ "stdout": ex.stdout, "exitCode": ex.status }).to_string(),
            )),
            ..Example::EMPTY
        };
        let mut spec = CommandSpec::new(
            leak(format!("shell.{name}")),
            leak(format!("Shell: {name}")),
            "Shell",
            leak(format!("The built-in `{}` on the workspace, without a shell: arguments are passed as given.", builtin.usage())),
        )
        .not_ai_exposed()
        .long()
        .examples(Box::leak(vec![example].into_boxed_slice()));
        let risk = builtin.max_risk();
        spec = spec.touches(if risk.runs {
            Touches::PROCESSES.and(Touches::WRITE)
        } else if risk.writes {
            Touches::WRITE
        } else {
            Touches::READ
        });
        if !risk.writes {
            spec = spec.read_only();
        }
        if risk.destructive {
            spec = spec.destructive();
        }
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
        risk_annotations(self.builtin.risk(&args.args))
    }

    fn annotations_in(&self, services: &Services, args: &BuiltinArgs) -> Annotations {
        confined(services, self.annotations(args))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: BuiltinArgs) -> Result<RunOutput, CommandError> {
        let session = session_id(cx, args.session.as_deref());
        let env = cx.services.take_shell_session(&session);
        let (fs, hook) = crate::shell_writes::shell_fs(cx, crate::shell_writes::SHELL_TIME_LIMIT);
        let charged = fs.charge();
        let cap = args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT).min(16 << 20);
        let mut out = Capped::new(cap);
        let mut err = Capped::new(cap);
        let mut stdin = std::io::Cursor::new(args.stdin.into_bytes());
        let status = {
            let mut io = ultra_shell::run::Io {
                stdin: &mut stdin,
                stdout: &mut out,
                stderr: &mut err,
            };
            let shell_cx = ultra_shell::run::Cx {
                fs: &fs,
                cwd: &env.cwd,
                vars: &env.vars,
            };
            self.builtin.run(&args.args, &mut io, &shell_cx)
        };
        drop((charged, fs));
        let cwd = env.cwd.as_str().to_string();
        cx.services.put_shell_session(&session, env);
        Ok(RunOutput {
            stdout: String::from_utf8_lossy(&out.buf).into_owned(),
            stderr: String::from_utf8_lossy(&err.buf).into_owned(),
            exit_code: status,
            truncated: out.truncated || err.truncated,
            cwd,
            errors: crate::shell_writes::finish(cx, &hook),
        })
    }
}
