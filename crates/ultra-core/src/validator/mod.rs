//! Validator plugins (seed 000 `ValidatorPlugin`) as a Rust trait, and their registry.
//!
//! The registry aggregates as the seed does (any `proceed: false` blocks; violations,
//! suggestions and warnings are concatenated) with one change: it fails closed. A validator
//! that returns an error blocks the call instead of being skipped.

pub mod patterns;
pub mod process;

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ultra_protocol::result::FeedbackContext;
use ultra_protocol::{
    AgentFeedback, CommandError, ErrorCode, Location, Source, Suggestion, ViolationReport, Warning,
};

use crate::command::FileOperation;

/// Severity of a violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A broken rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    pub rule: String,
    pub message: String,
    pub severity: Severity,
    #[serde(default)]
    pub location: Option<Location>,
    #[serde(default)]
    pub matched_content: Option<String>,
}

/// A validator's verdict.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationResult {
    pub proceed: bool,
    #[serde(default)]
    pub violations: Vec<Violation>,
    #[serde(default)]
    pub suggestions: Vec<Suggestion>,
    #[serde(default)]
    pub warnings: Vec<Warning>,
    #[serde(default)]
    pub feedback_context: Option<String>,
}

impl ValidationResult {
    /// Let the call proceed with nothing to report.
    pub fn proceed() -> ValidationResult {
        ValidationResult {
            proceed: true,
            ..Default::default()
        }
    }
}

/// Context given to validators for files the agent is about to work on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProvidedContext {
    #[serde(default)]
    pub guidelines: String,
    #[serde(default)]
    pub file_context: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub recent_violations: String,
}

/// A violation recorded for tracking.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedViolation {
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub timestamp: u128,
    pub command: String,
    pub rule: String,
    pub message: String,
    pub file: Option<String>,
    pub matched_content: Option<String>,
}

/// A validator could not give a verdict.
#[derive(Debug, thiserror::Error)]
#[error("validator `{validator}` failed: {message}")]
pub struct ValidatorFailure {
    pub validator: String,
    pub message: String,
}

/// Reads workspace files for validators, confined like every other read.
pub type FileReader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What a validator may know about the call.
#[derive(Clone)]
pub struct ValidationContext {
    pub source: Source,
    pub workspace_root: PathBuf,
    pub active_file: Option<String>,
    pub read_file: FileReader,
}

/// A validator plugin. Every hook is optional; the defaults let everything through.
pub trait Validator: Send + Sync {
    /// Unique id.
    fn id(&self) -> &str;
    /// Human-readable name.
    fn name(&self) -> &str {
        self.id()
    }
    /// Validate a command before it runs.
    fn validate_command(
        &self,
        _command: &str,
        _args: &Value,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        Ok(ValidationResult::proceed())
    }
    /// Whether [`Validator::validate_command`] does anything. A validator that never judges
    /// a call by its command and arguments says no, so reads skip the validation context.
    fn checks_commands(&self) -> bool {
        true
    }
    /// Whether [`Validator::validate_content`] does anything (lets edits skip building content).
    fn checks_content(&self) -> bool {
        false
    }
    /// Validate the full content an edit would leave in `path`.
    fn validate_content(
        &self,
        _path: &str,
        _content: &str,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        Ok(ValidationResult::proceed())
    }
    /// Validate a create, delete, rename or move.
    fn validate_file_operation(
        &self,
        _op: &FileOperation,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        Ok(ValidationResult::proceed())
    }
    /// Guidelines and context for files an agent is about to work on.
    fn context_for_files(&self, _paths: &[String]) -> Result<ProvidedContext, ValidatorFailure> {
        Ok(ProvidedContext::default())
    }
    /// Record a violation for tracking.
    fn record_violation(&self, _violation: &RecordedViolation) {}
}

/// The verdicts of all validators, combined.
#[derive(Debug, Clone, Default)]
pub struct Aggregated {
    pub proceed: bool,
    pub violations: Vec<Violation>,
    pub suggestions: Vec<Suggestion>,
    pub warnings: Vec<Warning>,
    pub feedback_context: Vec<String>,
}

