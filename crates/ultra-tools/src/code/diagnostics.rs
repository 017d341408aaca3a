//! `state.getDiagnostics` (also `ultra.getDiagnostics`): the parser's syntax errors and, for
//! a file a language server serves, the server's own diagnostics (type errors, warnings,
//! with their `code`), merged and paged. The answer says whether the server answered
//! (`languageServer.state`: `ready`, `warming` while it starts or has not yet published,
//! `unavailable` with the reason), so an empty list is never mistaken for a clean file.

use std::time::Duration;

use ropey::Rope;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, PositionEncoding, Range};

use super::IndexState;
use super::page::{Pager, clip};
use super::place::{pos, rope_of};
use super::semantic::ServerAnswer;
use super::state::{FIXTURE, file_record};
use ultra_services::Services;
use ultra_services::util::file_uri;

/// Register `state.getDiagnostics`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetDiagnostics)?;
    Ok(())
}

/// How long a query waits for a language server's diagnostics (its start included) before
/// it answers with the syntax errors and `warming`.
const SERVER_WAIT: Duration = Duration::from_secs(5);

// ---------------------------------------------------------------- getDiagnostics

/// Arguments of `state.getDiagnostics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DiagnosticsArgs {
    /// One file (default: every indexed file).
    pub path: Option<String>,
    /// Only diagnostics of this severity, or of any of these (seed 000's filter; default:
    /// all).
    pub severity: Option<SeverityFilter>,
    /// Most diagnostics in one answer (default 200; a page also ends at 32 KB).
    pub limit: Option<usize>,
    /// Where to continue: the `nextCursor` of the previous answer.
    pub cursor: Option<usize>,
}

/// A diagnostic's severity (seed 003's `Diagnostic.severity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

/// `severity`: one severity or a list of them.
#[derive(Debug, JsonSchema)]
#[serde(untagged)]
pub enum SeverityFilter {
    One(Severity),
    Any(Vec<Severity>),
}

// By hand: an untagged enum's error ("did not match any variant") would not say what is.
impl<'de> Deserialize<'de> for SeverityFilter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let one = |v: serde_json::Value| {
            serde_json::from_value::<Severity>(v.clone()).map_err(|_| {
                serde::de::Error::custom(format!(
                    "unknown severity {v}: expected error, warning, info or hint, or a list of them"
                ))
            })
        };
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Array(items) => items
                .into_iter()
                .map(one)
                .collect::<Result<_, _>>()
                .map(SeverityFilter::Any),
            other => one(other).map(SeverityFilter::One),
        }
    }
}

impl SeverityFilter {
    fn admits(&self, s: Severity) -> bool {
        match self {
            SeverityFilter::One(one) => *one == s,
            SeverityFilter::Any(any) => any.contains(&s),
        }
    }
}

/// A seed 003 diagnostic.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub path: String,
    pub uri: String,
    pub range: Range,
    pub message: String,
    pub severity: Severity,
    /// `tree-sitter` for syntax errors; otherwise the language server's own name for
    /// itself (`Pyright`, `typescript`, ...).
    pub source: String,
    /// The server's code for it (`reportArgumentType`, `2322`), when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl Diagnostic {
    /// The parser's syntax error `e` in `path`, its range in `enc`.
    pub(crate) fn syntax(
        path: &str,
        uri: &str,
        e: &ultra_index::SyntaxError,
        rope: &Rope,
        enc: PositionEncoding,
    ) -> Diagnostic {
        Diagnostic {
            path: path.to_string(),
            uri: uri.to_string(),
            range: Range::new(
                pos(rope, e.line, e.column, enc),
                pos(rope, e.end_line, e.end_column, enc),
            ),
            message: clip(&e.message, None),
            severity: Severity::Error,
            source: "tree-sitter".into(),
            code: None,
        }
    }
}

/// Result of `state.getDiagnostics`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostics {
    /// This page, by path and position.
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics in all pages.
    pub total: usize,
    /// Files with at least one.
    pub files: usize,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    pub index: IndexState,
    /// For one file a language server serves: whether its diagnostics are included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_server: Option<ServerAnswer>,
    /// Without `path`: files whose function bodies were not checked for syntax errors (a
    /// first index of many files parses Rust and C in outline, skipping bodies that
    /// declare nothing). Ask with `path` to check one whole; an edit or save checks it too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bodies_unchecked: Option<usize>,
}

/// `state.getDiagnostics`.
pub struct GetDiagnostics;

