//! The built-in syntax gate (issue 7, seed 000's validators): an agent's edit that would
//! leave new parse errors in a file the code index can parse is not applied. Only the
//! errors the edit introduces count: errors the file already had are matched to their
//! lines after the edit (shifted by the lines it added or removed) and left alone. The
//! feedback names each new error, shows the proposed text around it, and says the edit was
//! not applied. On by default; `{"id": "syntax", "builtin": "syntax", "enabled": false}`
//! under `validators` turns it off.

use std::collections::HashSet;

use ultra_core::validator::{
    Severity, ValidationContext, ValidationResult, Validator, ValidatorFailure, Violation,
};
use ultra_index::{Lang, SyntaxError};
use ultra_protocol::{Location, Position, Range};

/// The gate.
pub struct SyntaxGate;

/// The id it is known by in config and feedback.
pub const ID: &str = "syntax";

/// Lines (1-based) of `old` that survive unchanged into `new`, mapped to their new numbers.
pub(crate) fn line_map(old: &str, new: &str) -> std::collections::HashMap<u32, u32> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut map = std::collections::HashMap::new();
    for op in diff.ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for i in 0..len {
                map.insert((old_index + i + 1) as u32, (new_index + i + 1) as u32);
            }
        }
    }
    map
}

fn errors(path: &str, text: &str) -> Vec<SyntaxError> {
    ultra_index::index_file(path, text.as_bytes()).errors
}

/// The lines around `line` (1-based) of `text`, numbered.
pub(crate) fn around(text: &str, line: u32) -> String {
    let line = line as usize;
    text.lines()
        .enumerate()
        .skip(line.saturating_sub(3))
        .take(5)
        .map(|(i, l)| {
            format!(
                "{:>5}{} {l}\n",
                i + 1,
                if i + 1 == line { '>' } else { ' ' }
            )
        })
        .collect()
}

impl Validator for SyntaxGate {
    fn id(&self) -> &str {
        ID
    }

    fn name(&self) -> &str {
        "Syntax gate"
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
        if Lang::of_path(path).is_none() {
            return Ok(ValidationResult::proceed());
        }
        let after = errors(path, content);
        if after.is_empty() {
            return Ok(ValidationResult::proceed());
        }
        let old = (cx.read_file)(path).unwrap_or_default();
        let before = if old.is_empty() {
            Vec::new()
        } else {
            errors(path, &old)
        };
        let map = line_map(&old, content);
        // Earlier errors where they are after the edit.
        let shifted: Vec<u32> = before
            .iter()
            .filter_map(|e| map.get(&e.line).copied())
            .collect();
        let known: HashSet<u32> = shifted.iter().copied().collect();
        let new: Vec<&SyntaxError> = after.iter().filter(|e| !known.contains(&e.line)).collect();
        if new.is_empty() {
            return Ok(ValidationResult::proceed());
        }
        let violations = new
            .iter()
            .map(|e| Violation {
                rule: "syntax".into(),
                message: format!(
                    "the edit leaves a syntax error at line {}: {}",
                    e.line, e.message
                ),
                severity: Severity::Error,
                location: Some(Location {
                    path: path.to_string(),
                    range: Range {
                        start: Position::new(e.line.saturating_sub(1), e.column),
                        end: Position::new(e.end_line.saturating_sub(1), e.end_column),
                    },
                }),
                matched_content: content
                    .lines()
                    .nth(e.line.saturating_sub(1) as usize)
                    .map(|l| l.trim().to_string()),
            })
            .collect();
        let mut context = format!(
            "Not applied: the edit would leave {} new syntax error(s) in {path}.",
            new.len()
        );
        if !shifted.is_empty() {
            let lines: Vec<String> = shifted.iter().map(|l| l.to_string()).collect();
            context.push_str(&format!(
                " The file already had errors (at lines {} after your edit); they are not counted.",
                lines.join(", ")
            ));
        }
        for e in &new {
            context.push_str(&format!(
                "\nProposed text at line {}:\n{}",
                e.line,
                around(content, e.line)
            ));
        }
        Ok(ValidationResult {
            proceed: false,
            violations,
            feedback_context: Some(context),
            ..ValidationResult::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ultra_protocol::{Source, SourceKind};

    use super::*;

    fn cx(old: &'static str) -> ValidationContext {
        ValidationContext {
            source: Source::new(SourceKind::Ai),
            workspace_root: std::path::PathBuf::from("/nonexistent"),
            active_file: None,
            read_file: Arc::new(move |_| Some(old.to_string())),
        }
    }

    #[test]
    fn only_new_errors_block() {
        let gate = SyntaxGate;
        let good = "fn a() {}\nfn b() {}\n";
        // A clean edit passes.
        let r = gate
            .validate_content("x.rs", "fn a() {}\nfn c() {}\n", &cx(good))
            .unwrap();
        assert!(r.proceed);
        // A broken one is blocked, with the line and the proposed text.
        let r = gate
            .validate_content("x.rs", "fn a() {}\nfn c( {}\n", &cx(good))
            .unwrap();
        assert!(!r.proceed);
        assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
        assert!(
            r.violations[0].message.contains("line 2"),
            "{:?}",
            r.violations
        );
        let fb = r.feedback_context.unwrap();
        assert!(
            fb.starts_with("Not applied") && fb.contains("fn c( {}"),
            "{fb}"
        );
        // A file that was already broken: an edit elsewhere that shifts the old error
        // down two lines passes, and a second error is reported alone.
        let broken = "fn a( {}\nfn b() {}\n";
        let shifted = "// one\n// two\nfn a( {}\nfn b() {}\n";
        let r = gate.validate_content("x.rs", shifted, &cx(broken)).unwrap();
        assert!(r.proceed, "{:?}", r.violations);
        let worse = "// one\n// two\nfn a( {}\nfn b() {}\nfn c( {}\n";
        let r = gate.validate_content("x.rs", worse, &cx(broken)).unwrap();
        assert!(!r.proceed);
        assert_eq!(r.violations.len(), 1, "{:?}", r.violations);
        assert!(
            r.violations[0].message.contains("line 5"),
            "{:?}",
            r.violations
        );
        assert!(
            r.feedback_context
                .unwrap()
                .contains("at lines 3 after your edit")
        );
        // Files the index does not parse are not judged.
        let r = gate
            .validate_content("notes.txt", "fn c( {", &cx(good))
            .unwrap();
        assert!(r.proceed);
    }
}
