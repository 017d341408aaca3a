//! The built-in diagnostics gate (issue 22): an agent's edit that would introduce new
//! errors by the language server's judgement (a type error, an unknown name) is not
//! applied. Off unless configured: `{"id": "types", "builtin": "diagnostics"}` under
//! `validators` (`timeoutMs`, default 8000, bounds the wait for the server). Only errors the
//! edit introduces count, judged as `newDiagnostics` is (`code/after_edit.rs`); syntax
//! errors are the syntax gate's. A server that is not ready in time lets the edit through
//! with a warning: the gate never blocks on what it could not check.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ultra_core::validator::{
    Severity, ValidationContext, ValidationResult, Validator, ValidatorFailure, Violation,
};
use ultra_protocol::{Location, PositionEncoding, Warning};

use crate::code::after_edit::compare;
use crate::code::diagnostics::Severity as DiagSeverity;

/// The builtin's name in config.
pub const BUILTIN: &str = "diagnostics";

/// How long it waits for the server by default.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(8);

/// The gate.
pub struct DiagnosticsGate {
    /// Its id in config and feedback.
    pub id: String,
    pub lsp: Arc<ultra_lsp::Servers>,
    pub root: PathBuf,
    pub wait: Duration,
}

impl Validator for DiagnosticsGate {
    fn id(&self) -> &str {
        &self.id
    }

    fn name(&self) -> &str {
        "Diagnostics gate"
    }

    fn checks_commands(&self) -> bool {
        false
    }

    fn checks_content(&self) -> bool {
        true
    }

    fn validate_content(
        &self,
        path: &str,
        content: &str,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        if ultra_lsp::language_of(path).is_none() {
            return Ok(ValidationResult::proceed());
        }
        let old = (cx.read_file)(path).unwrap_or_default();
        let Some((new, _, answer)) = compare(
            &self.lsp,
            &self.root,
            &[(path, &old, content)],
            PositionEncoding::Utf16,
            Instant::now() + self.wait,
        )
        .pop() else {
            return Ok(ValidationResult::proceed());
        };
        let Some(answer) = answer.filter(|a| a.state == "ready") else {
            return Ok(ValidationResult {
                proceed: true,
                warnings: vec![Warning {
                    code: "DIAGNOSTICS_UNCHECKED".into(),
                    message: format!(
                        "{}: the language server could not judge the edit of {path} in time; it was applied unchecked",
                        self.id
                    ),
                    location: None,
                }],
                ..ValidationResult::default()
            });
        };
        let errors: Vec<_> = new
            .into_iter()
            .filter(|d| d.severity == DiagSeverity::Error && d.source != "tree-sitter")
            .collect();
        if errors.is_empty() {
            return Ok(ValidationResult::proceed());
        }
        // The server saw the refused text: give it back what the file holds.
        self.lsp.sync(&self.root.join(path), &old);
        let mut context = format!(
            "Not applied: the edit would introduce {} new error(s) in {path} ({}'s judgement).",
            errors.len(),
            answer.language
        );
        for d in &errors {
            let line = d.range.start.line + 1;
            context.push_str(&format!(
                "\nLine {line}: {}{}\n{}",
                d.message,
                d.code
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default(),
                crate::syntax_gate::around(content, line)
            ));
        }
        Ok(ValidationResult {
            proceed: false,
            violations: errors
                .iter()
                .map(|d| Violation {
                    rule: d.code.clone().unwrap_or_else(|| d.source.clone()),
                    message: format!(
                        "the edit introduces an error at line {}: {}",
                        d.range.start.line + 1,
                        d.message
                    ),
                    severity: Severity::Error,
                    location: Some(Location {
                        path: path.to_string(),
                        range: d.range,
                    }),
                    matched_content: content
                        .lines()
                        .nth(d.range.start.line as usize)
                        .map(|l| l.trim().to_string()),
                })
                .collect(),
            feedback_context: Some(context),
            ..ValidationResult::default()
        })
    }
}
