//! Seed 003's state queries over the code index: `state.getSymbols`,
//! `state.goToDefinition`, `state.findReferences` and `state.getHover` (`diagnostics.rs` has
//! `state.getDiagnostics`). Positions are 0-based and counted in the caller's position
//! encoding, like every other seed 003 method.

use ropey::Rope;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_index::{DefKind, FileIndex};
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range};
use ultra_workspace::text::{to_char, to_pos};

use super::IndexState;
use super::place::{Location, pos, rope_of};
use super::semantic::{self, AnsweredBy, ServerAnswer};
use ultra_services::Services;
use ultra_services::util::{file_uri, is_human};

/// Register the state queries.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetSymbols)?;
    r.register(GoToDefinition)?;
    r.register(FindReferences)?;
    r.register(GetHover)?;
    Ok(())
}

const LIB_RS: &str = "/// Adds two numbers.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    pub fn norm(&self) -> i32 {\n        add(self.x, 0)\n    }\n}\n";
const BROKEN_PY: &str = "def ok():\n    pass\n\ndef broken(:\n    pass\n";
pub(super) const FIXTURE: &[(&str, &str)] = &[("src/lib.rs", LIB_RS), ("bad.py", BROKEN_PY)];

/// The range of `len` bytes from a 1-based line and byte column.
fn span(rope: &Rope, line: u32, byte_col: u32, len: usize, enc: PositionEncoding) -> Range {
    Range::new(
        pos(rope, line, byte_col, enc),
        pos(rope, line, byte_col + len as u32, enc),
    )
}

/// Whole lines `first..=last` (1-based).
fn lines_range(rope: &Rope, first: u32, last: u32, enc: PositionEncoding) -> Range {
    let l = (last.saturating_sub(1) as usize).min(rope.len_lines().saturating_sub(1));
    let end_char = rope.line_to_char(l) + ultra_workspace::text::line_len(rope, l);
    Range::new(pos(rope, first, 0, enc), to_pos(rope, end_char, enc))
}

/// Resolve a path argument and the file's record, refreshing the index first.
pub(super) fn file_record(
    cx: &Cx<'_, Services>,
    path: &str,
) -> Result<(std::sync::Arc<FileIndex>, IndexState), CommandError> {
    let rel = {
        let ws = cx.services.ws();
        ws.resolve_read(path, is_human(cx))?
    };
    let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
    let file = code.read().get(rel.as_str()).ok_or_else(|| {
        CommandError::new(
            ErrorCode::FileNotFound,
            format!("{path} is not indexed (not a source file of a known language, or missing)"),
        )
    })?;
    Ok((file, state))
}

/// The identifier at a position, as (name, line, byte column).
pub(super) fn ident_at(
    cx: &Cx<'_, Services>,
    file: &FileIndex,
    at: Position,
) -> Result<(String, u32, u32), CommandError> {
    let rope = rope_of(cx, &file.path).ok_or_else(|| {
        CommandError::new(
            ErrorCode::FileNotFound,
            format!("cannot read {}", file.path),
        )
    })?;
    let idx = to_char(&rope, at, cx.source.encoding())?;
    let line = rope.char_to_line(idx);
    let col = (rope.char_to_byte(idx) - rope.line_to_byte(line)) as u32;
    let line1 = line as u32 + 1;
    file.occurrences
        .iter()
        .filter(|o| o.line == line1)
        .find_map(|o| {
            let name = file.names.get(o.name as usize)?;
            (o.column <= col && col <= o.column + name.len() as u32)
                .then(|| (name.to_string(), o.line, o.column))
        })
        .ok_or_else(|| {
            CommandError::new(
                ErrorCode::SymbolNotFound,
                format!(
                    "no identifier at {}:{}:{}",
                    file.path, at.line, at.character
                ),
            )
            .with_suggestion("put the position on a name (0-based line and character)")
        })
}

