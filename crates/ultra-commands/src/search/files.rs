//! Seed 003's `search.findInFiles` and `search.findAndReplace` over [`ultra_search`]: the
//! seed's `SearchOptions`, match ranges in the caller's position encoding, and replacements
//! applied as one atomic, undoable batch.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, PositionEncoding};
pub use ultra_search::{Found, Match, SearchOptions, SearchResult};
use ultra_search::{MAX_MAX, compile};

use ultra_services::Services;

/// Register the search methods.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(FindInFiles)?;
    r.register(FindAndReplace)?;
    Ok(())
}

/// Arguments of `search.findInFiles`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindArgs {
    /// Text or (with `useRegex`) a regex; at most 1,000 characters.
    #[schemars(length(max = 1000))]
    pub query: String,
    #[serde(default)]
    pub options: SearchOptions,
}

/// `search.findInFiles`.
pub struct FindInFiles;

impl Command<Services> for FindInFiles {
    type Args = FindArgs;
    type Output = Found;

    const SPEC: CommandSpec = CommandSpec::new(
        "search.findInFiles",
        "Find in Files",
        "Search",
        "Search the workspace's files (gitignore-aware; open buffers as edited) for text or a regex, with include/exclude globs, case and whole-word options; matches with 0-based ranges and a preview, in path order, capped by maxResults.",
    )
    .touches(Touches::READ)
    .long()
    .read_only()
    .examples(&[
        Example {
            description: "A word, case-insensitive",
            args: r#"{"query": "todo", "options": {"include": "*.ts"}}"#,
            files: &[("src/a.ts", "// TODO: x\nconst todo = 1;\n"), ("notes.md", "todo\n")],
            expect: Some(r#"{"count": 2, "results": [{"path": "src/a.ts"}]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A bad regex is an argument error",
            args: r#"{"query": "(", "options": {"useRegex": true}}"#,
            error: Some("INVALID_ARGUMENTS"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FindArgs) -> Result<Found, CommandError> {
        let query = compile(&a.query, &a.options)?;
        find(cx, &query, &a.options, cx.source.encoding(), false)
    }
}

/// [`ultra_search::find`] over the workspace, open buffers as edited.
fn find(
    cx: &Cx<'_, Services>,
    query: &ultra_search::Query,
    o: &SearchOptions,
    enc: PositionEncoding,
    keep: bool,
) -> Result<Found, CommandError> {
    let buffers: std::collections::HashMap<String, String> = {
        let ws = cx.services.ws();
        ws.buffers()
            .map(|b| (b.path.as_str().to_string(), b.rope.to_string()))
            .collect()
    };
    let root = cx.services.shell_root();
    let open: Vec<&str> = buffers.keys().map(String::as_str).collect();
    let files = match cx.services.text().candidates(root, &query.grams, &open) {
        Some(paths) => ultra_search::Files::Listed(paths),
        None => ultra_search::Files::Walk,
    };
    ultra_search::find(root, &buffers, query, o, enc, keep, &files)
}

/// Arguments of `search.findAndReplace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplaceArgs {
    /// Text or (with `useRegex`) a regex; at most 1,000 characters.
    #[schemars(length(max = 1000))]
    pub query: String,
    /// The new text; with `useRegex`, `$1` and `${name}` refer to the match's groups.
    pub replacement: String,
    #[serde(default)]
    pub options: SearchOptions,
}

/// What `search.findAndReplace` did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replaced {
    /// Occurrences replaced.
    pub count: usize,
    /// Files changed (and saved).
    pub files: Vec<String>,
    /// The transaction, for `ultra.undo {txnId}`: every file is undone together.
    pub txn_id: Option<u64>,
    /// For an agent's replacement in code: what it did to the files' problems.
    #[serde(flatten)]
    pub diagnostics: ultra_tools::code::after_edit::EditDiagnostics,
}

/// `search.findAndReplace`.
pub struct FindAndReplace;

impl Command<Services> for FindAndReplace {
    type Args = ReplaceArgs;
    type Output = Replaced;

    const SPEC: CommandSpec = CommandSpec::new(
        "search.findAndReplace",
        "Find and Replace in Files",
        "Search",
        "Replace every match of a search (search.findInFiles' options) across the workspace in one atomic transaction (every file or none, undone together), then save; answers the count.",
    )
    .touches(Touches::WRITE)
    .examples(&[Example {
        description: "Rename across files",
        args: r#"{"query": "oldName", "replacement": "newName", "options": {"wholeWord": true, "caseSensitive": true}}"#,
        files: &[
            ("a.ts", "oldName(); oldNameX();\n"),
            ("b.ts", "let y = oldName;\n"),
        ],
        expect: Some(r#"{"count": 2, "files": ["a.ts", "b.ts"]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: ReplaceArgs) -> Result<Replaced, CommandError> {
        let query = compile(&a.query, &a.options)?;
        let mut o = a.options;
        o.max_results = Some(MAX_MAX);
        // Byte columns, so each edit addresses exactly what matched.
        let found = find(cx, &query, &o, PositionEncoding::Utf8, true)?;
        if found.truncated {
            return Err(CommandError::new(
                ErrorCode::TooLarge,
                format!("more than {MAX_MAX} matches; nothing was replaced"),
            )
            .with_suggestion("narrow the search with options.include or a more specific query"));
        }
        let mut batch = Vec::new();
        let mut count = 0;
        // A long replacement times many matches multiplies: refuse before building it.
        let limit = ultra_workspace::workspace::MAX_BATCH_TEXT;
        let mut inserted = 0usize;
        for r in &found.results {
            let rel = cx.services.ws().root().lexical(&r.path)?;
            let mut edits = Vec::new();
            for m in &r.matches {
                // Checked before each copy is made (one expansion is bounded by its match).
                if inserted.saturating_add(a.replacement.len()) > limit {
                    return Err(ultra_workspace::WsError::EditTooLarge {
                        path: r.path.clone(),
                        size: inserted.saturating_add(a.replacement.len()) as u64,
                        limit: limit as u64,
                    }
                    .into());
                }
                let text = if query.literal {
                    a.replacement.clone()
                } else {
                    // Groups are expanded against exactly what matched.
                    match query.re.captures(&m.text) {
                        Some(caps) => {
                            let mut out = Vec::new();
                            caps.expand(a.replacement.as_bytes(), &mut out);
                            String::from_utf8_lossy(&out).into_owned()
                        }
                        None => a.replacement.clone(),
                    }
                };
                inserted += text.len();
                edits.push(ultra_workspace::workspace::EditOp::Range {
                    range: m.range,
                    text,
                    encoding: PositionEncoding::Utf8,
                });
                count += 1;
            }
            batch.push(ultra_workspace::workspace::FileEdits {
                path: rel,
                expected_version: None,
                expected_hash: None,
                edits,
            });
        }
        if batch.is_empty() {
            return Ok(Replaced {
                count: 0,
                files: Vec::new(),
                txn_id: None,
                diagnostics: Default::default(),
            });
        }
        let services = cx.services;
        let (outcome, diagnostics) =
            crate::edit::apply_reported(cx, services.ws(), batch, crate::edit::Finish::Save)?;
        let files = outcome.files.iter().map(|f| f.path.clone()).collect();
        Ok(Replaced {
            count,
            files,
            txn_id: Some(outcome.txn_id),
            diagnostics,
        })
    }
}
