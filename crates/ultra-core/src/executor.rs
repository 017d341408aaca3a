//! The executor: every call from every surface runs through [`Executor::execute`].
//!
//! Order: look up → parse arguments → source check → policy (allow / ask / deny) →
//! validators (non-human sources) → handler → audit → events. A step that fails returns a
//! structured error and nothing after it runs.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, CommandResult, ErrorCode, Source, SourceKind};

use crate::audit::AuditLog;
use crate::command::Cx;
use crate::confirm::{Confirmations, Decision as Answer, PendingInfo};
use crate::events::EventBus;
use crate::policy::{Decision, PolicyConfig};
use crate::registry::Registry;
use crate::security::SecurityGate;
use crate::validator::{FileReader, ValidationContext, Validators};

/// What the executor needs from the services: enough to build a validation context.
pub trait Host: Send + Sync + 'static {
    /// The workspace root.
    fn workspace_root(&self) -> PathBuf;
    /// The active buffer's path, if any.
    fn active_file(&self) -> Option<String>;
    /// A confined reader of workspace files (open buffers first, then disk).
    fn file_reader(&self) -> FileReader;
    /// The workspace-relative path a user path names as a directory entry (`.`, `..`,
    /// repeated `/` and symlinked directories resolved; a final symlink kept as is), or
    /// `None` when it cannot be resolved (outside the root, invalid). File-operation
    /// validators see this form, so `./x` or `a/../x` cannot slip past a glob for `x`.
    fn entry_path(&self, _user: &str) -> Option<String> {
        None
    }
    /// A transport's session ended (a WebSocket closed): release what it held (its
    /// terminals).
    fn session_closed(&self, _session: &str) {}
}

/// A call that passed every check: what running it needs.
struct Admitted<S> {
    id: &'static str,
    command: Arc<dyn crate::command::DynCommand<S>>,
    parsed: Box<dyn std::any::Any + Send>,
    vcx: Option<ValidationContext>,
}

/// A call's audit line and `command.executed` event, waiting for its reply to be sent.
struct Entry {
    source: Source,
    id: std::borrow::Cow<'static, str>,
    args: Value,
    outcome: &'static str,
    success: bool,
    duration: u128,
}

/// What a handler's run gave: data to read, or data to send on as it is.
enum Data {
    Value(Value),
    Text(Box<RawValue>),
}

/// A call's result, its data as JSON text when asked for so, and its record when that is
/// still to write.
type Ran = (CommandResult, Option<Box<RawValue>>, Option<Entry>);

/// A call's outcome for a transport that sends its data on as it is
/// ([`Executor::execute_text`]).
#[derive(Debug)]
pub struct Answered {
    /// The outcome. When `text` holds the data, `data` is `None`.
    pub result: CommandResult,
    /// A successful call's data as JSON text (a forwarding command's comes in `result`).
    pub text: Option<Box<RawValue>>,
    /// The record still to write, as [`Executor::execute_then`] returns it.
    pub unrecorded: Option<Unrecorded>,
}

/// `ok`, or the error's code: what the audit log and `command.executed` say of a call.
fn outcome(result: &CommandResult) -> &'static str {
    match &result.error {
        None => "ok",
        Some(e) => e.code.as_str(),
    }
}

/// Where an [`Unrecorded`] call gets written.
trait Trail: Send + Sync {
    fn write(&self, entry: Entry);
}

impl<S: Host> Trail for Executor<S> {
    fn write(&self, entry: Entry) {
        self.write_entry(entry);
    }
}

/// A read-only call's record (audit line and `command.executed` event) that waits until its
/// reply is on the wire: see [`Executor::execute_then`]. It is written by
/// [`Unrecorded::record`], or when dropped, so an error path cannot lose it.
#[must_use = "dropping it records the call at once; keep it until the reply is sent"]
pub struct Unrecorded {
    trail: Arc<dyn Trail>,
    entry: Option<Entry>,
}

impl Unrecorded {
    /// Write the record now.
    pub fn record(mut self) {
        self.write();
    }

