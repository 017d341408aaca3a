//! The executor's pipeline: look-up, arguments, sources, policy, confirmations, validators,
//! panics and the audit log, with small test commands.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::audit::AuditLog;
use ultra_core::command::{CommandSpec, Example, FileOperation, FileOperationKind, Touches};
use ultra_core::confirm::Decision as Answer;
use ultra_core::events::EventBus;
use ultra_core::executor::ExecutorParts;
use ultra_core::policy::{CommandRule, Decision, PolicyConfig};
use ultra_core::registry::RegistryError;
use ultra_core::validator::{
    FileReader, Severity, ValidationContext, ValidationResult, Validator, ValidatorFailure,
    Validators, Violation,
};
use ultra_core::{Command, Cx, Executor, Host, Registry};
use ultra_protocol::{CommandError, ErrorCode, Source, SourceKind};

struct TestHost;

impl Host for TestHost {
    fn workspace_root(&self) -> PathBuf {
        PathBuf::from("/nonexistent")
    }
    fn active_file(&self) -> Option<String> {
        None
    }
    fn file_reader(&self) -> FileReader {
        Arc::new(|_| None)
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    text: String,
    #[serde(default)]
    nested: Option<Nested>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Nested {
    #[allow(dead_code)]
    n: u32,
}

#[derive(Serialize, JsonSchema)]
struct EchoOut {
    text: String,
}

struct Echo;
static ECHO: CommandSpec = CommandSpec::new("test.echo", "Echo", "Test", "Echo text back.")
    .touches(Touches::NOTHING)
    .read_only()
    .aliases(&["echo"])
    .examples(&[Example {
        description: "echo",
        args: r#"{"text": "hi"}"#,
        ..Example::EMPTY
    }]);

impl Command<TestHost> for Echo {
    type Args = EchoArgs;
    type Output = EchoOut;
    fn spec(&self) -> &'static CommandSpec {
        &ECHO
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, args: EchoArgs) -> Result<EchoOut, CommandError> {
        let _ = args.nested;
        Ok(EchoOut { text: args.text })
    }
}

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    path: String,
    #[serde(default)]
    content: String,
}

struct Remove;
static REMOVE: CommandSpec =
    CommandSpec::new("test.remove", "Remove", "Test", "Pretend to delete a file.")
        .touches(Touches::WRITE)
        .destructive();

impl Command<TestHost> for Remove {
    type Args = PathArgs;
    type Output = Value;
    fn spec(&self) -> &'static CommandSpec {
        &REMOVE
    }
    fn file_operation(&self, args: &PathArgs) -> Option<FileOperation> {
        Some(FileOperation {
            kind: FileOperationKind::Delete,
            source: Some(args.path.clone()),
            target: None,
        })
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, args: PathArgs) -> Result<Value, CommandError> {
        Ok(json!({ "removed": args.path }))
    }
}

struct Write;
static WRITE: CommandSpec =
    CommandSpec::new("test.write", "Write", "Test", "Pretend to write content.")
        .touches(Touches::WRITE);

impl Command<TestHost> for Write {
    type Args = PathArgs;
    type Output = Value;
    fn spec(&self) -> &'static CommandSpec {
        &WRITE
    }
    fn run(&self, cx: &mut Cx<'_, TestHost>, args: PathArgs) -> Result<Value, CommandError> {
        let content = args.content.clone();
        cx.check_content(&args.path, &|| content.clone(), &|| Some(String::new()))?;
        Ok(json!({ "written": args.path }))
    }
}

struct Boom;
static BOOM: CommandSpec =
    CommandSpec::new("test.boom", "Boom", "Test", "Panics.").touches(Touches::NOTHING);

impl Command<TestHost> for Boom {
    type Args = Value;
    type Output = Value;
    fn spec(&self) -> &'static CommandSpec {
        &BOOM
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, _args: Value) -> Result<Value, CommandError> {
        panic!("handler exploded")
    }
}

/// Blocks commands and content containing "forbidden"; errors on anything containing "crash".
struct Picky;

impl Validator for Picky {
    fn id(&self) -> &str {
        "picky"
    }
    fn validate_command(
        &self,
        _c: &str,
        args: &Value,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        let s = args.to_string();
        if s.contains("crash") {
            return Err(ValidatorFailure {
                validator: "picky".into(),
                message: "it crashed".into(),
            });
        }
        Ok(ValidationResult::proceed())
    }
    fn checks_content(&self) -> bool {
        true
    }
    fn validate_content(
        &self,
        path: &str,
        content: &str,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        if content.contains("forbidden") {
            return Ok(ValidationResult {
                proceed: false,
                violations: vec![Violation {
                    rule: "no-forbidden".into(),
                    message: format!("{path} says forbidden"),
                    severity: Severity::Error,
                    location: None,
                    matched_content: Some("forbidden".into()),
                }],
                ..Default::default()
            });
        }
        Ok(ValidationResult::proceed())
    }
    fn validate_file_operation(
        &self,
        op: &FileOperation,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        if op.source.as_deref() == Some("keep.txt") {
            return Ok(ValidationResult {
                proceed: false,
                ..Default::default()
            });
        }
        Ok(ValidationResult::proceed())
    }
}

