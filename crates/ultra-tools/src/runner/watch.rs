//! The commands over `run_tests`' watches (`ultra_runner::watch`): `test_watches` lists
//! them with their latest run, `stop_test_watch` ends one.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};
pub use ultra_runner::watch::{TestWatches, WatchInfo};

use ultra_services::Services;
use ultra_services::util::NoArgs;

/// `run.testWatches`.
pub struct TestWatchList;

impl Command<Services> for TestWatchList {
    type Args = NoArgs;
    type Output = Vec<WatchInfo>;

    const SPEC: CommandSpec = CommandSpec::new(
        "run.testWatches",
        "Run: Test Watches",
        "Run",
        "The test watches running (started by run_tests with watch: true): each one's id, command, how many runs so far, whether one is running now, and the latest finished run with its stats and output.",
    )
    .touches(Touches::READ)
    .tool_name("test_watches")
    .read_only()
    .idempotent()
    .examples(&[Example {
        description: "No watch is running",
        args: "{}",
        expect: Some("[]"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Vec<WatchInfo>, CommandError> {
        Ok(cx.services.test_watches().list())
    }
}

/// Arguments of `run.stopTestWatch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StopArgs {
    /// The watch's id, from run_tests or test_watches.
    pub id: String,
}

/// `run.stopTestWatch`.
pub struct StopTestWatch;

impl Command<Services> for StopTestWatch {
    type Args = StopArgs;
    type Output = serde_json::Value;

    const SPEC: CommandSpec = CommandSpec::new(
        "run.stopTestWatch",
        "Run: Stop Test Watch",
        "Run",
        "End a test watch; a run in progress is killed with its process group.",
    )
    .touches(Touches::PROCESSES)
    .tool_name("stop_test_watch")
    .idempotent()
    .examples(&[Example {
        description: "An unknown watch",
        args: r#"{"id": "watch-9"}"#,
        error: Some("WATCH_NOT_FOUND"),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: StopArgs,
    ) -> Result<serde_json::Value, CommandError> {
        if cx.services.test_watches().stop(&a.id) {
            Ok(json!({ "stopped": a.id }))
        } else {
            Err(CommandError::new(
                ErrorCode::WatchNotFound,
                format!("no test watch `{}`", a.id),
            )
            .with_suggestion("test_watches lists the running ones"))
        }
    }
}