impl Aggregated {
    fn from_results(results: Vec<ValidationResult>) -> Aggregated {
        let mut agg = Aggregated {
            proceed: true,
            ..Default::default()
        };
        for r in results {
            agg.proceed &= r.proceed;
            agg.violations.extend(r.violations);
            agg.suggestions.extend(r.suggestions);
            agg.warnings.extend(r.warnings);
            agg.feedback_context
                .extend(r.feedback_context.filter(|c| !c.is_empty()));
        }
        agg
    }

    /// The agent-facing feedback; `prior` is how many violations the caller's agent and
    /// session had before these (see [`Validators::record`]).
    pub fn feedback(&self, prior: u32) -> AgentFeedback {
        AgentFeedback {
            violations: self
                .violations
                .iter()
                .map(|v| ViolationReport {
                    rule: v.rule.clone(),
                    message: v.message.clone(),
                    location: v.location.clone(),
                    matched_content: v.matched_content.clone(),
                })
                .collect(),
            suggestions: self.suggestions.clone(),
            context: if self.feedback_context.is_empty() {
                None
            } else {
                Some(FeedbackContext {
                    relevant_docs: vec![self.feedback_context.join("\n\n")],
                    examples: vec![],
                })
            },
            prior_violation_count: Some(prior),
        }
    }
}

/// An agent id and a session id, either possibly unknown.
type Caller = (Option<String>, Option<String>);

/// All loaded validators.
#[derive(Default, Clone)]
pub struct Validators {
    list: Vec<Arc<dyn Validator>>,
    /// Violations recorded so far per (agent, session), shared by every clone.
    counts: Arc<std::sync::Mutex<std::collections::HashMap<Caller, u32>>>,
}

impl Validators {
    /// Add a validator. A duplicate id is refused.
    pub fn register(&mut self, v: Arc<dyn Validator>) -> Result<(), String> {
        if self.list.iter().any(|x| x.id() == v.id()) {
            return Err(format!("validator already registered: {}", v.id()));
        }
        self.list.push(v);
        Ok(())
    }

    /// Remove a validator by id.
    pub fn unregister(&mut self, id: &str) -> bool {
        let before = self.list.len();
        self.list.retain(|v| v.id() != id);
        self.list.len() != before
    }

    /// Whether any validator is loaded.
    pub fn has_validators(&self) -> bool {
        !self.list.is_empty()
    }

    /// Ids of the loaded validators.
    pub fn ids(&self) -> Vec<String> {
        self.list.iter().map(|v| v.id().to_string()).collect()
    }

    /// Whether any validator judges calls by their command and arguments.
    pub fn has_command_hooks(&self) -> bool {
        self.list.iter().any(|v| v.checks_commands())
    }

    /// Whether any validator checks file content.
    pub fn has_content_hooks(&self) -> bool {
        self.list.iter().any(|v| v.checks_content())
    }

    fn run(
        &self,
        f: impl Fn(&dyn Validator) -> Result<ValidationResult, ValidatorFailure>,
    ) -> Result<Aggregated, CommandError> {
        let mut results = Vec::with_capacity(self.list.len());
        for v in &self.list {
            match f(v.as_ref()) {
                Ok(r) => results.push(r),
                Err(e) => {
                    return Err(CommandError::new(ErrorCode::ValidatorError, e.to_string())
                        .with_details(serde_json::json!({ "validator": e.validator }))
                        .with_suggestion("the call was blocked because a validator failed; fix or disable the validator in ultra.config.json"));
                }
            }
        }
        Ok(Aggregated::from_results(results))
    }

    /// Ask every validator about a command.
    pub fn validate_command(
        &self,
        command: &str,
        args: &Value,
        cx: &ValidationContext,
    ) -> Result<Aggregated, CommandError> {
        self.run(|v| {
            if v.checks_commands() {
                v.validate_command(command, args, cx)
            } else {
                Ok(ValidationResult::proceed())
            }
        })
    }

    /// Ask every content validator about content.
    pub fn validate_content(
        &self,
        _command: &str,
        path: &str,
        content: &str,
        cx: &ValidationContext,
    ) -> Result<Aggregated, CommandError> {
        self.run(|v| {
            if v.checks_content() {
                v.validate_content(path, content, cx)
            } else {
                Ok(ValidationResult::proceed())
            }
        })
    }

    /// Ask every validator about a file operation.
    pub fn validate_file_operation(
        &self,
        op: &FileOperation,
        cx: &ValidationContext,
    ) -> Result<Aggregated, CommandError> {
        self.run(|v| v.validate_file_operation(op, cx))
    }