fn registry() -> Registry<TestHost> {
    let mut r = Registry::new();
    r.register(Echo).unwrap();
    r.register(Remove).unwrap();
    r.register(Write).unwrap();
    r.register(Boom).unwrap();
    r
}

fn executor(
    policy: PolicyConfig,
    validators: Validators,
    audit: AuditLog,
) -> Arc<Executor<TestHost>> {
    Arc::new(Executor::new(ExecutorParts {
        registry: registry(),
        services: Arc::new(TestHost),
        policy,
        validators,
        audit,
        events: EventBus::default(),
        security: Default::default(),
        deferred: None,
    }))
}

fn plain() -> Arc<Executor<TestHost>> {
    executor(
        PolicyConfig::default(),
        Validators::default(),
        AuditLog::disabled(),
    )
}

fn ai() -> Source {
    Source::new(SourceKind::Ai)
}

fn code(r: &ultra_protocol::CommandResult) -> ErrorCode {
    r.error
        .as_ref()
        .map(|e| e.code)
        .unwrap_or(ErrorCode::Unknown)
}

/// A command whose when-clause does not parse.
struct BadWhen;
static BAD_WHEN: CommandSpec = CommandSpec::new("test.badWhen", "Bad", "Test", "Never registers.")
    .touches(Touches::NOTHING)
    .when("editorFocus &&");

impl Command<TestHost> for BadWhen {
    type Args = EchoArgs;
    type Output = EchoOut;
    fn spec(&self) -> &'static CommandSpec {
        &BAD_WHEN
    }
    fn run(&self, _cx: &mut Cx<'_, TestHost>, args: EchoArgs) -> Result<EchoOut, CommandError> {
        Ok(EchoOut { text: args.text })
    }
}

#[test]
fn a_when_clause_that_does_not_parse_is_refused_at_registration() {
    let mut r = registry();
    let e = r.register(BadWhen).expect_err("refused");
    assert!(
        matches!(&e, RegistryError::BadWhen { command, error } if command == "test.badWhen" && error.offset == 14),
        "{e}"
    );
}

#[test]
fn duplicate_ids_and_aliases_are_refused() {
    let mut r = registry();
    assert_eq!(
        r.register(Echo),
        Err(RegistryError::Duplicate("test.echo".into()))
    );
    assert!(r.add_alias("echo", "test.remove").is_err());
    assert!(r.add_alias("e", "test.nothing").is_err());
    r.add_alias("e", "test.echo").unwrap();
    assert_eq!(r.resolve("e"), Some("test.echo"));
}

#[tokio::test]
async fn unknown_command_names_the_closest() {
    let r = plain().execute("test.ecko", json!({}), ai()).await;
    assert_eq!(code(&r), ErrorCode::UnknownCommand);
    let closest = &r.error.unwrap().details.unwrap()["closest"];
    assert_eq!(closest[0], "test.echo");
}

#[tokio::test]
async fn invalid_arguments_carry_pointer_usage_and_examples() {
    let r = plain()
        .execute("echo", json!({"text": "x", "nested": {"n": "seven"}}), ai())
        .await;
    assert_eq!(code(&r), ErrorCode::InvalidArguments);
    let d = r.error.unwrap().details.unwrap();
    assert_eq!(d["issues"][0]["path"], "/nested/n");
    assert_eq!(d["issues"][0]["code"], "invalid_type");
    assert!(d["usage"].as_str().unwrap().starts_with("test.echo {"));
    assert_eq!(d["examples"][0]["text"], "hi");
    let ok = plain().execute("echo", json!({"text": "x"}), ai()).await;
    assert_eq!(ok.data.unwrap()["text"], "x");
}

