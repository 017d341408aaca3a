//! Results as a model reads them. A command may declare a renderer
//! ([`CommandSpec::render`](crate::CommandSpec)) that turns its result data into text:
//! numbered lines for reads, `path:line: text` for matches, the plain diff for diffs, a
//! script's output as a terminal shows it. MCP sends that text as the tool result's content
//! (the JSON stays in `structuredContent`), so code reaches the model unescaped and costs
//! fewer tokens. Every renderer keeps every fact of the data: what has no place in the text
//! goes in a bracketed footer line.
//!
//! Renderers read the JSON of the result, not the typed value: one function serves every
//! command whose result has the same shape, and tests pin each rendering.

use std::fmt::Write as _;

use serde_json::Value;
use ultra_protocol::CommandError;

/// A renderer: the text for a result's data, or `None` to fall back to the JSON.
pub type Render = fn(&Value) -> Option<String>;

/// Longest text sent for one answer; past it the text is cut at a line and says how to
/// narrow the request down.
pub const MAX_TEXT: usize = 50 * 1024;

/// A result that carries its own rendering in `text` (seed 001's tools): that text, then a
/// footer with what it leaves out (paging cursor, truncation, the index's state).
pub fn text(v: &Value) -> Option<String> {
    let mut out = v.get("text")?.as_str()?.to_string();
    footer(&mut out, v);
    Some(out)
}

/// `get_lines`: `path:start-end (of N lines, hash H)`, then the lines as `cat -n` numbers
/// them, then whether the answer was full and where to go on.
pub fn lines(v: &Value) -> Option<String> {
    let body = v.get("text")?.as_str()?;
    let mut out = format!(
        "{}:{}-{} (of {} lines",
        v.get("path")?.as_str()?,
        v.get("start")?,
        v.get("end")?,
        v.get("totalLines").unwrap_or(&Value::Null)
    );
    if let Some(h) = v.get("hash").and_then(Value::as_str) {
        let _ = write!(out, ", hash {h}");
    }
    out.push_str(")\n");
    out.push_str(body);
    cut_notes(&mut out, v);
    footer(&mut out, v);
    Some(out)
}

/// Where numbered code stopped short (`nextStart`, `lineCut`), for the model to go on.
fn cut_notes(out: &mut String, v: &Value) {
    if let Some(cut) = v.get("lineCut").filter(|c| !c.is_null()) {
        let _ = writeln!(
            out,
            "[the last line was cut: it has {cut} bytes; the shell's `cut -c` or `head -c` reads it in pieces]"
        );
    }
    if let Some(next) = v.get("nextStart").filter(|n| !n.is_null()) {
        let _ = writeln!(
            out,
            "[the answer is full: get_lines with start={next} gives the rest]"
        );
    }
}

/// A function or class (`get_function`, `get_class`): what it is and where, its signature
/// and doc, its members as one line each, then its numbered source.
pub fn symbol(v: &Value) -> Option<String> {
    let code = v.get("code")?.as_str()?;
    let name = v.get("qualified").or_else(|| v.get("name"))?.as_str()?;
    let mut out = name.to_string();
    if let Some(kind) = v.get("kind").and_then(Value::as_str) {
        let _ = write!(out, " ({kind})");
    }
    let _ = writeln!(
        out,
        ", lines {}-{}",
        v.get("lineStart").unwrap_or(&Value::Null),
        v.get("lineEnd").unwrap_or(&Value::Null)
    );
    if let Some(sig) = v.get("signature").and_then(Value::as_str) {
        let _ = writeln!(out, "{sig}");
    }
    if let Some(doc) = v
        .get("doc")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
    {
        for line in doc.lines() {
            let _ = writeln!(out, "/// {line}");
        }
    }
    let member = |m: &Value| {
        let mut s = String::new();
        if m.get("isStatic") == Some(&Value::Bool(true)) {
            s.push_str("static ");
        }
        if m.get("isAsync") == Some(&Value::Bool(true)) {
            s.push_str("async ");
        }
        if m.get("isReadonly") == Some(&Value::Bool(true)) {
            s.push_str("readonly ");
        }
        s.push_str(m.get("name").and_then(Value::as_str).unwrap_or("?"));
        if let Some(params) = m.get("params").and_then(Value::as_array) {
            let p: Vec<&str> = params.iter().filter_map(Value::as_str).collect();
            let _ = write!(s, "({})", p.join(", "));
        }
        s
    };
    for key in ["methods", "properties"] {
        if let Some(items) = v
            .get(key)
            .and_then(Value::as_array)
            .filter(|i| !i.is_empty())
        {
            let list: Vec<String> = items.iter().map(member).collect();
            let _ = writeln!(out, "[{key}: {}]", list.join("; "));
        }
    }
    let skip = [
        "code",
        "name",
        "qualified",
        "kind",
        "lineStart",
        "lineEnd",
        "signature",
        "doc",
        "methods",
        "properties",
        "index",
        "nextStart",
        "lineCut",
    ];
    let facts = other_facts(v, &skip);
    if !facts.is_empty() {
        let _ = writeln!(out, "[{}]", facts.join(", "));
    }
    out.push_str(code);
    cut_notes(&mut out, v);
    footer(&mut out, v);
    Some(out)
}

