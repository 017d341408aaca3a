//! The typed-tool side of the shell's promoted commands (seed 004): each becomes a registry
//! command `shell.<name>` with tool name `<name>`, its schema derived from the command's
//! argument type. A call is validated and then runs the same `execute` as the shell path,
//! from the workspace root, with empty stdin.

use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::promoted::{Cli, Promoted, Visitor};
use ultra_shell::run::Builtin;

use crate::services::Services;
use crate::shell::{Capped, FIXTURE, RunOutput, leak};

/// Promoted commands declared in this layer, because they need what the shell crate
/// cannot see (libgit2, the runner). Listing one makes it a typed tool and a shell command
/// at once; nothing else changes.
pub fn external(v: &mut impl Visitor) {
    v.visit(&crate::git::shell::Git);
    v.visit(&crate::runner::build::Build);
}

/// The shell side of [`external`], built once.
pub fn shell_commands() -> &'static [&'static dyn Builtin] {
    static COMMANDS: std::sync::OnceLock<Vec<&'static dyn Builtin>> = std::sync::OnceLock::new();
    COMMANDS.get_or_init(|| {
        let mut c = ShellSide(Vec::new());
        external(&mut c);
        c.0
    })
}

/// The shell command named `name`: one of [`external`]'s, else a built-in (the order the
/// shell itself looks them up in).
pub fn lookup(name: &str) -> Option<&'static dyn Builtin> {
    shell_commands()
        .iter()
        .copied()
        .find(|b| b.name() == name)
        .or_else(|| ultra_shell::builtins::lookup(name))
}

/// Collects the shell built-in of each promoted command it visits.
pub struct ShellSide(pub Vec<&'static dyn Builtin>);

impl Visitor for ShellSide {
    fn visit<P: Promoted>(&mut self, command: &'static P) {
        self.0.push(Box::leak(Box::new(Cli(command))));
    }
}

/// Register every promoted command as a typed tool.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    struct Reg<'r> {
        r: &'r mut Registry<Services>,
        result: Result<(), RegistryError>,
    }
    impl Visitor for Reg<'_> {
        fn visit<P: Promoted>(&mut self, command: &'static P) {
            if self.result.is_ok() {
                self.result = self.r.register(Tool::new(command));
            }
        }
    }
    let mut reg = Reg { r, result: Ok(()) };
    ultra_shell::promoted::visit(&mut reg);
    external(&mut reg);
    reg.result
}

/// The description of a promoted tool: its summary, usage and shell examples.
pub fn description<P: Promoted>(p: &P) -> String {
    let mut d = format!("{}\nShell form: {}", p.summary(), p.usage());
    let examples = p.cli_examples();
    if !examples.is_empty() {
        d.push_str("\nExamples:");
        for e in examples {
            d.push_str(&format!("\n  {e}"));
        }
    }
    d
}

/// One promoted command as a registry command.
pub struct Tool<P: Promoted> {
    command: &'static P,
    spec: &'static CommandSpec,
}