#[tokio::test]
async fn policy_deny_and_ask_without_approver() {
    let mut policy = PolicyConfig::default();
    policy
        .commands
        .insert("test.echo".into(), CommandRule::All(Decision::Deny));
    let exec = executor(policy, Validators::default(), AuditLog::disabled());
    assert_eq!(
        code(&exec.execute("test.echo", json!({"text": "x"}), ai()).await),
        ErrorCode::PolicyDenied
    );
    assert!(
        exec.execute(
            "test.echo",
            json!({"text": "x"}),
            Source::new(SourceKind::Human)
        )
        .await
        .success
    );
    let r = exec
        .execute("test.remove", json!({"path": "a"}), ai())
        .await;
    assert_eq!(code(&r), ErrorCode::ConfirmationRequired);
    assert!(
        exec.execute(
            "test.remove",
            json!({"path": "a"}),
            Source::new(SourceKind::Cli)
        )
        .await
        .success
    );
}

#[tokio::test]
async fn ask_is_approved_denied_or_times_out() {
    let policy = PolicyConfig {
        confirm_timeout_ms: 200,
        ..PolicyConfig::default()
    };
    let exec = executor(policy, Validators::default(), AuditLog::disabled());
    let _approver = exec.attach_approver();
    for (answer, expect) in [
        (Some(Answer::Approved), None),
        (Some(Answer::Denied), Some(ErrorCode::ConfirmationDenied)),
        (None, Some(ErrorCode::ConfirmationTimeout)),
    ] {
        let e2 = exec.clone();
        let call =
            tokio::spawn(
                async move { e2.execute("test.remove", json!({"path": "a"}), ai()).await },
            );
        let mut waited = 0;
        while exec.confirmations().list().is_empty() && waited < 100 {
            tokio::time::sleep(Duration::from_millis(5)).await;
            waited += 1;
        }
        let pending = exec.confirmations().list();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].command, "test.remove");
        if let Some(a) = answer {
            assert!(exec.confirmations().resolve(&pending[0].id, a));
        }
        let r = call.await.unwrap();
        assert_eq!(r.error.map(|e| e.code), expect);
        assert!(exec.confirmations().list().is_empty());
    }
}

#[tokio::test]
async fn validators_block_and_fail_closed_for_agents_only() {
    let mut v = Validators::default();
    v.register(Arc::new(Picky)).unwrap();
    let exec = executor(PolicyConfig::default(), v, AuditLog::disabled());
    let blocked = exec
        .execute(
            "test.write",
            json!({"path": "a.txt", "content": "this is forbidden"}),
            ai(),
        )
        .await;
    assert_eq!(code(&blocked), ErrorCode::ContentValidationFailed);
    let fb = blocked.feedback.unwrap();
    assert_eq!(fb.violations[0].rule, "no-forbidden");
    assert!(
        exec.execute(
            "test.write",
            json!({"path": "a.txt", "content": "fine"}),
            ai()
        )
        .await
        .success
    );
    // People are not validated.
    assert!(
        exec.execute(
            "test.write",
            json!({"path": "a.txt", "content": "forbidden"}),
            Source::new(SourceKind::Human)
        )
        .await
        .success
    );
    // A validator error blocks an agent's change (fail closed)...
    let crashed = exec
        .execute(
            "test.write",
            json!({"path": "crash.txt", "content": "x"}),
            ai(),
        )
        .await;
    assert_eq!(code(&crashed), ErrorCode::ValidatorError);
    // ...while a read goes on: a validator that cannot run must not leave agents blind.
    let read = exec
        .execute("test.echo", json!({"text": "crash"}), ai())
        .await;
    assert!(read.success, "{:?}", read.error);
    // File operations.
    let mut policy = PolicyConfig::default();
    policy
        .commands
        .insert("test.remove".into(), CommandRule::All(Decision::Allow));
    let mut v = Validators::default();
    v.register(Arc::new(Picky)).unwrap();
    let exec = executor(policy, v, AuditLog::disabled());
    assert_eq!(
        code(
            &exec
                .execute("test.remove", json!({"path": "keep.txt"}), ai())
                .await
        ),
        ErrorCode::FileOperationValidationFailed
    );
    assert!(
        exec.execute("test.remove", json!({"path": "other.txt"}), ai())
            .await
            .success
    );
}

/// Refuses every call by its command, when it says it judges commands; and, like Picky,
/// content that says "forbidden".
struct Strict {
    judges: bool,
}

impl Validator for Strict {
    fn id(&self) -> &str {
        "strict"
    }
    fn checks_commands(&self) -> bool {
        self.judges
    }
    fn validate_command(
        &self,
        _c: &str,
        _args: &Value,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        Ok(ValidationResult {
            proceed: false,
            ..Default::default()
        })
    }
    fn checks_content(&self) -> bool {
        true
    }
    fn validate_content(
        &self,
        _path: &str,
        content: &str,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        Picky.validate_content("", content, cx)
    }
}

