//! The typed-tool side of the shell's promoted commands (seed 004): each becomes a registry
//! command `shell.<name>` with tool name `<name>`, its schema derived from the command's
//! argument type. A call is validated and then runs the same `execute` as the shell path,
//! from the workspace root, with empty stdin.

use serde_json::json;
use ultra_core::command::{CommandSpec, Example};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::command::{Builtin, Commands};
use ultra_shell::promoted::{Builtins, Promoted, Visitor};

use crate::shell_call::{
    DEFAULT_MAX_OUTPUT, FIXTURE, RunOutput, confined, leak, risk_annotations, run_one, with_risk,
};
use ultra_services::Services;

/// Promoted commands declared in this layer, because they need what the shell crate
/// cannot see (libgit2, the runner). Listing one makes it a typed tool and a shell command
/// at once; nothing else changes.
pub fn external(v: &mut impl Visitor) {
    v.visit(&crate::git::shell::Git);
    v.visit(&crate::runner::build::Build);
}

/// The shell side of [`external`], built once.
pub fn shell_commands() -> &'static [&'static Builtin] {
    static COMMANDS: std::sync::OnceLock<Vec<&'static Builtin>> = std::sync::OnceLock::new();
    COMMANDS.get_or_init(|| {
        let mut c = Builtins(Vec::new());
        external(&mut c);
        c.0
    })
}

/// Every command the shell runs: [`external`]'s, then the shell crate's own (the table
/// `ultra sh` and the `shell` tool both build their shell with).
pub fn shell_table() -> &'static Commands {
    static TABLE: std::sync::OnceLock<Commands> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| ultra_shell::commands(shell_commands()))
}

/// The shell the `shell` tool and `ultra sh` run scripts in, over `fs`.
pub fn shell(fs: ultra_shell::run::fs::ShellFs) -> ultra_shell::run::Shell {
    ultra_shell::run::Shell::new(fs, shell_table().clone())
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

/// The description of a promoted tool: its summary and two shell examples (the `shell`
/// tool's description carries every promoted command's usage line; the input schema, the
/// typed form).
pub fn description<P: Promoted>() -> String {
    let mut d = P::SPEC.summary.to_string();
    let examples = &P::SPEC.cli_examples[..P::SPEC.cli_examples.len().min(2)];
    if !examples.is_empty() {
        d.push_str("\nIn `shell`: ");
        d.push_str(&examples.join(" ; "));
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
        let name = P::SPEC.name;
        let typed = P::SPEC.typed_example;
        let examples = vec![Example {
            description: leak(format!("{name} as a typed tool")),
            args: typed.args,
            files: FIXTURE,
            expect: Some(leak(
                json!({ "stdout": typed.stdout, "exitCode": typed.status }).to_string(),
            )),
            ..Example::EMPTY
        }];
        let spec = CommandSpec::new(
            leak(format!("shell.{name}")),
            leak(format!("Shell: {name}")),
            "Shell",
            leak(description::<P>()),
        )
        .render(ultra_core::render::output)
        .tool_name(name)
        .long()
        .examples(Box::leak(examples.into_boxed_slice()));
        let spec = with_risk(spec, P::SPEC.max_risk);
        Tool {
            command,
            spec: Box::leak(Box::new(spec)),
        }
    }
}

impl<P: Promoted> Tool<P> {
    /// The command's own checks as INVALID_ARGUMENTS, with its shell form and examples.
    fn validated(&self, args: &P::Args) -> Result<(), CommandError> {
        let name = P::SPEC.name;
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
            "usage": P::SPEC.usage,
            "examples": P::SPEC.cli_examples,
        }))
        .with_suggestion(format!("shell form: {}", P::SPEC.usage)))
    }
}

impl<P: Promoted> Command<Services> for Tool<P> {
    type Args = P::Args;
    type Output = RunOutput;

    fn programs(&self, s: &Services, _a: &P::Args) -> Vec<String> {
        let name = P::SPEC.name;
        let mut v = vec![name.to_string()];
        if name == "build" {
            v.extend(ultra_runner::programs::of_build(s.root_path()));
        }
        v
    }

    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn annotations(&self, args: &P::Args) -> Annotations {
        risk_annotations(self.command.risk(args))
    }

    fn annotations_in(&self, services: &Services, args: &P::Args) -> Annotations {
        confined(services, self.annotations(args))
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
        let cwd = ultra_workspace::RelPath::default();
        let vars = std::collections::BTreeMap::new();
        Ok(run_one(
            cx,
            &cwd,
            &vars,
            Vec::new(),
            DEFAULT_MAX_OUTPUT,
            |io, shell_cx| self.command.execute(args, io, shell_cx),
        ))
    }
}

#[cfg(test)]
mod tests {
    //! A promoted command declared outside the shell crate: one `impl Promoted` gives a typed
    //! tool and a shell command that pipes like any built-in.

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::{Value, json};
    use ultra_shell::promoted::{Issue, Promoted, PromotedSpec, Risk, TypedExample};
    use ultra_shell::run::{Cx, Env, Example, Io};

    struct Hello;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct HelloArgs {
        /// Who to greet.
        name: String,
    }

    impl Promoted for Hello {
        type Args = HelloArgs;
        const SPEC: PromotedSpec = PromotedSpec {
            name: "hello",
            summary: "Greet someone.",
            usage: "hello NAME",
            cli_examples: &["hello world"],
            example: Example {
                args: &["world"],
                stdin: "",
                stdout: "hello, world\n",
                status: 0,
            },
            typed_example: TypedExample {
                args: r#"{"name": "world"}"#,
                stdout: "hello, world\n",
                status: 0,
            },
            max_risk: Risk::OVERWRITE,
        };
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
        let mut side = ultra_shell::promoted::Builtins(Vec::new());
        ultra_shell::promoted::Visitor::visit(&mut side, &HELLO);
        let extra: &'static [&'static ultra_shell::command::Builtin] = side.0.leak();
        let shell = ultra_shell::shell(ultra_shell::run::fs::ShellFs::new(root, false), extra);
        let mut env = Env::new(&Default::default());
        let script = ultra_shell::parse("hello agents | tr a-z A-Z; hello").expect("parses");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = shell.run(&script, &mut env, &mut std::io::empty(), &mut out, &mut err);
        assert_eq!(String::from_utf8_lossy(&out), "HELLO, AGENTS\n");
        assert_eq!(status, 1);
        assert!(String::from_utf8_lossy(&err).contains("invalid_arguments"));
    }
}
