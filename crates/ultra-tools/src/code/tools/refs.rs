//! Where names are: `find_references`, `find_definition`.

use super::*;
use crate::code::place::{pos, rope_of};
use crate::code::semantic::{self, AnsweredBy, Precision};
use ropey::Rope;
use ultra_index::Reference;

// ---------------------------------------------------------------- find_references

/// Arguments of `find_references`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindReferencesArgs {
    /// The identifier.
    pub symbol: String,
    /// Only files under this path; with `line`, the file where the symbol is used.
    pub path: Option<String>,
    /// A line (1-based) of the file `path` where `symbol` occurs.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// Lines of context on each side (default 1).
    pub context_lines: Option<u32>,
    /// Most references returned (default 100).
    pub limit: Option<usize>,
    /// Skip this many (from a previous answer's `nextCursor`).
    pub cursor: Option<usize>,
}

/// One reference.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceInfo {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub context: Vec<String>,
    pub is_definition: bool,
}

/// Result of `find_references`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct References {
    pub symbol: String,
    pub total_references: usize,
    pub references: Vec<ReferenceInfo>,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    /// `semantic` only with `line`, when the file's language server answered.
    #[serde(flatten)]
    pub by: AnsweredBy,
    pub text: String,
    pub index: IndexState,
}

/// The references of the `symbol` on `line` of the file `path` (indexed), from its
/// language server, as (path, reference); or why the server did not answer.
fn semantic_references(
    cx: &Cx<'_, Services>,
    idx: &ultra_index::Index,
    path: &str,
    symbol: &str,
    line: u32,
) -> Result<semantic::Answered<Vec<(String, Reference)>>, CommandError> {
    let file = idx.get(path).ok_or_else(|| not_indexed(path))?;
    let at = file
        .references_to(symbol)
        .find(|r| r.line == line)
        .ok_or_else(|| {
            CommandError::new(
                ErrorCode::SymbolNotFound,
                format!("`{symbol}` does not occur on line {line} of {path}"),
            )
            .with_suggestion("give the line where the name is (get_lines shows them), or leave out `line` for every occurrence by name")
        })?;
    let rope = rope_of(cx, path).unwrap_or_default();
    let enc = cx.source.encoding();
    let position = pos(&rope, at.line, at.column, enc);
    let asked = semantic::ask(
        cx,
        path,
        &rope,
        position,
        "textDocument/references",
        json!({ "context": { "includeDeclaration": true } }),
    );
    let (v, server) = match asked {
        Ok(v) => v,
        Err(why) => return Ok(Err(why)),
    };
    let mut out = Vec::new();
    let mut ropes: std::collections::HashMap<String, Rope> = std::collections::HashMap::new();
    // References outside the workspace (a library's) are not the agent's to change.
    for l in semantic::locations(cx, &v, server, 10_000)
        .into_iter()
        .filter(|l| !l.path.starts_with('/'))
    {
        let rope = ropes
            .entry(l.path.clone())
            .or_insert_with(|| rope_of(cx, &l.path).unwrap_or_default());
        let Ok(ch) = ultra_workspace::text::to_char(rope, l.range.start, enc) else {
            continue;
        };
        let line0 = rope.char_to_line(ch);
        let column = (rope.char_to_byte(ch) - rope.line_to_byte(line0)) as u32;
        let line = line0 as u32 + 1;
        let is_definition = idx.get(&l.path).is_some_and(|f| {
            f.references_to(symbol)
                .any(|r| r.line == line && r.column == column && r.is_definition)
        });
        out.push((
            l.path,
            Reference {
                name: symbol.to_string(),
                line,
                column,
                is_definition,
            },
        ));
    }
    out.sort_by(|a, b| (&a.0, a.1.line, a.1.column).cmp(&(&b.0, b.1.line, b.1.column)));
    Ok(Ok(out))
}

/// `find_references`.
pub struct FindReferences;