    /// Merge every validator's context for `paths`.
    pub fn context_for_files(&self, paths: &[String]) -> Result<ProvidedContext, CommandError> {
        let mut guidelines = Vec::new();
        let mut merged = ProvidedContext::default();
        let mut recent = Vec::new();
        for v in &self.list {
            let c = v
                .context_for_files(paths)
                .map_err(|e| CommandError::new(ErrorCode::ValidatorError, e.to_string()))?;
            if !c.guidelines.is_empty() {
                guidelines.push(c.guidelines);
            }
            if !c.recent_violations.is_empty() {
                recent.push(c.recent_violations);
            }
            merged.file_context.extend(c.file_context);
        }
        merged.guidelines = guidelines.join("\n\n---\n\n");
        merged.recent_violations = recent.join("\n");
        Ok(merged)
    }

    /// Tell every validator about violations that blocked a call, and count them for the
    /// caller's agent and session. Returns how many that agent and session had before, the
    /// feedback's `priorViolationCount`: an agent that keeps hitting the same wall sees so.
    pub fn record(&self, source: &Source, command: &str, violations: &[Violation]) -> u32 {
        let prior = {
            let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
            let n = counts
                .entry((source.agent_id.clone(), source.session_id.clone()))
                .or_default();
            let prior = *n;
            *n = n.saturating_add(violations.len() as u32);
            prior
        };
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        for violation in violations {
            let rec = RecordedViolation {
                agent_id: source.agent_id.clone(),
                session_id: source.session_id.clone(),
                timestamp: ts,
                command: command.to_string(),
                rule: violation.rule.clone(),
                message: violation.message.clone(),
                file: violation.location.as_ref().map(|l| l.path.clone()),
                matched_content: violation.matched_content.clone(),
            };
            for v in &self.list {
                v.record_violation(&rec);
            }
        }
        prior
    }
}

/// Checks writes a handler makes away from the executor's per-call hooks (the shell's
/// built-ins write files one by one, on pipeline threads). Cheap to clone and `'static`;
/// warnings and the feedback of a block are gathered and handed to the call's result by
/// [`Cx::absorb`](crate::Cx::absorb). Fails closed: a validator error blocks the write.
#[derive(Clone)]
pub struct WriteChecker {
    pub(crate) validators: Validators,
    pub(crate) base: ValidationContext,
    pub(crate) command_id: &'static str,
    pub(crate) gathered: Arc<std::sync::Mutex<Gathered>>,
}

/// What the checks of one call produced.
#[derive(Default)]
pub(crate) struct Gathered {
    pub(crate) warnings: Vec<Warning>,
    pub(crate) feedback: Option<AgentFeedback>,
}

impl WriteChecker {
    /// May `content` become the text of `path` (as the workspace names it)? `Err` says why
    /// not, in a line for stderr.
    pub fn content(&self, path: &str, content: &str) -> Result<(), String> {
        if !self.validators.has_content_hooks() {
            return Ok(());
        }
        let r = self
            .validators
            .validate_content(self.command_id, path, content, &self.base);
        self.judge(r, "content")
    }

    /// May `op` (create, delete, rename) happen?
    pub fn operation(&self, op: &FileOperation) -> Result<(), String> {
        let r = self.validators.validate_file_operation(op, &self.base);
        self.judge(r, "file operation")
    }

    fn judge(&self, r: Result<Aggregated, CommandError>, what: &str) -> Result<(), String> {
        let mut g = self.gathered.lock().unwrap_or_else(|p| p.into_inner());
        match r {
            Ok(agg) if agg.proceed => {
                g.warnings.extend(agg.warnings);
                Ok(())
            }
            Ok(agg) => {
                let prior =
                    self.validators
                        .record(&self.base.source, self.command_id, &agg.violations);
                let first = agg
                    .violations
                    .first()
                    .map(|v| format!(": {} ({})", v.message, v.rule))
                    .unwrap_or_default();
                g.feedback = Some(agg.feedback(prior));
                Err(format!("{what} blocked by validator{first}"))
            }
            Err(e) => Err(format!(
                "{what} not validated ({}), so not written",
                e.message
            )),
        }
    }
}