fn kind_name(kind: DefKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

// ---------------------------------------------------------------- getSymbols

/// Arguments of `state.getSymbols`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PathArg {
    /// File, from the workspace root.
    pub path: String,
}

/// A seed 003 document symbol.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSymbol {
    pub name: String,
    /// `function`, `method`, `class`, `struct`, `interface`, `trait`, `enum`, `type`,
    /// `variable`, `const`, `module`.
    pub kind: String,
    /// The whole definition, whole lines.
    pub range: Range,
    /// The name.
    pub selection_range: Range,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<DocumentSymbol>,
}

/// Result of `state.getSymbols`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Symbols {
    pub symbols: Vec<DocumentSymbol>,
    pub index: IndexState,
}

/// `state.getSymbols`.
pub struct GetSymbols;

impl Command<Services> for GetSymbols {
    type Args = PathArg;
    type Output = Symbols;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.getSymbols",
        "State: Get Document Symbols",
        "State",
        "A file's symbols (seed 003 DocumentSymbol): functions, classes and the rest, methods and fields nested under their class, with ranges in the caller's position encoding.",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "Symbols of a Rust file",
        args: r#"{"path": "src/lib.rs"}"#,
        files: FIXTURE,
        expect: Some(r#"{"symbols": [{"name": "add", "kind": "function", "selectionRange": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 10}}}, {"name": "Point", "kind": "struct", "children": [{"name": "norm", "kind": "method"}]}]}"#),
        ..Example::EMPTY
    }]);
    fn run(&self, cx: &mut Cx<'_, Services>, a: PathArg) -> Result<Symbols, CommandError> {
        let (file, state) = file_record(cx, &a.path)?;
        let rope = rope_of(cx, &file.path).unwrap_or_default();
        let enc = cx.source.encoding();
        let make = |d: &ultra_index::Definition| DocumentSymbol {
            name: d.name.clone(),
            kind: kind_name(d.kind),
            range: lines_range(&rope, d.line, d.line_end, enc),
            selection_range: span(&rope, d.line, d.column, d.name.len(), enc),
            children: Vec::new(),
        };
        let mut top: Vec<DocumentSymbol> = Vec::new();
        let mut nested: Vec<(&str, DocumentSymbol)> = Vec::new();
        for d in &file.definitions {
            match &d.container {
                Some(c) => nested.push((c.as_str(), make(d))),
                None => top.push(make(d)),
            }
        }
        for (container, sym) in nested {
            match top.iter_mut().find(|t| {
                t.name == container
                    && matches!(
                        t.kind.as_str(),
                        "class" | "struct" | "interface" | "trait" | "enum"
                    )
            }) {
                Some(parent) => parent.children.push(sym),
                None => top.push(sym),
            }
        }
        top.sort_by_key(|s| (s.range.start.line, s.range.start.character));
        Ok(Symbols {
            symbols: top,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- goToDefinition / findReferences

/// Arguments of the position queries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PositionArgs {
    /// File, from the workspace root.
    pub path: String,
    /// A position on a name (0-based).
    pub position: Position,
}

/// Result of `state.goToDefinition` and `state.findReferences`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Locations {
    /// The name at the position.
    pub symbol: String,
    pub locations: Vec<Location>,
    #[serde(flatten)]
    pub by: AnsweredBy,
    pub index: IndexState,
}

/// The server's locations for `method` at `a`, when it answered.
pub(super) fn semantic_locations(
    cx: &Cx<'_, Services>,
    file: &FileIndex,
    a: &PositionArgs,
    method: &str,
    extra: serde_json::Value,
) -> Result<Vec<Location>, Option<ServerAnswer>> {
    let rope = rope_of(cx, &file.path).unwrap_or_default();
    let (v, enc) = semantic::ask(cx, &file.path, &rope, a.position, method, extra)?;
    Ok(semantic::locations(cx, &v, enc, MAX_LOCATIONS))
}

/// `state.goToDefinition`.
pub struct GoToDefinition;

impl Command<Services> for GoToDefinition {
    type Args = PositionArgs;
    type Output = Locations;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.goToDefinition",
        "State: Go to Definition",
        "State",
        "Where the name at a position is defined: from the file's language server when one is ready (`precision: semantic`: the definition of exactly this symbol), else from the code index by name (`syntactic`: same-file definitions first; `languageServer` says why).",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "From a call to the function",
        args: r#"{"path": "src/lib.rs", "position": {"line": 11, "character": 9}}"#,
        files: FIXTURE,
        expect: Some(r#"{"symbol": "add", "locations": [{"path": "src/lib.rs", "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 10}}}]}"#),
        ..Example::EMPTY
    }]);
    fn run(&self, cx: &mut Cx<'_, Services>, a: PositionArgs) -> Result<Locations, CommandError> {
        let (file, state) = file_record(cx, &a.path)?;
        let (name, _, _) = ident_at(cx, &file, a.position)?;
        let language_server =
            match semantic_locations(cx, &file, &a, "textDocument/definition", json!({})) {
                Ok(locations) => {
                    return Ok(Locations {
                        symbol: name,
                        locations,
                        by: AnsweredBy::server(&file.path),
                        index: state,
                    });
                }
                Err(answer) => answer,
            };
        let (code, _) = cx.services.code(&[]);
        let mut defs = code.read().definitions(&name);
        defs.sort_by_key(|d| d.file.path != file.path);
        let enc = cx.source.encoding();
        let root = cx.services.root_path().to_path_buf();
        let locations = defs
            .iter()
            .filter_map(|d| {
                let rope = rope_of(cx, &d.file.path)?;
                let def = d.def();
                Some(Location {
                    uri: file_uri(&root, &d.file.path),
                    path: d.file.path.clone(),
                    range: span(&rope, def.line, def.column, def.name.len(), enc),
                })
            })
            .collect();
        Ok(Locations {
            symbol: name,
            locations,
            by: AnsweredBy::index(language_server),
            index: state,
        })
    }
}