    fn write(&mut self) {
        if let Some(entry) = self.entry.take() {
            self.trail.write(entry);
        }
    }
}

impl Drop for Unrecorded {
    fn drop(&mut self) {
        self.write();
    }
}

impl std::fmt::Debug for Unrecorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = self.entry.as_ref().map(|e| &*e.id);
        f.debug_struct("Unrecorded").field("command", &id).finish()
    }
}

/// Run a handler. A long one (a shell pipeline, big I/O) on a multi-thread runtime first
/// lets the worker's queued tasks move to another thread, so other connections keep being
/// served; everything else (and the in-process CLI) just runs.
fn run_blocking<T>(long: bool, f: impl FnOnce() -> T) -> T {
    if !long {
        // Most commands take microseconds; handing the worker's tasks to another thread
        // would cost more than it saves.
        return f();
    }
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Runs commands. Shared by every transport behind an `Arc`.
pub struct Executor<S: Host> {
    registry: Registry<S>,
    services: Arc<S>,
    policy: PolicyConfig,
    validators: Validators,
    audit: AuditLog,
    events: EventBus,
    confirmations: Confirmations,
    approvers: AtomicUsize,
    security: SecurityGate,
    deferred: Option<crate::confirm::deferred::DeferredStore>,
}

/// Parts an executor is built from.
pub struct ExecutorParts<S: Host> {
    pub registry: Registry<S>,
    pub services: Arc<S>,
    pub policy: PolicyConfig,
    pub validators: Validators,
    pub audit: AuditLog,
    pub events: EventBus,
    /// Seed 003's `security` settings.
    pub security: SecurityGate,
    /// Where calls refused for want of a person wait for `ultra approve` (none: refused
    /// outright).
    pub deferred: Option<crate::confirm::deferred::DeferredStore>,
}

/// Keeps an approver registered while alive; see [`Executor::attach_approver`].
pub struct ApproverGuard<S: Host>(Arc<Executor<S>>);

impl<S: Host> Drop for ApproverGuard<S> {
    fn drop(&mut self) {
        self.0.approvers.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<S: Host> Executor<S> {
    /// Build an executor.
    pub fn new(parts: ExecutorParts<S>) -> Executor<S> {
        Executor {
            registry: parts.registry,
            services: parts.services,
            policy: parts.policy,
            validators: parts.validators,
            audit: parts.audit,
            events: parts.events,
            confirmations: Confirmations::default(),
            approvers: AtomicUsize::new(0),
            security: parts.security,
            deferred: parts.deferred,
        }
    }

    /// Turn seed 001's auto-apply on or off: while on, calls that the default policy or a
    /// command's own `confirm` would put to a person run at once. Rules written in the
    /// config still apply. Only people may change it (`ultra.confirm.autoApply` is
    /// human-only; `ultra serve --auto-apply` sets it at start).
    pub fn set_auto_apply(&self, on: bool) {
        self.confirmations.set_auto_apply(on);
    }

    /// Where calls refused for want of a person wait for approval.
    pub fn deferred(&self) -> Option<&crate::confirm::deferred::DeferredStore> {
        self.deferred.as_ref()
    }

    /// Whether auto-apply is on.
    pub fn auto_apply(&self) -> bool {
        self.confirmations.auto_apply()
    }

    /// The registry.
    pub fn registry(&self) -> &Registry<S> {
        &self.registry
    }

    /// The services.
    pub fn services(&self) -> &Arc<S> {
        &self.services
    }

    /// The event bus.
    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// Pending confirmations.
    pub fn confirmations(&self) -> &Confirmations {
        &self.confirmations
    }

    /// The validators.
    pub fn validators(&self) -> &Validators {
        &self.validators
    }

    /// The audit log.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// Register a person who can answer confirmations (a terminal prompt, a UI). While no
    /// approver is attached, an "ask" fails at once with `CONFIRMATION_REQUIRED` instead of
    /// waiting for nobody.
    pub fn attach_approver(self: &Arc<Self>) -> ApproverGuard<S> {
        self.approvers.fetch_add(1, Ordering::SeqCst);
        ApproverGuard(self.clone())
    }

    /// Run one command.
    pub async fn execute(&self, name: &str, args: Value, source: Source) -> CommandResult {
        let (result, _, unrecorded) = self.execute_at(name, args, source, 0, false).await;
        if let Some(entry) = unrecorded {
            self.write_entry(entry);
        }
        result
    }

    /// [`Executor::execute`] for a transport that writes the reply itself: a read-only
    /// call's audit line and `command.executed` event may wait until the reply is on the
    /// wire, so the client does not wait for our disk write. Everything that changes
    /// something is recorded before this returns, as `execute` does.
    pub async fn execute_then(
        self: &Arc<Self>,
        name: &str,
        args: Value,
        source: Source,
    ) -> (CommandResult, Option<Unrecorded>) {
        let (result, _, entry) = self.execute_at(name, args, source, 0, false).await;
        (result, self.unrecorded(entry))
    }

    /// [`Executor::execute_then`] for a transport that sends the data on as it is (a
    /// JSON-RPC reply): the data comes as JSON text, serialised once from the command's
    /// output rather than built as a `Value` and serialised again.
    pub async fn execute_text(
        self: &Arc<Self>,
        name: &str,
        args: Value,
        source: Source,
    ) -> Answered {
        let (result, text, entry) = self.execute_at(name, args, source, 0, true).await;
        Answered {
            result,
            text,
            unrecorded: self.unrecorded(entry),
        }
    }

    fn unrecorded(self: &Arc<Self>, entry: Option<Entry>) -> Option<Unrecorded> {
        entry.map(|entry| Unrecorded {
            trail: self.clone(),
            entry: Some(entry),
        })
    }

    /// [`Executor::execute`], `depth` forwards deep (a forwarding command runs the one it
    /// names here, so that one meets every check too). A read-only call comes back with its
    /// record still to write; anything else has been recorded. With `text`, a successful
    /// call's data may come as JSON text instead of in the result.
    fn execute_at<'a>(
        &'a self,
        name: &'a str,
        args: Value,
        source: Source,
        depth: u8,
        text: bool,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Ran> + Send + 'a>> {
        Box::pin(async move {
            let started = Instant::now();
            let (id, mut result, text) = self.execute_inner(name, &args, &source, text).await;
            let spec = id
                .and_then(|id| self.registry.entry(id))
                .map(|e| e.command.spec());
            if spec.is_some_and(|s| s.forwards) && result.success {
                result = self.forward(result, &source, depth).await;
            }
            if result.success && spec.is_some_and(|s| s.quiet && s.annotations.read_only) {
                return (result, text, None);
            }
            let entry = Entry {
                source,
                id: id.map_or_else(|| name.to_string().into(), Into::into),
                args,
                outcome: outcome(&result),
                success: result.success,
                duration: started.elapsed().as_micros(),
            };
            if spec.is_some_and(|s| s.annotations.read_only && !s.forwards) {
                return (result, text, Some(entry));
            }
            self.write_entry(entry);
            (result, text, None)
        })
    }

    /// Every check [`Executor::execute`] makes before it runs a command (arguments, allowed
    /// sources, security settings, policy with its confirmation, validators), without running
    /// it: for a caller that runs the call itself, as `ultra sh` streams a script admitted as
    /// `ultra.shell.run`. The command's id, or the refusal as `execute` would answer it.
    /// Record the outcome with [`Executor::record`].
    pub async fn admit(
        &self,
        name: &str,
        args: &Value,
        source: &Source,
    ) -> Result<&'static str, CommandResult> {
        match self.admit_inner(name, args, source).await {
            Ok(admitted) => Ok(admitted.id),
            Err((_, refused)) => Err(refused),
        }
    }

    /// Record a call's outcome as [`Executor::execute`] does: a line in the audit log and a
    /// `command.executed` event.
    pub fn record(
        &self,
        source: &Source,
        id: &str,
        args: &Value,
        result: &CommandResult,
        started: Instant,
    ) {
        let duration = started.elapsed().as_micros();
        let outcome = outcome(result);
        self.audit.record(source, id, args, outcome, duration);
        self.emit_executed(source, id, result.success, outcome, duration);
    }

    fn write_entry(&self, e: Entry) {
        self.audit
            .record(&e.source, &e.id, &e.args, e.outcome, e.duration);
        self.emit_executed(&e.source, &e.id, e.success, e.outcome, e.duration);
    }

    fn emit_executed(&self, source: &Source, id: &str, success: bool, outcome: &str, us: u128) {
        self.events.emit_with(names::COMMAND_EXECUTED, Some(source), || {
            json!({ "command": id, "success": success, "outcome": outcome, "durationUs": us as u64 })
        });
    }

    /// Run what a forwarding command named (`{command, args}` in its data).
    async fn forward(&self, named: CommandResult, source: &Source, depth: u8) -> CommandResult {
        const MAX_DEPTH: u8 = 4;
        let data = named.data.unwrap_or(Value::Null);
        let Some(target) = data.get("command").and_then(Value::as_str) else {
            return CommandResult::err(CommandError::new(
                ErrorCode::InternalError,
                "a forwarding command named no command",
            ));
        };
        if depth >= MAX_DEPTH {
            return CommandResult::err(
                CommandError::new(
                    ErrorCode::InvalidArguments,
                    format!("commands forwarding to commands more than {MAX_DEPTH} deep"),
                )
                .with_suggestion("call the command itself"),
            );
        }
        let args = data.get("args").cloned().unwrap_or(Value::Null);
        let (inner, _, unrecorded) = self
            .execute_at(target, args, source.clone(), depth + 1, false)
            .await;
        if let Some(entry) = unrecorded {
            self.write_entry(entry);
        }
        if !inner.success {
            return inner;
        }
        let mut out = CommandResult::ok(json!({ "result": inner.data.unwrap_or(Value::Null) }));
        out.warnings = inner.warnings;
        out.feedback = inner.feedback;
        out
    }

    async fn execute_inner(
        &self,
        name: &str,
        args: &Value,
        source: &Source,
        text: bool,
    ) -> (Option<&'static str>, CommandResult, Option<Box<RawValue>>) {
        let Admitted {
            command,
            parsed,
            vcx,
            ..
        } = match self.admit_inner(name, args, source).await {
            Ok(admitted) => admitted,
            Err((id, refused)) => return (id, refused, None),
        };
        let spec = command.spec();
        let mut cx = Cx {
            services: &*self.services,
            source,
            registry: &self.registry,
            events: &self.events,
            confirmations: &self.confirmations,
            validators: &self.validators,
            validation_context: vcx,
            warnings: Vec::new(),
            feedback: None,
            command_id: spec.id,
            audit_path: self.audit.path(),
        };
        // Anything that writes (fsync), starts processes or reaches terminals or the
        // network can take long, declared or not.
        let long = spec.long
            || spec
                .touches
                .is_some_and(|t| t.files_write || t.processes || t.terminals || t.network);
        // A forwarding command's data names the call to run next: it is read, not sent.
        let text = text && !spec.forwards;
        let outcome = run_blocking(long, || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                if text {
                    command.run_text(&mut cx, parsed).map(Data::Text)
                } else {
                    command.run(&mut cx, parsed).map(Data::Value)
                }
            }))
        });
        let mut sent = None;
        let mut result = match outcome {
            Ok(Ok(Data::Value(data))) => CommandResult::ok(data),
            Ok(Ok(Data::Text(data))) => {
                sent = Some(data);
                CommandResult {
                    data: None,
                    ..CommandResult::ok(Value::Null)
                }
            }
            Ok(Err(err)) => CommandResult::err(err),
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                CommandResult::err(
                    CommandError::new(ErrorCode::InternalError, format!("{} failed inside Ultra: {msg}", spec.id))
                        .with_suggestion("this is a bug in Ultra; the workspace is unchanged by this call if it failed before writing"),
                )
            }
        };
        result.warnings = cx.warnings;
        if let Some(fb) = cx.feedback {
            if let Some(v) = result.feedback.as_mut() {
                v.violations.extend(fb.violations);
            } else {
                result.feedback = Some(fb);
            }
            if !result.success {
                let violations: Vec<_> = result
                    .feedback
                    .iter()
                    .flat_map(|f| &f.violations)
                    .map(|v| crate::validator::Violation {
                        rule: v.rule.clone(),
                        message: v.message.clone(),
                        severity: crate::validator::Severity::Error,
                        location: v.location.clone(),
                        matched_content: v.matched_content.clone(),
                    })
                    .collect();
                let prior = self.validators.record(source, spec.id, &violations);
                if let Some(f) = result.feedback.as_mut() {
                    f.prior_violation_count = Some(prior);
                }
            }
        }
        (Some(spec.id), result, sent)
    }

    /// The checks of [`Executor::execute_inner`] up to running: a refusal comes back whole,
    /// as the call's answer.
    async fn admit_inner(
        &self,
        name: &str,
        args: &Value,
        source: &Source,
    ) -> Result<Admitted<S>, (Option<&'static str>, CommandResult)> {
        let Some(entry) = self.registry.entry(name) else {
            return Err((None, CommandResult::err(self.unknown_command(name))));
        };
        let command = entry.command.clone();
        let spec = command.spec();
        // A form client's `"3"` for an integer is read as 3; what parses as sent is not
        // retried.
        let parsed = command.parse(args.clone()).or_else(|issues| {
            match crate::schema::coerce_numbers(args, &entry.info().args) {
                Some(coerced) => command.parse(coerced).map_err(|_| issues),
                None => Err(issues),
            }
        });
        let parsed = match parsed {
            Ok(p) => p,
            Err(issues) => {
                let first = &issues[0];
                let at = if first.path.is_empty() {
                    String::new()
                } else {
                    format!(" at {}", first.path)
                };
                let info = entry.info();
                let err = CommandError::new(
                    ErrorCode::InvalidArguments,
                    format!("invalid arguments for {}{at}: {}", spec.id, first.message),
                )
                .with_details(json!({
                    "command": spec.id,
                    "issues": issues,
                    "usage": info.usage,
                    "examples": info.examples.iter().map(|e| &e.args).collect::<Vec<_>>(),
                    "schema": info.args,
                }))
                .with_suggestion(format!("call it as: {}", info.usage));
                return Err((Some(spec.id), CommandResult::err(err)));
            }
        };
        if let Some(allowed) = spec.sources
            && !allowed.contains(&source.kind)
        {
            let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
            let err = CommandError::new(
                ErrorCode::SourceNotAllowed,
                format!("{} may only be run by: {}; this call came from `{}`", spec.id, names.join(", "), source.kind.as_str()),
            )
            .with_suggestion("ask a person to run it from the editor, the web UI or the terminal running `ultra serve`");
            return Err((Some(spec.id), CommandResult::err(err)));
        }

        let programs = command.programs(&self.services, &*parsed);
        if let Err(err) = self.security.check(spec, source.kind, &programs) {
            return Err((Some(spec.id), CommandResult::err(err)));
        }
        if let Err(err) = command.precheck(&self.services, source, &*parsed) {
            return Err((Some(spec.id), CommandResult::err(err)));
        }
        let annotations = command.annotations(&self.services, &*parsed);
        // A rule for an operation governs its other names (`ultra.moveFile`, `fs.rename`
        // are `ultra.renameFile`) unless the name has a rule of its own.
        let governed = match command.target() {
            Some(t) if !self.policy.names(spec.id) && self.policy.names(t) => t,
            _ => spec.id,
        };
        let (mut decision, rule) = self.policy.decide(governed, source.kind, &annotations);
        let by_default = rule.is_default();
        let mut confirmed = false;
        if spec.confirm
            && by_default
            && source.kind == SourceKind::Ai
            && decision == Decision::Allow
        {
            decision = Decision::Ask;
            confirmed = true;
        }
        if decision == Decision::Ask && (by_default || spec.confirm) && self.auto_apply() {
            decision = Decision::Allow;
        }
        // Named only by a refusal or a question, so an allowed call formats nothing.
        let rule = || {
            if confirmed {
                format!("{} is confirmed by a person for agents (seed 001)", spec.id)
            } else {
                rule.to_string()
            }
        };
        match decision {
            Decision::Allow => {}
            Decision::Deny => {
                let rule = rule();
                let err = CommandError::new(ErrorCode::PolicyDenied, format!("{} is denied for `{}` sources by {rule}", spec.id, source.kind.as_str()))
                    .with_details(json!({ "rule": rule }))
                    .with_suggestion("use a read-only command, or ask the workspace owner to change the policy in ultra.config.json");
                return Err((Some(spec.id), CommandResult::err(err)));
            }
            Decision::Ask => {
                let preview = command.preview(&self.services, &*parsed);
                if let Err(err) = self.ask(spec.id, args, source, &rule(), preview).await {
                    return Err((Some(spec.id), CommandResult::err(err)));
                }
            }
        }

        // Only calls that validators will see pay for a validation context, and a read
        // only when a validator judges commands or it names a file operation: it writes no
        // content for them to check.
        let seen = source.kind != SourceKind::Human && self.validators.has_validators();
        let judged = !spec.annotations.read_only
            || self.validators.has_command_hooks()
            || command.file_operation(&*parsed).is_some();
        let vcx = (seen && judged).then(|| self.validation_context(source));
        if let Some(vcx) = &vcx
            && let Some(blocked) =
                self.run_validators(spec.id, args, &*command, &*parsed, source, vcx)
        {
            return Err((Some(spec.id), blocked));
        }

        Ok(Admitted {
            id: spec.id,
            command,
            parsed,
            vcx,
        })
    }

    fn validation_context(&self, source: &Source) -> ValidationContext {
        ValidationContext {
            source: source.clone(),
            workspace_root: self.services.workspace_root(),
            active_file: self.services.active_file(),
            read_file: self.services.file_reader(),
        }
    }

    fn run_validators(
        &self,
        id: &'static str,
        args: &Value,
        command: &dyn crate::command::DynCommand<S>,
        parsed: &(dyn std::any::Any + Send),
        source: &Source,
        vcx: &ValidationContext,
    ) -> Option<CommandResult> {
        let blocked = |code: ErrorCode, message: &str, agg: crate::validator::Aggregated| {
            let prior = self.validators.record(source, id, &agg.violations);
            let mut r = CommandResult::err(
                CommandError::new(code, message).with_suggestion("read the violations and suggestions, change the call, and retry; do not resend it unchanged"),
            );
            r.feedback = Some(agg.feedback(prior));
            Some(r)
        };
        match self.validators.validate_command(id, args, vcx) {
            // A validator that cannot run fails closed for what changes things; a read
            // goes on (a plugin that does not start must not leave agents blind), while
            // a read it explicitly refuses is still refused.
            Err(_) if command.spec().annotations.read_only => {}
            Err(e) => return Some(CommandResult::err(e)),
            Ok(agg) if !agg.proceed => {
                return blocked(
                    ErrorCode::ValidationFailed,
                    "Command blocked by validator",
                    agg,
                );
            }
            Ok(_) => {}
        }
        if let Some(mut op) = command.file_operation(parsed) {
            // Validators match paths as the workspace names them, not as the caller spelled
            // them. A path that does not resolve is left as given; the handler refuses it.
            for p in [&mut op.source, &mut op.target].into_iter().flatten() {
                if let Some(resolved) = self.services.entry_path(p) {
                    *p = resolved;
                }
            }
            match self.validators.validate_file_operation(&op, vcx) {
                Err(e) => return Some(CommandResult::err(e)),
                Ok(agg) if !agg.proceed => {
                    return blocked(
                        ErrorCode::FileOperationValidationFailed,
                        "File operation blocked by validator",
                        agg,
                    );
                }
                Ok(_) => {}
            }
        }
        None
    }

    async fn ask(
        &self,
        id: &str,
        args: &Value,
        source: &Source,
        rule: &str,
        preview: Option<String>,
    ) -> Result<(), CommandError> {
        if self.approvers.load(Ordering::SeqCst) == 0 {
            if let Some(store) = &self.deferred {
                let who = match &source.agent_id {
                    Some(a) => format!("{} ({a})", source.kind.as_str()),
                    None => source.kind.as_str().to_string(),
                };
                let digest = crate::audit::AuditLog::digest(
                    &json!({ "command": id, "args": args, "who": who }),
                );
                let fresh = crate::confirm::deferred::Deferred {
                    id: String::new(),
                    command: id.to_string(),
                    who,
                    digest,
                    args: args.clone(),
                    preview: preview.clone(),
                    reason: rule.to_string(),
                    created: 0,
                    approved: false,
                };
                return match store.check_or_defer(fresh) {
                    Ok(_) => Ok(()),
                    Err(d) => Err(CommandError::new(
                        ErrorCode::ConfirmationRequired,
                        format!("{id} needs a person's approval ({rule}); it is waiting as {}", d.id),
                    )
                    .with_details(json!({ "rule": rule, "preview": preview, "confirmationId": d.id }))
                    .with_suggestion(format!("ask a person to run `ultra approve {}` in a terminal (it shows what you asked for), then call again with the same arguments; or have them run `ultra serve` in a terminal to be asked there, or allow it in ultra.config.json under policy", d.id))),
                };
            }
            return Err(CommandError::new(
                ErrorCode::ConfirmationRequired,
                format!("{id} needs a person's approval ({rule}) and no one is attached to approve it"),
            )
            .with_details(json!({ "rule": rule, "preview": preview }))
            .with_suggestion("run `ultra serve` in a terminal (it prompts there), or allow it in ultra.config.json under policy"));
        }
        let timeout = Duration::from_millis(self.policy.confirm_timeout_ms);
        let expires_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0)
            + timeout.as_millis();
        let info = PendingInfo {
            id: String::new(),
            command: id.to_string(),
            args: args.clone(),
            source: source.clone(),
            reason: rule.to_string(),
            expires_at,
            preview,
        };
        let (cid, rx) = self.confirmations.park(info.clone());
        let mut shown = info;
        shown.id = cid.clone();
        self.events.emit(
            names::CONFIRMATION_REQUESTED,
            serde_json::to_value(&shown).unwrap_or(Value::Null),
            Some(source),
        );
        let answer = tokio::time::timeout(timeout, rx).await;
        let (resolution, result) = match answer {
            Ok(Ok(Answer::Approved)) => ("approved", Ok(())),
            Ok(Ok(Answer::Denied)) => (
                "denied",
                Err(CommandError::new(
                    ErrorCode::ConfirmationDenied,
                    format!("a person denied {id}"),
                )
                .with_details(json!({ "confirmation": cid }))
                .with_suggestion(
                    "do not retry the same call; ask the person what they want instead",
                )),
            ),
            Ok(Err(_)) | Err(_) => {
                self.confirmations.expire(&cid);
                (
                    "timeout",
                    Err(CommandError::new(
                        ErrorCode::ConfirmationTimeout,
                        format!("nobody approved {id} within {} ms", timeout.as_millis()),
                    )
                    .with_details(json!({ "confirmation": cid }))),
                )
            }
        };
        self.events.emit(
            names::CONFIRMATION_RESOLVED,
            json!({ "id": cid, "command": id, "resolution": resolution }),
            Some(source),
        );
        result
    }

    fn unknown_command(&self, name: &str) -> CommandError {
        let closest = self.registry.closest(name, 3);
        let suggestion = match closest.first() {
            Some(c) => format!("did you mean `{c}`? `ultra.listCommands` lists every command"),
            None => "`ultra.listCommands` lists every command".to_string(),
        };
        CommandError::new(
            ErrorCode::UnknownCommand,
            format!("Command not found: {name}"),
        )
        .with_details(json!({ "closest": closest }))
        .with_suggestion(suggestion)
    }
}