impl Command<Services> for GetDiagnostics {
    type Args = DiagnosticsArgs;
    type Output = Diagnostics;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.getDiagnostics",
        "State: Get Diagnostics",
        "State",
        "Problems in the workspace's code: syntax errors from the parser (severity error) and, for one `path` a language server serves (pyright, typescript-language-server, rust-analyzer, gopls, clangd: configured in `lsp`, or found on PATH), the server's type errors and warnings with their `code`; `languageServer.state` says whether they are in (`ready`), still coming (`warming`: ask again) or `unavailable` (and why). Without `path`: every file's syntax errors, and what the servers last said of the files they were shown. One file or all, optionally only those of a severity (error, warning, info, hint) or list of severities. Paged with `limit`/`cursor` (a page at most 32 KB); `total` counts them all.",
    )
    .touches(Touches::READ)
    .aliases(&["ultra.getDiagnostics"])
    .read_only()
    // It may wait seconds for a language server: off the runtime's worker threads.
    .long()
    .examples(&[Example {
        description: "A syntax error in Python",
        args: r#"{"path": "bad.py"}"#,
        files: FIXTURE,
        expect: Some(r#"{"diagnostics": [{"path": "bad.py", "severity": "error", "source": "tree-sitter", "range": {"start": {"line": 3}}}]}"#),
        ..Example::EMPTY
    }, Example {
        description: "Only warnings and hints: the parser reports errors only",
        args: r#"{"path": "bad.py", "severity": ["warning", "hint"]}"#,
        files: FIXTURE,
        expect: Some(r#"{"diagnostics": []}"#),
        ..Example::EMPTY
    }]);
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: DiagnosticsArgs,
    ) -> Result<Diagnostics, CommandError> {
        let wanted = |s: Severity| a.severity.as_ref().is_none_or(|f| f.admits(s));
        let limit = a.limit.unwrap_or(200).clamp(1, 10_000);
        let Some(path) = &a.path else {
            return all_files(cx, &a, limit);
        };
        let (f, index) = file_record(cx, path)?;
        let enc = cx.source.encoding();
        let uri = file_uri(cx.services.root_path(), &f.path);
        let rope = rope_of(cx, &f.path).unwrap_or_default();
        // A record parsed in outline lacks errors inside function bodies: parse it whole.
        let whole = f
            .outline
            .then(|| ultra_index::index_file(&f.path, rope.to_string().as_bytes()).errors);
        let mut all: Vec<Diagnostic> = whole
            .as_ref()
            .unwrap_or(&f.errors)
            .iter()
            .map(|e| Diagnostic::syntax(&f.path, &uri, e, &rope, enc))
            .collect();
        let language_server = semantic(cx, &f.path, &uri, &rope, enc, &mut all);
        all.retain(|d| wanted(d.severity));
        all.sort_by(|x, y| {
            (x.range.start.line, x.range.start.character)
                .cmp(&(y.range.start.line, y.range.start.character))
        });
        let total = all.len();
        let start = a.cursor.unwrap_or(0).min(total);
        let mut page = Pager::new(limit);
        let diagnostics: Vec<Diagnostic> = all
            .into_iter()
            .skip(start)
            .take_while(|d| page.admit(d))
            .collect();
        let next_cursor = (start + diagnostics.len() < total).then_some(start + diagnostics.len());
        Ok(Diagnostics {
            diagnostics,
            total,
            files: usize::from(total > 0),
            next_cursor,
            index,
            language_server,
            bodies_unchecked: None,
        })
    }
}

/// The language server's diagnostics for `path` (its current text, the buffer's when open)
/// added to `out`, and whether they came.
fn semantic(
    cx: &mut Cx<'_, Services>,
    path: &str,
    uri: &str,
    rope: &Rope,
    enc: PositionEncoding,
    out: &mut Vec<Diagnostic>,
) -> Option<ServerAnswer> {
    let (language, _) = ultra_lsp::language_of(path)?;
    let answer = |state: &str, reason: Option<String>| ServerAnswer {
        language: language.to_string(),
        state: state.into(),
        reason,
    };
    let abs = cx.services.root_path().join(path);
    let text = rope.to_string();
    let (client, published) = match cx.services.lsp().diagnostics(&abs, &text, SERVER_WAIT) {
        Ok(r) => r,
        Err(e @ ultra_lsp::LspError::Starting { .. }) => {
            return Some(answer("warming", Some(format!("{e}; ask again"))));
        }
        Err(e) => return Some(answer("unavailable", Some(e.to_string()))),
    };
    let Some(published) = published else {
        return Some(answer(
            "warming",
            Some(format!(
                "the language server has not published diagnostics for {path} within {} s; ask again",
                SERVER_WAIT.as_secs()
            )),
        ));
    };
    out.extend(from_server(
        &published,
        client.encoding(),
        (path, uri, language),
        rope,
        enc,
    ));
    Some(answer("ready", None))
}