impl Command<Services> for FindReferences {
    type Args = FindReferencesArgs;
    type Output = References;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.findReferences",
        "Code: Find References",
        "Code",
        "Every occurrence of an identifier in code (not in comments or strings), definitions flagged, with context lines; `path` limits it to a directory or file. With `line`: only that symbol's, from its language server (`precision`). Paged with `limit`/`cursor` (32 KB a page).",
    )
    .render(ultra_core::render::text)
    .touches(Touches::READ)
    .tool_name("find_references")
    .read_only()
    .examples(&[Example {
        description: "Where a class is used",
        args: r#"{"symbol": "Db", "contextLines": 0}"#,
        files: FIXTURE,
        expect: Some(r#"{"symbol": "Db", "totalReferences": 3, "references": [{"path": "src/db.ts", "line": 1, "isDefinition": true}, {"path": "src/service.ts", "line": 1, "isDefinition": false}, {"path": "src/service.ts", "line": 5, "isDefinition": false}]}"#),
        ..Example::EMPTY
    }]);
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: FindReferencesArgs,
    ) -> Result<References, CommandError> {
        let under = scope(cx, a.path.as_deref())?;
        let (code, state) = cx.services.code(&[]);
        let mut by = AnsweredBy::index(None);
        let mut semantic_refs = None;
        if let Some(line) = a.line {
            if under.is_empty() {
                return Err(CommandError::new(
                    ErrorCode::InvalidArguments,
                    "`line` needs `path`: the file where the symbol occurs on that line",
                )
                .with_suggestion("add `path` (a file), or leave out `line`"));
            }
            match semantic_references(cx, &code.read(), &under, &a.symbol, line)? {
                Ok(refs) => {
                    semantic_refs = Some(refs);
                    by = AnsweredBy::server(&under);
                }
                Err(why) => by = AnsweredBy::index(why),
            }
        }
        // Without an answer from a server, a `line` asks about the name everywhere.
        let scope_all = a.line.is_some();
        let all: Vec<(String, Reference)> = match semantic_refs {
            Some(refs) => refs,
            None => {
                let files: Vec<std::sync::Arc<FileIndex>> = code
                    .read()
                    .files_with_name(&a.symbol)
                    .into_iter()
                    .filter(|f| {
                        scope_all
                            || under.is_empty()
                            || f.path == under
                            || f.path.starts_with(&format!("{under}/"))
                    })
                    .collect();
                let mut all = Vec::new();
                for f in &files {
                    for r in f.references_to(&a.symbol) {
                        all.push((f.path.clone(), r));
                    }
                }
                all
            }
        };
        let total = all.len();
        let (start, limit) = (
            a.cursor.unwrap_or(0),
            a.limit.unwrap_or(100).clamp(1, 10_000),
        );
        let radius = a.context_lines.unwrap_or(1).min(10);
        let mut references = Vec::new();
        let mut texts: std::collections::HashMap<String, LineIndex> =
            std::collections::HashMap::new();
        let mut page = Pager::new(limit);
        for (path, r) in all.into_iter().skip(start) {
            let text = texts
                .entry(path.clone())
                .or_insert_with(|| LineIndex::new(text_at(cx, &path)));
            let reference = ReferenceInfo {
                context: text.context(r.line, radius, Some(r.column)),
                path,
                line: r.line,
                column: r.column,
                is_definition: r.is_definition,
            };
            if !page.admit(&reference) {
                break;
            }
            references.push(reference);
        }
        let next = (start + references.len() < total).then_some(start + references.len());
        let mut text = format!(
            "Symbol: {}\nTotal references: {total}\nPrecision: {}\n",
            a.symbol,
            match (by.precision, &by.language_server) {
                (Precision::Semantic, _) =>
                    "semantic (the language server's references of this symbol)".to_string(),
                (_, Some(s)) => format!(
                    "syntactic (every occurrence of the name; the language server is {}: {})",
                    s.state,
                    s.reason.as_deref().unwrap_or("")
                ),
                _ => "syntactic (every occurrence of the name)".to_string(),
            }
        );
        for (i, r) in references.iter().enumerate() {
            let def = if r.is_definition { " (definition)" } else { "" };
            let _ = write!(text, "\n{}. {}:{}{def}\n", start + i + 1, r.path, r.line);
            for c in &r.context {
                let _ = writeln!(text, "   {c}");
            }
        }
        if let Some(n) = next {
            let _ = writeln!(
                text,
                "\n{}",
                more(total, n, page.full, "`path` or `contextLines: 0`")
            );
        }
        Ok(References {
            symbol: a.symbol,
            total_references: total,
            references,
            next_cursor: next,
            by,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- find_definition

/// Arguments of `find_definition`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindDefinitionArgs {
    /// The name (`Class.method` for a method).
    pub symbol: String,
    /// Only files under this path.
    pub path: Option<String>,
    /// Most in one answer (default 50, at most 1,000).
    pub limit: Option<usize>,
    /// The previous answer's `nextCursor`.
    pub cursor: Option<usize>,
}

/// One definition.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionInfo {
    pub path: String,
    pub line: u32,
    #[serde(rename = "type")]
    pub kind: DefKind,
    pub container: Option<String>,
    pub context: Vec<String>,
}

/// Result of `find_definition`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Definitions {
    pub symbol: String,
    /// This page of definitions, by path and line.
    pub definitions: Vec<DefinitionInfo>,
    /// Definitions in all pages.
    pub total: usize,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    pub text: String,
    pub index: IndexState,
}

/// `find_definition`.
pub struct FindDefinition;

/// The definitions of `symbol` by path and line, and the bare name looked up (a method
/// may be given as `Class.method`, which narrows by container).
pub fn definitions_of(
    idx: &ultra_index::Index,
    symbol: &str,
) -> (String, Vec<ultra_index::index::DefRef>) {
    let (container, name) = match symbol.rsplit_once('.') {
        Some((c, n)) if !c.is_empty() && !n.is_empty() => (Some(c), n),
        _ => (None, symbol),
    };
    let mut defs: Vec<_> = idx
        .definitions(name)
        .into_iter()
        .filter(|d| container.is_none() || d.def().container.as_deref() == container)
        .collect();
    defs.sort_by(|a, b| {
        (a.file.path.as_str(), a.def().line).cmp(&(b.file.path.as_str(), b.def().line))
    });
    (name.to_string(), defs)
}