/// A file's content (`read_file`): a header with path, language, line range, hash and
/// state, then the lines numbered from `startLine` as `cat -n` does.
pub fn content(v: &Value) -> Option<String> {
    let text = v.get("content")?.as_str()?;
    let first = v.get("startLine").and_then(Value::as_u64).unwrap_or(1);
    let mut out = v.get("path")?.as_str()?.to_string();
    let mut facts = Vec::new();
    if let Some(lang) = v.get("language").and_then(Value::as_str) {
        facts.push(lang.to_string());
    }
    if let (Some(s), Some(e)) = (v.get("startLine"), v.get("endLine")) {
        facts.push(format!(
            "lines {s}-{e} of {}",
            v.get("lineCount").unwrap_or(&Value::Null)
        ));
    }
    if let Some(h) = v.get("hash").and_then(Value::as_str) {
        facts.push(format!("hash {h}"));
    }
    if v.get("isDirty") == Some(&Value::Bool(true)) {
        facts.push("unsaved changes".into());
    }
    if !facts.is_empty() {
        let _ = write!(out, " ({})", facts.join(", "));
    }
    out.push('\n');
    // Numbers as wide as the last one needs, not cat's six columns: a read is often the
    // biggest answer a model gets.
    let last = first + text.lines().count() as u64;
    let width = last.to_string().len();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let _ = write!(out, "{:>width$}\t{line}", first + i as u64);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        out.push_str("\n[no newline at end]\n");
    }
    footer(&mut out, v);
    Some(out)
}

/// A script's or program's output (`shell`, the promoted tools, `run_command`): stdout,
/// then stderr, then the exit status and anything else the result says.
pub fn output(v: &Value) -> Option<String> {
    let stdout = v.get("stdout")?.as_str()?;
    let mut out = stdout.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(err) = v
        .get("stderr")
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty())
    {
        out.push_str("[stderr]\n");
        out.push_str(err);
        if !err.ends_with('\n') {
            out.push('\n');
        }
    }
    let mut facts = Vec::new();
    if let Some(code) = v.get("exitCode") {
        facts.push(format!("exit {code}"));
    }
    facts.extend(other_facts(v, &["stdout", "stderr", "exitCode", "errors"]));
    let _ = writeln!(out, "[{}]", facts.join(", "));
    for e in v
        .get("errors")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let _ = write!(
            out,
            "[{}: {}",
            e.get("code").and_then(Value::as_str).unwrap_or("error"),
            e.get("message").and_then(Value::as_str).unwrap_or("")
        );
        if let Some(close) = e
            .get("closest")
            .and_then(Value::as_array)
            .filter(|c| !c.is_empty())
        {
            let names: Vec<&str> = close.iter().filter_map(Value::as_str).collect();
            let _ = write!(out, "; closest: {}", names.join(", "));
        }
        out.push_str("]\n");
    }
    Some(out)
}

