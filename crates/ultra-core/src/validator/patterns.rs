//! The built-in `patterns` validator: regex rules over the content an edit would write,
//! and glob-protected paths for file operations. Configured in `ultra.config.json`:
//!
//! ```json
//! {"id": "style", "builtin": "patterns",
//!  "rules": [{"rule": "no-console", "pattern": "console\\.log", "message": "use the logger",
//!             "suggestion": "call logger.debug", "replacement": "logger.debug", "paths": ["**/*.ts"]}],
//!  "protect": ["migrations/**"], "guidelines": "Log through logger."}
//! ```
//!
//! Only violations the edit introduces block it: a file that already breaks a rule can still
//! be edited elsewhere.

use std::collections::HashMap;
use std::sync::Mutex;

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_protocol::{Location, Position, Range, Suggestion};

use super::{
    FileOperation, ProvidedContext, RecordedViolation, Severity, ValidationContext,
    ValidationResult, Validator, ValidatorFailure, Violation,
};

/// One content rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// Rule name reported in violations.
    pub rule: String,
    /// A regular expression matched against each line.
    pub pattern: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    #[serde(default)]
    pub suggestion: Option<String>,
    /// What to write instead.
    #[serde(default)]
    pub replacement: Option<String>,
    /// Globs of paths the rule applies to (all when empty).
    #[serde(default)]
    pub paths: Vec<String>,
    /// `error` blocks, `warning` only warns.
    #[serde(default = "default_severity")]
    pub severity: String,
}

fn default_severity() -> String {
    "error".into()
}

struct Rule {
    config: RuleConfig,
    regex: Regex,
    paths: Option<GlobSet>,
    severity: Severity,
}

/// The `patterns` validator.
pub struct PatternsValidator {
    id: String,
    rules: Vec<Rule>,
    protect: Option<GlobSet>,
    protect_list: Vec<String>,
    guidelines: String,
    recorded: Mutex<Vec<RecordedViolation>>,
}

fn globset(globs: &[String]) -> Result<Option<GlobSet>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| format!("bad glob `{g}`: {e}"))?);
    }
    b.build().map(Some).map_err(|e| e.to_string())
}