impl Command<Services> for FindDefinition {
    type Args = FindDefinitionArgs;
    type Output = Definitions;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.findDefinition",
        "Code: Find Definition",
        "Code",
        "Where a symbol is defined: every definition (overloads, re-declarations) with type and context, by path and line, paged with `limit`/`cursor`; a miss is SYMBOL_NOT_FOUND with near names.",
    )
    .render(ultra_core::render::text)
    .touches(Touches::READ)
    .tool_name("find_definition")
    .read_only()
    .examples(&[
        Example {
            description: "A class",
            args: r#"{"symbol": "UserService"}"#,
            files: FIXTURE,
            expect: Some(r#"{"definitions": [{"path": "src/service.ts", "line": 4, "type": "class"}]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "A near miss suggests the real names",
            args: r#"{"symbol": "findByid"}"#,
            files: FIXTURE,
            error: Some("SYMBOL_NOT_FOUND"),
            ..Example::EMPTY
        },
    ]);
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: FindDefinitionArgs,
    ) -> Result<Definitions, CommandError> {
        let under = scope(cx, a.path.as_deref())?;
        let (code, state) = cx.services.code(&[]);
        let (name, mut defs) = definitions_of(&code.read(), &a.symbol);
        if !under.is_empty() {
            defs.retain(|d| d.file.path == under || d.file.path.starts_with(&format!("{under}/")));
        }
        if defs.is_empty() {
            let idx = code.read();
            let suggestions: Vec<serde_json::Value> = idx
                .similar_names(&name, 5)
                .into_iter()
                .flat_map(|n| idx.definitions(&n).into_iter().take(2))
                .map(|d| json!({ "name": d.def().name, "path": d.file.path, "line": d.def().line }))
                .take(8)
                .collect();
            let list: Vec<String> = suggestions
                .iter()
                .map(|s| {
                    format!(
                        "  - {} ({}:{})",
                        s["name"].as_str().unwrap_or(""),
                        s["path"].as_str().unwrap_or(""),
                        s["line"]
                    )
                })
                .collect();
            let mut message = match &a.path {
                Some(p) if !under.is_empty() => {
                    format!("Symbol '{}' not found under {p}.", a.symbol)
                }
                _ => format!("Symbol '{}' not found.", a.symbol),
            };
            if !list.is_empty() {
                message.push_str(&format!("\n\nDid you mean?\n{}", list.join("\n")));
            }
            return Err(CommandError::new(ErrorCode::SymbolNotFound, message)
                .with_details(
                    json!({ "symbol": a.symbol, "suggestions": suggestions, "index": state }),
                )
                .with_suggestion(if state.state == "warming" {
                    "the index is still warming up; retry in a moment".to_string()
                } else {
                    "check the spelling (see the suggestions) or search text with grep -rn"
                        .to_string()
                }));
        }
        let total = defs.len();
        let start = a.cursor.unwrap_or(0).min(total);
        let limit = a.limit.unwrap_or(50).clamp(1, 1_000);
        let mut definitions = Vec::new();
        // One read per file, however many definitions it has.
        let mut file: Option<(String, LineIndex)> = None;
        let mut page = Pager::new(limit);
        for d in defs.into_iter().skip(start) {
            if file.as_ref().is_none_or(|(p, _)| *p != d.file.path) {
                let text = text_at(cx, &d.file.path);
                file = Some((d.file.path.clone(), LineIndex::new(text)));
            }
            let lines = file.as_ref().map(|(_, l)| l);
            let info = DefinitionInfo {
                path: d.file.path.clone(),
                line: d.def().line,
                kind: d.def().kind,
                container: d.def().container.clone(),
                context: lines
                    .map(|l| l.context(d.def().line, 1, Some(d.def().column)))
                    .unwrap_or_default(),
            };
            if !page.admit(&info) {
                break;
            }
            definitions.push(info);
        }
        let next_cursor = (start + definitions.len() < total).then_some(start + definitions.len());
        let mut text = format!(
            "Symbol: {}\nFound {} definition{}:\n",
            a.symbol,
            total,
            if total == 1 { "" } else { "s" }
        );
        for d in &definitions {
            let kind = serde_json::to_value(d.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let _ = write!(text, "\n{}:{} ({kind})\n", d.path, d.line);
            for c in &d.context {
                let _ = writeln!(text, "   {c}");
            }
        }
        if let Some(n) = next_cursor {
            let _ = writeln!(
                text,
                "\n{}",
                more(total, n, page.full, "`path` or `Class.method`")
            );
        }
        Ok(Definitions {
            symbol: a.symbol,
            definitions,
            total,
            next_cursor,
            text,
            index: state,
        })
    }
}
