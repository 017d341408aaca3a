//! `state.findImplementations` and `state.getCallHierarchy`: from the file's language
//! server when it is ready (`precision: semantic`), else from the code index by name
//! (`syntactic`: every definition of the name; callers and callees found by the names
//! used inside functions), with the server's state beside it.

use ropey::Rope;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_index::FileIndex;
use ultra_protocol::{CommandError, ErrorCode, Position, Range};

use super::IndexState;
use super::place::{Location, pos, rope_of};
use super::semantic::{self, AnsweredBy};
use super::state::{FIXTURE, Locations, PositionArgs, file_record, ident_at, semantic_locations};
use ultra_services::Services;
use ultra_services::util::file_uri;

/// Register the queries.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(FindImplementations)?;
    r.register(GetCallHierarchy)?;
    Ok(())
}

/// Most calls or locations in one answer.
const MAX: usize = 2000;

// ---------------------------------------------------------------- findImplementations

/// `state.findImplementations`.
pub struct FindImplementations;

impl Command<Services> for FindImplementations {
    type Args = PositionArgs;
    type Output = Locations;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.findImplementations",
        "State: Find Implementations",
        "State",
        "What implements the interface, abstract method or type at a position: from the file's language server when one is ready (`precision: semantic`), else every other definition of the name from the code index (`syntactic`; `languageServer` says why).",
    )
    .touches(Touches::READ)
    .read_only()
    .long()
    .examples(&[Example {
        description: "By name, without a language server",
        args: r#"{"path": "src/lib.rs", "position": {"line": 11, "character": 9}}"#,
        files: FIXTURE,
        expect: Some(r#"{"symbol": "add", "precision": "syntactic", "locations": [{"path": "src/lib.rs", "range": {"start": {"line": 1}}}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: PositionArgs) -> Result<Locations, CommandError> {
        let (file, state) = file_record(cx, &a.path)?;
        let (name, line, column) = ident_at(cx, &file, a.position)?;
        let implementation = "textDocument/implementation";
        let language_server = match semantic_locations(cx, &file, &a, implementation, json!({})) {
            Ok(locations) => {
                return Ok(Locations {
                    symbol: name,
                    locations,
                    by: AnsweredBy::server(&file.path),
                    index: state,
                });
            }
            Err(why) => why,
        };
        let (code, _) = cx.services.code(&[]);
        let enc = cx.source.encoding();
        let root = cx.services.root_path().to_path_buf();
        let defs = code.read().definitions(&name);
        let locations = defs
            .iter()
            // Not the declaration asked from.
            .filter(|d| {
                !(d.file.path == file.path && d.def().line == line && d.def().column == column)
            })
            .take(MAX)
            .filter_map(|d| {
                let rope = rope_of(cx, &d.file.path)?;
                let def = d.def();
                Some(Location {
                    uri: file_uri(&root, &d.file.path),
                    path: d.file.path.clone(),
                    range: Range::new(
                        pos(&rope, def.line, def.column, enc),
                        pos(&rope, def.line, def.column + def.name.len() as u32, enc),
                    ),
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

// ---------------------------------------------------------------- getCallHierarchy

/// Which way `state.getCallHierarchy` looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who calls it.
    Incoming,
    /// What it calls.
    Outgoing,
}

/// Arguments of `state.getCallHierarchy`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CallHierarchyArgs {
    /// File, from the workspace root.
    pub path: String,
    /// A position on a function's name (its declaration or a call, 0-based).
    pub position: Position,
    /// `incoming` (default: its callers) or `outgoing` (what it calls).
    pub direction: Option<Direction>,
}

/// A caller or callee.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// The caller (incoming) or callee (outgoing).
    pub name: String,
    pub path: String,
    /// Where its name is declared.
    pub range: Range,
    /// Where the calls are: in the caller's file (incoming), in the asked function's
    /// file (outgoing).
    pub call_sites: Vec<Range>,
}

/// Result of `state.getCallHierarchy`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallHierarchy {
    pub symbol: String,
    pub direction: Direction,
    pub calls: Vec<Call>,
    #[serde(flatten)]
    pub by: AnsweredBy,
    pub index: IndexState,
}

/// `state.getCallHierarchy`.
pub struct GetCallHierarchy;

impl Command<Services> for GetCallHierarchy {
    type Args = CallHierarchyArgs;
    type Output = CallHierarchy;
    const SPEC: CommandSpec = CommandSpec::new(
        "state.getCallHierarchy",
        "State: Get Call Hierarchy",
        "State",
        "Who calls the function at a position (`direction: incoming`, the default) or what it calls (`outgoing`), with the call sites: from the file's language server when one is ready (`precision: semantic`), else by name from the code index (`syntactic`: uses of the name inside functions; `languageServer` says why).",
    )
    .touches(Touches::READ)
    .read_only()
    .long()
    .examples(&[
        Example {
            description: "Callers of a function",
            args: r#"{"path": "src/lib.rs", "position": {"line": 1, "character": 8}}"#,
            files: FIXTURE,
            expect: Some(r#"{"symbol": "add", "direction": "incoming", "calls": [{"name": "norm", "path": "src/lib.rs", "callSites": [{"start": {"line": 11, "character": 8}}]}]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "What a method calls",
            args: r#"{"path": "src/lib.rs", "position": {"line": 10, "character": 12}, "direction": "outgoing"}"#,
            files: FIXTURE,
            expect: Some(r#"{"symbol": "norm", "calls": [{"name": "add", "callSites": [{"start": {"line": 11}}]}]}"#),
            ..Example::EMPTY
        },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: CallHierarchyArgs,
    ) -> Result<CallHierarchy, CommandError> {
        let direction = a.direction.unwrap_or(Direction::Incoming);
        let (file, state) = file_record(cx, &a.path)?;
        let (name, line, _) = ident_at(cx, &file, a.position)?;
        let rope = rope_of(cx, &file.path).unwrap_or_default();
        let language_server = match semantic_calls(cx, &file.path, &rope, a.position, direction) {
            Ok(calls) => {
                return Ok(CallHierarchy {
                    symbol: name,
                    direction,
                    calls,
                    by: AnsweredBy::server(&file.path),
                    index: state,
                });
            }
            Err(why) => why,
        };
        let calls = match direction {
            Direction::Incoming => callers(cx, &name),
            Direction::Outgoing => callees(cx, &file, &name, line)?,
        };
        Ok(CallHierarchy {
            symbol: name,
            direction,
            calls,
            by: AnsweredBy::index(language_server),
            index: state,
        })
    }
}

/// The server's calls: `prepareCallHierarchy` at the position, then the item's incoming
/// or outgoing calls.
fn semantic_calls(
    cx: &Cx<'_, Services>,
    path: &str,
    rope: &Rope,
    at: Position,
    direction: Direction,
) -> semantic::Answered<Vec<Call>> {
    let (items, enc) = semantic::ask(
        cx,
        path,
        rope,
        at,
        "textDocument/prepareCallHierarchy",
        json!({}),
    )?;
    let Some(item) = items.as_array().and_then(|a| a.first()).cloned() else {
        return Ok(Vec::new());
    };
    let (method, key) = match direction {
        Direction::Incoming => ("callHierarchy/incomingCalls", "from"),
        Direction::Outgoing => ("callHierarchy/outgoingCalls", "to"),
    };
    let (calls, _) = semantic::request(cx, path, rope, method, &|_| json!({ "item": item }))?;
    let item_uri = item["uri"].clone();
    let mut out = Vec::new();
    for c in calls.as_array().into_iter().flatten().take(MAX) {
        let other = &c[key];
        // Where the name is: a location in the other item's file.
        let named = json!({ "uri": other["uri"], "range": other["selectionRange"] });
        let Some(place) = semantic::locations(cx, &named, enc, 1).pop() else {
            continue;
        };
        // The call sites are in the caller's file: the other item's (incoming), the
        // asked one's (outgoing).
        let sites_uri = match direction {
            Direction::Incoming => other["uri"].clone(),
            Direction::Outgoing => item_uri.clone(),
        };
        let sites = Value::Array(
            c["fromRanges"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| json!({ "uri": sites_uri, "range": r }))
                .collect(),
        );
        out.push(Call {
            name: other["name"].as_str().unwrap_or_default().to_string(),
            path: place.path,
            range: place.range,
            call_sites: semantic::locations(cx, &sites, enc, MAX)
                .into_iter()
                .map(|l| l.range)
                .collect(),
        });
    }
    Ok(out)
}

/// The innermost function of `file` (its details) around 1-based `line`.
fn enclosing(file: &FileIndex, line: u32) -> Option<&ultra_index::Function> {
    file.functions
        .iter()
        .filter(|f| f.line_start <= line && line <= f.line_end)
        .min_by_key(|f| f.line_end - f.line_start)
}

/// By name: every use of `name` that is not a definition, grouped by the function it is in.
fn callers(cx: &Cx<'_, Services>, name: &str) -> Vec<Call> {
    let (code, _) = cx.services.code(&[]);
    let enc = cx.source.encoding();
    let files = code.read().files_with_name(name);
    let mut out: Vec<Call> = Vec::new();
    for f in files {
        let Some(rope) = rope_of(cx, &f.path) else {
            continue;
        };
        let details = code.details(&f);
        for r in f.references_to(name).filter(|r| !r.is_definition) {
            let Some(caller) = enclosing(&details, r.line) else {
                continue;
            };
            let site = Range::new(
                pos(&rope, r.line, r.column, enc),
                pos(&rope, r.line, r.column + name.len() as u32, enc),
            );
            match out.iter_mut().find(|c| {
                c.path == f.path
                    && c.name == caller.name
                    && c.range.start.line + 1 == caller.line_start
            }) {
                Some(c) => c.call_sites.push(site),
                None => {
                    if out.len() >= MAX {
                        return out;
                    }
                    out.push(Call {
                        name: caller.name.clone(),
                        path: f.path.clone(),
                        range: Range::new(
                            pos(&rope, caller.line_start, 0, enc),
                            pos(&rope, caller.line_start, 0, enc),
                        ),
                        call_sites: vec![site],
                    });
                }
            }
        }
    }
    out
}

/// By name: the names used inside the function `name` (at 1-based `line` of `file`: its
/// declaration, or a call of it) that name functions the index knows, grouped by name.
fn callees(
    cx: &Cx<'_, Services>,
    file: &std::sync::Arc<FileIndex>,
    name: &str,
    line: u32,
) -> Result<Vec<Call>, CommandError> {
    let (code, _) = cx.services.code(&[]);
    let is_function = |k: ultra_index::DefKind| {
        matches!(
            k,
            ultra_index::DefKind::Function | ultra_index::DefKind::Method
        )
    };
    // The function declared here, else the first of that name the index knows.
    let here = code.details(file);
    let declared_here = here
        .functions
        .iter()
        .filter(|f| f.name == name && f.line_start <= line && line <= f.line_end)
        .min_by_key(|f| f.line_end - f.line_start)
        .cloned();
    let (file, f) = match declared_here {
        Some(f) => (file.clone(), f),
        None => {
            let defs = code.read().definitions(name);
            let found = defs
                .iter()
                .filter(|d| is_function(d.def().kind))
                .find_map(|d| {
                    let details = code.details(&d.file);
                    let f = details
                        .functions
                        .iter()
                        .find(|f| {
                            f.name == name
                                && f.line_start <= d.def().line
                                && d.def().line <= f.line_end
                        })
                        .cloned()?;
                    Some((d.file.clone(), f))
                });
            found.ok_or_else(|| {
                CommandError::new(
                    ErrorCode::SymbolNotFound,
                    format!("`{name}` is not a function the index knows"),
                )
                .with_suggestion("put the position on a function's name")
            })?
        }
    };
    let enc = cx.source.encoding();
    let rope = rope_of(cx, &file.path).unwrap_or_default();
    let idx = code.read();
    let mut out: Vec<Call> = Vec::new();
    for o in file
        .occurrences
        .iter()
        .filter(|o| f.line_start <= o.line && o.line <= f.line_end && !o.is_definition)
    {
        let Some(callee) = file.names.get(o.name as usize) else {
            continue;
        };
        let defs = idx.definitions(callee);
        let Some(def) = defs.iter().find(|d| is_function(d.def().kind)) else {
            continue;
        };
        let site = Range::new(
            pos(&rope, o.line, o.column, enc),
            pos(&rope, o.line, o.column + callee.len() as u32, enc),
        );
        match out.iter_mut().find(|c| c.name == callee) {
            Some(c) => c.call_sites.push(site),
            None => {
                let at = def.def();
                let range = rope_of(cx, &def.file.path).map_or(Range::default(), |r| {
                    Range::new(
                        pos(&r, at.line, at.column, enc),
                        pos(&r, at.line, at.column + at.name.len() as u32, enc),
                    )
                });
                out.push(Call {
                    name: callee.to_string(),
                    path: def.file.path.clone(),
                    range,
                    call_sites: vec![site],
                });
            }
        }
        if out.len() >= MAX {
            break;
        }
    }
    Ok(out)
}
