//! Diagnostics from typescript-language-server, asked rather than waited for. It publishes
//! without versions, 300–800 ms after a change, in up to three parts (syntax, semantic,
//! suggestions), and not at all when they stay empty: no publication says that the
//! diagnostics of the text just sent are complete, and waiting for one either took a
//! previous text's for this one's or timed out on a clean file. Its
//! `typescript.tsserverRequest` command asks tsserver itself, after the change: the
//! `*DiagnosticsSync` answers are for exactly the text sent.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::client::{Client, Published};

/// The command that forwards a request to tsserver.
const COMMAND: &str = "typescript.tsserverRequest";

/// Whether a server with these `capabilities` forwards requests to tsserver (it offers
/// the command; its program may be run under any name).
pub(crate) fn serves(capabilities: &Value) -> bool {
    capabilities["executeCommandProvider"]["commands"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c == COMMAND))
}

/// tsserver's syntactic, semantic and suggestion diagnostics of `path` as the server has
/// it now (the document's `version`), as LSP diagnostics; `None` when it did not answer
/// within `wait`.
pub(crate) fn pull(
    client: &Client,
    path: &Path,
    version: i64,
    wait: Duration,
) -> Option<Published> {
    let deadline = Instant::now() + wait;
    let file = path.to_string_lossy();
    let mut all = Vec::new();
    for kind in [
        "syntacticDiagnosticsSync",
        "semanticDiagnosticsSync",
        "suggestionDiagnosticsSync",
    ] {
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = client
            .request_within(
                "workspace/executeCommand",
                json!({
                    "command": COMMAND,
                    "arguments": [kind, {"file": file, "includeLinePosition": false}],
                }),
                left,
            )
            .ok()?;
        // The tsserver response, or its body alone.
        let body = answer.get("body").unwrap_or(&answer);
        all.extend(body.as_array()?.iter().filter_map(to_lsp));
    }
    Some(Published {
        version: Some(version),
        diagnostics: all,
        generation: client.generation(),
        at: Instant::now(),
    })
}

/// A tsserver diagnostic (`start`/`end` as 1-based line and UTF-16 offset) as the server
/// would publish it.
fn to_lsp(d: &Value) -> Option<Value> {
    let pos = |p: &Value| -> Option<Value> {
        let line = p.get("line")?.as_u64()?.checked_sub(1)?;
        let character = p.get("offset")?.as_u64()?.checked_sub(1)?;
        Some(json!({"line": line, "character": character}))
    };
    let severity = match d.get("category").and_then(Value::as_str) {
        Some("warning") => 2,
        Some("suggestion") => 4,
        _ => 1,
    };
    let mut tags = Vec::new();
    if d.get("reportsUnnecessary")
        .is_some_and(|v| v != &Value::Null && v != &json!(false))
    {
        tags.push(1);
    }
    if d.get("reportsDeprecated")
        .is_some_and(|v| v != &Value::Null && v != &json!(false))
    {
        tags.push(2);
    }
    Some(json!({
        "range": {"start": pos(d.get("start")?)?, "end": pos(d.get("end")?)?},
        "message": d.get("text")?,
        "severity": severity,
        "code": d.get("code").cloned().unwrap_or(Value::Null),
        "source": d.get("source").and_then(Value::as_str).unwrap_or("typescript"),
        "tags": tags,
    }))
}

#[cfg(test)]
mod tests {
    use super::{serves, to_lsp};
    use serde_json::json;

    #[test]
    fn a_tsserver_diagnostic_reads_as_the_server_publishes_it() {
        let d = json!({
            "start": {"line": 3, "offset": 7}, "end": {"line": 3, "offset": 12},
            "text": "Type 'string' is not assignable to type 'number'.",
            "code": 2322, "category": "error"
        });
        assert_eq!(
            to_lsp(&d),
            Some(json!({
                "range": {"start": {"line": 2, "character": 6}, "end": {"line": 2, "character": 11}},
                "message": "Type 'string' is not assignable to type 'number'.",
                "severity": 1, "code": 2322, "source": "typescript", "tags": []
            }))
        );
        let hint = json!({
            "start": {"line": 1, "offset": 1}, "end": {"line": 1, "offset": 4},
            "text": "'x' is deprecated.", "code": 6385, "category": "suggestion",
            "reportsDeprecated": {}
        });
        let h = to_lsp(&hint).expect("converts");
        assert_eq!(
            (h["severity"].clone(), h["tags"].clone()),
            (json!(4), json!([2]))
        );
        // Not a diagnostic: no line.
        assert_eq!(
            to_lsp(&json!({"start": {"offset": 1}, "end": {}, "text": "x"})),
            None
        );
        let offers = |c: serde_json::Value| json!({"executeCommandProvider": {"commands": c}});
        assert!(serves(&offers(json!([
            "_typescript.organizeImports",
            "typescript.tsserverRequest"
        ]))));
        assert!(!serves(&offers(json!(["pyright.organizeimports"]))));
        assert!(!serves(&json!({})));
    }
}
