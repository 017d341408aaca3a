//! Seed 001's `run_command`: a command line, parsed and judged stage by stage
//! ([`policy`]), then run as argv (no shell in between: what was judged is what runs) in
//! the workspace root, with a scrubbed environment, its own process group (killed whole on
//! timeout), capped output, and the exit code and duration in the answer.

pub mod build;
pub mod test_runner;
pub mod watch;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};
pub(crate) use ultra_runner::sandbox;
use ultra_runner::{RunOutput, policy, programs};
use ultra_runner::{Sandbox, execute, limits};

use policy::{Line, Rules, Verdict};
use ultra_services::Services;

/// Register `run.command` and `run.tests`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(RunCommand)?;
    r.register(test_runner::RunTests)?;
    r.register(watch::TestWatchList)?;
    r.register(watch::StopTestWatch)?;
    Ok(())
}

const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// Arguments of `run.command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunArgs {
    /// The command line: plain words joined by `&&`, `||`, `;` and `|` (no variables,
    /// globs or redirections).
    pub command: String,
    /// Milliseconds before the whole process group is killed (default 30000, at most
    /// 600000).
    pub timeout: Option<u64>,
}

/// `run.command`.
pub struct RunCommand;

fn rules(services: &Services) -> Result<Rules, CommandError> {
    Rules::from_config(&services.config.run).map_err(|e| {
        CommandError::new(
            ErrorCode::InvalidArguments,
            format!("ultra.config.json: {e}"),
        )
        .with_suggestion("fix the rule or its examples in the `run` section")
    })
}

fn judged(services: &Services, a: &RunArgs) -> Result<(Line, Verdict), CommandError> {
    let refuse = |why: String| {
        CommandError::new(ErrorCode::PolicyDenied, format!("run_command refuses `{}`: {why}", a.command))
            .with_details(serde_json::json!({ "command": a.command }))
            .with_suggestion("run plain commands (argv words joined by && || ; |); for file work use the shell, write or edit tools")
    };
    let line = policy::parse(&a.command).map_err(refuse)?;
    let verdict = rules(services)?.judge(&line);
    if let Verdict::Deny(why) = &verdict {
        return Err(refuse(why.clone()));
    }
    Ok((line, verdict))
}

impl Command<Services> for RunCommand {
    type Args = RunArgs;
    type Output = RunOutput;

    const SPEC: CommandSpec = CommandSpec::new(
        "run.command",
        "Run: Command",
        "Run",
        "Run a command line in the workspace root (seed 001's run_command) and return stdout, stderr, exitCode and duration. Words are plain (no $variables, globs or redirections); stages join with &&, || , ; and |. Every stage is judged: denied ones (rm -rf, sudo, git push --force, ...) are refused, allow-listed ones (npm, node, read-only git, tsc, vitest, jest, eslint, ...) run at once, anything else waits for a person who sees the full argv. Timeout 30 s by default (max 600 s) kills the whole process group.",
    )
    .render(ultra_core::render::output)
    .touches(Touches::PROCESSES.and(Touches::WRITE))
    .tool_name("run_command")
    .open_world()
    .long()
    .examples(&[
        Example {
            description: "A denied command is refused without asking anyone",
            args: r#"{"command": "rm -rf build"}"#,
            error: Some("POLICY_DENIED"),
            ..Example::EMPTY
        },
        Example {
            description: "Variables are not expanded, so they are refused",
            args: r#"{"command": "echo $HOME"}"#,
            error: Some("POLICY_DENIED"),
            ..Example::EMPTY
        },
    ]);

    fn programs(&self, _s: &Services, a: &RunArgs) -> Vec<String> {
        programs::in_line(&a.command)
    }

    fn precheck(
        &self,
        services: &Services,
        _source: &ultra_protocol::Source,
        a: &RunArgs,
    ) -> Result<(), CommandError> {
        judged(services, a).map(|_| ())
    }

    /// Allow-listed lines are ordinary writes; the rest reach outside the workspace, which
    /// the default policy puts to a person.
    /// Allow-listed lines run at once in the sandbox (they still run the project's code:
    /// `npm test`); without a sandbox, or for any other line, a person is asked.
    fn annotations_in(&self, services: &Services, a: &RunArgs) -> Annotations {
        match judged(services, a) {
            Ok((_, Verdict::Allow)) if sandbox::offered(&services.config.run) => {
                Annotations::default()
            }
            _ => RunCommand::SPEC.annotations,
        }
    }

    fn preview(&self, _services: &Services, a: &RunArgs) -> Option<String> {
        let line = policy::parse(&a.command).ok()?;
        let argv: Vec<String> = line.stages().map(|s| format!("  {:?}", s.argv)).collect();
        Some(format!("Run in the workspace root:\n{}\n", argv.join("\n")))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: RunArgs) -> Result<RunOutput, CommandError> {
        // Policy saw the verdict through `annotations_in`: a line that is not allow-listed
        // reaches this point only if a person approved it, a rule in the config allows it,
        // or auto-apply is on.
        // What a person approved runs as approved; what an agent runs unasked is confined.
        let (line, verdict) = judged(cx.services, &a)?;
        let (timeout, cap) = limits(&cx.services.config.run, a.timeout, DEFAULT_TIMEOUT_MS);
        let sandbox = agent_sandbox(cx).filter(|_| verdict == Verdict::Allow);
        execute(
            cx.services.root_path(),
            &line,
            timeout,
            cap,
            None,
            sandbox.as_ref(),
        )
    }
}

/// The sandbox for an agent's call that reached its handler without a person (only those
/// can, when a sandbox is offered; see `annotations_in`). People's calls run unconfined.
pub(crate) fn agent_sandbox(cx: &Cx<'_, Services>) -> Option<Arc<Sandbox>> {
    if ultra_services::util::is_human(cx) {
        return None;
    }
    sandbox::usable(&cx.services.config.run, cx.services.root_path())
}
