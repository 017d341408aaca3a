//! `ultra.auditTail`: the latest entries of the audit log (who ran what, when, with what
//! outcome; arguments only as a digest), newest last. The web UI's activity feed starts
//! from it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode};

use ultra_services::Services;

/// Register `ultra.auditTail`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(AuditTail)
}

/// Most entries one call returns.
const MAX_ENTRIES: usize = 1000;
/// Most bytes read from the end of the log.
const MAX_BYTES: u64 = 1024 * 1024;

/// Arguments of `ultra.auditTail`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TailArgs {
    /// How many entries (default 100, at most 1000).
    pub limit: Option<usize>,
}

/// `ultra.auditTail`.
pub struct AuditTail;

impl Command<Services> for AuditTail {
    type Args = TailArgs;
    type Output = Vec<Value>;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.auditTail",
        "Audit: Latest Entries",
        "Query",
        "The latest entries of this workspace's audit log, oldest first: time (ms since the epoch), source (type, agentId, sessionId), command, argsDigest, outcome and durationUs. Empty when auditing is off.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .idempotent()
    .examples(&[Example {
        description: "Auditing is off in the examples",
        args: r#"{"limit": 5}"#,
        expect: Some("[]"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: TailArgs) -> Result<Vec<Value>, CommandError> {
        use std::io::{Read, Seek, SeekFrom};
        let limit = a.limit.unwrap_or(100).clamp(1, MAX_ENTRIES);
        let Some(path) = cx.audit_path else {
            return Ok(Vec::new());
        };
        let mut f = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(CommandError::new(
                    ErrorCode::IoError,
                    format!("audit log: {e}"),
                ));
            }
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let start = len.saturating_sub(MAX_BYTES);
        let mut text = String::new();
        f.seek(SeekFrom::Start(start))
            .and_then(|_| f.read_to_string(&mut text))
            .map_err(|e| CommandError::new(ErrorCode::IoError, format!("audit log: {e}")))?;
        // A read from the middle starts inside a line; a line being written has no end yet.
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        if start > 0 && !lines.is_empty() {
            lines.remove(0);
        }
        let entries: Vec<Value> = lines
            .iter()
            .filter(|l| l.ends_with('\n'))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let skip = entries.len().saturating_sub(limit);
        Ok(entries.into_iter().skip(skip).collect())
    }
}