impl<P: Promoted> Tool<P> {
    /// The registry command for `command`; its spec is built once and lives for the process.
    pub fn new(command: &'static P) -> Tool<P> {
        let name = command.name();
        let (typed_args, typed_stdout) = command.typed_example();
        let examples = vec![Example {
            description: leak(format!("{name} as a typed tool")),
            args: typed_args,
            files: FIXTURE,
            expect: Some(leak(
                json!({ "stdout": typed_stdout, "exitCode": command.typed_example_status() })
                    .to_string(),
            )),
            ..Example::EMPTY
        }];
        let risk = command.max_risk();
        let mut spec = CommandSpec::new(
            leak(format!("shell.{name}")),
            leak(format!("Shell: {name}")),
            "Shell",
            leak(description(command)),
        )
        .tool_name(name)
        .long()
        .examples(Box::leak(examples.into_boxed_slice()))
        .touches(if risk.runs {
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
        if risk.runs {
            spec = spec.open_world();
        }
        Tool {
            command,
            spec: Box::leak(Box::new(spec)),
        }
    }
}

impl<P: Promoted> Tool<P> {
    /// The command's own checks as INVALID_ARGUMENTS, with its shell form and examples.
    fn validated(&self, args: &P::Args) -> Result<(), CommandError> {
        let name = self.command.name();
        let Err(issues) = self.command.validate(args) else {
            return Ok(());
        };
        let first = &issues[0];
        Err(CommandError::new(
            ErrorCode::InvalidArguments,
            format!(
                "invalid arguments for {name} at {}: {}",
                first.path, first.message
            ),
        )
        .with_details(json!({
            "error": "invalid_arguments",
            "command": name,
            "issues": issues,
            "usage": self.command.usage(),
            "examples": self.command.cli_examples(),
        }))
        .with_suggestion(format!("shell form: {}", self.command.usage())))
    }
}

impl<P: Promoted> Command<Services> for Tool<P> {
    type Args = P::Args;
    type Output = RunOutput;

    fn programs(&self, s: &Services, _a: &P::Args) -> Vec<String> {
        let name = self.command.name();
        let mut v = vec![name.to_string()];
        if name == "build" {
            v.extend(crate::runner::programs::of_build(s.root_path()));
        }
        v
    }

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn annotations(&self, args: &P::Args) -> Annotations {
        crate::shell::risk_annotations(self.command.risk(args))
    }

    fn annotations_in(&self, services: &Services, args: &P::Args) -> Annotations {
        crate::shell::confined(services, self.annotations(args))
    }

    /// Arguments the command rejects are refused before anyone is asked to approve them.
    fn precheck(
        &self,
        _services: &Services,
        _source: &ultra_protocol::Source,
        args: &P::Args,
    ) -> Result<(), CommandError> {
        self.validated(args)
    }

    fn preview(&self, services: &Services, args: &P::Args) -> Option<String> {
        self.command.preview(args, services.shell_root())
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: P::Args) -> Result<RunOutput, CommandError> {
        self.validated(&args)?;
        let (fs, hook) = crate::shell_writes::shell_fs(cx, crate::shell_writes::SHELL_TIME_LIMIT);
        let charged = fs.charge();
        let mut out = Capped::new(crate::shell::DEFAULT_MAX_OUTPUT);
        let mut err = Capped::new(crate::shell::DEFAULT_MAX_OUTPUT);
        let cwd = ultra_workspace::RelPath::default();
        let vars = std::collections::BTreeMap::new();
        let status = {
            let mut stdin = std::io::empty();
            let mut io = ultra_shell::run::Io {
                stdin: &mut stdin,
                stdout: &mut out,
                stderr: &mut err,
            };
            let shell_cx = ultra_shell::run::Cx {
                fs: &fs,
                cwd: &cwd,
                vars: &vars,
            };
            self.command.execute(args, &mut io, &shell_cx)
        };
        drop((charged, fs));
        Ok(RunOutput {
            stdout: String::from_utf8_lossy(&out.buf).into_owned(),
            stderr: String::from_utf8_lossy(&err.buf).into_owned(),
            exit_code: status,
            truncated: out.truncated || err.truncated,
            cwd: String::new(),
            errors: crate::shell_writes::finish(cx, &hook),
        })
    }
}

#[cfg(test)]
mod tests {
    //! A promoted command declared outside the shell crate: one `impl Promoted` gives a typed
    //! tool and a shell command that pipes like any built-in.

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::{Value, json};
    use ultra_shell::promoted::{Issue, Promoted, Risk};
    use ultra_shell::run::{Cx, Env, Example, Io, Shell};

    struct Hello;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct HelloArgs {
        /// Who to greet.
        name: String,
    }

    impl Promoted for Hello {
        type Args = HelloArgs;
        fn name(&self) -> &'static str {
            "hello"
        }
        fn summary(&self) -> &'static str {
            "Greet someone."
        }
        fn usage(&self) -> &'static str {
            "hello NAME"
        }
        fn cli_examples(&self) -> &'static [&'static str] {
            &["hello world"]
        }
        fn example(&self) -> Example {
            Example {
                args: &["world"],
                stdin: "",
                stdout: "hello, world\n",
                status: 0,
            }
        }
        fn typed_example(&self) -> (&'static str, &'static str) {
            (r#"{"name": "world"}"#, "hello, world\n")
        }
        fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
            match args {
                [name] => Ok(json!({ "name": name })),
                _ => Err(vec![Issue::new("name", "missing_field", "one NAME")]),
            }
        }
        fn risk(&self, _args: &HelloArgs) -> Risk {
            Risk::READ
        }
        fn execute(&self, args: HelloArgs, io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
            let _ = writeln!(io.stdout, "hello, {}", args.name);
            0
        }
    }

    #[test]
    fn a_command_declared_above_the_shell_is_a_tool_and_a_shell_command() {
        static HELLO: Hello = Hello;
        let mut r = ultra_core::Registry::new();
        r.register(super::Tool::new(&HELLO)).expect("registers");
        let info = r.get("shell.hello").expect("typed tool");
        assert_eq!(info.tool_name.as_deref(), Some("hello"));
        assert!(
            info.args["properties"].get("name").is_some(),
            "{}",
            info.args
        );
        assert!(info.description.contains("hello world"));

        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::sync::Arc::new(
            ultra_workspace::Root::open(dir.path(), Default::default()).expect("root"),
        );
        // What `shell_commands` builds from the `external` list.
        let mut side = super::ShellSide(Vec::new());
        ultra_shell::promoted::Visitor::visit(&mut side, &HELLO);
        let extra: &'static [&'static dyn ultra_shell::run::Builtin] = side.0.leak();
        let shell =
            Shell::new(ultra_shell::run::fs::ShellFs::new(root, false)).with_commands(extra);
        let mut env = Env::new(&Default::default());
        let script = ultra_shell::parse("hello agents | tr a-z A-Z; hello").expect("parses");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = shell.run(&script, &mut env, &mut std::io::empty(), &mut out, &mut err);
        assert_eq!(String::from_utf8_lossy(&out), "HELLO, AGENTS\n");
        assert_eq!(status, 1);
        assert!(String::from_utf8_lossy(&err).contains("invalid_arguments"));
    }
}