/// `state.findReferences`.
pub struct FindReferences;

/// Most locations one answer carries.
const MAX_LOCATIONS: usize = 5000;

impl Command<Services> for FindReferences {
    type Args = PositionArgs;
    type Output = Locations;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.findReferences",
        "State: Find References",
        "State",
        "Every use of the symbol at a position, across the workspace, definitions included: from the file's language server when one is ready (`precision: semantic`: exactly this symbol, not shadowing or same-named ones), else every occurrence of the name from the code index (`syntactic`; `languageServer` says why).",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "Uses of a function",
        args: r#"{"path": "src/lib.rs", "position": {"line": 1, "character": 8}}"#,
        files: FIXTURE,
        expect: Some(r#"{"symbol": "add", "locations": [{"path": "src/lib.rs", "range": {"start": {"line": 1, "character": 7}}}, {"path": "src/lib.rs", "range": {"start": {"line": 11, "character": 8}}}]}"#),
        ..Example::EMPTY
    }]);
    fn run(&self, cx: &mut Cx<'_, Services>, a: PositionArgs) -> Result<Locations, CommandError> {
        let (file, state) = file_record(cx, &a.path)?;
        let (name, _, _) = ident_at(cx, &file, a.position)?;
        let language_server = match semantic_locations(
            cx,
            &file,
            &a,
            "textDocument/references",
            json!({ "context": { "includeDeclaration": true } }),
        ) {
            Ok(locations) => {
                return Ok(Locations {
                    symbol: name,
                    locations,
                    by: AnsweredBy::server(&file.path),
                    index: state,
                });
            }
            Err(answer) => answer,
        };
        let (code, _) = cx.services.code(&[]);
        let files = code.read().files_with_name(&name);
        let enc = cx.source.encoding();
        let root = cx.services.root_path().to_path_buf();
        let mut locations = Vec::new();
        'files: for f in files {
            let Some(rope) = rope_of(cx, &f.path) else {
                continue;
            };
            for r in f.references_to(&name) {
                if locations.len() >= MAX_LOCATIONS {
                    break 'files;
                }
                locations.push(Location {
                    uri: file_uri(&root, &f.path),
                    path: f.path.clone(),
                    range: span(&rope, r.line, r.column, name.len(), enc),
                });
            }
        }
        Ok(Locations {
            symbol: name,
            locations,
            by: AnsweredBy::index(language_server),
            index: state,
        })
    }
}

