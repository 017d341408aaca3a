//! Seed 001's `run_tests`: find the project's test runner (seed 001's order for JavaScript,
//! then cargo, pytest and go), run it as argv like `run_command` does, and read the pass,
//! fail and skip counts from its summary line (`ultra_runner::test_runner`); with `watch`,
//! keep re-running it in the background (`ultra_runner::watch`).

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, ErrorCode};

pub use ultra_runner::test_runner::{Runner, Stats, TestRun};
use ultra_runner::test_runner::{argv, detect, run_once};

use ultra_services::Services;

const DEFAULT_TIMEOUT_MS: u64 = 300_000;

/// Arguments of `run.tests`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TestArgs {
    /// A test file or directory (default: all tests).
    pub path: Option<String>,
    /// Only tests whose name matches.
    pub filter: Option<String>,
    /// Milliseconds before the run is killed (default 300000, at most 600000).
    pub timeout: Option<u64>,
    /// Keep re-running the tests whenever a source file changes (build output,
    /// dependencies and ignored files do not count); the answer carries the watch's id.
    // Each run is announced as `tests.started` and `tests.finished` events;
    // `test_watches` shows each watch's latest run, `stop_test_watch` ends it, and so does
    // the end of the caller's session (the tool's description says so too).
    #[serde(default)]
    pub watch: bool,
}

/// `run.tests`.
pub struct RunTests;

impl Command<Services> for RunTests {
    type Args = TestArgs;
    type Output = TestRun;

    fn programs(&self, s: &Services, _a: &TestArgs) -> Vec<String> {
        ultra_runner::programs::of_tests(s.root_path())
    }

    const SPEC: CommandSpec = CommandSpec::new(
        "run.tests",
        "Run: Tests",
        "Run",
        "Run the project's tests (seed 001's run_tests): vitest, jest, npm test, cargo test, pytest or go test, found from the project's config. path limits the run to a file or directory, filter to matching test names. Returns passed, exitCode, the output and, when the runner's summary is recognised, total/passed/failed/skipped. watch: true keeps re-running the tests on every source change in the background (tests.started / tests.finished events; test_watches, stop_test_watch).",
    )
    .render(ultra_core::render::report)
    .touches(Touches::PROCESSES.and(Touches::WRITE))
    .tool_name("run_tests")
    .long()
    .examples(&[Example {
        description: "No project to test",
        args: "{}",
        error: Some("FILE_NOT_FOUND"),
        ..Example::EMPTY
    }]);

    /// Tests run the project's code (security.md C7): an agent's run goes ahead at once
    /// only in the sandbox; without one, a person is asked.
    fn annotations_in(&self, services: &Services, _a: &TestArgs) -> Annotations {
        if super::sandbox::offered(&services.config.run) {
            RunTests::SPEC.annotations
        } else {
            Annotations {
                open_world: true,
                ..RunTests::SPEC.annotations
            }
        }
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: TestArgs) -> Result<TestRun, CommandError> {
        let root = cx.services.root_path().to_path_buf();
        let runner = detect(&root).ok_or_else(|| {
            CommandError::new(ErrorCode::FileNotFound, "no test runner found in the workspace root")
                .with_suggestion("run_tests looks for vitest or jest configs, package.json, Cargo.toml, pytest config or go.mod; run the tests with run_command instead")
        })?;
        let path = match &a.path {
            Some(p) => Some(
                cx.services
                    .ws()
                    .resolve_entry(p, ultra_services::util::is_human(cx))?
                    .to_string(),
            ),
            None => None,
        };
        let command = argv(runner, path.as_deref(), a.filter.as_deref());
        let (timeout, cap) =
            ultra_runner::limits(&cx.services.config.run, a.timeout, DEFAULT_TIMEOUT_MS);
        let sandbox = super::agent_sandbox(cx);
        let mut first = run_once(
            &root,
            runner,
            &command,
            timeout,
            cap,
            None,
            sandbox.as_ref(),
        )?;
        if a.watch {
            let job = ultra_runner::watch::Job {
                runner,
                command,
                timeout,
                cap,
                source: cx.source.clone(),
                sandbox,
            };
            first.watch_id = Some(cx.services.test_watches().start(
                &root,
                job,
                &first,
                cx.events.clone(),
            )?);
        }
        Ok(first)
    }
}