/// A run's report (`run_tests`): its output, then every other fact of the result.
pub fn report(v: &Value) -> Option<String> {
    let mut out = v.get("output")?.as_str()?.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "[{}]", other_facts(v, &["output"]).join(", "));
    Some(out)
}

/// `key value` for each field of `v` but `skip`, leaving out what is empty, false or null
/// (`true` is just the key).
fn other_facts(v: &Value, skip: &[&str]) -> Vec<String> {
    let mut facts = Vec::new();
    for (key, value) in v.as_object().into_iter().flatten() {
        if skip.contains(&key.as_str()) {
            continue;
        }
        match value {
            Value::Null | Value::Bool(false) => {}
            Value::String(s) if s.is_empty() => {}
            Value::Bool(true) => facts.push(key.clone()),
            Value::String(s) => facts.push(format!("{key} {s}")),
            other => facts.push(format!("{key} {other}")),
        }
    }
    facts
}

/// A diff (`git_diff`): the unified diff, then the totals.
pub fn diff(v: &Value) -> Option<String> {
    let mut out = v.get("diff")?.as_str()?.to_string();
    let files = v.get("files").and_then(Value::as_array).map_or(0, Vec::len);
    let _ = writeln!(
        out,
        "[{files} file(s), +{} -{}]",
        v.get("totalInsertions").unwrap_or(&Value::Null),
        v.get("totalDeletions").unwrap_or(&Value::Null)
    );
    footer(&mut out, v);
    Some(out)
}

/// A result that carries a ready summary in `output` (`git_status`).
pub fn summary(v: &Value) -> Option<String> {
    let mut out = v.get("output")?.as_str()?.to_string();
    footer(&mut out, v);
    Some(out)
}

/// The bracketed facts a rendering would otherwise drop: more pages, truncation, an index
/// that is not ready yet.
fn footer(out: &mut String, v: &Value) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(cursor) = v.get("nextCursor").filter(|c| !c.is_null()) {
        let _ = writeln!(out, "[more: pass cursor {cursor} for the next page]");
    }
    if v.get("truncated") == Some(&Value::Bool(true)) {
        out.push_str("[truncated]\n");
    }
    if let Some(index) = v
        .get("index")
        .filter(|i| i.get("state") != Some(&Value::from("ready")))
    {
        let _ = writeln!(out, "[index {index}]");
    }
}

/// An error as a model reads it: code and message, what to do, the details.
pub fn error(e: &CommandError) -> String {
    let mut out = format!("Error {}: {}\n", e.code.as_str(), e.message);
    if let Some(s) = &e.suggestion {
        let _ = writeln!(out, "Try: {s}");
    }
    if let Some(d) = &e.details {
        let _ = writeln!(out, "Details: {d}");
    }
    if !e.recoverable {
        out.push_str("(retrying the same call will not help)\n");
    }
    out
}