/// What a server published for the file `(path, uri, language)` whose text is `rope`,
/// as diagnostics with ranges in `enc` (the server's are in `server_enc`).
pub(crate) fn from_server(
    published: &ultra_lsp::Published,
    server_enc: ultra_lsp::PositionEncoding,
    (path, uri, language): (&str, &str, &str),
    rope: &Rope,
    enc: PositionEncoding,
) -> Vec<Diagnostic> {
    let at = |p: &serde_json::Value| {
        let line = p["line"].as_u64().unwrap_or(0) as usize;
        let line = line.min(rope.len_lines().saturating_sub(1));
        let text = rope.line(line).to_string();
        let col = u32::try_from(p["character"].as_u64().unwrap_or(0)).unwrap_or(u32::MAX);
        let byte = server_enc.byte(&text, col);
        pos(rope, line as u32 + 1, byte as u32, enc)
    };
    published
        .diagnostics
        .iter()
        .map(|d| Diagnostic {
            path: path.to_string(),
            uri: uri.to_string(),
            range: Range::new(at(&d["range"]["start"]), at(&d["range"]["end"])),
            message: clip(d["message"].as_str().unwrap_or(""), None),
            severity: match d["severity"].as_u64() {
                Some(2) => Severity::Warning,
                Some(3) => Severity::Info,
                Some(4) => Severity::Hint,
                _ => Severity::Error,
            },
            source: d["source"].as_str().unwrap_or(language).to_string(),
            code: match &d["code"] {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            },
        })
        .collect()
}

/// Every indexed file's syntax errors and what the language servers last published for
/// the files they were shown, by path, paged without building the syntax-only pages before
/// the cursor.
fn all_files(
    cx: &mut Cx<'_, Services>,
    a: &DiagnosticsArgs,
    limit: usize,
) -> Result<Diagnostics, CommandError> {
    let (code, index) = cx.services.code(&[]);
    let enc = cx.source.encoding();
    let root = cx.services.root_path().to_path_buf();
    let wanted = |s: Severity| a.severity.as_ref().is_none_or(|f| f.admits(s));
    // Files a server published for: merged in full (they are the few it was shown).
    let mut merged: std::collections::BTreeMap<String, Vec<Diagnostic>> = Default::default();
    for (language, path, server_enc, published) in cx.services.lsp().published() {
        let Some(rel) = path.strip_prefix(&root).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        if published.diagnostics.is_empty() {
            continue;
        }
        let Some(rope) = rope_of(cx, rel) else {
            continue;
        };
        let uri = file_uri(&root, rel);
        let mut all: Vec<Diagnostic> = code
            .read()
            .get(rel)
            .map(|f| {
                f.errors
                    .iter()
                    .map(|e| Diagnostic::syntax(rel, &uri, e, &rope, enc))
                    .collect()
            })
            .unwrap_or_default();
        all.extend(from_server(
            &published,
            server_enc,
            (rel, &uri, language),
            &rope,
            enc,
        ));
        all.retain(|d| wanted(d.severity));
        all.sort_by_key(|d| (d.range.start.line, d.range.start.character));
        if !all.is_empty() {
            merged.insert(rel.to_string(), all);
        }
    }
    // The rest: the parser's syntax errors, all of severity error.
    let syntax: Vec<_> = code
        .read()
        .files()
        .filter(|f| {
            !f.errors.is_empty() && wanted(Severity::Error) && !merged.contains_key(&f.path)
        })
        .cloned()
        .collect();
    enum Entry<'a> {
        Merged(&'a str, &'a [Diagnostic]),
        Syntax(&'a ultra_index::FileIndex),
    }
    let mut entries: Vec<Entry> = merged
        .iter()
        .map(|(p, d)| Entry::Merged(p, d))
        .chain(syntax.iter().map(|f| Entry::Syntax(f)))
        .collect();
    let path_of = |e: &Entry| match e {
        Entry::Merged(p, _) => p.to_string(),
        Entry::Syntax(f) => f.path.clone(),
    };
    entries.sort_by_key(|e| path_of(e));
    let count = |e: &Entry| match e {
        Entry::Merged(_, d) => d.len(),
        Entry::Syntax(f) => f.errors.len(),
    };
    let total: usize = entries.iter().map(count).sum();
    let start = a.cursor.unwrap_or(0).min(total);
    let mut page = Pager::new(limit);
    let mut diagnostics = Vec::new();
    let mut skip = start;
    'files: for e in &entries {
        if skip >= count(e) {
            skip -= count(e);
            continue;
        }
        let skipped = std::mem::take(&mut skip);
        let these: Vec<Diagnostic> = match e {
            Entry::Merged(_, d) => d[skipped..].to_vec(),
            Entry::Syntax(f) => {
                let Some(rope) = rope_of(cx, &f.path) else {
                    continue;
                };
                let uri = file_uri(&root, &f.path);
                f.errors
                    .iter()
                    .skip(skipped)
                    .map(|e| Diagnostic::syntax(&f.path, &uri, e, &rope, enc))
                    .collect()
            }
        };
        for d in these {
            if !page.admit(&d) {
                break 'files;
            }
            diagnostics.push(d);
        }
    }
    let next_cursor = (start + diagnostics.len() < total).then_some(start + diagnostics.len());
    let unchecked = code.read().files().filter(|f| f.outline).count();
    Ok(Diagnostics {
        diagnostics,
        total,
        files: entries.len(),
        next_cursor,
        index,
        language_server: None,
        bodies_unchecked: (unchecked > 0).then_some(unchecked),
    })
}