#[tokio::test]
async fn a_validator_that_judges_no_commands_is_not_asked_but_still_checks_writes() {
    for judges in [true, false] {
        let mut v = Validators::default();
        v.register(Arc::new(Strict { judges })).unwrap();
        let exec = executor(PolicyConfig::default(), v, AuditLog::disabled());
        let read = exec.execute("test.echo", json!({"text": "hi"}), ai()).await;
        let write = |content: &str| {
            exec.execute(
                "test.write",
                json!({"path": "a.txt", "content": content}),
                ai(),
            )
        };
        let (fine, forbidden) = (write("fine").await, write("forbidden").await);
        if judges {
            assert_eq!(code(&read), ErrorCode::ValidationFailed);
            assert_eq!(code(&fine), ErrorCode::ValidationFailed);
        } else {
            assert!(read.success, "{:?}", read.error);
            assert!(fine.success, "{:?}", fine.error);
            // Not asked about commands, it still sees what a write would leave.
            assert_eq!(code(&forbidden), ErrorCode::ContentValidationFailed);
        }
    }
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_executor_lives_on() {
    let exec = plain();
    let r = exec.execute("test.boom", json!({}), ai()).await;
    assert_eq!(code(&r), ErrorCode::InternalError);
    assert!(r.error.unwrap().message.contains("handler exploded"));
    assert!(
        exec.execute("echo", json!({"text": "still here"}), ai())
            .await
            .success
    );
}

#[tokio::test]
async fn audit_log_records_every_call_without_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/audit.ndjson");
    let exec = executor(
        PolicyConfig::default(),
        Validators::default(),
        AuditLog::open(&path).unwrap(),
    );
    let mut src = ai();
    src.agent_id = Some("claude".into());
    exec.execute("echo", json!({"text": "secret-token-value"}), src)
        .await;
    exec.execute("nope", json!({}), ai()).await;
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["command"], "test.echo");
    assert_eq!(lines[0]["source"]["agentId"], "claude");
    assert_eq!(lines[0]["outcome"], "ok");
    assert_eq!(lines[1]["outcome"], "UNKNOWN_COMMAND");
    assert!(lines[0]["argsDigest"].as_str().unwrap().len() == 32);
    assert!(!text.contains("secret-token-value"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[tokio::test]
async fn events_announce_executed_commands() {
    let exec = plain();
    let mut rx = exec.events().subscribe();
    exec.execute("echo", json!({"text": "x"}), ai()).await;
    let ev = rx.recv().await.unwrap();
    assert_eq!(ev.event, "command.executed");
    assert_eq!(ev.data["command"], "test.echo");
    assert_eq!(ev.source.unwrap().kind, SourceKind::Ai);
}

/// A transport that writes its own replies gets a read-only call's record to write after
/// the reply (`execute_then`); a call that changes something is recorded before it
/// returns. A record nobody writes explicitly is written when dropped, never lost.
#[tokio::test]
async fn a_read_only_calls_record_waits_for_its_reply_and_a_write_never_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.ndjson");
    let exec = executor(
        PolicyConfig::default(),
        Validators::default(),
        AuditLog::open(&path).unwrap(),
    );
    let mut rx = exec.events().subscribe();
    let lines = || std::fs::read_to_string(&path).unwrap_or_default();

    let (r, after) = exec
        .execute_then("test.echo", json!({"text": "x"}), ai())
        .await;
    assert!(r.success);
    let after = after.expect("a read-only call's record waits");
    assert_eq!(lines(), "", "nothing written before the reply is sent");
    assert!(rx.try_recv().is_err(), "no event before the reply either");
    after.record();
    assert!(lines().contains("\"command\":\"test.echo\""), "{}", lines());
    assert_eq!(rx.try_recv().unwrap().data["command"], "test.echo");

    let (r, after) = exec
        .execute_then("test.write", json!({"path": "a.txt", "content": "c"}), ai())
        .await;
    assert!(r.success, "{:?}", r.error);
    assert!(after.is_none(), "a write is recorded before its reply");
    assert_eq!(lines().lines().count(), 2);
    assert!(lines().contains("\"command\":\"test.write\""));

    // Refused calls of either kind follow the same rule; dropping records.
    let (r, after) = exec
        .execute_then("test.echo", json!({"bad": 1}), ai())
        .await;
    assert!(!r.success);
    drop(after);
    assert_eq!(lines().lines().count(), 3);
    assert!(lines().contains("INVALID_ARGUMENTS"));
    // An unknown command has no declaration to say it reads only: recorded at once.
    let (_, after) = exec.execute_then("nope", json!({}), ai()).await;
    assert!(after.is_none());
    assert_eq!(lines().lines().count(), 4);
}