/// `text` cut to [`MAX_TEXT`] bytes at a line end, with a note saying how much was left
/// out and how to get it: from the structured copy of the answer when `whole_elsewhere`
/// (it holds everything the text shows), else by asking for less.
pub fn capped(text: String, whole_elsewhere: bool) -> String {
    if text.len() <= MAX_TEXT {
        return text;
    }
    let mut cut = MAX_TEXT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').map_or(cut, |i| i + 1);
    let mut out = text[..cut].to_string();
    let whole = if whole_elsewhere {
        "the full answer is in structuredContent; "
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "[cut at {cut} of {} bytes: {whole}ask for less (a line range, a narrower path or pattern, a limit)]",
        text.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lines_keep_every_fact() {
        let v = json!({"path": "a.rs", "start": 2, "end": 3, "totalLines": 9, "text": "     2\tb\n     3\tc\n", "hash": "ab"});
        assert_eq!(
            lines(&v).unwrap(),
            "a.rs:2-3 (of 9 lines, hash ab)\n     2\tb\n     3\tc\n"
        );
        let full = json!({"path": "a.rs", "start": 2, "end": 2, "totalLines": 9, "text": "     2\tbbb\n",
            "hash": "ab", "nextStart": 3, "lineCut": 70000});
        assert_eq!(
            lines(&full).unwrap(),
            "a.rs:2-2 (of 9 lines, hash ab)\n     2\tbbb\n[the last line was cut: it has 70000 bytes; the shell's `cut -c` or `head -c` reads it in pieces]\n[the answer is full: get_lines with start=3 gives the rest]\n"
        );
    }

    #[test]
    fn content_is_numbered_from_its_first_line() {
        let v = json!({"path": "a.rs", "content": "x\ny", "language": "rust", "lineCount": 9,
            "startLine": 4, "endLine": 5, "truncated": true, "hash": "ab", "isDirty": false});
        assert_eq!(
            content(&v).unwrap(),
            "a.rs (rust, lines 4-5 of 9, hash ab)\n4\tx\n5\ty\n[no newline at end]\n[truncated]\n"
        );
    }

    #[test]
    fn output_shows_streams_then_status_and_errors() {
        let v = json!({"stdout": "a\n", "stderr": "oops\n", "exitCode": 127, "truncated": false,
            "cwd": "src", "errors": [{"code": "unknown_command", "message": "lx: command not found", "closest": ["ls"]}]});
        assert_eq!(
            output(&v).unwrap(),
            "a\n[stderr]\noops\n[exit 127, cwd src]\n[unknown_command: lx: command not found; closest: ls]\n"
        );
    }

    #[test]
    fn symbols_show_members_and_facts() {
        let v = json!({"name": "Db", "kind": "class", "lineStart": 1, "lineEnd": 3, "doc": "Data.",
            "methods": [{"name": "get", "isStatic": false, "isAsync": true, "params": ["id: string"]}],
            "properties": [], "isExported": true, "extends": null, "implements": ["A"],
            "code": "     1\tclass Db {\n", "index": {"state": "ready"}});
        assert_eq!(
            symbol(&v).unwrap(),
            "Db (class), lines 1-3\n/// Data.\n[methods: async get(id: string)]\n[isExported, implements [\"A\"]]\n     1\tclass Db {\n"
        );
        let long = json!({"name": "f", "kind": "function", "lineStart": 1, "lineEnd": 900,
            "code": "     1\tfn f() {\n", "nextStart": 2, "index": {"state": "ready"}});
        assert_eq!(
            symbol(&long).unwrap(),
            "f (function), lines 1-900\n     1\tfn f() {\n[the answer is full: get_lines with start=2 gives the rest]\n"
        );
    }

    #[test]
    fn report_keeps_the_facts() {
        let v = json!({"runner": "cargo", "command": ["cargo", "test"], "passed": false, "exitCode": 101,
            "output": "test a ... FAILED", "stats": {"failed": 1}, "duration": 12, "timedOut": false});
        assert_eq!(
            report(&v).unwrap(),
            "test a ... FAILED\n[runner cargo, command [\"cargo\",\"test\"], exitCode 101, stats {\"failed\":1}, duration 12]\n"
        );
    }

    #[test]
    fn footers_name_pages_and_index_state() {
        let v = json!({"text": "1. a.rs:1", "nextCursor": "c2", "index": {"state": "building", "files": 3}});
        assert_eq!(
            text(&v).unwrap(),
            "1. a.rs:1\n[more: pass cursor \"c2\" for the next page]\n[index {\"state\":\"building\",\"files\":3}]\n"
        );
    }

    #[test]
    fn long_text_is_cut_at_a_line() {
        let t = "x".repeat(100) + "\n";
        let out = capped(t.repeat(1000), true);
        assert!(out.len() < MAX_TEXT + 300);
        assert!(out.contains("[cut at "), "{}", &out[out.len() - 200..]);
        let body = out.rsplit_once("[cut").unwrap().0;
        assert!(body.ends_with('\n') && body.lines().all(|l| l.len() == 100));
        assert!(out.contains("the full answer is in structuredContent"));
        // When the structured copy does not hold the text, the note does not send the
        // model looking for it there.
        let out = capped(t.repeat(1000), false);
        assert!(out.contains("ask for less"), "{}", &out[out.len() - 200..]);
        assert!(!out.contains("structuredContent"));
    }
}