impl PatternsValidator {
    /// Build from config; bad regexes and globs are config errors.
    pub fn new(
        id: &str,
        rules: &[RuleConfig],
        protect: &[String],
        guidelines: &str,
    ) -> Result<Self, String> {
        let rules = rules
            .iter()
            .map(|r| {
                let regex = regex::RegexBuilder::new(&r.pattern)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| format!("rule `{}`: bad pattern: {e}", r.rule))?;
                let severity = match r.severity.as_str() {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    other => {
                        return Err(format!(
                            "rule `{}`: severity must be error or warning, not `{other}`",
                            r.rule
                        ));
                    }
                };
                Ok(Rule {
                    config: r.clone(),
                    regex,
                    paths: globset(&r.paths)?,
                    severity,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(PatternsValidator {
            id: id.to_string(),
            rules,
            protect: globset(protect)?,
            protect_list: protect.to_vec(),
            guidelines: guidelines.to_string(),
            recorded: Mutex::new(Vec::new()),
        })
    }

    fn applies(rule: &Rule, path: &str) -> bool {
        rule.paths.as_ref().is_none_or(|g| g.is_match(path))
    }

    /// For each applicable rule, the lines (trimmed) that match it, with multiplicity.
    fn matching_lines(&self, path: &str, content: &str) -> HashMap<usize, HashMap<String, usize>> {
        let mut out: HashMap<usize, HashMap<String, usize>> = HashMap::new();
        for (i, rule) in self.rules.iter().enumerate() {
            if !Self::applies(rule, path) {
                continue;
            }
            for line in content.lines() {
                let n = rule.regex.find_iter(line).count();
                if n > 0 {
                    *out.entry(i)
                        .or_default()
                        .entry(line.trim().to_string())
                        .or_insert(0) += n;
                }
            }
        }
        out
    }
}

impl Validator for PatternsValidator {
    fn id(&self) -> &str {
        &self.id
    }

    fn checks_commands(&self) -> bool {
        false
    }

    fn checks_content(&self) -> bool {
        !self.rules.is_empty()
    }

    fn validate_content(
        &self,
        path: &str,
        content: &str,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        // A rule is broken by the edit only if the new text has more matches than the old:
        // rewriting a line that already broke it (or moving it) introduces nothing.
        let before = match (cx.read_file)(path) {
            Some(old) => self.matching_lines(path, &old),
            None => HashMap::new(),
        };
        let mut result = ValidationResult::proceed();
        for (i, rule) in self.rules.iter().enumerate() {
            if !Self::applies(rule, path) {
                continue;
            }
            let mut old_lines = before.get(&i).cloned().unwrap_or_default();
            let old_total: usize = old_lines.values().sum();
            // Every match in the new text, and whether its line existed before.
            let mut matches = Vec::new();
            for (n, line) in content.lines().enumerate() {
                for m in rule.regex.find_iter(line) {
                    let known = match old_lines.get_mut(line.trim()) {
                        Some(c) if *c > 0 => {
                            *c -= 1;
                            true
                        }
                        _ => false,
                    };
                    matches.push((n, line, m, known));
                }
            }
            let excess = matches.len().saturating_sub(old_total);
            if excess == 0 {
                continue;
            }
            // Blame the matches on new lines first, then the last ones.
            let mut blamed: Vec<_> = matches.iter().filter(|m| !m.3).take(excess).collect();
            if blamed.len() < excess {
                blamed = matches.iter().rev().take(excess).collect();
                blamed.reverse();
            }
            for (n, line, m, _) in blamed {
                let col = line[..m.start()].chars().count() as u32;
                let end = col + m.as_str().chars().count() as u32;
                let location = Some(Location {
                    path: path.to_string(),
                    range: Range::new(Position::new(*n as u32, col), Position::new(*n as u32, end)),
                });
                match rule.severity {
                    Severity::Error => {
                        result.proceed = false;
                        result.violations.push(Violation {
                            rule: rule.config.rule.clone(),
                            message: rule.config.message.clone(),
                            severity: rule.severity,
                            location,
                            matched_content: Some(m.as_str().to_string()),
                        });
                    }
                    Severity::Warning => result.warnings.push(ultra_protocol::Warning {
                        code: rule.config.rule.clone(),
                        message: rule.config.message.clone(),
                        location,
                    }),
                }
            }
            if rule.severity == Severity::Error
                && let Some(s) = &rule.config.suggestion
            {
                result.suggestions.push(Suggestion {
                    description: s.clone(),
                    replacement: rule.config.replacement.clone(),
                    ..Default::default()
                });
            }
        }
        if !result.proceed && !self.guidelines.is_empty() {
            result.feedback_context = Some(self.guidelines.clone());
        }
        Ok(result)
    }

    fn validate_file_operation(
        &self,
        op: &FileOperation,
        _cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        let Some(protect) = &self.protect else {
            return Ok(ValidationResult::proceed());
        };
        let hit = [&op.source, &op.target]
            .into_iter()
            .flatten()
            .find(|p| protect.is_match(p.as_str()));
        match hit {
            Some(path) => Ok(ValidationResult {
                proceed: false,
                violations: vec![Violation {
                    rule: "protected-path".into(),
                    message: format!("`{path}` is protected by validator `{}`", self.id),
                    severity: Severity::Error,
                    location: None,
                    matched_content: Some(path.clone()),
                }],
                suggestions: vec![Suggestion {
                    description: format!("leave files matching {:?} in place", self.protect_list),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            None => Ok(ValidationResult::proceed()),
        }
    }

    fn context_for_files(&self, paths: &[String]) -> Result<ProvidedContext, ValidatorFailure> {
        let mut ctx = ProvidedContext {
            guidelines: self.guidelines.clone(),
            ..Default::default()
        };
        for p in paths {
            let rules: Vec<String> = self
                .rules
                .iter()
                .filter(|r| Self::applies(r, p))
                .map(|r| format!("{}: {}", r.config.rule, r.config.message))
                .collect();
            if !rules.is_empty() {
                ctx.file_context.insert(p.clone(), rules.join("\n"));
            }
        }
        let recorded = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        ctx.recent_violations = recorded
            .iter()
            .rev()
            .take(10)
            .map(|v| {
                format!(
                    "{} in {}: {}",
                    v.rule,
                    v.file.as_deref().unwrap_or("?"),
                    v.message
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        Ok(ctx)
    }

    fn record_violation(&self, violation: &RecordedViolation) {
        let mut recorded = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        recorded.push(violation.clone());
        if recorded.len() > 100 {
            recorded.remove(0);
        }
    }
}