// ---------------------------------------------------------------- getHover

/// Result of `state.getHover`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hover {
    /// Markdown: the signature in a code block, then the doc comment (the language
    /// server's type information when it answered).
    pub content: String,
    #[serde(flatten)]
    pub by: AnsweredBy,
    pub index: IndexState,
}

/// `state.getHover`.
pub struct GetHover;

impl Command<Services> for GetHover {
    type Args = PositionArgs;
    type Output = Hover;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.getHover",
        "State: Get Hover",
        "State",
        "The type and doc of the name at a position, as Markdown: the language server's hover when one is ready (`precision: semantic`: inferred types included), else the declaration's signature and doc comment from the code index (`syntactic`).",
    )
    .touches(Touches::READ)
    .read_only()
    .examples(&[Example {
        description: "Hover over a call",
        args: r#"{"path": "src/lib.rs", "position": {"line": 11, "character": 9}}"#,
        files: FIXTURE,
        expect: Some(
            r#"{"content": "```rust\npub fn add(a: i32, b: i32) -> i32\n```\n\nAdds two numbers."}"#,
        ),
        ..Example::EMPTY
    }]);
    fn run(&self, cx: &mut Cx<'_, Services>, a: PositionArgs) -> Result<Hover, CommandError> {
        let (file, state) = file_record(cx, &a.path)?;
        let (name, _, _) = ident_at(cx, &file, a.position)?;
        let rope = rope_of(cx, &file.path).unwrap_or_default();
        let language_server = match semantic::ask(
            cx,
            &file.path,
            &rope,
            a.position,
            "textDocument/hover",
            json!({}),
        ) {
            Ok((v, _)) => match semantic::hover_text(&v) {
                Some(content) => {
                    return Ok(Hover {
                        content,
                        by: AnsweredBy::server(&file.path),
                        index: state,
                    });
                }
                // Nothing to say about it: the index may know its declaration.
                None => AnsweredBy::server(&file.path).language_server,
            },
            Err(answer) => answer,
        };
        let (code, _) = cx.services.code(&[]);
        let mut defs = code.read().definitions(&name);
        defs.sort_by_key(|d| d.file.path != file.path);
        let lang = file.lang.map_or("", |l| l.as_str());
        let content = defs
            .iter()
            .find_map(|d| {
                let def = d.def();
                let file = code.details(&d.file);
                let f = file.functions.iter().find(|f| {
                    f.name == def.name && f.line_start <= def.line && def.line <= f.line_end
                });
                if let Some(f) = f {
                    let mut s = format!("```{lang}\n{}\n```", f.signature);
                    if let Some(doc) = &f.doc {
                        s.push_str(&format!("\n\n{doc}"));
                    }
                    return Some(s);
                }
                let c = file.classes.iter().find(|c| c.name == def.name)?;
                let mut s = format!("```{lang}\n{} {}\n```", c.kind, c.name);
                if let Some(doc) = &c.doc {
                    s.push_str(&format!("\n\n{doc}"));
                }
                Some(s)
            })
            .or_else(|| {
                defs.first().map(|d| {
                    format!(
                        "```{lang}\n{} {}\n```",
                        kind_name(d.def().kind),
                        d.def().name
                    )
                })
            })
            .unwrap_or_else(|| format!("`{name}`"));
        Ok(Hover {
            content,
            by: AnsweredBy::index(language_server),
            index: state,
        })
    }
}
